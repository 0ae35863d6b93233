"""``python -m curvedtrees.benchmarks``: run a preset and write CSV and Markdown reports.

Examples
--------
::

    python -m curvedtrees.benchmarks --list
    python -m curvedtrees.benchmarks --preset multi-curvature --trials 100 --out results/ --n-jobs 2
    python -m curvedtrees.benchmarks --preset multi-curvature --trials 100 --out results/ --n-jobs 2 --resume
    python -m curvedtrees.benchmarks --preset tiny --trials 3 --out /tmp/bench --scheduler tcp://10.0.0.5:8786
    python -m curvedtrees.benchmarks --preset multi-curvature --out results/ --add-models product_gb --n-jobs 2

Before any work, ``--out`` is created and a probe file written and removed there,
and ``--name`` must be a plain file name stem, so no result is lost to an
unusable folder and nothing is written outside ``--out``. While the run goes,
every finished (dataset, trial) job is appended to ``OUT/NAME.partial.jsonl``
(flushed job by job, with the run's parameters in its first line). After an
interruption (Ctrl-C, a crash, a lost machine) the same command with
``--resume`` runs only the missing jobs and writes exactly the reports an
uninterrupted run writes (timings aside); a resume with other parameters is
refused. The log is removed once the reports are written.

``--add-models product_gb,ambient_hgb`` adds models to the stored run
``OUT/NAME`` without running its other models again: the command must repeat
the stored run's preset, trials, seed, ``--n-samples`` and ``--max-depth``
(refused otherwise, and for a model the run already holds); the new models run
on exactly the stored trials' data, splits and seeds, their rows are appended,
and every report is rewritten as a run of all the models at once would write
it (timings aside). Its trial log is ``OUT/NAME.add.partial.jsonl``: an
interrupted addition finishes with the same command plus ``--resume``.

Every failure is one line on stderr, and the exit code says which kind:
0 done; 1 the run or its reports failed; 2 bad arguments, an unusable
``--out`` or ``--name``, a trial log that does not fit, or a Dask scheduler that
cannot be reached (within ``--connect-timeout`` seconds); 130 interrupted.

Everything is checked before any trial runs: every number against its bound
(``--trials`` at most ``MAX_BENCHMARK_TRIALS``, ``--n-samples`` at most
``MAX_BENCHMARK_SAMPLES``, ``--n-jobs`` not 0, a finite ``--connect-timeout``), the
optional packages the reports need (statsmodels for the Bonferroni correction), and
every file the command reads is read at most ``MAX_BENCHMARK_TEXT_BYTES`` (a
document, the paper's text) or ``MAX_BENCHMARK_TABLE_BYTES`` (a trial log, a stored
table) and checked column by column. A run of fewer than
:data:`~curvedtrees.benchmarks.report.MIN_TRIALS_FOR_INTERVAL` trials warns that its
confidence intervals are too wide to compare models.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["ProgressBar", "main", "prepare_out_dir"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """A problem with the command's arguments or its files: exit code 2."""


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _one_line(exc: BaseException) -> str:
    """An exception as one line of text (messages of wrapped errors may span lines)."""
    text = " ".join(str(exc).split())
    if isinstance(exc, (UsageError, ValueError, RuntimeError, ImportError, OSError)):
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ProgressBar:
    """``progress(done, total)`` for :func:`~curvedtrees.benchmarks.run_benchmark`, drawn by tqdm.

    The bar starts at the first call's ``done`` (the jobs a resumed run read
    back), so its rate and time left count only the jobs run now. On a
    terminal it redraws in place; on other streams (logs, CI) it writes a line
    at most every ``mininterval`` seconds (10 unless given) and at the end.

    Parameters
    ----------
    stream : file-like, optional
        Where to draw (default: stderr, so that stdout keeps the list of written files).
    **options
        More keyword arguments for ``tqdm.tqdm``.

    Raises
    ------
    ImportError
        When tqdm is not installed.
    """

    def __init__(self, stream=None, **options):
        from tqdm import tqdm

        self._tqdm = tqdm
        self.stream = stream if stream is not None else sys.stderr
        if not bool(getattr(self.stream, "isatty", lambda: False)()):
            # A log gets a line per update: every 10 s keeps an hour's run to a few hundred lines.
            options.setdefault("mininterval", 10.0)
        self.options = options
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            self.bar = self._tqdm(
                total=total, initial=done, file=self.stream, unit="job", desc="jobs", dynamic_ncols=True, **self.options
            )
        else:
            self.bar.update(done - self.bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        """Finish the bar's line (also after an interruption)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # One line, not argparse's usage block followed by the message.
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _parser():
    parser = _Parser(
        prog="python -m curvedtrees.benchmarks",
        description="Benchmark product-space trees against the paper's baselines on a preset.",
    )
    parser.add_argument("--preset", help="preset name (see --list)")
    parser.add_argument("--list", action="store_true", help="list presets and models, then exit")
    parser.add_argument("--trials", type=int, help="trials per dataset (default: the preset's)")
    parser.add_argument("--out", default="benchmark-results", help="output directory (default: %(default)s)")
    parser.add_argument(
        "--name", help="file name stem for the outputs, no path (default: the preset name); files go in --out"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted run from OUT/NAME.partial.jsonl (same arguments), running only missing trials",
    )
    parser.add_argument("--n-jobs", type=int, default=None, help="parallel jobs (-1: all cores; default: 1)")
    parser.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (needs dask[distributed])")
    parser.add_argument(
        "--connect-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="give up on an unreachable --scheduler after this long (default: 5)",
    )
    parser.add_argument("--seed", type=int, default=0, help="master random seed (default: %(default)s)")
    parser.add_argument("--models", help="comma-separated model ids or names (default: the preset's)")
    parser.add_argument(
        "--add-models",
        metavar="MODELS",
        help="comma-separated model ids to add to the stored run OUT/NAME (same arguments as that run); "
        "runs only these models and rewrites the run's reports",
    )
    parser.add_argument("--n-samples", type=int, help="override the number of generated points per dataset")
    parser.add_argument("--max-depth", type=int, help="override the depth of every tree and forest (paper: 5)")
    parser.add_argument("--skip-missing", action="store_true", help="drop models whose package is missing")
    parser.add_argument("--keep-going", action="store_true", help="record failed fits instead of stopping")
    parser.add_argument("--no-paper", action="store_true", help="leave out the comparison with the paper's Table 5")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--gzip", action="store_true", help="write the per-trial results as NAME.csv.gz")
    parser.add_argument("--traceback", action="store_true", help="show the traceback of an unexpected error")
    parser.add_argument(
        "--update-doc",
        metavar="MARKDOWN",
        help="refresh the generated blocks of a document (BENCHMARKS.md) from the runs in --out, then exit",
    )
    parser.add_argument(
        "--rewrite-reports",
        metavar="NAME",
        help="write the reports of the stored run OUT/NAME again from its per-trial table (runs nothing), then exit",
    )
    parser.add_argument(
        "--parse-paper",
        metavar="PAPER_TXT",
        help="parse Table 5 out of the paper's text into OUT/paper_table5.csv, then exit",
    )
    return parser


def prepare_out_dir(out) -> Path:
    """Create the output folder if needed and prove that files can be written there.

    Parameters
    ----------
    out : str or path-like

    Returns
    -------
    pathlib.Path

    Raises
    ------
    UsageError
        The path is a file, cannot be created, or a file cannot be created in it.
    """
    path = Path(out).expanduser()
    if path.exists() and not path.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create the folder ({exc.strerror or exc})") from None
    try:
        handle, probe = tempfile.mkstemp(prefix=".curvedtrees-write-probe-", dir=path)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write files there ({exc.strerror or exc})") from None
    return path


def _list(stream):
    from .models import MODELS
    from .presets import PRESETS

    stream.write("Presets:\n")
    for preset in PRESETS.values():
        stream.write(f"  {preset.name:26s} {preset.trials:4d} trials  {preset.description}\n")
    stream.write("Models:\n")
    for spec_id, spec in MODELS.items():
        stream.write(f"  {spec_id:12s} {spec.name:13s} {spec.description}\n")


def main(argv=None) -> int:
    """Entry point; returns the process exit code (see the module docstring)."""
    args = _parser().parse_args(argv)
    try:
        return _dispatch(args)
    except UsageError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if args.traceback:
            raise
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED


def _read_text(path: Path, option: str) -> str:
    """A text file named on the command line, read at most MAX_BENCHMARK_TEXT_BYTES."""
    from ..limits import MAX_BENCHMARK_TEXT_BYTES
    from .stored import StoredRunError, read_bounded

    try:
        data = read_bounded(path, MAX_BENCHMARK_TEXT_BYTES, "file")
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from None
    except StoredRunError:
        raise UsageError(
            f"{option} {path}: more than {MAX_BENCHMARK_TEXT_BYTES:,} bytes (curvedtrees.limits."
            "MAX_BENCHMARK_TEXT_BYTES); is it the right file?"
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{option} {path}: not UTF-8 text") from None


def _check_numbers(args) -> None:
    """Every number of the command against its bound, before anything is created or run."""
    import math

    from ..limits import MAX_BENCHMARK_SAMPLES, MAX_BENCHMARK_TRIALS

    if args.trials is not None and not 1 <= args.trials <= MAX_BENCHMARK_TRIALS:
        raise UsageError(
            f"--trials must be from 1 to {MAX_BENCHMARK_TRIALS:,} (curvedtrees.limits.MAX_BENCHMARK_TRIALS), "
            f"got {args.trials}"
        )
    if args.n_samples is not None and not 10 <= args.n_samples <= MAX_BENCHMARK_SAMPLES:
        raise UsageError(
            f"--n-samples must be from 10 to {MAX_BENCHMARK_SAMPLES:,} (curvedtrees.limits.MAX_BENCHMARK_SAMPLES), "
            f"got {args.n_samples}"
        )
    if args.max_depth is not None and not 1 <= args.max_depth <= 2**31 - 1:
        raise UsageError(
            f"--max-depth must be from 1 to {2**31 - 1} (trees store depths as int32), got {args.max_depth}"
        )
    if args.n_jobs is not None and (args.n_jobs == 0 or args.n_jobs < -(os.cpu_count() or 1)):
        raise UsageError(
            f"--n-jobs must be a positive number of processes, or -1 for every core (-2 for all but one, ...), "
            f"got {args.n_jobs}"
        )
    if args.connect_timeout is not None and not (math.isfinite(args.connect_timeout) and args.connect_timeout > 0):
        raise UsageError(f"--connect-timeout must be a positive number of seconds, got {args.connect_timeout}")


def _check_extras() -> None:
    """The optional packages the reports need, before the first trial (not after hours of them)."""
    import importlib.util

    if importlib.util.find_spec("statsmodels") is None:
        raise UsageError(
            "the reports need statsmodels (the Bonferroni correction of the tests): pip install "
            "'curvedtrees[benchmarks]'; nothing was run"
        )


def _warn_few_trials(n_trials: int) -> None:
    from .report import MIN_TRIALS_FOR_INTERVAL, few_trials_warning

    if n_trials < MIN_TRIALS_FOR_INTERVAL:
        print(f"warning: {few_trials_warning(n_trials)}", file=sys.stderr)


def _dispatch(args) -> int:
    if args.list:
        _list(sys.stdout)
        return EXIT_OK
    if args.update_doc:
        return _update_doc(args)
    if args.parse_paper:
        return _parse_paper(args)
    if args.rewrite_reports:
        return _rewrite_reports(args)
    return _run(args)


def _rewrite_reports(args) -> int:
    from .additions import AdditionError, rewrite_reports
    from .report import check_run_name

    _check_extras()
    try:
        check_run_name(args.rewrite_reports)
        written = rewrite_reports(args.out, args.rewrite_reports)
    except (AdditionError, ValueError) as exc:
        raise UsageError(f"--rewrite-reports {exc}") from None
    for kind in ("results", "summary", "pairs", "markdown", "meta"):
        print(f"wrote {written[kind]}")
    return EXIT_OK


def _update_doc(args) -> int:
    from .document import fill_document
    from .stored import StoredRunError

    path = Path(args.update_doc)
    if not Path(args.out).is_dir():
        raise UsageError(f"--out {args.out} is not a folder of stored runs")
    text = _read_text(path, "--update-doc")
    try:
        filled = fill_document(text, args.out)
    except StoredRunError as exc:
        raise UsageError(f"--update-doc: {exc}") from None
    path.write_text(filled, encoding="utf-8")
    print(f"updated {path} from the runs in {args.out}")
    return EXIT_OK


def _parse_paper(args) -> int:
    from .paper import parse_table5

    source = Path(args.parse_paper)
    text = _read_text(source, "--parse-paper")
    out = prepare_out_dir(args.out)
    table = parse_table5(text)
    target = out / "paper_table5.csv"
    table.to_csv(target, index=False)
    print(f"wrote {len(table)} cells of Table 5 to {target}")
    return EXIT_OK


def _make_progress(quiet: bool):
    if quiet:
        return None
    try:
        return ProgressBar()
    except ImportError:
        print("note: no progress bar (tqdm is not installed: pip install 'curvedtrees[benchmarks]')", file=sys.stderr)
        return None


def _run(args) -> int:
    from .report import check_run_name
    from .runner import DEFAULT_CONNECT_TIMEOUT, TrialLog

    if not args.preset:
        raise UsageError("--preset is required (see --list)")
    from .presets import get_preset

    try:
        preset = get_preset(args.preset)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    name = preset.name if args.name is None else args.name
    try:
        check_run_name(name)
    except ValueError as exc:
        raise UsageError(f"--name {exc}") from None
    _check_numbers(args)
    _check_extras()
    connect_timeout = DEFAULT_CONNECT_TIMEOUT if args.connect_timeout is None else args.connect_timeout
    if args.add_models is not None and args.models is not None:
        raise UsageError("--add-models and --models cannot be combined: --add-models adds to the stored run's models")
    out = prepare_out_dir(args.out)
    if args.add_models is not None:
        return _add(args, preset, name, out, connect_timeout)
    log_path = out / f"{name}.partial.jsonl"
    if args.resume and not log_path.exists():
        finished = (out / f"{name}.json").exists()
        raise UsageError(
            f"nothing to resume: {log_path} does not exist"
            + (f" (the run {name!r} in {out} is finished)" if finished else "")
        )
    if not args.resume and log_path.exists():
        raise UsageError(
            f"{log_path} holds {TrialLog.count(log_path)} finished jobs of an interrupted run: add --resume "
            "to finish it, or delete the file to start over"
        )

    from .paper import PAPER_TABLE5_PATH, load_paper_table5
    from .report import write_report

    progress = _make_progress(args.quiet)
    started = time.perf_counter()
    results, failed = _run_logged(
        args, preset, log_path, progress, args.models, {"preset": preset.name}, connect_timeout, "finish"
    )
    if failed is not None:
        return failed
    resumed = results.attrs.get("resumed_jobs", 0)
    wall = time.perf_counter() - started + results.attrs.get("resumed_wall_seconds", 0.0)
    results.attrs["wall_seconds"] = wall
    paper = None
    if preset.paper and not args.no_paper and PAPER_TABLE5_PATH.exists():
        paper = load_paper_table5()
    try:
        written = write_report(results, out, name, preset.description, paper, compress=args.gzip)
    except OSError as exc:
        print(
            f"error: cannot write the reports into {out} ({exc.strerror or exc}); the finished jobs are kept in "
            f"{log_path}: fix the problem, then add --resume",
            file=sys.stderr,
        )
        return EXIT_FAILED
    log_path.unlink(missing_ok=True)
    for kind in ("results", "summary", "pairs", "markdown", "meta"):
        print(f"wrote {written[kind]}")
    skipped = results.attrs.get("skipped_models") or {}
    for model, reason in skipped.items():
        print(f"skipped {model}: {reason}", file=sys.stderr)
    failures = int((results["error"] != "").sum())
    if failures:
        print(f"warning: {failures} fits failed; see the 'error' column of {written['results']}", file=sys.stderr)
    _warn_few_trials(int(results.attrs.get("n_trials", results["trial"].nunique())))
    n_jobs = len(results[["dataset", "task", "signature", "trial"]].drop_duplicates())
    where = f"Dask scheduler {args.scheduler}" if args.scheduler else f"n_jobs={args.n_jobs or 1}"
    again = f", {resumed} of them read back from the trial log" if resumed else ""
    print(f"total wall time: {wall:.1f} s ({_duration(wall)}) for {n_jobs} (dataset, trial) jobs{again}, {where}")
    return EXIT_OK


def _add(args, preset, name, out, connect_timeout) -> int:
    """``--add-models``: run only the new models on the stored run's trials, merge, rewrite the reports."""
    from .additions import AdditionError, check_addition, merge_results, read_stored_run
    from .models import get_models
    from .paper import PAPER_TABLE5_PATH, load_paper_table5
    from .report import write_report
    from .runner import TrialLog

    log_path = out / f"{name}.add.partial.jsonl"
    if args.resume and not log_path.exists():
        raise UsageError(f"nothing to resume: {log_path} does not exist (no interrupted addition to {name!r})")
    if not args.resume and log_path.exists():
        raise UsageError(
            f"{log_path} holds {TrialLog.count(log_path)} finished jobs of an interrupted addition: add --resume "
            "to finish it, or delete the file to start over"
        )
    tree_params = {**(preset.tree_params or {}), **({"max_depth": args.max_depth} if args.max_depth else {})}
    try:
        models = get_models(args.add_models, tree_params=tree_params or None)
        if not models:
            raise ValueError("--add-models names no model")
        datasets = preset.datasets(args.n_samples)
        meta, stored, stored_path = read_stored_run(out, name)
        check_addition(
            meta,
            stored,
            preset.name,
            datasets,
            models,
            preset.trials if args.trials is None else args.trials,
            args.seed,
            tree_params,
            name=name,
        )
    except (AdditionError, ValueError) as exc:
        raise UsageError(str(exc)) from None

    progress = _make_progress(args.quiet)
    started = time.perf_counter()
    # The log records what is being added to which run, so a resume is refused unless it adds the same
    # models to the same run.
    added, failed = _run_logged(
        args,
        preset,
        log_path,
        progress,
        [m for m in args.add_models.split(",") if m.strip()],
        {"preset": preset.name, "adding_to": name},
        connect_timeout,
        "finish the addition",
    )
    if failed is not None:
        return failed
    added.attrs["wall_seconds"] = time.perf_counter() - started + added.attrs.get("resumed_wall_seconds", 0.0)
    try:
        results = merge_results(stored, added, meta)
    except AdditionError as exc:
        print(f"error: {_one_line(exc)} ({log_path} is kept)", file=sys.stderr)
        return EXIT_FAILED
    paper = None
    if preset.paper and not args.no_paper and PAPER_TABLE5_PATH.exists():
        paper = load_paper_table5()
    compress = args.gzip or stored_path.suffix == ".gz"
    try:
        written = write_report(results, out, name, preset.description, paper, compress=compress)
    except OSError as exc:
        print(
            f"error: cannot write the reports into {out} ({exc.strerror or exc}); the added jobs are kept in "
            f"{log_path}: fix the problem, then add --resume",
            file=sys.stderr,
        )
        return EXIT_FAILED
    if written["results"] != stored_path:
        stored_path.unlink(missing_ok=True)  # the table moved to the other form (--gzip): keep one copy
    log_path.unlink(missing_ok=True)
    for kind in ("results", "summary", "pairs", "markdown", "meta"):
        print(f"wrote {written[kind]}")
    for model, reason in (added.attrs.get("skipped_models") or {}).items():
        print(f"skipped {model}: {reason}", file=sys.stderr)
    failures = int((added["error"] != "").sum())
    if failures:
        print(f"warning: {failures} fits failed; see the 'error' column of {written['results']}", file=sys.stderr)
    _warn_few_trials(int(results.attrs.get("n_trials", results["trial"].nunique())))
    new = ", ".join(m for m in results.attrs["models"] if m not in (meta.get("models") or []))
    wall = added.attrs["wall_seconds"]
    print(f"added {new} to {name!r}: {len(added)} fits in {wall:.1f} s ({_duration(wall)})")
    return EXIT_OK


def _run_logged(args, preset, log_path: Path, progress, models, checkpoint_params: dict, connect_timeout, finish: str):
    """``run_preset`` writing the trial log: ``(results, None)``, or ``(None, exit code)`` after Ctrl-C or a failure.

    ``finish`` completes the interrupted-run hint ("run the same command with --resume to ...").
    Log and scheduler problems are the user's to fix and raise :class:`UsageError`.
    """
    from .presets import run_preset
    from .runner import TrialLog, TrialLogError

    try:
        results = run_preset(
            preset.name,
            n_trials=args.trials,
            models=models,
            n_samples=args.n_samples,
            random_state=args.seed,
            n_jobs=args.n_jobs,
            scheduler=args.scheduler,
            progress=progress,
            on_error="record" if args.keep_going else "raise",
            skip_unavailable=args.skip_missing,
            tree_params={"max_depth": args.max_depth} if args.max_depth is not None else None,
            checkpoint=log_path,
            resume=args.resume,
            checkpoint_params=checkpoint_params,
            connect_timeout=connect_timeout,
        )
    except KeyboardInterrupt:
        _close(progress)
        if _discard_empty_log(log_path, args.resume):
            print("interrupted before any job finished; nothing to resume", file=sys.stderr)
        else:
            print(
                f"interrupted: {TrialLog.count(log_path)} finished jobs are kept in {log_path}; "
                f"run the same command with --resume to {finish}",
                file=sys.stderr,
            )
        return None, EXIT_INTERRUPTED
    except (TrialLogError, ConnectionError) as exc:
        _close(progress)
        raise UsageError(str(exc)) from None
    except (ImportError, ValueError, RuntimeError, OSError) as exc:
        _close(progress)
        _discard_empty_log(log_path, args.resume)
        kept = TrialLog.count(log_path)
        hint = f" ({kept} finished jobs are kept in {log_path}: fix the problem, then add --resume)" if kept else ""
        print(f"error: {_one_line(exc)}{hint}", file=sys.stderr)
        return None, EXIT_FAILED
    _close(progress)
    return results, None


def _discard_empty_log(log_path: Path, resumed: bool) -> bool:
    """Remove a trial log this command started if no job finished (it would only block the next run)."""
    from .runner import TrialLog

    if resumed or not log_path.exists() or TrialLog.count(log_path):
        return False
    log_path.unlink(missing_ok=True)
    return True


def _close(progress) -> None:
    if progress is not None:
        progress.close()
