"""Klein-model wrappers: Euclidean tree libraries on hyperbolic x Euclidean data.

Public API
----------
KleinTreeClassifier, KleinTreeRegressor
    Meta-estimators (``estimator=`` a scikit-learn, XGBoost or LightGBM tree model)
    that fit on Klein features and move every threshold to its maximum-margin
    geodesic boundary.
klein_features
    The features themselves (``x_j / x_0`` for H, raw coordinates for E).
KleinCorrectionWarning
    The library did not record which rows trained each tree.
ESTIMATOR_NAMES, make_backend
    Library models by name (``"xgboost"``, ...).
to_json_dict, from_json_dict
    Whole JSON documents (the wrapped model's class and parameters included);
    ``curvedtrees.io.dumps`` / ``loads`` work too when ``estimator`` is None or a name.
warm_up
    Compile the correction's kernels ahead of the first fit.
"""

from ..utils import watch_compiles
from . import serialization as _serialization  # noqa: F401  (registers with curvedtrees.io)
from ._backends import KleinCorrectionWarning
from ._estimators import ESTIMATOR_NAMES, KleinTreeClassifier, KleinTreeRegressor, make_backend
from ._features import INPUT_MODELS, klein_features
from .serialization import LightGBMBoosterModel, from_json_dict, to_json_dict

__all__ = [
    "ESTIMATOR_NAMES",
    "INPUT_MODELS",
    "KleinCorrectionWarning",
    "KleinTreeClassifier",
    "KleinTreeRegressor",
    "LightGBMBoosterModel",
    "from_json_dict",
    "klein_features",
    "make_backend",
    "to_json_dict",
    "warm_up",
]


def warm_up() -> None:
    """Compile the threshold correction's kernels once (numba caches them on disk).

    The first Klein fit in a fresh checkout otherwise pays several seconds of
    compilation; ``make run`` calls this so the app's first Klein model trains at
    once. Runs each way of finding a node's rows (routing, sorted scans, the
    library's leaves) on a small model, with the argument types a real fit passes:
    scikit-learn's strided node arrays and the other libraries' contiguous ones.
    """
    import numpy as np
    from sklearn.tree import DecisionTreeClassifier

    from ..manifolds import Signature
    from ..sampling import make_classification
    from ..utils import quiet_compiles
    from . import _backends, _tuning
    from ._correct import KleinData, RouteHints, correct_tree_from_leaves, route_leaves
    from ._features import KleinLayout
    from ._rows import locality_order

    with quiet_compiles():
        signature = "H2 x E1"
        X, y = make_classification(signature, n_samples=200, random_state=0)
        KleinTreeClassifier(signature=signature).fit(X, y)  # routing, through the wrapper
        with _tuning.plain_strategy():
            KleinTreeClassifier(signature=signature).fit(X, y)  # the plain strategy
        layout = KleinLayout(Signature.parse(signature))
        features = klein_features(X, signature)
        HT = layout.hyperbolic_block(layout.to_hyperboloid(X))
        tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(features, y)
        FT = np.ascontiguousarray(features.T)
        data = KleinData(FT, HT, layout.feat_x0, layout.feat_radius, _backends.RULE_F32_LE)
        tuning = _tuning.kernel_tuning()
        floors = _backends.x0_floors(HT, layout.feat_x0, layout.feat_radius, tuning.floor_shift, tuning.floor_pays)
        hints = RouteHints(np.zeros(FT.shape[0]), floors)
        tables = _backends._SortedRows(features, HT, layout.feat_x0)
        leaf = tree.apply(features.astype(np.float32)).astype(np.int64)
        strided = _backends.backend_for(tree).jobs(features, None)[0]
        left, right, feature, threshold = (np.ascontiguousarray(a) for a in strided.nodes)
        contiguous = _backends._TreeJob(left, right, feature, threshold, strided.rows, node_weight=strided.node_weight)
        locality_order(features)  # the rows' renumbering for large models
        subtrees = _backends._ScanPolicy(_tuning.SUBTREE_COST_PRIOR, _tuning.SUBTREE_PAYS)
        for job in (strided, contiguous):
            _backends._route(job, data, hints, tuning, tables, subtrees)
            _backends._scan(job, float("inf"), tables, data, hints, tuning)
            correct_tree_from_leaves(job.nodes, leaf, job.rows, data, tuning)
            route_leaves(job.nodes, job.rows, data)


watch_compiles()  # a fit that compiles says so once, naming curvedtrees.warm_up
