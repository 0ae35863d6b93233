"""Model families, the train/test split, fitting with progress, and metrics.

Pure module (no Streamlit). A *model recipe* ``{"family": key, "params": {...},
"test_size": 0.25, "seed": 0}`` says how to rebuild a model from a dataset; it is
JSON-able so the URL can carry it.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from curvedtrees.datasets import ParamInfo

from ui import warmup

__all__ = [
    "FAMILIES",
    "ModelFamily",
    "ModelRecord",
    "adopt_model",
    "evaluate",
    "families_for",
    "fit_and_score",
    "fit_model",
    "model_cost",
    "normalise_recipe",
    "recipe_cost",
    "split_rows",
    "train_from_recipe",
]


@dataclass(frozen=True)
class ModelFamily:
    """A kind of model the Train page offers."""

    key: str
    title: str
    blurb: str
    module: str
    classifier: str | None
    regressor: str | None
    params: tuple[ParamInfo, ...] = ()
    seeded: bool = True  # takes random_state
    forest: bool = False
    tree: bool = False
    kinds: str = "HSE"  # component kinds the model accepts

    def fits(self, signature) -> bool:
        """Whether every component of ``signature`` is of a kind this model accepts."""
        from curvedtrees.manifolds import Signature

        return all(c.kind in self.kinds for c in Signature.parse(signature).components)

    def available(self) -> bool:
        try:
            importlib.import_module(self.module)
        except ImportError:
            return False
        return True

    def supports(self, task: str) -> bool:
        return (self.classifier if task == "classification" else self.regressor) is not None

    def defaults(self, task: str) -> dict:
        return {p.name: _default_for(p, task) for p in self.params}

    def build(self, task: str, signature: str, params: dict, seed: int):
        """An unfitted estimator; unknown or bad parameters raise ValueError."""
        name = self.classifier if task == "classification" else self.regressor
        if name is None:
            raise ValueError(f"{self.title} does not do {task}")
        cls = getattr(importlib.import_module(self.module), name)
        specs = {p.name: p for p in self.params}
        unknown = sorted(set(params) - set(specs))
        if unknown:
            raise ValueError(f"{self.title} has no parameter {unknown[0]!r}")
        kwargs = {}
        for key, spec in specs.items():
            value = params.get(key, _default_for(spec, task))
            if key == "criterion":
                value = _criterion_for(value, task)
            kwargs[key] = spec.coerce(value) if key != "criterion" else value
        if self.seeded:
            kwargs["random_state"] = int(seed)
        return cls(signature=str(signature), **kwargs)


def _criterion_for(value, task):
    if task == "regression":
        return "squared_error"
    return value if value in ("gini", "entropy") else "gini"


def _default_for(spec: ParamInfo, task: str):
    if spec.name == "criterion":
        return "gini" if task == "classification" else "squared_error"
    return spec.default


_TREE_PARAMS = (
    ParamInfo(
        "max_depth",
        "optional_int",
        6,
        "Deepest level a split may sit at. 0 = grow until leaves are pure (or too small to split).",
        0,
        40,
        step=1,
        label="max_depth (0 = no limit)",
    ),
    ParamInfo(
        "pairs",
        "choice",
        "base",
        "Which coordinate planes a split may use. 'base': x0 with each other "
        "coordinate of a component (the papers' splits; for H, a Klein-coordinate threshold). 'all': every "
        "pair of coordinates inside a component (more, rotated splits; slower).",
        choices=("base", "all"),
    ),
    ParamInfo(
        "splits",
        "choice",
        "geodesic",
        "Which kinds of split a node may use. 'geodesic': the papers' lines through the origin of a "
        "coordinate plane (both sides geodesically convex). 'geodesic+radial' adds a threshold on the "
        "distance from the origin of each H component (a ball about the origin: a circle about the "
        "Poincaré disk's centre) and on the angle from each axis pole of each S component (a cap).",
        choices=("geodesic", "geodesic+radial"),
    ),
    ParamInfo(
        "criterion",
        "choice",
        "gini",
        "Impurity to minimise: Gini or entropy for classification; regression always uses squared error.",
        choices=("gini", "entropy", "squared_error"),
    ),
    ParamInfo("min_samples_split", "int", 2, "A node with fewer training rows is not split.", 2, 10_000, step=1),
    ParamInfo(
        "min_samples_leaf",
        "int",
        1,
        "Every leaf keeps at least this many training rows (smooths the regions).",
        1,
        10_000,
        step=1,
    ),
    ParamInfo(
        "min_impurity_decrease",
        "float",
        0.0,
        "A split must lower the weighted impurity by at least this much.",
        0.0,
        1.0,
        step=0.001,
    ),
)
_FOREST_PARAMS = (
    ParamInfo("n_estimators", "int", 50, "Number of trees; their votes (or means) are averaged.", 1, 500, step=1),
    *[p for p in _TREE_PARAMS if p.name != "max_depth"],
    ParamInfo(
        "max_depth",
        "optional_int",
        0,
        "Deepest level of each tree; 0 = no limit (usual for forests).",
        0,
        40,
        step=1,
        label="max_depth (0 = no limit)",
    ),
    ParamInfo(
        "max_features",
        "choice",
        "sqrt",
        "Split planes each node may try: a random subset of sqrt or log2 of them, or all.",
        choices=("sqrt", "log2", "all"),
        none_choice="all",
    ),
    ParamInfo("bootstrap", "bool", True, "Grow each tree on a bootstrap sample of the training rows."),
    ParamInfo(
        "max_samples",
        "optional_float",
        0.0,
        "Size of each bootstrap sample as a fraction of the training rows; 0 = as many as there are rows.",
        0.0,
        1.0,
        step=0.05,
        label="max_samples (0 = all)",
    ),
)

# scikit-learn's HistGradientBoosting vocabulary and defaults (the engine follows it). max_iter stops
# at 500 so that the largest interactive fit stays near half a minute: 8 classes on the app's 50,000
# upload rows, H2 x S2 x E2, pairs "all", cost 1.2 CPU-s per 20 iterations.
_BOOSTING_PARAMS = (
    ParamInfo(
        "learning_rate",
        "float",
        0.1,
        "Shrinks every tree's contribution: smaller values need more iterations but usually generalise better.",
        0.001,
        1.0,
        step=0.01,
    ),
    ParamInfo(
        "max_iter",
        "int",
        100,
        "Boosting iterations: trees added one after another, each fitted to what the "
        "trees before it got wrong (one tree per class for 3 or more classes).",
        1,
        500,
        step=10,
    ),
    ParamInfo(
        "max_leaf_nodes",
        "int",
        31,
        "Leaves of each tree; trees grow best split first until they have this many.",
        2,
        1024,
        step=1,
    ),
    ParamInfo(
        "max_depth",
        "optional_int",
        0,
        "Deepest level of each tree; 0 = no limit (max_leaf_nodes bounds the tree).",
        0,
        40,
        step=1,
        label="max_depth (0 = no limit)",
    ),
    ParamInfo("min_samples_leaf", "int", 20, "Every leaf keeps at least this many training rows.", 1, 10_000, step=1),
    ParamInfo(
        "l2_regularization",
        "float",
        0.0,
        "Added to each leaf's hessian sum: pulls leaf values towards 0.",
        0.0,
        1000.0,
        step=0.1,
    ),
    ParamInfo(
        "max_bins",
        "int",
        255,
        "Bins per split plane for the histograms; the stored boundaries are still "
        "exact maximum-margin geodesics between the nearest training rows.",
        2,
        255,
        step=1,
    ),
    ParamInfo(
        "early_stopping",
        "choice",
        "auto",
        "Stop when the score on 10% held-out training rows has not "
        "improved for 10 iterations. 'auto': on above 10,000 rows.",
        choices=("auto", True, False),
    ),
    *[p for p in _TREE_PARAMS if p.name in ("pairs", "splits")],
)

FAMILIES = {
    family.key: family
    for family in (
        ModelFamily(
            "product_tree",
            "Product decision tree",
            "One tree whose splits are geodesic hyperplanes of any component (the mixed-curvature paper).",
            "curvedtrees.trees",
            "ProductDecisionTreeClassifier",
            "ProductDecisionTreeRegressor",
            _TREE_PARAMS,
            tree=True,
        ),
        ModelFamily(
            "product_forest",
            "Product random forest",
            "Many product trees on bootstrap samples with random plane subsets, averaged.",
            "curvedtrees.trees",
            "ProductRandomForestClassifier",
            "ProductRandomForestRegressor",
            _FOREST_PARAMS,
            forest=True,
        ),
        ModelFamily(
            "product_boosting",
            "Product gradient boosting",
            "Many small product trees added one after another, each fitted to the gradient of the loss "
            "(scikit-learn's HistGradientBoosting with geodesic splits).",
            "curvedtrees.boosting",
            "ProductGradientBoostingClassifier",
            "ProductGradientBoostingRegressor",
            _BOOSTING_PARAMS,
        ),
        ModelFamily(
            "knn",
            "Geodesic k nearest neighbours (baseline)",
            "Vote (or mean) of the k nearest training points under the product geodesic distance.",
            "curvedtrees.baselines",
            "GeodesicKNNClassifier",
            "GeodesicKNNRegressor",
            (
                ParamInfo("n_neighbors", "int", 5, "How many neighbours vote.", 1, 200, step=1),
                ParamInfo(
                    "weights",
                    "choice",
                    "uniform",
                    "'distance' weighs near neighbours more.",
                    choices=("uniform", "distance"),
                ),
            ),
            seeded=False,
        ),
        ModelFamily(
            "ambient",
            "Ambient-coordinates tree (baseline)",
            "scikit-learn's decision tree on the raw ambient coordinates, ignoring the geometry.",
            "curvedtrees.baselines",
            "AmbientClassifier",
            "AmbientRegressor",
            (),
            seeded=False,
        ),
        ModelFamily(
            "tangent",
            "Tangent-plane tree (baseline)",
            "scikit-learn's decision tree after the logarithmic map at the origin.",
            "curvedtrees.baselines",
            "TangentClassifier",
            "TangentRegressor",
            (),
            seeded=False,
        ),
        ModelFamily(
            "perceptron",
            "Product perceptron (baseline)",
            "The product-space-form kernel perceptron of Tabaghi et al. (2021), one-vs-rest.",
            "curvedtrees.baselines",
            "ProductPerceptronClassifier",
            None,
            (ParamInfo("max_iter", "int", 50, "Passes over the training rows.", 1, 1000, step=1),),
        ),
        ModelFamily(
            "svm",
            "Product-kernel SVM (baseline)",
            "scikit-learn's SVM on a positive semi-definite product kernel.",
            "curvedtrees.baselines",
            "ProductSVMClassifier",
            "ProductSVMRegressor",
            (ParamInfo("C", "float", 1.0, "Inverse regularisation strength.", 1e-4, 1e4, step=0.1),),
            seeded=False,
        ),
    )
}


def _register_klein_families():
    """The Klein-model wrapper (Fast-HyperDT), when curvedtrees.klein provides it (optional)."""
    if "klein" in FAMILIES:
        return
    try:
        klein = importlib.import_module("curvedtrees.klein")
    except ImportError:
        return
    if not hasattr(klein, "KleinTreeClassifier"):
        return
    names = [
        n
        for n in getattr(klein, "ESTIMATOR_NAMES", ("decision_tree",))
        if n not in ("xgboost", "lightgbm") or importlib.util.find_spec(n) is not None
    ]
    FAMILIES["klein"] = ModelFamily(
        "klein",
        "Klein-model wrapper (Fast-HyperDT)",
        "A stock Euclidean tree library on Klein coordinates (x_j / x_0 for H), thresholds moved to geodesic "
        "maximum-margin boundaries. H and E components only.",
        "curvedtrees.klein",
        "KleinTreeClassifier",
        "KleinTreeRegressor",
        (
            ParamInfo(
                "estimator",
                "choice",
                "decision_tree",
                "Which library model to wrap (library defaults, random_state=0).",
                choices=tuple(names),
            ),
            ParamInfo(
                "max_margin",
                "bool",
                True,
                "Move thresholds to the geodesic maximum-margin boundary; off keeps "
                "the library's thresholds (the ablation).",
            ),
        ),
        seeded=False,
        kinds="HE",
    )


def families_for(task: str, signature=None) -> list[ModelFamily]:
    """Families that are installed, can do ``task`` and (if given) accept ``signature``."""
    _register_klein_families()
    return [
        f for f in FAMILIES.values() if f.supports(task) and f.available() and (signature is None or f.fits(signature))
    ]


# -------------------------------------------------------------- training
@dataclass
class ModelRecord:
    """A fitted model and how it came to be."""

    estimator: Any
    recipe: dict
    data_hash: str
    train_idx: np.ndarray
    test_idx: np.ndarray
    metrics: dict
    fit_seconds: float
    model_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    source: str = "trained"  # or "uploaded"
    # Content address of (dataset recipe, model recipe) when both are public (ui.cache): the
    # model is then shared by every session that asks for it, and so are its pictures.
    share_key: str | None = None

    @property
    def family(self):
        return FAMILIES.get(self.recipe.get("family"))

    @property
    def is_tree(self) -> bool:
        return hasattr(self.estimator, "tree_")

    @property
    def is_forest(self) -> bool:
        return hasattr(self.estimator, "estimators_") and all(
            hasattr(t, "tree_") for t in getattr(self.estimator, "estimators_", [])[:1]
        )

    @property
    def title(self) -> str:
        family = self.family
        return family.title if family else type(self.estimator).__name__


def split_rows(data, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Train/test row indices (respecting a dataset's groups or predefined test rows)."""
    test_size = float(test_size)
    if not 0.05 <= test_size <= 0.9:
        raise ValueError(f"test share must be between 0.05 and 0.9, got {test_size}")
    return data.dataset.split_indices(test_size=test_size, random_state=int(seed))


def fit_model(
    estimator, X: np.ndarray, y: np.ndarray, progress: Callable[[int, int], None] | None = None, chunks: int = 10
):
    """Fit, reporting progress tree by tree for the product forests.

    Forests grow in ``chunks`` steps through ``warm_start`` (the engine draws the
    same per-tree seeds whether a forest grows in one call or in steps, so the
    result is identical to one fit).

    The fit's estimated cost is held to the work budgets first
    (:class:`curvedtrees.costs.BudgetExceeded`). The kernels the fit needs are compiled
    first when the server's warm-up has not finished (:func:`ui.warmup.wait_for`, which
    says so), and only the fit is timed.

    Returns
    -------
    estimator, seconds
        ``seconds``: the fit's own time, without any wait for compilation.
    """
    _check_fit_budget(estimator, X, y)
    warmup.wait_for(warmup.kernels_for(estimator))
    start = time.perf_counter()
    params = estimator.get_params(deep=False)
    if "warm_start" in params and "n_estimators" in params and progress is not None:
        total = int(params["n_estimators"])
        steps = sorted({max(1, round(total * (k + 1) / chunks)) for k in range(chunks)})
        estimator.set_params(warm_start=True)
        for n in steps:
            estimator.set_params(n_estimators=n)
            estimator.fit(X, y)
            progress(n, total)
        estimator.set_params(warm_start=False)
    else:
        estimator.fit(X, y)
        if progress is not None:
            progress(1, 1)
    return estimator, time.perf_counter() - start


def _check_fit_budget(estimator, X, y) -> None:
    """Hold a fit to the work budgets before it starts (:class:`curvedtrees.costs.BudgetExceeded` if over)."""
    from curvedtrees.costs import estimate_cost

    signature = estimator.get_params(deep=False).get("signature") or f"E{np.shape(X)[1]}"
    classes = len(np.unique(y)) if hasattr(estimator, "predict_proba") or hasattr(estimator, "classes_") else 1
    estimate_cost(estimator, len(X), signature, n_classes=max(1, classes)).check()


def evaluate(estimator, data, train_idx: np.ndarray, test_idx: np.ndarray) -> dict:
    """Scores on the test rows (and accuracy or R2 on the training rows).

    Returns
    -------
    dict
        Classification: ``accuracy``, ``f1_micro``, ``f1_macro``, ``train_accuracy``,
        ``confusion`` (list of lists, rows true, columns predicted, in class
        order). Regression: ``rmse``, ``r2``, ``train_r2``.
    """
    from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, mean_squared_error, r2_score

    X, y = data.X, data.y
    out: dict = {"n_train": len(train_idx), "n_test": len(test_idx)}
    if len(test_idx) == 0:
        return out
    pred = estimator.predict(X[test_idx])
    if data.task == "classification":
        classes = np.unique(y)
        out["accuracy"] = float(accuracy_score(y[test_idx], pred))
        out["f1_micro"] = float(f1_score(y[test_idx], pred, average="micro"))
        out["f1_macro"] = float(f1_score(y[test_idx], pred, average="macro", labels=classes, zero_division=0))
        if len(train_idx):
            out["train_accuracy"] = float(accuracy_score(y[train_idx], estimator.predict(X[train_idx])))
        out["confusion"] = confusion_matrix(y[test_idx], pred, labels=classes).tolist()
    else:
        out["rmse"] = float(np.sqrt(mean_squared_error(y[test_idx], pred)))
        out["r2"] = float(r2_score(y[test_idx], pred)) if len(test_idx) > 1 else float("nan")
        if len(train_idx) > 1:
            out["train_r2"] = float(r2_score(y[train_idx], estimator.predict(X[train_idx])))
    return out


def normalise_recipe(recipe: dict, task: str, signature=None) -> dict:
    """Check a model recipe (it may come from a URL) and fill in defaults."""
    if not isinstance(recipe, dict):
        raise ValueError("a model recipe must be a mapping")
    families_for(task)  # registers optional families
    family = FAMILIES.get(recipe.get("family"))
    if family is None:
        raise ValueError(f"unknown model family {recipe.get('family')!r}")
    if not family.supports(task):
        raise ValueError(f"{family.title} does not do {task}")
    if signature is not None and not family.fits(signature):
        raise ValueError(f"{family.title} accepts only {', '.join(family.kinds)} components, not {signature}")
    given = recipe.get("params") or {}
    if not isinstance(given, dict):
        raise ValueError("a model recipe's params must be a mapping")
    params = family.defaults(task) | dict(given)
    family.build(task, "E1", params, 0)  # checks every parameter (names, types, bounds) before any work
    test_size = _TEST_SIZE.coerce(recipe.get("test_size", 0.25), "the test share")
    seed = _SEED.coerce(recipe.get("seed", 0), "the seed")
    return {"family": family.key, "params": params, "test_size": test_size, "seed": seed}


# What a recipe (possibly from a link) may ask for besides the model's own parameters.
_TEST_SIZE = ParamInfo("test_size", "float", 0.25, "Share of rows held out.", 0.05, 0.9)
_SEED = ParamInfo("seed", "int", 0, "Seed of the split and the model.", 0, 2**31 - 1)


# The tree trained when a dataset is adopted with "Train a tree right away" and by the
# Inspector's button: deep enough to show structure, leaves large enough to stay readable.
DEFAULT_TREE = {
    "family": "product_tree",
    "params": {"max_depth": 6, "min_samples_leaf": 3},
    "test_size": 0.25,
    "seed": 0,
}


def model_cost(estimator, data, n_train: int):
    """What fitting ``estimator`` on ``n_train`` rows of ``data`` and scoring it on every row costs.

    Returns
    -------
    curvedtrees.costs.Cost
        With the CPU of :func:`evaluate` (a prediction of every row) included.
    """
    from curvedtrees.costs import estimate_cost

    n_classes = len(np.unique(data.y)) if data.task == "classification" else 1
    return estimate_cost(estimator, n_train, data.signature, n_classes=n_classes, n_predict=len(data.X))


def recipe_cost(data, recipe: dict):
    """What :func:`train_from_recipe` would cost on ``data`` (the recipe is checked first).

    Returns
    -------
    curvedtrees.costs.Cost
    """
    recipe = normalise_recipe(recipe, data.task, data.signature)
    family = FAMILIES[recipe["family"]]
    estimator = family.build(data.task, str(data.signature), recipe["params"], recipe["seed"])
    mask = data.dataset.test_mask
    n_train = int((~mask).sum()) if mask is not None else len(data.X) - round(recipe["test_size"] * len(data.X))
    return model_cost(estimator, data, n_train)


def train_from_recipe(data, recipe: dict, progress=None) -> ModelRecord:
    """Split, build, fit and score a model described by ``recipe`` on ``data``.

    The recipe's estimated cost is held to the work budgets of :mod:`curvedtrees.limits`
    before anything is fitted (:class:`curvedtrees.costs.BudgetExceeded`, a ValueError
    naming the parameter to lower).
    """
    recipe = normalise_recipe(recipe, data.task, data.signature)
    recipe_cost(data, recipe).check()
    family = FAMILIES[recipe["family"]]
    estimator = family.build(data.task, str(data.signature), recipe["params"], recipe["seed"])
    train_idx, test_idx = split_rows(data, recipe["test_size"], recipe["seed"])
    estimator, seconds = fit_model(estimator, data.X[train_idx], data.y[train_idx], progress)
    metrics = evaluate(estimator, data, train_idx, test_idx)
    return ModelRecord(estimator, recipe, data.hash, np.asarray(train_idx), np.asarray(test_idx), metrics, seconds)


def fit_and_score(estimator, data, train_idx, test_idx, recipe: dict, progress=None) -> ModelRecord:
    """Fit an estimator built elsewhere on the given rows and score it (the worker pool's task for them).

    The estimate of :func:`model_cost` is held to the work budgets first, as in
    :func:`train_from_recipe`.
    """
    model_cost(estimator, data, len(train_idx)).check()
    estimator, seconds = fit_model(estimator, data.X[train_idx], data.y[train_idx], progress)
    metrics = evaluate(estimator, data, train_idx, test_idx)
    return ModelRecord(
        estimator, dict(recipe), data.hash, np.asarray(train_idx), np.asarray(test_idx), metrics, seconds
    )


def adopt_model(estimator, data) -> ModelRecord:
    """Wrap an uploaded model for the current dataset (checked to fit its signature)."""
    signature = getattr(estimator, "signature_", None) or getattr(estimator, "signature", None)
    if signature is None:
        raise ValueError("the model does not say which signature it was trained on")
    from curvedtrees.manifolds import Signature

    if Signature.parse(signature) != data.signature:
        raise ValueError(
            f"the model was trained on {Signature.parse(signature)} but the current dataset lives on "
            f"{data.signature}: load a matching dataset first"
        )
    if not hasattr(estimator, "n_features_in_") and not hasattr(estimator, "tree_"):
        raise ValueError("the model file holds an unfitted model: train it first")
    is_clf = hasattr(estimator, "classes_")
    if is_clf != (data.task == "classification"):
        raise ValueError(
            f"the model is a {'classifier' if is_clf else 'regressor'} but the dataset is a {data.task} task"
        )
    family = next(
        (f.key for f in FAMILIES.values() if type(estimator).__name__ in (f.classifier, f.regressor)), "uploaded"
    )
    rows = np.arange(len(data.X))
    metrics = evaluate(estimator, data, np.array([], dtype=np.int64), rows)
    return ModelRecord(
        estimator,
        {"family": family, "params": {}, "test_size": 0.0, "seed": 0},
        data.hash,
        np.array([], dtype=np.int64),
        rows,
        metrics,
        0.0,
        source="uploaded",
    )
