"""Our stored runs beside the authors' stored per-trial results, cell by cell.

The paper's authors keep their per-trial benchmark results (10 trials per cell,
trees of depth 5, the notebooks' mixture) in their repository; their means and
standard errors are in ``results/authors_stored_means.csv`` (see
BENCHMARKS.md for where they come from). :func:`compare_with_reference` joins
them with a stored run's summary and says, per (section, task, signature,
model) cell, whether the two means agree within their combined standard error:

    z = (ours - theirs) / sqrt(se_ours^2 + se_theirs^2),   agree  <=>  |z| <= 2.

Why 2: if both means estimate the same quantity, z is close to standard normal,
so |z| <= 2 keeps about 95% of cells (1.96 is the two-sided 95% point; 2 is the
customary round value). Two things make more disagreements than 5% likely even
with identical code: the authors' standard errors come from 10 trials only
(with a Student-t of 9 degrees of freedom, P(|t| > 2) is 7.7%), and the models
of one row are scored on the same 10 datasets, so a row whose datasets happen to
be easy or hard moves all its cells together. :func:`chance_disagreements`
measures how many cells disagree for that reason alone, from our own trials.

Signatures are compared in canonical form (``Signature.parse``), so ``H2(-1)``
and ``H2``, ``(H2)^2`` and ``H2 x H2`` are the same row. Both sides name the kind
by the curvature's sign (the authors' single-curvature files are keyed by the
curvature value, negative meaning hyperbolic); a label whose letter contradicts
its curvature, as in the swapped rows of the paper's Table 5 (``H^{2,0.25}``),
is rejected instead of silently matched with the wrong row.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..manifolds.signature import Signature

__all__ = [
    "AGREEMENT_Z",
    "CELL_KEYS",
    "REFERENCE_PATH",
    "REFERENCE_SECTIONS",
    "agreement_counts",
    "chance_disagreements",
    "compare_with_reference",
    "load_reference",
    "reference_markdown",
]

#: Where the authors' means live in the repository.
REFERENCE_PATH = Path(__file__).resolve().parents[2] / "results" / "authors_stored_means.csv"

#: Largest |z| at which two means count as agreeing (see the module docstring for why 2).
AGREEMENT_Z = 2.0

#: The reference file's section names -> the sections of our stored runs.
REFERENCE_SECTIONS = {
    "multi-curvature": "Synthetic (multi-K)",
    "single-curvature": "Synthetic (single K)",
}

#: The reference file's metric names -> ours.
_METRICS = {"f1-micro": "f1_micro", "f1_micro": "f1_micro", "rmse": "rmse"}

#: What identifies a cell on both sides.
CELL_KEYS = ["section", "task", "signature", "model"]

_REFERENCE_COLUMNS = ["section", "task", "signature", "model", "metric", "mean", "standard_error", "n_trials"]
_SUMMARY_COLUMNS = ["section", "task", "signature", "model", "metric", "mean", "std", "n_trials"]

#: Bound on the reference file read from disk (the shipped one is 20 kB).
_MAX_REFERENCE_BYTES = 5_000_000


def _canonical_signature(text, where: str) -> str:
    try:
        return str(Signature.parse(str(text)))
    except ValueError as exc:
        raise ValueError(f"{where}: signature {text!r} cannot be read: {exc}") from None


def _require(frame: pd.DataFrame, columns, what: str):
    missing = [c for c in columns if c not in frame]
    if missing:
        raise ValueError(f"{what} lacks the column(s) {', '.join(missing)}; expected {', '.join(columns)}")


def _numeric(frame: pd.DataFrame, column: str, what: str, minimum: float, row_offset: int = 0) -> pd.Series:
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = ~np.isfinite(values.to_numpy(dtype=float)) | (values.to_numpy(dtype=float) < minimum)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{what}, row {i + row_offset}: {column} must be a finite number of at least {minimum:g}, "
            f"got {frame[column].iloc[i]!r}"
        )
    return values.astype(float)


def load_reference(source=None) -> pd.DataFrame:
    """Read the authors' means into our vocabulary.

    Parameters
    ----------
    source : path or DataFrame, optional
        A CSV with columns ``section`` (``multi-curvature`` / ``single-curvature``),
        ``task``, ``signature``, ``model``, ``metric`` (``f1-micro`` / ``rmse``),
        ``mean``, ``standard_error``, ``n_trials``; default :data:`REFERENCE_PATH`.

    Returns
    -------
    pandas.DataFrame, shape (n_cells, 8)
        The same columns with our section names (``Synthetic (multi-K)``...),
        metric names (``f1_micro``) and canonical signatures.

    Raises
    ------
    ValueError
        Naming the row and the problem: a missing column, an unknown section or
        metric, a signature that cannot be read (including a letter that
        contradicts its curvature), a non-finite or negative number, fewer than
        2 trials, or the same cell twice.
    """
    what = "reference"
    if isinstance(source, pd.DataFrame):
        frame = source.copy()
        offset = 0
    else:
        path = Path(source) if source is not None else REFERENCE_PATH
        what = str(path)
        if path.stat().st_size > _MAX_REFERENCE_BYTES:
            raise ValueError(f"{path}: {path.stat().st_size} bytes, more than the {_MAX_REFERENCE_BYTES} allowed")
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        offset = 2  # file line of the first data row (after the header), for the error messages
    _require(frame, _REFERENCE_COLUMNS, what)
    frame = frame[_REFERENCE_COLUMNS].reset_index(drop=True)
    for column, names in (("section", REFERENCE_SECTIONS), ("metric", _METRICS)):
        unknown = ~frame[column].isin(list(names))
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            raise ValueError(
                f"{what}, row {i + offset}: unknown {column} {frame[column].iloc[i]!r}; "
                f"expected one of {', '.join(names)}"
            )
        frame[column] = frame[column].map(names)
    frame["signature"] = [
        _canonical_signature(text, f"{what}, row {i + offset}") for i, text in enumerate(frame["signature"])
    ]
    frame["mean"] = _numeric(frame, "mean", what, -np.inf, offset)
    frame["standard_error"] = _numeric(frame, "standard_error", what, 0.0, offset)
    # A standard error needs at least two trials.
    frame["n_trials"] = _numeric(frame, "n_trials", what, 2.0, offset).astype(int)
    duplicated = frame.duplicated(CELL_KEYS)
    if duplicated.any():
        i = int(np.flatnonzero(duplicated)[0])
        cell = ", ".join(str(frame[k].iloc[i]) for k in CELL_KEYS)
        raise ValueError(f"{what}, row {i + offset}: the cell ({cell}) appears twice")
    return frame


def compare_with_reference(summary: pd.DataFrame, reference: pd.DataFrame, z_limit: float = AGREEMENT_Z):
    """Our run's cells beside the authors' stored means: difference, z and agreement.

    Parameters
    ----------
    summary : pandas.DataFrame
        A stored run's summary (``load_run(stem)["summary"]``): one row per
        cell with ``section``, ``task``, ``signature``, ``model``, ``metric``,
        ``mean``, ``std`` (over trials, ddof 1) and ``n_trials``.
    reference : pandas.DataFrame
        From :func:`load_reference`.
    z_limit : float
        Largest |z| that counts as agreement (default 2).

    Returns
    -------
    pandas.DataFrame, shape (n_common_cells, 14)
        One row per cell present on both sides, in the summary's order:
        ``section, task, signature, model, metric, mean, se, n_trials`` (ours;
        ``se = std / sqrt(n_trials)``), ``ref_mean, ref_se, ref_n_trials``,
        ``diff`` (ours - theirs), ``z`` (``diff / sqrt(se^2 + ref_se^2)``) and
        ``agree`` (``|z| <= z_limit``). ``attrs["only_ours"]`` and
        ``attrs["only_reference"]`` list the keys of cells found on one side only
        (the reference's cells only in the sections the summary has; ours only
        of the models the reference has).

    Raises
    ------
    ValueError
        For a missing column, an unreadable signature, or a cell whose metric
        differs between the two sides.
    """
    if not z_limit > 0:
        raise ValueError(f"z_limit must be positive, got {z_limit!r}")
    _require(summary, _SUMMARY_COLUMNS, "summary")
    _require(reference, _REFERENCE_COLUMNS, "reference")
    ours = summary[_SUMMARY_COLUMNS].copy()
    ours["signature"] = [_canonical_signature(s, f"summary row {i}") for i, s in enumerate(ours["signature"])]
    ours["se"] = ours["std"] / np.sqrt(ours["n_trials"])
    theirs = reference.rename(
        columns={"mean": "ref_mean", "standard_error": "ref_se", "n_trials": "ref_n_trials", "metric": "ref_metric"}
    )
    # Cells of the reference's other sections are not "missing": a run covers one section.
    theirs_here = theirs[theirs["section"].isin(set(ours["section"]))]
    # Nor are our cells of models the authors never ran (the boosting family): there is nothing to match.
    ours_matchable = ours[ours["model"].isin(set(theirs["model"]))]
    joined = ours_matchable.merge(theirs_here, on=CELL_KEYS, how="outer", indicator=True, sort=False)
    only_ours = joined.loc[joined["_merge"] == "left_only", CELL_KEYS]
    only_reference = joined.loc[joined["_merge"] == "right_only", CELL_KEYS]
    table = ours.merge(theirs, on=CELL_KEYS, how="inner", sort=False)
    clash = table["metric"] != table["ref_metric"]
    if clash.any():
        row = table[clash].iloc[0]
        raise ValueError(
            f"cell ({', '.join(str(row[k]) for k in CELL_KEYS)}): our metric is {row['metric']!r}, "
            f"the reference's {row['ref_metric']!r}"
        )
    table["diff"] = table["mean"] - table["ref_mean"]
    joint = np.sqrt(table["se"] ** 2 + table["ref_se"] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = table["diff"] / joint
    # Two exact means (zero spread on both sides) agree only when they are equal: z is 0 or infinite, never NaN.
    z = z.where(joint > 0, np.where(table["diff"] == 0, 0.0, np.sign(table["diff"]) * np.inf))
    table["z"] = z.astype(float)
    table["agree"] = table["z"].abs() <= z_limit
    columns = [*CELL_KEYS, "metric", "mean", "se", "n_trials", "ref_mean", "ref_se", "ref_n_trials"]
    columns += ["diff", "z", "agree"]
    table = table[columns].reset_index(drop=True)
    table.attrs["only_ours"] = [tuple(r) for r in only_ours.itertuples(index=False)]
    table.attrs["only_reference"] = [tuple(r) for r in only_reference.itertuples(index=False)]
    table.attrs["z_limit"] = float(z_limit)
    return table


def agreement_counts(table: pd.DataFrame) -> pd.DataFrame:
    """How many cells agree, per section and task, and in all.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`compare_with_reference`.

    Returns
    -------
    pandas.DataFrame, shape (n_groups + 1, 6)
        ``section``, ``task``, ``cells``, ``agree``, ``disagree`` and
        ``disagree_perceptron`` (how many of the disagreeing cells are the
        perceptron's); the last row, section ``all``, sums the others.
    """
    rows = []
    for (section, task), block in table.groupby(["section", "task"], sort=False):
        rows.append(_count_row(section, task, block))
    rows.append(_count_row("all", "all", table))
    return pd.DataFrame(rows, columns=["section", "task", "cells", "agree", "disagree", "disagree_perceptron"])


def _count_row(section, task, block):
    disagree = ~block["agree"].astype(bool)
    return [
        section,
        task,
        len(block),
        int((~disagree).sum()),
        int(disagree.sum()),
        int((disagree & (block["model"] == "Perceptron")).sum()),
    ]


def chance_disagreements(
    results: pd.DataFrame,
    n_reference_trials: int = 10,
    n_draws: int = 200,
    z_limit: float = AGREEMENT_Z,
    shared_trials: bool = True,
    random_state=0,
) -> np.ndarray:
    """How many cells disagree when both sides come from the same code: our own trials split in two.

    Each draw takes ``n_reference_trials`` of our trials at random as a pretend
    reference, compares their means with those of the remaining trials by the
    rule of :func:`compare_with_reference`, and counts the disagreeing cells.
    The two parts share no trial, so the counts show what sampling noise alone
    gives, including the clustering of disagreements in rows whose few datasets
    happen to be easy or hard.

    Our runs give every dataset row the same seed in the same trial (common
    random numbers), so a pretend reference of easy trials is easy in every row
    at once. ``shared_trials=False`` draws each row's trials independently: the
    null for a reference whose rows do not share seeds (lighter tails).

    Parameters
    ----------
    results : pandas.DataFrame
        A stored run's per-trial results (``load_run(stem, with_results=True)["results"]``):
        ``section, task, signature, model, trial, value`` and optionally
        ``error`` (rows with an error are left out).
    n_reference_trials : int
        Trials in the pretend reference (the authors': 10).
    n_draws : int
    z_limit : float
    shared_trials : bool
        One draw of trials for every row (True) or one per row (False).
    random_state : int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int, shape (n_draws,)
        Disagreeing cells per draw.

    Raises
    ------
    ValueError
        For a missing column, or when the run has too few trials to leave at
        least 2 on each side.
    """
    _require(results, ["section", "task", "signature", "model", "trial", "value"], "results")
    frame = results
    if "error" in frame:
        frame = frame[frame["error"].fillna("").astype(str) == ""]
    values = frame.pivot_table(index=CELL_KEYS, columns="trial", values="value", aggfunc="first", sort=False)
    scores = values.to_numpy(dtype=float)  # shape (n_cells, n_trials); NaN where a fit failed
    n_trials = scores.shape[1]
    n_reference_trials = int(n_reference_trials)
    if not 2 <= n_reference_trials <= n_trials - 2:
        raise ValueError(
            f"n_reference_trials must leave at least 2 trials on each side of the {n_trials} in the run, "
            f"got {n_reference_trials}"
        )
    if int(n_draws) < 1:
        raise ValueError(f"n_draws must be a positive integer, got {n_draws!r}")
    # A dataset row is (section, task, signature); its models share the row's datasets.
    rows = values.index.droplevel("model")
    row_of_cell = pd.factorize(rows)[0]
    n_rows = int(row_of_cell.max()) + 1 if len(row_of_cell) else 0
    rng = np.random.default_rng(random_state)
    counts = np.empty(int(n_draws), dtype=int)
    for draw in range(int(n_draws)):
        if shared_trials:
            # The same trials for every row: argsort of one row of uniforms is a random permutation.
            keys = np.broadcast_to(rng.random(n_trials), (n_rows, n_trials))
        else:
            keys = rng.random((n_rows, n_trials))
        ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
        pick = (ranks < n_reference_trials)[row_of_cell]  # shape (n_cells, n_trials)
        mean_a, se_a = _mean_se(np.where(pick, scores, np.nan))
        mean_b, se_b = _mean_se(np.where(pick, np.nan, scores))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.abs(mean_b - mean_a) / np.sqrt(se_a**2 + se_b**2)
        # As in compare_with_reference: zero spread on both sides agrees only with an exact tie.
        z = np.where(np.isnan(z), 0.0, z)
        counts[draw] = int((z > z_limit).sum())
    return counts


def _mean_se(block):
    n = np.sum(~np.isnan(block), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nanmean(block, axis=1), np.nanstd(block, axis=1, ddof=1) / np.sqrt(n)


def _format(value, metric, sign=False):
    # F1 in percent with one decimal, RMSE with three, as in the rest of BENCHMARKS.md.
    scale, digits = (100.0, 1) if metric == "f1_micro" else (1.0, 3)
    return f"{value * scale:{'+' if sign else ''}.{digits}f}"


def reference_markdown(table: pd.DataFrame) -> str:
    """The comparison as one Markdown table: every cell with both means, the difference, z and agreement.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`compare_with_reference` (usually one section).

    Returns
    -------
    str
        A GitHub-flavoured table with columns Task, Signature, Model, Ours
        (mean ± standard error), Authors (mean ± standard error), Difference,
        z and Agree (``yes`` / ``no``). F1 is in percent, RMSE as is.
    """
    header = ["Task", "Signature", "Model", "Ours", "Authors", "Difference", "z", "Agree"]
    lines = ["| " + " | ".join(header) + " |", "| :--- | :--- | :--- | ---: | ---: | ---: | ---: | :---: |"]
    for row in table.itertuples(index=False):
        lines.append(
            "| "
            + " | ".join(
                [
                    row.task,
                    row.signature,
                    row.model,
                    f"{_format(row.mean, row.metric)} ± {_format(row.se, row.metric)}",
                    f"{_format(row.ref_mean, row.metric)} ± {_format(row.ref_se, row.metric)}",
                    _format(row.diff, row.metric, sign=True),
                    f"{row.z:+.1f}",
                    "yes" if row.agree else "**no**",
                ]
            )
            + " |"
        )
    return "\n".join(lines)
