"""Run every model on every dataset for many seeded trials, locally or on a Dask cluster.

One job is one (dataset, trial): the worker draws the trial's data, splits it,
and fits and scores every model on the same split, so all models see identical
data (paired samples for the Wilcoxon tests). Every job's integer seed is fixed
before dispatch from ``random_state`` and the trial number alone, so the
results do not depend on ``n_jobs``, on the backend or on the order in which
jobs finish; and the first ``k`` trials of a long run are exactly a ``k``-trial
run.
"""

from __future__ import annotations

import contextlib
import time
import traceback
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from .specs import METRICS, DatasetSpec, ModelSpec, metric_for_task

__all__ = ["RESULT_COLUMNS", "job_seed", "run_benchmark", "score", "trial_seeds"]

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
        if not model.supports(dataset.task):
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
            if not model.supports(dataset.task):
                continue
            try:
                model.build(dataset.task, dataset.signature, 0)
            except Exception as exc:
                problems[model.name] = f"{type(exc).__name__}: {exc}"
                break
    return problems


@contextlib.contextmanager
def _backend_context(backend, client, scheduler):
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
            client = own_client = Client(scheduler)
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
) -> pd.DataFrame:
    """Benchmark ``models`` on ``datasets`` over ``n_trials`` seeded trials.

    Parameters
    ----------
    datasets : sequence of DatasetSpec
    models : sequence of ModelSpec
        Each model runs on every dataset whose task it supports.
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

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, trial, model) with the columns
        :data:`RESULT_COLUMNS`, sorted by dataset order, trial and model order.
        ``value`` holds F1 micro (fraction in [0, 1]) or RMSE; ``fit_seconds``
        and ``predict_seconds`` are wall-clock times inside the worker. The
        frame's ``attrs`` record the run's parameters.

    Raises
    ------
    ValueError
        Empty or duplicated datasets/models, a bad seed or ``test_size``.
    ImportError
        A model's package is missing (unless ``skip_unavailable``).
    RuntimeError
        A model failed during the run (with ``on_error="raise"``), naming the
        model, the dataset and the trial.
    """
    datasets = _as_list(datasets, "datasets")
    models = _as_list(models, "models")
    _check_unique(datasets, models)
    if int(n_trials) != n_trials or n_trials < 1:
        raise ValueError(f"n_trials must be a positive integer, got {n_trials!r}")
    if not 0.0 < float(test_size) < 1.0:
        raise ValueError(f"test_size must be a fraction strictly between 0 and 1, got {test_size!r}")
    if on_error not in ("raise", "record"):
        raise ValueError(f"on_error must be 'raise' or 'record', got {on_error!r}")
    seeds = trial_seeds(random_state, int(n_trials))

    problems = check_models(datasets, models)
    if problems:
        if not skip_unavailable:
            detail = "; ".join(f"{name}: {reason}" for name, reason in problems.items())
            raise ImportError(f"some models cannot be built: {detail}")
        models = [m for m in models if m.name not in problems]
        if not models:
            raise ValueError("none of the models can be built: " + "; ".join(problems.values()))

    jobs = [(d, t) for d in range(len(datasets)) for t in range(int(n_trials))]
    total = len(jobs)
    started = time.perf_counter()
    chunks: dict[tuple[int, int], list] = {}
    if progress is not None:
        progress(0, total)

    with _backend_context(backend, client, scheduler) as active_backend:
        serial = active_backend is None and (n_jobs is None or n_jobs == 1)
        if serial:
            for done, (d, t) in enumerate(jobs, start=1):
                chunks[(d, t)] = _run_job(datasets[d], models, t, seeds[t], test_size, on_error)
                if progress is not None:
                    progress(done, total)
        else:
            from joblib import Parallel, delayed

            parallel = Parallel(
                n_jobs=n_jobs if n_jobs is not None else (-1 if active_backend == "dask" else None),
                backend=active_backend if active_backend not in (None, "dask") else None,
                return_as="generator_unordered",
            )

            results = parallel(
                delayed(_run_keyed)((d, t), datasets[d], models, t, seeds[t], test_size, on_error) for d, t in jobs
            )
            for done, (key, rows) in enumerate(results, start=1):
                chunks[key] = rows
                if progress is not None:
                    progress(done, total)

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
            "wall_seconds": time.perf_counter() - started,
            "backend": "serial" if serial else (active_backend or "loky"),
        }
    )
    return frame


def higher_is_better(metric: str) -> bool:
    """Whether a larger value of ``metric`` is better."""
    try:
        return METRICS[metric] > 0
    except KeyError:
        raise ValueError(f"unknown metric {metric!r}: expected one of {', '.join(METRICS)}") from None
