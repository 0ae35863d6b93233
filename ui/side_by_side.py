"""The Side by side page's models: one small recipe per side, trained on the current dataset.

Pure module (no Streamlit). A *side recipe* ``{"kind": ..., "max_depth": d}`` names one
of the models a lecture compares (a product tree, a product forest, the Klein wrapper,
a scikit-learn tree on ambient or on tangent coordinates) at a depth. The page caches
:func:`train_side` by the dataset's content hash and the recipe's text, so moving a
depth slider back to a depth already seen redraws without training.

The product families go through :func:`ui.training.train_from_recipe`, as on the Train
page. The Klein wrapper and the two baselines hold a scikit-learn tree whose depth the
Train page's recipes do not set, so they are built here, on the same train/test split
and scored the same way. :func:`side_cost` estimates a side's fit before anything runs;
the page trains through :func:`ui.cache.side_model`, in the worker pool, like every fit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ui.training import ModelRecord, evaluate, fit_model, model_cost, recipe_cost, split_rows, train_from_recipe

__all__ = [
    "DEPTHS",
    "FOREST_TREES",
    "KINDS",
    "SideKind",
    "describe_side",
    "kinds_for",
    "side_cost",
    "side_recipe",
    "side_recipe_text",
    "train_side",
]

# Depths a slider offers: 1 shows a single cut, 12 is past where a 5,000-row mixture stops improving.
DEPTHS = (1, 12)
# Trees of the forest side: enough for its regions to look averaged, few enough to retrain and
# redraw in under 1.5 s at 5,000 rows (perf/bench_side_by_side.py).
FOREST_TREES = 24
_TEST_SIZE = 0.25
_SEED = 0


@dataclass(frozen=True)
class SideKind:
    """A model one side of the page can show."""

    key: str
    title: str
    blurb: str
    kinds: str = "HSE"  # component kinds it accepts

    def fits(self, signature) -> bool:
        return all(c.kind in self.kinds for c in signature.components)


KINDS = {
    kind.key: kind
    for kind in (
        SideKind("product_tree", "Product tree", "One tree; every split is a geodesic hyperplane of one component."),
        SideKind(
            "product_forest",
            "Product forest",
            f"{FOREST_TREES} product trees on bootstrap samples, their votes averaged.",
        ),
        SideKind(
            "klein",
            "Klein wrapper",
            "scikit-learn's tree on Klein coordinates, thresholds moved to the maximum-margin geodesic.",
            kinds="HE",
        ),
        SideKind(
            "ambient",
            "Ambient tree",
            "scikit-learn's tree on the raw ambient coordinates: straight cuts that ignore the geometry.",
        ),
        SideKind("tangent", "Tangent tree", "scikit-learn's tree after the logarithmic map at the origin."),
    )
}


def kinds_for(signature) -> list[str]:
    """Keys of the kinds that accept every component of ``signature``."""
    return [k for k, kind in KINDS.items() if kind.fits(signature)]


def side_recipe(kind: str, max_depth: int) -> dict:
    """A checked side recipe (ValueError on an unknown kind or a depth outside :data:`DEPTHS`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown model {kind!r}; choose one of {', '.join(KINDS)}")
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or not DEPTHS[0] <= max_depth <= DEPTHS[1]:
        raise ValueError(f"the depth must be a whole number from {DEPTHS[0]} to {DEPTHS[1]}, not {max_depth!r}")
    return {"kind": kind, "max_depth": max_depth}


def side_recipe_text(kind: str, max_depth: int) -> str:
    """The recipe as canonical JSON text: the cache key beside the dataset's hash."""
    return json.dumps(side_recipe(kind, max_depth), sort_keys=True, separators=(",", ":"))


def _library_tree(task: str, max_depth: int):
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    cls = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    # random_state fixed: scikit-learn breaks ties between equal splits at random.
    return cls(max_depth=max_depth, random_state=_SEED)


def _wrapped(kind: str, task: str, signature: str, max_depth: int):
    classification = task == "classification"
    if kind == "klein":
        from curvedtrees.klein import KleinTreeClassifier, KleinTreeRegressor

        cls = KleinTreeClassifier if classification else KleinTreeRegressor
    else:
        from curvedtrees import baselines

        name = ("Ambient" if kind == "ambient" else "Tangent") + ("Classifier" if classification else "Regressor")
        cls = getattr(baselines, name)
    return cls(estimator=_library_tree(task, max_depth), signature=signature)


def _product_recipe(kind: str, max_depth: int) -> dict:
    """The Train page's recipe of a product side (the same split and seed as the other sides)."""
    params = {"max_depth": max_depth}
    if kind == "product_forest":
        params["n_estimators"] = FOREST_TREES
    return {"family": kind, "params": params, "test_size": _TEST_SIZE, "seed": _SEED}


def _checked(data, recipe: dict) -> dict:
    recipe = side_recipe(recipe.get("kind"), recipe.get("max_depth"))
    kind = KINDS[recipe["kind"]]
    if not kind.fits(data.signature):
        raise ValueError(f"the {kind.title} accepts only {', '.join(kind.kinds)} components, not {data.signature}")
    return recipe


def side_cost(data, recipe: dict):
    """What :func:`train_side` would cost on ``data``: the fit and the scoring of every row.

    Returns
    -------
    curvedtrees.costs.Cost

    Raises
    ------
    ValueError
        A malformed recipe, or a kind that does not accept the data's components.
    """
    recipe = _checked(data, recipe)
    kind, depth = recipe["kind"], recipe["max_depth"]
    if kind in ("product_tree", "product_forest"):
        return recipe_cost(data, _product_recipe(kind, depth))
    n_train = len(split_rows(data, _TEST_SIZE, _SEED)[0])
    return model_cost(_wrapped(kind, data.task, str(data.signature), depth), data, n_train)


def train_side(data, recipe: dict) -> ModelRecord:
    """Train one side's model on ``data`` (the same split and scores for every kind).

    Parameters
    ----------
    data : ui.data.DataRecord
    recipe : dict
        From :func:`side_recipe` (checked again here: it may come from a page's state).

    Returns
    -------
    ModelRecord
        ``recipe`` holds the side recipe; only the product kinds' can rebuild through the Train page's recipes.
    """
    recipe = _checked(data, recipe)
    kind, depth = recipe["kind"], recipe["max_depth"]
    if kind in ("product_tree", "product_forest"):
        return train_from_recipe(data, _product_recipe(kind, depth))
    estimator = _wrapped(kind, data.task, str(data.signature), depth)
    train_idx, test_idx = split_rows(data, _TEST_SIZE, _SEED)
    estimator, seconds = fit_model(estimator, data.X[train_idx], data.y[train_idx])
    metrics = evaluate(estimator, data, train_idx, test_idx)
    return ModelRecord(
        estimator,
        {"family": kind, "params": {"max_depth": depth}, "test_size": _TEST_SIZE, "seed": _SEED},
        data.hash,
        train_idx,
        test_idx,
        metrics,
        seconds,
    )


def describe_side(record: ModelRecord, recipe: dict) -> str:
    """One line under a side's picture: what it is, its test score, its size and its fit time."""
    kind = KINDS[recipe["kind"]]
    metrics = record.metrics
    if metrics.get("accuracy") is not None:
        score = f"test accuracy {metrics['accuracy']:.3f}"
    elif metrics.get("r2") is not None:
        score = f"test R² {metrics['r2']:.3f}"
    else:
        score = "not scored"
    est = record.estimator
    inner = getattr(est, "estimator_", None)
    shape = ""
    if hasattr(est, "get_n_leaves"):
        shape = f", {est.get_n_leaves()} leaves"
    elif inner is not None and hasattr(inner, "get_n_leaves"):
        shape = f", {inner.get_n_leaves()} leaves"
    elif isinstance(getattr(est, "estimators_", None), list):
        shape = f", {len(est.estimators_)} trees"
    return f"**{kind.title}**, depth at most {recipe['max_depth']}{shape} · {score} · fit {record.fit_seconds:.2f} s"
