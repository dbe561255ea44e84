"""The package's version: one definition, read by pyproject.toml (setuptools `dynamic`) and `__version__`."""

__version__ = "0.2.0"
