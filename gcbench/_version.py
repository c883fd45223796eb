"""The version of gcbench, in a leaf module that any layer may import."""

__version__ = "0.1.0"
