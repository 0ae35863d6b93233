"""Small helpers shared by every layer of the package (imports NumPy and the standard library only).

- :func:`as_generator`: the one way a ``random_state`` becomes a ``numpy.random.Generator``
  (estimators keep scikit-learn's own ``check_random_state``, as scikit-learn's do);
- :func:`require`: import an optional package, or raise an ImportError that names the
  ``curvedtrees`` extra that installs it;
- :func:`watch_compiles` and :func:`quiet_compiles`: a fit that spends more than a second
  compiling numba kernels logs one notice naming ``curvedtrees.warm_up`` (numba is imported
  only by the kernels' packages, when they call :func:`watch_compiles`).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import numbers
import threading
import time

import numpy as np

__all__ = ["EXTRAS", "as_generator", "require"]  # the compile notice is for the package alone

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


# numba compiles the kernels on their first call (about 8-14 CPU-s for a first tree, forest or
# boosting fit) and caches them on disk (cache=True), so later processes load them in well under
# a second. A fit that compiles says so once per process, naming warm_up; warm_up itself is quiet.
# The kernels' packages (trees, boosting, klein) call watch_compiles when imported.
COMPILE_NOTICE_SECONDS = 1.0
_COMPILES = {"seconds": 0.0, "told": False, "quiet": 0, "watching": False}


def compile_notice(seconds: float) -> None:
    """Add ``seconds`` of compilation; past COMPILE_NOTICE_SECONDS, log the notice (once).

    Compiling inside :func:`quiet_compiles` is not counted: after a warm-up, a fit's own
    short compile (a new dtype, say) is not added to the warm-up's seconds.
    """
    if _COMPILES["quiet"]:
        return
    _COMPILES["seconds"] += seconds
    if _COMPILES["told"] or _COMPILES["seconds"] <= COMPILE_NOTICE_SECONDS:
        return
    _COMPILES["told"] = True
    logging.getLogger("curvedtrees").warning(
        "curvedtrees: compiling its numba kernels (%.0f s so far; once per installation, numba caches "
        "them on disk). Call curvedtrees.warm_up() once after installing, or at start-up, to compile "
        "them ahead of the first fit.",
        _COMPILES["seconds"],
    )


def watch_compiles() -> None:
    """Time numba's compilations of the package's kernels (once per process; the kernels' packages call it)."""
    if _COMPILES["watching"]:
        return
    _COMPILES["watching"] = True
    from numba.core import event

    class _CompileTimer(event.Listener):
        # Kernels compile the kernels they call inside their own compilation: only the
        # outermost one of each thread is timed.
        def __init__(self):
            self._local = threading.local()

        def on_start(self, e):
            depth = getattr(self._local, "depth", 0)
            if depth == 0:
                self._local.started = time.perf_counter()
            self._local.depth = depth + 1

        def on_end(self, e):
            self._local.depth -= 1
            dispatcher = (e.data or {}).get("dispatcher")
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
            if self._local.depth == 0 and module.startswith("curvedtrees"):
                compile_notice(time.perf_counter() - self._local.started)

    event.register("numba:compile", _CompileTimer())


@contextlib.contextmanager
def quiet_compiles():
    """No compile notice inside (the warm-up functions: they are what the notice asks for)."""
    _COMPILES["quiet"] += 1
    try:
        yield
    finally:
        _COMPILES["quiet"] -= 1
