"""Bring your own graph, in a real browser: upload files through the Embeddings page's file input.

Debian's headless Chromium driven by Python Playwright, as in ``tests/test_browser.py``.
A one-edge file is refused with its reason; then Zachary's karate club as an edge list
(with a self-loop) and a labels file go through the real file inputs, the graph's size
and repairs show, a long embedding stops on Stop, a short one draws the nodes on the Poincaré disk, and the
embedding becomes the current dataset with a product forest trained on it. Screenshots
at 1024 x 768 and 1400 x 900 go to ``test-artifacts/graph-*.png``.

Skipped when Chromium or Playwright is missing, except under ``CI=true``.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from conftest import ARTIFACTS  # the browser and server fixtures live there too

# Embedding (torch's first import included) and the forest take about half a minute here.
pytestmark = [pytest.mark.browser, pytest.mark.slow]

TIMEOUT_MS = 150_000
SIZES = ((1024, 768), (1400, 900))


def _karate_files() -> tuple[bytes, bytes]:
    nx = pytest.importorskip("networkx")
    graph = nx.karate_club_graph()
    edges = "source,target\n" + "".join(f"{u},{v}\n" for u, v in graph.edges()) + "5,5\n"
    labels = "node,club\n" + "".join(f"{v},{graph.nodes[v]['club']}\n" for v in graph.nodes)
    return edges.encode(), labels.encode()


def _idle(page):
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']")


def _file_input(page, label: str):
    return page.locator('[data-testid="stFileUploader"]').filter(has_text=label).locator("input[type=file]")


def _assert_painted(locator, what: str, min_share=0.05, min_colours=3):
    """The plot area shows a picture: enough non-white pixels in several distinct colours."""
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(locator.screenshot())).convert("RGB")).astype(np.int16)
    painted = np.any(np.abs(rgb - 255) > 24, axis=2)
    colours = {tuple(c) for c in (rgb[painted] // 32).reshape(-1, 3)}
    assert painted.mean() > min_share, f"{what}: only {painted.mean():.1%} of the plot area is drawn"
    assert len(colours) >= min_colours, f"{what}: only {len(colours)} colours"


def _shots(page, name: str):
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(500)  # the layout settles after a resize
        page.screenshot(path=str(ARTIFACTS / f"graph-{name}-{width}x{height}.png"))


def test_upload_a_graph_embed_it_and_train_a_forest(server, browser):
    pytest.importorskip("torch")
    pytest.importorskip("geoopt")
    edges, labels = _karate_files()
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{server}/Embeddings")
    _idle(page)
    page.get_by_role("tab", name="Your graph").click()

    # A bad file first: the reason, naming the file, and nothing to embed.
    _file_input(page, "Graph file").set_input_files(
        files=[{"name": "one_edge.csv", "mimeType": "text/csv", "buffer": b"a,b\n"}]
    )
    page.get_by_text("the graph has 1 edge between distinct nodes").wait_for(state="visible")
    _idle(page)
    assert page.get_by_text("Could not use one_edge.csv").count() == 1
    assert page.get_by_role("button", name="Embed", exact=True).count() == 0
    _shots(page, "01-refused")

    # The karate club with its factions: size and repairs before anything is trained.
    _file_input(page, "Graph file").set_input_files(
        files=[{"name": "karate.csv", "mimeType": "text/csv", "buffer": edges}]
    )
    page.get_by_text("1 self-loop dropped").wait_for(state="visible")
    _idle(page)
    page.get_by_text("no node labels").wait_for(state="visible")
    # One file at a time: an upload that lands while the page is still running can be lost.
    _file_input(page, "Node labels").set_input_files(
        files=[{"name": "clubs.csv", "mimeType": "text/csv", "buffer": labels}]
    )
    page.get_by_text("2 classes (Mr. Hi 17, Officer 17)").wait_for(state="visible")
    metrics = page.locator('[data-testid="stMetric"]:visible')
    assert "34" in metrics.filter(has_text="Nodes").first.inner_text()
    assert "78" in metrics.filter(has_text="Edges").first.inner_text()
    _shots(page, "02-preview")

    # A long run shows its progress and stops on Stop, keeping nothing.
    epochs = page.get_by_role("spinbutton", name="Epochs").locator("visible=true")
    embed = page.get_by_role("button", name="Embed", exact=True).locator("visible=true")
    epochs.fill("5000")
    epochs.press("Enter")
    _idle(page)
    embed.click()
    page.get_by_text(" of 5000: distortion").wait_for(state="visible")
    page.get_by_test_id("stTabs").get_by_role("button", name="Stop").click()
    page.get_by_text("Stopped: the unfinished embedding was dropped.").wait_for(state="visible")
    _idle(page)
    assert page.get_by_text("karate.csv in").count() == 0

    # A short embedding into H2, then the nodes on the Poincaré disk.
    epochs.fill("100")
    epochs.press("Enter")
    _idle(page)
    embed.click()
    page.get_by_text("karate.csv in").wait_for(state="visible")
    _idle(page)
    disk = re.compile("Poincar[eé] disk")  # the picture's title, with or without the accent
    picture = page.locator('[data-testid="stPlotlyChart"]:visible').filter(has_text=disk).first
    picture.locator(".js-plotly-plot").wait_for(state="visible")
    page.wait_for_timeout(1000)
    # Points and geodesic edges on a white disk: a few percent of the pixels, in the classes' colours.
    _assert_painted(picture.locator(".main-svg").first, "embedded karate club", min_share=0.01)
    assert picture.locator(".scatterlayer .point").count() >= 34  # every node is drawn
    _shots(page, "03-embedded")

    # The embedding becomes the current dataset, with a product forest trained on it.
    page.get_by_role("button", name="Use as the current dataset").locator("visible=true").click()
    page.get_by_text("with a product random forest trained on it").wait_for(state="visible")
    _idle(page)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "karate.csv" in sidebar and "Product random forest" in sidebar
    _shots(page, "04-adopted")
    page.close()
