"""The JSON size of every Plotly figure the gallery's examples show, without building the site.

Runs each script of ``docs/examples`` (or those named) as sphinx-gallery does, through the
docs' own offline renderer (``docs/_ext/plotly_figures.py``), which records the size of every
figure it writes, and prints one line per figure::

    python scripts/gallery_figure_sizes.py                      # every example
    python scripts/gallery_figure_sizes.py plot_regions plot_globe

A figure is shown (and counted) where it is a code block's last expression. ``make docs``
prints the same table at the end of its build.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"


def _blocks(path: Path) -> list[str]:
    """The code blocks of a sphinx-gallery script (split at ``# %%`` lines)."""
    text = path.read_text(encoding="utf-8")
    blocks, current = [], []
    for line in text.splitlines():
        if line.startswith("# %%"):
            blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    blocks.append("\n".join(current))
    return blocks


def run_example(path: Path, plotly_figures) -> None:
    """Execute ``path`` block by block, showing each block's last expression like the gallery."""
    import matplotlib

    matplotlib.use("Agg")
    plotly_figures.reset_renderer({}, str(path))
    namespace = {"__name__": "__main__", "__file__": str(path)}
    old = Path.cwd()
    os.chdir(path.parent)
    try:
        for block in _blocks(path):
            tree = ast.parse(block)
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(tree, str(path), "exec"), namespace)  # the repository's own examples
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), str(path), "eval"), namespace)
                    if hasattr(value, "_repr_html_"):
                        value._repr_html_()
    finally:
        os.chdir(old)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="example file names (without .py); default all")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    import plotly.io as pio
    import plotly_figures

    pio.renderers[plotly_figures.RENDERER_NAME] = plotly_figures.OfflineHtmlRenderer()
    paths = sorted(EXAMPLES.rglob("*.py"))
    if args.names:
        paths = [p for p in paths if p.stem in set(args.names)]
        if not paths:
            parser.error(f"no example named {args.names} in {EXAMPLES}")
    for path in paths:
        run_example(path, plotly_figures)
    print(plotly_figures.size_table(plotly_figures.FIGURE_SIZES) or "no Plotly figures")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
