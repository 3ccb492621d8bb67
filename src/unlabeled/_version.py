"""The version of the package (one place: the package, model files and the CLI read it)."""

__version__ = "0.2.0"
