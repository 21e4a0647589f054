"""`python -m generator.cli`: the `pnp` command."""

import sys

from . import main

sys.exit(main())
