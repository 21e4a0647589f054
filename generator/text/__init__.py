"""Text: fonts (registry, cuts, CJK and Latin faces), the language tables of the words
shared templates print, Markdown for Chinese, and the line breaks WeasyPrint needs help with."""
