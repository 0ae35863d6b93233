"""Run every model on every dataset for many seeded trials, locally or on a Dask cluster.

One job is one (dataset, trial): the worker draws the trial's data, splits it,
and fits and scores every model on the same split, so all models see identical
data (paired samples for the Wilcoxon tests). Every job's integer seed is fixed
before dispatch from ``random_state`` and the trial number alone, so the
results do not depend on ``n_jobs``, on the backend or on the order in which
jobs finish; and the first ``k`` trials of a long run are exactly a ``k``-trial
run.

A run can write each finished job to an append-only trial log (JSON lines,
``checkpoint=``) and later finish from it (``resume=True``): finished jobs are
read back instead of run again, so an interrupted run ends with exactly the
numbers of an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pandas as pd

from ..limits import MAX_BENCHMARK_TABLE_BYTES, MAX_BENCHMARK_TRIALS
from .specs import METRICS, DatasetSpec, ModelSpec, metric_for_task

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "RESULT_COLUMNS",
    "TrialLog",
    "job_seed",
    "run_benchmark",
    "run_fingerprint",
    "score",
    "trial_seeds",
]

#: Columns of the tidy results frame, in order.
RESULT_COLUMNS = [
    "section",
    "dataset",
    "task",
    "signature",
    "model",
    "group",
    "family",
    "trial",
    "seed",
    "metric",
    "value",
    "fit_seconds",
    "predict_seconds",
    "n_train",
    "n_test",
    "error",
]

# Seeds are drawn as 31-bit integers so every library accepts them (scikit-learn's
# RandomState wants < 2**32, some C code wants a signed int).
_SEED_BOUND = 2**31 - 1


def trial_seeds(random_state: int, n_trials: int) -> list[int]:
    """The integer seed of each trial.

    Trial ``t``'s seed depends only on ``(random_state, t)``, so adding trials
    never changes earlier ones, and every dataset sees the same seed in the same
    trial (common random numbers across datasets).

    Parameters
    ----------
    random_state : int
        Non-negative master seed.
    n_trials : int

    Returns
    -------
    list of int, length n_trials
    """
    random_state = _check_seed(random_state)
    return [int(np.random.SeedSequence([random_state, t]).generate_state(1)[0] % _SEED_BOUND) for t in range(n_trials)]


def job_seed(seed: int) -> tuple[int, int, int]:
    """Split a trial seed into independent (data, split, model) seeds."""
    data, split, model = np.random.SeedSequence(int(seed)).generate_state(3)
    return int(data % _SEED_BOUND), int(split % _SEED_BOUND), int(model % _SEED_BOUND)


def _check_seed(random_state) -> int:
    if random_state is None:
        raise ValueError("random_state must be an integer: a benchmark has to be reproducible")
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (int, np.integer)):
        raise ValueError(f"random_state must be a non-negative integer, got {random_state!r}")
    if random_state < 0:
        raise ValueError(f"random_state must be a non-negative integer, got {random_state}")
    return int(random_state)


def score(task: str, y_true, y_pred) -> tuple[str, float]:
    """The paper's metric: F1 micro for classification and link prediction, RMSE for regression.

    Returns
    -------
    (metric name, value)
    """
    metric = metric_for_task(task)
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"predictions have shape {y_pred.shape}, expected {y_true.shape}")
    if metric == "rmse":
        diff = y_true.astype(np.float64) - y_pred.astype(np.float64)
        return metric, float(np.sqrt(np.mean(diff * diff)))
    # F1 micro-averaged over all classes equals accuracy for single-label problems
    # (every error is one false positive and one false negative); computed directly so
    # that label types (ints, strings) need no encoding.
    return metric, float(np.mean(y_true == y_pred))


def _split(data, test_size: float, seed: int):
    if data.has_split:
        return data.X, data.X_test, data.y, data.y_test
    from sklearn.model_selection import train_test_split

    # No stratification: the paper's protocol (and its reference code) splits at random.
    return train_test_split(data.X, data.y, test_size=test_size, random_state=seed)


def _run_job(dataset: DatasetSpec, models: Sequence[ModelSpec], trial: int, seed: int, test_size: float, on_error):
    """Fit and score every model on one trial of one dataset; returns a list of row dicts."""
    data_seed, split_seed, model_seed = job_seed(seed)
    data = dataset.load(data_seed)
    X_train, X_test, y_train, y_test = _split(data, test_size, split_seed)
    metric = metric_for_task(dataset.task)
    rows = []
    for model in models:
        if not model.applies_to(dataset.task, dataset.signature):
            continue
        row = {
            "section": dataset.section,
            "dataset": dataset.name,
            "task": dataset.task,
            "signature": dataset.signature,
            "model": model.name,
            "group": model.group,
            "family": model.family or "",
            "trial": trial,
            "seed": seed,
            "metric": metric,
            "value": np.nan,
            "fit_seconds": np.nan,
            "predict_seconds": np.nan,
            "n_train": len(X_train),
            "n_test": len(X_test),
            "error": "",
        }
        try:
            estimator = model.build(dataset.task, data.signature, model_seed)
            start = time.perf_counter()
            estimator.fit(X_train, y_train)
            fitted = time.perf_counter()
            y_pred = estimator.predict(X_test)
            row["predict_seconds"] = time.perf_counter() - fitted
            row["fit_seconds"] = fitted - start
            row["metric"], row["value"] = score(dataset.task, y_test, y_pred)
        except Exception as exc:
            if on_error == "raise":
                raise RuntimeError(
                    f"model {model.name!r} failed on dataset {dataset.label}, trial {trial} (seed {seed}): {exc}"
                ) from exc
            row["error"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        rows.append(row)
    return rows


def _run_keyed(key, dataset, models, trial, seed, test_size, on_error):
    """:func:`_run_job` tagged with its job key, for unordered parallel collection."""
    return key, _run_job(dataset, models, trial, seed, test_size, on_error)


def _as_list(items, kind):
    if isinstance(items, (DatasetSpec, ModelSpec)):
        items = [items]
    items = list(items)
    if not items:
        raise ValueError(f"no {kind} to benchmark")
    cls = DatasetSpec if kind == "datasets" else ModelSpec
    for item in items:
        if not isinstance(item, cls):
            raise ValueError(f"{kind} must be {cls.__name__} objects, got {type(item).__name__}")
    return items


def _check_unique(datasets, models):
    seen = {}
    for spec in datasets:
        if spec.key in seen:
            raise ValueError(f"dataset {spec.label} is listed twice")
        seen[spec.key] = spec
    names = [m.name for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"model names must be unique, repeated: {', '.join(duplicates)}")


def check_models(datasets: Sequence[DatasetSpec], models: Sequence[ModelSpec]) -> dict[str, str]:
    """Build each model once per task it will run on; return ``{model name: reason}`` for failures.

    Factories import their packages lazily, so this is where a missing package
    (for example a model whose module has not landed) is found, before any work
    is dispatched.
    """
    problems = {}
    for model in models:
        for dataset in datasets:
            if not model.applies_to(dataset.task, dataset.signature):
                continue
            try:
                model.build(dataset.task, dataset.signature, 0)
            except Exception as exc:
                problems[model.name] = f"{type(exc).__name__}: {exc}"
                break
    return problems


#: Seconds to wait for a Dask scheduler before giving up. distributed's own default
#: (30 s) makes a mistyped address look like a hang; a scheduler that is up answers a
#: connection within milliseconds on a LAN, and 5 s leaves room for a slow VPN.
DEFAULT_CONNECT_TIMEOUT = 5.0

_LOG_FORMAT = "curvedtrees-benchmark-trials"
_LOG_VERSION = 1
# Columns that may hold NaN (a failed fit); JSON has no NaN, so they are written as null.
_FLOAT_COLUMNS = ("value", "fit_seconds", "predict_seconds")
_TEXT_COLUMNS = ("section", "dataset", "task", "signature", "model", "group", "family", "metric", "error")


class TrialLogError(ValueError):
    """A trial log that cannot be used: missing, corrupt, or from a run with other parameters."""


def _describe_value(value):
    """A JSON-able, run-independent stand-in for a keyword of a loader or factory."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # NaN would never compare equal to itself
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return _describe_value(value.item())
    if isinstance(value, (list, tuple)):
        return [_describe_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _describe_value(v) for k, v in sorted(value.items(), key=lambda item: str(item[0]))}
    if callable(value):
        return _describe_callable(value)
    # Other objects (a Dataset record, ...) have no text form that is stable across
    # processes (their repr holds a memory address), so their type stands for them.
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def _describe_callable(func):
    """``module.name`` of a loader or factory, with the arguments bound by :func:`functools.partial`."""
    if isinstance(func, functools.partial):
        return {
            "function": _describe_callable(func.func),
            "args": [_describe_value(a) for a in func.args],
            "keywords": _describe_value(dict(func.keywords)),
        }
    name = getattr(func, "__qualname__", None) or type(func).__qualname__
    return f"{getattr(func, '__module__', None) or type(func).__module__}.{name}"


def run_fingerprint(
    datasets: Sequence[DatasetSpec],
    models: Sequence[ModelSpec],
    n_trials: int,
    test_size: float,
    random_state: int,
    extra: dict | None = None,
) -> dict:
    """The parameters that decide a run's numbers, as recorded in its trial log.

    Two runs with equal fingerprints produce identical results (timings aside),
    so a trial log may be finished by any run with the same fingerprint, whatever
    its ``n_jobs``, backend or failure policy.

    Parameters
    ----------
    datasets : sequence of DatasetSpec
    models : sequence of ModelSpec
    n_trials : int
    test_size : float
    random_state : int
    extra : dict, optional
        More parameters from the caller (the CLI records its arguments here).

    Returns
    -------
    dict
        JSON-able: trials, seed, test size, each dataset's label and loader
        (function and bound keywords), each model's name and factory, ``extra``.
    """
    fingerprint = {
        "n_trials": int(n_trials),
        "random_state": int(random_state),
        "test_size": float(test_size),
        "datasets": [
            {"label": d.label, "section": d.section, "loader": _describe_callable(d.loader)} for d in datasets
        ],
        "models": [
            {"name": m.name, "group": m.group, "family": m.family, "factory": _describe_callable(m.factory)}
            for m in models
        ],
        "extra": _describe_value(dict(extra or {})),
    }
    # Through JSON and back, so that a fingerprint compares equal to the one read from a log.
    return json.loads(json.dumps(fingerprint))


def _flatten(value, prefix=""):
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}`` (lists too, by position), for naming what differs."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = ((str(i), v) for i, v in enumerate(value))
    else:
        return {prefix: value}
    out = {}
    for key, item in items:
        out.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    return out


def _listing(names, limit=3) -> str:
    names = [str(n) for n in names]
    shown = "; ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _differences(old: dict, new: dict) -> list[str]:
    """Readable differences between two fingerprints (the log's, this run's)."""
    out = []
    names = {"n_trials": "trials", "random_state": "seed", "test_size": "test size"}
    for key, label in names.items():
        if old.get(key) != new.get(key):
            out.append(f"{label} {old.get(key)} in the log, {new.get(key)} now")
    for key in ("datasets", "models"):
        before, now = old.get(key) or [], new.get(key) or []
        if before == now:
            continue
        field = "label" if key == "datasets" else "name"
        before_names = [item.get(field) if isinstance(item, dict) else item for item in before]
        now_names = [item.get(field) for item in now]
        if before_names != now_names:
            out.append(f"{key} [{_listing(before_names)}] in the log, [{_listing(now_names)}] now")
            continue
        # Same names, other settings: name the first setting that differs (e.g. n_samples, max_depth).
        changed = [n for n, a, b in zip(now_names, before, now) if a != b]
        first = now_names.index(changed[0])
        flat_before, flat_now = _flatten(before[first]), _flatten(now[first])
        path = next(p for p in [*flat_now, *flat_before] if flat_before.get(p) != flat_now.get(p))
        setting = path.rsplit(".", 1)[-1]
        out.append(
            f"{setting} {flat_before.get(path)!r} in the log, {flat_now.get(path)!r} now, for {key} {_listing(changed)}"
        )
    old_extra, new_extra = old.get("extra") or {}, new.get("extra") or {}
    for key in sorted(set(old_extra) | set(new_extra)):
        if old_extra.get(key) != new_extra.get(key):
            out.append(f"{key} {old_extra.get(key)!r} in the log, {new_extra.get(key)!r} now")
    return out or ["the recorded parameters differ"]


def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    raise TypeError(f"cannot record a {type(value).__name__} in a trial log")


def _encode_row(row: dict) -> list:
    out = []
    for column in RESULT_COLUMNS:
        value = row[column]
        if column in _FLOAT_COLUMNS and value is not None and math.isnan(value):
            value = None
        out.append(value)
    return out


class TrialLog:
    """The append-only record of a run's finished (dataset, trial) jobs, one JSON line each.

    Line 1 is a header: the format, :data:`RESULT_COLUMNS` and the run's
    :func:`run_fingerprint`. Every further line is one finished job,
    ``{"dataset": d, "trial": t, "session": s, "elapsed": seconds, "rows": [[...], ...]}``,
    with its rows in :data:`RESULT_COLUMNS` order (NaN as null). Each line is
    flushed as soon as its job finishes, so a run stopped at any point keeps
    every finished job. A torn last line (the process killed while writing it)
    is dropped on resume and its job runs again; anything else that does not
    parse is an error naming the line.

    ``session`` counts the runs that wrote to the log (0 for the first) and
    ``elapsed`` is the seconds from that session's start to the job's end, so
    the wall time of the interrupted sessions can be added up.

    Parameters
    ----------
    path : str or path-like
    """

    def __init__(self, path):
        self.path = Path(path)
        self._file = None
        self._torn_at = None
        self.session = 0
        self.previous_wall_seconds = 0.0

    # -- reading -------------------------------------------------------------
    def check_absent(self) -> None:
        """Raise :class:`TrialLogError` when a log is already there (a run to resume, not to overwrite)."""
        if self.path.exists():
            raise TrialLogError(
                f"{self.path} holds the finished trials of an interrupted run: resume it, or delete the file "
                "to start over"
            )

    def load(self, fingerprint: dict, datasets, models, seeds) -> dict:
        """Read the finished jobs of a log written with the same ``fingerprint``.

        Parameters
        ----------
        fingerprint : dict
            This run's :func:`run_fingerprint`; a log with another one is refused.
        datasets, models : sequences of DatasetSpec and ModelSpec
        seeds : list of int
            The trial seeds (:func:`trial_seeds`), checked against every row.

        Returns
        -------
        dict
            ``{(dataset index, trial): [row dict, ...]}`` of the finished jobs.

        Raises
        ------
        TrialLogError
            No log, a log that does not parse (naming the line), or one from a
            run with other parameters (naming them).
        """
        try:
            with open(self.path, "rb") as handle:
                data = handle.read(MAX_BENCHMARK_TABLE_BYTES + 1)  # bounded, whatever the path is
        except FileNotFoundError:
            raise TrialLogError(f"nothing to resume: {self.path} does not exist") from None
        except OSError as exc:
            raise TrialLogError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        if len(data) > MAX_BENCHMARK_TABLE_BYTES:
            raise TrialLogError(
                f"{self.path} has more than {MAX_BENCHMARK_TABLE_BYTES:,} bytes (curvedtrees.limits."
                "MAX_BENCHMARK_TABLE_BYTES): not a trial log of this program; delete it to start over"
            )
        if not data.endswith(b"\n"):
            # The process was stopped while writing this line; its job simply runs again.
            self._torn_at = data.rfind(b"\n") + 1
            data = data[: self._torn_at]
        lines = data.split(b"\n")[:-1]
        if not lines:
            raise TrialLogError(f"{self.path} is empty (no header line): delete it to start over")
        header = self._parse(lines[0], 1)
        if (
            not isinstance(header, dict)  # a line of JSON that is not an object (a string, a list)
            or header.get("format") != _LOG_FORMAT
            or header.get("version") != _LOG_VERSION
            or header.get("columns") != RESULT_COLUMNS
            or not isinstance(header.get("params"), dict)
        ):
            raise TrialLogError(f"{self.path} is not a trial log of this version of curvedtrees (line 1)")
        if header["params"] != fingerprint:
            detail = "; ".join(_differences(header["params"], fingerprint))
            raise TrialLogError(
                f"{self.path} was started with other parameters ({detail}): resume with the same arguments, "
                "or delete the file to start over"
            )
        names = {m.name for m in models}
        finished = {}
        walls: dict[int, float] = {}
        for number, line in enumerate(lines[1:], start=2):
            record = self._parse(line, number)
            key, rows, session, elapsed = self._check_record(record, number, datasets, names, seeds)
            if key in finished:
                raise TrialLogError(f"{self.path}, line {number}: dataset {key[0]}, trial {key[1]} is recorded twice")
            finished[key] = rows
            walls[session] = max(walls.get(session, 0.0), elapsed)
        self.session = max(walls, default=-1) + 1
        self.previous_wall_seconds = float(sum(walls.values()))
        return finished

    def _parse(self, line: bytes, number: int):
        try:
            return json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested beyond the parser's guard
            raise TrialLogError(f"{self.path}, line {number}: not a JSON record (the file is damaged)") from None

    def _check_record(self, record, number, datasets, names, seeds):
        where = f"{self.path}, line {number}"
        if not isinstance(record, dict) or set(record) != {"dataset", "trial", "session", "elapsed", "rows"}:
            raise TrialLogError(f"{where}: not a finished-job record")
        d, t, session, elapsed = record["dataset"], record["trial"], record["session"], record["elapsed"]
        if not (_is_int(d) and 0 <= d < len(datasets) and _is_int(t) and 0 <= t < len(seeds)):
            raise TrialLogError(f"{where}: dataset {d!r}, trial {t!r} is not a job of this run")
        if not (_is_int(session) and session >= 0 and _is_number(elapsed) and elapsed >= 0):
            raise TrialLogError(f"{where}: bad session or elapsed time")
        if not isinstance(record["rows"], list):
            raise TrialLogError(f"{where}: rows must be a list")
        dataset = datasets[d]
        expected = {"section": dataset.section, "dataset": dataset.name, "task": dataset.task,
                    "signature": dataset.signature, "trial": t, "seed": seeds[t]}  # fmt: skip
        rows, seen = [], set()
        for values in record["rows"]:
            if not isinstance(values, list) or len(values) != len(RESULT_COLUMNS):
                raise TrialLogError(f"{where}: a row does not have the {len(RESULT_COLUMNS)} result columns")
            row = dict(zip(RESULT_COLUMNS, values))
            wrong = [c for c, v in expected.items() if row[c] != v or isinstance(row[c], bool)]
            wrong += [c for c in _TEXT_COLUMNS if not isinstance(row[c], str)]
            wrong += [c for c in _FLOAT_COLUMNS if row[c] is not None and not _is_number(row[c])]
            wrong += [c for c in ("n_train", "n_test") if not (_is_int(row[c]) and row[c] >= 0)]
            if not wrong and (row["model"] not in names or row["model"] in seen):
                wrong = ["model"]
            if wrong:
                raise TrialLogError(f"{where}: unexpected {', '.join(wrong)} in a row of dataset {d}, trial {t}")
            seen.add(row["model"])
            for column in _FLOAT_COLUMNS:
                row[column] = math.nan if row[column] is None else float(row[column])
            rows.append(row)
        return (d, t), rows, session, float(elapsed)

    # -- writing -------------------------------------------------------------
    def open(self, fingerprint: dict, resume: bool) -> TrialLog:
        """Start a new log (header line) or reopen a loaded one for appending; returns ``self``."""
        if resume:
            if self._torn_at is not None:
                with open(self.path, "r+b") as handle:
                    handle.truncate(self._torn_at)
            self._file = open(self.path, "a", encoding="utf-8")  # closed by close()
        else:
            # "x": never overwrite a log that appeared since check_absent().
            self._file = open(self.path, "x", encoding="utf-8")  # closed by close()
            header = {"format": _LOG_FORMAT, "version": _LOG_VERSION, "columns": RESULT_COLUMNS, "params": fingerprint}
            self._write(header)
        return self

    def append(self, dataset: int, trial: int, rows: list[dict], elapsed: float) -> None:
        """Record one finished job and flush it to the operating system."""
        record = {"dataset": int(dataset), "trial": int(trial), "session": self.session,
                  "elapsed": float(elapsed), "rows": [_encode_row(r) for r in rows]}  # fmt: skip
        self._write(record)

    def _write(self, record: dict) -> None:
        line = json.dumps(record, allow_nan=False, separators=(",", ":"), default=_json_default)
        self._file.write(line + "\n")
        # Flushed per job: a killed process loses at most the job it was running. No
        # fsync: that guards against power loss only, and a torn last line is tolerated.
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    @staticmethod
    def count(path) -> int:
        """Number of finished jobs in the log at ``path`` (0 when it cannot be read)."""
        try:
            with open(path, "rb") as handle:
                return max(sum(1 for line in handle if line.endswith(b"\n")) - 1, 0)
        except OSError:
            return 0


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@contextlib.contextmanager
def _backend_context(backend, client, scheduler, connect_timeout=DEFAULT_CONNECT_TIMEOUT):
    """Yield the joblib backend name to use, connecting to Dask when asked."""
    if client is None and scheduler is None and backend != "dask":
        yield backend
        return
    from joblib import parallel_config

    own_client = None
    if client is None:
        try:
            from distributed import Client, get_client
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "running on a Dask cluster needs the 'distributed' package: pip install \"dask[distributed]\""
            ) from exc
        if scheduler is not None:
            client = own_client = _connect(Client, scheduler, connect_timeout)
        else:
            try:
                client = get_client()
            except ValueError as exc:
                raise ValueError(
                    "backend='dask' needs a running dask.distributed Client: pass client= or scheduler="
                ) from exc
    try:
        with parallel_config(backend="dask", client=client):
            yield "dask"
    finally:
        if own_client is not None:
            own_client.close()


def _connect(client_class, scheduler, connect_timeout):
    """A client of the scheduler at ``scheduler``, or a ConnectionError saying why not, within the timeout."""
    box = {}

    def open_client():
        try:
            box["client"] = client_class(scheduler, timeout=connect_timeout)
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc

    # distributed waits for the server's handshake without any timeout, so a server that
    # accepts and then stays silent would hang the run: the client is opened in a daemon
    # thread and given up on after the timeout (plus a second for the handshake itself).
    # A client that still connects after that is left to the daemon thread.
    previous = _default_client()
    opener = threading.Thread(target=open_client, name="curvedtrees-dask-connect", daemon=True)
    opener.start()
    opener.join(connect_timeout + 1.0)
    timed_out = opener.is_alive()  # read first: dropping the stale client ends the thread
    if timed_out or "error" in box:
        _drop_new_default(previous)
    if timed_out:
        raise ConnectionError(
            f"cannot reach the Dask scheduler at {scheduler}: no handshake within {connect_timeout + 1.0:g} s "
            "(is it a Dask scheduler?)"
        )
    try:
        if "error" in box:
            raise box["error"]
    except ValueError as exc:  # distributed's parse errors: unknown scheme, bad port
        raise ConnectionError(f"{scheduler!r} is not a Dask scheduler address ({exc})") from None
    except OSError as exc:  # refused, unreachable, or no answer in time (TimeoutError is an OSError)
        raise ConnectionError(
            f"cannot reach the Dask scheduler at {scheduler} within {connect_timeout:g} s "
            f"({exc.strerror or exc}); is it running and reachable from here?"
        ) from None
    except Exception as exc:
        # Something accepted the connection but does not speak Dask's protocol (a web
        # server, a proxy): distributed then reads its bytes as a frame length and may
        # fail anywhere, for example allocating exabytes.
        raise ConnectionError(
            f"something answers at {scheduler}, but not as a Dask scheduler ({type(exc).__name__}: {exc})"
        ) from None
    return box["client"]


def _default_client():
    """The process's default Dask client, or None."""
    from distributed import default_client

    try:
        return default_client()
    except ValueError:
        return None


def _drop_new_default(previous) -> None:
    """Close the client a failed connection left behind as the process's default.

    A client registers itself as the default before it connects; when connecting
    fails, that broken default would answer later ``get_client()`` calls (with the
    failed address's error).
    """
    stale = _default_client()
    if stale is not None and stale is not previous:
        with contextlib.suppress(Exception):  # it never connected: nothing to tell the user
            stale.close(timeout=1)


# distributed's default scheduler port, used when an address names none.
_DEFAULT_SCHEDULER_PORT = 8786


def _probe_scheduler(scheduler: str, connect_timeout: float) -> None:
    """Fail at once when nothing can listen at a TCP scheduler address.

    distributed retries a refused connection until its timeout runs out; a
    refusal, an unknown host or no route is final at once, so a plain TCP
    connection is tried first (before the models are built and distributed is
    imported). On ``tcp://`` a Dask server speaks first (its handshake), so a
    server silent for the whole timeout is refused here too. Addresses of other
    transports (inproc, ucx, ws) are left to the client.
    """
    address = scheduler if "://" in scheduler else f"tcp://{scheduler}"
    parts = urlsplit(address)
    if parts.scheme not in ("tcp", "tls"):
        return
    try:
        host, port = parts.hostname, parts.port or _DEFAULT_SCHEDULER_PORT
    except ValueError:
        return  # a malformed port: distributed's own parser names the problem
    if not host:
        return
    deadline = time.monotonic() + connect_timeout
    try:
        connection = socket.create_connection((host, port), timeout=connect_timeout)
        with connection:
            if parts.scheme != "tcp":
                return  # TLS speaks only after the client's hello
            # At least 50 ms for the first bytes even when connecting used up the timeout.
            connection.settimeout(max(deadline - time.monotonic(), 0.05))
            first = connection.recv(1)
    except TimeoutError:
        raise ConnectionError(
            f"cannot reach the Dask scheduler at {scheduler}: no answer within {connect_timeout:g} s"
        ) from None
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ConnectionError(f"cannot reach the Dask scheduler at {scheduler} ({reason})") from None
    if not first:
        raise ConnectionError(f"the server at {scheduler} closed the connection without a word: not a Dask scheduler")


def run_benchmark(
    datasets: Iterable[DatasetSpec] | DatasetSpec,
    models: Iterable[ModelSpec] | ModelSpec,
    n_trials: int = 10,
    test_size: float = 0.2,
    random_state: int = 0,
    n_jobs: int | None = None,
    backend: str | None = None,
    client=None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_error: str = "raise",
    skip_unavailable: bool = False,
    checkpoint=None,
    resume: bool = False,
    checkpoint_params: dict | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
) -> pd.DataFrame:
    """Benchmark ``models`` on ``datasets`` over ``n_trials`` seeded trials.

    Parameters
    ----------
    datasets : sequence of DatasetSpec
    models : sequence of ModelSpec
        Each model runs on every dataset whose task and component kinds it supports
        (:meth:`ModelSpec.applies_to`).
    n_trials : int
        Trials per dataset: each draws a new sample (synthetic data) and a new
        train/test split.
    test_size : float
        Fraction of the rows held out for testing (ignored by datasets that fix
        their own split).
    random_state : int
        Master seed. The trial seeds depend only on it (see :func:`trial_seeds`).
    n_jobs : int or None
        Parallel jobs (joblib semantics: None or 1 runs in this process, -1 uses
        every core). With Dask, None uses every worker.
    backend : str or None
        A joblib backend name (``"loky"``, ``"threading"``, ``"dask"``); None is
        joblib's default (loky processes).
    client : dask.distributed.Client, optional
        Run on this Dask cluster through joblib's dask backend.
    scheduler : str, optional
        Address of a Dask scheduler (``"tcp://host:8786"``); a client is opened
        for the run and closed afterwards.
    progress : callable, optional
        ``progress(done, total)`` after every finished (dataset, trial) job, in
        the calling process.
    on_error : {"raise", "record"}
        What to do when a model fails: stop the run, or record the exception text
        in the ``error`` column (value NaN) and go on.
    skip_unavailable : bool
        Drop models whose factory fails before the run (for example a package
        that is not installed) instead of raising.
    checkpoint : str or path-like, optional
        A trial log (:class:`TrialLog`, JSON lines): every finished job is
        appended and flushed as it arrives, so an interrupted run loses at most
        the jobs in flight. Without ``resume`` the file must not exist yet.
    resume : bool
        Finish the run recorded in ``checkpoint``: its finished jobs are read
        back instead of run again, and the result equals an uninterrupted run's
        (timings aside). The log's parameters (:func:`run_fingerprint`) must equal
        this call's; ``n_jobs``, the backend and ``on_error`` may differ.
    checkpoint_params : dict, optional
        More parameters to record in (and compare with) the log's header.
    connect_timeout : float
        Seconds to wait for the scheduler at ``scheduler``.

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, trial, model) with the columns
        :data:`RESULT_COLUMNS`, sorted by dataset order, trial and model order.
        ``value`` holds F1 micro (fraction in [0, 1]) or RMSE; ``fit_seconds``
        and ``predict_seconds`` are wall-clock times inside the worker. The
        frame's ``attrs`` record the run's parameters; after a resume,
        ``resumed_jobs`` counts the jobs read from the log,
        ``resumed_wall_seconds`` is the earlier sessions' time (up to their last
        finished job) and ``wall_seconds`` includes it.

    Raises
    ------
    ValueError
        Empty or duplicated datasets/models, a bad seed or ``test_size``.
    TrialLogError
        (a ValueError) A checkpoint that exists without ``resume``, is missing
        with it, does not parse, or was written with other parameters.
    ConnectionError
        The scheduler at ``scheduler`` cannot be reached within ``connect_timeout``.
    ImportError
        A model's package is missing (unless ``skip_unavailable``).
    RuntimeError
        A model failed during the run (with ``on_error="raise"``), naming the
        model, the dataset and the trial.
    """
    datasets = _as_list(datasets, "datasets")
    models = _as_list(models, "models")
    _check_unique(datasets, models)
    if int(n_trials) != n_trials or not 1 <= n_trials <= MAX_BENCHMARK_TRIALS:
        raise ValueError(
            f"n_trials must be an integer from 1 to {MAX_BENCHMARK_TRIALS:,} (curvedtrees.limits."
            f"MAX_BENCHMARK_TRIALS), got {n_trials!r}"
        )
    if not 0.0 < float(test_size) < 1.0:
        raise ValueError(f"test_size must be a fraction strictly between 0 and 1, got {test_size!r}")
    if on_error not in ("raise", "record"):
        raise ValueError(f"on_error must be 'raise' or 'record', got {on_error!r}")
    seeds = trial_seeds(random_state, int(n_trials))
    if not connect_timeout > 0:
        raise ValueError(f"connect_timeout must be a positive number of seconds, got {connect_timeout!r}")
    if scheduler is not None and client is None:
        _probe_scheduler(str(scheduler), float(connect_timeout))

    problems = check_models(datasets, models)
    if problems:
        if not skip_unavailable:
            detail = "; ".join(f"{name}: {reason}" for name, reason in problems.items())
            raise ImportError(f"some models cannot be built: {detail}")
        models = [m for m in models if m.name not in problems]
        if not models:
            raise ValueError("none of the models can be built: " + "; ".join(problems.values()))

    if resume and checkpoint is None:
        raise ValueError("resume=True needs the checkpoint= trial log to resume from")
    jobs = [(d, t) for d in range(len(datasets)) for t in range(int(n_trials))]
    total = len(jobs)
    chunks: dict[tuple[int, int], list] = {}
    log = None
    if checkpoint is not None:
        # Read and check the log before connecting anywhere, so a wrong resume fails at once.
        fingerprint = run_fingerprint(datasets, models, n_trials, test_size, random_state, checkpoint_params)
        log = TrialLog(checkpoint)
        if resume:
            chunks.update(log.load(fingerprint, datasets, models, seeds))
        else:
            log.check_absent()
    resumed = len(chunks)
    pending = [key for key in jobs if key not in chunks]

    with contextlib.ExitStack() as stack:
        active_backend = stack.enter_context(_backend_context(backend, client, scheduler, connect_timeout))
        if log is not None:
            stack.enter_context(log.open(fingerprint, resume))
        started = time.perf_counter()
        if progress is not None:
            progress(resumed, total)

        def finish(done, key, rows):
            chunks[key] = rows
            if log is not None:
                log.append(key[0], key[1], rows, time.perf_counter() - started)
            if progress is not None:
                progress(done, total)

        serial = active_backend is None and (n_jobs is None or n_jobs == 1)
        if serial:
            for done, (d, t) in enumerate(pending, start=resumed + 1):
                finish(done, (d, t), _run_job(datasets[d], models, t, seeds[t], test_size, on_error))
        elif pending:
            from joblib import Parallel, delayed

            workers = n_jobs if n_jobs is not None else (-1 if active_backend == "dask" else None)
            if active_backend != "dask" and workers is not None:
                from joblib import effective_n_jobs

                # Never more local processes than jobs left to run (40 for 2 jobs started 44).
                workers = min(effective_n_jobs(workers), len(pending))
            parallel = Parallel(
                n_jobs=workers,
                backend=active_backend if active_backend not in (None, "dask") else None,
                return_as="generator_unordered",
            )

            results = parallel(
                delayed(_run_keyed)((d, t), datasets[d], models, t, seeds[t], test_size, on_error) for d, t in pending
            )
            for done, (key, rows) in enumerate(results, start=resumed + 1):
                finish(done, key, rows)

    # Jobs return their rows in model order; concatenating in job order gives the
    # documented (dataset, trial, model) order whatever order the jobs finished in.
    rows = [row for key in jobs for row in chunks[key]]
    frame = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    frame["trial"] = frame["trial"].astype(int)
    frame["seed"] = frame["seed"].astype(np.int64)
    frame.attrs.update(
        {
            "n_trials": int(n_trials),
            "test_size": float(test_size),
            "random_state": int(random_state),
            "models": [m.name for m in models],
            "datasets": [d.label for d in datasets],
            "skipped_models": problems,
            "wall_seconds": time.perf_counter() - started + (log.previous_wall_seconds if log else 0.0),
            "backend": "serial" if serial else (active_backend or "loky"),
            "resumed_jobs": resumed,
            "resumed_wall_seconds": log.previous_wall_seconds if log else 0.0,
        }
    )
    return frame


def higher_is_better(metric: str) -> bool:
    """Whether a larger value of ``metric`` is better."""
    try:
        return METRICS[metric] > 0
    except KeyError:
        raise ValueError(f"unknown metric {metric!r}: expected one of {', '.join(METRICS)}") from None
