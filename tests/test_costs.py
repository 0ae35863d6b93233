"""The cost model: requests are estimated and refused before any work, with the parameter to lower.

The estimates' accuracy is measured by perf/calibrate_costs.py (estimate beside
measurement); these tests pin what must hold whatever the machine: the issue's runaway
requests are refused, the app's demos and defaults are accepted, and every suggestion
the refusal makes does fit the budget.
"""

from __future__ import annotations

import re

import pytest
from curvedtrees.baselines import GeodesicKNNClassifier, ProductPerceptronClassifier, ProductSVMClassifier
from curvedtrees.boosting import ProductGradientBoostingClassifier
from curvedtrees.costs import (
    Budget,
    BudgetExceeded,
    Cost,
    estimate_cost,
    estimate_dataset_cost,
    estimate_embedding_cost,
    estimate_sampling_cost,
)
from curvedtrees.limits import MAX_JOB_CPU_SECONDS
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestClassifier


def test_the_issues_runaway_requests_are_refused_naming_what_to_lower():
    # Issue 27: S99, 20,000 points, a 500-tree all-pairs forest ~ 11 CPU-hours.
    forest = ProductRandomForestClassifier(500, pairs="all", max_features=None, max_depth=None)
    with pytest.raises(BudgetExceeded) as refused:
        estimate_cost(forest, 20_000, "S99", n_classes=5).check()
    text = str(refused.value)
    assert "CPU-hours" in text and "n_estimators" in text
    assert isinstance(refused.value, ValueError)  # the app's error display shows ValueErrors as they are
    # H4095 with 300 points: the (points, d, d) gather is gone, the clusters' factors are not.
    assert not estimate_sampling_cost("H4095", 300, n_clusters=150).fits()
    # random_tree, 500 nodes x 5,000 epochs x 20 restarts: about 90 minutes.
    cost = estimate_dataset_cost("random_tree", n_nodes=500, n_epochs=5000, n_restarts=20)
    assert cost.cpu_seconds > 30 * 60
    with pytest.raises(BudgetExceeded, match=r"lower n_epochs from 5,000 to at most [\d,]+"):
        cost.check()
    # k-NN with k = 200 on the largest synthetic set: the pictures would be far too slow.
    knn = estimate_cost(GeodesicKNNClassifier(n_neighbors=200), 15_000, "H2 x S2 x E2", n_predict=20_000)
    assert any("picture" in p for p in knn.problems())


@pytest.mark.parametrize(
    ("estimator", "n", "signature", "classes"),
    [
        # The demos and lessons of the app, and the Train page's defaults on the largest form data.
        (ProductDecisionTreeClassifier(max_depth=6, min_samples_leaf=3), 600, "H2", 5),
        (ProductRandomForestClassifier(32, pairs="all", max_depth=None), 15_000, "S2", 2),
        (ProductRandomForestClassifier(50, pairs="all", min_samples_leaf=2), 2_430, "S2 x S1", 1),
        (ProductRandomForestClassifier(50), 15_000, "H2 x S2 x E2", 20),
        (ProductGradientBoostingClassifier(), 15_000, "H2 x S2 x E2", 5),
        (GeodesicKNNClassifier(), 2_000, "H2 x S2 x E2", 5),
        (ProductPerceptronClassifier(), 1_000, "H2", 5),
        (ProductSVMClassifier(), 1_000, "H2", 5),
    ],
)
def test_what_the_app_offers_by_default_fits_the_budget(estimator, n, signature, classes):
    cost = estimate_cost(estimator, n, signature, n_classes=classes, n_predict=n)
    assert cost.fits(), cost.problems()
    assert cost.cpu_seconds < MAX_JOB_CPU_SECONDS / 4


def test_every_suggested_value_fits_and_the_next_one_does_not():
    forest = ProductRandomForestClassifier(400, max_depth=None, pairs="all")
    cost = estimate_cost(forest, 20_000, "H5 x S5 x E5", n_classes=8)
    assert not cost.fits()
    advice = cost.suggestions()
    assert advice, "a refusal names at least one way out"
    found = re.search(r"lower n_estimators from 400 to at most ([\d,]+)", " ".join(advice))
    assert found
    trees = int(found.group(1).replace(",", ""))
    assert estimate_cost(forest.set_params(n_estimators=trees), 20_000, "H5 x S5 x E5", n_classes=8).fits()
    assert not estimate_cost(forest.set_params(n_estimators=trees + 1), 20_000, "H5 x S5 x E5", n_classes=8).fits()


def test_costs_grow_with_the_parameters_that_drive_them():
    def cpu(**params):
        return estimate_cost(ProductRandomForestClassifier(**params), 5_000, "H2 x S2 x E2").cpu_seconds

    assert cpu(n_estimators=20) > 1.9 * cpu(n_estimators=10)
    assert cpu(n_estimators=10, max_features=None) > cpu(n_estimators=10)
    assert cpu(n_estimators=10, pairs="all", max_features=None) > cpu(n_estimators=10, max_features=None)
    assert cpu(n_estimators=10, max_depth=3) < cpu(n_estimators=10)
    # The radial planes (one for H2, three for S2) are counted by trees, forests and boosting alike.
    assert cpu(n_estimators=10, splits="geodesic+radial") > cpu(n_estimators=10)
    boosting = ProductGradientBoostingClassifier(max_iter=50)
    plain = estimate_cost(boosting, 5_000, "H2 x S2 x E2").cpu_seconds
    radial = estimate_cost(boosting.set_params(splits="geodesic+radial"), 5_000, "H2 x S2 x E2").cpu_seconds
    assert radial > 1.2 * plain  # 8 planes instead of 4
    with pytest.raises(ValueError, match="splits must be"):
        estimate_cost(boosting.set_params(splits="radial"), 5_000, "H2")
    knn = [estimate_cost(GeodesicKNNClassifier(), n, "S2").predict_seconds_per_row for n in (1_000, 4_000)]
    assert knn[1] > 3.9 * knn[0]
    embed = [estimate_embedding_cost(n, "H2", 100).cpu_seconds - 3 for n in (200, 800)]
    assert embed[1] > 8 * embed[0]  # every pair of nodes, every epoch (16 times the pairs)


def test_a_custom_budget_and_the_sum_of_two_pieces_of_work():
    tree = estimate_cost(ProductDecisionTreeClassifier(), 10_000, "E5")
    assert tree.fits() and not tree.fits(Budget(cpu_seconds=tree.cpu_seconds / 2))
    both = tree + estimate_sampling_cost("E5", 10_000)
    assert isinstance(both, Cost)
    assert both.cpu_seconds > tree.cpu_seconds and "then sampling" in both.what
    with pytest.raises(BudgetExceeded) as refused:
        tree.check(Budget(cpu_seconds=tree.cpu_seconds / 2))
    assert refused.value.cost is tree and refused.value.budget.cpu_seconds == tree.cpu_seconds / 2


def test_bad_counts_and_signatures_are_refused_in_words():
    with pytest.raises(ValueError, match="n_samples must be a non-negative number"):
        estimate_cost(ProductDecisionTreeClassifier(), -1, "H2")
    with pytest.raises(ValueError, match="malformed signature"):
        estimate_cost(ProductDecisionTreeClassifier(), 10, "H2 x")
    with pytest.raises(ValueError, match="needs the signature"):
        estimate_cost(ProductDecisionTreeClassifier(), 10)
    unknown = estimate_cost(ProductDecisionTreeClassifier(signature="E2"), 10)
    assert unknown.fits()
