"""Stage 4, lay out: the only package that imports WeasyPrint. A part's HTML becomes pages
in worker processes, one a core, measured for the checks that need a laid-out page."""
