"""Hostile numbers and state for the product trees: model files, weights, labels, parameters.

Cases that could crash the interpreter (an unchecked index read by a compiled kernel,
thousands of threads) run in a child process with a timeout, so a regression fails
one test instead of killing the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from curvedtrees import io
from curvedtrees.limits import MAX_MODEL_OUTPUT
from curvedtrees.manifolds import ProductManifold
from curvedtrees.trees import (
    ProductDecisionTreeClassifier,
    ProductDecisionTreeRegressor,
    ProductRandomForestClassifier,
    ProductRandomForestRegressor,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SIGNATURE = "H2 x S1 x E1"
TESTS = Path(__file__).resolve().parent


def run_isolated(code: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (this file importable as ``hostile``); fail on a crash or timeout."""
    prelude = f"import sys; sys.path.insert(0, {str(TESTS)!r}); import test_hostile_trees as hostile\n"
    try:
        result = subprocess.run(
            [sys.executable, "-c", prelude + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=TESTS.parent,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child process did not finish within {timeout} s")
    assert result.returncode == 0, f"child exited with {result.returncode}\n{result.stdout}\n{result.stderr[-4000:]}"
    return result


def points(n: int = 120, seed: int = 0) -> np.ndarray:
    return ProductManifold(SIGNATURE).random_normal(n, random_state=seed)


def labels(n: int = 120) -> np.ndarray:
    return np.arange(n) % 3


def fitted(kind: str):
    """A small fitted estimator of each family: 'tree', 'regtree', 'forest', 'regforest'."""
    X = points()
    y = labels().astype(float) ** 2 if kind.startswith("reg") else labels()
    estimator = {
        "tree": ProductDecisionTreeClassifier(signature=SIGNATURE, pairs="all", max_depth=3, random_state=0),
        "regtree": ProductDecisionTreeRegressor(signature=SIGNATURE, pairs="all", max_depth=3, random_state=0),
        "forest": ProductRandomForestClassifier(2, signature=SIGNATURE, pairs="all", max_depth=3, random_state=0),
        "regforest": ProductRandomForestRegressor(2, signature=SIGNATURE, pairs="all", max_depth=3, random_state=0),
    }[kind]
    return estimator.fit(X, y)


def document(kind: str) -> dict:
    return json.loads(io.dumps(fitted(kind)))


def first_tree(doc: dict) -> dict:
    fitted_state = doc["fitted"]
    return fitted_state["trees"][0]["tree"] if "trees" in fitted_state else fitted_state["tree"]


def check_outputs(estimator) -> None:
    """Every output of a loaded estimator is finite (and probabilities are probabilities)."""
    X = points(40, seed=7)
    prediction = estimator.predict(X)
    if hasattr(estimator, "predict_proba"):
        proba = estimator.predict_proba(X)
        assert np.all(np.isfinite(proba)) and np.all(proba >= 0) and np.allclose(proba.sum(axis=1), 1.0)
        assert np.all(np.isin(prediction, estimator.classes_))
    else:
        assert np.all(np.isfinite(prediction))
    assert np.all(np.isfinite(estimator.feature_importances_))
    assert np.all(np.isfinite(estimator.component_importances_))
    leaves = estimator.apply(X)
    path = estimator.decision_path(X)
    if hasattr(estimator, "tree_"):
        assert np.all(estimator.tree_.children_left[leaves] == -1)
        assert np.all(path[np.arange(len(X)), leaves] == 1)
        from curvedtrees.trees import export_text

        assert export_text(estimator).startswith("node 0")


# ------------------------------------------------------------------ n_jobs in files
def test_model_files_do_not_set_n_jobs():
    forest = fitted("forest").set_params(n_jobs=2)
    text = io.dumps(forest)
    assert "n_jobs" not in json.loads(text)["params"]
    assert io.loads(text).n_jobs is None


def test_n_jobs_in_an_old_file_is_ignored_and_starts_no_threads():
    # A file asking for 20,000 threads left 19,996 of them alive; 1e5 crashed joblib.
    run_isolated(
        """
        import json, threading
        import numpy as np
        from curvedtrees import io
        for n_jobs in (20000, 1e5, -5):
            doc = json.loads(io.dumps(hostile.fitted("forest")))
            doc["params"]["n_jobs"] = n_jobs
            forest = io.loads(json.dumps(doc))
            assert forest.n_jobs is None, forest.n_jobs
            before = threading.active_count()
            for _ in range(3):
                proba = forest.predict_proba(hostile.points(50))
            assert np.all(np.isfinite(proba))
            assert threading.active_count() <= before + 2, threading.active_count()
    """,
        timeout=120,
    )


# ---------------------------------------------------------- node numbers in files
@pytest.mark.parametrize("kind", ["tree", "forest"])
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nan", "value is not finite"),
        ("inf", "value is not finite"),
        ("-inf", "value is not finite"),
        (-0.25, "value holds a negative class fraction"),
        (7.0, "class fractions must sum to 1"),
    ],
)
def test_class_fractions_are_checked_on_load_naming_the_node(kind, value, message):
    doc = document(kind)
    data = first_tree(doc)["value"]["data"]
    node = len(data) // 3 - 1  # the last node (three classes per row)
    data[3 * node] = value
    with pytest.raises(ValueError, match=rf"node {node}: {message}"):
        io.loads(json.dumps(doc))


def test_numbers_too_large_for_float64_are_refused():
    # Python's JSON reads 1e400 as inf without complaint: the value check must catch it.
    text = io.dumps(fitted("regtree"))
    doc = json.loads(text)
    doc["fitted"]["tree"]["value"]["data"][0] = 12345.678
    hacked = json.dumps(doc).replace("12345.678", "1e400")
    with pytest.raises(ValueError, match="node 0: value is not finite"):
        io.loads(hacked)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("impurity", "nan", "impurity must be finite"),
        ("impurity", -1.0, "impurity must be finite and >= 0"),
        ("weighted_n_node_samples", "inf", "weighted_n_node_samples"),
        ("n_node_samples", -3, "n_node_samples"),
        ("improvement", "nan", "improvement must be finite"),
        ("margin", -1.0, "margin must be >= 0"),
    ],
)
def test_node_statistics_are_checked_on_load(name, value, message):
    doc = document("tree")
    doc["fitted"]["tree"][name]["data"][0] = value  # node 0 is a split
    with pytest.raises(ValueError, match=rf"node 0: {message}"):
        io.loads(json.dumps(doc))


def test_regression_forest_values_must_average_in_float64():
    # Each tree's leaves within the bound, their sum beyond it: the forest adds them up.
    doc = document("regforest")
    for tree in doc["fitted"]["trees"]:
        tree["tree"]["value"]["data"][-1] = 0.6 * MAX_MODEL_OUTPUT
    with pytest.raises(ValueError, match=r"too large to average.*MAX_MODEL_OUTPUT"):
        io.loads(json.dumps(doc))
    # One tree's leaf of 1.5e308 is refused on its own.
    doc["fitted"]["trees"][0]["tree"]["value"]["data"][-1] = 1.5e308
    with pytest.raises(ValueError, match=r"trees\[0\]\.tree\.value: a node value can reach 1\.5e\+308"):
        io.loads(json.dumps(doc))


@pytest.mark.parametrize(
    ("classes", "message"),
    [
        ({"kind": "int", "values": [0, 1, 2**64]}, "int64 range"),
        ({"kind": "float", "values": [0.0, 1.0, "2e400"]}, "labels must all be"),
    ],
)
def test_class_labels_out_of_range_are_refused(classes, message):
    doc = document("tree")
    doc["fitted"]["classes"] = classes
    with pytest.raises(ValueError, match=message):
        io.loads(json.dumps(doc))


def test_infinite_float_labels_are_refused():
    doc = document("tree")
    doc["fitted"]["classes"] = {"kind": "float", "values": [0.0, 1.0, 98765.4321]}
    with pytest.raises(ValueError, match="labels must be finite"):
        io.loads(json.dumps(doc).replace("98765.4321", "1e400"))


@pytest.mark.parametrize(
    ("kind", "param", "value", "message"),
    [
        ("tree", "min_impurity_decrease", -1.0, "min_impurity_decrease"),
        ("tree", "max_depth", 0, "max_depth"),
        ("tree", "criterion", "evil", "criterion"),
        ("tree", "signature", "H2 x Q1", "signature"),
        ("forest", "n_estimators", 10**9, "n_estimators"),
        ("forest", "max_samples", 5.5, "max_samples"),
        ("forest", "min_samples_leaf", 0, "min_samples_leaf"),
        ("regforest", "criterion", "gini", "criterion"),
    ],
)
def test_hyperparameters_in_files_are_validated(kind, param, value, message):
    doc = document(kind)
    doc["params"][param] = value
    with pytest.raises(ValueError, match=message):
        io.loads(json.dumps(doc))


def test_infinite_hyperparameter_in_a_file_is_refused():
    doc = document("tree")
    doc["params"]["min_impurity_decrease"] = 0.123456
    with pytest.raises(ValueError, match=r"min_impurity_decrease.*Got inf"):
        io.loads(json.dumps(doc).replace("0.123456", "1e400"))


# ------------------------------------------------------ hyperparameters in Python
NON_FINITE = [float("nan"), float("inf"), float("-inf")]


@pytest.mark.parametrize("cls", [ProductDecisionTreeClassifier, ProductRandomForestRegressor])
@pytest.mark.parametrize(
    "param", ["min_impurity_decrease", "min_samples_split", "min_samples_leaf", "max_features", "max_depth"]
)
@pytest.mark.parametrize("value", NON_FINITE, ids=str)
def test_non_finite_hyperparameters_are_refused(cls, param, value):
    X, y = points(), labels()
    with pytest.raises(ValueError, match=rf"The '{param}' parameter of \w+ must be .* Got {value}"):
        cls(signature=SIGNATURE, **{param: value}).fit(X, y)


# ------------------------------------------------------------------- sample weights
@pytest.mark.parametrize("cls", [ProductDecisionTreeClassifier, ProductRandomForestClassifier])
@pytest.mark.parametrize("scale", [1e308, 5e-324, 1e-200, 2.0**300])
def test_extreme_sample_weights_give_the_unweighted_model(cls, scale):
    X, y = points(), labels()
    kwargs = {"signature": SIGNATURE, "random_state": 0}
    if cls is ProductRandomForestClassifier:
        kwargs["n_estimators"] = 3
    proba = cls(**kwargs).fit(X, y, sample_weight=np.full(len(X), scale)).predict_proba(X)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    # The weights are divided by the power of two that brings them into [1, 2), which is
    # exact: the very model those weights give.
    in_range = np.ldexp(scale, 1 - np.frexp(scale)[1])
    assert 1.0 <= in_range < 2.0
    reference = cls(**kwargs).fit(X, y, sample_weight=np.full(len(X), in_range)).predict_proba(X)
    np.testing.assert_array_equal(proba, reference)
    if cls is ProductDecisionTreeClassifier:  # one tree on equal weights: the unweighted tree
        np.testing.assert_array_equal(proba, cls(**kwargs).fit(X, y).predict_proba(X))


def test_extreme_sample_weights_in_regression():
    X, y = points(), labels().astype(float)
    reference = ProductDecisionTreeRegressor(signature=SIGNATURE, random_state=0).fit(X, y).predict(X)
    for scale in (1e308, 5e-324):
        weighted = ProductDecisionTreeRegressor(signature=SIGNATURE, random_state=0)
        weighted.fit(X, y, sample_weight=np.full(len(X), scale))
        np.testing.assert_array_equal(weighted.predict(X), reference)
        assert np.all(np.isfinite(weighted.tree_.impurity)) and np.all(np.isfinite(weighted.tree_.improvement))


def test_ordinary_weights_are_not_rescaled():
    X, y = points(), labels()
    weight = np.linspace(0.5, 3.0, len(X))
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, random_state=0).fit(X, y, sample_weight=weight)
    assert tree.tree_.weighted_n_node_samples[0] == pytest.approx(weight.sum())


def test_weights_spanning_too_many_orders_of_magnitude_are_refused():
    X, y = points(), labels()
    weight = np.ones(len(X))
    weight[[4, 9]] = 1e-200
    with pytest.raises(ValueError, match=r"2 positive weight\(s\) \(rows 4, 9\)"):
        ProductDecisionTreeClassifier(signature=SIGNATURE).fit(X, y, sample_weight=weight)


@pytest.mark.parametrize(("value", "message"), [(np.nan, "NaN"), (np.inf, "infinity"), (-1.0, "Negative")])
def test_bad_sample_weights_are_refused(value, message):
    X, y = points(), labels()
    weight = np.ones(len(X))
    weight[3] = value
    with pytest.raises(ValueError, match=message):
        ProductDecisionTreeClassifier(signature=SIGNATURE).fit(X, y, sample_weight=weight)


# ------------------------------------------------------------------ labels, targets
def test_huge_whole_number_labels_stay_distinct():
    X = points()
    y = np.array([1e19, 2e19, 3e19])[labels()]
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, random_state=0).fit(X, y)
    np.testing.assert_array_equal(tree.classes_, [1e19, 2e19, 3e19])
    np.testing.assert_array_equal(tree.predict(X), y)  # fully grown on distinct points
    restored = io.loads(io.dumps(tree))
    np.testing.assert_array_equal(restored.predict(X), y)


def test_continuous_labels_are_still_refused():
    with pytest.raises(ValueError, match="Unknown label type"):
        ProductDecisionTreeClassifier(signature=SIGNATURE).fit(points(), labels() + 0.5)


def test_regression_targets_too_large_to_square_are_refused():
    X = points()
    y = labels().astype(float)
    y[5] = 3e200
    with pytest.raises(ValueError, match=r"at most 1e\+100 in magnitude.*3e\+200 at row 5"):
        ProductDecisionTreeRegressor(signature=SIGNATURE).fit(X, y)
    y[5] = -1e100  # the largest allowed target: every node statistic stays finite
    tree = ProductRandomForestRegressor(3, signature=SIGNATURE, random_state=0).fit(X, y)
    assert np.all(np.isfinite(tree.predict(X)))
    for estimator in tree.estimators_:
        assert np.all(np.isfinite(estimator.tree_.impurity)) and np.all(np.isfinite(estimator.tree_.improvement))


# ------------------------------------------------------------------ memory estimate
def test_pairs_all_memory_is_estimated_before_fitting():
    # In a child whose address space is capped at 1 GiB above what it holds, so that a
    # fit that skipped the estimate dies of MemoryError instead of taking 6.7 GiB here.
    run_isolated("""
        import re, resource, tracemalloc
        import numpy as np, pytest
        from curvedtrees.trees import ProductDecisionTreeClassifier
        X = np.zeros((20_000, 300))
        y = np.arange(20_000) % 2
        ProductDecisionTreeClassifier(signature="E3", pairs="all").fit(X[:50, :3], y[:50])  # imports, compiles
        size = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + 2**30, resource.RLIM_INFINITY))
        tracemalloc.start()
        with pytest.raises(ValueError, match=r"6\\.7 GiB .* 45,150 split planes.*pairs='base' \\(300 planes"):
            ProductDecisionTreeClassifier(signature="E300", pairs="all").fit(X, y)
        assert tracemalloc.get_traced_memory()[1] < 200 * 2**20  # checked before the values array exists
    """)


def test_boosting_plane_memory_is_estimated_before_binning():
    # Boosting holds a code per row and plane and an angle per row and circular plane, not a
    # values array: the same limit, checked on its own arrays before any is allocated.
    run_isolated("""
        import re, resource, tracemalloc
        import numpy as np, pytest
        from curvedtrees.boosting import ProductGradientBoostingClassifier
        X = np.zeros((20_000, 300))
        y = np.arange(20_000) % 2
        ProductGradientBoostingClassifier(signature="E3", pairs="all", max_iter=2).fit(X[:50, :3], y[:50])
        size = int(re.search(r"VmSize:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + 2**30, resource.RLIM_INFINITY))
        tracemalloc.start()
        with pytest.raises(ValueError, match=r"GiB for the bin codes and angles of 45,150 split planes.*pairs='base'"):
            ProductGradientBoostingClassifier(signature="E300", pairs="all").fit(X, y)
        assert tracemalloc.get_traced_memory()[1] < 200 * 2**20  # checked before the codes exist
    """)


def test_too_many_split_planes_are_refused_before_listing_them():
    with pytest.raises(ValueError, match=r"2,001,000 split planes, above the limit"):
        ProductDecisionTreeClassifier(signature="E2000", pairs="all").fit(np.zeros((3, 2000)), [0, 1, 0])


# ------------------------------------------------ indices read by compiled kernels
# Routing (apply_tree, decision_path_tree) reads child ids and split-plane ids from the
# node arrays, and X's columns col_i / col_j of those planes; the split search reads
# ranges of its buffers. Each test below breaks one guarantee and expects a clear
# ValueError; without the guarantee the kernel reads out of bounds (a crash or garbage)
# or loops forever, hence the child process.
CHILD_CASES = {
    "child id past the end": ("children_left", 0, 10**6, "child ids"),
    "child id pointing back (a cycle)": ("children_right", 0, 0, "child ids"),
    "one child only": ("children_right", 0, -1, "two children or none"),
    "split plane id past the end": ("feature", 0, 10**6, "split features"),
    "negative split plane id": ("feature", 0, -7, "split features"),
}


@pytest.mark.parametrize("case", sorted(CHILD_CASES))
def test_model_file_indices_are_checked_before_routing(case):
    name, node, value, message = CHILD_CASES[case]
    run_isolated(f"""
        import json, pytest
        from curvedtrees import io
        for kind in ("tree", "forest"):
            doc = hostile.document(kind)
            hostile.first_tree(doc)[{name!r}]["data"][{node}] = {value}
            with pytest.raises(ValueError, match={message!r}):
                io.loads(json.dumps(doc))
    """)


def test_predict_checks_the_width_the_routing_reads():
    run_isolated("""
        import numpy as np, pytest
        forest = hostile.fitted("forest")
        narrow = np.ascontiguousarray(hostile.points(10)[:, :3])
        for method in (forest.predict, forest.apply, forest.decision_path):
            with pytest.raises(ValueError, match="3 features.* expecting 6"):
                method(narrow)
        tree = hostile.fitted("tree")
        with pytest.raises(ValueError, match="2 features.* expecting 6"):
            tree.predict(np.zeros((4, 2)))
    """)


KERNEL_CASES = {
    "hyperbolic_half_chords": [
        "(one, np.ones((4, 1)), np.empty((3, 4)))",
        "(one, np.ones((4, 2)), np.empty((2, 4)))",
    ],
    "spherical_chords": [
        "(one, np.ones((4, 2)), np.empty((3, 4)), np.empty((3, 3)))",
        "(one, np.ones((4, 3)), np.empty((3, 4)), np.empty((3, 4)))",
    ],
    "sort_with_index": [
        "(np.ones(3), np.arange(3), 0, 5)",
        "(np.ones(5), np.arange(3), 0, 5)",
        "(np.ones(3), np.arange(3), -1, 2)",
    ],
    "hyperbolic_threshold": [
        "(np.ones(3), np.ones(2), np.ones(3, dtype=bool))",
        "(np.ones(3), np.ones(3), np.ones(1, dtype=bool))",
    ],
    "circular_direction": [
        "(np.ones(3), np.ones(3), np.ones(2, dtype=bool), 0.1, 0.2)",
        "(np.ones(3), np.ones(1), np.ones(3, dtype=bool), 0.1, 0.2)",
    ],
}


@pytest.mark.parametrize("kernel", sorted(KERNEL_CASES))
def test_compiled_kernels_check_their_array_lengths(kernel):
    # Their callers pass arrays they made with matching lengths; the kernels check too.
    run_isolated(f"""
        import numpy as np, pytest
        from curvedtrees.manifolds._kernels import hyperbolic_half_chords, spherical_chords
        from curvedtrees.trees._margin import circular_direction, hyperbolic_threshold
        from curvedtrees.trees._sort import sort_with_index
        one = np.ones((3, 2))
        for args in [{", ".join(KERNEL_CASES[kernel])}]:
            with pytest.raises(ValueError, match="must|need"):
                {kernel}(*args)
    """)


def test_pdist_checks_widths_before_the_kernels():
    from curvedtrees.manifolds import Hyperbolic, Spherical

    for manifold in (Hyperbolic(2), Spherical(2)):
        with pytest.raises(ValueError, match="3 ambient coordinates"):
            manifold.pdist(manifold.random_normal(4, random_state=0), np.ones((3, 2)))


@pytest.mark.parametrize("pattern", ["equal", "sorted", "reversed", "organ", "few", "random"])
def test_sort_with_index_sorts_hard_patterns_within_its_stack(pattern):
    from curvedtrees.trees._sort import sort_with_index

    n = 5000
    rng = np.random.default_rng(3)
    keys = {
        "equal": np.zeros(n),
        "sorted": np.arange(n, dtype=float),
        "reversed": np.arange(n, 0, -1.0),
        "organ": np.concatenate([np.arange(n // 2), np.arange(n // 2, 0, -1)]).astype(float),
        "few": rng.integers(0, 3, n).astype(float),
        "random": rng.standard_normal(n),
    }[pattern]
    original = keys.copy()
    work = np.concatenate([keys, [np.inf] * 7])  # a larger buffer: only [lo, hi) may move
    idx = np.concatenate([np.arange(n), np.full(7, -1)])
    sort_with_index(work, idx, 0, n)
    np.testing.assert_array_equal(work[:n], np.sort(original))
    np.testing.assert_array_equal(original[idx[:n]], work[:n])
    assert np.all(idx[n:] == -1) and np.all(np.isinf(work[n:]))


def test_decision_path_of_a_loaded_deep_tree_stays_in_its_buffer():
    # decision_path_tree sizes its buffer as n_samples * (max_depth + 1), which the
    # forward-only child check makes a true bound on every path's length.
    X = points(300)
    tree = ProductDecisionTreeClassifier(signature=SIGNATURE, random_state=0).fit(X, np.arange(300) % 7)
    restored = io.loads(io.dumps(tree))
    depth = restored.tree_.max_depth
    assert depth >= 6
    path = restored.decision_path(X).toarray().astype(bool)
    lengths = path.sum(axis=1)
    assert lengths.max() == depth + 1 and np.all(path[:, 0])
    left, right = restored.tree_.children_left, restored.tree_.children_right
    for row in range(len(X)):  # the path is the chain from the root to the row's leaf
        node, visited = 0, [0]
        while left[node] != -1:
            node = left[node] if path[row, left[node]] else right[node]
            visited.append(node)
        assert visited == list(np.flatnonzero(path[row])) and node == restored.apply(X[row : row + 1])[0]


# ------------------------------------------------------------ property: tampering
def _leaves(node, path=()):
    """Every (path, value) position of a JSON document (container values included)."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _leaves(value, (*path, index))


REPLACEMENTS = st.one_of(
    st.sampled_from(["nan", "inf", "-inf"]),
    st.sampled_from([-1.0, -0.5, 2.0, 1e308, -1e308, 1e-300]),
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, -1, 2, 3, 10**6, 2**63, -(2**63), 7, 1e308, -1e308, 5e-324, 0.5]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["nan", "inf", "-inf", "", "base", "all", "H2 x S1 x E1", "E1", "int", "float64"]),
    st.none(),
    st.booleans(),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


def _mutate(doc, choices, replacements, deletions):
    for choice, replacement, delete in zip(choices, replacements, deletions):
        positions = [p for p, _ in list(_leaves(doc))[1:]]
        numbers = {}  # the numbers of each node array, where most of a model's meaning lies
        for p in positions:
            if "data" in p and p[-1] != "data":
                numbers.setdefault(p[p.index("data") - 1], []).append(p)  # by array name, over all trees
        if choice % 2 and numbers:  # half the time: an array first (all equally likely), then an entry
            groups = [numbers[name] for name in sorted(numbers, key=str)]
            group = groups[(choice // 2) % len(groups)]
            path = group[(choice // (2 * len(groups))) % len(group)]
        else:
            path = positions[(choice // 2) % len(positions)]
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        if delete and isinstance(parent, dict):
            del parent[path[-1]]
        elif delete and isinstance(parent, list):
            parent.pop(path[-1])
        else:
            parent[path[-1]] = replacement
    return doc


def tampering_property(kind: str, max_examples: int) -> None:
    """Every mutation of a valid document loads and predicts finite outputs, or raises ValueError."""
    base = io.dumps(fitted(kind))

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=bool(os.environ.get("CI")),
        suppress_health_check=list(HealthCheck),
    )
    @given(
        st.lists(st.integers(0, 10**6), min_size=1, max_size=3),
        st.lists(REPLACEMENTS, min_size=3, max_size=3),
        st.lists(st.booleans(), min_size=3, max_size=3),
        st.booleans(),
    )
    def check(choices, replacements, deletions, overflow):
        text = json.dumps(_mutate(json.loads(base), choices, replacements, deletions))
        if overflow:  # numbers beyond float64, which Python's JSON reads as inf
            text = text.replace("1e+308", "1e400")
        try:
            estimator = io.loads(text)
        except ValueError:
            return
        if hasattr(estimator, "tree_") or hasattr(estimator, "estimators_"):
            check_outputs(estimator)

    check()


@pytest.mark.parametrize("kind", ["tree", "regtree", "forest", "regforest"])
def test_tampered_documents_load_and_predict_finite_outputs_or_raise_value_error(kind):
    run_isolated(f"hostile.tampering_property({kind!r}, max_examples=200)", timeout=400)


# ------------------------------------------------------- issue 27: normals, sums, boosting
def _split_of_kind(estimator, linear: bool) -> int:
    tree = estimator.tree_
    nodes = np.flatnonzero((tree.children_left != -1) & (tree.linear == linear))
    assert nodes.size, "the fixture needs a split of this kind"
    return int(nodes[0])


@pytest.mark.parametrize(
    ("linear", "normal", "message"),
    [
        # The case: the Inspector divided by the second entry of (0, 0).
        (True, [0.0, 0.0], r"normal \[0\. 0\.\] does not match the split's threshold"),
        (True, [1.0, 0.0], r"normal \[1\. 0\.\] does not match the split's threshold -?\d"),
        (False, [0.0, 0.0], r"normal \[0\. 0\.\] of a circular split must have length 1"),
        (False, [3.0, 4.0], r"normal \[3\. 4\.\] of a circular split must have length 1"),
    ],
)
def test_split_normals_must_describe_their_split(linear, normal, message):
    if linear:
        estimator = fitted("tree")
    else:  # every split plane of a sphere is circular
        X = ProductManifold("S2").random_normal(120, random_state=0)
        estimator = ProductDecisionTreeClassifier(signature="S2", max_depth=2, random_state=0).fit(X, X[:, 0] > 0)
    node = _split_of_kind(estimator, linear)
    doc = json.loads(io.dumps(estimator))
    doc["fitted"]["tree"]["normal"]["data"][2 * node : 2 * node + 2] = normal
    with pytest.raises(ValueError, match=rf"node {node}: {message}"):
        io.loads(json.dumps(doc))


def test_every_split_of_a_valid_file_reaches_the_inspector():
    from curvedtrees.viz.treeview import node_details

    loaded = io.loads(io.dumps(fitted("tree")))
    for node in np.flatnonzero(loaded.tree_.children_left != -1):
        assert node_details(loaded, int(node))["kind"] == "split"


def test_a_regression_leaf_beyond_the_output_bound_is_refused():
    doc = document("regtree")
    doc["fitted"]["tree"]["value"]["data"][-1] = 1e300
    with pytest.raises(ValueError, match=r"tree\.value: a node value can reach 1e\+300.*MAX_MODEL_OUTPUT"):
        io.loads(json.dumps(doc))


# Boosting files: the same node checks, and the baseline plus every iteration's largest leaf bounded.
@pytest.fixture(scope="module")
def boosted_document():
    from curvedtrees.boosting import ProductGradientBoostingClassifier

    model = ProductGradientBoostingClassifier(signature=SIGNATURE, pairs="all", max_iter=4, random_state=0)
    return json.loads(io.dumps(model.fit(points(), labels())))


def _leaf_ids(arrays) -> list[int]:
    return [k for k, child in enumerate(arrays["children_left"]["data"]) if child == -1]


def test_boosting_leaves_that_sum_beyond_float64_are_refused(boosted_document):
    # The case: two finite leaves of 1e308 in rows no probe reaches sum to inf (NaN probabilities).
    doc = json.loads(json.dumps(boosted_document))
    for iteration in doc["fitted"]["trees"][:2]:
        iteration[0]["value"]["data"][_leaf_ids(iteration[0])[0]] = 1e308
    with pytest.raises(ValueError, match=r"fitted\.trees: the baseline plus every tree's largest leaf can reach inf"):
        io.loads(json.dumps(doc))


def test_a_boosting_baseline_beyond_the_output_bound_is_refused(boosted_document):
    doc = json.loads(json.dumps(boosted_document))
    doc["fitted"]["baseline"]["data"][0] = 2 * MAX_MODEL_OUTPUT
    with pytest.raises(ValueError, match=r"the baseline plus every tree's largest leaf can reach"):
        io.loads(json.dumps(doc))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("improvement", "nan", r"node \d+: improvement must be finite"),  # NaN importances otherwise
        ("weighted_n_node_samples", -1.0, r"node \d+: weighted_n_node_samples must be finite and >= 0"),
        ("margin", -2.0, r"node \d+: margin must be >= 0 at a split"),
        ("normal", 0.0, r"node 0: normal"),
    ],
)
def test_boosted_trees_get_the_product_trees_node_checks(boosted_document, field, value, message):
    doc = json.loads(json.dumps(boosted_document))
    arrays = doc["fitted"]["trees"][0][0]
    if field == "normal":
        arrays["normal"]["data"][0:2] = [value, value]
    else:
        arrays[field]["data"][0] = value
    with pytest.raises(ValueError, match=message):
        io.loads(json.dumps(doc))


def test_boosting_refuses_a_learning_rate_above_one():
    from curvedtrees.boosting import ProductGradientBoostingClassifier

    with pytest.raises(ValueError, match=r"'learning_rate' parameter .* range \(0\.0, 1\.0\]\. Got 1e\+308"):
        ProductGradientBoostingClassifier(signature=SIGNATURE, learning_rate=1e308).fit(points(), labels())


@pytest.mark.parametrize("scale", [1e308, 1e38, 1e-300])
def test_boosting_with_extreme_sample_weights_gives_finite_probabilities(scale):
    from curvedtrees.boosting import ProductGradientBoostingClassifier

    X, y = points(), labels()
    weights = np.where(np.arange(len(y)) % 4 == 0, 0.5, 1.0)
    model = ProductGradientBoostingClassifier(signature=SIGNATURE, max_iter=10, random_state=0)
    reference = model.fit(X, y, sample_weight=weights).predict_proba(X)
    proba = model.fit(X, y, sample_weight=weights * scale).predict_proba(X)
    assert np.all(np.isfinite(proba))
    # Rescaled by a power of two into [1, 2): the model of weights 1 and 0.5, up to the
    # regularising constants that do not scale (min_hessian_to_split, the value epsilon).
    np.testing.assert_allclose(proba, reference, atol=1e-6)
