"""What a piece of work will cost, estimated from its parameters before anything starts.

A forest of 500 trees grown on 20,000 points of ``S99`` with every split plane tried at
every node takes about eleven CPU-hours; a share link can ask for it in 200 characters.
This module turns the parameters of a request (rows, the signature and what each of its
coordinates costs, split planes, trees, depth, iterations, neighbours, classes, epochs,
restarts, nodes) into an estimate of its CPU time, its peak working memory and the
memory of what it leaves behind, *without running it*, and compares the estimate with a
:class:`Budget`. What exceeds the budget is refused by :meth:`Cost.check` with a message
that names the parameters to lower and how far.

The app (``ui``) checks every request from untrusted input this way before anything is
allocated, against the budgets of :mod:`curvedtrees.limits`; in a notebook the same
functions answer "how long will this take?" before a long fit::

    >>> from curvedtrees.costs import estimate_cost
    >>> from curvedtrees.trees import ProductRandomForestClassifier
    >>> forest = ProductRandomForestClassifier(500, pairs="all", max_features=None)
    >>> cost = estimate_cost(forest, n_samples=20_000, signature="S99")
    >>> cost.cpu_seconds > 3600  # hours of work
    True

How the estimates are made. Each family's cost is a sum of terms, each a product of the
parameters that drive it: a product tree sorts the rows of every node once per split
plane it tries, so its fit costs about ``planes tried x rows x levels`` plus a term per
row and level; a forest pays that per tree on its bootstrap rows; gradient boosting per
iteration, class and level on histograms of every plane; k-NN compares every query with
every training row in every coordinate; kernel methods fill kernel matrices; a graph
embedding compares every pair of nodes in every coordinate per epoch and restart. The
constants (seconds per unit of work, bytes per node) were measured on the project's
2-core machine by ``perf/calibrate_costs.py``, which prints each estimate beside a
measurement; the estimates land within a factor of about two of the measurements, and
the worker that runs the app's jobs stops any job that runs
:data:`curvedtrees.limits.JOB_CPU_GRACE` times over its budget, so an estimate that is
too low cannot become a runaway job. Families the module does not know cost nothing
here: callers decide whether to accept them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from . import limits
from .manifolds import Signature

__all__ = [
    "Budget",
    "BudgetExceeded",
    "Cost",
    "estimate_cost",
    "estimate_dataset_cost",
    "estimate_embedding_cost",
    "estimate_sampling_cost",
]

# ------------------------------------------------------------------ measured constants
# Seconds per unit of work and bytes per item, measured by perf/calibrate_costs.py on the
# project's 2-core machine (the numbers it printed are in BENCHMARKS.md, "Cost model").
_TREE_ROW_PLANE_LEVEL = 55e-9  # product tree: one row of one tried plane at one level (sort + sweep)
_TREE_ROW_LEVEL = 300e-9  # product tree: one row at one level, whatever the planes (partition, margin)
_TREE_VALUE = 10e-9  # one split-plane value of one row (computed once per fit)
_TREE_NODE_BYTES = 176  # a node's arrays (children, plane, normal, threshold, statistics, routing record)
_TREE_NODE_CLASS_BYTES = 8  # and its value per class
_TREE_PREDICT_ROW_LEVEL = 15e-9  # routing one row one level down one tree
_TREE_FIXED = 2e-3  # a fit's fixed cost (input checks, plane table)
_BOOST_ROW_PLANE_TREE = 115e-9  # boosting: one row of one plane for one tree (histograms, splits, margins)
_BOOST_ROW_TREE = 300e-9  # boosting: gradients and the partition, per row and tree
_BOOST_BIN_ROW_PLANE = 60e-9  # boosting: binning one row of one plane (once per fit)
_KNN_PAIR_COORDINATE = 6e-9  # k-NN: one query against one training row, one ambient coordinate
_KNN_PAIR_COMPONENT = 12e-9  # k-NN: per pair and component, the geodesic formula and the partial sort
_KERNEL_PAIR_COORDINATE = 3e-9  # kernel methods: one kernel entry, one ambient coordinate
_KERNEL_PAIR = 25e-9  # one kernel entry's transcendental part
_SVM_PAIR_ITERATION = 6e-9  # libsvm's solver, per kernel entry and pass
_PERCEPTRON_CHECK = 1.3e-9  # one epoch's check of one row for one class against one support vector
_SKLEARN_TREE_ROW_FEATURE_LEVEL = 70e-9  # scikit-learn's tree builder, per row, feature and level
_BOOSTER_ROW_FEATURE_TREE = 4e-9  # XGBoost, LightGBM, HistGradientBoosting: per row, feature and tree
_SAMPLE_DRAW = 10e-9  # the sampler: one normal draw of a cluster's covariance factor
_SAMPLE_FACTOR = 2e-9  # the sampler: one multiply-add of a row's cluster factor
_SAMPLE_ROW_COORDINATE = 150e-9  # the sampler: maps and transports, per row and coordinate
_EMBED_PAIR_COORDINATE = 16e-9  # graph embedding: one pair, one ambient coordinate, one epoch (with gradients)
_EMBED_PAIR = 190e-9  # graph embedding: per pair and epoch, the distance, the loss and its gradient
_EMBED_EPOCH = 3e-3  # graph embedding: per epoch, the optimiser's step and autograd's bookkeeping
_EMBED_FIXED = 3.0  # graph embedding: geoopt's import, shortest paths, the first epochs' allocations
_EMBED_PAIR_BYTES = 24  # graph embedding: bytes per pair and ambient coordinate held for the gradients
_VAE_IMAGE_EPOCH = 80e-6  # the digits VAE: one image, one epoch (the network is fixed)
_FLOAT = 8
_MiB = 2**20


# ----------------------------------------------------------------------- the records
@dataclass(frozen=True)
class Budget:
    """What one piece of work may cost.

    Parameters
    ----------
    cpu_seconds : float, default :data:`curvedtrees.limits.MAX_JOB_CPU_SECONDS`
        CPU time (all threads) of the work.
    memory_bytes : int, default :data:`curvedtrees.limits.MAX_JOB_MEMORY_BYTES`
        Peak working memory.
    result_bytes : int, default :data:`curvedtrees.limits.MAX_RESULT_BYTES`
        Memory of what the work returns (a fitted model, a dataset).
    predict_seconds : float, default :data:`curvedtrees.limits.MAX_PICTURE_CPU_SECONDS`
        CPU a fitted model may take to predict :attr:`predict_rows` rows (a picture).
    predict_rows : int, default 90,000
        The rows of that prediction: the largest region grid the app draws (300 x 300).
    """

    cpu_seconds: float = limits.MAX_JOB_CPU_SECONDS
    memory_bytes: int = limits.MAX_JOB_MEMORY_BYTES
    result_bytes: int = limits.MAX_RESULT_BYTES
    predict_seconds: float = limits.MAX_PICTURE_CPU_SECONDS
    predict_rows: int = 300 * 300


@dataclass(frozen=True)
class _Knob:
    """A parameter that can be lowered to make work cheaper, and how to rebuild the estimate with it."""

    name: str
    value: object
    low: int | None  # integer knobs: the smallest allowed value; None for choices
    rebuild: Callable[[object], Cost] = field(repr=False, compare=False)
    cheaper: object = None  # choice knobs: the cheaper choice to suggest


@dataclass(frozen=True)
class Cost:
    """An estimate of what a piece of work will take (see the module's notes on accuracy).

    Attributes
    ----------
    what : str
        The work in words ("fitting ProductRandomForestClassifier on 20,000 rows of S99").
    cpu_seconds : float
        CPU time on the project's reference machine (one core of a 2-core server).
    memory_bytes : int
        Peak working memory, the inputs not included.
    result_bytes : int
        Memory of the result once the work is done (the fitted model, the dataset).
    predict_seconds_per_row : float
        For a model: CPU to predict one row afterwards (0 when it does not apply).
    """

    what: str
    cpu_seconds: float
    memory_bytes: int
    result_bytes: int
    predict_seconds_per_row: float = 0.0
    knobs: tuple[_Knob, ...] = field(default=(), repr=False, compare=False)

    def problems(self, budget: Budget | None = None) -> list[str]:
        """What exceeds ``budget`` (default: :class:`Budget`'s defaults), in words; empty when it fits."""
        budget = Budget() if budget is None else budget
        found = []
        if self.cpu_seconds > budget.cpu_seconds:
            found.append(
                f"about {_seconds(self.cpu_seconds)} of CPU time, above the budget of {_seconds(budget.cpu_seconds)}"
            )
        if self.memory_bytes > budget.memory_bytes:
            found.append(
                f"about {_bytes(self.memory_bytes)} of working memory, above the budget of "
                f"{_bytes(budget.memory_bytes)}"
            )
        if self.result_bytes > budget.result_bytes:
            found.append(
                f"a result of about {_bytes(self.result_bytes)}, above the budget of {_bytes(budget.result_bytes)}"
            )
        predict = self.predict_seconds_per_row * budget.predict_rows
        if predict > budget.predict_seconds:
            found.append(
                f"about {_seconds(predict)} to draw one picture of {budget.predict_rows:,} points, above the "
                f"budget of {_seconds(budget.predict_seconds)}"
            )
        return found

    def fits(self, budget: Budget | None = None) -> bool:
        """Whether the work stays within ``budget``."""
        return not self.problems(budget)

    def check(self, budget: Budget | None = None) -> Cost:
        """Return ``self`` when it fits ``budget``; otherwise raise :class:`BudgetExceeded`.

        The message says what exceeds the budget and which parameters to lower, with
        the largest value of each that would fit (the others unchanged).

        Raises
        ------
        BudgetExceeded
        """
        budget = Budget() if budget is None else budget
        problems = self.problems(budget)
        if not problems:
            return self
        advice = self.suggestions(budget)
        message = f"{self.what} would need " + " and ".join(problems)
        if advice:
            message += ": " + _join_or(advice)
        raise BudgetExceeded(message + ".", cost=self, budget=budget)

    def suggestions(self, budget: Budget | None = None) -> list[str]:
        """For each parameter that can be lowered, the change that would make the work fit ``budget``."""
        budget = Budget() if budget is None else budget
        advice, together = [], []
        for knob in self.knobs:
            if knob.low is None:
                if knob.cheaper is None:
                    continue
                if knob.rebuild(knob.cheaper).fits(budget):
                    advice.append(f"use {knob.name}={knob.cheaper!r} instead of {knob.value!r}")
                else:
                    together.append(f"{knob.name}={knob.cheaper!r}")
                continue
            value = int(knob.value)
            if value <= knob.low:
                continue
            if not knob.rebuild(knob.low).fits(budget):
                together.append(f"a smaller {knob.name}")
                continue
            low, high = knob.low, value  # low fits, high does not
            while high - low > 1:
                mid = (low + high) // 2
                low, high = (mid, high) if knob.rebuild(mid).fits(budget) else (low, mid)
            advice.append(f"lower {knob.name} from {value:,} to at most {low:,}")
        if not advice and together:
            # No single change is enough: name the ones that help, to be combined.
            advice.append("combine " + _join_or(together).replace(" or ", " and ") + " (no one change is enough)")
        return advice

    def __add__(self, other: Cost) -> Cost:
        """Two pieces of work one after the other: CPU and results add, the peak is the larger peak."""
        return Cost(
            f"{self.what}, then {other.what}",
            self.cpu_seconds + other.cpu_seconds,
            max(self.memory_bytes, other.memory_bytes),
            self.result_bytes + other.result_bytes,
            max(self.predict_seconds_per_row, other.predict_seconds_per_row),
            self.knobs + other.knobs,
        )


class BudgetExceeded(ValueError):
    """Work refused before it started because its estimated :class:`Cost` exceeds a :class:`Budget`.

    Attributes
    ----------
    cost : Cost
    budget : Budget
    """

    def __init__(self, message: str, cost: Cost, budget: Budget):
        super().__init__(message)
        self.cost = cost
        self.budget = budget


def _seconds(seconds: float) -> str:
    if seconds >= 3 * 3600:
        return f"{seconds / 3600:,.0f} CPU-hours"
    if seconds >= 120:
        return f"{seconds / 60:,.0f} CPU-minutes"
    return f"{seconds:,.0f} CPU-seconds" if seconds >= 10 else f"{seconds:.1f} CPU-seconds"


def _bytes(n: float) -> str:
    if n >= 2**30:
        return f"{n / 2**30:,.1f} GiB"
    return f"{n / _MiB:,.0f} MiB"


def _join_or(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


# ----------------------------------------------------------------------- helpers
def _levels(n_rows: float, max_depth, min_samples_leaf: int = 1) -> float:
    """Levels of a tree that still hold a good share of the rows.

    A tree grown without a depth limit on ``n`` rows keeps splitting until its leaves
    are pure or hold ``min_samples_leaf`` rows: about ``log2(n / min_samples_leaf)``
    levels carry most rows (deeper levels exist, with few rows each, and are counted
    by the two extra levels added here).
    """
    natural = math.log2(max(2.0, n_rows / max(1, min_samples_leaf))) + 2
    return max(1.0, min(float(max_depth), natural) if max_depth else natural)


def _tree_nodes(n_rows: float, max_depth, min_samples_leaf: int = 1) -> float:
    """A tree's nodes: at most a full binary tree of its depth, with leaves of ``2 min_samples_leaf + 1`` rows.

    A leaf holds at least ``min_samples_leaf`` rows and grown trees stop at pure leaves;
    on the mixtures of perf/calibrate_costs.py leaves held 3 to 10 rows at
    ``min_samples_leaf=1``. Noise in the labels makes more, smaller leaves (one row
    each at worst): the app measures the fitted model itself before keeping it.
    """
    by_rows = 2 * math.ceil(max(1.0, n_rows) / (2 * max(1, min_samples_leaf) + 1)) - 1
    by_depth = 2 ** (min(int(max_depth), 60) + 1) - 1 if max_depth else by_rows
    return float(min(by_rows, by_depth))


def _planes_tried(max_features, n_planes: int) -> int:
    """How many of ``n_planes`` a node tries, by scikit-learn's rules for ``max_features``."""
    if max_features is None or max_features == "all":
        return n_planes
    if max_features == "sqrt":
        return max(1, int(math.sqrt(n_planes)))
    if max_features == "log2":
        return max(1, int(math.log2(n_planes)))
    if isinstance(max_features, float):
        return max(1, int(max_features * n_planes))
    return max(1, min(n_planes, int(max_features)))


def _count_planes(signature: Signature, pairs: str, splits: str = "geodesic") -> int:
    from .trees import count_planes

    # A radial plane costs what a lift plane does (one value per row, one sorted sweep); a bad
    # ``splits`` is refused here by name, as the estimator would refuse it.
    return count_planes(signature, pairs, splits)


def _count_circular(signature: Signature, pairs: str) -> int:
    """Circular planes among the geodesic ones: all but E's lift planes and H's ``(x_0, x_j)`` pairs."""
    lines = _count_planes(signature, pairs)
    for comp in signature.components:
        if comp.kind == "E":
            lines -= comp.ambient_dim
        elif comp.kind == "H":
            lines -= comp.ambient_dim - 1
    return lines


def _signature(signature, n_features: int | None = None) -> Signature:
    if signature is None:
        if n_features is None:
            raise ValueError("estimate_cost needs the signature of the rows (or their number of columns)")
        return Signature.euclidean(n_features)
    return Signature.parse(signature)


def _int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    return int(value)


# --------------------------------------------------------------------- estimators
def estimate_cost(estimator, n_samples: int, signature=None, *, n_classes: int = 2, n_predict: int = 0) -> Cost:
    """Estimate what fitting an estimator of this package costs, before fitting it.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted (or fitted) estimator of ``curvedtrees``: product trees and forests,
        gradient boosting, the Klein wrappers and the baselines. Only its class and
        ``get_params()`` are read; nothing is fitted.
    n_samples : int
        Rows it will be fitted on.
    signature : str or Signature, optional
        The rows' signature; default: the estimator's ``signature``.
    n_classes : int, default 2
        Classes of the target (1 for a regression).
    n_predict : int, default 0
        Rows it will then predict (for instance the train and test rows of a score);
        their cost is added to :attr:`Cost.cpu_seconds`.

    Returns
    -------
    Cost
        CPU seconds, peak memory and the fitted model's memory, plus the CPU to predict
        one row afterwards. An estimator this module does not know costs nothing.

    Raises
    ------
    ValueError
        A signature that does not parse, or negative counts.

    Examples
    --------
    >>> from curvedtrees.costs import estimate_cost
    >>> from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestClassifier
    >>> estimate_cost(ProductDecisionTreeClassifier(max_depth=6), 1_000, "H2 x S2 x E2").cpu_seconds < 1
    True
    >>> big = ProductRandomForestClassifier(500, pairs="all", max_features=None)
    >>> try:
    ...     estimate_cost(big, 20_000, "S99").check()
    ... except BudgetExceeded as refused:
    ...     print(str(refused)[:88])
    fitting ProductRandomForestClassifier on 20,000 rows of S99 would need about ... CPU-hours
    """
    params = dict(estimator.get_params(deep=False))
    signature = signature if signature is not None else params.get("signature")
    return _estimate(type(estimator).__name__, params, n_samples, signature, n_classes, n_predict)


def _estimate(name: str, params: dict, n_samples, signature, n_classes, n_predict) -> Cost:
    """:func:`estimate_cost` from an estimator's class name and parameters."""
    n_samples = _int(n_samples, "n_samples")
    n_classes = max(1, _int(n_classes, "n_classes"))
    n_predict = _int(n_predict, "n_predict")
    signature = _signature(signature, None)

    def again(**changes) -> Cost:
        return _estimate(name, params | changes, n_samples, signature, n_classes, n_predict)

    cost = _family_cost(name, params, n_samples, signature, n_classes, again)
    if n_predict:
        cost = replace(cost, cpu_seconds=cost.cpu_seconds + n_predict * cost.predict_seconds_per_row)
    rows = _Knob(
        "the number of rows", n_samples, 2, lambda v: _estimate(name, params, v, signature, n_classes, n_predict)
    )
    return replace(cost, knobs=(*cost.knobs, rows))


def _family_cost(name: str, params: Mapping, n: int, signature: Signature, n_classes: int, again) -> Cost:
    what = f"fitting {name} on {n:,} rows of {signature}"
    ambient = signature.ambient_dim
    if name.startswith("ProductDecisionTree") or name.startswith("ProductRandomForest"):
        return _product_trees(name, params, n, signature, n_classes, again, what)
    if name.startswith("ProductGradientBoosting"):
        return _boosting(params, n, signature, n_classes, again, what)
    if name.startswith("GeodesicKNN"):
        k = int(params.get("n_neighbors", 5))
        per_row = n * (ambient * _KNN_PAIR_COORDINATE + len(signature) * _KNN_PAIR_COMPONENT) + k * 1e-7
        knobs = (_Knob("n_neighbors", k, 1, lambda v: again(n_neighbors=v)),)
        # Prediction works in blocks of query rows of at most 256 MiB (baselines._common._working_rows).
        memory = n * ambient * _FLOAT + 256 * _MiB
        return Cost(what, 1e-3 + n * ambient * 1e-8, memory, n * ambient * _FLOAT, per_row, knobs)
    if name.startswith("ProductPerceptron"):
        epochs = int(params.get("max_iter", 50))
        gram = n * n * (ambient * _KERNEL_PAIR_COORDINATE + _KERNEL_PAIR)
        problems = 1 if n_classes <= 2 else n_classes
        # Each check of a row sums over the support vectors, which grow to a fair share of the
        # rows (about 0.3 n on the calibration's mixtures); above 4,096 rows kernel rows are
        # recomputed instead of read from the Gram matrix.
        support = 0.3 * n
        per_check = _PERCEPTRON_CHECK if n <= 4096 else ambient * _KERNEL_PAIR_COORDINATE + _KERNEL_PAIR
        train = epochs * n * problems * support * per_check
        memory = 1.5 * n * n * _FLOAT if n <= 4096 else 4 * n * _FLOAT
        per_row = n * (ambient * _KERNEL_PAIR_COORDINATE + _KERNEL_PAIR)  # support vectors: up to every row
        knobs = (_Knob("max_iter", epochs, 1, lambda v: again(max_iter=v)),)
        return Cost(what, gram + train, memory, n * (ambient + problems) * _FLOAT, per_row, knobs)
    if name.startswith("ProductSVM"):
        kernel = n * n * (ambient * _KERNEL_PAIR_COORDINATE + _KERNEL_PAIR)
        pairs_classes = 1 if n_classes <= 2 else n_classes * (n_classes - 1) / 2
        per_class = n / max(1, n_classes) * 2 if n_classes > 2 else n
        solve = pairs_classes * per_class * per_class * 10 * _SVM_PAIR_ITERATION
        per_row = n * (ambient * _KERNEL_PAIR_COORDINATE + _KERNEL_PAIR)
        return Cost(what, kernel + solve, 3 * n * n * _FLOAT, n * (ambient + n_classes) * _FLOAT, per_row)
    if name.startswith("Ambient") or name.startswith("Tangent"):
        levels = _levels(n, None)
        cpu = n * ambient * levels * _SKLEARN_TREE_ROW_FEATURE_LEVEL + n * ambient * 2e-8
        nodes = _tree_nodes(n, None)
        return Cost(what, cpu, n * ambient * _FLOAT * 3, int(nodes * 64), levels * _TREE_PREDICT_ROW_LEVEL + 1e-7)
    if name.startswith("KleinTree"):
        return _klein(params, n, signature, n_classes, what)
    return Cost(what + " (no cost model for this estimator)", 0.0, 0, 0)


def _product_trees(name, params, n, signature, n_classes, again, what) -> Cost:
    pairs = params.get("pairs", "base")
    n_planes = _count_planes(signature, pairs, params.get("splits", "geodesic"))
    forest = name.startswith("ProductRandomForest")
    max_features = params.get("max_features", "sqrt" if forest else None)
    tried = _planes_tried(max_features, n_planes)
    max_depth = params.get("max_depth")
    leaf = max(1, int(params.get("min_samples_leaf", 1) or 1))
    trees = int(params.get("n_estimators", 100)) if forest else 1
    rows = n
    if forest and params.get("bootstrap", True):
        fraction = params.get("max_samples") or 1.0
        drawn = fraction * n if isinstance(fraction, float) else min(n, int(fraction))
        rows = n * (1 - math.exp(-drawn / max(1, n)))  # distinct rows of a bootstrap sample of ``drawn``
    levels = _levels(rows, max_depth, leaf)
    per_tree = rows * levels * (tried * _TREE_ROW_PLANE_LEVEL * (1 + n_classes / 40) + _TREE_ROW_LEVEL)
    cpu = _TREE_FIXED + n * n_planes * _TREE_VALUE + trees * per_tree
    nodes = _tree_nodes(rows, max_depth, leaf)
    outputs = n_classes if n_classes > 1 else 1
    model = trees * (nodes * (_TREE_NODE_BYTES + _TREE_NODE_CLASS_BYTES * outputs) + 4096)
    # The plane values (one float64 per plane and row) and each tree's row buffers.
    memory = n * n_planes * _FLOAT + n * 40 + model
    predict = trees * (levels * _TREE_PREDICT_ROW_LEVEL + outputs * 2e-9)
    knobs = []
    if forest:
        knobs.append(_Knob("n_estimators", trees, 1, lambda v: again(n_estimators=v)))
    if max_depth is None or int(max_depth) > 1:
        depth_now = int(max_depth) if max_depth else math.ceil(levels)
        knobs.append(_Knob("max_depth", depth_now, 1, lambda v: again(max_depth=v)))
    if tried > 1 and max_features in (None, "all", 1.0):
        knobs.append(_Knob("max_features", "all" if max_features is None else max_features, None,
                           lambda v: again(max_features=v), cheaper="sqrt"))  # fmt: skip
    if pairs == "all":
        knobs.append(_Knob("pairs", "all", None, lambda v: again(pairs=v), cheaper="base"))
    return Cost(what, cpu, int(memory), int(model), predict, tuple(knobs))


def _boosting(params, n, signature, n_classes, again, what) -> Cost:
    pairs = params.get("pairs", "base")
    n_planes = _count_planes(signature, pairs, params.get("splits", "geodesic"))
    iterations = int(params.get("max_iter", 100))
    leaves = int(params.get("max_leaf_nodes", 31) or 31)
    max_depth = params.get("max_depth")
    per_iteration = 1 if n_classes <= 2 else n_classes
    levels = min(float(max_depth), math.log2(leaves) + 1) if max_depth else math.log2(leaves) + 1
    bins = n * n_planes * _BOOST_BIN_ROW_PLANE
    # Histograms of the smaller child only (the subtraction trick) keep a tree's work near one
    # pass over the rows and planes, whatever its leaves (measured: the same per row, plane and tree).
    per_tree = n * (n_planes * _BOOST_ROW_PLANE_TREE + _BOOST_ROW_TREE)
    cpu = bins + iterations * per_iteration * per_tree
    trees = iterations * per_iteration
    model = trees * ((2 * leaves - 1) * (_TREE_NODE_BYTES + _TREE_NODE_CLASS_BYTES) + 2048)
    # Bin codes (uint16 and a histogram byte per row and plane, and the half-turn bits), each
    # circular plane's float64 angles, gradients and hessians per class.
    n_circular = _count_circular(signature, pairs)
    memory = n * n_planes * 3 + n * n_circular * _FLOAT + n * per_iteration * 4 * _FLOAT + 16 * _MiB + model
    predict = trees * (levels * _TREE_PREDICT_ROW_LEVEL)
    knobs = (
        _Knob("max_iter", iterations, 1, lambda v: again(max_iter=v)),
        _Knob("max_leaf_nodes", leaves, 2, lambda v: again(max_leaf_nodes=v)),
    )
    if pairs == "all":
        knobs += (_Knob("pairs", "all", None, lambda v: again(pairs=v), cheaper="base"),)
    return Cost(what, cpu, int(memory), int(model), predict, knobs)


def _klein(params, n, signature, n_classes, what) -> Cost:
    features = signature.ambient_dim - sum(1 for c in signature.components if c.kind == "H")
    name = params.get("estimator") or "decision_tree"
    name = name if isinstance(name, str) else type(name).__name__
    levels = _levels(n, None)
    per_class = 1 if n_classes <= 2 else n_classes
    tree = n * features * levels * _SKLEARN_TREE_ROW_FEATURE_LEVEL
    if name in ("random_forest", "RandomForestClassifier", "RandomForestRegressor"):
        cpu, trees = 100 * tree * 0.35, 100  # sqrt of the features on bootstrap rows, 100 trees by default
    elif name in ("extra_trees", "ExtraTreesClassifier", "ExtraTreesRegressor"):
        cpu, trees = 100 * tree * 0.25, 100
    elif name in ("gradient_boosting", "GradientBoostingClassifier", "GradientBoostingRegressor"):
        cpu, trees = 100 * per_class * n * features * 3 * _SKLEARN_TREE_ROW_FEATURE_LEVEL * 4, 100 * per_class
    elif name in ("hist_gradient_boosting", "xgboost", "lightgbm") or "Boost" in name or "LGBM" in name:
        cpu, trees = 100 * per_class * n * features * _BOOSTER_ROW_FEATURE_TREE + n * features * 1e-7, 100 * per_class
    else:
        cpu, trees = tree, 1
    nodes = _tree_nodes(n, None) if trees <= 100 and "Boost" not in name else 63
    model = trees * nodes * 48
    # The correction reads every node's rows once per level of each tree.
    cpu += trees * n * levels * 20e-9
    return Cost(what, cpu + 0.05, n * (features + 4) * _FLOAT * 4 + model, int(model), trees * levels * 20e-9)


# ------------------------------------------------------------------------ datasets
def estimate_sampling_cost(signature, n_samples: int, n_clusters: int = 32) -> Cost:
    """Estimate what :func:`curvedtrees.sampling.make_classification` (or ``make_regression``) costs.

    Each component of dimension ``d`` draws a ``d x d`` covariance factor per cluster
    and applies one to every row (in blocks of rows, so memory grows with the rows
    times the ambient dimension, plus the clusters' factors).

    Parameters
    ----------
    signature : str or Signature
    n_samples : int
    n_clusters : int, default 32

    Returns
    -------
    Cost

    Examples
    --------
    >>> from curvedtrees.costs import estimate_sampling_cost
    >>> estimate_sampling_cost("H2 x S2 x E2", 20_000).fits()
    True
    >>> estimate_sampling_cost("H4095", 300, n_clusters=150).fits()
    False
    """
    signature = Signature.parse(signature)
    n_samples = _int(n_samples, "n_samples")
    n_clusters = max(1, _int(n_clusters, "n_clusters"))
    squares = sum(c.dim * c.dim for c in signature.components)
    largest = max(c.dim for c in signature.components)
    cpu = (
        n_clusters * squares * _SAMPLE_DRAW
        + n_samples * squares * _SAMPLE_FACTOR
        + n_samples * signature.ambient_dim * _SAMPLE_ROW_COORDINATE
    )
    memory = n_clusters * largest * largest * _FLOAT + 4 * _MiB + 12 * n_samples * signature.ambient_dim * _FLOAT
    result = n_samples * (signature.ambient_dim + 1) * _FLOAT

    def again(n=None, k=None):
        return estimate_sampling_cost(signature, n_samples if n is None else n, n_clusters if k is None else k)

    knobs = (
        _Knob("the number of points", n_samples, max(2, 2 * n_clusters), lambda v: again(n=v)),
        _Knob("the number of clusters", n_clusters, 1, lambda v: again(k=v)),
    )
    return Cost(f"sampling {n_samples:,} points on {signature}", cpu, int(memory), int(result), 0.0, knobs)


def estimate_embedding_cost(
    n_nodes: int, signature, n_epochs: int = 1000, n_restarts: int = 1, n_signatures: int = 1
) -> Cost:
    """Estimate what :func:`curvedtrees.embeddings.embed_graph` costs (or a search of several signatures).

    Every epoch compares all ``n (n - 1) / 2`` pairs of nodes in every ambient
    coordinate and back-propagates through them.

    Parameters
    ----------
    n_nodes : int
    signature : str or Signature
        The signature embedded into (for a search: the largest candidate).
    n_epochs, n_restarts : int
    n_signatures : int, default 1
        Candidates of a signature search (each embedded in turn).

    Returns
    -------
    Cost

    Examples
    --------
    >>> from curvedtrees.costs import estimate_embedding_cost
    >>> estimate_embedding_cost(34, "H2", n_epochs=1000).fits()
    True
    >>> estimate_embedding_cost(500, "H2", n_epochs=5000, n_restarts=20).fits()
    False
    """
    signature = Signature.parse(signature)
    n = _int(n_nodes, "n_nodes")
    epochs, restarts = max(1, _int(n_epochs, "n_epochs")), max(1, _int(n_restarts, "n_restarts"))
    runs = max(1, _int(n_signatures, "n_signatures"))
    pairs = n * (n - 1) / 2
    per_epoch = _EMBED_EPOCH + pairs * (signature.ambient_dim * _EMBED_PAIR_COORDINATE + _EMBED_PAIR)
    shortest = n * n * 30e-9 * max(1.0, math.log2(max(2, n)))
    cpu = _EMBED_FIXED + shortest + runs * restarts * epochs * per_epoch
    memory = pairs * (signature.ambient_dim * _EMBED_PAIR_BYTES + 6 * _FLOAT) + 4 * n * n * _FLOAT + 200 * _MiB
    result = runs * (n * signature.ambient_dim * _FLOAT + n * n + epochs * 2 * _FLOAT)

    def again(**changes):
        args = {"n_nodes": n, "n_epochs": epochs, "n_restarts": restarts, "n_signatures": runs} | changes
        return estimate_embedding_cost(signature=signature, **args)

    knobs = (
        _Knob("n_epochs", epochs, 1, lambda v: again(n_epochs=v)),
        _Knob("n_restarts", restarts, 1, lambda v: again(n_restarts=v)),
        _Knob("n_nodes", n, 4, lambda v: again(n_nodes=v)),
    )
    if runs > 1:
        knobs += (_Knob("the number of candidate signatures", runs, 1, lambda v: again(n_signatures=v)),)
    what = f"embedding {n:,} nodes in {signature} ({epochs:,} epochs x {restarts} restart(s)"
    what += f" x {runs} signatures)" if runs > 1 else ")"
    return Cost(what, cpu, int(memory), int(result), 0.0, knobs)


# Graphs of the built-in embedding datasets that are not generated: their node counts.
_FIXED_GRAPHS = {"karate_club": 34, "les_miserables": 77}


def estimate_dataset_cost(name: str, **params) -> Cost:
    """Estimate what :func:`curvedtrees.datasets.load_dataset` costs for a registered dataset.

    Parameters
    ----------
    name : str
        A name from :func:`curvedtrees.datasets.list_datasets`.
    **params
        The loader's parameters (defaults filled in from the registry; not validated
        here: :func:`~curvedtrees.datasets.load_dataset` does that).

    Returns
    -------
    Cost
        Graph embeddings and the digits VAE by their epochs, restarts, nodes and
        signature; the generated and shipped datasets by their rows.

    Examples
    --------
    >>> from curvedtrees.costs import estimate_dataset_cost
    >>> estimate_dataset_cost("random_tree", n_nodes=500, n_epochs=5000, n_restarts=20).cpu_seconds > 600
    True
    """
    from .datasets import get_dataset_info

    info = get_dataset_info(name)
    values = info.defaults | dict(params)
    rows = int(values.get("n_samples") or values.get("n_cities") or 2000)
    if name in ("random_tree", "sbm", "karate_club", "les_miserables", "link_prediction"):
        graph = values.get("graph", name)
        nodes = _FIXED_GRAPHS.get(graph, int(values.get("n_nodes", 64)))
        signature = values.get("signature", info.signature)
        cost = estimate_embedding_cost(nodes, signature, values["n_epochs"], values["n_restarts"])
        knobs = tuple(k for k in cost.knobs if k.name != "n_nodes" or "n_nodes" in values)
        if name == "link_prediction":  # one row per pair of nodes on each side of the node split
            pairs = nodes * (nodes - 1) / 2
            extra = Cost("", pairs * 2e-6, int(pairs * 30 * _FLOAT), int(pairs * 30 * _FLOAT))
            cost = replace(cost + extra, what=cost.what)
        return replace(cost, what=f"loading {info.title}: {cost.what}", knobs=knobs)
    if name == "digits_latents":
        epochs = int(values["n_epochs"])
        cpu = 3.0 + epochs * 1797 * _VAE_IMAGE_EPOCH
        knobs = (_Knob("n_epochs", epochs, 1, lambda v: estimate_dataset_cost(name, **(values | {"n_epochs": v}))),)
        return Cost(f"loading {info.title} ({epochs:,} VAE epochs)", cpu, 400 * _MiB, 1797 * 64, 0.0, knobs)
    if name == "landmasses":
        grid = int(values.get("n_grid", 400))
        cpu = 0.2 + grid * grid * 50e-9 + rows * 2e-6
        return Cost(f"loading {info.title}", cpu, grid * grid * 40 + rows * 64, rows * 4 * _FLOAT)
    return Cost(f"loading {info.title}", 0.5 + rows * 20e-6, 50 * _MiB + rows * 400, rows * 32 * _FLOAT)
