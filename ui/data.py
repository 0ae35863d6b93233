"""Datasets of the app: records, recipes that rebuild them, and the one-click demos.

Pure module (no Streamlit): the pages call it, the tests call it directly.

A *recipe* is a small JSON-able dict that says how to rebuild a dataset
(``{"source": "synthetic", "signature": "H2", ...}`` or ``{"source": "builtin",
"name": "landmasses", "params": {...}}``); it is what the URL carries so that a
view can be shared. Uploaded files have a recipe too (``{"source": "upload",
...}``) but cannot be rebuilt from it.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field

import numpy as np
from curvedtrees.limits import (
    MAX_COV_SCALE,
    MAX_LINK_TITLE_CHARS,
    MAX_SYNTHETIC_CELLS,
    MAX_SYNTHETIC_CLASSES,
    MAX_SYNTHETIC_CLUSTERS,
    MAX_SYNTHETIC_SAMPLES,
)
from curvedtrees.manifolds import Signature

__all__ = [
    "DEFAULT_DEMO",
    "DEMOS",
    "MAX_COV_SCALE",
    "MAX_SYNTHETIC_CLASSES",
    "MAX_SYNTHETIC_CLUSTERS",
    "MAX_SYNTHETIC_SAMPLES",
    "DataRecord",
    "Demo",
    "available_demos",
    "build_dataset",
    "builtin_datasets",
    "check_recipe",
    "content_hash",
    "load_builtin",
    "make_record",
    "recipe_cost",
    "synthetic_recipe",
]

# The bounds of the Data page's form, also enforced here since recipes can come from a
# link, live with every other input limit in curvedtrees.limits (MAX_SYNTHETIC_SAMPLES,
# MAX_SYNTHETIC_CLASSES, MAX_SYNTHETIC_CLUSTERS, MAX_COV_SCALE; importable from here too).


@dataclass
class DataRecord:
    """The current dataset with what the app needs around it.

    Attributes
    ----------
    dataset : curvedtrees.datasets.Dataset
        X (ambient coordinates), y, signature, task, description, provenance,
        optional groups / test mask (respected by the train/test split).
    recipe : dict
        How to rebuild it (JSON-able); ``source`` is "synthetic", "builtin" or "upload".
    hash : str
        Content hash of X, y and the signature (cache key).
    class_names : list of str or None
        Classification: display name of each class, in ``np.unique(y)`` order.
    """

    dataset: object
    recipe: dict
    hash: str
    class_names: list[str] | None = field(default=None)

    @property
    def X(self) -> np.ndarray:
        return self.dataset.X

    def label_of(self, row: int) -> str:
        """Row ``row``'s label as the app writes it: its class's name, or a regression target's value."""
        value = self.dataset.y[int(row)]
        if self.class_names is None:
            return f"{float(value):.4g}"
        return self.class_names[int(np.searchsorted(np.unique(self.dataset.y), value))]

    @property
    def y(self) -> np.ndarray:
        return self.dataset.y

    @property
    def signature(self) -> Signature:
        return self.dataset.signature

    @property
    def task(self) -> str:
        return "regression" if self.dataset.task == "regression" else "classification"

    @property
    def title(self) -> str:
        return self.recipe.get("title") or self.dataset.name

    def class_index(self, labels=None) -> np.ndarray:
        """Index of each label (default: ``y``) among the dataset's classes."""
        classes = np.unique(self.y)
        labels = self.y if labels is None else np.asarray(labels)
        return np.searchsorted(classes, labels)


def content_hash(*arrays, extra: str = "") -> str:
    """SHA-256 (hex, 16 characters) of arrays' dtype, shape and bytes plus a text."""
    digest = hashlib.sha256(extra.encode())
    for array in arrays:
        array = np.ascontiguousarray(array)
        if array.dtype == object:
            digest.update(json.dumps([str(v) for v in array.ravel()]).encode())
        else:
            digest.update(str(array.dtype).encode() + str(array.shape).encode())
            digest.update(array.tobytes())
    return digest.hexdigest()[:16]


def make_record(dataset, recipe: dict) -> DataRecord:
    """Wrap an ``curvedtrees.datasets.Dataset`` with its recipe, hash and class names."""
    class_names = None
    if dataset.task != "regression":
        classes = np.unique(dataset.y)
        names = dataset.target_names
        class_names = [
            str(names[int(c)])
            if names is not None and np.issubdtype(type(c), np.integer) and 0 <= c < len(names)
            else str(c)
            for c in classes
        ]
    digest = content_hash(dataset.X, dataset.y, extra=f"{dataset.signature}|{dataset.task}")
    return DataRecord(dataset, dict(recipe), digest, class_names)


def synthetic_recipe(
    signature="H2",
    n_samples=600,
    n_classes=5,
    task="classification",
    seed=0,
    n_clusters=None,
    cov_scale=0.35,
    title=None,
) -> dict:
    """A recipe for a Gaussian mixture (``curvedtrees.sampling``), with the app's defaults."""
    recipe = {
        "source": "synthetic",
        "signature": str(Signature.parse(signature)),
        "n_samples": int(n_samples),
        "n_classes": int(n_classes),
        "task": task,
        "seed": int(seed),
        "n_clusters": int(n_clusters if n_clusters is not None else max(int(n_classes), 2 * int(n_classes))),
        "cov_scale": float(cov_scale),
    }
    if title:
        recipe["title"] = title
    return recipe


def _integer(recipe: dict, name: str, default: int, low: int, high: int) -> int:
    value = recipe.get(name, default)
    # JSON numbers only: a bool is not a count, and text such as "1e9" is not read as one.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer between {low:,} and {high:,}, got {str(value)[:40]}")
    return value


def check_recipe(recipe) -> dict:
    """Check a dataset recipe (it may come from a share link) before anything is built.

    Every size is bounded here, so that rebuilding never allocates more than
    the Data page's own form could ask for.

    Returns
    -------
    dict
        The recipe with its defaults filled in.

    Raises
    ------
    ValueError
        Naming the field that is wrong, its bounds and the value (clipped).
    """
    if not isinstance(recipe, dict):
        raise ValueError("a dataset recipe must be a mapping")
    recipe = dict(recipe)
    title = recipe.get("title")
    if title is not None and (not isinstance(title, str) or len(title) > MAX_LINK_TITLE_CHARS):
        raise ValueError(f"the dataset's title must be text of at most {MAX_LINK_TITLE_CHARS} characters")
    source = recipe.get("source")
    if source == "builtin":
        if not isinstance(recipe.get("name"), str) or not isinstance(recipe.get("params", {}), dict):
            raise ValueError("a built-in dataset recipe needs a name and a mapping of parameters")
        return recipe
    if source != "synthetic":
        return recipe  # build_dataset explains uploads and unknown sources
    if not isinstance(recipe.get("signature"), str):
        raise ValueError("a synthetic dataset recipe needs a signature such as 'H2 x S2'")
    signature = Signature.parse(recipe["signature"])  # bounded: curvedtrees.limits
    n_samples = _integer(recipe, "n_samples", 600, 10, MAX_SYNTHETIC_SAMPLES)
    cells = n_samples * signature.ambient_dim
    if cells > MAX_SYNTHETIC_CELLS:
        raise ValueError(
            f"{n_samples:,} points on {signature} ({signature.ambient_dim:,} coordinates each) make {cells:,} "
            f"numbers; the limit is {MAX_SYNTHETIC_CELLS:,}: ask for at most "
            f"{MAX_SYNTHETIC_CELLS // signature.ambient_dim:,} points or a smaller signature"
        )
    task = recipe.get("task", "classification")
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression', got {str(task)[:40]!r}")
    recipe.update(
        signature=str(signature),
        n_samples=n_samples,
        task=task,
        seed=_integer(recipe, "seed", 0, 0, 2**32 - 1),
        n_classes=_integer(recipe, "n_classes", 5, 2, MAX_SYNTHETIC_CLASSES),
        n_clusters=_integer(recipe, "n_clusters", 10, 1, MAX_SYNTHETIC_CLUSTERS),
    )
    cov_scale = recipe.get("cov_scale", 0.35)
    if (
        not isinstance(cov_scale, (int, float))
        or isinstance(cov_scale, bool)
        or not math.isfinite(cov_scale)
        or not 0 < cov_scale <= MAX_COV_SCALE
    ):
        raise ValueError(f"cov_scale must be a number in (0, {MAX_COV_SCALE:g}], got {str(cov_scale)[:40]}")
    recipe["cov_scale"] = float(cov_scale)
    return recipe


def _build_synthetic(recipe: dict):
    from curvedtrees.datasets import Dataset
    from curvedtrees.sampling import make_classification, make_regression

    recipe = check_recipe(recipe)
    signature = Signature.parse(recipe["signature"])
    n_samples, task, seed = recipe["n_samples"], recipe["task"], recipe["seed"]
    n_clusters, cov_scale = recipe["n_clusters"], recipe["cov_scale"]
    if task == "classification":
        n_classes = recipe["n_classes"]
        X, y = make_classification(
            signature,
            n_samples=n_samples,
            n_classes=n_classes,
            n_clusters=max(n_clusters, n_classes),
            cov_scale=cov_scale,
            random_state=seed,
        )
        what = f"{n_classes} classes from a mixture of {max(n_clusters, n_classes)} wrapped normal clusters"
    else:
        X, y = make_regression(
            signature, n_samples=n_samples, n_clusters=n_clusters, cov_scale=cov_scale, random_state=seed
        )
        what = f"a piecewise-linear target over {n_clusters} wrapped normal clusters"
    return Dataset(
        X=X,
        y=y,
        signature=signature,
        task=task,
        name=f"mixture on {signature}",
        description=f"{n_samples:,} points on {signature}: {what} (seed {seed}).",
        provenance="Generated by curvedtrees.sampling (the mixed-curvature paper's benchmark mixture).",
    )


def _build_builtin(recipe: dict):
    return load_builtin(recipe["name"], dict(recipe.get("params", {})))


def load_builtin(name: str, params: dict, callback=None):
    """:func:`curvedtrees.datasets.load_dataset` (the worker pool's task for slow built-in datasets)."""
    from curvedtrees.datasets import load_dataset

    return load_dataset(name, callback=callback, **dict(params))


def recipe_cost(recipe: dict):
    """What rebuilding a dataset from ``recipe`` costs (:mod:`curvedtrees.costs`), before anything is built.

    The recipe is checked first (:func:`check_recipe`); a built-in dataset's parameters
    are validated by its registry entry, so that the estimate reads sound values.

    Returns
    -------
    curvedtrees.costs.Cost
    """
    from curvedtrees.costs import Cost, estimate_dataset_cost, estimate_sampling_cost

    recipe = check_recipe(recipe)
    if recipe.get("source") == "synthetic":
        n_clusters = max(recipe["n_clusters"], recipe["n_classes"])
        return estimate_sampling_cost(recipe["signature"], recipe["n_samples"], n_clusters)
    if recipe.get("source") == "builtin":
        from curvedtrees.datasets import get_dataset_info

        info = get_dataset_info(recipe["name"])
        specs = {p.name: p for p in info.parameters}
        params = dict(recipe.get("params", {}))
        unknown = sorted(set(params) - set(specs))
        if unknown:
            raise ValueError(
                f"dataset {info.name!r} has no parameter {unknown[0]!r}; its parameters are {sorted(specs)}"
            )
        checked = {k: specs[k].validate(v, info.name) for k, v in params.items()}
        return estimate_dataset_cost(info.name, **checked)
    return Cost("reading an uploaded dataset", 0.0, 0, 0)


def build_dataset(recipe: dict) -> DataRecord:
    """Rebuild a dataset from its recipe.

    Raises
    ------
    ValueError
        For an unknown source, an upload (not rebuildable) or bad parameters.
    """
    recipe = check_recipe(recipe)
    source = recipe.get("source")
    if source == "synthetic":
        return make_record(_build_synthetic(recipe), recipe)
    if source == "builtin":
        return make_record(_build_builtin(recipe), recipe)
    if source == "upload":
        raise ValueError("an uploaded dataset cannot be rebuilt from a link: upload the file again")
    raise ValueError(f"unknown dataset source {source!r}")


def builtin_datasets() -> list:
    """Registry entries of ``curvedtrees.datasets`` (empty if it is unavailable)."""
    try:
        from curvedtrees.datasets import list_datasets
    except ImportError:
        return []
    return list(list_datasets())


# ------------------------------------------------------------------- demos
@dataclass(frozen=True)
class Demo:
    """A one-click example: a dataset recipe, a model recipe and the picture to open."""

    key: str
    title: str
    short: str
    blurb: str
    data: dict
    model: dict
    view: str | None = None  # View.key to show first; the first view otherwise
    requires_builtin: str | None = None


def _tree(max_depth=6, **extra) -> dict:
    params = {"max_depth": max_depth, "pairs": "base", "min_samples_leaf": 3} | extra
    return {"family": "product_tree", "params": params, "test_size": 0.25, "seed": 0}


DEMOS = {
    demo.key: demo
    for demo in (
        Demo(
            "poincare",
            "Mixture on the Poincaré disk",
            "Poincaré disk",
            "Five classes on the hyperbolic plane H2; splits are geodesics (circular arcs).",
            synthetic_recipe("H2", 600, 5, seed=3, cov_scale=0.3, title="Mixture on the Poincaré disk"),
            _tree(6),
            "disk:0:1-2:poincare",
        ),
        Demo(
            "sphere",
            "Mixture on the sphere",
            "Sphere",
            "Five classes on S2; every split is a great circle.",
            synthetic_recipe("S2", 600, 5, seed=1, cov_scale=0.25, title="Mixture on the sphere"),
            _tree(6),
            "sphere:0:0-1-2:poincare",
        ),
        Demo(
            "torus",
            "Torus S1 x S1",
            "Torus",
            "Two circles: splits cut the torus along circles of constant angle.",
            synthetic_recipe("S1 x S1", 600, 4, seed=2, cov_scale=0.3, title="Torus S1 x S1"),
            _tree(6),
            "torus:0-1::poincare",
        ),
        Demo(
            "product",
            "Product H2 x S2 x E2",
            "H2 x S2 x E2",
            "A mixed-curvature product: one tree splits whichever component helps most.",
            synthetic_recipe("H2 x S2 x E2", 800, 5, seed=4, cov_scale=0.3, title="Product H2 x S2 x E2"),
            _tree(8),
            None,
        ),
        Demo(
            "landmass",
            "Landmasses",
            "Landmasses",
            "Land or water on the globe (S2) from a real land mask: 20,000 points and a product random forest.",
            {
                "source": "builtin",
                "name": "landmasses",
                "params": {"n_samples": 20000, "random_state": 0},
                "title": "Landmasses",
            },
            {
                "family": "product_forest",
                "params": {"n_estimators": 32, "pairs": "all", "max_depth": 0, "min_samples_leaf": 1},
                "test_size": 0.25,
                "seed": 0,
            },
            # The turning orthographic globe: large, flat, with coastlines, and it turns by itself.
            "ortho:0:0-1-2:poincare",
            requires_builtin="landmasses",
        ),
        Demo(
            "temperatures",
            "City temperatures",
            "Temperatures",
            "Monthly temperatures of cities: position on the globe (S2) times the month (S1); regression. "
            "Play runs the globe through the year.",
            {"source": "builtin", "name": "city_temperatures", "params": {}, "title": "City temperatures"},
            {
                "family": "product_forest",
                "params": {"n_estimators": 50, "pairs": "all", "min_samples_leaf": 2},
                "test_size": 0.25,
                "seed": 0,
            },
            "sphere:0:0-1-2:poincare",
            requires_builtin="city_temperatures",
        ),
    )
}
DEFAULT_DEMO = "poincare"


def available_demos() -> list[Demo]:
    """The demos whose datasets exist in this installation."""
    names = {info.name for info in builtin_datasets()}
    return [d for d in DEMOS.values() if d.requires_builtin is None or d.requires_builtin in names]
