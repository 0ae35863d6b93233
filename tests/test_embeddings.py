"""Graph embeddings, link prediction, kappa-GCN and the mixed-curvature VAE (tiny epochs)."""

from __future__ import annotations

import dataclasses
import socket
import sys

import networkx as nx
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("geoopt")

from curvedtrees.datasets import load_dataset, load_graph, make_link_prediction  # noqa: E402
from curvedtrees.datasets._base import random_test_mask  # noqa: E402
from curvedtrees.embeddings import (  # noqa: E402
    Cancelled,
    KappaGCNClassifier,
    MixedCurvatureVAE,
    average_distortion,
    embed_graph,
    mean_average_precision,
    search_signatures,
)
from curvedtrees.manifolds import ProductManifold, Signature  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access is blocked in the embedding tests")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture(scope="module")
def karate_h2():
    """Karate Club in H2, 300 epochs, seed 0 (shared by several tests)."""
    return embed_graph(nx.karate_club_graph(), "H2", n_epochs=300, random_state=0)


def _on_manifold(X, signature):
    ok, reason = ProductManifold(Signature.parse(signature)).check_point(X, explain=True)
    assert ok, reason


# ---------------------------------------------------------------- metrics
def test_average_distortion_and_map_on_exact_embedding():
    graph = nx.path_graph(5)
    D = nx.floyd_warshall_numpy(graph)
    A = nx.to_numpy_array(graph)
    assert average_distortion(D, D) == 0.0
    assert average_distortion(D, 2 * D) == pytest.approx(1.0)
    assert mean_average_precision(A, D) == 1.0
    # Swap the embedded positions of nodes 0 and 4: node 1's neighbour 0 now
    # ranks behind 2 and 3, precision 2/3 for it.
    X = np.array([4.0, 1.0, 2.0, 3.0, 0.0])
    D_bad = np.abs(X[:, None] - X[None, :])
    assert mean_average_precision(A, D_bad) < 1.0
    with pytest.raises(ValueError, match="square"):
        average_distortion(D[:2], D[:2])


def _map_by_definition(A, D):
    """Mean average precision straight from its definition: loops, no sorting."""
    n = len(A)
    per_node = []
    for a in range(n):
        neighbours = [b for b in range(n) if b != a and A[a, b]]
        if not neighbours:
            continue
        precisions = []
        for b in neighbours:
            no_farther = [c for c in range(n) if c != a and D[a, c] <= D[a, b]]
            precisions.append(sum(bool(A[a, c]) for c in no_farther) / len(no_farther))
        per_node.append(sum(precisions) / len(precisions))
    return sum(per_node) / len(per_node)


def test_map_counts_ties_as_no_farther_than():
    # Edge 0-1; node 2 sits exactly as far from 0 as 1 does. Node 0's neighbour is
    # then preceded-or-tied by a non-neighbour: precision 1/2 (a sort by position
    # would put node 1 first and say 1). Node 1: precision 1. Node 2 has no neighbours.
    A = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    D = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 2.0], [1.0, 2.0, 0.0]])
    assert mean_average_precision(A, D) == pytest.approx(0.75)
    assert _map_by_definition(A, D) == pytest.approx(0.75)


@pytest.mark.parametrize("seed", range(5))
def test_map_matches_its_definition_with_many_ties(seed):
    rng = np.random.default_rng(seed)
    n = 15
    upper = np.triu(rng.random((n, n)) < 0.3, k=1)
    A = upper | upper.T
    levels = np.triu(rng.integers(1, 4, size=(n, n)).astype(float), k=1)  # three distances: ties everywhere
    D = levels + levels.T
    assert mean_average_precision(A, D) == pytest.approx(_map_by_definition(A, D), rel=1e-12)
    # The diagonal is ignored whatever it holds.
    A_loops, D_loops = A.copy(), D.copy()
    np.fill_diagonal(A_loops, True)
    np.fill_diagonal(D_loops, 5.0)
    assert mean_average_precision(A_loops, D_loops) == mean_average_precision(A, D)


def test_map_rejects_graphs_without_edges_and_bad_shapes():
    with pytest.raises(ValueError, match="no edges"):
        mean_average_precision(np.zeros((3, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="no edges"):
        mean_average_precision(np.zeros((1, 1)), np.zeros((1, 1)))
    with pytest.raises(ValueError, match="shape"):
        mean_average_precision(np.zeros((3, 3)), np.ones((4, 4)))
    with pytest.raises(ValueError, match="non-finite"):
        mean_average_precision(np.ones((2, 2)), np.array([[0.0, np.inf], [np.inf, 0.0]]))


# ---------------------------------------------------------------- graph embedding
def test_karate_h2_distortion_decreases_to_documented_level(karate_h2):
    history = karate_h2.distortion_history
    assert history.shape == (300,)
    assert history[-1] < 0.4 * history[0]
    # Documented in engine/embeddings/graph.py and the README: D_avg ~0.18 after 300
    # epochs (0.16 after 1000, 0.15 after 3000), mAP ~0.5.
    assert karate_h2.distortion < 0.20
    assert karate_h2.map > 0.4
    assert karate_h2.X.shape == (34, 3)
    assert karate_h2.signature.components[0].kind == "H"
    assert karate_h2.signature.components[0].curvature < -1.0  # the tree-like graph asks for more curvature
    _on_manifold(karate_h2.X, karate_h2.signature)
    np.testing.assert_allclose(
        karate_h2.embedding_distances, ProductManifold(karate_h2.signature).pdist(karate_h2.X), atol=1e-9
    )


def test_embedding_is_reproducible_and_leaves_global_rng_alone(karate_h2):
    state = torch.random.get_rng_state()
    again = embed_graph(nx.karate_club_graph(), "H2", n_epochs=300, random_state=0)
    other = embed_graph(nx.karate_club_graph(), "H2", n_epochs=300, random_state=1)
    np.testing.assert_array_equal(again.X, karate_h2.X)
    assert not np.array_equal(other.X, karate_h2.X)
    assert torch.equal(state, torch.random.get_rng_state())


def test_product_embedding_restarts_and_fixed_curvature():
    graph = nx.les_miserables_graph()
    result = embed_graph(graph, "S2 x E2 x H2(-2)", n_epochs=60, n_restarts=2, learn_curvature=False, random_state=0)
    assert str(result.signature) == "S2 x E2 x H2(-2)"
    assert result.restart_distortions.shape == (2,)
    assert result.distortion == pytest.approx(result.restart_distortions.min(), rel=1e-6)
    _on_manifold(result.X, result.signature)


def test_callback_sees_every_epoch_and_can_cancel():
    seen = []
    embed_graph(nx.path_graph(6), "E2", n_epochs=5, n_restarts=2, random_state=0, callback=lambda e, d: seen.append(e))
    assert seen == list(range(10))
    with pytest.raises(Cancelled, match="epoch 3"):
        embed_graph(nx.path_graph(6), "E2", n_epochs=50, random_state=0, callback=lambda e, d: e < 3)


def test_signature_search_sorts_by_distortion():
    results = search_signatures(nx.balanced_tree(2, 3), ["E1", "H2"], n_epochs=150, random_state=0)
    assert [str(r.requested_signature) for r in results] == ["H2", "E1"]  # a tree: hyperbolic wins
    assert results[0].distortion <= results[1].distortion


def test_largest_component_and_bad_input():
    graph = nx.union(nx.path_graph(5), nx.path_graph(range(10, 12)))
    result = embed_graph(graph, "E2", n_epochs=5, random_state=0)
    assert result.nodes == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="n_epochs"):
        embed_graph(graph, "E2", n_epochs=0)


def test_missing_torch_gives_pip_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r"pip install .curvedtrees\[embeddings\]."):
        embed_graph(nx.path_graph(4), "E2", n_epochs=2)


# ---------------------------------------------------------------- link prediction
def test_link_prediction_never_leaks_test_edges(karate_h2):
    data = make_link_prediction(karate_h2, test_size=0.3, random_state=0)
    P = karate_h2.signature
    assert data.signature == Signature.parse(f"{P} x {P} x E1")
    assert data.task == "link_prediction"
    _on_manifold(data.X, data.signature)
    pairs, test_nodes = data.extra["pairs"], data.extra["test_nodes"]
    n_test = int(test_nodes.sum())
    n_train = 34 - n_test
    assert data.n_samples == n_train * (n_train - 1) // 2 + n_test * (n_test - 1) // 2
    # Each row's coordinates are its nodes' embeddings and their distance.
    width = P.ambient_dim
    np.testing.assert_array_equal(data.X[:, :width], karate_h2.X[pairs[:, 0]])
    np.testing.assert_array_equal(data.X[:, width : 2 * width], karate_h2.X[pairs[:, 1]])
    np.testing.assert_allclose(
        data.X[:, -1], ProductManifold(P).dist(karate_h2.X[pairs[:, 0]], karate_h2.X[pairs[:, 1]]), atol=1e-9
    )
    np.testing.assert_array_equal(data.y, karate_h2.adjacency[pairs[:, 0], pairs[:, 1]])
    train, test = data.split_indices()
    # No row mixes the sides, no training row touches a test node, and every
    # pair of test nodes (in particular every test edge) is a test row.
    assert np.all(~test_nodes[pairs[train]].any(axis=1))
    assert np.all(test_nodes[pairs[test]].all(axis=1))
    test_edges = {tuple(e) for e in karate_h2.edges if test_nodes[e].all()}
    assert test_edges and test_edges <= {tuple(p) for p in pairs[test]}
    assert not test_edges & {tuple(p) for p in pairs[train]}


# ---------------------------------------------------------------- graph datasets
def test_graph_datasets_through_the_registry():
    karate = load_dataset("karate_club", n_epochs=30)
    assert karate.n_samples == 34 and sorted(np.bincount(karate.y)) == [17, 17]
    _on_manifold(karate.X, karate.signature)
    tree = load_dataset("random_tree", n_nodes=20, n_epochs=20, signature="H2 x E2", random_state=2)
    graph = load_graph("random_tree", n_nodes=20, random_state=np.random.default_rng(2)).graph
    depth = nx.single_source_shortest_path_length(graph, 0)
    assert tree.task == "regression"
    assert tree.y.tolist() == [depth[v] for v in tree.extra["nodes"]]
    links = load_dataset("link_prediction", graph="sbm", n_nodes=24, n_epochs=20, signature="H2")
    assert links.test_mask is not None and links.task == "link_prediction"


def test_kappa_gcn_classifies_karate_from_six_labels():
    graph = nx.karate_club_graph()
    A = nx.to_numpy_array(graph)
    y = np.array([graph.nodes[v]["club"] == "Officer" for v in graph], dtype=int)
    y_train = np.full(34, -1)
    labelled = [0, 1, 2, 31, 32, 33]
    y_train[labelled] = y[labelled]
    model = KappaGCNClassifier(adjacency=A, signature="H2 x E2", n_epochs=60, random_state=0)
    model.fit(np.eye(34), y_train)
    assert (model.predict(np.eye(34)) == y).mean() >= 0.8
    assert model.loss_history_[-1] < model.loss_history_[0]
    _on_manifold(model.transform(np.eye(34)), model.signature_)
    again = clone(model).fit(np.eye(34), y_train)
    np.testing.assert_allclose(again.predict_proba(np.eye(34)), model.predict_proba(np.eye(34)))
    with pytest.raises(ValueError, match="rows but the graph has 34 nodes"):
        model.predict(np.eye(5))
    with pytest.raises(ValueError, match="needs the graph"):
        KappaGCNClassifier().fit(np.eye(3), [0, 1, -1])


# ---------------------------------------------------------------- VAE
@pytest.fixture(scope="module")
def digits():
    return load_digits().data[:400] / 16.0


def test_vae_elbo_improves_and_latents_lie_on_manifold(digits):
    short = MixedCurvatureVAE(signature="S2 x E2 x H2", n_epochs=1, random_state=0).fit(digits)
    longer = MixedCurvatureVAE(signature="S2 x E2 x H2", n_epochs=8, random_state=0).fit(digits)
    assert longer.elbo(digits) > short.elbo(digits) + 2.0
    assert longer.history_[-1] > longer.history_[0]
    Z = longer.transform(digits)
    assert Z.shape == (400, 8)
    _on_manifold(Z, "S2 x E2 x H2")
    assert longer.decode(Z[:3]).shape == (3, 64)
    again = MixedCurvatureVAE(signature="S2 x E2 x H2", n_epochs=8, random_state=0).fit(digits)
    np.testing.assert_array_equal(again.transform(digits), Z)


def test_vae_rejects_unscaled_images_and_can_be_cancelled(digits):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        MixedCurvatureVAE(n_epochs=1).fit(digits * 16)
    with pytest.raises(Cancelled):
        MixedCurvatureVAE(n_epochs=5, callback=lambda epoch, elbo: False).fit(digits)


def test_digits_latents_dataset_holds_out_the_vae_test_images():
    data = load_dataset("digits_latents", n_epochs=1, signature="H2", test_size=0.25)
    assert data.n_samples == 1797 and data.test_mask.sum() == round(0.25 * 1797)
    _on_manifold(data.X, data.signature)
    assert np.isfinite(data.extra["test_elbo"])


def test_link_prediction_redraws_a_node_split_that_leaves_a_side_without_edges(karate_h2):
    def first_split_has_edges(seed):
        test = random_test_mask(34, test_size=0.25, random_state=seed)
        inside = karate_h2.adjacency[np.ix_(test, test)].sum()
        outside = karate_h2.adjacency[np.ix_(~test, ~test)].sum()
        return inside > 0 and outside > 0

    # Seeds whose first draw held out nodes with no edge among them (the benchmark's
    # datasets preset met one at --trials 20) now get the next draw of the same generator.
    bad = [seed for seed in range(300) if not first_split_has_edges(seed)]
    good = next(seed for seed in range(300) if first_split_has_edges(seed))
    assert bad, "no seed of 300 leaves a side without edges: the test needs another graph"
    data = make_link_prediction(karate_h2, random_state=bad[0])
    train, test = data.split_indices()
    assert data.y[test].sum() > 0 and data.y[train].sum() > 0
    # A seed whose first split was usable keeps it.
    kept = make_link_prediction(karate_h2, random_state=good).extra["test_nodes"]
    np.testing.assert_array_equal(kept, random_test_mask(34, test_size=0.25, random_state=good))
    # A graph with too few edges still fails, naming why.
    sparse = np.zeros_like(karate_h2.adjacency)
    sparse[0, 1] = sparse[1, 0] = 1
    with pytest.raises(ValueError, match="too sparse"):
        make_link_prediction(dataclasses.replace(karate_h2, adjacency=sparse), random_state=0)
