"""The ``Dataset`` record, the parameter descriptions and the loader registry.

Every loader returns a :class:`Dataset`: points in ambient coordinates on a
product manifold, targets, the signature, the task, and text that the app shows
(a one-paragraph description and the data's provenance with its licence). The
registry (:func:`list_datasets`, :func:`load_dataset`) describes each loader's
parameters with defaults, ranges and help so a user interface can render a form
for any dataset without knowing it.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..manifolds.signature import Signature
from ..utils import EXTRAS, as_generator, require

__all__ = [
    "TASKS",
    "Dataset",
    "DatasetInfo",
    "ParamInfo",
    "get_dataset_info",
    "list_datasets",
    "load_dataset",
    "random_test_mask",
    "register",
    "require",
]

TASKS = ("classification", "regression", "link_prediction")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A dataset on a product manifold.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, signature.ambient_dim)
        Points in ambient coordinates (hyperboloid for H, sphere for S, plain
        coordinates for E), components concatenated in signature order.
    y : ndarray, shape (n_samples,)
        Class labels (classification, link prediction: 1 = edge) or real
        targets (regression).
    signature : Signature
        The product manifold the rows of ``X`` lie on.
    task : {"classification", "regression", "link_prediction"}
        Link prediction is a binary classification over node pairs.
    name : str
        Registry name of the loader that made it.
    description : str
        One paragraph for people: what a row is, what the target is.
    provenance : str
        Where the data comes from and under which licence (shown by the app
        wherever the data is shown).
    groups : ndarray, shape (n_samples,), optional
        Group label per row (for example the city of a temperature row); rows of
        one group must stay on one side of a train/test split.
    test_mask : ndarray of bool, shape (n_samples,), optional
        A predefined test set (for example the test nodes of a link-prediction
        dataset, or the images a VAE never saw). When set, :meth:`split` uses it
        instead of a random split, because a random split would leak.
    feature_names : tuple of str, optional
        One name per ambient column.
    target_names : tuple of str, optional
        Class names, indexed by the integer labels in ``y`` (classification).
    extra : dict
        Anything else a loader wants to expose (graph edges, metrics, raw
        latitude/longitude...). Never needed to use the dataset.
    globe : tuple of int, optional
        Indices of the S2 components whose points are places on the Earth, as
        :func:`curvedtrees.coords.latlon_to_sphere` makes them from latitude and
        longitude (x toward 0 N 0 E, z toward the north pole). Pictures draw
        these components as the globe, with coastlines and a world map. Empty
        (the default) for every other dataset.
    """

    X: np.ndarray
    y: np.ndarray
    signature: Signature
    task: str
    name: str
    description: str
    provenance: str
    groups: np.ndarray | None = None
    test_mask: np.ndarray | None = None
    feature_names: tuple[str, ...] | None = None
    target_names: tuple[str, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    globe: tuple[int, ...] = ()

    def __post_init__(self):
        signature = Signature.parse(self.signature)
        object.__setattr__(self, "signature", signature)
        from ..manifolds import ProductManifold

        # Every loader's output is checked here once: shape, finiteness and that
        # each row lies on the manifold (the message names component and rows).
        X = ProductManifold(signature).validate(self.X, name=f"X of dataset {self.name!r}")
        y = np.asarray(self.y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"dataset {self.name!r}: y has shape {y.shape}, expected ({X.shape[0]},)")
        if self.task not in TASKS:
            raise ValueError(f"dataset {self.name!r}: task must be one of {TASKS}, got {self.task!r}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        for attr in ("groups", "test_mask"):
            value = getattr(self, attr)
            if value is None:
                continue
            value = np.asarray(value, dtype=bool) if attr == "test_mask" else np.asarray(value)
            if value.shape != (X.shape[0],):
                raise ValueError(f"dataset {self.name!r}: {attr} has shape {value.shape}, expected ({X.shape[0]},)")
            object.__setattr__(self, attr, value)
        if self.test_mask is not None and (self.test_mask.all() or not self.test_mask.any()):
            raise ValueError(f"dataset {self.name!r}: test_mask must mark some but not all rows")
        if self.feature_names is not None:
            names = tuple(self.feature_names)
            if len(names) != X.shape[1]:
                raise ValueError(f"dataset {self.name!r}: {len(names)} feature names for {X.shape[1]} columns")
            object.__setattr__(self, "feature_names", names)
        if self.target_names is not None:
            object.__setattr__(self, "target_names", tuple(self.target_names))
        object.__setattr__(self, "globe", _globe_components(self.globe, signature, self.name))

    @property
    def n_samples(self) -> int:
        """Number of rows."""
        return self.X.shape[0]

    @property
    def is_classifier_task(self) -> bool:
        """True for classification and link prediction (a binary classification)."""
        return self.task != "regression"

    def split(self, test_size: float = 0.25, random_state=None):
        """Train/test split that respects the dataset's structure.

        Uses ``test_mask`` when the dataset defines one; otherwise keeps groups
        whole when ``groups`` is set; otherwise a random split, stratified by
        class for classification.

        Parameters
        ----------
        test_size : float in (0, 1)
            Fraction of rows (or of groups) held out; ignored with a ``test_mask``.
        random_state : int, Generator, RandomState or None

        Returns
        -------
        X_train, X_test, y_train, y_test : ndarrays
        """
        train, test = self.split_indices(test_size=test_size, random_state=random_state)
        return self.X[train], self.X[test], self.y[train], self.y[test]

    def split_indices(self, test_size: float = 0.25, random_state=None) -> tuple[np.ndarray, np.ndarray]:
        """Row indices ``(train, test)`` of :meth:`split`."""
        if self.test_mask is not None:
            return np.flatnonzero(~self.test_mask), np.flatnonzero(self.test_mask)
        if not 0.0 < float(test_size) < 1.0:
            raise ValueError(f"test_size must be in (0, 1), got {test_size!r}")
        seed = _as_seed(random_state)
        from sklearn.model_selection import GroupShuffleSplit, train_test_split

        rows = np.arange(self.n_samples)
        if self.groups is not None:
            splitter = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
            train, test = next(splitter.split(rows, groups=self.groups))
            return train, test
        stratify = None
        if self.is_classifier_task:
            _, counts = np.unique(self.y, return_counts=True)
            # Stratification needs at least two rows per class on each side.
            if counts.min() >= 2 and len(counts) <= test_size * self.n_samples:
                stratify = self.y
        train, test = train_test_split(rows, test_size=test_size, random_state=seed, stratify=stratify)
        return np.sort(train), np.sort(test)

    def summary(self) -> dict[str, Any]:
        """Short facts for display: name, task, signature, sizes, classes."""
        facts: dict[str, Any] = {
            "name": self.name,
            "task": self.task,
            "signature": str(self.signature),
            "n_samples": self.n_samples,
            "ambient_dim": self.signature.ambient_dim,
        }
        if self.is_classifier_task:
            labels, counts = np.unique(self.y, return_counts=True)
            facts["n_classes"] = len(labels)
            facts["class_counts"] = {str(self._label_name(k)): int(c) for k, c in zip(labels, counts)}
        else:
            facts["target_range"] = (float(np.min(self.y)), float(np.max(self.y)))
        if self.groups is not None:
            facts["n_groups"] = len(np.unique(self.groups))
        if self.test_mask is not None:
            facts["n_test"] = int(self.test_mask.sum())
        return facts

    def _label_name(self, label):
        if (
            self.target_names is not None
            and np.issubdtype(type(label), np.integer)
            and 0 <= label < len(self.target_names)
        ):
            return self.target_names[int(label)]
        return label

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, task={self.task!r}, signature='{self.signature}', n_samples={self.n_samples})"
        )


def _globe_components(globe, signature: Signature, name: str) -> tuple[int, ...]:
    """``globe`` as a sorted tuple of component indices, each an S2 component of ``signature``."""
    if isinstance(globe, (str, bytes)) or not hasattr(globe, "__iter__"):
        raise ValueError(f"dataset {name!r}: globe must be a sequence of component indices, got {globe!r}")
    out = []
    for index in globe:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise ValueError(f"dataset {name!r}: globe holds component indices, got {index!r}")
        if not 0 <= index < len(signature.components):
            raise ValueError(
                f"dataset {name!r}: globe names component {index}, but {signature} has {len(signature.components)}"
            )
        comp = signature.components[int(index)]
        if comp.kind != "S" or comp.dim != 2:
            raise ValueError(
                f"dataset {name!r}: only an S2 component can be the globe, not {comp.name} (component {int(index)})"
            )
        out.append(int(index))
    return tuple(sorted(set(out)))


def _as_seed(random_state):
    """An int (or None) seed for scikit-learn helpers from any accepted random_state."""
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    raise ValueError(f"random_state must be None, an int, a Generator or a RandomState, got {random_state!r}")


def random_test_mask(n: int, test_size: float = 0.25, random_state=None) -> np.ndarray:
    """A random boolean mask of ``round(test_size * n)`` test items, shape (n,).

    At least two items go to each side (so that a node-level split leaves node
    pairs on both sides).
    """
    if not 0.0 < float(test_size) < 1.0:
        raise ValueError(f"test_size must be in (0, 1), got {test_size!r}")
    if n < 4:
        raise ValueError(f"a train/test split needs at least 4 items, got {n}")
    n_test = min(max(2, round(test_size * n)), n - 2)
    rng = as_generator(random_state)
    mask = np.zeros(n, dtype=bool)
    mask[rng.choice(n, size=n_test, replace=False)] = True
    return mask


# ---------------------------------------------------------------- registry
@dataclass(frozen=True)
class ParamInfo:
    """One parameter of a loader or an estimator, described well enough to render a form field.

    The app draws every form (datasets, models, embeddings) from these records, and
    :meth:`coerce` checks values that arrive from a form, a recipe or a share link.

    Parameters
    ----------
    name : str
        Keyword of the loader or estimator.
    kind : {"int", "float", "bool", "choice", "signature", "seed", "optional_int", "optional_float"}
        ``"seed"`` is an int or None (``random_state``). ``"optional_int"`` and
        ``"optional_float"`` are numbers where 0 stands for None ("no limit").
    default : object
    help : str
    min, max : float, optional
        Inclusive bounds for numbers. For ``"signature"``, ``max`` bounds the
        signature's dimension (the sum of its components' dimensions).
    choices : tuple, optional
        Allowed values for ``"choice"`` (and suggestions for ``"signature"``).
    step : float, optional
        A sensible widget step for numbers.
    label : str, optional
        What a form shows instead of ``name``.
    none_choice : str, optional
        For ``"choice"``: the choice that stands for None (``"all"`` features).

    Examples
    --------
    >>> ParamInfo("max_depth", "optional_int", 6, "Deepest level.", 0, 64).coerce(0)
    >>> ParamInfo("max_depth", "optional_int", 6, "Deepest level.", 0, 64).coerce(65.0)
    Traceback (most recent call last):
    ...
    ValueError: max_depth must be between 0 and 64, got 65.0
    >>> ParamInfo("signature", "signature", "H2", "Where to embed.", max=32).coerce("H1000 x S1000")
    Traceback (most recent call last):
    ...
    ValueError: signature: H1000 x S1000 has dimension 2,000; at most 32 here (use fewer or smaller components)
    """

    name: str
    kind: str
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    step: float | None = None
    label: str | None = None
    none_choice: str | None = None

    def coerce(self, value, where: str | None = None):
        """``value`` as the loader or estimator receives it, or ValueError naming the parameter.

        Parameters
        ----------
        value : object
            From a form, a recipe or a link (so possibly of any type).
        where : str, optional
            How to name the parameter in a message (default: its name).
        """
        where = where or self.name
        if self.kind == "seed":
            if value is None or isinstance(value, (np.random.Generator, np.random.RandomState)):
                return value
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{where} must be None or an integer seed, got {value!r}")
            return int(value)
        if self.kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{where} must be True or False, got {value!r}")
            return bool(value)
        if self.kind == "choice":
            if value is None and self.none_choice is not None:
                return None
            choices = self.choices or ()
            if value not in choices:
                raise ValueError(f"{where} must be one of {list(choices)}, got {value!r}")
            return None if value == self.none_choice else value
        if self.kind == "signature":
            try:
                signature = Signature.parse(value)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{where}: {exc}") from None
            if self.max is not None and signature.dim > self.max:
                raise ValueError(
                    f"{where}: {signature} has dimension {signature.dim:,}; at most {self.max:g} here "
                    "(use fewer or smaller components)"
                )
            return str(signature)
        if self.kind in ("int", "float", "optional_int", "optional_float"):
            optional = self.kind.startswith("optional")
            if value is None and optional:
                return None
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ValueError(f"{where} must be a number, got {value!r}")
            if not np.isfinite(value):
                raise ValueError(f"{where} must be finite, got {value!r}")
            low, high = self.min, self.max
            if (low is not None and value < low) or (high is not None and value > high):
                bounds = (
                    f"between {low:g} and {high:g}"
                    if low is not None and high is not None
                    else f"at least {low:g}"
                    if low is not None
                    else f"at most {high:g}"
                )
                raise ValueError(f"{where} must be {bounds}, got {value!r}")
            if optional and value == 0:
                return None
            if self.kind.endswith("int"):
                if float(value) != int(value):
                    raise ValueError(f"{where} must be a whole number, got {value!r}")
                return int(value)
            return float(value)
        raise ValueError(f"{where} has an unknown kind {self.kind!r}")  # a registry bug, not user input

    def validate(self, value, dataset: str):
        """:meth:`coerce` for a loader parameter, naming the dataset in messages."""
        return self.coerce(value, f"parameter {self.name!r} of dataset {dataset!r}")


@dataclass(frozen=True)
class DatasetInfo:
    """What the registry knows about one loader (without running it).

    Parameters
    ----------
    name : str
        Registry key, passed to :func:`load_dataset`.
    title : str
        Human title ("Landmasses").
    task : str
        One of :data:`TASKS`.
    signature : str
        The default signature (the real one may depend on parameters).
    summary : str
        One sentence for a menu.
    category : str
        "geographic", "periodic", "graph", "image latents".
    parameters : tuple of ParamInfo
    requires : tuple of str
        Optional packages the loader imports.
    slow : bool
        True when loading trains something (an embedding, a VAE): show progress.
    loader : callable
        The loader function (``loader(**params) -> Dataset``).
    """

    name: str
    title: str
    task: str
    signature: str
    summary: str
    category: str
    parameters: tuple[ParamInfo, ...]
    requires: tuple[str, ...]
    slow: bool
    loader: Callable[..., Dataset] = field(repr=False, compare=False)

    @property
    def defaults(self) -> dict[str, Any]:
        """Default value of every parameter."""
        return {p.name: p.default for p in self.parameters}

    def available(self) -> tuple[bool, str]:
        """``(True, "")`` when every optional package imports, else ``(False, pip hint)``.

        The hint names the extras that install the missing packages, e.g.
        ``pip install 'curvedtrees[datasets]'``.
        """
        missing = [m for m in self.requires if not _importable(m)]
        if missing:
            extras = sorted({EXTRAS.get(m.split(".")[0], m) for m in missing})
            return False, f"pip install 'curvedtrees[{','.join(extras)}]'"
        return True, ""


def _importable(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (torch takes seconds)."""
    if module in sys.modules:
        return sys.modules[module] is not None  # None marks a module known to be missing
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


_REGISTRY: dict[str, DatasetInfo] = {}


def register(
    name: str,
    *,
    title: str,
    task: str,
    signature: str,
    summary: str,
    category: str,
    parameters: tuple[ParamInfo, ...] = (),
    requires: tuple[str, ...] = (),
    slow: bool = False,
):
    """Decorator adding a loader function to the registry.

    The parameter descriptions must match the function's keywords and defaults
    (checked here, so a form can never offer a parameter the loader rejects).
    """

    def decorate(func):
        sig = inspect.signature(func)
        accepted = {k for k, p in sig.parameters.items() if k not in ("progress", "callback")}
        described = {p.name for p in parameters}
        if accepted != described:
            raise RuntimeError(f"registry entry {name!r}: parameters {sorted(described)} != loader {sorted(accepted)}")
        for p in parameters:
            if sig.parameters[p.name].default != p.default:
                raise RuntimeError(f"registry entry {name!r}: default of {p.name!r} differs from the loader's")
        _REGISTRY[name] = DatasetInfo(
            name=name,
            title=title,
            task=task,
            signature=signature,
            summary=summary,
            category=category,
            parameters=tuple(parameters),
            requires=tuple(requires),
            slow=slow,
            loader=func,
        )
        return func

    return decorate


def _ensure_loaded():
    # The loader modules register themselves on import; importing them here keeps
    # ``curvedtrees.datasets._base`` free of import cycles.
    from . import geo, graphs, images, periodic  # noqa: F401


def list_datasets(category: str | None = None) -> list[DatasetInfo]:
    """Every registered dataset, in registration order (geographic, periodic, graph, image latents).

    Parameters
    ----------
    category : str, optional
        Only this category ("geographic", "periodic", "graph", "image latents").

    Examples
    --------
    >>> from curvedtrees import list_datasets
    >>> info = list_datasets()[0]
    >>> info.name, str(info.signature), [p.name for p in info.parameters][:2]
    ('landmasses', 'S2', ['n_samples', 'n_grid'])
    """
    _ensure_loaded()
    infos = list(_REGISTRY.values())
    if category is not None:
        infos = [i for i in infos if i.category == category]
    return infos


def get_dataset_info(name: str) -> DatasetInfo:
    """The registry entry for ``name`` (ValueError listing the known names otherwise)."""
    _ensure_loaded()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; known datasets: {', '.join(_REGISTRY)}") from None


def load_dataset(name: str, callback=None, **params) -> Dataset:
    """Load a registered dataset by name.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets`.
    callback : callable, optional
        Progress callback for the slow loaders (graph embeddings, VAE latents):
        ``callback(epoch, value) -> bool | None``; returning False cancels (the
        loader then raises :class:`curvedtrees.embeddings.Cancelled`). Ignored by fast
        loaders.
    **params
        Loader parameters; unknown names and out-of-range values raise
        ValueError naming the parameter.

    Examples
    --------
    >>> from curvedtrees import load_dataset
    >>> data = load_dataset("landmasses", n_samples=300, random_state=0)
    >>> data.X.shape, str(data.signature), data.task
    ((300, 3), 'S2', 'classification')
    >>> X_train, X_test, y_train, y_test = data.split(test_size=0.25, random_state=0)
    >>> len(X_test)
    75
    """
    info = get_dataset_info(name)
    known = {p.name: p for p in info.parameters}
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(f"dataset {name!r} has no parameter {unknown[0]!r}; its parameters are {sorted(known)}")
    kwargs = {k: known[k].validate(v, name) for k, v in params.items()}
    if "callback" in inspect.signature(info.loader).parameters:
        kwargs["callback"] = callback
    return info.loader(**kwargs)
