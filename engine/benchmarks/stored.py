"""Stored benchmark runs (``results/``): list them and read them back for reports and the app.

A run written by :func:`curvedtrees.benchmarks.report.write_report` is a set of
files sharing a stem: ``NAME.json`` (parameters), ``NAME_summary.csv``,
``NAME_pairs.csv``, ``NAME.md`` and the tidy ``NAME.csv`` (or ``NAME.csv.gz``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

__all__ = ["RESULTS_DIR", "list_runs", "load_run"]

#: The repository's results folder.
RESULTS_DIR = Path(__file__).resolve().parents[2] / "results"


def list_runs(directory=None) -> list[dict]:
    """The stored runs in ``directory`` (default :data:`RESULTS_DIR`), by name.

    Returns
    -------
    list of dict
        Each run's parameters (``name``, ``description``, ``n_trials``,
        ``wall_seconds``, ``models``...), from its ``NAME.json``; runs without a
        summary file are skipped.
    """
    directory = Path(directory or RESULTS_DIR)
    runs = []
    for meta_path in sorted(directory.glob("*.json")):
        if not (directory / f"{meta_path.stem}_summary.csv").exists():
            continue
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(meta, dict):
            meta.setdefault("name", meta_path.stem)
            meta["stem"] = meta_path.stem
            meta["modified"] = meta_path.stat().st_mtime
            runs.append(meta)
    # By name: file times are arbitrary after a checkout.
    return sorted(runs, key=lambda m: m["stem"])


def _read(path: Path) -> pd.DataFrame:
    # Text columns that are often all empty would otherwise be read as float NaN.
    text = {column: str for column in ("marks", "error", "family", "winner")}
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=text)
    for column in text:
        if column in frame:
            frame[column] = frame[column].fillna("")
    return frame


def load_run(stem: str, directory=None, with_results: bool = False) -> dict:
    """Read a stored run.

    Parameters
    ----------
    stem : str
        File name stem (``"multi-curvature"``).
    directory : path, optional
    with_results : bool
        Also read the tidy per-trial results (larger).

    Returns
    -------
    dict
        ``meta`` (dict), ``summary`` and ``pairs`` (DataFrames), ``markdown``
        (str), and ``results`` (DataFrame or None).

    Raises
    ------
    FileNotFoundError
        When the run's summary is missing.
    """
    directory = Path(directory or RESULTS_DIR)
    if "/" in stem or "\\" in stem or stem.startswith("."):
        raise ValueError(f"not a run name: {stem!r}")
    summary_path = directory / f"{stem}_summary.csv"
    if not summary_path.exists():
        raise FileNotFoundError(f"no stored run named {stem!r} in {directory}")
    meta_path = directory / f"{stem}.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {"name": stem}
    pairs_path = directory / f"{stem}_pairs.csv"
    markdown_path = directory / f"{stem}.md"
    results = None
    if with_results:
        for candidate in (directory / f"{stem}.csv", directory / f"{stem}.csv.gz"):
            if candidate.exists():
                results = _read(candidate)
                break
    return {
        "meta": meta,
        "summary": _read(summary_path),
        "pairs": _read(pairs_path) if pairs_path.exists() else None,
        "markdown": markdown_path.read_text(encoding="utf-8") if markdown_path.exists() else "",
        "results": results,
    }
