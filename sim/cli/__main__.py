"""`python -m sim.cli ARGS`, as the `sim` script does."""

from sim.cli import cli

cli()
