"""The package version, recorded in every run folder (a leaf: anything may import it)."""

__version__ = "0.1.0"
