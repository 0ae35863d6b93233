"""Data files shipped inside the package (read with :mod:`importlib.resources`)."""
