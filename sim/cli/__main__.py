"""`python -m sim.cli ARGS`, as the `sim` script does."""

import sys

from sim.cli import main

sys.exit(main())
