"""GPU algorithms: thin launchers over ``kernels/<family>.cu`` (CuPy imported lazily)."""
