"""The picture pipeline's parts: option records, one renderer per view kind, the dispatcher.

A feature of every picture is a field of a record and a renderer's hook; these tests hold
the records' checks, the renderer registry and the ways in (a replay is a type, a record
field reaches the figure), so that the next features land as fields and renderers.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from curvedtrees import viz
from curvedtrees.sampling import make_classification
from curvedtrees.trees import ProductDecisionTreeClassifier
from curvedtrees.viz import figures
from curvedtrees.viz.figures.flat import PlaneRenderer

from ui import data as appdata
from ui import pictures, training


@pytest.fixture(scope="module")
def disk():
    X, y = make_classification("H2", n_samples=300, n_classes=3, random_state=0)
    tree = ProductDecisionTreeClassifier(signature="H2", max_depth=4, random_state=0).fit(X, y)
    grid = viz.view_grid(viz.View("disk", (0,), (1, 2)), "H2", 30)
    return X, tree, grid, viz.predict_regions(tree, grid, viz.reference_point("H2"))


def test_every_view_kind_has_one_renderer():
    assert set(figures.RENDERERS) == set(viz.views.VIEW_KINDS)
    for kind, renderer in figures.RENDERERS.items():
        assert kind in renderer.kinds and issubclass(renderer, figures.Renderer)
    with pytest.raises(ValueError, match="no renderer draws pictures of kind 'hexagon'"):
        figures.renderer_for("hexagon")


def test_records_are_frozen_and_check_themselves(disk):
    _, _, _, regions = disk
    with pytest.raises(dataclasses.FrozenInstanceError):
        viz.Framing().zoom = 2.0
    with pytest.raises(ValueError, match=r"zoom must be a positive number, got 0\.0"):
        viz.Framing(zoom=0)
    with pytest.raises(ValueError, match="2 frames need as many distinct names"):
        viz.Animation([regions, regions], names=["a"])
    with pytest.raises(ValueError, match="2 frames need as many boundary styles, got 3"):
        viz.Animation([regions, regions], boundary_styles=[{}, {}, {}])
    assert viz.Animation([regions] * 3, active=7).shown() == 2
    assert viz.Animation([regions]).labels() == ["1"]
    assert viz.Animation([regions]).frame_duration(boundaries_move=False) == 700
    assert viz.Animation([regions]).frame_duration(boundaries_move=True) == 450


def _play_duration(spec) -> int:
    (menu,) = spec["layout"]["updatemenus"]
    (play,) = [b for b in menu["buttons"] if b["label"] == "▶ Play"]
    return play["args"][1]["frame"]["duration"]


def test_a_record_field_reaches_the_figure_without_a_new_argument(disk):
    _, tree, grid, _ = disk
    replay = viz.replay_regions(tree, grid, viz.reference_point("H2"))
    styles = [{int(n): "split" for n in replay.nodes(f)} for f in range(len(replay.steps))]
    curves = viz.boundary_curves(tree, "H2", grid.view, viz.reference_point("H2"), grid)
    overlay = viz.Overlay(boundaries=curves)
    default = json.loads(viz.region_figure(grid, None, overlay, animation=replay.animation(styles)).to_json())
    assert _play_duration(default) == 450  # a replay restyles its boundaries
    slow = dataclasses.replace(replay.animation(styles), duration=1200)
    spec = json.loads(viz.region_figure(grid, None, overlay, animation=slow).to_json())
    assert _play_duration(spec) == 1200
    assert spec["layout"]["sliders"][0]["currentvalue"]["prefix"] == "Split "
    assert [f["name"] for f in spec["frames"]] == [str(int(k)) for k in replay.steps]
    assert spec["layout"]["sliders"][0]["active"] == len(replay.steps) - 1


def test_a_view_kind_is_drawn_by_the_renderer_the_registry_names(monkeypatch):
    X, y = make_classification("E2", n_samples=200, n_classes=2, random_state=0)
    model = ProductDecisionTreeClassifier(signature="E2", max_depth=3, random_state=0).fit(X, y)
    view = viz.View("plane", (0,), (0, 1))
    grid = viz.view_grid(view, "E2", 20, viz.data_bounds(view, "E2", X))
    regions = viz.predict_regions(model, grid, viz.reference_point("E2"))

    class FramedPlane(PlaneRenderer):
        """A plane picture drawn with a frame colour of its own: one hook overridden."""

        def finish_layout(self, fig, curves):
            super().finish_layout(fig, curves)
            fig.update_layout(paper_bgcolor="#ABCDEF")

    monkeypatch.setitem(figures.RENDERERS, "plane", FramedPlane)
    spec = json.loads(viz.region_figure(grid, regions).to_json())
    assert spec["layout"]["paper_bgcolor"] == "#ABCDEF"
    assert spec["data"][0]["type"] == "heatmap"  # everything else drawn as a plane is


def test_picture_figure_takes_a_replay_as_its_source_type():
    data = appdata.build_dataset(appdata.synthetic_recipe("H2", 200, 3, seed=1))
    record = training.train_from_recipe(data, {"family": "product_tree", "params": {"max_depth": 3}})
    picture = pictures.Picture(viz.View("disk", (0,), (1, 2)), resolution=30)
    tree = pictures.boundary_tree(record)
    replay = pictures.replay_for(tree, data, picture)
    layers = pictures.Layers(tree=tree, replay_frame=1)
    spec = json.loads(pictures.picture_figure(data, picture, record, replay, layers=layers).to_json())
    assert len(spec["frames"]) == len(replay.steps) and spec["layout"]["sliders"][0]["active"] == 1
    # The same picture from its predictions (a PictureRegions, or its first two items) is a still.
    regions = pictures.regions_for(record.estimator, data, picture)
    for source in (regions, (regions.grid, regions.regions)):
        still = json.loads(pictures.picture_figure(data, picture, record, source, layers=layers).to_json())
        assert "frames" not in still or not still["frames"]
        assert any(t.get("name") == "split boundary" for t in still["data"])
    assert np.isfinite(replay.frames[-1].confidence).any()
