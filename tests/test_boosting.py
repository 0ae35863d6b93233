"""Gradient-boosted product trees: scikit-learn's HistGradientBoosting on E, circular
splits on S, maximum-margin thresholds, JSON model files and scikit-learn's checks."""

from __future__ import annotations

import itertools
import json
import math

import curvedtrees.boosting  # noqa: F401  (registers the serialiser before curvedtrees.io needs it)
import numba
import numpy as np
import pytest
from curvedtrees import io
from curvedtrees.boosting import ProductGradientBoostingClassifier, ProductGradientBoostingRegressor
from curvedtrees.boosting._binning import PlaneBins, circular_cut
from curvedtrees.boosting._grower import code_minimum, partition_rows, split_node
from curvedtrees.boosting._histogram import HistogramCodes, brute_force_split, build_histograms, find_split
from curvedtrees.manifolds import ProductManifold
from curvedtrees.sampling import make_classification
from curvedtrees.trees._features import CIRCULAR, LIFT, TIMELIKE, SplitFeatures
from curvedtrees.trees._margin import hyperbolic_threshold, lift_threshold
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks


@parametrize_with_checks(
    [ProductGradientBoostingClassifier(random_state=0), ProductGradientBoostingRegressor(random_state=0)]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------- Euclidean = scikit-learn
def _euclidean_data(n=1500, d=4, seed=0, n_classes=2, integer=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if integer:
        X = np.round(X * 20)  # fewer distinct values than max_bins: midpoint bins
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.3 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n)
    if n_classes == 0:
        return X, score
    edges = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    return X, np.searchsorted(edges, score)


HGB_CASES = [
    ("binary", dict(), 2, False),
    ("multiclass", dict(), 3, False),
    ("binary-integer", dict(max_depth=3, l2_regularization=1.0), 2, True),
    ("binary-shape", dict(max_leaf_nodes=7, min_samples_leaf=5, learning_rate=0.3, max_bins=32), 2, False),
    ("squared_error", dict(), 0, False),
    ("absolute_error", dict(loss="absolute_error"), 0, False),
]


@pytest.mark.parametrize(("name", "params", "n_classes", "integer"), HGB_CASES, ids=[c[0] for c in HGB_CASES])
def test_euclidean_ensemble_is_histgradientboosting(name, params, n_classes, integer):
    X, y = _euclidean_data(n_classes=n_classes, integer=integer)
    X_new, _ = _euclidean_data(n=800, seed=1, n_classes=n_classes, integer=integer)
    common = dict(max_iter=15, early_stopping=False, random_state=0, **params)
    if n_classes:
        ours_cls, ref = ProductGradientBoostingClassifier, HistGradientBoostingClassifier(**common)
        output = "decision_function"
    else:
        ours_cls, ref = ProductGradientBoostingRegressor, HistGradientBoostingRegressor(**common)
        output = "predict"
    ref.fit(X, y)
    edges = ours_cls(thresholds="bins", **common).fit(X, y)
    margin = ours_cls(**common).fit(X, y)
    for f in range(X.shape[1]):
        assert_array_equal(edges.bin_thresholds_.plane_thresholds(f), ref._bin_mapper.bin_thresholds_[f])
    # Bin-edge thresholds: scikit-learn's model, everywhere.
    assert_allclose(getattr(edges, output)(X_new), getattr(ref, output)(X_new), rtol=1e-9, atol=1e-9)
    # Maximum-margin thresholds: the same partitions of the training rows, so the same
    # ensemble on them; new rows between a bin edge and a training row may differ.
    assert_allclose(getattr(margin, output)(X), getattr(ref, output)(X), rtol=1e-9, atol=1e-9)
    for ours_iter, ref_iter in zip(margin.trees_, ref._predictors, strict=True):
        for tree, predictor in zip(ours_iter, ref_iter, strict=True):
            nodes = predictor.nodes
            assert tree.node_count == nodes.shape[0]
            assert sorted(tree.feature[tree.feature >= 0]) == sorted(nodes["feature_idx"][nodes["is_leaf"] == 0])


def test_early_stopping_matches_histgradientboosting_and_stops():
    X, y = _euclidean_data(n=3000, n_classes=2)
    y = np.where(np.random.default_rng(5).random(y.size) < 0.3, 1 - y, y)  # noisy labels: overfitting comes soon
    common = dict(max_iter=300, early_stopping=True, n_iter_no_change=5, validation_fraction=0.2, random_state=3)
    ours = ProductGradientBoostingClassifier(thresholds="bins", **common).fit(X, y)
    ref = HistGradientBoostingClassifier(**common).fit(X, y)
    assert ours.n_iter_ < 300
    assert ours.n_iter_ == ref.n_iter_
    assert ours.validation_score_.shape == (ours.n_iter_ + 1,)
    assert_allclose(ours.validation_score_, ref.validation_score_, rtol=1e-9)
    assert_allclose(ours.train_score_, ref.train_score_, rtol=1e-9)
    # The rule itself: the last n_iter_no_change scores do not beat the one before them by tol.
    scores = ours.validation_score_
    assert not np.any(scores[-5:] > scores[-6] + ours.tol)


def test_scores_are_empty_without_early_stopping():
    X, y = _euclidean_data(n=300)
    model = ProductGradientBoostingClassifier(max_iter=4).fit(X, y)
    assert not model.do_early_stopping_ and model.n_iter_ == 4
    assert model.train_score_.shape == (0,) and model.validation_score_.shape == (0,)


# ------------------------------------------------------------ split search
def test_histogram_split_search_equals_brute_force():
    rng = np.random.default_rng(0)
    n = 400
    kinds = np.array([LIFT, CIRCULAR, TIMELIKE, CIRCULAR], dtype=np.int8)
    half = np.array([7, 5, 3, 4], dtype=np.int64)
    n_codes = np.where(kinds == CIRCULAR, 2 * half + 1, half)
    codes = np.stack([rng.integers(0, k, n) for k in n_codes]).astype(np.uint16)
    offsets = np.concatenate([[0], np.cumsum(n_codes)]).astype(np.int64)
    for trial in range(20):
        gradients = rng.normal(size=n).astype(np.float32)
        hessians = rng.uniform(0.01, 1.0, size=n).astype(np.float32)
        # A signal on an arc of the circular plane that wraps past its last code.
        gradients[np.isin(codes[1], [8, 9, 0, 1])] -= 1.5 * (trial % 2)
        rows = np.sort(rng.choice(n, 300, replace=False)).astype(np.int64)
        hist = np.empty((offsets[-1], 3))
        gh = np.column_stack([gradients, hessians])
        build_histograms(
            HistogramCodes(codes, kinds, half), rows, 0, rows.size, gh, offsets, hist, np.empty((n, 2), np.float32)
        )
        sum_g = float(gradients[rows].astype(np.float64).sum())
        sum_h = float(hessians[rows].astype(np.float64).sum())
        fast = find_split(hist, kinds, half, offsets, sum_g, sum_h, rows.size, 0.5, 10, 1e-3)
        slow = brute_force_split(codes, rows, gradients, hessians, kinds, half, 0.5, 10, 1e-3)
        assert fast[1:3] == slow[1:3]
        assert_allclose(fast[0], slow[0], rtol=1e-6)
        assert fast[5] == slow[5]


@pytest.mark.parametrize("threads", [1, 2])
def test_histograms_sum_each_bin_in_row_order_from_one_byte_codes(threads):
    # HistogramCodes stores a circular code a + B h as a byte and a bit, the origin's 2 B
    # as a = B, h = 1; with B = 255 every byte value is used. The sums must be those of
    # adding each row's float32 gradient and hessian to its bin in row order.
    rng = np.random.default_rng(3)
    n = 5000
    kinds = np.array([CIRCULAR, LIFT, CIRCULAR, TIMELIKE], dtype=np.int8)
    half = np.array([255, 255, 6, 2], dtype=np.int64)
    n_codes = np.where(kinds == CIRCULAR, 2 * half + 1, half)
    codes = np.stack([rng.integers(0, k, n) for k in n_codes]).astype(np.uint16)
    codes[0, :40] = 2 * 255  # rows at the origin of the circular planes
    codes[2, 40:60] = 2 * 6
    codes[0, 60:80] = 2 * 255 - 1  # the last code of the second half-turn
    offsets = np.concatenate([[0], np.cumsum(n_codes)]).astype(np.int64)
    gh = rng.normal(size=(n, 2)).astype(np.float32)
    packed = HistogramCodes(codes, kinds, half)
    scratch = np.empty((n, 2), np.float32)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(threads)
        for rows, in_order in ((np.arange(n), True), (np.sort(rng.choice(n, 3000, replace=False)), False)):
            got = np.empty((offsets[-1], 3))
            build_histograms(packed, rows, 0, rows.size, gh, offsets, got, scratch, in_order=in_order)
            want = np.zeros((offsets[-1], 3))
            bins = codes[:, rows].astype(np.int64) + offsets[:-1, None]
            for f in range(kinds.size):
                np.add.at(want[:, 0], bins[f], gh[rows, 0].astype(np.float64))  # in row order, as the kernel
                np.add.at(want[:, 1], bins[f], gh[rows, 1].astype(np.float64))
                np.add.at(want[:, 2], bins[f], 1.0)
            assert_array_equal(got, want)
    finally:
        numba.set_num_threads(before)


def test_circular_bins_are_half_turn_symmetric_and_turn_with_the_data():
    rng = np.random.default_rng(1)
    theta = rng.uniform(0, 2 * np.pi, 3000)
    V = theta[None, :]
    bins = PlaneBins.fit(V, np.array([CIRCULAR], dtype=np.int8), 40, np.random.RandomState(0))
    codes = bins.transform(V)[0].astype(np.int64)
    B = int(bins.half[0])
    assert B == 40 and codes.max() < 2 * B
    # A point and its antipode get codes B apart.
    antipode = bins.transform(((theta + np.pi) % (2 * np.pi))[None, :])[0].astype(np.int64)
    assert np.mean((codes + B) % (2 * B) == antipode) > 0.99
    # The cut sits in the widest gap of the axial keys, so it turns with the data.
    assert circular_cut(np.array([0.1, 0.2, 2.5])) == pytest.approx((0.2 + 2.5) / 2)
    assert circular_cut(np.array([0.1 + np.pi, 0.2, 2.5])) == pytest.approx((0.2 + 2.5) / 2)  # antipodes fold
    assert circular_cut(np.array([0.1, 0.2, 1.0])) == pytest.approx((1.0 + 0.1 + np.pi) / 2)  # across v = 0


# ----------------------------------------------------------------- circles
def _circle(n, seed, centre, half_width, gap=0.05):
    """S1 points; class 1 on the arc ``|theta - centre| < half_width``, none within ``gap`` of its ends."""
    rng = np.random.default_rng(seed)
    theta = rng.uniform(-np.pi, np.pi, 4 * n)
    offset = np.angle(np.exp(1j * (theta - centre)))
    keep = np.abs(np.abs(offset) - half_width) > gap
    theta, offset = theta[keep][:n], offset[keep][:n]
    X = np.column_stack([np.cos(theta), np.sin(theta)])
    return X, (np.abs(offset) < half_width).astype(int)


@pytest.mark.parametrize("centre", [np.pi, 0.0, 2.0], ids=["across-pi", "across-0", "inside"])
def test_an_arc_across_the_seam_is_learnt_exactly(centre):
    X, y = _circle(1500, 0, centre, 0.6)
    # New rows keep further from the arc's ends than the training rows do: the boundary
    # lies somewhere in the training rows' gap there.
    X_new, y_new = _circle(3000, 1, centre, 0.6, gap=0.15)
    model = ProductGradientBoostingClassifier(signature="S1", max_iter=30, max_leaf_nodes=3).fit(X, y)
    assert np.all(model.predict(X) == y)
    assert np.all(model.predict(X_new) == y_new)


def _rotate(X, angles, starts):
    X = X.copy()
    for alpha, s in zip(angles, starts, strict=True):
        c, s_ = math.cos(alpha), math.sin(alpha)
        x, y = X[:, s].copy(), X[:, s + 1].copy()
        X[:, s], X[:, s + 1] = c * x - s_ * y, s_ * x + c * y
    return X


@pytest.mark.parametrize("thresholds", ["margin", "bins"])
def test_rotating_every_circle_leaves_predictions_unchanged(thresholds):
    signature = "S1 x S1 x E1"
    X, y = make_classification(signature, n_samples=1500, n_classes=4, random_state=0)
    X_new, _ = make_classification(signature, n_samples=1000, n_classes=4, random_state=1)
    params = dict(signature=signature, max_iter=10, max_bins=16, thresholds=thresholds, random_state=0)
    model = ProductGradientBoostingClassifier(**params).fit(X, y)
    for angles in ([2.0, -1.0], [np.pi, 0.5], [0.3, 3.0]):
        turned = ProductGradientBoostingClassifier(**params).fit(_rotate(X, angles, [0, 2]), y)
        assert_allclose(turned.predict_proba(_rotate(X_new, angles, [0, 2])), model.predict_proba(X_new), atol=1e-9)


# ----------------------------------------------------------- margins
@pytest.mark.parametrize("signature", ["E1", "H1", "S1"])
def test_maximum_margin_thresholds_do_not_depend_on_bin_edges(signature):
    # Two groups with a wide gap between them: every bin count finds the same split.
    rng = np.random.default_rng(2)
    u = np.concatenate([rng.uniform(-1.2, -0.4, 150), rng.uniform(0.5, 1.1, 150)])
    y = (u > 0).astype(int)
    if signature == "E1":
        X = u[:, None]
    elif signature == "H1":
        X = np.column_stack([np.cosh(u), np.sinh(u)])
    else:
        X = np.column_stack([np.cos(u), np.sin(u)])
    stumps = {}
    for thresholds in ("margin", "bins"):
        for max_bins in (4, 255):
            model = ProductGradientBoostingClassifier(
                signature=signature, max_iter=1, max_depth=1, max_bins=max_bins, thresholds=thresholds
            ).fit(X, y)
            tree = model.trees_[0][0]
            stumps[thresholds, max_bins] = (tree.threshold[0], tree.normal[0].copy(), tree.margin[0])
    assert_allclose(stumps["margin", 4][1], stumps["margin", 255][1], rtol=0, atol=1e-12)
    # The margin is half the gap between the groups, measured along the geodesic (u is
    # arc length on H1 and S1).
    half_gap = (u[u > 0].min() - u[u < 0].max()) / 2
    assert stumps["margin", 4][2] == pytest.approx(half_gap, rel=1e-9)
    if signature != "S1":
        # scikit-learn's edges: a percentile with 255 bins (a training value), the
        # average of the two middle values with 4.
        assert not np.allclose(stumps["bins", 4][1], stumps["bins", 255][1], rtol=0, atol=1e-6)
        assert stumps["bins", 255][2] < 1e-12


def _split(X, V, codes, counts, rows, f, features, bins, position, plane_radius=None, code_min_radius=None):
    """split_node on a copy of ``rows`` (it partitions them in place): ``(rows after, mid, boundary)``."""
    rows = rows.copy()
    empty = np.empty(0)
    out = split_node(
        X,
        V[f],
        codes,
        counts,
        rows,
        0,
        rows.size,
        f,
        int(features.kind[f]),
        int(features.col_i[f]),
        int(features.col_j[f]),
        float(bins.cut[f]),
        int(bins.half[f]),
        position,
        bins.thresholds,
        int(bins.thr_offsets[f]),
        int(features.geometry[f]),
        float(features.radius[f]),
        empty if plane_radius is None else plane_radius,
        empty if code_min_radius is None else code_min_radius,
        True,
        np.empty(rows.size, dtype=np.int64),
        np.empty(rows.size, dtype=np.int64),
    )
    return rows, out[0], out[1:]


@pytest.mark.parametrize("scale", [0.5, 3.0])
def test_pruned_boundary_search_equals_the_search_on_every_row(scale):
    # split_node lists only the rows of the bins that can hold the nearest rows, in the
    # partition's pass; the boundary must be the one found from all of the node's rows,
    # and the partition the plain one.
    signature = "H2(-0.5) x E1"
    X = ProductManifold(signature).random_normal(3000, std=scale, random_state=0)
    features = SplitFeatures.from_signature(signature)
    V = features.values(X)
    bins = PlaneBins.fit(V, features.kind, 64, np.random.RandomState(0))
    codes = bins.transform(V)
    rng = np.random.default_rng(0)
    for f in range(features.n_features):
        for _ in range(5):
            rows = np.sort(rng.choice(X.shape[0], 800, replace=False)).astype(np.int64)
            position = int(np.median(codes[f, rows]))
            counts = np.bincount(codes[f, rows], minlength=int(bins.half[f])).astype(float)
            got_rows, mid, got = _split(X, V, codes, counts, rows, f, features, bins, position)
            plain = rows.copy()
            plain_mid = partition_rows(
                codes, plain, 0, rows.size, f, False, int(bins.half[f]), position, np.empty(rows.size, dtype=np.int64)
            )
            assert mid == plain_mid and np.array_equal(got_rows, plain)
            left, right = plain[:mid], plain[mid:]
            assert np.all(codes[f, left] <= position) and np.all(codes[f, right] > position)
            if features.kind[f] == TIMELIKE:
                go_left = np.isin(rows, left)
                want = hyperbolic_threshold(X[rows, features.col_i[f]], X[rows, features.col_j[f]], go_left)
            else:
                want = lift_threshold(V[f, left].max(), V[f, right].min())
            assert got[0] == want[0] and got[3] == want[1]


@pytest.mark.parametrize("signature", ["S2", "S2(4)", "E2", "H3"])
def test_pruned_circular_boundary_equals_the_search_on_every_row(signature):
    # Circular planes: only rows whose distance bound reaches the best margin are read,
    # and of those only the codes whose smallest radius can reach it.
    X = ProductManifold(signature).random_normal(3000, random_state=1)
    features = SplitFeatures.from_signature(signature, "all")
    V = features.values(X)
    bins = PlaneBins.fit(V, features.kind, 32, np.random.RandomState(0))
    codes = bins.transform(V)
    rng = np.random.default_rng(1)
    n_checked = 0
    for f in np.flatnonzero(features.kind == CIRCULAR):
        half = int(bins.half[f])
        radius = np.hypot(X[:, features.col_i[f]], X[:, features.col_j[f]])
        min_radius = code_minimum(codes[f], radius, 2 * half + 1)
        for trial in range(6):
            rows = np.sort(rng.choice(X.shape[0], 200 if trial % 2 else 2000, replace=False)).astype(np.int64)
            position = int(rng.integers(0, half))
            plain = rows.copy()
            mid = partition_rows(codes, plain, 0, rows.size, f, True, half, position, np.empty(rows.size, np.int64))
            if mid in (0, rows.size):
                continue
            # The plain partition: the half-turn window position .. position + half - 1 goes right.
            window = (codes[f, rows].astype(int) - position) % (2 * half) < half
            assert np.array_equal(plain[mid:], rows[window & (codes[f, rows] != 2 * half)])
            counts = np.bincount(codes[f, rows], minlength=2 * half + 1).astype(float)
            got_rows, got_mid, got = _split(X, V, codes, counts, rows, f, features, bins, position, radius, min_radius)
            assert got_mid == mid and np.array_equal(got_rows, plain)
            # The same search with every row kept (a zero radius bounds nothing away).
            zero = np.zeros_like(radius)
            _, _, want = _split(X, V, codes, counts, rows, f, features, bins, position, zero, np.zeros_like(min_radius))
            assert got[1:] == want[1:]
            n_checked += 1
    assert n_checked >= 6


def test_product_data_and_importances():
    signature = "H2 x S2 x E2"
    X, y = make_classification(signature, n_samples=1200, n_classes=4, random_state=3)
    for pairs in ("base", "all"):
        model = ProductGradientBoostingClassifier(signature=signature, pairs=pairs, max_iter=20, random_state=0)
        model.fit(X[:900], y[:900])
        assert model.score(X[900:], y[900:]) > 0.5
        assert model.component_importances_.shape == (3,)
        assert model.component_importances_.sum() == pytest.approx(1.0)
        assert model.plane_importances_.shape == (model.split_features_.n_features,)
        assert model.feature_importances_.shape == (model.n_features_in_,)
        assert model.feature_importances_.sum() == pytest.approx(1.0)
        assert len(model.trees_) == 20 and all(len(it) == 4 for it in model.trees_)
    # Only the sphere carries the label: it gets nearly all the gain.
    X, _ = make_classification(signature, n_samples=800, random_state=4)
    y = (X[:, 3] > 0).astype(int)
    model = ProductGradientBoostingClassifier(signature=signature, max_iter=10).fit(X, y)
    assert model.component_importances_[1] > 0.9


def test_staged_predictions_end_at_the_model():
    X, y = _euclidean_data(n=600, n_classes=3)
    model = ProductGradientBoostingClassifier(max_iter=7).fit(X, y)
    stages = list(model.staged_predict_proba(X))
    assert len(stages) == 7
    assert_allclose(stages[-1], model.predict_proba(X))
    assert_array_equal(list(model.staged_predict(X))[-1], model.predict(X))
    assert_allclose(list(model.staged_decision_function(X))[-1], model.decision_function(X))
    Xr, yr = _euclidean_data(n=600, n_classes=0)
    reg = ProductGradientBoostingRegressor(max_iter=5).fit(Xr, yr)
    staged = list(reg.staged_predict(Xr))
    assert len(staged) == 5 and np.allclose(staged[-1], reg.predict(Xr))
    # Each stage fits the training rows better than the one before.
    errors = [np.mean((s - yr) ** 2) for s in staged]
    assert all(a > b for a, b in itertools.pairwise(errors))


def _raw_from_trees(model, X, n_iter):
    """Raw scores of the first ``n_iter`` iterations: a plain loop over trees, in order."""
    raw = np.tile(model.baseline_, (X.shape[0], 1))
    for iteration in model.trees_[:n_iter]:
        for k, tree in enumerate(iteration):
            raw[:, k] += tree.value[tree.apply(X), 0]
    return raw


def test_predictions_add_every_tree_in_order_across_row_blocks():
    # Rows are predicted in blocks of 1,024, tree by tree: every row of every block (the
    # last one partial) must get the sum of its leaves' values in tree order.
    X, y = make_classification("H2 x S2", n_samples=3000, n_classes=3, random_state=2)
    model = ProductGradientBoostingClassifier(signature="H2 x S2", pairs="all", max_iter=4, random_state=0).fit(X, y)
    X_new, _ = make_classification("H2 x S2", n_samples=2500, n_classes=3, random_state=5)
    assert_array_equal(model.decision_function(X_new), _raw_from_trees(model, X_new, 4))
    assert_array_equal(list(model.staged_decision_function(X_new))[1], _raw_from_trees(model, X_new, 2))


def test_results_do_not_depend_on_the_number_of_threads():
    X, y = make_classification("H2 x S2", n_samples=2000, n_classes=3, random_state=0)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = ProductGradientBoostingClassifier(signature="H2 x S2", max_iter=5).fit(X, y).decision_function(X)
        numba.set_num_threads(before)
        many = ProductGradientBoostingClassifier(signature="H2 x S2", max_iter=5).fit(X, y).decision_function(X)
    finally:
        numba.set_num_threads(before)
    assert_array_equal(one, many)


# -------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("params", "message"),
    [
        (dict(loss="squared_error"), r"'loss' parameter of \w+ must be a str among \{'log_loss'\}"),
        (dict(max_bins=256), r"'max_bins' parameter .* in the range \[2, 255\]. Got 256"),
        (dict(max_leaf_nodes=1), r"'max_leaf_nodes' parameter .* in the range \[2, inf\) or None"),
        (dict(thresholds="edges"), r"'thresholds' parameter .* among \{('bins', 'margin'|'margin', 'bins')\}"),
        (dict(validation_fraction=1.5), "'validation_fraction' parameter"),
        (dict(pairs="some"), r"'pairs' parameter .* among \{('all', 'base'|'base', 'all')\}"),
        (dict(early_stopping="yes"), r"'early_stopping' parameter .* among \{'auto'\} or an instance of 'bool'"),
        (dict(learning_rate=float("nan")), "'learning_rate' parameter .* Got nan"),
        (dict(max_iter=0), "'max_iter' parameter"),
        (dict(tol=-1.0), "'tol' parameter"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = _euclidean_data(n=100)
    with pytest.raises(ValueError, match=message):
        ProductGradientBoostingClassifier(**params).fit(X, y)
    # The regressor has its own losses (a set: either order).
    with pytest.raises(ValueError, match=r"'loss' parameter of \w+ must be a str among \{'(absolute|squared)_error'"):
        ProductGradientBoostingRegressor(loss="log_loss").fit(X, y * 1.0)


def test_off_manifold_rows_and_single_class_are_refused():
    X = ProductManifold("H2").random_normal(50, random_state=0)
    X[7, 0] = 0.5  # below the hyperboloid
    with pytest.raises(ValueError, match="row 7"):
        ProductGradientBoostingClassifier(signature="H2").fit(X, np.arange(50) % 2)
    with pytest.raises(ValueError, match="at least 2 classes"):
        ProductGradientBoostingClassifier().fit(np.zeros((10, 2)), np.ones(10))


# ------------------------------------------------------------- JSON files
@pytest.fixture(scope="module")
def fitted_models():
    signature = "S2 x H2(-0.5) x E1"
    X, y = make_classification(signature, n_samples=600, n_classes=3, random_state=0)
    labels = np.array(["north", "south", "east"])[y]
    return X, [
        ProductGradientBoostingClassifier(signature=signature, pairs="all", max_iter=6, random_state=1).fit(X, labels),
        ProductGradientBoostingClassifier(signature=signature, max_iter=6, early_stopping=True, n_iter_no_change=2).fit(
            X, labels == "north"
        ),
        ProductGradientBoostingRegressor(signature=signature, loss="absolute_error", max_iter=6).fit(X, X[:, 0]),
    ]


def test_json_round_trip_is_exact(fitted_models):
    X, models = fitted_models
    for model in models:
        same = io.loads(io.dumps(model))
        assert type(same) is type(model) and same.get_params() == model.get_params()
        assert_array_equal(same.predict(X), model.predict(X))
        if hasattr(model, "predict_proba"):
            assert_array_equal(same.predict_proba(X), model.predict_proba(X))
        assert_array_equal(same.train_score_, model.train_score_)
        assert same.n_iter_ == model.n_iter_
        assert_array_equal(same.bin_thresholds_.thresholds, model.bin_thresholds_.thresholds)
    unfitted = io.loads(io.dumps(ProductGradientBoostingRegressor(max_iter=3)))
    assert unfitted.max_iter == 3 and not hasattr(unfitted, "trees_")


def _edit(document, path, value):
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


TREE = ("fitted", "trees", 0, 0)
HOSTILE = [
    ("child points back", (*TREE, "children_left", "data", 1), 0, "child ids must point forward"),
    ("leaf value NaN", (*TREE, "value", "data", 2), "nan", "value must be finite"),
    ("wrong array set", (*TREE, "extra"), {"dtype": "int64", "shape": [0], "data": []}, "exactly the arrays"),
    ("feature out of range", (*TREE, "feature", "data", 0), 99, "split features must lie"),
    ("trees per iteration", ("fitted", "n_trees_per_iteration"), 1, "n_trees_per_iteration must be 3"),
    ("baseline shape", ("fitted", "baseline", "shape"), [2], "data must be a list of 2"),
    ("baseline infinite", ("fitted", "baseline", "data", 0), "inf", "baseline must hold 3 finite"),
    ("iteration size", ("fitted", "trees", 0), [], "must be a list of 3 trees"),
    ("no trees", ("fitted", "trees"), [], "list of 1 to"),
    ("bins sizes", ("fitted", "bins", "sizes", "data", 0), 300, "sizes must lie in"),
    ("scores", ("fitted", "train_score"), {"dtype": "float64", "shape": [2], "data": [0, 0]}, "n_iter \\+ 1"),
    ("huge array", (*TREE, "margin", "shape"), [10**9], "exceed the limit"),
    ("signature", ("fitted", "signature"), "H2 x Q3", "fitted"),
    ("early flag", ("fitted", "do_early_stopping"), "yes", "do_early_stopping must be"),
    # Stored parameters are validated at load, as fit would validate them.
    ("max_bins", ("params", "max_bins"), 100_000, "max_bins.*range"),
    ("learning rate", ("params", "learning_rate"), -1.0, "learning_rate"),
    ("loss", ("params", "loss"), "hinge", "loss"),
    ("params signature", ("params", "signature"), "H2 x Q3", "invalid parameters"),
]


@pytest.mark.parametrize(("name", "path", "value", "message"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_documents_are_refused_with_a_reason(fitted_models, name, path, value, message):
    _, models = fitted_models
    document = json.loads(io.dumps(models[0]))
    _edit(document, path, value)
    with pytest.raises(ValueError, match=message):
        io.loads(json.dumps(document))


def test_boosted_trees_number_their_splits_in_the_order_they_were_chosen():
    # Leaf-wise growth splits the best leaf first, wherever it was created; the Inspector's replay
    # reads splits in id order, so ids must follow the split order (gains of a node's splits do not
    # have to fall, but a node is split after its parent, and leaves come after every split).
    from curvedtrees.boosting import ProductGradientBoostingRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 2))
    y = np.where(X[:, 0] > 1.0, 5.0, 0.0) + np.where(X[:, 1] < -0.5, 1.0, 0.0) + 0.1 * rng.normal(size=2000)
    model = ProductGradientBoostingRegressor(signature="E2", max_iter=3, max_leaf_nodes=8, random_state=0).fit(X, y)
    for iteration in model.trees_:
        tree = iteration[0]
        left = np.asarray(tree.children_left)
        internal = np.flatnonzero(left >= 0)
        assert np.array_equal(internal, np.arange(len(internal)))  # every split before every leaf
        for parent in internal:
            assert tree.children_left[parent] > parent and tree.children_right[parent] > parent
    again = ProductGradientBoostingRegressor(signature="E2", max_iter=3, max_leaf_nodes=8, random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
