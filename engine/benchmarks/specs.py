"""The plug-in points of the benchmark runner: model specs, dataset specs and tasks.

A benchmark crosses a list of datasets with a list of models. Both are plain,
picklable records so that the same objects travel to local worker processes or
to a Dask cluster:

- a :class:`ModelSpec` is a name plus ``factory(task, signature, random_state)``
  returning an unfitted scikit-learn estimator;
- a :class:`DatasetSpec` is a name plus ``loader(random_state)`` returning the
  data of one trial, as ``(X, y, signature, task)`` or as a
  :class:`BenchmarkData` with a fixed train/test split.

Factories and loaders should be module-level functions (or ``functools.partial``
of them) that import heavy dependencies inside their body, so a registry can
list models whose packages are not installed yet, and so they pickle cheaply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..manifolds.signature import Signature

__all__ = [
    "GROUP_MARKS",
    "METRICS",
    "TASKS",
    "BenchmarkData",
    "DatasetSpec",
    "ModelSpec",
    "as_benchmark_data",
    "metric_for_task",
]

#: The tasks the runner knows, and the metric reported for each (paper section 4.1).
TASKS = {
    "classification": "f1_micro",
    "regression": "rmse",
    "link_prediction": "f1_micro",
}

#: +1 when a larger value is better, -1 when a smaller one is.
METRICS = {"f1_micro": +1, "rmse": -1}

#: The paper's significance marks (Tables 2, 3 and 5): a model carries the mark of
#: every model group it beats significantly.
GROUP_MARKS = {
    "product": "*",
    "ambient": "†",
    "tangent": "‡",
    "knn": "§",
    "perceptron": "¶",
}

#: ``"boosting"``: boosted ensembles and their baselines, which the paper did not run; they are
#: compared among themselves (:func:`curvedtrees.benchmarks.statistics.pairwise_tests`), so the
#: paper's models keep the comparison sets, Bonferroni factors and ranks of the paper.
_FAMILIES = (None, "tree", "forest", "boosting")

#: The component kinds of a signature.
_KINDS = ("H", "S", "E")


def metric_for_task(task: str) -> str:
    """The metric name reported for ``task`` (``"f1_micro"`` or ``"rmse"``)."""
    try:
        return TASKS[task]
    except KeyError:
        raise ValueError(f"unknown task {task!r}: expected one of {', '.join(TASKS)}") from None


@dataclass(frozen=True)
class ModelSpec:
    """A model to benchmark.

    Parameters
    ----------
    name : str
        Display name, unique within a benchmark (a column of the results table),
        e.g. ``"Product RF"``.
    factory : callable
        ``factory(task, signature, random_state) -> estimator``: an unfitted
        estimator for ``task`` (one of :data:`TASKS`) on data of ``signature``
        (a :class:`~curvedtrees.manifolds.signature.Signature`), seeded with the
        integer ``random_state``.
    group : str
        Which kind of model this is, for the significance marks:
        ``"product"``, ``"ambient"``, ``"tangent"``, ``"knn"``, ``"perceptron"``
        (see :data:`GROUP_MARKS`) or any other label (no mark).
    family : {"tree", "forest", "boosting", None}
        The paper compares trees with trees and forests with forests; models with
        ``family=None`` (k-NN, perceptron) take part in both comparisons.
        ``"boosting"`` models (not in the paper) are compared in a set of their own.
    tasks : tuple of str
        Tasks the model supports; datasets of other tasks skip it.
    description : str
        One line for tables and the app.
    kinds : tuple of str
        The component kinds (``"H"``, ``"S"``, ``"E"``) the model can take; a
        dataset whose signature has another kind skips it (no result row, an
        empty cell in the tables), as a dataset of another task does. The Klein
        wrappers take ``("H", "E")``: a sphere has no Klein model.
    """

    name: str
    factory: Callable[[str, Signature, int], Any]
    group: str = "other"
    family: str | None = None
    tasks: tuple[str, ...] = ("classification", "regression", "link_prediction")
    description: str = ""
    kinds: tuple[str, ...] = _KINDS

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a model needs a non-empty name, got {self.name!r}")
        unknown_kinds = [k for k in self.kinds if k not in _KINDS]
        if not self.kinds or unknown_kinds:
            raise ValueError(f"model {self.name!r}: kinds must be some of {', '.join(_KINDS)}, got {self.kinds!r}")
        if not callable(self.factory):
            raise ValueError(f"model {self.name!r}: factory must be callable, got {type(self.factory).__name__}")
        if self.family not in _FAMILIES:
            raise ValueError(
                f"model {self.name!r}: family must be 'tree', 'forest', 'boosting' or None, got {self.family!r}"
            )
        unknown = [t for t in self.tasks if t not in TASKS]
        if unknown:
            raise ValueError(f"model {self.name!r}: unknown tasks {unknown}; expected some of {', '.join(TASKS)}")

    def supports(self, task: str) -> bool:
        """Whether this model runs on datasets of ``task``."""
        return task in self.tasks

    def applies_to(self, task: str, signature) -> bool:
        """Whether this model runs on a dataset of ``task`` and ``signature`` (its task and component kinds)."""
        return self.supports(task) and all(c.kind in self.kinds for c in Signature.parse(signature))

    def build(self, task: str, signature, random_state: int):
        """Call the factory with a parsed signature."""
        return self.factory(task, Signature.parse(signature), int(random_state))


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset to benchmark: one row of the results table.

    Parameters
    ----------
    name : str
        Display name, e.g. ``"Gaussian"`` or ``"Landmasses"``.
    loader : callable
        ``loader(random_state) -> (X, y, signature, task)`` or a
        :class:`BenchmarkData`: the data of one trial. Synthetic loaders draw a new
        sample per seed; fixed datasets may subsample or ignore the seed (the
        runner's train/test split still changes with it).
    signature : str
        The signature the loader returns (checked on every trial), canonical
        form, e.g. ``"H2 x S2"``.
    task : str
        ``"classification"``, ``"regression"`` or ``"link_prediction"``.
    section : str
        Group heading in tables, e.g. ``"Synthetic (multi-K)"``.
    description : str
        One line for tables and the app.
    learned_curvature : bool
        The loader learns its curvatures (graph embeddings): only the kinds and
        dimensions of the returned signature are checked, and ``signature`` is
        written without curvatures.

    The pair (name, task, signature) identifies a dataset within a benchmark.
    """

    name: str
    loader: Callable[[int], Any]
    signature: str
    task: str
    section: str = ""
    description: str = ""
    learned_curvature: bool = False
    key: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a dataset needs a non-empty name, got {self.name!r}")
        if not callable(self.loader):
            raise ValueError(f"dataset {self.name!r}: loader must be callable, got {type(self.loader).__name__}")
        metric_for_task(self.task)
        object.__setattr__(self, "signature", str(Signature.parse(self.signature)))
        object.__setattr__(self, "key", (self.name, self.task, self.signature))

    @property
    def label(self) -> str:
        """``"Gaussian, classification, H2 x S2"``: a readable unique label."""
        return f"{self.name}, {self.task}, {self.signature}"

    def load(self, random_state: int) -> BenchmarkData:
        """Call the loader and check that it returned what this spec promises."""
        data = as_benchmark_data(self.loader(int(random_state)), where=f"dataset {self.label}")
        expected = Signature.parse(self.signature)
        if self.learned_curvature:
            same = [(c.kind, c.dim) for c in data.signature] == [(c.kind, c.dim) for c in expected]
        else:
            same = data.signature == expected
        if not same:
            raise ValueError(
                f"dataset {self.label}: the loader returned signature {data.signature}, expected {self.signature}"
            )
        if data.task != self.task:
            raise ValueError(f"dataset {self.label}: the loader returned task {data.task!r}, expected {self.task!r}")
        return data


@dataclass
class BenchmarkData:
    """The data of one trial.

    Parameters
    ----------
    X : ndarray of shape (n_samples, ambient_dim)
        Ambient coordinates of ``signature``.
    y : ndarray of shape (n_samples,)
        Labels (classification, link prediction) or targets (regression).
    signature : Signature
    task : str
    X_test, y_test : ndarray or None
        A fixed test set (e.g. link prediction split by node). When given, ``X``
        and ``y`` are the training set and the runner does not split.
    """

    X: np.ndarray
    y: np.ndarray
    signature: Signature
    task: str
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None

    def __post_init__(self):
        self.signature = Signature.parse(self.signature)
        metric_for_task(self.task)
        self.X, self.y = _check_xy(self.X, self.y, self.signature, "X", "y")
        if (self.X_test is None) != (self.y_test is None):
            raise ValueError("X_test and y_test must be given together")
        if self.X_test is not None:
            self.X_test, self.y_test = _check_xy(self.X_test, self.y_test, self.signature, "X_test", "y_test")

    @property
    def has_split(self) -> bool:
        """Whether the loader fixed the train/test split itself."""
        return self.X_test is not None


def _check_xy(X, y, signature, x_name, y_name):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != signature.ambient_dim:
        raise ValueError(
            f"{x_name} has shape {X.shape}, expected (n_samples, {signature.ambient_dim}) for signature {signature}"
        )
    if y.ndim != 1 or len(y) != len(X):
        raise ValueError(f"{y_name} has shape {y.shape}, expected ({len(X)},) to match {x_name}")
    if not np.all(np.isfinite(X)):
        row, col = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(f"{x_name} has a non-finite value at row {row}, column {col}")
    return X, y


def as_benchmark_data(value, where: str = "loader") -> BenchmarkData:
    """Accept a :class:`BenchmarkData`, a mapping or a ``(X, y, signature, task)`` tuple.

    A mapping may hold ``X, y, signature, task`` and optionally ``X_test, y_test``
    (or ``X_train, y_train, X_test, y_test``). Objects with those attributes (for
    example a dataset record from :mod:`curvedtrees.datasets`) are accepted too.
    """
    if isinstance(value, BenchmarkData):
        return value
    if isinstance(value, tuple) and len(value) == 4:
        X, y, signature, task = value
        return BenchmarkData(X, y, signature, task)
    if isinstance(value, dict):
        fields = dict(value)
    elif hasattr(value, "X") and hasattr(value, "signature") and hasattr(value, "task"):
        names = ("X", "y", "signature", "task", "X_test", "y_test")
        fields = {k: getattr(value, k) for k in names if hasattr(value, k)}
    else:
        raise ValueError(
            f"{where} returned {type(value).__name__}: expected (X, y, signature, task), a BenchmarkData "
            "or a mapping with X, y, signature and task"
        )
    if "X_train" in fields:
        fields["X"] = fields.pop("X_train")
        fields["y"] = fields.pop("y_train")
    missing = [k for k in ("X", "y", "signature", "task") if fields.get(k) is None]
    if missing:
        raise ValueError(f"{where} returned data without {', '.join(missing)}")
    return BenchmarkData(
        fields["X"], fields["y"], fields["signature"], fields["task"], fields.get("X_test"), fields.get("y_test")
    )
