"""Compile the engine's kernels once per server process, in the background.

Pure module (no Streamlit). The first page view of a server starts one thread
(:func:`start`) that runs ``curvedtrees.trees.warm_up()`` and then
``curvedtrees.klein.warm_up()``: numba compiles the kernels (or loads them from its
on-disk cache, ``cache=True``) while the visitor looks at the page. A fit waits for
the kernels it needs first (:func:`wait_for`, with a spinner saying why), so the fit
time the app shows never includes compilation.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable

__all__ = ["STAGES", "is_ready", "kernels_for", "start", "started", "wait_for"]

logger = logging.getLogger(__name__)

# Stages in the order the thread compiles them: (key, what the spinner calls them,
# about how long a first compilation takes on a 2-core machine without numba's cache).
# Boosting is not among them: compiling runs in this process and holds the GIL, and its 25-50
# CPU-s without numba's cache (a fresh checkout) would slow every page of every visitor for the
# rarest first fit; ``make run`` compiles it with ``curvedtrees.warm_up()`` before the server starts.
STAGES = (("trees", "tree kernels", 20), ("klein", "Klein-model kernels", 15))
_EVENTS = {key: threading.Event() for key, _, _ in STAGES}
_LOCK = threading.Lock()
_STATE = {"thread": None, "started_at": None, "spinner": None}


def _run(stages) -> None:
    for key, function in stages:
        try:
            function()
        except Exception:  # a failed warm-up only means the first fit compiles: never block it
            logger.exception("warm-up of the %s kernels failed", key)
        finally:
            _EVENTS[key].set()


def _engine_stages():
    import curvedtrees.klein
    import curvedtrees.trees

    return (("trees", curvedtrees.trees.warm_up), ("klein", curvedtrees.klein.warm_up))


def start(stages=None, spinner: Callable[[str], contextlib.AbstractContextManager] | None = None) -> bool:
    """Start the warm-up thread unless this process already has one.

    Parameters
    ----------
    stages : sequence of (key, callable), optional
        What to run, in order (default: the engine's ``warm_up`` functions); for tests.
    spinner : callable, optional
        ``spinner(text)`` returns a context manager shown while a fit waits (the app
        passes ``st.spinner``, which draws in the session of the thread that enters it).

    Returns
    -------
    bool
        Whether this call started the thread.
    """
    with _LOCK:
        if spinner is not None:
            _STATE["spinner"] = spinner
        if _STATE["thread"] is not None:
            return False
        thread = threading.Thread(
            target=_run, args=(stages or _engine_stages(),), name="curvedtrees-warm-up", daemon=True
        )
        _STATE["thread"], _STATE["started_at"] = thread, time.monotonic()
        thread.start()
        return True


def started() -> bool:
    """Whether the warm-up thread was started in this process."""
    return _STATE["thread"] is not None


def is_ready(key: str) -> bool:
    """Whether stage ``key`` ("trees" or "klein") is done (or no warm-up was started)."""
    return not started() or _EVENTS[key].is_set()


def kernels_for(estimator) -> str:
    """The stage an estimator's fit needs: "klein" for the Klein wrappers, else "trees".

    Boosting fits wait for the trees' kernels, which they share, and compile their own.
    """
    return "klein" if type(estimator).__module__.startswith("curvedtrees.klein") else "trees"


def wait_for(key: str, spinner: Callable[[str], contextlib.AbstractContextManager] | None = None) -> float:
    """Block until stage ``key`` and the stages before it are compiled.

    Returns at once when no warm-up was started (scripts, tests) or it is done.

    Parameters
    ----------
    key : {"trees", "klein"}
    spinner : callable, optional
        ``spinner(text)`` returns a context manager shown while waiting (default: the
        one given to :func:`start`).

    Returns
    -------
    float
        Seconds spent waiting.
    """
    if is_ready(key):
        return 0.0
    index = [k for k, _, _ in STAGES].index(key)
    label = STAGES[index][1]
    total = sum(seconds for _, _, seconds in STAGES[: index + 1])
    elapsed = time.monotonic() - (_STATE["started_at"] or time.monotonic())
    text = (
        f"Compiling the {label} (once per server, about {total} s; started {elapsed:.0f} s ago). "
        "The fit starts, and its time is counted, once they are ready..."
    )
    spinner = spinner if spinner is not None else _STATE["spinner"]
    start_wait = time.monotonic()
    with spinner(text) if spinner is not None else contextlib.nullcontext():
        _EVENTS[key].wait()
    return time.monotonic() - start_wait
