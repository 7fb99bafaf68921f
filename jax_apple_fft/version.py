"""The package's version (pyproject.toml's), in one place."""

__version__ = "0.1.0"
