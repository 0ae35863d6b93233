"""Adapters between tree libraries and the threshold correction.

Each adapter reads a fitted model's trees as parallel arrays (children, feature,
threshold), finds the rows that trained each tree and the leaf each of them
reaches *by the library's own routing*, and writes corrected thresholds back in
the library's own format:

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

import json
import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from engine.klein._correct import RULE_F32_LE, RULE_F32_LT, RULE_F64_LE, STATUS_MOVED, correct_tree

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
    """One tree: its arrays, its rows and how to get their leaves."""

    __slots__ = ("expected_rows", "feature", "leaf", "left", "right", "rows", "threshold")

    def __init__(self, left, right, feature, threshold, rows, leaf, expected_rows=None):
        self.left = np.ascontiguousarray(left, dtype=np.int64)
        self.right = np.ascontiguousarray(right, dtype=np.int64)
        self.feature = np.ascontiguousarray(feature, dtype=np.int64)
        self.threshold = np.ascontiguousarray(threshold, dtype=np.float64)
        self.rows = rows
        self.leaf = leaf  # ndarray, or a callable returning one (computed in the worker thread)
        self.expected_rows = expected_rows  # the library's own count of the tree's rows, if known


# ------------------------------------------------------------------- scikit-learn
class _SklearnTrees:
    """DecisionTree*, ExtraTree*, RandomForest*, ExtraTrees*, GradientBoosting*."""

    rule = RULE_F32_LE

    def __init__(self, estimator, kind):
        self.estimator = estimator
        self.kind = kind  # "tree", "forest" or "boosting"

    def _trees(self):
        if self.kind == "tree":
            return [self.estimator]
        if self.kind == "forest":
            return list(self.estimator.estimators_)
        return list(np.asarray(self.estimator.estimators_).ravel())

    def jobs(self, F, sample_weight):
        n = F.shape[0]
        F32 = np.ascontiguousarray(F, dtype=np.float32)
        base_rows = _nonzero_rows(sample_weight, n)
        if self.kind == "forest" and getattr(self.estimator, "bootstrap", False):
            row_sets = [np.unique(idx).astype(np.int64) for idx in self.estimator.estimators_samples_]
        else:
            row_sets = None
        jobs = []
        for t, tree in enumerate(self._trees()):
            rows = row_sets[t] if row_sets is not None else base_rows
            nodes = tree.tree_

            def leaf(tree=tree, rows=rows):
                return tree.apply(F32[rows], check_input=False).astype(np.int64)

            jobs.append(
                _TreeJob(
                    nodes.children_left,
                    nodes.children_right,
                    nodes.feature,
                    nodes.threshold,
                    rows,
                    leaf,
                    expected_rows=int(nodes.n_node_samples[0]),
                )
            )
        return jobs

    def write(self, thresholds):
        for tree, new in zip(self._trees(), thresholds):
            tree.tree_.threshold[:] = new

    def tree_arrays(self):
        return [
            (t.tree_.children_left, t.tree_.children_right, t.tree_.feature, t.tree_.threshold) for t in self._trees()
        ]


@njit(cache=True, nogil=True)
def _route_f64(left, right, feature, threshold, X):
    """Leaf of each row for ``x <= t`` routing on float64 values."""
    out = np.empty(X.shape[0], dtype=np.int64)
    for r in range(X.shape[0]):
        node = 0
        while left[node] != -1:
            if X[r, feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[r] = node
    return out


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
        F_rows = np.ascontiguousarray(F[rows])
        jobs = []
        for predictor in self._predictors():
            nodes = predictor.nodes
            if np.any(nodes["is_categorical"][~nodes["is_leaf"].astype(bool)]):
                raise ValueError("categorical splits of HistGradientBoosting cannot be corrected; use numeric features")
            left, right, feature, threshold = self._arrays(nodes)

            def leaf(left=left, right=right, feature=feature, threshold=threshold):
                return _route_f64(left, right, feature, threshold, F_rows)

            jobs.append(_TreeJob(left, right, feature, threshold, rows, leaf, expected_rows=int(nodes["count"][0])))
        return jobs

    def write(self, thresholds):
        for predictor, new in zip(self._predictors(), thresholds):
            internal = ~predictor.nodes["is_leaf"].astype(bool)
            predictor.nodes["num_threshold"][internal] = new[internal]

    def tree_arrays(self):
        return [self._arrays(p.nodes) for p in self._predictors()]


# ------------------------------------------------------------------------ XGBoost
def _xgb_trees(model: dict) -> list:
    booster = model["learner"]["gradient_booster"]
    name = booster.get("name")
    if name == "gbtree":
        return booster["model"]["trees"]
    if name == "dart":
        return booster["gbtree"]["model"]["trees"]
    raise ValueError(f"XGBoost booster {name!r} has no trees to correct; use booster='gbtree' or 'dart'")


class _XGBoost:
    """XGBoost: JSON model, ``float32(x) < split_condition`` goes left."""

    rule = RULE_F32_LT

    def __init__(self, estimator):
        self.estimator = estimator
        self.booster = estimator.get_booster()
        self.model = json.loads(bytes(self.booster.save_raw(raw_format="json")))
        self.trees = _xgb_trees(self.model)

    @staticmethod
    def _arrays(tree):
        left = np.asarray(tree["left_children"], dtype=np.int64)
        right = np.asarray(tree["right_children"], dtype=np.int64)
        feature = np.asarray(tree["split_indices"], dtype=np.int64)
        # XGBoost stores float32 values and writes their shortest float32 spelling to JSON:
        # parse through float32 to recover the exact values it compares with.
        threshold = np.asarray(tree["split_conditions"], dtype=np.float32).astype(np.float64)
        split_type = np.asarray(tree.get("split_type", [0] * len(left)))
        if np.any(split_type[left != -1] != 0):
            raise ValueError("categorical splits of XGBoost cannot be corrected; use numeric features")
        return left, right, feature, threshold

    def jobs(self, F, sample_weight):
        import xgboost

        rows = _nonzero_rows(sample_weight, F.shape[0])
        matrix = xgboost.DMatrix(np.ascontiguousarray(F[rows], dtype=np.float32), nthread=_threads(self.estimator))
        leaves = np.asarray(self.booster.predict(matrix, pred_leaf=True)).reshape(len(rows), -1)
        if leaves.shape[1] != len(self.trees):
            raise ValueError(
                f"XGBoost returned leaves for {leaves.shape[1]} trees but the model has {len(self.trees)}; "
                "cannot correct this model"
            )
        leaves = np.ascontiguousarray(leaves.T.astype(np.int64))
        return [_TreeJob(*self._arrays(tree), rows, leaves[t]) for t, tree in enumerate(self.trees)]

    def write(self, thresholds):
        for tree, new in zip(self.trees, thresholds):
            internal = np.asarray(tree["left_children"]) != -1
            conditions = tree["split_conditions"]
            for node in np.flatnonzero(internal):
                conditions[node] = float(np.float32(new[node]))
        self.booster.load_model(bytearray(json.dumps(self.model).encode("utf-8")))

    def tree_arrays(self):
        return [self._arrays(tree) for tree in self.trees]

    def row_sampling(self) -> bool:
        params = self.estimator.get_xgb_params()
        subsample = params.get("subsample")
        return (subsample is not None and subsample < 1) or params.get("sampling_method") == "gradient_based"


# ----------------------------------------------------------------------- LightGBM
class _LightGBMModel:
    """LightGBM's text model: per-tree node arrays and the lines to rewrite."""

    def __init__(self, text: str):
        self.lines = text.split("\n")
        self.trees = []  # dicts: first line, last line, threshold line, arrays
        current = None
        for number, line in enumerate(self.lines):
            if line.startswith("Tree="):
                if current is not None:
                    current["end"] = number
                current = {"start": number, "fields": {}, "lines": {}}
                self.trees.append(current)
            elif line.startswith("end of trees"):
                if current is not None:
                    current["end"] = number
                current = None
                break
            elif current is not None and "=" in line:
                key, value = line.split("=", 1)
                current["fields"][key] = value
                current["lines"][key] = number
        for tree in self.trees:
            fields = tree["fields"]
            n_leaves = int(fields["num_leaves"])
            n_internal = n_leaves - 1
            tree["n_internal"] = n_internal
            if n_internal == 0:
                tree["arrays"] = (np.array([-1]), np.array([-1]), np.array([-1]), np.array([0.0]))
                continue
            if int(fields.get("num_cat", "0")) > 0:
                raise ValueError("categorical splits of LightGBM cannot be corrected; use numeric features")

            def ints(key, fields=fields):
                return np.asarray(fields[key].split(), dtype=np.int64)

            def to_node(child, n_internal=n_internal):
                # Internal nodes keep their index; leaf l (stored as ~l) becomes n_internal + l.
                return np.where(child >= 0, child, n_internal + ~child)

            n_nodes = n_internal + n_leaves
            left = np.full(n_nodes, -1, dtype=np.int64)
            right = np.full(n_nodes, -1, dtype=np.int64)
            feature = np.full(n_nodes, -1, dtype=np.int64)
            threshold = np.zeros(n_nodes)
            left[:n_internal] = to_node(ints("left_child"))
            right[:n_internal] = to_node(ints("right_child"))
            feature[:n_internal] = ints("split_feature")
            threshold[:n_internal] = np.asarray(fields["threshold"].split(), dtype=np.float64)
            tree["arrays"] = (left, right, feature, threshold)
            tree["root_count"] = int(fields["internal_count"].split()[0]) if "internal_count" in fields else None

    def text(self, thresholds) -> str:
        lines = list(self.lines)
        for tree, new in zip(self.trees, thresholds):
            if tree["n_internal"] > 0:
                values = " ".join(repr(float(v)) for v in new[: tree["n_internal"]])
                lines[tree["lines"]["threshold"]] = f"threshold={values}"
        # The header lists each tree block's size in bytes; LightGBM uses it to find the
        # trees, so it must match the rewritten blocks.
        sizes = [sum(len(line) + 1 for line in lines[tree["start"] : tree["end"]]) for tree in self.trees]
        for number, line in enumerate(lines):
            if line.startswith("tree_sizes="):
                lines[number] = "tree_sizes=" + " ".join(str(s) for s in sizes)
                break
            if line.startswith("Tree="):
                break
        return "\n".join(lines)

    def original_sizes_match(self) -> bool:
        for line in self.lines:
            if line.startswith("tree_sizes="):
                stored = [int(v) for v in line.split("=", 1)[1].split()]
                sizes = [sum(len(x) + 1 for x in self.lines[t["start"] : t["end"]]) for t in self.trees]
                return stored == sizes
            if line.startswith("Tree="):
                break
        return True


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
        leaves = np.asarray(
            self.booster.predict(np.ascontiguousarray(F[rows]), pred_leaf=True, num_threads=_threads(self.estimator))
        ).reshape(len(rows), -1)
        if leaves.shape[1] != len(self.model.trees):
            raise ValueError(
                f"LightGBM returned leaves for {leaves.shape[1]} trees but the model has {len(self.model.trees)}"
            )
        jobs = []
        for t, tree in enumerate(self.model.trees):
            left, right, feature, threshold = tree["arrays"]
            leaf = (leaves[:, t].astype(np.int64) + tree["n_internal"]) if tree["n_internal"] else None
            jobs.append(_TreeJob(left, right, feature, threshold, rows, leaf, expected_rows=tree.get("root_count")))
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


def _run(job, FT, HT, feat_x0, feat_xj, feat_radius, rule):
    if job.leaf is None:  # a single-leaf tree: nothing to move
        return job.threshold.copy(), np.full(len(job.threshold), np.nan), np.full(len(job.threshold), -1, np.int8)
    leaf = job.leaf() if callable(job.leaf) else job.leaf
    return correct_tree(
        job.left, job.right, job.feature, job.threshold, leaf, job.rows, FT, HT, feat_x0, feat_xj, feat_radius, rule
    )


def correct_estimator(estimator, F, HT, feat_x0, feat_xj, feat_radius, sample_weight=None):
    """Correct every tree of a fitted estimator in place.

    Parameters
    ----------
    estimator : fitted supported estimator
        Fitted on ``F``.
    F : ndarray of shape (n_samples, n_features), float64
        The features it was fitted on.
    HT : ndarray of shape (n_h_columns, n_samples), float64
        Hyperboloid coordinates of the H components (feature-major).
    feat_x0, feat_xj, feat_radius : ndarray of shape (n_features,)
        See :func:`engine.klein._correct.correct_tree`.
    sample_weight : ndarray of shape (n_samples,) or None
        Rows with zero weight did not train the trees and are left out.

    Returns
    -------
    margins : list of ndarray
        Per tree, the geodesic margin of each node (NaN at leaves and unmoved nodes).
    n_moved : int
        Internal nodes whose threshold was recomputed.
    n_kept : int
        Internal nodes left unchanged because the rows' values did not match the stored
        threshold (for example LightGBM's zero-as-missing routing).
    """
    backend = backend_for(estimator)
    FT = np.ascontiguousarray(F.T, dtype=np.float64)
    jobs = backend.jobs(F, sample_weight)
    mismatched = sum(
        1
        for job in jobs
        if job.expected_rows is not None and job.leaf is not None and job.expected_rows != len(job.rows)
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
    args = (FT, HT, feat_x0, feat_xj, feat_radius, backend.rule)
    threads = min(_threads(estimator), len(jobs))
    if threads > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(lambda job: _run(job, *args), jobs))
    else:
        results = [_run(job, *args) for job in jobs]
    backend.write([r[0] for r in results])
    n_moved = sum(int(np.sum(r[2] == STATUS_MOVED)) for r in results)
    n_kept = sum(int(np.sum(r[2] > STATUS_MOVED)) for r in results)
    return [r[1] for r in results], n_moved, n_kept
