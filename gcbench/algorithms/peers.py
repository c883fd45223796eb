"""Other people's implementations run side by side (cuSPARSE lives with the GPU code)."""
