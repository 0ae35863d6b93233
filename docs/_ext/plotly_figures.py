"""Plotly figures in the gallery without a CDN.

sphinx-gallery shows the last expression of a code block by its ``_repr_html_``. A
Plotly figure's HTML normally fetches plotly.js from a CDN (plotly's own
``sphinx_gallery`` renderers do), which an offline site cannot. Here:

* the renderer ``curvedtrees_docs`` writes a figure's ``<div>`` and its ``Plotly.newPlot``
  call only (``include_plotlyjs=False``), so a page with ten figures carries no copy of
  the library at all;
* ``plotly.min.js`` is copied once from the installed plotly package into the site's
  ``_static/`` and loaded only by the pages that hold a figure.

The renderer also records the JSON size of every figure it writes, by example: the build
prints them at its end and writes them to ``figure_sizes.json`` in the output folder
(``scripts/gallery_figure_sizes.py`` measures the same without building the site).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import plotly
import plotly.io as pio
from plotly.io.base_renderers import MimetypeRenderer

RENDERER_NAME = "curvedtrees_docs"
PLOTLY_JS = "plotly.min.js"
# The class every figure's div carries (plotly.io.to_html writes it).
FIGURE_MARKER = "plotly-graph-div"
SIZES_FILE = "figure_sizes.json"
# (example, bytes of the figure's JSON) of every figure written, in order.
FIGURE_SIZES: list[tuple[str, int]] = []
_current = {"example": "?"}


class OfflineHtmlRenderer(MimetypeRenderer):
    """A figure as HTML that expects plotly.js to be loaded by the page."""

    def to_mimebundle(self, fig_dict):
        FIGURE_SIZES.append((_current["example"], len(pio.to_json(fig_dict, validate=False))))
        html = pio.to_html(
            fig_dict,
            include_plotlyjs=False,
            include_mathjax=False,
            full_html=False,
            default_width="100%",
            default_height=520,
            validate=False,
            config={"displaylogo": False, "responsive": True},
        )
        return {"text/html": html}


def reset_renderer(gallery_conf, fname):
    """sphinx-gallery's ``reset_modules`` hook: every example starts on the offline renderer."""
    pio.renderers.default = RENDERER_NAME
    _current["example"] = Path(fname).stem if fname else "?"


def size_table(sizes) -> str:
    """One line per figure (example, number, kB) and the largest and the total."""
    lines, count = [], {}
    for example, size in sizes:
        count[example] = count.get(example, 0) + 1
        lines.append(f"{example:<34} {count[example]:>3} {size / 1000:>9.1f} kB")
    if sizes:
        largest = max(size for _, size in sizes)
        total = sum(size for _, size in sizes)
        lines.append(f"{len(sizes)} figures, largest {largest / 1000:.1f} kB, total {total / 1000:.1f} kB")
    return "\n".join(lines)


def _report_sizes(app, exception):
    if exception is not None or not FIGURE_SIZES:
        return
    from sphinx.util import logging

    (Path(app.outdir) / SIZES_FILE).write_text(json.dumps(FIGURE_SIZES, indent=1), encoding="utf-8")
    logging.getLogger(__name__).info("Plotly figures in the gallery (JSON size):\n" + size_table(FIGURE_SIZES))


def _plotly_js_source() -> Path:
    path = Path(plotly.__file__).resolve().parent / "package_data" / PLOTLY_JS
    if not path.is_file():
        raise FileNotFoundError(f"the installed plotly {plotly.__version__} ships no {PLOTLY_JS} at {path}")
    return path


def _add_plotly_js(app, pagename, templatename, context, doctree):
    if FIGURE_MARKER in context.get("body", ""):
        app.add_js_file(PLOTLY_JS, priority=200)


def _copy_plotly_js(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    # Read from the written pages, so that an incremental build (which rewrites only
    # changed pages) still copies the file when an unchanged page needs it.
    outdir = Path(app.outdir)
    needed = any(f"_static/{PLOTLY_JS}" in page.read_text(encoding="utf-8") for page in outdir.rglob("*.html"))
    if needed:
        static = outdir / "_static"
        static.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_plotly_js_source(), static / PLOTLY_JS)


def setup(app):
    pio.renderers[RENDERER_NAME] = OfflineHtmlRenderer()
    pio.renderers.default = RENDERER_NAME
    app.connect("html-page-context", _add_plotly_js)
    app.connect("build-finished", _copy_plotly_js)
    app.connect("build-finished", _report_sizes)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": False}
