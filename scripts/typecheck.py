"""mypy on the package, against a committed baseline of errors per file that only goes down.

``make lint`` runs it (and so CI)::

    python scripts/typecheck.py            # fails if any file has more errors than its baseline
    python scripts/typecheck.py --update   # rewrites scripts/typecheck_baseline.txt

When a file has fewer errors than its baseline it passes and asks for ``--update``: a
baseline left above the real count would let new errors in unnoticed, so lower it in the
commit that fixed them.

mypy reads the source through a temporary folder in which ``curvedtrees`` is a link to
``engine/``, so it checks the same package in every install (setuptools' default editable
install maps ``engine/`` to ``curvedtrees`` with an import hook, which type checkers cannot
follow; ``make`` installs with ``editable_mode=strict``, which they can). The same run checks
the front door: a misspelled keyword on a top-level name, ``ct.ProductRandomForestClassifier(
signatur="H2")``, must be an error, which it is only while ``curvedtrees/__init__.py`` gives
type checkers the real classes (its ``TYPE_CHECKING`` block). mypy's cache lives in
``.mypy_cache/`` (a first run takes about a CPU-minute, later ones seconds).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "scripts" / "typecheck_baseline.txt"
FRONT_DOOR = "front_door.py"
# The front door's snippet and the error it must produce.
FRONT_DOOR_SOURCE = 'import curvedtrees as ct\n\nct.ProductRandomForestClassifier(signatur="H2")\n'
FRONT_DOOR_ERROR = 'Unexpected keyword argument "signatur" for "ProductRandomForestClassifier"'
_ERROR = re.compile(r"^(?P<path>[^:\n]+\.pyi?):\d+(?::\d+)?: error: ", re.MULTILINE)


def run_mypy(*, whole_package: bool = True) -> str:
    """mypy's output on the package and the front-door snippet.

    Parameters
    ----------
    whole_package : bool
        False checks the snippet alone, following the package silently where it is imported
        and reading no installed package (numpy's types, ...): a few CPU-seconds instead of
        a minute, for tests of the front door.
    """
    # One fixed folder, not a temporary one: mypy's cache keys modules by their paths.
    folder = ROOT / ".mypy_cache" / "source"
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "curvedtrees"
    if not link.is_symlink():
        link.symlink_to(ROOT / "engine", target_is_directory=True)
    (folder / FRONT_DOOR).write_text(FRONT_DOOR_SOURCE, encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "--cache-dir",
        str(ROOT / ".mypy_cache" / ("package" if whole_package else "front-door")),
        "--no-error-summary",
        "--show-error-codes",
    ]
    if whole_package:
        command += ["-p", "curvedtrees", "-m", FRONT_DOOR.removesuffix(".py")]
    else:
        command += ["--no-site-packages", "--follow-imports=silent", FRONT_DOOR]
    env = dict(os.environ, MYPYPATH=str(folder))
    result = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1) or result.stderr.strip():
        raise RuntimeError(f"mypy did not run: {result.stderr or result.stdout}")
    return result.stdout


def errors_by_file(output: str) -> collections.Counter:
    """Error counts per file of mypy's output (notes not counted), the front door left out."""
    return collections.Counter(m["path"] for m in _ERROR.finditer(output) if m["path"] != FRONT_DOOR)


def front_door_ok(output: str) -> bool:
    """Whether mypy reported the misspelled keyword of the front-door snippet."""
    return any(line.startswith(f"{FRONT_DOOR}:") and FRONT_DOOR_ERROR in line for line in output.splitlines())


def read_baseline(path: Path = BASELINE) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            count, name = line.split()
            counts[name] = int(count)
    return counts


def write_baseline(counts: collections.Counter, path: Path = BASELINE) -> None:
    lines = [
        "# mypy errors per file of the package (scripts/typecheck.py); these may only go down.",
        f"# total {sum(counts.values())}",
        *(f"{counts[name]} {name}" for name in sorted(counts)),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def compare(current: collections.Counter, baseline: collections.Counter) -> tuple[list[str], list[str]]:
    """(files above their baseline, files below it), each as a line saying by how much."""
    above, below = [], []
    for name in sorted(set(current) | set(baseline)):
        now, then = current[name], baseline[name]
        if now > then:
            above.append(f"{name}: {now} errors, baseline {then}")
        elif now < then:
            below.append(f"{name}: {now} errors, baseline {then}")
    return above, below


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="write the current counts as the baseline")
    args = parser.parse_args(argv)
    output = run_mypy()
    current = errors_by_file(output)
    if not front_door_ok(output):
        print(output, end="")
        print(
            f"typecheck: mypy did not report {FRONT_DOOR_ERROR!r}: type checkers no longer see the real "
            "classes behind `import curvedtrees` (see the TYPE_CHECKING block of engine/__init__.py)"
        )
        return 1
    if args.update:
        write_baseline(current)
        print(f"typecheck: baseline written, {sum(current.values())} errors in {len(current)} files")
        return 0
    above, below = compare(current, read_baseline())
    total = sum(current.values())
    if above:
        print(output, end="")
        print("typecheck: more mypy errors than the baseline (scripts/typecheck_baseline.txt) in:")
        print("\n".join(f"  {line}" for line in above))
        return 1
    if below:
        print(f"typecheck: {total} mypy errors, fewer than the baseline; lower it in this commit with")
        print("  python scripts/typecheck.py --update")
        print("\n".join(f"  {line}" for line in below))
        return 0
    print(f"typecheck: {total} mypy errors, as in the baseline; the front door checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
