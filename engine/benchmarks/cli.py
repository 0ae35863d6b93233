"""``python -m curvedtrees.benchmarks``: run a preset and write CSV and Markdown reports.

Examples
--------
::

    python -m curvedtrees.benchmarks --list
    python -m curvedtrees.benchmarks --preset multi-curvature --trials 100 --out results/ --n-jobs 2
    python -m curvedtrees.benchmarks --preset tiny --trials 3 --out /tmp/bench --scheduler tcp://10.0.0.5:8786
"""

from __future__ import annotations

import argparse
import sys
import time

__all__ = ["TextProgress", "main"]


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class TextProgress:
    """A plain-text progress bar on a stream (stderr by default).

    On a terminal the bar redraws in place; otherwise (logs, CI) a line is
    written every ``step`` percent.
    """

    def __init__(self, stream=None, width: int = 30, step: int = 10):
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.step = step
        self.started = None
        self._last_percent = -1
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.started is None or done == 0:
            self.started = now
        elapsed = now - self.started
        fraction = done / total if total else 1.0
        filled = int(self.width * fraction)
        eta = f", about {_duration(elapsed / done * (total - done))} left" if 0 < done < total else ""
        text = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} jobs, {_duration(elapsed)}{eta}"
        percent = int(100 * fraction)
        if self._tty:
            self.stream.write("\r" + text.ljust(79))
            if done == total:
                self.stream.write("\n")
        elif done == total or percent // self.step > self._last_percent // self.step or done == 0:
            self.stream.write(text + "\n")
        self._last_percent = percent
        self.stream.flush()


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m curvedtrees.benchmarks",
        description="Benchmark product-space trees against the paper's baselines on a preset.",
    )
    parser.add_argument("--preset", help="preset name (see --list)")
    parser.add_argument("--list", action="store_true", help="list presets and models, then exit")
    parser.add_argument("--trials", type=int, help="trials per dataset (default: the preset's)")
    parser.add_argument("--out", default="benchmark-results", help="output directory (default: %(default)s)")
    parser.add_argument("--name", help="file name stem for the outputs (default: the preset name)")
    parser.add_argument("--n-jobs", type=int, default=None, help="parallel jobs (-1: all cores; default: 1)")
    parser.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (needs dask[distributed])")
    parser.add_argument("--seed", type=int, default=0, help="master random seed (default: %(default)s)")
    parser.add_argument("--models", help="comma-separated model ids or names (default: the preset's)")
    parser.add_argument("--n-samples", type=int, help="override the number of generated points per dataset")
    parser.add_argument("--max-depth", type=int, help="override the depth of every tree and forest (paper: 5)")
    parser.add_argument("--skip-missing", action="store_true", help="drop models whose package is missing")
    parser.add_argument("--keep-going", action="store_true", help="record failed fits instead of stopping")
    parser.add_argument("--no-paper", action="store_true", help="leave out the comparison with the paper's Table 5")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--gzip", action="store_true", help="write the per-trial results as NAME.csv.gz")
    parser.add_argument(
        "--update-doc",
        metavar="MARKDOWN",
        help="refresh the generated blocks of a document (BENCHMARKS.md) from the runs in --out, then exit",
    )
    parser.add_argument(
        "--parse-paper",
        metavar="PAPER_TXT",
        help="parse Table 5 out of the paper's text into OUT/paper_table5.csv, then exit",
    )
    return parser


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
    """Entry point; returns the process exit code."""
    args = _parser().parse_args(argv)
    if args.list:
        _list(sys.stdout)
        return 0
    if args.update_doc:
        from pathlib import Path

        from .document import fill_document

        path = Path(args.update_doc)
        path.write_text(fill_document(path.read_text(encoding="utf-8"), args.out), encoding="utf-8")
        print(f"updated {path} from the runs in {args.out}")
        return 0
    if args.parse_paper:
        from pathlib import Path

        from .paper import parse_table5

        table = parse_table5(Path(args.parse_paper).read_text(encoding="utf-8"))
        Path(args.out).mkdir(parents=True, exist_ok=True)
        target = Path(args.out) / "paper_table5.csv"
        table.to_csv(target, index=False)
        print(f"wrote {len(table)} cells of Table 5 to {target}")
        return 0
    if not args.preset:
        _parser().error("--preset is required (see --list)")

    from .paper import PAPER_TABLE5_PATH, load_paper_table5
    from .presets import get_preset, run_preset
    from .report import write_report

    try:
        preset = get_preset(args.preset)
    except ValueError as exc:
        _parser().error(str(exc))
    progress = None if args.quiet else TextProgress()
    started = time.perf_counter()
    try:
        results = run_preset(
            preset.name,
            n_trials=args.trials,
            models=args.models,
            n_samples=args.n_samples,
            random_state=args.seed,
            n_jobs=args.n_jobs,
            scheduler=args.scheduler,
            progress=progress,
            on_error="record" if args.keep_going else "raise",
            skip_unavailable=args.skip_missing,
            tree_params={"max_depth": args.max_depth} if args.max_depth is not None else None,
        )
    except (ImportError, ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    wall = time.perf_counter() - started
    results.attrs["wall_seconds"] = wall
    paper = None
    if preset.paper and not args.no_paper and PAPER_TABLE5_PATH.exists():
        paper = load_paper_table5()
    written = write_report(results, args.out, args.name or preset.name, preset.description, paper, compress=args.gzip)
    for kind in ("results", "summary", "pairs", "markdown", "meta"):
        print(f"wrote {written[kind]}")
    skipped = results.attrs.get("skipped_models") or {}
    for model, reason in skipped.items():
        print(f"skipped {model}: {reason}", file=sys.stderr)
    failures = int((results["error"] != "").sum())
    if failures:
        print(f"warning: {failures} fits failed; see the 'error' column of {written['results']}", file=sys.stderr)
    n_jobs = len(results[["dataset", "task", "signature", "trial"]].drop_duplicates())
    where = f"Dask scheduler {args.scheduler}" if args.scheduler else f"n_jobs={args.n_jobs or 1}"
    print(f"total wall time: {wall:.1f} s ({_duration(wall)}) for {n_jobs} (dataset, trial) jobs, {where}")
    return 0
