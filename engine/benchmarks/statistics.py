"""Summaries of benchmark results: means with confidence intervals, paired tests, marks, ranks.

The protocol is the paper's (section 4.1):

- each cell is the mean over trials with a 95% confidence interval;
- models are compared pairwise with the Wilcoxon signed-rank test on their
  per-trial scores (trials are paired: every model saw the same split);
- comparisons are made among models of the same type (trees with trees,
  forests with forests; k-NN and the perceptron take part in both), and the
  significance level .05 is divided by the number of comparisons in that set
  (Bonferroni: 5 models, 10 pairs, threshold .005; statsmodels'
  ``multipletests``);
- a model carries the mark of every model group it beats significantly
  (``*`` product, ``†`` ambient, ``‡`` tangent, ``§`` k-NN, ``¶`` perceptron);
- per dataset row, models are ranked by mean; top-1/top-2 counts follow.

Models of the ``"boosting"`` family (product gradient boosting and its
HistGradientBoosting baselines, which the paper did not run) stay out of all of
this, so the paper's models keep exactly the paper's comparisons, Bonferroni
factors, marks and ranks whatever else a run holds. Boosting is tested in a
family of its own (comparison ``"boosting"``): product gradient boosting
against the product random forest and against each baseline, Bonferroni over
those comparisons of the row (:func:`boosting_pairs`). Its rows in the summary
have no rank and no marks.

All functions take the tidy frame returned by
:func:`curvedtrees.benchmarks.run_benchmark` (rows with a non-empty ``error`` or a
NaN value are ignored).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from scipy import stats

from .specs import GROUP_MARKS, METRICS

__all__ = [
    "BOOSTING_FAMILY",
    "ROW_KEYS",
    "boosting_pairs",
    "confidence_interval",
    "group_top_counts",
    "pairwise_tests",
    "rank_counts",
    "significance_marks",
    "summarize",
    "wilcoxon_p_value",
]

#: Columns that identify one dataset row of a results table.
ROW_KEYS = ["section", "dataset", "task", "signature"]

#: The family of the models the paper did not run (see the module docstring).
BOOSTING_FAMILY = "boosting"
#: Within it, the group of the model under test (product gradient boosting); the
#: others of the family are its baselines.
_BOOSTED_GROUP = "boosting"


def confidence_interval(values, confidence: float = 0.95) -> tuple[float, float]:
    """Mean and half-width of the two-sided Student-t confidence interval of the mean.

    Parameters
    ----------
    values : array-like of shape (n,)
        NaNs are ignored.
    confidence : float
        Coverage, e.g. 0.95.

    Returns
    -------
    mean : float
    half_width : float
        ``t_{(1+confidence)/2, n-1} * s / sqrt(n)``; NaN when fewer than two values.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = float(values.mean())
    if n < 2:
        return mean, math.nan
    sem = values.std(ddof=1) / math.sqrt(n)
    return mean, float(stats.t.ppf(0.5 + confidence / 2, n - 1) * sem)


def wilcoxon_p_value(a, b) -> float:
    """Two-sided Wilcoxon signed-rank p-value for paired samples ``a`` and ``b``.

    Zero differences are dropped (Wilcoxon's original treatment, scipy's
    ``zero_method="wilcox"``); when every difference is zero the samples are
    indistinguishable and the p-value is 1. Pairs with a NaN are dropped.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired samples need equal 1-D shapes, got {a.shape} and {b.shape}")
    keep = ~(np.isnan(a) | np.isnan(b))
    diff = a[keep] - b[keep]
    if not np.any(diff != 0):
        return 1.0
    return float(stats.wilcoxon(a[keep], b[keep], zero_method="wilcox", alternative="two-sided").pvalue)


def _valid(results: pd.DataFrame) -> pd.DataFrame:
    frame = results
    if "error" in frame:
        frame = frame[frame["error"].fillna("") == ""]
    return frame[frame["value"].notna()]


def _sign(metric: str) -> int:
    try:
        return METRICS[metric]
    except KeyError:
        raise ValueError(f"unknown metric {metric!r}: expected one of {', '.join(METRICS)}") from None


def _model_info(results: pd.DataFrame) -> pd.DataFrame:
    """One row per model (first-seen order) with its group and family."""
    cols = ["model"] + [c for c in ("group", "family") if c in results]
    info = results[cols].drop_duplicates("model").set_index("model")
    if "group" not in info:
        info["group"] = "other"
    if "family" not in info:
        info["family"] = ""
    info["family"] = info["family"].fillna("")
    return info


def _row_groups(frame: pd.DataFrame):
    keys = [k for k in ROW_KEYS if k in frame]
    return frame.groupby(keys, sort=False, dropna=False), keys


def summarize(
    results: pd.DataFrame, confidence: float = 0.95, alpha: float = 0.05, rank_all: bool = False
) -> pd.DataFrame:
    """Per (dataset row, model): mean, confidence interval, timings, rank and marks.

    Parameters
    ----------
    results : pandas.DataFrame
        Per-trial rows, as :func:`run_benchmark` returns them.
    confidence : float
        Level of the confidence intervals.
    alpha : float
        Significance level of the marks (Bonferroni-corrected).
    rank_all : bool
        Rank every model of a row. By default only the paper's models are ranked
        (its Table 1) and the boosting family's ranks are NaN; a comparison of the
        models a user picked ranks them all.

    Returns
    -------
    pandas.DataFrame
        Columns: the row keys (section, dataset, task, signature), model, group,
        family, metric, n_trials, mean, ci (half-width), std, fit_seconds and
        predict_seconds (means), rank (1 = best, ties share the best rank) and
        marks (the paper's significance marks, see :func:`significance_marks`).
        Rows keep the order of first appearance in ``results``.
    """
    frame = _valid(results)
    info = _model_info(results)
    out = []
    groups, keys = _row_groups(frame)
    for row_key, block in groups:
        row_key = row_key if isinstance(row_key, tuple) else (row_key,)
        metric = block["metric"].iloc[0]
        for model, scores in block.groupby("model", sort=False):
            mean, ci = confidence_interval(scores["value"], confidence)
            out.append(
                dict(
                    zip(keys, row_key),
                    model=model,
                    group=info.loc[model, "group"],
                    family=info.loc[model, "family"],
                    metric=metric,
                    n_trials=len(scores),
                    mean=mean,
                    ci=ci,
                    std=float(scores["value"].std(ddof=1)) if len(scores) > 1 else math.nan,
                    fit_seconds=float(scores["fit_seconds"].mean()),
                    predict_seconds=float(scores["predict_seconds"].mean()),
                )
            )
    summary = pd.DataFrame(out)
    if summary.empty:
        return summary
    # Ranks among the paper's models only (the paper's Table 1); boosting has its own table.
    paper_rows = (summary["family"] != BOOSTING_FAMILY) | rank_all
    summary["rank"] = math.nan
    summary.loc[paper_rows, "rank"] = _ranks(summary[paper_rows], keys)
    pairs = pairwise_tests(results, alpha=alpha)
    marks = significance_marks(pairs[pairs["comparison"] != BOOSTING_FAMILY])
    if marks.empty:
        summary["marks"] = ""
    else:
        summary = summary.merge(marks, on=[*keys, "model"], how="left")
        summary["marks"] = summary["marks"].fillna("")
    return summary


def _ranks(summary: pd.DataFrame, keys) -> pd.Series:
    # Means that differ only by float summation order are ties, not a ranking.
    # int64 signs: the map of an empty str column (a run of boosting models alone ranks
    # nothing) stays str, and float * str raises.
    signed = (summary["mean"] * summary["metric"].map(_sign).astype(np.int64)).round(12)
    # Rank within each dataset row: 1 for the best mean; ties share the smaller rank.
    return signed.groupby([summary[k] for k in keys], sort=False, dropna=False).rank(ascending=False, method="min")


def _comparison_sets(models: list[str], info: pd.DataFrame) -> dict[str, list[tuple[str, str]]]:
    """The pairs to test in each comparison set of one dataset row.

    The paper's sets: every pair of trees (+ family-less models) and of forests
    (+ family-less models), or of all models when none has a family. The boosting
    set (:func:`boosting_pairs`) holds only product gradient boosting's pairs.
    """
    families = {m: info.loc[m, "family"] for m in models}
    paper = [m for m in models if families[m] != BOOSTING_FAMILY]
    sets = {}
    for family in ("tree", "forest"):
        if any(families[m] == family for m in paper):
            sets[family] = list(itertools.combinations([m for m in paper if families[m] in (family, "")], 2))
    if not sets and paper:
        sets["all"] = list(itertools.combinations(paper, 2))
    boosted = boosting_pairs(models, info)
    if boosted:
        sets[BOOSTING_FAMILY] = boosted
    return sets


def boosting_pairs(models: list[str], info: pd.DataFrame) -> list[tuple[str, str]]:
    """The boosting family's comparisons in one dataset row: (boosted model, opponent) pairs.

    The boosted models (family and group ``"boosting"``: product gradient boosting,
    and its radial variant) meet each other first, then each meets the product
    random forests (group ``"product"``, family ``"forest"``) and every other model
    of the boosting family (its HistGradientBoosting baselines), in that order; an
    opponent the row does not hold (the Klein wrapper on a signature with S
    components) is left out, so it does not count in the Bonferroni factor. A run
    with one boosted model tests exactly the pairs it did before the radial variant.

    Parameters
    ----------
    models : list of str
        The row's models.
    info : pandas.DataFrame
        Index model, columns group and family.
    """
    family = {m: info.loc[m, "family"] for m in models}
    group = {m: info.loc[m, "group"] for m in models}
    boosted = [m for m in models if family[m] == BOOSTING_FAMILY and group[m] == _BOOSTED_GROUP]
    forests = [m for m in models if family[m] == "forest" and group[m] == "product"]
    baselines = [m for m in models if family[m] == BOOSTING_FAMILY and group[m] != _BOOSTED_GROUP]
    return [
        *itertools.combinations(boosted, 2),
        *((b, opponent) for b in boosted for opponent in [*forests, *baselines]),
    ]


def pairwise_tests(results: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Wilcoxon signed-rank tests between models of each comparison set, Bonferroni-corrected.

    For each dataset row and each comparison set (``"tree"``: tree models plus
    family-less ones such as k-NN; ``"forest"``: likewise; ``"all"`` when no model
    has a family; boosting-family models take part in none of these), every pair
    of models is tested on the trials both completed. The ``"boosting"`` set holds
    product gradient boosting against the product random forest and against each
    of its baselines (:func:`boosting_pairs`).
    The Bonferroni correction (statsmodels' ``multipletests``) runs over the
    ``m`` pairs of each set: a pair is significant when ``p <= alpha / m``, i.e.
    when its adjusted p-value ``min(1, m p)`` is at most ``alpha``. A pair
    without common trials has no p-value (NaN), is never significant, and still
    counts in ``m``.

    Returns
    -------
    pandas.DataFrame
        Columns: row keys, comparison, model_a, model_b, n (paired trials),
        mean_a, mean_b, p_value, p_adjusted (Bonferroni), n_comparisons,
        threshold (``alpha / m``), significant (bool), winner (the better model
        by mean when significant, else "").
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha}")
    frame = _valid(results)
    info = _model_info(results)
    out = []
    groups, keys = _row_groups(frame)
    for row_key, block in groups:
        row_key = row_key if isinstance(row_key, tuple) else (row_key,)
        sign = _sign(block["metric"].iloc[0])
        wide = block.pivot_table(index="trial", columns="model", values="value", aggfunc="first")
        models = [m for m in block["model"].drop_duplicates() if m in wide]
        for comparison, pairs in _comparison_sets(models, info).items():
            m = len(pairs)
            tests = []
            for model_a, model_b in pairs:
                both = wide[[model_a, model_b]].dropna()
                a, b = both[model_a].to_numpy(), both[model_b].to_numpy()
                p = wilcoxon_p_value(a, b) if len(both) else math.nan
                mean_a, mean_b = (float(a.mean()), float(b.mean())) if len(both) else (math.nan, math.nan)
                tests.append((model_a, model_b, len(both), mean_a, mean_b, p))
            reject, adjusted = _bonferroni([t[-1] for t in tests], alpha)
            for (model_a, model_b, n, mean_a, mean_b, p), significant, p_adjusted in zip(tests, reject, adjusted):
                winner = ""
                if significant and mean_a != mean_b:
                    winner = model_a if sign * (mean_a - mean_b) > 0 else model_b
                out.append(
                    dict(
                        zip(keys, row_key),
                        comparison=comparison,
                        model_a=model_a,
                        model_b=model_b,
                        n=n,
                        mean_a=mean_a,
                        mean_b=mean_b,
                        p_value=p,
                        p_adjusted=p_adjusted,
                        n_comparisons=m,
                        threshold=alpha / m,
                        significant=significant,
                        winner=winner,
                    )
                )
    columns = [*keys, "comparison", "model_a", "model_b", "n", "mean_a", "mean_b", "p_value", "p_adjusted"]
    columns += ["n_comparisons", "threshold", "significant", "winner"]
    pairs = pd.DataFrame(out, columns=columns)
    # Remember the models' groups so significance_marks needs nothing else.
    pairs.attrs["groups"] = info["group"].to_dict()
    return pairs


def _bonferroni(p_values, alpha: float) -> tuple[list[bool], list[float]]:
    """Bonferroni over all of ``p_values`` (statsmodels): which are significant, and the adjusted p-values.

    Parameters
    ----------
    p_values : list of float, length m
        NaN for a test that could not be made; it counts in ``m`` but is never significant.

    Returns
    -------
    significant : list of bool, length m
    adjusted : list of float, length m
        ``min(1, m p)``; NaN where ``p`` is NaN.
    """
    if not p_values:
        return [], []
    try:
        from statsmodels.stats.multitest import multipletests
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the Bonferroni correction needs statsmodels: pip install 'curvedtrees[benchmarks]'") from exc

    p = np.asarray(p_values, dtype=np.float64)
    missing = np.isnan(p)
    # A missing test enters as p = 1, so it keeps its place in m without comparisons on NaN.
    reject, adjusted, _, _ = multipletests(np.where(missing, 1.0, p), alpha=alpha, method="bonferroni")
    adjusted = np.where(missing, np.nan, adjusted)
    return [bool(r) and not gap for r, gap in zip(reject, missing)], [float(a) for a in adjusted]


def significance_marks(pairs: pd.DataFrame, results: pd.DataFrame | None = None, marks: dict | None = None):
    """The paper's marks: which model groups each model beats significantly.

    Model A carries group G's mark when A was compared with at least one model
    of G (in any comparison set, G different from A's own group) and
    significantly beat every model of G it was compared with. For a tree that
    means beating G's tree; for k-NN or the perceptron, which join both sets,
    beating G's tree and G's forest.

    Parameters
    ----------
    pairs : DataFrame from :func:`pairwise_tests`
    results : DataFrame, optional
        Tidy results to read the models' groups from, only needed when ``pairs``
        did not come straight from :func:`pairwise_tests` (which records them).
    marks : dict, optional
        ``{group: mark}``; defaults to :data:`~curvedtrees.benchmarks.specs.GROUP_MARKS`.

    Returns
    -------
    pandas.DataFrame
        Row keys, model, marks (string of marks in the order of ``marks``).
    """
    marks = GROUP_MARKS if marks is None else marks
    keys = [k for k in ROW_KEYS if k in pairs]
    if pairs.empty:
        return pd.DataFrame(columns=[*keys, "model", "marks"])
    groups = pairs.attrs.get("groups")
    if groups is None and results is not None:
        groups = _model_info(results)["group"].to_dict()
    if groups is None:
        raise ValueError("significance_marks needs the models' groups: pass results=")
    out = []
    for row_key, block in pairs.groupby(keys, sort=False, dropna=False):
        row_key = row_key if isinstance(row_key, tuple) else (row_key,)
        models = list(dict.fromkeys([*block["model_a"], *block["model_b"]]))
        for model in models:
            text = ""
            for group, mark in marks.items():
                if groups.get(model) == group:
                    continue
                versus = block[
                    ((block["model_a"] == model) & (block["model_b"].map(groups) == group))
                    | ((block["model_b"] == model) & (block["model_a"].map(groups) == group))
                ]
                if len(versus) and bool((versus["winner"] == model).all()):
                    text += mark
            out.append(dict(zip(keys, row_key), model=model, marks=text))
    return pd.DataFrame(out, columns=[*keys, "model", "marks"])


def rank_counts(summary: pd.DataFrame, ks=(1, 2)) -> pd.DataFrame:
    """Per model: number of dataset rows, mean rank, and how often it ranked in the top k.

    Returns
    -------
    pandas.DataFrame
        Index model (first-seen order); columns n_rows, mean_rank, top1, top2, ...
    """
    if summary.empty:
        return pd.DataFrame(columns=["n_rows", "mean_rank", *[f"top{k}" for k in ks]])
    out = {}
    for model, block in summary.groupby("model", sort=False):
        row = {"n_rows": len(block), "mean_rank": float(block["rank"].mean())}
        for k in ks:
            row[f"top{k}"] = int((block["rank"] <= k).sum())
        out[model] = row
    frame = pd.DataFrame.from_dict(out, orient="index")
    frame.index.name = "model"
    return frame


def group_top_counts(summary: pd.DataFrame, group: str = "product", ks=(1, 2)) -> pd.DataFrame:
    """How often some model of ``group`` ranked in the top k, per task (the paper's Table 1).

    Returns
    -------
    pandas.DataFrame
        Index task (plus "total"); columns rows, top1, top2, ...
    """
    keys = [k for k in ROW_KEYS if k in summary]
    out = {}
    for task, block in [*summary.groupby("task", sort=False), ("total", summary)]:
        best = block[block["group"] == group].groupby(keys, sort=False, dropna=False)["rank"].min()
        n_rows = block.groupby(keys, sort=False, dropna=False).ngroups
        row = {"rows": n_rows}
        for k in ks:
            row[f"top{k}"] = int((best <= k).sum())
        out[task] = row
    frame = pd.DataFrame.from_dict(out, orient="index")
    frame.index.name = "task"
    return frame
