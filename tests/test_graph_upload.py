"""ui.graph_upload: an uploaded graph read once, embedded, and turned into node or link-prediction datasets."""

from __future__ import annotations

import numpy as np
import pytest
from curvedtrees.datasets._base import random_test_mask

from ui import graph_upload

# Two 6-cycles joined by an edge: small enough to embed in a second, two communities as labels.
EDGES = (
    b"".join(f"{k},{(k + 1) % 6}\n".encode() for k in range(6))
    + b"".join(f"{6 + k},{6 + (k + 1) % 6}\n".encode() for k in range(6))
    + b"0,6\n"
)
LABELS = b"".join(f"{k},{'left' if k < 6 else 'right'}\n".encode() for k in range(12))
PARAMS = {"n_epochs": 10, "n_restarts": 1, "learn_curvature": True, "random_state": 0}


@pytest.fixture(scope="module")
def searched():
    pytest.importorskip("torch")
    pytest.importorskip("geoopt")
    upload = graph_upload.read_upload("two_rings.csv", EDGES, "sides.csv", LABELS)
    return upload, graph_upload.embed(upload.data, ["H2", "E2"], PARAMS)


def test_read_upload_hashes_both_files_and_keeps_errors_as_text():
    a = graph_upload.read_upload("g.csv", EDGES)
    assert a.error is None and a.data.graph.number_of_nodes() == 12 and a.data.y is None
    assert graph_upload.read_upload("g.csv", EDGES).hash == a.hash
    labelled = graph_upload.read_upload("g.csv", EDGES, "sides.csv", LABELS)
    assert labelled.hash != a.hash and labelled.data.target_names == ("left", "right")
    bad = graph_upload.read_upload("g.csv", b"1,2\n")
    assert bad.data is None and "1 edge" in bad.error
    long_name = "x" * 200 + ".csv"
    assert len(graph_upload.read_upload(long_name, EDGES).data.title) == graph_upload.TITLE_CHARS


def test_the_summary_describes_size_degrees_and_labels():
    summary = graph_upload.graph_summary(graph_upload.read_upload("g.csv", EDGES, "s.csv", LABELS).data)
    assert (summary["nodes"], summary["edges"]) == (12, 13)
    assert (summary["min_degree"], summary["max_degree"]) == (2, 3)
    assert summary["target"].startswith("2 classes (left 6, right 6)")
    unlabelled = graph_upload.graph_summary(graph_upload.read_upload("g.csv", EDGES).data)
    assert "link-prediction" in unlabelled["target"]


@pytest.mark.parametrize("n_nodes", [4, 5, 12, 34, 101])
@pytest.mark.parametrize("test_size", [0.1, 0.25, 0.5])
def test_link_rows_counts_the_pairs_the_node_split_keeps(n_nodes, test_size):
    test = random_test_mask(n_nodes, test_size=test_size, random_state=0)
    i, j = np.triu_indices(n_nodes, k=1)
    assert graph_upload.link_rows(n_nodes, test_size) == int(np.sum(test[i] == test[j]))


def test_search_results_are_slim_and_ranked(searched):
    _, results = searched
    assert [str(r.requested_signature) for r in results] in (["H2", "E2"], ["E2", "H2"])
    assert results[0].distortion <= results[1].distortion
    assert all(r.graph_distances is None and r.embedding_distances is None for r in results)
    rows = graph_upload.search_table(results)
    assert [row["rank"] for row in rows] == [1, 2] and rows[0]["distortion"] == results[0].distortion
    figure = graph_upload.search_figure(results)
    assert [trace.type for trace in figure.data] == ["bar", "bar"]
    assert list(figure.data[0].y) == [r.distortion for r in results]
    assert figure.data[0].marker.color[0] != figure.data[0].marker.color[1]  # the best one stands out


def test_node_and_link_datasets_from_a_slim_result(searched):
    upload, results = searched
    nodes = graph_upload.node_dataset(upload.data, results[0])
    assert nodes.X.shape == (12, results[0].signature.ambient_dim)
    assert list(nodes.y) == [upload.data.y[v] for v in results[0].nodes]
    record = graph_upload.graph_record(nodes, upload, "nodes")
    assert record.recipe["source"] == "upload" and record.class_names == ["left", "right"]
    links = graph_upload.link_dataset(upload.data, results[0], 0.25, 0)
    assert len(links.X) == graph_upload.link_rows(12, 0.25)
    assert links.extra["title"] == "two_rings.csv (link prediction)"
    # The distances of the rows are those of the embedded points (recomputed, not stored).
    pairs = links.extra["pairs"]
    from curvedtrees.embeddings import embedding_distances

    D = embedding_distances(results[0].X, results[0].signature)
    np.testing.assert_allclose(links.X[:, -1], D[pairs[:, 0], pairs[:, 1]])


def test_a_graph_without_labels_has_no_node_dataset(searched):
    _, results = searched
    unlabelled = graph_upload.read_upload("g.csv", EDGES).data
    with pytest.raises(ValueError, match="has no node labels"):
        graph_upload.node_dataset(unlabelled, results[0])


def test_link_prediction_over_the_row_limit_is_refused_before_anything_is_built(monkeypatch, searched):
    upload, results = searched
    monkeypatch.setattr(graph_upload, "MAX_LINK_ROWS", 20)
    called = []
    monkeypatch.setattr("curvedtrees.embeddings.embedding_distances", lambda *a: called.append(a))
    with pytest.raises(ValueError, match=r"12 nodes give 39 rows; the limit is 20 \(about 8 nodes\)"):
        graph_upload.link_dataset(upload.data, results[0], 0.25, 0)
    assert not called


def test_node_ids_are_shown_not_interpreted():
    assert graph_upload.hover_names(["<b>x</b>", 3]) == ["node &lt;b&gt;x&lt;/b&gt;", "node 3"]


# ------------------------------------------------------------------ the default picture of an embedding
def _piled_and_spread(n: int = 300, seed: int = 0):
    """H2 x S2 points: on H2 all in one small patch, on S2 spread over the whole sphere."""
    from curvedtrees import coords

    rng = np.random.default_rng(seed)
    ball = 0.02 * rng.standard_normal((n, 2)) + np.array([0.3, 0.1])  # a patch on the Poincare disk
    h2 = coords.poincare_to_hyperboloid(ball)
    s2 = rng.standard_normal((n, 3))
    s2 /= np.linalg.norm(s2, axis=1, keepdims=True)
    return np.hstack([h2, s2])


def test_the_spread_measure_tells_a_patch_from_points_spread_out():
    from curvedtrees.viz import available_views

    X = _piled_and_spread()
    disk, sphere = available_views("H2 x S2")
    assert graph_upload.picture_spread(disk, "H2 x S2", X) < 0.35
    assert graph_upload.picture_spread(sphere, "H2 x S2", X) > 0.9
    # One cell: 0; every point in its own cell of a circle: 1.
    assert graph_upload.picture_spread(sphere, "H2 x S2", np.tile(X[:1], (50, 1))) == 0.0
    angles = np.linspace(-np.pi, np.pi, 128, endpoint=False) + np.pi / 128
    circle = np.column_stack([np.cos(angles), np.sin(angles)])
    (view,) = available_views("S1")
    assert graph_upload.picture_spread(view, "S1", circle) == pytest.approx(1.0)


def test_an_embedding_opens_on_the_component_where_its_points_are_most_spread():
    from curvedtrees.viz import available_views

    X = _piled_and_spread()
    views = available_views("H2 x S2")
    assert graph_upload.most_spread_view(views, "H2 x S2", X) == 1  # the sphere, not the piled-up disk
    swapped = np.hstack([X[:, 3:], X[:, :3]])  # S2 x H2 with the same points: still the sphere
    assert graph_upload.most_spread_view(available_views("S2 x H2"), "S2 x H2", swapped) == 0
    from curvedtrees import coords

    rng = np.random.default_rng(2)
    spread_disk = _piled_and_spread(seed=1)
    spread_disk[:, :3] = coords.poincare_to_hyperboloid(_disk_points(rng, 300))
    spread_disk[:, 3:] = np.array([0.0, 0.0, 1.0]) + 0.01 * rng.standard_normal((300, 3))
    spread_disk[:, 3:] /= np.linalg.norm(spread_disk[:, 3:], axis=1, keepdims=True)
    assert graph_upload.most_spread_view(views, "H2 x S2", spread_disk) == 0  # now the disk


def _disk_points(rng, n):
    r = np.sqrt(rng.uniform(0, 0.81, n))
    t = rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([r * np.cos(t), r * np.sin(t)])


def test_world_pictures_measure_the_same_spread_as_their_sphere():
    from curvedtrees.viz import available_views

    X = _piled_and_spread()[:, 3:]
    sphere, world_map, ortho = available_views("S2", globe=(0,))
    scores = [graph_upload.picture_spread(v, "S2", X) for v in (sphere, world_map, ortho)]
    assert scores == pytest.approx([scores[0]] * 3) and scores[0] > 0.9
