"""Download buttons under a picture: standalone HTML, and PNG and SVG at lecture size.

Every file is made only when its button is clicked (``st.download_button`` with a
callable): a standalone HTML page inlines plotly.js (about 4.6 MB), and a static image
runs kaleido, which drives the system chromium (several seconds). Neither belongs in
every run of a page.

Why kaleido (server side) and not Plotly's own camera button in the browser: the
modebar shows one format at a time, appears only on hover, and a Streamlit button
cannot reach into the chart to press it; a download button is visible, offers both
formats and works the same in AppTest and in a headless browser.
"""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import streamlit as st

__all__ = [
    "FORMATS",
    "LECTURE_SCALE",
    "LECTURE_SIZE",
    "export_buttons",
    "figure_file",
    "file_stem",
    "html_bytes",
    "image_bytes",
    "static_export_available",
]

# A 16:9 projector at full HD: what a lecture slide is drawn at.
LECTURE_SIZE = (1920, 1080)
# The picture is laid out at half that size and drawn at twice the pixel density: the
# figures' fonts and markers are sized for a page column, and at 1:1 on a 1920-pixel
# slide they would be unreadable from the back of a room.
LECTURE_SCALE = 2
FORMATS = {"html": "text/html", "png": "image/png", "svg": "image/svg+xml"}
# The standalone page opens with the same toolbar settings as the app, its camera button at lecture size.
_HTML_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "width": LECTURE_SIZE[0], "height": LECTURE_SIZE[1]},
}


# Characters XML 1.0 forbids: C0 controls other than tab, line feed and carriage return,
# lone surrogates, U+FFFE and U+FFFF. An SVG holding one is not well-formed, and kaleido
# draws the PNG from that SVG, so a title with a NUL (a dataset title from a link or an
# upload) failed both exports. They are invisible in a title, so they are dropped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(value):
    """``value`` (a figure's JSON form) with every character XML forbids removed from its texts."""
    if isinstance(value, str):
        return _NOT_XML.sub("", value)
    if isinstance(value, dict):
        return {key: _xml_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_xml_safe(item) for item in value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "OUS":
        return np.array([_xml_safe(item) for item in value.ravel().tolist()], dtype=object).reshape(value.shape)
    return value


def static_export_available() -> bool:
    """Whether PNG and SVG can be made here (kaleido installed; it uses the system chromium)."""
    return importlib.util.find_spec("kaleido") is not None


def file_stem(name: str) -> str:
    """A file name stem from a picture's title: lower case, ASCII letters, digits and dashes, at most 80 characters."""
    if not isinstance(name, str):
        raise TypeError(f"a file name must be text, not {type(name).__name__}")
    ascii_name = name.replace("é", "e").replace("²", "2")
    stem = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:80].strip("-")
    return stem or "picture"


def html_bytes(fig) -> bytes:
    """The figure as one standalone, interactive HTML page (plotly.js inlined: it opens offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True, config=_HTML_CONFIG).encode("utf-8")


def image_bytes(fig, fmt: str, size: tuple[int, int] = LECTURE_SIZE, scale: int = LECTURE_SCALE) -> bytes:
    """The figure as a PNG or SVG of ``size`` pixels (width, height), laid out at ``size / scale``.

    Raises
    ------
    ValueError
        For another format, a size outside 100-4000 pixels a side, or a scale other than 1 to 4.
    ImportError
        When kaleido is not installed, naming the extra that brings it.
    """
    if fmt not in ("png", "svg"):
        raise ValueError(f"a picture exports as png or svg, not {fmt!r}")
    width, height = (int(v) for v in size)
    if not (100 <= width <= 4000 and 100 <= height <= 4000):
        raise ValueError(f"an exported picture is 100 to 4000 pixels a side, not {width} x {height}")
    if isinstance(scale, bool) or scale not in (1, 2, 3, 4):
        raise ValueError(f"the scale of an exported picture is 1, 2, 3 or 4, not {scale!r}")
    if not static_export_available():
        raise ImportError("PNG and SVG export needs kaleido: pip install 'curvedtrees[app]'")
    # A copy: the layout's own size (a page's column height) must not shape the slide, and the
    # figure on the page must stay as it is. Its texts are made XML-safe (see _NOT_XML).
    slide = type(fig)(_xml_safe(fig.to_plotly_json()))
    layout_width, layout_height = round(width / scale), round(height / scale)
    slide.update_layout(width=layout_width, height=layout_height, autosize=False)
    return slide.to_image(format=fmt, width=layout_width, height=layout_height, scale=scale)


def figure_file(fig, fmt: str) -> bytes:
    """The bytes of one export format (``"html"``, ``"png"`` or ``"svg"``)."""
    if fmt == "html":
        return html_bytes(fig)
    return image_bytes(fig, fmt)


def export_buttons(fig, name: str, key: str) -> None:
    """Three download buttons in a row under a picture: PNG, SVG (1920x1080) and interactive HTML.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The picture as drawn (``None`` draws nothing: the page could not draw it).
    name : str
        The picture's title; the files are named after it.
    key : str
        Unique per page and picture (the buttons' widget keys start with it).
    """
    if fig is None:
        return
    stem = file_stem(name)
    static = static_export_available()
    width, height = LECTURE_SIZE
    # A row of buttons as wide as their labels (columns would cut them short in a half-width column).
    row = st.container(horizontal=True, gap="small")
    for fmt, label in (("png", "PNG"), ("svg", "SVG"), ("html", "Interactive HTML")):
        if fmt == "html":
            help_text = "A standalone web page with the interactive picture (zoom, hover); opens offline."
        elif static:
            help_text = f"{width} x {height} pixels, for slides; takes a few seconds to make."
        else:
            help_text = "Needs kaleido on the server: pip install 'curvedtrees[app]'."
        # Bind fig and fmt now: the callable runs later, when the button is clicked.
        row.download_button(
            label,
            lambda fig=fig, fmt=fmt: figure_file(fig, fmt),
            file_name=f"{stem}.{fmt}",
            mime=FORMATS[fmt],
            key=f"{key}_export_{fmt}",
            help=help_text,
            icon=":material/download:",
            on_click="ignore",
            disabled=fmt != "html" and not static,
            width="content",
        )
