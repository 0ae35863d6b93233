"""Add models to a stored run without running its other models again.

A job of the runner (one dataset, one trial) draws its data, split and model
seed from the trial's seed alone (:func:`curvedtrees.benchmarks.runner.job_seed`),
and every model is built from that one model seed and fitted on its own copy of
the split: no model's numbers depend on which other models run beside it. So
the rows of new models, run with the stored run's parameters, are exactly the
rows a run of every model at once would have given them (timings aside), and
the stored rows plus the new ones are that run's per-trial table.

This module checks that a command's parameters are the stored run's, runs
nothing itself, and merges: :func:`check_addition` before any work,
:func:`merge_results` after the new models ran. The command line wires them to
``--add-models`` (``python -m curvedtrees.benchmarks --help``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from .runner import RESULT_COLUMNS, _split, job_seed, trial_seeds
from .stored import _read_json, read_results

__all__ = [
    "AdditionError",
    "check_addition",
    "merge_results",
    "read_stored_run",
    "rewrite_reports",
    "stored_results_path",
]


class AdditionError(ValueError):
    """Models cannot be added to a stored run: it is missing, or was made with other parameters."""


def stored_results_path(directory, name: str) -> Path | None:
    """The stored per-trial table of run ``name`` (``NAME.csv`` or ``NAME.csv.gz``), or None."""
    for candidate in (Path(directory) / f"{name}.csv", Path(directory) / f"{name}.csv.gz"):
        if candidate.exists():
            return candidate
    return None


def read_stored_run(directory, name: str) -> tuple[dict, pd.DataFrame, Path]:
    """The parameters (``NAME.json``) and per-trial results of a stored run.

    Returns
    -------
    meta : dict
    results : pandas.DataFrame
        The tidy table, columns :data:`~curvedtrees.benchmarks.runner.RESULT_COLUMNS`.
    path : pathlib.Path
        The table's file (its suffix says whether it is compressed).

    Raises
    ------
    AdditionError
        When either file is missing or unreadable, or the table lacks columns.
    """
    meta_path = Path(directory) / f"{name}.json"
    path = stored_results_path(directory, name)
    if not meta_path.exists() or path is None:
        raise AdditionError(
            f"there is no stored run {name!r} in {directory} to add models to (it needs {name}.json and "
            f"{name}.csv or {name}.csv.gz): run it first"
        )
    try:
        meta = _read_json(meta_path)
        results = read_results(path)  # bounded, every column checked (a table of NaNs is refused here)
    except (OSError, ValueError) as exc:
        raise AdditionError(f"cannot read the stored run {name!r} in {directory}: {exc}") from None
    if not isinstance(meta, dict):
        raise AdditionError(f"{meta_path} does not hold a run's parameters")
    missing = [c for c in RESULT_COLUMNS if c not in results]
    if missing:
        raise AdditionError(f"{path} is not a per-trial results table: no column {', '.join(missing)}")
    return meta, results, path


def _same(recorded, now) -> bool:
    # Through JSON, so that tuples and lists, or 3 and 3.0, compare as the file stores them.
    return json.loads(json.dumps(recorded)) == json.loads(json.dumps(now))


def check_addition(
    meta: dict,
    stored: pd.DataFrame,
    preset_name: str,
    datasets,
    models,
    n_trials: int,
    random_state: int,
    tree_params: dict,
    test_size: float = 0.2,
    name: str = "the stored run",
) -> None:
    """Refuse an addition whose parameters are not the stored run's, or whose models it already holds.

    Parameters
    ----------
    meta : dict
        The stored run's ``NAME.json``.
    stored : pandas.DataFrame
        Its per-trial results.
    preset_name : str
    datasets : list of DatasetSpec
        The command's datasets (with its ``n_samples``).
    models : list of ModelSpec
        The models to add.
    n_trials, random_state : int
    tree_params : dict
        The command's tree parameters (the preset's, then ``--max-depth``).
    test_size : float
    name : str
        The run's name, for messages.

    Raises
    ------
    AdditionError
        Naming every parameter that differs (recorded value, then the command's),
        or the models already in the run. The number of generated points is not
        recorded by older runs: it is checked by drawing the first dataset's first
        trial and comparing its train and test sizes with the stored rows.
    """
    problems = []
    checks = [
        ("preset", meta.get("preset"), preset_name),
        ("trials", meta.get("n_trials"), int(n_trials)),
        ("seed", meta.get("random_state"), int(random_state)),
        ("test size", meta.get("test_size"), float(test_size)),
        ("tree parameters", meta.get("tree_params") or {}, dict(tree_params or {})),
        ("datasets", meta.get("datasets"), [d.label for d in datasets]),
    ]
    for label, recorded, now in checks:
        if not _same(recorded, now):
            shown = (
                f"{len(recorded or [])} in the run, {len(now)} now"
                if label == "datasets"
                else f"{recorded!r} in the run, {now!r} now"
            )
            problems.append(f"{label} {shown}")
    if problems:
        raise AdditionError(f"the command's parameters differ from the stored run {name!r}: " + "; ".join(problems))
    present = [m.name for m in models if m.name in (meta.get("models") or [])]
    if present:
        raise AdditionError(f"{name!r} already holds {', '.join(present)}: nothing to add for them")
    seeds = trial_seeds(random_state, 1)
    rows = stored[(stored["dataset"] + ", " + stored["task"] + ", " + stored["signature"] == datasets[0].label)]
    rows = rows[rows["trial"] == 0]
    if rows.empty:
        raise AdditionError(f"{name!r} has no rows for the first trial of {datasets[0].label}")
    stored_sizes = (int(rows["n_train"].iloc[0]), int(rows["n_test"].iloc[0]))
    data_seed, split_seed, _ = job_seed(seeds[0])
    X_train, X_test, _, _ = _split(datasets[0].load(data_seed), float(test_size), split_seed)
    if (len(X_train), len(X_test)) != stored_sizes:
        raise AdditionError(
            f"the command's data differ from the stored run {name!r} (--n-samples?): the first trial of "
            f"{datasets[0].label} has {stored_sizes[0]} training and {stored_sizes[1]} test rows in the run, "
            f"{len(X_train)} and {len(X_test)} now"
        )


def merge_results(stored: pd.DataFrame, added: pd.DataFrame, meta: dict) -> pd.DataFrame:
    """The stored rows and the added models' rows as one run of every model.

    Rows are ordered as :func:`~curvedtrees.benchmarks.runner.run_benchmark`
    orders them (dataset, trial, then model, the added models after the stored
    ones), and the frame's ``attrs`` are the stored run's with the added models
    appended to ``models``, their wall time added to ``wall_seconds`` and the
    addition recorded under ``added_models``.

    Raises
    ------
    AdditionError
        When an added row's trial seed or train/test sizes differ from the stored
        rows of the same (dataset, trial): the data would not be the same.
    """
    keys = ["dataset", "task", "signature", "trial"]
    reference = stored.drop_duplicates(keys).set_index(keys)[["seed", "n_train", "n_test"]]
    check = added.drop_duplicates(keys).set_index(keys)[["seed", "n_train", "n_test"]]
    joined = check.merge(reference, left_index=True, right_index=True, how="left", suffixes=("", "_stored"))
    differ = joined[
        (joined["seed"] != joined["seed_stored"])
        | (joined["n_train"] != joined["n_train_stored"])
        | (joined["n_test"] != joined["n_test_stored"])
    ]
    if len(differ):
        where = ", ".join(str(k) for k in differ.index[:3])
        raise AdditionError(f"the added models saw other data than the stored run in {len(differ)} jobs ({where})")
    models = list(meta.get("models") or dict.fromkeys(stored["model"]))
    new_models = [m for m in added.attrs.get("models", dict.fromkeys(added["model"])) if m not in models]
    order = {m: i for i, m in enumerate([*models, *new_models])}
    labels = list(meta.get("datasets") or [])
    dataset_order = {label: i for i, label in enumerate(labels)}
    frame = pd.concat([stored[RESULT_COLUMNS], added[RESULT_COLUMNS]], ignore_index=True)
    label = frame["dataset"] + ", " + frame["task"] + ", " + frame["signature"]
    frame["_dataset"] = label.map(dataset_order)
    frame["_model"] = frame["model"].map(order)
    frame = frame.sort_values(["_dataset", "trial", "_model"], kind="stable").drop(columns=["_dataset", "_model"])
    frame = frame.reset_index(drop=True)
    frame["trial"] = frame["trial"].astype(int)
    frame["seed"] = frame["seed"].astype(np.int64)
    attrs = {k: v for k, v in meta.items() if k not in ("name", "description")}
    added_wall = float(added.attrs.get("wall_seconds", 0.0))
    attrs["models"] = [*models, *new_models]
    attrs["wall_seconds"] = float(meta.get("wall_seconds") or 0.0) + added_wall
    skipped = {**(meta.get("skipped_models") or {}), **(added.attrs.get("skipped_models") or {})}
    attrs["skipped_models"] = skipped
    attrs["added_models"] = [
        *(meta.get("added_models") or []),
        {"models": new_models, "wall_seconds": added_wall, "backend": added.attrs.get("backend", "?")},
    ]
    frame.attrs.update(attrs)
    return frame


def rewrite_reports(directory, name: str, paper: pd.DataFrame | None = None) -> dict:
    """Write run ``name``'s reports again from its stored per-trial table, running nothing.

    For reports made by older code (statistics or layout that changed since):
    the summary, the tests and the Markdown report are computed again, the
    per-trial table and the parameters are kept (the description becomes the
    preset's current one, as a new run would write it).

    Parameters
    ----------
    directory : path
    name : str
    paper : pandas.DataFrame, optional
        The paper's Table 5; default: read for presets that follow the paper.

    Returns
    -------
    dict
        What :func:`~curvedtrees.benchmarks.report.write_report` returns.
    """
    from .paper import PAPER_TABLE5_PATH, load_paper_table5
    from .presets import PRESETS
    from .report import write_report

    meta, results, path = read_stored_run(directory, name)
    results.attrs.update({k: v for k, v in meta.items() if k not in ("name", "description")})
    preset = PRESETS.get(meta.get("preset"))
    description = preset.description if preset is not None else meta.get("description", "")
    if paper is None and preset is not None and preset.paper and PAPER_TABLE5_PATH.exists():
        paper = load_paper_table5()
    return write_report(results, directory, name, description, paper, compress=path.suffix == ".gz")
