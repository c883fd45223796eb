"""CPU algorithms (numba/numpy); each module registers its specs on import."""
