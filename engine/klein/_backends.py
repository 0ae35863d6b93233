"""Adapters between tree libraries and the threshold correction.

Each adapter reads a fitted model's trees as parallel arrays (children, feature,
threshold), finds the rows that trained each tree, and writes corrected thresholds
back in the library's own format. The rows are sent down each tree with the
library's own comparison (float precision and ``<`` or ``<=``), reproduced in
:func:`engine.klein._correct.correct_tree`; the tests check it against every
library's own leaf assignment (``apply`` / ``pred_leaf``):

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
import re
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from engine.klein._correct import (
    RULE_F32_LE,
    RULE_F32_LT,
    RULE_F64_LE,
    STATUS_MOVED,
    correct_tree,
    correct_tree_from_leaves,
)

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
    """One tree: its arrays and its rows (and, where the library must route them, their leaves)."""

    __slots__ = ("expected_rows", "feature", "leaf", "left", "right", "rows", "threshold")

    def __init__(self, left, right, feature, threshold, rows, leaf=None, expected_rows=None):
        self.left = np.ascontiguousarray(left, dtype=np.int64)
        self.right = np.ascontiguousarray(right, dtype=np.int64)
        self.feature = np.ascontiguousarray(feature, dtype=np.int64)
        self.threshold = np.ascontiguousarray(threshold, dtype=np.float64)
        self.rows = rows
        self.leaf = leaf  # None: route with the rule; else the library's leaf of each row
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
        base_rows = _nonzero_rows(sample_weight, n)
        if self.kind == "forest" and getattr(self.estimator, "bootstrap", False):
            row_sets = [np.unique(idx).astype(np.int64) for idx in self.estimator.estimators_samples_]
        else:
            row_sets = None
        jobs = []
        for t, tree in enumerate(self._trees()):
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
            jobs.append(_TreeJob(*self._arrays(nodes), rows, expected_rows=int(nodes["count"][0])))
        return jobs

    def write(self, thresholds):
        for predictor, new in zip(self._predictors(), thresholds):
            internal = ~predictor.nodes["is_leaf"].astype(bool)
            predictor.nodes["num_threshold"][internal] = new[internal]

    def tree_arrays(self):
        return [self._arrays(p.nodes) for p in self._predictors()]


# ------------------------------------------------------------------------ XGBoost
# One tree's split conditions in XGBoost's JSON text: a flat list of numbers.
_SPLIT_CONDITIONS = re.compile(r'"split_conditions":\[[^\]]*\]')


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
        self.text = bytes(self.booster.save_raw(raw_format="json")).decode("utf-8")
        self.model = json.loads(self.text)
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
        rows = _nonzero_rows(sample_weight, F.shape[0])
        return [_TreeJob(*self._arrays(tree), rows) for tree in self.trees]

    def write(self, thresholds):
        # Rewrite only the split_conditions arrays in XGBoost's own JSON text (one per
        # tree, in tree order) instead of re-serialising the whole parsed model: same
        # result, a fraction of the time for large ensembles. Leaves keep their values
        # (XGBoost stores leaf weights in the same array).
        pieces = _SPLIT_CONDITIONS.split(self.text)
        if len(pieces) != len(self.trees) + 1:
            raise ValueError("unexpected XGBoost JSON layout: cannot locate every tree's split conditions")
        out = [pieces[0]]
        for tree, new, rest in zip(self.trees, thresholds, pieces[1:]):
            internal = np.asarray(tree["left_children"]) != -1
            values = np.where(internal, new.astype(np.float32), np.asarray(tree["split_conditions"], np.float32))
            out.append('"split_conditions":[' + ",".join(map(repr, values.astype(np.float64).tolist())) + "]")
            out.append(rest)
        self.booster.load_model(bytearray("".join(out).encode("utf-8")))

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
        self.zero_as_missing = False
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
            # decision_type bits 2-3 hold the missing-value type; 1 is "zero as missing".
            if np.any((ints("decision_type") >> 2) & 3 == 1):
                self.zero_as_missing = True

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
            jobs.append(_TreeJob(*tree["arrays"], rows, leaf=leaf, expected_rows=tree.get("root_count")))
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
    if job.leaf is None:
        return correct_tree(
            job.left, job.right, job.feature, job.threshold, job.rows, FT, HT, feat_x0, feat_xj, feat_radius, rule
        )
    return correct_tree_from_leaves(
        job.left, job.right, job.feature, job.threshold, job.leaf, job.rows, FT, HT, feat_x0, feat_xj, feat_radius, rule
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
        1 for job in jobs if job.expected_rows is not None and job.left[0] != -1 and job.expected_rows != len(job.rows)
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
