"""Small helpers shared by every layer of the package (imports NumPy and the standard library only).

- :func:`as_generator`: the one way a ``random_state`` becomes a ``numpy.random.Generator``
  (estimators keep scikit-learn's own ``check_random_state``, as scikit-learn's do);
- :func:`require`: import an optional package, or raise an ImportError that names the
  ``curvedtrees`` extra that installs it.
"""

from __future__ import annotations

import importlib
import numbers

import numpy as np

__all__ = ["EXTRAS", "as_generator", "require"]

# Optional import name -> the extra of ``pyproject.toml`` that installs it. Kept in step with
# ``[project.optional-dependencies]`` by tests/test_packaging.py.
EXTRAS = {
    "plotly": "viz",
    "torch": "embeddings",
    "geoopt": "embeddings",
    "networkx": "datasets",
    "statsmodels": "datasets",
    "world_temperature_data": "datasets",
    "pandas": "benchmarks",
    "tqdm": "benchmarks",
    "xgboost": "boosting",
    "lightgbm": "boosting",
    "dask": "dask",
    "distributed": "dask",
}


def as_generator(random_state) -> np.random.Generator:
    """A ``numpy.random.Generator`` from the usual ``random_state`` values.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator, numpy.random.RandomState or SeedSequence
        ``None``: fresh OS entropy. ``int`` / ``SeedSequence``: a new generator seeded
        with it (same seed, same stream). ``Generator``: used as is (its state
        advances). ``RandomState``: one seed is drawn from it, so successive calls
        with the same instance differ but stay reproducible. Global NumPy
        state is never read or written.

    Examples
    --------
    >>> as_generator(0).integers(10) == as_generator(0).integers(10)
    np.True_
    """
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative integer, got {random_state}")
        return np.random.default_rng(int(random_state))
    raise ValueError(
        f"random_state must be None, an int, a numpy Generator or RandomState, got {type(random_state).__name__}"
    )


def require(module: str, purpose: str):
    """Import an optional package or raise an ImportError that says how to install it.

    Parameters
    ----------
    module : str
        Importable module name, such as ``"networkx"``.
    purpose : str
        What needs it, for the message ("The Karate Club graph").

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    ImportError
        Naming the package and the extra, e.g. ``pip install 'curvedtrees[datasets]'``.

    Examples
    --------
    >>> require("numpy", "Everything").__name__
    'numpy'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = EXTRAS.get(top)
        how = f"pip install 'curvedtrees[{extra}]'" if extra else f"pip install {top}"
        raise ImportError(
            f"{purpose} needs the optional package {top!r}, which is not installed; install it with: {how}"
        ) from exc
