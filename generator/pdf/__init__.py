"""Stage 5, PDF: laid-out parts joined into output files with pikepdf, pages drawn as
pixels with PDFium, and CMYK with Ghostscript: one module per library."""
