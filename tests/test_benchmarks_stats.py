"""Statistics, marks, ranks and report formatting of curvedtrees.benchmarks, checked against scipy and by hand."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from curvedtrees.benchmarks.paper import PAPER_TABLE5_PATH, load_paper_table5, parse_signature_label, parse_table5
from curvedtrees.benchmarks.report import comparison_frame, comparison_markdown, format_value, table5_markdown
from curvedtrees.benchmarks.statistics import (
    BOOSTING_FAMILY,
    confidence_interval,
    group_top_counts,
    pairwise_tests,
    rank_counts,
    significance_marks,
    summarize,
    wilcoxon_p_value,
)
from scipy import stats

PAPER_TEXT = Path("/work/shared/papers/mixed-curvature-decision-trees.txt")

# (name, group, family) of the paper's eight models.
PAPER_MODELS = [
    ("Perceptron", "perceptron", ""),
    ("k-NN", "knn", ""),
    ("Ambient DT", "ambient", "tree"),
    ("Ambient RF", "ambient", "forest"),
    ("Tangent DT", "tangent", "tree"),
    ("Tangent RF", "tangent", "forest"),
    ("Product DT", "product", "tree"),
    ("Product RF", "product", "forest"),
]


def _results(means, n_trials=30, task="classification", noise=0.01, seed=0, signature="H2"):
    """A tidy results frame with per-trial scores mean + small noise (same noise draw per trial for pairing)."""
    rng = np.random.default_rng(seed)
    metric = "rmse" if task == "regression" else "f1_micro"
    rows = []
    for name, group, family in PAPER_MODELS:
        if name not in means:
            continue
        values = means[name] + noise * rng.standard_normal(n_trials)
        for trial, value in enumerate(values):
            rows.append(
                dict(section="S", dataset="D", task=task, signature=signature, model=name, group=group,
                     family=family, trial=trial, seed=trial, metric=metric, value=value, fit_seconds=0.01,
                     predict_seconds=0.001, n_train=80, n_test=20, error="")
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_confidence_interval_matches_scipy_t_interval():
    values = np.array([0.31, 0.29, 0.35, 0.30, 0.28, 0.33, 0.32, 0.27])
    mean, half = confidence_interval(values)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    assert mean == pytest.approx(values.mean())
    assert half == pytest.approx((high - low) / 2)
    assert confidence_interval(values, 0.99)[1] > half


def test_confidence_interval_edge_cases():
    assert np.isnan(confidence_interval([0.5])[1])
    assert confidence_interval([0.5])[0] == 0.5
    assert np.isnan(confidence_interval([])[0])
    assert confidence_interval([1.0, np.nan, 3.0])[0] == 2.0
    with pytest.raises(ValueError, match="confidence"):
        confidence_interval([1.0, 2.0], confidence=95)


def test_wilcoxon_matches_scipy():
    rng = np.random.default_rng(3)
    a = rng.normal(0.30, 0.02, 40)
    b = a + rng.normal(0.01, 0.01, 40)
    assert wilcoxon_p_value(a, b) == pytest.approx(stats.wilcoxon(a, b).pvalue)
    # Identical samples: indistinguishable, p = 1 (scipy would warn or fail on all-zero differences).
    assert wilcoxon_p_value(a, a) == 1.0
    with pytest.raises(ValueError, match="paired"):
        wilcoxon_p_value(a, b[:-1])


def test_pairwise_tests_use_the_papers_comparison_sets_and_bonferroni():
    means = {name: 0.30 for name, _, _ in PAPER_MODELS}
    means["Product RF"] = 0.36
    pairs = pairwise_tests(_results(means))
    # Trees + k-NN + perceptron: 5 models, 10 pairs; forests likewise.
    assert sorted(pairs["comparison"].value_counts().items()) == [("forest", 10), ("tree", 10)]
    assert (pairs["n_comparisons"] == 10).all()
    assert pairs["threshold"].to_numpy() == pytest.approx(0.005)
    # Trees never meet forests.
    tree = pairs[pairs["comparison"] == "tree"]
    assert not set(tree["model_a"]).union(tree["model_b"]) & {"Ambient RF", "Tangent RF", "Product RF"}
    # p-values are scipy's on the paired per-trial values.
    frame = _results(means)
    row = pairs[(pairs["model_a"] == "Ambient RF") & (pairs["model_b"] == "Product RF")].iloc[0]
    a = frame[frame["model"] == "Ambient RF"]["value"].to_numpy()
    b = frame[frame["model"] == "Product RF"]["value"].to_numpy()
    assert row["p_value"] == pytest.approx(stats.wilcoxon(a, b).pvalue)
    assert row["significant"] and row["winner"] == "Product RF"


def test_marks_follow_the_paper():
    means = {name: 0.30 for name, _, _ in PAPER_MODELS}
    means.update({"Product RF": 0.36, "Perceptron": 0.15, "k-NN": 0.40})
    summary = summarize(_results(means))
    marks = summary.set_index("model")["marks"]
    # Product RF beats the other forests and the perceptron, not k-NN.
    assert marks["Product RF"] == "†‡¶"
    # k-NN beats every group in both comparison sets... except the product group, where it
    # beats Product DT and Product RF alike.
    assert marks["k-NN"] == "*†‡¶"
    # A tree at the level of other trees only beats the perceptron.
    assert marks["Ambient DT"] == "¶"
    assert marks["Perceptron"] == ""


def test_marks_for_regression_prefer_smaller_errors():
    means = {name: 0.20 for name, _, _ in PAPER_MODELS if name != "Perceptron"}
    means["Product DT"] = 0.15
    summary = summarize(_results(means, task="regression", noise=0.005))
    marks = summary.set_index("model")["marks"]
    assert marks["Product DT"] == "†‡§"
    assert summary.set_index("model").loc["Product DT", "rank"] == 1
    # k-NN is worse than Product DT: no product mark for it.
    assert "*" not in marks["k-NN"]


def test_significance_marks_needs_groups_when_pairs_lost_them():
    frame = _results({"Ambient DT": 0.3, "Product DT": 0.4})
    pairs = pairwise_tests(frame)
    bare = pd.DataFrame(pairs)  # attrs survive a copy, so drop them explicitly
    bare.attrs = {}
    with pytest.raises(ValueError, match="groups"):
        significance_marks(bare)
    marks = significance_marks(bare, results=frame).set_index("model")["marks"]
    assert marks["Product DT"] == "†"


def test_ranks_and_top_counts():
    first = _results({"Ambient DT": 0.30, "Product DT": 0.35, "k-NN": 0.32}, signature="H2")
    second = _results({"Ambient DT": 0.36, "Product DT": 0.34, "k-NN": 0.30}, signature="S2")
    summary = summarize(pd.concat([first, second]))
    ranks = summary.set_index(["signature", "model"])["rank"]
    assert ranks[("H2", "Product DT")] == 1 and ranks[("H2", "Ambient DT")] == 3
    assert ranks[("S2", "Ambient DT")] == 1 and ranks[("S2", "Product DT")] == 2
    counts = rank_counts(summary)
    assert counts.loc["Product DT", "top1"] == 1 and counts.loc["Product DT", "top2"] == 2
    assert counts.loc["k-NN", "top1"] == 0 and counts.loc["k-NN", "mean_rank"] == 2.5
    top = group_top_counts(summary, "product")
    assert top.loc["total", "rows"] == 2 and top.loc["total", "top1"] == 1 and top.loc["total", "top2"] == 2


def test_failed_fits_are_left_out_of_summaries():
    frame = _results({"Ambient DT": 0.30, "Product DT": 0.35}, n_trials=10)
    frame.loc[0, ["value", "error"]] = [np.nan, "RuntimeError: boom"]
    summary = summarize(frame).set_index("model")
    assert summary.loc["Ambient DT", "n_trials"] == 9
    assert summary.loc["Product DT", "n_trials"] == 10


def test_format_value_like_the_paper():
    assert format_value(0.309, 0.005, "f1_micro") == "30.9 ± .5"
    assert format_value(0.198, 0.002, "rmse") == ".198 ± .002"
    assert format_value(7.198, 0.212, "rmse") == "7.198 ± .212"
    assert format_value(0.5, float("nan"), "f1_micro") == "50.0"


def test_table5_markdown_bolds_the_best_and_underlines_the_second():
    means = {"Ambient DT": 0.30, "Product DT": 0.40, "k-NN": 0.35}
    summary = summarize(_results(means))
    text = table5_markdown(summary, ["k-NN", "Ambient DT", "Product DT"])
    header, _rule, row = text.splitlines()
    assert header.split("|")[5:8] == [" k-NN ", " Ambient DT ", " Product DT "]
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[:4] == ["S", "D", "C", "H2"]
    assert cells[6].startswith("**40.") and cells[6].endswith("†§")
    assert cells[4].startswith("<u>3") and cells[4].endswith("</u> †")


def test_paper_table5_csv_has_every_row():
    paper = load_paper_table5()
    rows = paper[["section", "dataset", "task", "signature"]].drop_duplicates()
    assert len(rows) == 85  # 22 single-K, 16 multi-K, 38 graph, 4 VAE, 5 other
    synthetic = rows[rows["section"].str.startswith("Synthetic")]
    assert len(synthetic) == 38
    cell = paper[(paper["signature"] == "E2") & (paper["task"] == "classification") & (paper["model"] == "Product RF")]
    assert cell[["mean", "ci"]].to_numpy().tolist() == [[0.309, 0.005]]
    assert cell["marks"].iloc[0] == "§¶"
    # Regression rows of the synthetic sections have no perceptron.
    regression = paper[(paper["section"] == "Synthetic (multi-K)") & (paper["task"] == "regression")]
    assert "Perceptron" not in set(regression["model"]) and len(regression) == 8 * 7


@pytest.mark.skipif(not PAPER_TEXT.exists(), reason="the paper's text is not on this machine")
def test_paper_table5_csv_matches_the_paper_text():
    parsed = parse_table5(PAPER_TEXT.read_text(encoding="utf-8"))
    shipped = load_paper_table5(PAPER_TABLE5_PATH)
    pd.testing.assert_frame_equal(parsed.reset_index(drop=True), shipped, check_dtype=False)


def test_parse_signature_label():
    assert parse_signature_label(r"$(\mathbb{S}^{2})^{2}$") == "S2 x S2"
    assert parse_signature_label(r"( $\mathbb{H}^{2})^{2}$") == "H2 x H2"
    # Table 5's single-curvature labels: the curvature's sign decides the kind (letters are swapped).
    assert parse_signature_label(r"$\mathbb{H}^{2,0.25}$") == "S2(0.25)"
    assert parse_signature_label(r"$\mathbb{S}^{2,-4.0}$") == "H2(-4)"
    assert parse_signature_label(r"$\mathbb{H}^{2,1.0}$") == "S2"
    assert parse_signature_label(r"$\mathbb{H}^{2}$") == "H2"
    assert parse_signature_label(r"$\mathbb{S}^{2}\mathbb{E}^{2}(\mathbb{H}^{2})^{3}$") == "S2 x E2 x H2 x H2 x H2"
    assert parse_signature_label(r"$\mathbb{E}^{1}(\mathbb{S}^{1})^{4}$") == "E1 x S1 x S1 x S1 x S1"
    with pytest.raises(ValueError, match="signature label"):
        parse_signature_label(r"$\mathbb{Q}^{2}$")


def test_comparison_with_the_paper_flags_cells_outside_its_interval():
    paper = load_paper_table5()
    rows = paper[(paper["section"] == "Synthetic (multi-K)") & (paper["signature"] == "H4")]
    rows = rows[rows["task"] == "classification"]
    summary = rows[["section", "dataset", "task", "signature", "model"]].copy()
    summary["group"], summary["family"], summary["metric"] = "x", "", "f1_micro"
    summary["mean"] = rows["mean"].to_numpy()
    summary["ci"] = rows["ci"].to_numpy()
    summary["marks"], summary["rank"] = "", 3
    summary.loc[summary["model"] == "k-NN", "mean"] += 0.02  # 2 points above the paper's 47.5 ± .5
    joined = comparison_frame(summary, paper).set_index("model")
    assert joined.loc["k-NN", "outside_paper_ci"] and joined.loc["k-NN", "incompatible"]
    assert not joined.drop("k-NN")["outside_paper_ci"].any()
    text = comparison_markdown(summary, paper)
    assert "49.5 ± .5 ▲!" in text and "47.5 ± .5" in text


def _family_less(values_by_model):
    """Tidy rows for models without a family (one comparison set, "all"), trials given per model."""
    rows = []
    for name, values in values_by_model.items():
        for trial, value in values.items():
            rows.append(
                dict(section="S", dataset="D", task="classification", signature="H2", model=name, group=name,
                     family="", trial=trial, seed=trial, metric="f1_micro", value=value, fit_seconds=0.01,
                     predict_seconds=0.001, n_train=80, n_test=20, error="")
            )  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("n_trials", "significant"), [(7, True), (6, False)])
def test_bonferroni_counts_every_pair_including_untestable_ones(n_trials, significant):
    # B beats A on every trial: the exact two-sided Wilcoxon p is 2 / 2^n, 0.0156 for 7 trials
    # and 0.03125 for 6. C shares no trial with them, so two of the three pairs have no p-value,
    # yet m = 3 and the threshold is 0.05 / 3 = 0.0167: 7 trials pass it, 6 do not (they would
    # without the correction).
    a = {t: 0.5 for t in range(n_trials)}
    b = {t: 0.5 + 0.01 * (t + 1) for t in range(n_trials)}
    c = {100 + t: 0.4 for t in range(5)}
    pairs = pairwise_tests(_family_less({"A": a, "B": b, "C": c})).set_index(["model_a", "model_b"])
    assert (pairs["comparison"] == "all").all() and (pairs["n_comparisons"] == 3).all()
    p = 2 / 2**n_trials
    assert pairs.loc[("A", "B"), "p_value"] == pytest.approx(p)
    assert pairs.loc[("A", "B"), "p_adjusted"] == pytest.approx(3 * p)
    assert pairs.loc[("A", "B"), "significant"] == significant
    assert pairs.loc[("A", "B"), "winner"] == ("B" if significant else "")
    untestable = pairs.drop(("A", "B"))
    assert untestable["p_value"].isna().all() and untestable["p_adjusted"].isna().all()
    assert not untestable["significant"].any() and (untestable["n"] == 0).all()


def test_bonferroni_adjusted_p_values_are_capped_at_one():
    means = {name: 0.30 for name, _, _ in PAPER_MODELS}
    pairs = pairwise_tests(_results(means, noise=0.05))
    expected = np.minimum(1.0, pairs["p_value"] * pairs["n_comparisons"])
    np.testing.assert_allclose(pairs["p_adjusted"], expected)
    assert (pairs["p_adjusted"] == 1.0).any()  # equal means: some pairs' m p exceeds 1
    assert (pairs["significant"] == (pairs["p_adjusted"] <= 0.05)).all()


def test_a_run_of_boosting_models_alone_is_summarised_without_ranks():
    # A run of product_gb against product_gb_radial has no model of the paper's table to rank:
    # the summary has no ranks, where it raised a TypeError (an empty rank selection's metric
    # column, multiplied as strings) after every trial had run.
    rows = []
    rng = np.random.default_rng(0)
    for name, mean in (("Product GB", 0.40), ("Product GB+R", 0.45)):
        for trial, value in enumerate(mean + 0.01 * rng.standard_normal(10)):
            rows.append(
                dict(section="S", dataset="D", task="classification", signature="H2", model=name, group="boosting",
                     family=BOOSTING_FAMILY, trial=trial, seed=trial, metric="f1_micro", value=value,
                     fit_seconds=0.01, predict_seconds=0.001, n_train=80, n_test=20, error="")
            )  # fmt: skip
    summary = summarize(pd.DataFrame(rows)).set_index("model")
    assert summary["rank"].isna().all()
    assert summary.loc["Product GB+R", "mean"] > summary.loc["Product GB", "mean"]
    # The two boosted models meet each other (the radial variant against its geodesic model).
    pairs = pairwise_tests(pd.DataFrame(rows))
    assert len(pairs) == 1 and pairs["p_value"].iloc[0] < 0.01 and pairs["winner"].iloc[0] == "Product GB+R"
