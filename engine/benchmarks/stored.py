"""Stored benchmark runs (``results/``): list them and read them back for reports and the app.

A run written by :func:`curvedtrees.benchmarks.report.write_report` is a set of
files sharing a stem: ``NAME.json`` (parameters), ``NAME_summary.csv``,
``NAME_pairs.csv``, ``NAME.md`` and the tidy ``NAME.csv`` (or ``NAME.csv.gz``).
"""

from __future__ import annotations

import gzip
import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..limits import MAX_BENCHMARK_TABLE_BYTES, MAX_BENCHMARK_TEXT_BYTES

__all__ = [
    "RESULTS_DIR",
    "StoredRunError",
    "check_results",
    "check_summary",
    "list_runs",
    "load_run",
    "read_bounded",
    "read_results",
]


class StoredRunError(ValueError):
    """A stored run's file that cannot be used (too large, not a table of results, damaged)."""


def read_bounded(path, limit: int = MAX_BENCHMARK_TEXT_BYTES, what: str = "file") -> bytes:
    """The bytes of ``path``, reading at most ``limit`` of them (gzip members decompressed).

    A file, a pipe or a device (``/dev/zero``) is read in one bounded call, so nothing
    larger than ``limit`` is ever held, whatever the file claims to be.

    Raises
    ------
    StoredRunError
        When there is more than ``limit`` bytes (decompressed, for ``.gz``).
    OSError
        When the file cannot be read.
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            data = handle.read(limit + 1)
    except (EOFError, gzip.BadGzipFile) as exc:  # a damaged .gz
        raise StoredRunError(f"{path} is not a readable gzip file ({exc})") from None
    if len(data) > limit:
        raise StoredRunError(f"the {what} {path} has more than {limit:,} bytes; the limit is {limit:,}")
    return data


def _read_json(path: Path):
    try:
        return json.loads(read_bounded(path, MAX_BENCHMARK_TEXT_BYTES, "run parameters file"))
    except RecursionError:
        raise StoredRunError(f"{path} nests too deeply to be a run's parameters") from None


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
            meta = _read_json(meta_path)
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
    """A stored CSV table (``.csv`` or ``.csv.gz``), at most ``MAX_BENCHMARK_TABLE_BYTES`` read."""
    # Text columns that are often all empty would otherwise be read as float NaN.
    text = {column: str for column in ("marks", "error", "family", "winner")}
    data = read_bounded(path, MAX_BENCHMARK_TABLE_BYTES, "table")
    try:
        frame = pd.read_csv(io.BytesIO(data), keep_default_na=False, na_values=[""], dtype=text)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StoredRunError(f"{path} is not a readable CSV table: {first}") from None
    for column in text:
        if column in frame:
            frame[column] = frame[column].fillna("")
    return frame


# Columns every table of a stored run needs, by kind: text columns hold non-empty
# strings, count columns whole non-negative numbers, number columns numbers (NaN
# allowed: a failed fit's value, a missing interval).
_TEXT = ("section", "dataset", "task", "signature", "model", "group", "metric")
_TASKS = ("classification", "regression", "link_prediction")


def _shown(value) -> str:
    """A cell's value for a message (an empty cell is read as NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return "an empty cell"
    return repr(value.item() if isinstance(value, np.generic) else value)


def _check_columns(frame: pd.DataFrame, where, text, counts, numbers) -> pd.DataFrame:
    missing = [c for c in (*text, *counts, *numbers) if c not in frame]
    if missing:
        raise StoredRunError(f"{where} is not a table of this kind: no column {', '.join(missing)}")
    for column in text:
        values = frame[column]
        bad = ~values.map(lambda v: isinstance(v, str) and v != "")
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise StoredRunError(
                f"{where}, row {row + 2}: {column} must be a non-empty text, got {_shown(values.iloc[row])}"
            )
    if "task" in text and not frame["task"].isin(_TASKS).all():
        row = int(np.flatnonzero(~frame["task"].isin(_TASKS).to_numpy())[0])
        raise StoredRunError(f"{where}, row {row + 2}: task must be one of {', '.join(_TASKS)}")
    for column in counts:
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~(np.isfinite(values) & (values >= 0) & (values == np.round(values)))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise StoredRunError(
                f"{where}, row {row + 2}: {column} must be a whole non-negative number, "
                f"got {_shown(frame[column].iloc[row])}"
            )
    for column in numbers:
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = values.isna() & frame[column].notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise StoredRunError(
                f"{where}, row {row + 2}: {column} must be a number, got {_shown(frame[column].iloc[row])}"
            )
        frame[column] = values.astype(np.float64)
    return frame


def check_results(frame: pd.DataFrame, where) -> pd.DataFrame:
    """A stored per-trial table, checked: every column of a run, each of its kind.

    Raises
    ------
    StoredRunError
        Naming the file, the row and the column (a table of NaNs used to fail deep in
        the reports with ``KeyError: 'group'``).
    """
    frame = _check_columns(
        frame,
        where,
        _TEXT,
        ("trial", "seed", "n_train", "n_test"),
        ("value", "fit_seconds", "predict_seconds"),
    )
    if frame.empty:
        raise StoredRunError(f"{where} has no rows")
    for column in ("trial", "seed", "n_train", "n_test"):
        frame[column] = frame[column].astype(np.int64)
    for column in ("family", "error"):
        if column in frame:
            frame[column] = frame[column].map(lambda v: v if isinstance(v, str) else "")
    return frame


def check_summary(frame: pd.DataFrame, where) -> pd.DataFrame:
    """A stored run's summary (one row per table row and model), checked like :func:`check_results`."""
    frame = _check_columns(frame, where, _TEXT, ("n_trials",), ("mean", "ci"))
    if frame.empty:
        raise StoredRunError(f"{where} has no rows")
    return frame


def read_results(path) -> pd.DataFrame:
    """A stored per-trial table (``NAME.csv`` or ``NAME.csv.gz``), bounded and checked."""
    return check_results(_read(Path(path)), Path(path))


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
    StoredRunError
        (a ``ValueError``) When a file is too large, not a table of results, or damaged,
        naming the file, the row and the column.
    """
    directory = Path(directory or RESULTS_DIR)
    if "/" in stem or "\\" in stem or stem.startswith("."):
        raise ValueError(f"not a run name: {stem!r}")
    summary_path = directory / f"{stem}_summary.csv"
    if not summary_path.exists():
        raise FileNotFoundError(f"no stored run named {stem!r} in {directory}")
    meta_path = directory / f"{stem}.json"
    meta = _read_json(meta_path) if meta_path.exists() else {"name": stem}
    if not isinstance(meta, dict):
        raise StoredRunError(f"{meta_path} does not hold a run's parameters (a JSON object)")
    pairs_path = directory / f"{stem}_pairs.csv"
    markdown_path = directory / f"{stem}.md"
    results = None
    if with_results:
        for candidate in (directory / f"{stem}.csv", directory / f"{stem}.csv.gz"):
            if candidate.exists():
                results = read_results(candidate)
                break
    markdown = read_bounded(markdown_path, MAX_BENCHMARK_TEXT_BYTES, "report") if markdown_path.exists() else b""
    return {
        "meta": meta,
        "summary": check_summary(_read(summary_path), summary_path),
        "pairs": _read(pairs_path) if pairs_path.exists() else None,
        "markdown": markdown.decode("utf-8", errors="replace"),
        "results": results,
    }
