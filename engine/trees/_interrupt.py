"""Ctrl-C during a fit: cancel flags shared with the compiled builder.

Python runs signal handlers in the main thread only, between bytecodes, so Ctrl-C
cannot reach a thread that is inside a compiled (numba, GIL-free) tree build: it
would wait for the build to return, and worker threads would keep computing after
the interrupt. Instead, the builder reads a small shared ``int8`` flag before every
node and after every feature's sort and stops when it is raised; the Python side

* runs a build that was started in the main thread in a worker thread and waits in
  short ``wait(timeout)`` slices (:func:`run_interruptible`), so the interpreter
  keeps running and delivers ``KeyboardInterrupt`` at once; it then raises the flag,
  waits (at most a second) for the worker to stop and lets the interrupt propagate;
* raises the flag from the SIGINT handler itself while a forest fits in threads
  (:func:`raise_flag_on_sigint`): the thread pool joins its threads before the
  interrupt propagates, and they only stop at a raised flag;
* clears the estimator's fitted attributes (:func:`clear_fitted`), so an interrupted
  fit leaves it unfitted rather than half-fitted.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time

import numpy as np

__all__ = ["BuildCancelled", "clear_fitted", "new_cancel_flag", "raise_flag_on_sigint", "run_interruptible"]

# How long the main thread waits on a build before it lets Python run signal handlers
# again: short enough for Ctrl-C to feel immediate, long enough to cost nothing.
_WAIT_SECONDS = 0.05
# How long an interrupted wait gives the worker to stop before the interrupt goes up
# anyway. A raised flag stops a build within one feature's sort (about 0.1 s of CPU at
# 10^6 rows); on a loaded machine that can take longer, and the interrupt should not.
_STOP_SECONDS = 1.0


class BuildCancelled(Exception):
    """A build stopped because its cancel flag was raised.

    An ``Exception``, not a ``KeyboardInterrupt``: thread pools (joblib's threads,
    ``multiprocessing.pool``) hand an ``Exception`` back to the caller, while a
    ``KeyboardInterrupt`` escaping a pool thread would end it without a result.
    """


def new_cancel_flag() -> np.ndarray:
    """A cancel flag: int8 array of shape (1,), zero until raised."""
    return np.zeros(1, dtype=np.int8)


def run_interruptible(kernel, args: tuple, cancel: np.ndarray):
    """``kernel(*args)`` in a worker thread while the calling (main) thread waits in slices.

    ``kernel`` must stop soon after ``cancel[0]`` becomes non-zero. Any exception in
    the waiting thread (KeyboardInterrupt) raises the flag, waits for the worker to
    stop (at most ``_STOP_SECONDS``) and propagates; the worker's own exceptions are
    re-raised here.
    """
    outcome = {}
    # The wait is on an Event the worker sets last, not on Thread.join: on Python 3.11 a
    # join interrupted by KeyboardInterrupt marks a still-running thread as stopped
    # (its finishing lock is released on its behalf), and every later join returns at once.
    finished = threading.Event()

    def work():
        try:
            outcome["result"] = kernel(*args)
        except BaseException as exc:  # handed to the waiting thread below
            outcome["error"] = exc
        finally:
            finished.set()

    worker = threading.Thread(target=work, name="curvedtrees-build", daemon=True)
    worker.start()
    try:
        while not finished.wait(_WAIT_SECONDS):
            pass
    except BaseException:
        cancel[0] = 1
        wait_stopping(finished, _STOP_SECONDS)
        raise
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def wait_stopping(finished: threading.Event, timeout: float) -> None:
    """Wait up to ``timeout`` seconds for a worker whose flag is raised.

    A second Ctrl-C must not cut the wait short; past the timeout the worker finishes
    its current step and exits on its own (it holds its own references to its arrays).
    """
    deadline = time.monotonic() + timeout
    while not finished.is_set() and time.monotonic() < deadline:
        with contextlib.suppress(KeyboardInterrupt):  # the first interrupt is already on its way up
            finished.wait(_WAIT_SECONDS)


@contextlib.contextmanager
def raise_flag_on_sigint(cancel: np.ndarray):
    """While the block runs, Ctrl-C raises ``cancel`` before the usual KeyboardInterrupt.

    Does nothing outside the main thread (signals never arrive there) or when SIGINT
    is ignored or not handled by Python (then Ctrl-C keeps its usual effect).
    """
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if not callable(previous):
        yield
        return

    def handler(signum, frame):
        cancel[0] = 1
        previous(signum, frame)

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def clear_fitted(estimator) -> None:
    """Remove every fitted attribute (trailing underscore, scikit-learn's convention)."""
    for name in [name for name in vars(estimator) if name.endswith("_") and not name.startswith("__")]:
        delattr(estimator, name)
