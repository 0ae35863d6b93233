"""Exports of pictures (HTML, PNG, SVG at lecture size) and the Regions page's smaller defects."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from ui.export import LECTURE_SIZE, figure_file, file_stem, html_bytes, image_bytes, static_export_available

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def small_figure() -> go.Figure:
    fig = go.Figure(go.Heatmap(z=[[0, 1], [1, 0]], name="regions"))
    fig.update_layout(title="H2 (component 1) on the Poincaré disk", height=420)
    return fig


def start(page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def export_keys(at: AppTest) -> set[str]:
    return {b.key for b in at.get("download_button") if "_export_" in (b.key or "")}


# ------------------------------------------------------------------ the files
def test_file_names_are_short_ascii_slugs():
    assert file_stem("H2 (component 1) on the Poincaré disk") == "h2-component-1-on-the-poincare-disk"
    assert file_stem("R² of x") == "r2-of-x"
    assert file_stem("///") == "picture"
    assert len(file_stem("a" * 500)) == 80
    with pytest.raises(TypeError, match="must be text"):
        file_stem(None)


def test_html_is_one_standalone_interactive_page():
    page = html_bytes(small_figure()).decode("utf-8")
    assert page.lower().startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    # plotly.js is inlined (no script from a CDN), so the file opens offline.
    assert "<script src=" not in page and "Plotly.newPlot" in page and len(page) > 1_000_000
    assert "Poincaré disk" in page or "Poincar\\u00e9 disk" in page
    # The page's own camera button saves at lecture size.
    assert '"width": 1920, "height": 1080' in page and '"displaylogo": false' in page


def test_bad_formats_and_sizes_are_refused_before_any_work():
    fig = small_figure()
    with pytest.raises(ValueError, match="png or svg"):
        image_bytes(fig, "jpeg")
    with pytest.raises(ValueError, match="100 to 4000 pixels"):
        image_bytes(fig, "png", (20_000, 1080))
    with pytest.raises(ValueError, match="scale"):
        image_bytes(fig, "png", scale=0)
    with pytest.raises(ValueError, match="png or svg"):
        figure_file(fig, "pdf")


needs_kaleido = pytest.mark.skipif(not static_export_available(), reason="kaleido is not installed")


@needs_kaleido
def test_png_and_svg_are_drawn_at_lecture_size_and_leave_the_figure_alone():
    fig = small_figure()
    png = image_bytes(fig, "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk's first fields
    assert (width, height) == LECTURE_SIZE
    svg = figure_file(fig, "svg").decode("utf-8")
    assert svg.startswith("<svg") and 'width="1920"' in svg and 'height="1080"' in svg
    # Laid out at half size, so that text drawn for a page column reads on a slide.
    assert 'viewBox="0 0 960 540"' in svg
    assert "Poincaré disk" in svg
    # The page's figure keeps its own height.
    assert fig.layout.height == 420 and fig.layout.width is None


# ------------------------------------------------------------------ the pages
@needs_kaleido
def test_titles_with_characters_xml_forbids_still_export():
    # The case: a title with a NUL (a dataset title from a link or an upload) broke the
    # SVG (not well-formed) and the PNG (kaleido draws it from that SVG); lone surrogates too.
    import xml.dom.minidom

    import numpy as np

    hostile = small_figure()
    hostile.update_layout(title="H2\x00 on the \x07Poincaré disk\ud800")
    hostile.data[0].name = "class\x1b 1"
    hostile.data[0].text = np.array([["a\x00", "b"], ["c", "d\ud800"]], dtype=object)
    svg = image_bytes(hostile, "svg")
    xml.dom.minidom.parseString(svg)  # well-formed
    assert "H2 on the Poincaré disk".encode() in svg
    assert image_bytes(hostile, "png").startswith(b"\x89PNG")
    assert hostile.layout.title.text == "H2\x00 on the \x07Poincaré disk\ud800"  # the page's figure is unchanged


def test_regions_has_export_buttons_under_its_picture():
    at = start("pages/3_Regions.py")
    assert export_keys(at) == {f"regions_export_{fmt}" for fmt in ("png", "svg", "html")}
    labels = {b.key: b.label for b in at.get("download_button")}
    assert labels["regions_export_html"] == "Interactive HTML" and labels["regions_export_png"] == "PNG"


def test_home_page_has_export_buttons_under_its_picture():
    # The home page draws the same picture; its buttons are checked when app.py adds them.
    at = start()
    assert {"home_export_png", "home_export_svg", "home_export_html"} <= export_keys(at)


def test_lesson_pictures_have_export_buttons():
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    at.query_params["lesson"] = "poincare-geodesics"
    at.switch_page("pages/5_Lessons.py").run()
    assert not at.exception, [e.value for e in at.exception]
    keys = export_keys(at)
    assert "lesson_picture_export_svg" in keys, keys


def test_a_forest_trained_after_a_tree_opens_without_tree_zeros_boundaries():
    at = start("pages/3_Regions.py")
    # The demo's tree draws its splits, and the page remembers that choice...
    assert any(t.get("name") == "split boundary" for t in charts(at)[0]["data"])
    at.switch_page("pages/2_Train.py").run()
    at.selectbox(key="train_family").set_value("product_forest").run()
    at.number_input(key="train_product_forest_n_estimators").set_value(4)
    at.button(key="FormSubmitter:train_form-Train").click().run()
    assert not at.exception
    at.switch_page("pages/3_Regions.py").run()
    # ...but not for the forest: its regions average four trees, and tree #0's splits do not bound them.
    assert not at.exception
    assert at.toggle(key="regions_bounds").value is False
    assert not any(t.get("name") == "split boundary" for t in charts(at)[0]["data"])
    # Asked for, one tree's boundaries are drawn.
    at.toggle(key="regions_bounds").set_value(True).run()
    assert any(t.get("name") == "split boundary" for t in charts(at)[0]["data"])
    assert at.number_input(key="regions_tree").value == 0


# ------------------------------------------------------------------ smaller defects (issue 18, item 8)
def test_the_sidebar_lists_home_first_and_every_page():
    from ui.chrome import NAVIGATION

    at = start()
    links = [(link.proto.label, link.proto.page) for link in at.sidebar.get("page_link")]
    assert links[0][0] == "Home" and "app" not in [label for label, _ in links]
    assert [label for label, _ in links] == [label for _, label, _ in NAVIGATION]
    pages = sorted(str(p.relative_to(Path(APP).parent)) for p in (Path(APP).parent / "pages").glob("*.py"))
    assert sorted(path for path, _, _ in NAVIGATION if path != "app.py") == pages
    config = (Path(APP).parent / ".streamlit" / "config.toml").read_text()
    assert "showSidebarNavigation = false" in config


def test_the_home_heading_names_the_klein_disk_when_it_is_shown():
    at = start()
    assert "Mixture on the Poincaré disk" in [h.value for h in at.subheader]
    at.toggle(key="home_klein").set_value(True).run()
    assert "Mixture on the Klein disk" in [h.value for h in at.subheader]
    assert not any("Poincaré" in h.value for h in at.subheader)
    assert "Klein disk" in charts(at)[0]["layout"]["title"]["text"]


def test_no_user_visible_poincare_without_its_accent():
    root = Path(APP).parent
    files = [
        root / "app.py",
        *sorted((root / "pages").glob("*.py")),
        *sorted((root / "ui").glob("*.py")),
        *sorted((root / "engine" / "viz").glob("*.py")),
    ]
    import ast

    offenders = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Poincare " in node.value:
                offenders.append(f"{path.relative_to(root)}:{node.lineno}")
    # Module docstrings of files owned elsewhere are not shown to users; everything else is.
    assert [o for o in offenders if not o.startswith("ui/uploads.py:1")] == []


def test_the_inspectors_state_goes_into_the_link_and_comes_back():
    at = start("pages/4_Inspector.py")
    at.slider(key="insp_k").set_value(3).run()
    at.toggle(key="insp_explain").set_value(True).run()
    at.number_input(key="insp_row").set_value(7).run()
    assert not at.exception
    node_box = next(s for s in at.selectbox if s.label == "Node")
    node = node_box.options[1]
    node_box.set_value(node).run()
    params = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert params["k"] == "3" and params["explain_row"] == "7" and params["node"] == str(node)
    # A new session opened from the link shows the same replay, node and explained row.
    fresh = AppTest.from_file(APP, default_timeout=90)
    for key, value in params.items():
        fresh.query_params[key] = value
    fresh.run()
    fresh.switch_page("pages/4_Inspector.py").run()
    assert not fresh.exception
    assert fresh.slider(key="insp_k").value == 3
    assert fresh.toggle(key="insp_explain").value is True and fresh.number_input(key="insp_row").value == 7
    assert str(next(s for s in fresh.selectbox if s.label == "Node").value) == str(node)
    assert any("Path of row 7" in m.value for m in fresh.markdown)


@pytest.mark.parametrize(
    "name, value",
    [
        ("k", "-1"),
        ("k", "99999999"),
        ("node", "1e9"),
        ("explain_row", "abc"),
        ("explain_row", "50001"),
        ("tree", "10001"),
    ],
)
def test_inspector_values_out_of_bounds_in_a_link_are_ignored(name, value):
    from ui import state

    assert name not in state.link_prefs({name: value})
    assert state.link_prefs({"k": "4", "node": "9", "explain_row": "12"}) == {"k": 4, "node": 9, "explain_row": 12}


def test_a_hostile_inspector_link_opens_the_inspector_on_its_defaults():
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in {"k": "99999", "node": "77777", "explain_row": "49999"}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("pages/4_Inspector.py").run()
    assert not at.exception
    slider = at.slider(key="insp_k")
    assert slider.value == slider.max  # k beyond the tree's splits: the whole tree
    # The row is clipped to the dataset's last row (600 rows in the default demo).
    assert at.number_input(key="insp_row").value == 599


def test_lecture_mode_survives_a_page_that_mirrors_its_state_in_the_link():
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["lecture"] = "1"
    at.run()
    at.switch_page("pages/3_Regions.py").run()
    assert not at.exception
    lecture = at.query_params.get("lecture")
    assert (lecture[0] if isinstance(lecture, list) else lecture) == "1"
    assert "view" in at.query_params  # the page did rewrite the link
