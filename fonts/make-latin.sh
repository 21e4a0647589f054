#!/bin/sh
# How the Latin faces in this folder were made: Noto Sans and Noto Serif (regular, bold, italic,
# bold italic) from Debian's fonts-noto-core 20201225-1, cut down with fontTools to the Latin,
# Greek and Cyrillic blocks below, hinting and DSIG dropped. Run from this folder with the project's venv:
#   sh make-latin.sh ../.venv/bin/pyftsubset
set -eu
PYFTSUBSET=${1:-pyftsubset}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && apt-get download fonts-noto-core=20201225-1 && dpkg-deb -x fonts-noto-core_*.deb x)
# Basic Latin, Latin-1, Latin Extended-A, the Latin Extended-B letters of Romanian and the
# like, spacing and combining accents, general punctuation (’ “ ” – — … ‹ ›), super- and
# subscripts, currency (€ £ ₹), letterlike symbols (№ ™), number forms (⅓ ⅔), the minus,
# the fi/fl ligatures; ‘ ’ “ ” are what the CJK faces set full-width. Greek (monotonic and
# polytonic: Greek and Coptic, Greek Extended) and Cyrillic (Cyrillic, Cyrillic Supplement:
# Russian, Ukrainian, Bulgarian, Serbian and the other languages written in it).
UNICODES="U+0020-007E,U+00A0-00FF,U+0100-017F,U+0180-024F,U+02B0-02FF,U+0300-036F,U+1E9E,\
U+0370-03FF,U+1F00-1FFF,U+0400-04FF,U+0500-052F,U+2000-206F,U+2070-209F,U+20A0-20CF,U+2100-214F,U+2150-218F,U+2212,U+2215,U+FB00-FB06"
export SOURCE_DATE_EPOCH=1609459200  # the head table's date: the same file on every run
for family in NotoSans NotoSerif; do
  for face in Regular Bold Italic BoldItalic; do
    "$PYFTSUBSET" "$WORK/x/usr/share/fonts/truetype/noto/$family-$face.ttf" \
      --unicodes="$UNICODES" --layout-features='*' --name-IDs='*' --name-languages='*' \
      --notdef-outline --no-hinting --drop-tables+=DSIG \
      --output-file="$family-$face.ttf"
  done
done
