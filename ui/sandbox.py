"""Load an uploaded model file in a short-lived child process, then check it against the current dataset.

The engine validates every model document before native code sees it (see
``curvedtrees.klein._validate``), but the app must also survive a native crash that no
check foresaw: one upload must not kill the server and every session with it. So an
uploaded file is first loaded in a child process (``subprocess``, a fresh interpreter:
nothing of the server is forked) under a CPU-time limit and an address-space limit
(``RLIMIT_CPU`` and ``RLIMIT_AS``, set by the child on itself before it reads the file).
The child loads the document with :func:`curvedtrees.io.loads` and predicts on a few
rows; only its verdict comes back, as JSON. The parent then loads the same text itself:
the child has shown that this exact text loads and predicts without crashing. Nothing
is pickled in either direction.

A class uploading at once must not be told that its files are damaged when the server
is only busy: at most :data:`curvedtrees.limits.MODEL_CHECKERS` checkers run at a time
(each takes about 3 CPU-s and 300 MB), the others wait in line (``on_wait`` hears their
place), and a check is limited by the CPU time *it* uses, not by the wall time a busy
machine takes. A check that cannot get a checker within
:data:`~curvedtrees.limits.MAX_CHECKER_WAIT_SECONDS` fails with :class:`CheckerBusy`,
which names the busy server as the reason, not the file.

Pure module (no Streamlit): :func:`load_model_isolated`, :func:`check_against_dataset`,
:class:`ModelFileError`, :class:`CheckerBusy`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable

import numpy as np
from curvedtrees.limits import (
    MAX_CHECKER_CPU_SECONDS,
    MAX_CHECKER_MEMORY_MB,
    MAX_CHECKER_WAIT_SECONDS,
    MAX_DOCUMENT_BYTES,
    MODEL_CHECKERS,
)

__all__ = [
    "MAX_MODEL_BYTES",
    "CheckerBusy",
    "ModelFileError",
    "check_against_dataset",
    "checkers",
    "load_model_isolated",
]

MAX_MODEL_BYTES = MAX_DOCUMENT_BYTES  # what curvedtrees.io.loads accepts: a larger file is refused before any work
PROBE_ROWS = 64  # rows the child predicts on, spread over the dataset: many leaves reached, still cheap
_MARK = "@@curvedtrees-sandbox@@ "  # the child's verdict line (libraries may print to stdout too)

# The child: limits itself, reads {"model": text, "rows": [[...], ...], "signature": str}
# from stdin, loads, predicts on the rows if the model is of their signature and width,
# and prints one verdict line. Only curvedtrees and numpy are imported by name.
_CHILD = r"""
import json, resource, sys
limit = int(sys.argv[1]) * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
cpu = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))  # SIGXCPU, then SIGKILL two seconds later
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
mark = sys.argv[2]

def reply(**verdict):
    sys.stdout.write("\n" + mark + " " + json.dumps(verdict) + "\n")
    sys.stdout.flush()

try:
    request = json.loads(sys.stdin.read())
    import numpy as np
    from curvedtrees import io
    from curvedtrees.manifolds import Signature
    model = io.loads(request["model"])
    width = getattr(model, "n_features_in_", None)
    signature = getattr(model, "signature_", None) or getattr(model, "signature", None)
    rows = np.asarray(request["rows"], dtype=np.float64)
    same = signature is not None and str(Signature.parse(signature)) == request["signature"]
    if not same or width is None or rows.ndim != 2 or rows.shape[1] != width:
        reply(ok=True, predicted=False, width=width)
    else:
        prediction = np.asarray(model.predict(rows))
        if prediction.shape[:1] != (len(rows),):
            raise ValueError("the model's predictions do not have one value per row")
        if prediction.dtype.kind == "f" and not np.all(np.isfinite(prediction)):
            raise ValueError("the model predicts non-finite values")
        if hasattr(model, "predict_proba"):
            proba = np.asarray(model.predict_proba(rows), dtype=np.float64)
            if not np.all(np.isfinite(proba)):
                raise ValueError("the model's class probabilities are not finite numbers")
        reply(ok=True, predicted=True, width=width)
except MemoryError:
    reply(ok=False, kind="MemoryError", message="")
except Exception as exc:
    reply(ok=False, kind=type(exc).__name__, message=str(exc)[:2000])
"""


class ModelFileError(ValueError):
    """An uploaded model file that cannot be used; ``str(error)`` is a plain sentence for the user."""


class CheckerBusy(ModelFileError):
    """The file was not checked because the server is busy (its checkers were taken, or it ran out of time)."""


class _Checkers:
    """At most ``limit`` checks at a time; the others wait first come, first served, and can ask their place."""

    def __init__(self, limit: int):
        self.limit = int(limit)
        self._running = 0
        self._waiting: deque[object] = deque()
        self._lock = threading.Condition()

    def position(self, ticket) -> int:
        with self._lock:
            return next((i + 1 for i, t in enumerate(self._waiting) if t is ticket), 0)

    def acquire(self, on_wait: Callable[[int], None] | None, max_wait: float) -> None:
        ticket = object()
        deadline = time.monotonic() + max_wait
        with self._lock:
            self._waiting.append(ticket)
            try:
                while self._running >= self.limit or self._waiting[0] is not ticket:
                    if time.monotonic() > deadline:
                        raise CheckerBusy(
                            f"The server is busy checking other model files ({self.limit} at a time) and none became "
                            f"free within {max_wait:,.0f} seconds, so this file was not checked. It is not the "
                            "file's fault: try again in a minute."
                        )
                    self._lock.wait(0.25)
                    if on_wait is not None:
                        place = next((i + 1 for i, t in enumerate(self._waiting) if t is ticket), 0)
                        self._lock.release()
                        try:
                            on_wait(place)  # may raise (the visitor left): the finally below gives the place up
                        finally:
                            self._lock.acquire()
                self._running += 1
            finally:
                self._waiting.remove(ticket)
                self._lock.notify_all()

    def release(self) -> None:
        with self._lock:
            self._running -= 1
            self._lock.notify_all()

    def busy(self) -> tuple[int, int]:
        """(running, waiting) checks."""
        with self._lock:
            return self._running, len(self._waiting)


_CHECKERS = _Checkers(MODEL_CHECKERS)


def checkers() -> _Checkers:
    """The server's model checkers (one set per process)."""
    return _CHECKERS


def load_model_isolated(
    raw: bytes,
    probe: np.ndarray | None = None,
    signature=None,
    *,
    cpu_seconds: int = MAX_CHECKER_CPU_SECONDS,
    memory_mb: int = MAX_CHECKER_MEMORY_MB,
    timeout_s: float | None = None,
    on_wait: Callable[[int], None] | None = None,
    max_wait_s: float = MAX_CHECKER_WAIT_SECONDS,
):
    """Load an untrusted model document, proving first in a child process that it loads and predicts.

    Parameters
    ----------
    raw : bytes
        The uploaded file.
    probe : ndarray of shape (n_rows, n_columns), optional
        Rows to predict on in the child (:data:`PROBE_ROWS` of them, spread over the
        array), normally the current dataset's.
    signature : str or Signature, optional
        The signature of ``probe``'s rows. The child predicts only for a model of this
        signature and of the rows' width; otherwise it only loads the model, and
        :func:`check_against_dataset` then says what does not match.
    cpu_seconds : int, default :data:`curvedtrees.limits.MAX_CHECKER_CPU_SECONDS`
        CPU time the child may use (``RLIMIT_CPU``, start-up included): a busy machine
        makes a check take longer, never fail.
    memory_mb : int, default :data:`curvedtrees.limits.MAX_CHECKER_MEMORY_MB`
        The child's address-space limit (``RLIMIT_AS``), in MiB. Python, numpy and the
        tree libraries reserve a few hundred MiB of address space before any work.
    timeout_s : float, optional
        Wall time the child may take before it is killed, a backstop only (default: ten
        times ``cpu_seconds``); running out of it is reported as a busy server.
    on_wait : callable, optional
        ``on_wait(place)`` while the check waits for a free checker (``place`` 1 is next),
        about four times a second; it may raise to give up (a visitor who left).
    max_wait_s : float, default :data:`curvedtrees.limits.MAX_CHECKER_WAIT_SECONDS`
        How long to wait for a free checker before :class:`CheckerBusy`.

    Returns
    -------
    estimator
        The model, loaded again in this process by :func:`curvedtrees.io.loads`.

    Raises
    ------
    ModelFileError
        The file is too large, not readable, rejected by the checks (the reason), or
        the child crashed, ran out of memory or out of CPU time.
    CheckerBusy
        The server was too busy to check it (no free checker in time, or the wall-time
        backstop): the file may be fine.
    """
    from curvedtrees import io as model_io
    from curvedtrees.manifolds import Signature

    if len(raw) > MAX_MODEL_BYTES:
        raise ModelFileError(f"The model file is too large ({len(raw):,} bytes; the limit is {MAX_MODEL_BYTES:,}).")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFileError("The model file is not UTF-8 text: it must be a JSON model saved by this app.") from None
    rows = np.zeros((0, 0)) if probe is None else np.asarray(probe, dtype=np.float64)
    if len(rows):
        rows = rows[np.linspace(0, len(rows) - 1, min(PROBE_ROWS, len(rows))).astype(np.intp)]
        rows = rows[np.all(np.isfinite(rows), axis=1)]
    request = json.dumps(
        {
            "model": text,
            "rows": rows.tolist(),
            "signature": None if signature is None else str(Signature.parse(signature)),
        }
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}  # a few rows need no thread pool
    timeout_s = 10.0 * cpu_seconds if timeout_s is None else float(timeout_s)
    _CHECKERS.acquire(on_wait, max_wait_s)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(int(memory_mb)), _MARK.strip(), str(max(1, int(cpu_seconds)))],
            input=request,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CheckerBusy(
            f"The server was too busy to finish checking the model file within {timeout_s:g} seconds (the check had "
            "not used up its CPU time), so it was stopped. It is not the file's fault: try again in a minute."
        ) from None
    finally:
        _CHECKERS.release()
    verdict = _verdict(done.stdout)
    if verdict is None:
        raise ModelFileError(_death(done.returncode, memory_mb, cpu_seconds))
    if not verdict.get("ok"):
        kind, message = verdict.get("kind"), str(verdict.get("message", "")).strip()
        if kind == "MemoryError":
            raise ModelFileError(f"Loading the model file needs more than the {memory_mb:,} MiB allowed.")
        if kind == "ValueError":
            raise ModelFileError(f"The model file was rejected: {message}")
        raise ModelFileError(f"The model file could not be loaded ({kind}: {message}).")
    try:
        return model_io.loads(text)
    except ValueError as exc:  # cannot differ from the child's verdict, but say so plainly if it does
        raise ModelFileError(f"The model file was rejected: {exc}") from None


def _verdict(stdout: str) -> dict | None:
    prefix = _MARK.strip() + " "
    for line in reversed(stdout.splitlines()):
        if line.startswith(prefix):
            try:
                verdict = json.loads(line[len(prefix) :])
            except ValueError:
                return None
            return verdict if isinstance(verdict, dict) else None
    return None


def _death(returncode: int, memory_mb: int, cpu_seconds: int = MAX_CHECKER_CPU_SECONDS) -> str:
    if returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return (
            f"Checking the model file used more than its {int(cpu_seconds)} CPU-seconds (the time the check itself "
            "computed, not the time it waited), so it was stopped. The file is far larger than the models this app "
            "trains, or damaged."
        )
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return (
            f"Loading the model file crashed the separate process that checks it ({name}). The file is damaged "
            "or was altered; the app itself is unaffected."
        )
    return (
        f"The separate process that checks model files stopped without an answer (exit code {returncode}); "
        f"the file may need more than the {memory_mb:,} MiB allowed, or is damaged."
    )


# ---------------------------------------------------------------- the dataset
def _label_set(labels, limit: int = 10) -> str:
    shown = [str(v) for v in list(labels)[:limit]]
    more = f", ... ({len(labels)} labels)" if len(labels) > limit else ""
    return "{" + ", ".join(shown) + more + "}"


def check_against_dataset(estimator, data) -> None:
    """Check that a loaded model fits the current dataset: signature, row width, task and labels.

    Parameters
    ----------
    estimator : fitted estimator
    data : ui.data.DataRecord
        The current dataset (``X`` of shape (n_samples, n_columns), ``y``, ``signature``, ``task``).

    Raises
    ------
    ModelFileError
        With a plain sentence, e.g. "This model was trained on H2 x E2; the current
        dataset is on S2." or "This model predicts the labels {a, b}; the current
        dataset's labels are {0, 1}."
    """
    from curvedtrees.manifolds import Signature

    signature = getattr(estimator, "signature_", None) or getattr(estimator, "signature", None)
    if signature is None:
        raise ModelFileError("This model file does not say which signature its model was trained on.")
    if not hasattr(estimator, "n_features_in_"):
        raise ModelFileError("This model file holds an untrained model: train it first, then save it.")
    try:
        signature = Signature.parse(signature)
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"This model's signature is not readable: {exc}") from None
    if signature != data.signature:
        raise ModelFileError(
            f"This model was trained on {signature}; the current dataset is on {data.signature}. "
            f"Load a dataset with signature {signature} first."
        )
    width = int(estimator.n_features_in_)
    if width != data.X.shape[1]:
        raise ModelFileError(
            f"This model reads rows of {width} numbers; the current dataset's rows have "
            f"{data.X.shape[1]} (the same signature, written in other coordinates)."
        )
    is_classifier = hasattr(estimator, "classes_")
    if is_classifier != (data.task == "classification"):
        kind = "classifier" if is_classifier else "regressor"
        raise ModelFileError(f"This model is a {kind}; the current dataset is a {data.task} task.")
    if not is_classifier:
        return
    model_labels = np.asarray(estimator.classes_)
    data_labels = np.unique(np.asarray(data.y))
    same_kind = (model_labels.dtype.kind in "iufb") == (data_labels.dtype.kind in "iufb")
    if not same_kind or not np.all(np.isin(data_labels, model_labels)):
        raise ModelFileError(
            f"This model predicts the labels {_label_set(model_labels)}; the current dataset's "
            f"labels are {_label_set(data_labels)}."
        )
