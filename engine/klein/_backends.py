"""Adapters between tree libraries and the threshold correction.

Each adapter reads a fitted model's trees as parallel arrays (children, feature,
threshold, and the library's node counts where it keeps them), finds the rows that
trained each tree, and writes corrected thresholds back in the library's own format.
The correction needs each node's rows as the library routes them, with its own
comparison (float precision and ``<`` or ``<=``), reproduced in
:mod:`curvedtrees.klein._correct`; the tests check it against every library's own leaf
assignment (``apply`` / ``pred_leaf``). Per tree, :func:`correct_estimator` either
routes every row (deep trees) or scans each feature's sorted rows outwards from the
thresholds (shallow trees whose nodes all hold a fair share of the rows), and a
routed tree scans those of its subtrees that are predicted to be cheaper to scan,
see :func:`_scan_costs` and :class:`_ScanPolicy`. The constants behind these choices
live in :mod:`curvedtrees.klein._tuning`, with ``plain_strategy()``, which turns them
all off (every tree routed plainly and solved exhaustively) to bisect a wrong result.

=====================================  ==============================  ====================================
library / estimator                    routing (left iff)              rows of each tree
=====================================  ==============================  ====================================
scikit-learn DecisionTree, ExtraTree   ``float32(x) <= t``             rows with non-zero sample weight
scikit-learn RandomForest, ExtraTrees  ``float32(x) <= t``             in-bag rows (``estimators_samples_``)
scikit-learn GradientBoosting          ``float32(x) <= t``             all rows (subsamples are not recorded)
scikit-learn HistGradientBoosting      ``x <= t`` (float64)            all rows (validation split not recorded)
XGBoost                                ``float32(x) < float32(t)``     all rows (subsamples are not recorded)
LightGBM                               ``x <= t`` (float64)            all rows (bagging is not recorded)
=====================================  ==============================  ====================================

Where the library does not record a tree's rows and its own bookkeeping shows it
used fewer than all of them (node counts), a :class:`KleinCorrectionWarning` says
that the correction used all rows. That is still safe: a threshold is only moved
inside the gap between the values of *all* rows that reach the node, so no row,
in-bag or not, changes side; the margin is measured against more points than the
tree was trained on.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _tuning
from ._correct import (
    RULE_F32_LE,
    RULE_F32_LT,
    RULE_F64_LE,
    STATUS_MOVED,
    KleinData,
    RouteHints,
    ScanPlan,
    SortedTables,
    TreeNodes,
    correct_tree,
    correct_tree_from_leaves,
    correct_tree_sorted,
    node_shares,
    route_leaves,
    sort_rows,
    x0_floors,
)
from ._rows import locality_order, relabel_rows

__all__ = ["KleinCorrectionWarning", "backend_for", "correct_estimator"]


class KleinCorrectionWarning(UserWarning):
    """The threshold correction could not use exactly each tree's own training rows."""


# ----------------------------------------------------------------------- helpers
def _library(estimator) -> str:
    module = type(estimator).__module__ or ""
    return module.split(".", 1)[0]


def _threads(estimator) -> int:
    """Worker threads for the correction: the wrapped model's own ``n_jobs``."""
    n_jobs = getattr(estimator, "n_jobs", None)
    if _library(estimator) in ("xgboost", "lightgbm") and (n_jobs is None or n_jobs < 0):
        return os.cpu_count() or 1  # these libraries default to all cores
    if not hasattr(estimator, "n_jobs") and type(estimator).__name__.startswith("HistGradientBoosting"):
        return os.cpu_count() or 1  # it has no n_jobs and trains with OpenMP on all cores
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, int(n_jobs))


def _nonzero_rows(sample_weight, n_samples):
    if sample_weight is None:
        return np.arange(n_samples, dtype=np.int64)
    return np.flatnonzero(np.asarray(sample_weight) != 0).astype(np.int64)


class _TreeJob:
    """One tree: its arrays and its rows (and, where the library must route them, their leaves).

    The kernels read the libraries' node arrays where they are, strided views included
    (scikit-learn's node records are 64 bytes apart). They visit the nodes in the
    libraries' depth-first order, so the hardware streams the records in while they
    work; a contiguous copy first would read every record of a tree that has long left
    the caches before any work starts. Arrays of other types are converted on first
    use, in the thread that corrects the tree.
    """

    __slots__ = ("_library_arrays", "_nodes", "expected_rows", "leaf", "max_depth", "node_weight", "rows")

    def __init__(
        self,
        left,
        right,
        feature,
        threshold,
        rows,
        leaf=None,
        expected_rows=None,
        node_weight=None,
        max_depth=None,
    ):
        self._library_arrays = (left, right, feature, threshold)
        self._nodes = None
        self.rows = rows
        self.leaf = leaf  # None: route with the rule; else the library's leaf of each row
        self.expected_rows = expected_rows  # the library's own count of the tree's rows, if known
        # Rows (or hessian mass) the library recorded at each node, if it did: how much
        # of the tree's rows each node holds, which decides how to find its gaps.
        self.node_weight = node_weight
        self.max_depth = max_depth  # the tree's depth, if the library records it

    def _arrays(self):
        if self._nodes is None:
            types = (np.int64, np.int64, np.int64, np.float64)
            self._nodes = TreeNodes(*(np.asarray(a, dtype=t) for a, t in zip(self._library_arrays, types)))
        return self._nodes

    nodes = property(lambda self: self._arrays())  # TreeNodes(left, right, feature, threshold)
    left = property(lambda self: self._arrays()[0])
    right = property(lambda self: self._arrays()[1])
    feature = property(lambda self: self._arrays()[2])
    threshold = property(lambda self: self._arrays()[3])


def _distinct_rows(indices, n_samples):
    """The distinct rows of a bootstrap sample, sorted (np.unique's answer in O(n), not a sort)."""
    drawn = np.zeros(n_samples, dtype=bool)
    drawn[indices] = True
    return np.flatnonzero(drawn).astype(np.int64)


# ------------------------------------------------------------------- scikit-learn
class _SklearnTrees:
    """DecisionTree*, ExtraTree*, RandomForest*, ExtraTrees*, GradientBoosting*."""

    rule = RULE_F32_LE

    def __init__(self, estimator, kind):
        self.estimator = estimator
        self.kind = kind  # "tree", "forest" or "boosting"

    @functools.cached_property
    def _trees(self):
        """The fitted trees, listed once (write_tree looks one up per corrected tree)."""
        if self.kind == "tree":
            return [self.estimator]
        if self.kind == "forest":
            return list(self.estimator.estimators_)
        return list(np.asarray(self.estimator.estimators_).ravel())

    def jobs(self, F, sample_weight):
        n = F.shape[0]
        base_rows = _nonzero_rows(sample_weight, n)
        if self.kind == "forest" and getattr(self.estimator, "bootstrap", False):
            row_sets = [_distinct_rows(idx, n) for idx in self.estimator.estimators_samples_]
        else:
            row_sets = None
        jobs = []
        for t, tree in enumerate(self._trees):
            rows = row_sets[t] if row_sets is not None else base_rows
            nodes = tree.tree_
            jobs.append(
                _TreeJob(
                    nodes.children_left,
                    nodes.children_right,
                    nodes.feature,
                    nodes.threshold,
                    rows,
                    expected_rows=int(nodes.n_node_samples[0]),
                    node_weight=nodes.n_node_samples,
                    max_depth=nodes.max_depth,
                )
            )
        return jobs

    def write_tree(self, index, thresholds):
        """Write one tree's thresholds; called by the correcting threads as each tree is done."""
        self._trees[index].tree_.threshold[:] = thresholds

    def tree_arrays(self):
        return [
            (t.tree_.children_left, t.tree_.children_right, t.tree_.feature, t.tree_.threshold) for t in self._trees
        ]


class _HistGradientBoosting:
    """HistGradientBoosting*: predictor node arrays, ``x <= num_threshold`` on float64."""

    rule = RULE_F64_LE

    def __init__(self, estimator):
        self.estimator = estimator

    def _predictors(self):
        return [p for iteration in self.estimator._predictors for p in iteration]

    @staticmethod
    def _arrays(nodes):
        leaf = nodes["is_leaf"].astype(bool)
        # The node fields are unsigned: cast before writing -1 at the leaves.
        left = np.where(leaf, -1, nodes["left"].astype(np.int64))
        right = np.where(leaf, -1, nodes["right"].astype(np.int64))
        return left, right, nodes["feature_idx"].astype(np.int64), nodes["num_threshold"].astype(np.float64)

    def jobs(self, F, sample_weight):
        rows = _nonzero_rows(sample_weight, F.shape[0])
        jobs = []
        for predictor in self._predictors():
            nodes = predictor.nodes
            if np.any(nodes["is_categorical"][~nodes["is_leaf"].astype(bool)]):
                raise ValueError("categorical splits of HistGradientBoosting cannot be corrected; use numeric features")
            jobs.append(
                _TreeJob(*self._arrays(nodes), rows, expected_rows=int(nodes["count"][0]), node_weight=nodes["count"])
            )
        return jobs

    def write(self, thresholds):
        for predictor, new in zip(self._predictors(), thresholds):
            internal = ~predictor.nodes["is_leaf"].astype(bool)
            predictor.nodes["num_threshold"][internal] = new[internal]

    def tree_arrays(self):
        return [self._arrays(p.nodes) for p in self._predictors()]


# ------------------------------------------------------------------------ XGBoost
# XGBoost's binary model format is UBJSON (https://ubjson.org), in which every array of
# a tree is a typed, counted container: "[$" type "#" count, then the values in
# big-endian order. The correction reads a tree's arrays straight from the bytes and
# writes the new split conditions back in place (same type, same length), a fraction
# of the time of going through the JSON text (parse, re-serialise, re-load).
_UBJ_NUMBER = {b"i": ">i1", b"U": ">u1", b"I": ">i2", b"l": ">i4", b"L": ">i8", b"d": ">f4", b"D": ">f8"}
_XGB_ARRAYS = ("left_children", "right_children", "split_indices", "split_conditions", "split_type", "sum_hessian")


def _ubj_keys(name: str) -> list[bytes]:
    """The ways UBJSON can spell object key ``name``: its length as any integer type, then
    the bytes (XGBoost writes an int64, marker "L", listed first: each spelling that is
    not in the model costs a search of all of it; the others are accepted too)."""
    size = len(name)
    spellings = []
    for marker in (b"L", b"l", b"I", b"U", b"i"):
        dtype = np.dtype(_UBJ_NUMBER[marker])
        if size <= np.iinfo(dtype).max:
            spellings.append(marker + np.array(size, dtype=dtype).tobytes() + name.encode())
    return spellings


def _ubj_typed_arrays(blob: bytes, name: str) -> list[tuple[int, np.ndarray]]:
    """Every typed array stored under key ``name``: (offset of its values, the values)."""
    found = []
    key = next((k for k in _ubj_keys(name) if k in blob), None)
    if key is None:
        return found
    start = blob.find(key)
    while start != -1:
        at = start + len(key)
        if blob[at : at + 2] != b"[$" or blob[at + 3 : at + 4] != b"#":
            raise ValueError(f"unexpected XGBoost model layout: '{name}' is not a typed array")
        value_type = _UBJ_NUMBER.get(blob[at + 2 : at + 3])
        count_type = _UBJ_NUMBER.get(blob[at + 4 : at + 5])
        if value_type is None or count_type is None or count_type.endswith(("f4", "f8")):
            raise ValueError(f"unexpected XGBoost model layout: '{name}' has an unknown element or count type")
        count_size = np.dtype(count_type).itemsize
        count = int.from_bytes(blob[at + 5 : at + 5 + count_size], "big", signed=count_type != ">u1")
        offset = at + 5 + count_size
        if count < 0 or offset + count * np.dtype(value_type).itemsize > len(blob):
            raise ValueError(f"unexpected XGBoost model layout: '{name}' runs past the end of the model")
        found.append((offset, np.frombuffer(blob, dtype=value_type, count=count, offset=offset)))
        start = blob.find(key, offset)
    return found


class _XGBoost:
    """XGBoost: UBJSON model bytes, ``float32(x) < split_condition`` goes left."""

    rule = RULE_F32_LT

    def __init__(self, estimator):
        self.estimator = estimator
        self.booster = estimator.get_booster()
        name = json.loads(self.booster.save_config())["learner"]["gradient_booster"]["name"]
        if name not in ("gbtree", "dart"):
            raise ValueError(f"XGBoost booster {name!r} has no trees to correct; use booster='gbtree' or 'dart'")
        self.blob = bytes(self.booster.save_raw(raw_format="ubj"))
        arrays = {key: _ubj_typed_arrays(self.blob, key) for key in _XGB_ARRAYS}
        counts = {len(found) for found in arrays.values()}
        if len(counts) != 1:
            raise ValueError("unexpected XGBoost model layout: trees with missing arrays")
        if counts == {0} and self.booster.num_boosted_rounds() > 0:
            raise ValueError("unexpected XGBoost model layout: no trees found in the model bytes")
        self.trees = []
        self.stored_types = []
        for left, right, feature, (offset, threshold), (_, split_type), (_, hessian) in zip(
            *(arrays[key] for key in _XGB_ARRAYS)
        ):
            left, right, feature = (np.asarray(a[1], dtype=np.int64) for a in (left, right, feature))
            if not (len(left) == len(right) == len(feature) == len(threshold) == len(split_type) == len(hessian)):
                raise ValueError("unexpected XGBoost model layout: a tree's arrays differ in length")
            if np.any(split_type[left != -1] != 0):
                raise ValueError("categorical splits of XGBoost cannot be corrected; use numeric features")
            # XGBoost holds split conditions as float32 and compares with those values.
            exact = threshold.astype(np.float32).astype(np.float64)
            self.trees.append((offset, (left, right, feature, exact), hessian))
            self.stored_types.append(threshold.dtype)

    def jobs(self, F, sample_weight):
        rows = _nonzero_rows(sample_weight, F.shape[0])
        # XGBoost records no row counts; the hessian mass at each node stands in for them.
        return [_TreeJob(*arrays, rows, node_weight=hessian) for _, arrays, hessian in self.trees]

    def write(self, thresholds):
        blob = bytearray(self.blob)
        for (offset, (left, _, _, old), _), new, stored in zip(self.trees, thresholds, self.stored_types):
            # Leaves keep their values (XGBoost stores leaf weights in the same array).
            # Written back in the stored type (float32), same length: nothing else moves.
            values = np.where(left != -1, new, old).astype(stored)
            blob[offset : offset + values.nbytes] = values.tobytes()
        self.booster.load_model(blob)

    def tree_arrays(self):
        return [arrays for _, arrays, _ in self.trees]

    def row_sampling(self) -> bool:
        params = self.estimator.get_xgb_params()
        subsample = params.get("subsample")
        return (subsample is not None and subsample < 1) or params.get("sampling_method") == "gradient_based"


# ----------------------------------------------------------------------- LightGBM
class _LightGBMModel:
    """LightGBM's text model: per-tree node arrays, and the same text with new thresholds.

    A tree's block runs from its ``Tree=`` line to the next block (or ``end of trees``)
    and holds one ``key=values`` line per array. One regular-expression pass over the
    text finds every line the correction reads, and each key's values are parsed for
    all trees at once; the new thresholds are spliced into the original text, and the
    header's ``tree_sizes`` (each block's length in bytes, which LightGBM uses to find
    the blocks) are moved by the change in each threshold line's length, rather than
    splitting the text into lines and parsing each tree's lines one by one.
    """

    _KEYS = (
        "num_leaves",
        "num_cat",
        "split_feature",
        "threshold",
        "decision_type",
        "left_child",
        "right_child",
        "internal_count",
        "leaf_count",
    )
    _LINE = re.compile(r"^(Tree|tree_sizes|" + "|".join(_KEYS) + r")=([^\n]*)", re.MULTILINE)

    def __init__(self, text: str):
        self.source = text
        end = text.find("\nend of trees")
        self._trees_end = len(text) if end == -1 else end + 1
        self.header_sizes = None  # (span of the tree_sizes values, the sizes)
        starts = []
        fields = []  # per tree: key -> (start, stop) of its values in the text
        for match in self._LINE.finditer(text, 0, self._trees_end):
            key = match.group(1)
            if key == "Tree":
                starts.append(match.start())
                fields.append({})
            elif key == "tree_sizes":
                if not starts:
                    self.header_sizes = (match.span(2), [int(v) for v in match.group(2).split()])
            elif fields:
                fields[-1][key] = match.span(2)
        self._starts = starts
        self._fields = fields
        n_trees = len(fields)
        n_internal = [int(count[0]) - 1 for count in self._parsed("num_leaves", [1] * n_trees, np.int64)]
        if any(count < 0 for count in n_internal):
            raise ValueError("unexpected LightGBM model text layout: a tree has no leaves")
        if any(count is not None and count[0] > 0 for count in self._parsed("num_cat", [1] * n_trees, np.int64, True)):
            raise ValueError("categorical splits of LightGBM cannot be corrected; use numeric features")
        left = self._parsed("left_child", n_internal, np.int64)
        right = self._parsed("right_child", n_internal, np.int64)
        feature = self._parsed("split_feature", n_internal, np.int64)
        threshold = self._parsed("threshold", n_internal, np.float64)
        decision_type = self._parsed("decision_type", n_internal, np.int64)
        internal_count = self._parsed("internal_count", n_internal, np.int64, optional=True)
        leaf_count = self._parsed("leaf_count", [count + 1 for count in n_internal], np.int64, optional=True)
        # decision_type bits 2-3 hold the missing-value type; 1 is "zero as missing".
        self.zero_as_missing = any(np.any((kind >> 2) & 3 == 1) for kind in decision_type)
        self.trees = []
        for t, count in enumerate(n_internal):
            tree = {"n_internal": count}
            self.trees.append(tree)
            if count == 0:
                tree["arrays"] = (np.array([-1]), np.array([-1]), np.array([-1]), np.array([0.0]))
                continue
            n_nodes = 2 * count + 1
            arrays = (
                np.full(n_nodes, -1, dtype=np.int64),
                np.full(n_nodes, -1, dtype=np.int64),
                np.full(n_nodes, -1, dtype=np.int64),
                np.zeros(n_nodes),
            )
            # Internal nodes keep their index; leaf l (stored as ~l) becomes n_internal + l.
            arrays[0][:count] = np.where(left[t] >= 0, left[t], count + ~left[t])
            arrays[1][:count] = np.where(right[t] >= 0, right[t], count + ~right[t])
            arrays[2][:count] = feature[t]
            arrays[3][:count] = threshold[t]
            tree["arrays"] = arrays
            if internal_count[t] is not None:
                tree["root_count"] = int(internal_count[t][0])
                if leaf_count[t] is not None:
                    tree["node_weight"] = np.concatenate([internal_count[t], leaf_count[t]])

    def _parsed(self, key, counts, dtype, optional=False):
        """Each tree's values under ``key`` (``counts[t]`` of them), parsed for all trees in one call.

        A tree without the line gets None when ``optional``, else it is an error, as is a
        line whose number of values is not the tree's. The joined lines are parsed in
        one call: numpy's parser has a fixed cost per call.
        """
        spans = [fields.get(key) for fields in self._fields]
        if not optional and any(span is None for span in spans):
            raise ValueError(f"unexpected LightGBM model text layout: a tree has no '{key}' line")
        present = [t for t, span in enumerate(spans) if span is not None]
        joined = " ".join(self.source[spans[t][0] : spans[t][1]] for t in present)
        try:
            values = np.array(joined.split(), dtype=dtype)
        except ValueError as error:
            raise ValueError(f"unexpected LightGBM model text layout: '{key}' holds a non-number") from error
        expected = [counts[t] for t in present]
        if values.size != sum(expected):
            raise ValueError(f"unexpected LightGBM model text layout: '{key}' does not have one value per node")
        result = [None] * len(spans)
        offset = 0
        for t, count in zip(present, expected):
            result[t] = values[offset : offset + count]
            offset += count
        return result

    def text(self, thresholds) -> str:
        """The model text with each tree's internal thresholds replaced (shortest round-trip decimals)."""
        pieces = []
        position = 0
        sizes = list(self.header_sizes[1]) if self.header_sizes is not None else None
        for index, (tree, fields, new) in enumerate(zip(self.trees, self._fields, thresholds)):
            if tree["n_internal"] == 0:
                continue
            start, stop = fields["threshold"]
            values = " ".join(map(repr, np.asarray(new[: tree["n_internal"]], dtype=np.float64).tolist()))
            pieces += [self.source[position:start], values]
            position = stop
            if sizes is not None:
                sizes[index] += len(values) - (stop - start)
        pieces.append(self.source[position:])
        text = "".join(pieces)
        if sizes is None:
            return text
        # The header precedes the first tree: its span is unchanged by the splices.
        (start, stop), _ = self.header_sizes
        return text[:start] + " ".join(map(str, sizes)) + text[stop:]

    def original_sizes_match(self) -> bool:
        """Whether the header's tree_sizes are the blocks' lengths (LightGBM counts bytes; blocks are ASCII)."""
        if self.header_sizes is None:
            return True
        ends = [*self._starts[1:], self._trees_end]
        return self.header_sizes[1] == [stop - start for start, stop in zip(self._starts, ends)]


class _LightGBM:
    """LightGBM: text model, ``x <= threshold`` (float64) goes left."""

    rule = RULE_F64_LE

    def __init__(self, estimator):
        self.estimator = estimator
        self.booster = estimator.booster_
        self.model = _LightGBMModel(self.booster.model_to_string())
        if not self.model.original_sizes_match():
            raise ValueError("unexpected LightGBM model text layout (tree_sizes); cannot correct this model")

    def jobs(self, F, sample_weight):
        rows = _nonzero_rows(sample_weight, F.shape[0])
        leaves = None
        if self.model.zero_as_missing:
            # Zeros go the default way there, not by value: ask LightGBM for the leaves.
            leaves = np.asarray(
                self.booster.predict(
                    np.ascontiguousarray(F[rows]), pred_leaf=True, num_threads=_threads(self.estimator)
                )
            ).reshape(len(rows), -1)
            if leaves.shape[1] != len(self.model.trees):
                raise ValueError(
                    f"LightGBM returned leaves for {leaves.shape[1]} trees but the model has {len(self.model.trees)}"
                )
        jobs = []
        for t, tree in enumerate(self.model.trees):
            leaf = None
            if leaves is not None:
                leaf = np.ascontiguousarray(leaves[:, t], dtype=np.int64) + tree["n_internal"]
            jobs.append(
                _TreeJob(
                    *tree["arrays"],
                    rows,
                    leaf=leaf,
                    expected_rows=tree.get("root_count"),
                    node_weight=tree.get("node_weight"),
                )
            )
        return jobs

    def write(self, thresholds):
        from lightgbm import Booster

        booster = Booster(model_str=self.model.text(thresholds))
        # The scikit-learn wrapper keeps its booster in _Booster (booster_ is a read-only view of it).
        self.estimator._Booster = booster
        self.booster = booster

    def tree_arrays(self):
        return [tree["arrays"] for tree in self.model.trees]


# -------------------------------------------------------------------------- entry
SUPPORTED = (
    "scikit-learn DecisionTree/ExtraTree, RandomForest, ExtraTrees, GradientBoosting, HistGradientBoosting "
    "classifiers and regressors; xgboost XGBClassifier/XGBRegressor/XGBRF*; lightgbm LGBMClassifier/LGBMRegressor"
)


def backend_for(estimator):
    """The adapter for a fitted estimator, or ``ValueError`` for an unsupported one."""
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        HistGradientBoostingClassifier,
        HistGradientBoostingRegressor,
    )
    from sklearn.ensemble._forest import BaseForest
    from sklearn.tree import BaseDecisionTree

    if isinstance(estimator, BaseDecisionTree):
        return _SklearnTrees(estimator, "tree")
    if isinstance(estimator, BaseForest):
        if type(estimator).__name__ == "RandomTreesEmbedding":
            raise ValueError("RandomTreesEmbedding is a transformer, not a classifier or regressor")
        return _SklearnTrees(estimator, "forest")
    if isinstance(estimator, (GradientBoostingClassifier, GradientBoostingRegressor)):
        return _SklearnTrees(estimator, "boosting")
    if isinstance(estimator, (HistGradientBoostingClassifier, HistGradientBoostingRegressor)):
        return _HistGradientBoosting(estimator)
    library = _library(estimator)
    if library == "xgboost" and hasattr(estimator, "get_booster"):
        return _XGBoost(estimator)
    if library == "lightgbm" and hasattr(estimator, "booster_"):
        return _LightGBM(estimator)
    raise ValueError(f"cannot correct the thresholds of {type(estimator).__name__}; supported: {SUPPORTED}")


# When to scan rather than route a tree. Routing sends n * sum_v share_v rows through
# one node each; the scans examine about sum_v 1 / share_v rows (each a walk up the
# tree) plus the H windows. A scan's work, in rows routed (walk_cost per walk,
# window_cost per window step), is modelled as k * sum_v 1 / share_v, where k depends
# on the data (far points widen the windows): each model starts from a prior and
# learns k from its own scans. A tree is scanned when its predicted work is at most a
# share of routing it; a scan whose work exceeds routing's gives up and the tree is
# routed (a misjudged tree costs at most twice). Work units rather than measured time:
# on a shared machine the two threads' timings are too noisy to learn from. Routed
# trees scan subtrees instead (see correct_tree) under a policy of their own. The
# priors, shares and learning rate: curvedtrees.klein._tuning.


class _ScanPolicy:
    """Whether to scan a tree, from its node shares and the model's scans so far.

    Shared by the threads correcting a model. Only the speed depends on it: a scanned
    tree and a routed one get the same thresholds.
    """

    def __init__(self, prior: float, pays: float):
        self._lock = threading.Lock()
        self._log_cost = math.log(prior)
        self.pays = pays  # scan when the predicted work is at most this share of routing's

    @property
    def cost(self) -> float:
        """The current estimate of k (work per unit of sum_v 1 / share_v)."""
        return math.exp(self._log_cost)

    def should_scan(self, inverse_shares: float, routing: float, n_internal: int) -> bool:
        """Whether ``k * inverse_shares`` plus the nodes' fixed costs is at most ``pays`` of ``routing``."""
        with self._lock:
            return self.cost * inverse_shares + _tuning.NODE_COST * n_internal <= self.pays * routing

    def record(self, work: float, inverse_shares: float) -> None:
        """Learn from a scan that did ``work`` in walks and window steps (one that gave up: its work so far)."""
        # A scan of no work (every node a leaf's parent with its gap at the threshold)
        # teaches k ~ 0; the floor keeps the logarithm finite.
        observed = math.log(max(work, 1e-12) / inverse_shares)
        with self._lock:
            self._log_cost += _tuning.SCAN_COST_LEARNING * (observed - self._log_cost)


def _scan_eligible(job) -> bool:
    """Whether the scans may take any of the tree: the whole tree or, once routed, subtrees.

    Not for trees without node weights, whose leaves the library gives, or that are too
    deep for a scan ever to pay (fully grown trees: their subtrees hold few rows too).
    """
    if job.leaf is not None or job.node_weight is None or job.left[0] == -1:
        return False
    if job.max_depth is not None and job.max_depth > 0:
        # Without reading the node weights (copying and summing them is a noticeable
        # share of a fully grown tree's correction). The c_k internal nodes at depth
        # k hold disjoint rows, so their shares sum to at most 1 and, by Cauchy-Schwarz,
        # their inverse shares to at least c_k ** 2; over the max_depth levels, at least
        # n_internal ** 2 / max_depth. A row is routed through at most max_depth nodes.
        n_internal = (len(job.left) - 1) // 2
        if n_internal**2 / job.max_depth > _tuning.SCAN_MAX_INVERSE * len(job.rows) * job.max_depth:
            return False
    return True


def _scan_costs(job) -> tuple[float, float] | None:
    """``(routing, inverse_shares)`` of a tree the scans may take whole, or None to route it.

    ``routing``: routing's cost, ``n_rows * sum_v share_v`` rows routed through one node
    (also the most work a scan may do before it gives up); ``inverse_shares``:
    ``sum_v 1 / share_v``, what the scans' work grows with (see _ScanPolicy). Trees
    that are not :func:`_scan_eligible`, or hold nodes with tiny shares, are routed.
    """
    if not _scan_eligible(job):
        return None
    # float64 whatever the library stores (int64 or uint32 counts, big-endian float32
    # hessians from XGBoost's UBJSON): one compiled node_shares.
    share_sum, inverse_shares = node_shares(job.left, np.ascontiguousarray(job.node_weight, dtype=np.float64))
    routing = len(job.rows) * share_sum
    if not inverse_shares <= _tuning.SCAN_MAX_INVERSE * routing:  # also when a node has no weight (NaN)
        return None
    return routing, inverse_shares


class _SortedRows:
    """Each feature's rows in increasing order, with their features alongside.

    Shared by every tree of a model. ``by_feature[f]`` lists, in ``f``'s order, each
    row's features and (for an H feature) its ``x0``, so the sorted scans read memory
    sequentially instead of one random row at a time; ``block_x0[f]`` the smallest
    ``x0`` of each block of ``2 ** block_shift`` rows in that order. Built one feature
    per thread. ``tables`` holds them as the kernels take them.
    """

    def __init__(self, F, HT, feat_x0, threads=1, block_shift=None):
        n, d = F.shape
        block_shift = _tuning.BLOCK_SHIFT if block_shift is None else block_shift
        self.order = np.empty((d, n), dtype=np.int64)
        self.by_feature = np.empty((d, n, d + 1))
        self.block_x0 = np.zeros((d, -(-n >> block_shift)))
        F = np.ascontiguousarray(F, dtype=np.float64)

        def build(f):
            x0 = HT[feat_x0[f]] if feat_x0[f] >= 0 else np.zeros(0)
            sort_rows(F, f, x0, self.order[f], self.by_feature[f], self.block_x0[f], block_shift)

        if threads > 1:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                list(pool.map(build, range(d)))
        else:
            for f in range(d):
                build(f)
        self.tables = SortedTables(self.order, self.by_feature, self.block_x0)

    @classmethod
    def fits(cls, F) -> bool:
        """Whether the tables for ``F`` stay within ``_tuning.SORTED_ROWS_MAX_BYTES`` (they grow as n_features ** 2)."""
        n, d = F.shape
        return d * n * (d + 1) * 8 <= _tuning.SORTED_ROWS_MAX_BYTES


def _renumber_pays(jobs, F, feat_x0) -> bool:
    """Whether renumbering the rows for locality pays (``_tuning.RENUMBER_BYTES`` and ``RENUMBER_VISITS``)."""
    n_values = F.shape[0] * (F.shape[1] + len(np.unique(feat_x0[feat_x0 >= 0])))
    if n_values * 8 <= _tuning.RENUMBER_BYTES:
        return False
    visits = sum(len(job.rows) * math.log2(max(2, (len(job.left) + 1) // 2)) for job in jobs if job.left[0] != -1)
    return visits >= _tuning.RENUMBER_VISITS * n_values


# correct_tree's tables when the model has none, and its node weights when no subtree
# is to be scanned.
_NO_WEIGHTS = np.zeros(0)
_NO_TABLES = SortedTables(np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0, 0)), np.zeros((0, 0)))


def _route(job, data, hints, tuning, sorted_rows=None, subtrees=None):
    """Correct one tree by sending its rows down it.

    ``data``: :class:`KleinData`; ``hints``: :class:`RouteHints`; ``tuning``:
    :class:`~curvedtrees.klein._tuning.KernelTuning`; ``sorted_rows``: the model's
    :class:`_SortedRows`, if made; ``subtrees``: the :class:`_ScanPolicy` of subtree
    scans, for a tree they may take (it learns from the tree's scans).
    """
    if job.leaf is not None:
        return correct_tree_from_leaves(job.nodes, job.leaf, job.rows, data, tuning)
    tables = _NO_TABLES
    plan = ScanPlan(_tuning.SCAN_WORK_PER_ROW, _NO_WEIGHTS, 0.0, 0.0)
    if sorted_rows is not None:
        tables = sorted_rows.tables
        if subtrees is not None:
            weight = np.ascontiguousarray(job.node_weight, dtype=np.float64)
            plan = ScanPlan(_tuning.SCAN_WORK_PER_ROW, weight, subtrees.cost, subtrees.pays)
    *result, work, units = correct_tree(job.nodes, job.rows, data, hints, tables, plan, tuning)
    if units > 0.0 and subtrees is not None:
        subtrees.record(work, units)
    return tuple(result)


def _scan(job, budget, sorted_rows, data, hints, tuning, subtrees=None):
    """Scan the tree's sorted rows; route it if the walks and window steps exceed ``budget``. Returns (result, work)."""
    n = data.FT.shape[1]
    in_set = np.zeros(0, dtype=bool)
    if len(job.rows) != n:
        in_set = np.zeros(n, dtype=bool)
        in_set[job.rows] = True
    *result, ok, work = correct_tree_sorted(job.nodes, in_set, sorted_rows.tables, data, budget, tuning)
    if ok:
        return tuple(result), work
    return _route(job, data, hints, tuning, sorted_rows, subtrees), work


def _correct_plainly(job, data, tuning):
    """The plain strategy (``_tuning.plain_strategy``): each row walked to its leaf, every row a candidate."""
    leaf = job.leaf if job.leaf is not None else route_leaves(job.nodes, job.rows, data)
    return correct_tree_from_leaves(job.nodes, leaf, job.rows, data, tuning)


def _correct_all(jobs, data, hints, tuning, F, estimator, write_tree=None):
    """Every tree's correction, in threads: trees are scanned where scans are predicted to pay (see _ScanPolicy).

    ``write_tree(index, thresholds)``, if given, is called by the threads as each tree is done.
    """
    threads = min(_threads(estimator), max(1, len(jobs)))
    can_scan = _SortedRows.fits(F)
    tables = []  # the sorted rows, made when the first tree is to be scanned
    tables_lock = threading.Lock()
    policy = _ScanPolicy(_tuning.SCAN_COST_PRIOR, _tuning.SCAN_PAYS)
    subtree_policy = _ScanPolicy(_tuning.SUBTREE_COST_PRIOR, _tuning.SUBTREE_PAYS)

    def sorted_rows():
        with tables_lock:
            if not tables:
                tables.append(_SortedRows(F, data.HT, data.feat_x0, threads=threads, block_shift=tuning.block_shift))
        return tables[0]

    def correct(job):
        eligible = can_scan and _scan_eligible(job)
        subtrees = subtree_policy if eligible else None
        shares = _scan_costs(job) if eligible else None
        n_internal = (len(job.left) - 1) // 2
        if shares is None or not policy.should_scan(shares[1], shares[0], n_internal):
            # Routed trees use the tables too (and scan subtrees) once a scanned tree has made them.
            return _route(job, data, hints, tuning, tables[0] if tables else None, subtrees)
        routing, inverse_shares = shares
        result, work = _scan(job, routing - tuning.node_cost * n_internal, sorted_rows(), data, hints, tuning, subtrees)
        policy.record(work, inverse_shares)
        return result

    def one(index):
        result = correct(jobs[index])
        if write_tree is not None:
            write_tree(index, result[0])
        return result

    if threads > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            return list(pool.map(one, range(len(jobs))))
    return [one(index) for index in range(len(jobs))]


def correct_estimator(estimator, F, HT, feat_x0, feat_radius, sample_weight=None):
    """Correct every tree of a fitted estimator in place.

    Parameters
    ----------
    estimator : fitted supported estimator
        Fitted on ``F``.
    F : ndarray of shape (n_samples, n_features), float64
        The features it was fitted on.
    HT : ndarray of shape (n_h_columns, n_samples), float64
        Hyperboloid coordinates of the H components (feature-major).
    feat_x0, feat_radius : ndarray of shape (n_features,)
        See :class:`curvedtrees.klein._correct.KleinData`.
    sample_weight : ndarray of shape (n_samples,) or None
        Rows with zero weight did not train the trees and are left out.

    Returns
    -------
    nearest : list of ndarray
        Per tree, each node's distance to its nearest training row (NaN at leaves and
        unmoved nodes), as :func:`curvedtrees.klein._correct.geodesic_margins` takes it.
    n_moved : int
        Internal nodes whose threshold was recomputed.
    n_kept : int
        Internal nodes left unchanged because the rows' values did not match the stored
        threshold (for example LightGBM's zero-as-missing routing).
    """
    backend = backend_for(estimator)
    jobs = backend.jobs(F, sample_weight)
    mismatched = sum(
        1 for job in jobs if job.expected_rows is not None and job.expected_rows != len(job.rows) and job.left[0] != -1
    )
    rows_unknown = isinstance(backend, _XGBoost) and backend.row_sampling()
    if mismatched or rows_unknown:
        name = type(estimator).__name__
        warnings.warn(
            f"{name} does not record which rows trained each tree "
            f"({mismatched} of {len(jobs)} trees were trained on a subset, e.g. by subsampling or an early-stopping "
            "validation split); the threshold correction used all rows that reach each node. No training row "
            "changes leaf, but margins are measured against more points than each tree saw.",
            KleinCorrectionWarning,
            stacklevel=3,
        )
    tuning = _tuning.kernel_tuning()
    if _tuning.FORCE_PLAIN:
        data = KleinData(np.ascontiguousarray(F.T, dtype=np.float64), HT, feat_x0, feat_radius, backend.rule)
        results = [_correct_plainly(job, data, tuning) for job in jobs]
        _write_all(backend, results)
        return _summary(results)
    if _renumber_pays(jobs, F, feat_x0):
        # The kernels read the rows in an order that keeps each node's rows close in
        # memory (see curvedtrees.klein._rows); every tree's rows are renumbered once (trees
        # that share their rows share the renumbering).
        order = locality_order(F, threads=_threads(estimator))
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        F = F[order]
        HT = np.ascontiguousarray(HT[:, order])
        relabelled = {}
        for job in jobs:
            key = (id(job.rows), job.leaf is not None)
            if key not in relabelled:
                # The original array is kept with its renumbering so that its id is not
                # reused by another tree's rows while the dict is alive.
                relabelled[key] = (job.rows, relabel_rows(job.rows, rank, keep_order=job.leaf is not None))
            job.rows = relabelled[key][1]
    data = KleinData(np.ascontiguousarray(F.T, dtype=np.float64), HT, feat_x0, feat_radius, backend.rule)
    # Shared by the trees to choose their H passes (window sizes, see
    # _tuning.DENSE_WINDOW_SHARE) and block floors of x0 for far-out components.
    hints = RouteHints(np.zeros(F.shape[1]), x0_floors(HT, feat_x0, feat_radius, tuning.floor_shift, tuning.floor_pays))
    write_tree = getattr(backend, "write_tree", None)
    results = _correct_all(jobs, data, hints, tuning, F, estimator, write_tree)
    if write_tree is None:
        backend.write([r[0] for r in results])
    return _summary(results)


def _write_all(backend, results):
    """Write every tree's new thresholds (``results``: per tree, the kernels' ``(new_threshold, nearest, status)``)."""
    write_tree = getattr(backend, "write_tree", None)
    if write_tree is None:
        backend.write([r[0] for r in results])
        return
    for index, result in enumerate(results):
        write_tree(index, result[0])


def _summary(results):
    """``(nearest per tree, n_moved, n_kept)`` from the kernels' per-tree results."""
    n_moved = sum(int(np.sum(r[2] == STATUS_MOVED)) for r in results)
    n_kept = sum(int(np.sum(r[2] > STATUS_MOVED)) for r in results)
    return [r[1] for r in results], n_moved, n_kept
