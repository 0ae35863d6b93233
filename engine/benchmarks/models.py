"""The models of the paper's benchmarks, as :class:`ModelSpec` records.

Hyperparameters are the paper's (Appendix E.1): every tree and forest uses
``max_depth=5, min_samples_split=2, min_samples_leaf=1,
min_impurity_decrease=0``; forests add ``n_estimators=12, max_features="sqrt",
bootstrap=True, max_samples=None``; k-NN uses scikit-learn's defaults (5
neighbours) on the product geodesic distance; product trees consider every pair
of a component's coordinates (``pairs="all"``, the paper's ``d_choose_2``);
the perceptron weighs components equally.

Product gradient boosting (not in the paper) keeps scikit-learn's
HistGradientBoosting defaults (learning rate 0.1, 100 iterations, 31 leaves, 20
rows per leaf, 255 bins, early stopping off below 10,000 rows) and, like the
product trees, every pair of a component's coordinates. Its baselines are
scikit-learn's HistGradientBoosting on ambient coordinates and the same inside
the Klein wrapper (H and E components only), with the same defaults. These three
form the ``"boosting"`` family: they are tested among themselves and against the
product random forest, never inside the paper's tree and forest sets, so the
paper's models keep the paper's comparisons. A tree-parameter override reaches
them only through the parameters boosting shares with the trees (``max_depth``,
``min_samples_leaf``).

Factories import their modules when called, so this registry lists every model
even before :mod:`curvedtrees.trees` or :mod:`curvedtrees.baselines` can be imported; the
runner reports a missing one before starting.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from .specs import ModelSpec

__all__ = [
    "BOOSTING_MODELS",
    "BOOSTING_SHARED_PARAMS",
    "FOREST_PARAMS",
    "MODELS",
    "PAPER_MODELS",
    "PRESET_MODELS",
    "RADIAL_MODELS",
    "SKLEARN_MODELS",
    "TREE_PARAMS",
    "get_models",
    "with_tree_params",
]

#: Appendix E.1, shared by every tree and forest.
TREE_PARAMS = {"max_depth": 5, "min_samples_split": 2, "min_samples_leaf": 1, "min_impurity_decrease": 0.0}
#: Appendix E.1, forests only. The paper lists max_features="sqrt" for all forests
#: (regression included), so it is set explicitly rather than left to each library's default.
FOREST_PARAMS = {"n_estimators": 12, "max_features": "sqrt", "bootstrap": True, "max_samples": None}


def _is_classification(task: str) -> bool:
    return task in ("classification", "link_prediction")


def _params(forest, params):
    """The paper's parameters for a tree or forest, with ``params`` overriding them."""
    base = {**TREE_PARAMS, **(FOREST_PARAMS if forest else {})}
    return {**base, **{k: v for k, v in (params or {}).items() if forest or k not in FOREST_PARAMS}}


def _sklearn_tree(task, random_state, forest, params=None):
    if forest:
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

        cls = RandomForestClassifier if _is_classification(task) else RandomForestRegressor
        # n_jobs=1: the runner parallelises over trials; nested pools would oversubscribe the cores.
        return cls(**_params(True, params), n_jobs=1, random_state=random_state)
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    cls = DecisionTreeClassifier if _is_classification(task) else DecisionTreeRegressor
    return cls(**_params(False, params), random_state=random_state)


def ambient(task, signature, random_state, forest=False, params=None):
    """A scikit-learn tree or forest on the raw ambient coordinates (the paper's "Euclidean" models)."""
    return _sklearn_tree(task, random_state, forest, params)


def ambient_knn(task, signature, random_state):
    """scikit-learn k-NN (5 neighbours) with the Euclidean distance of the ambient coordinates."""
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

    return (KNeighborsClassifier if _is_classification(task) else KNeighborsRegressor)()


def tangent(task, signature, random_state, forest=False, params=None):
    """A scikit-learn tree or forest on the log map at the product origin."""
    from ..baselines import TangentClassifier, TangentRegressor

    cls = TangentClassifier if _is_classification(task) else TangentRegressor
    return cls(estimator=_sklearn_tree(task, random_state, forest, params), signature=str(signature))


def geodesic_knn(task, signature, random_state):
    """k-NN (scikit-learn's default 5 neighbours) on the product geodesic distance."""
    from ..baselines import GeodesicKNNClassifier, GeodesicKNNRegressor

    cls = GeodesicKNNClassifier if _is_classification(task) else GeodesicKNNRegressor
    return cls(n_neighbors=5, signature=str(signature))


def perceptron(task, signature, random_state):
    """The product-space-form perceptron (Tabaghi et al. 2021), components weighted equally."""
    from ..baselines import ProductPerceptronClassifier

    return ProductPerceptronClassifier(signature=str(signature), random_state=random_state)


def product(task, signature, random_state, forest=False, pairs="all", splits="geodesic", params=None):
    """A product-space decision tree or random forest (:mod:`curvedtrees.trees`)."""
    from .. import trees

    classify = _is_classification(task)
    shared = {"signature": str(signature), "pairs": pairs, "splits": splits, "random_state": random_state}
    if forest:
        cls = trees.ProductRandomForestClassifier if classify else trees.ProductRandomForestRegressor
        return cls(**shared, **_params(True, params), n_jobs=1)
    cls = trees.ProductDecisionTreeClassifier if classify else trees.ProductDecisionTreeRegressor
    return cls(**shared, **_params(False, params))


def klein(task, signature, random_state, forest=False, params=None):
    """A scikit-learn tree or forest on Klein coordinates with max-margin thresholds (H and E only)."""
    from ..klein import KleinTreeClassifier, KleinTreeRegressor

    cls = KleinTreeClassifier if _is_classification(task) else KleinTreeRegressor
    return cls(estimator=_sklearn_tree(task, random_state, forest, params), signature=str(signature))


#: Tree parameters that boosting shares with the paper's trees (the others, e.g.
#: ``min_samples_split`` or ``n_estimators``, have no counterpart in it).
BOOSTING_SHARED_PARAMS = ("max_depth", "min_samples_leaf")


def boosting(task, signature, random_state, pairs="all", splits="geodesic", params=None):
    """Product gradient boosting (:mod:`curvedtrees.boosting`) with scikit-learn's HistGradientBoosting defaults.

    ``params`` (a preset's or the command line's tree overrides) sets only
    :data:`BOOSTING_SHARED_PARAMS`; the paper's tree defaults (depth 5, one row per
    leaf) are not applied, since they describe single trees, not boosted ones.
    """
    from .. import boosting as gb

    cls = gb.ProductGradientBoostingClassifier if _is_classification(task) else gb.ProductGradientBoostingRegressor
    return cls(
        signature=str(signature), pairs=pairs, splits=splits, **_boosting_params(params), random_state=random_state
    )


def _boosting_params(params):
    """The overrides in ``params`` that boosting shares with the trees (:data:`BOOSTING_SHARED_PARAMS`)."""
    return {k: v for k, v in (params or {}).items() if k in BOOSTING_SHARED_PARAMS}


def _hist_gradient_boosting(task, random_state, params):
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    cls = HistGradientBoostingClassifier if _is_classification(task) else HistGradientBoostingRegressor
    # scikit-learn's defaults, as product_gb keeps them; random_state only matters when
    # early stopping draws its validation rows (above 10,000 rows).
    return cls(**_boosting_params(params), random_state=random_state)


def ambient_hgb(task, signature, random_state, params=None):
    """scikit-learn's HistGradientBoosting on the raw ambient coordinates, at its defaults."""
    return _hist_gradient_boosting(task, random_state, params)


def klein_hgb(task, signature, random_state, params=None):
    """HistGradientBoosting on Klein coordinates with max-margin thresholds (H and E components only)."""
    from ..klein import KleinTreeClassifier, KleinTreeRegressor

    cls = KleinTreeClassifier if _is_classification(task) else KleinTreeRegressor
    return cls(estimator=_hist_gradient_boosting(task, random_state, params), signature=str(signature))


_CLASSIFY = ("classification", "link_prediction")
# The radial variants (issue 28): the same models with splits="geodesic+radial".
_RADIAL = "geodesic+radial"

#: Every model the benchmarks know, by short id; ``.name`` is the column title.
MODELS: dict[str, ModelSpec] = {
    spec_id: spec
    for spec_id, spec in [
        ("perceptron", ModelSpec("Perceptron", perceptron, "perceptron", None, _CLASSIFY,
                                 "product-space-form perceptron (Tabaghi et al. 2021)")),
        ("knn", ModelSpec("k-NN", geodesic_knn, "knn", None,
                          description="k-nearest neighbours (k=5) on the product geodesic distance")),
        ("ambient_dt", ModelSpec("Ambient DT", partial(ambient, forest=False), "ambient", "tree",
                                 description="scikit-learn decision tree on ambient coordinates")),
        ("ambient_rf", ModelSpec("Ambient RF", partial(ambient, forest=True), "ambient", "forest",
                                 description="scikit-learn random forest on ambient coordinates")),
        ("tangent_dt", ModelSpec("Tangent DT", partial(tangent, forest=False), "tangent", "tree",
                                 description="scikit-learn decision tree after the log map at the origin")),
        ("tangent_rf", ModelSpec("Tangent RF", partial(tangent, forest=True), "tangent", "forest",
                                 description="scikit-learn random forest after the log map at the origin")),
        ("product_dt", ModelSpec("Product DT", partial(product, forest=False), "product", "tree",
                                 description="product-space decision tree, all coordinate pairs")),
        ("product_rf", ModelSpec("Product RF", partial(product, forest=True), "product", "forest",
                                 description="product-space random forest, all coordinate pairs")),
        ("ambient_knn", ModelSpec("Ambient k-NN", ambient_knn, "ambient", None,
                                  description="k-nearest neighbours (k=5) on Euclidean ambient distances")),
        ("klein_dt", ModelSpec("Klein DT", partial(klein, forest=False), "klein", "tree", kinds=("H", "E"),
                               description="scikit-learn tree on Klein coordinates, max-margin thresholds (H, E)")),
        ("klein_rf", ModelSpec("Klein RF", partial(klein, forest=True), "klein", "forest", kinds=("H", "E"),
                               description="scikit-learn forest on Klein coordinates, max-margin thresholds (H, E)")),
        ("product_gb", ModelSpec("Product GB", boosting, "boosting", "boosting",
                                 description="product-space gradient boosting, all coordinate pairs (100 iterations)")),
        ("ambient_hgb", ModelSpec("Ambient HGB", ambient_hgb, "ambient", "boosting",
                                  description="scikit-learn HistGradientBoosting on ambient coordinates "
                                              "(100 iterations)")),
        ("klein_hgb", ModelSpec("Klein HGB", klein_hgb, "klein", "boosting", kinds=("H", "E"),
                                description="HistGradientBoosting on Klein coordinates, max-margin thresholds "
                                            "(H, E; 100 iterations)")),
        ("product_dt_radial", ModelSpec("Product DT+R", partial(product, forest=False, splits=_RADIAL), "product",
                                        "tree", description="product decision tree, all pairs, radial splits too")),
        ("product_rf_radial", ModelSpec("Product RF+R", partial(product, forest=True, splits=_RADIAL), "product",
                                        "forest", description="product random forest, all pairs, radial splits too")),
        ("product_gb_radial", ModelSpec("Product GB+R", partial(boosting, splits=_RADIAL), "boosting", "boosting",
                                        description="product gradient boosting, all pairs, radial splits too")),
    ]
}  # fmt: skip

#: The eight models of the paper's Table 5, in its column order.
PAPER_MODELS = [
    "perceptron",
    "knn",
    "ambient_dt",
    "ambient_rf",
    "tangent_dt",
    "tangent_rf",
    "product_dt",
    "product_rf",
]

#: Product gradient boosting and its two baselines (the ``"boosting"`` family).
BOOSTING_MODELS = ["product_gb", "ambient_hgb", "klein_hgb"]

#: The paper's eight models and the boosting family: what the presets run.
PRESET_MODELS = [*PAPER_MODELS, *BOOSTING_MODELS]

#: The product models with radial splits beside the paper's geodesic ones (``splits="geodesic+radial"``),
#: run by name (``--models product_rf,product_rf_radial``); not in the presets, whose stored results
#: and comparison sets are the paper's.
RADIAL_MODELS = ["product_dt_radial", "product_rf_radial", "product_gb_radial"]

#: Models that need nothing but scikit-learn (usable before the rest of the engine exists).
SKLEARN_MODELS = ["ambient_dt", "ambient_rf", "ambient_knn"]


def with_tree_params(spec: ModelSpec, params: dict) -> ModelSpec:
    """``spec`` with tree/forest hyperparameters overridden (k-NN and the perceptron are returned unchanged).

    Parameters
    ----------
    spec : ModelSpec
    params : dict
        For example ``{"max_depth": 3}``; forest-only keys (``n_estimators``...)
        apply to forests only.
    """
    if spec.family not in ("tree", "forest", "boosting") or not params:
        return spec
    return replace(spec, factory=partial(spec.factory, params=dict(params)))


def get_models(names=None, tree_params: dict | None = None) -> list[ModelSpec]:
    """Model specs by short id (or display name); None gives the paper's eight models.

    Parameters
    ----------
    names : list of str, str (comma-separated) or None
    tree_params : dict, optional
        Hyperparameters overriding the paper's for every tree and forest (see
        :func:`with_tree_params`).

    Raises
    ------
    ValueError
        For an unknown name, listing the known ones.
    """
    if names is None:
        names = PAPER_MODELS
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    by_name = {spec.name.lower(): spec for spec in MODELS.values()}
    specs = []
    for name in names:
        if isinstance(name, ModelSpec):
            specs.append(name)
            continue
        spec = MODELS.get(name) or by_name.get(str(name).lower())
        if spec is None:
            raise ValueError(f"unknown model {name!r}: expected one of {', '.join(MODELS)}")
        specs.append(spec)
    return [with_tree_params(spec, tree_params) for spec in specs] if tree_params else specs
