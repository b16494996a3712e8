"""trimscope's harness: the reference runtime and everything built around it."""

__version__ = "0.1.0"
__all__ = ["__version__"]
