"""Link-prediction datasets from node embeddings (the paper's Appendix E.2)."""

from __future__ import annotations

import numpy as np

from ..manifolds.signature import Signature
from ..utils import as_generator
from ._base import Dataset, random_test_mask

__all__ = ["make_link_prediction"]

# Node splits drawn before giving up on a graph whose held-out nodes never share an edge.
# On Karate Club (34 nodes, 78 edges, a quarter held out) about one draw in 50 leaves the
# test nodes without an edge; a hundred failures in a row mean the graph is too sparse.
SPLIT_ATTEMPTS = 100


def make_link_prediction(
    embedding, test_size: float = 0.25, random_state=None, name: str = "link_prediction", provenance: str = ""
):
    """Rows ``(x_i, x_j, dist(x_i, x_j))`` labelled by whether ``i`` and ``j`` are adjacent.

    The nodes are split into train and test nodes first; a pair of two train
    nodes is a training row, a pair of two test nodes a test row, and pairs that
    cross the split are dropped, so no test edge (nor any pair involving a test
    node) is ever a training row. A split that leaves either side without an edge
    is drawn again from the same generator (up to ``SPLIT_ATTEMPTS`` times), so
    every ``random_state`` gives a usable split and one whose first split was
    usable gives that split. Each unordered pair appears once, as
    ``i < j`` in the embedding's node order. The signature is ``P x P x E1`` for
    the embedding's signature ``P``. As in the paper, the embedding itself was
    learned from the whole graph (see the paper's Appendix E.2 on this leak).

    Parameters
    ----------
    embedding : EmbeddingResult
        From :func:`curvedtrees.embeddings.embed_graph`.
    test_size : float in (0, 1)
        Fraction of nodes held out.
    random_state : int, Generator or None
    name : str
        Name of the returned dataset.
    provenance : str
        Where the graph comes from (shown by the app).

    Returns
    -------
    Dataset
        ``task="link_prediction"``, ``y`` in {0, 1}, ``test_mask`` marking the test
        rows; ``extra["pairs"]`` (n_rows, 2) node indices, ``extra["test_nodes"]``
        boolean per node, ``extra["nodes"]`` the graph nodes.
    """
    X_nodes = np.asarray(embedding.X, dtype=np.float64)
    n_nodes = X_nodes.shape[0]
    # One generator for every draw: its first mask is the one random_test_mask(random_state) gives.
    # A draw is checked on the edge list (O(edges)); the pairs are built once, for the split kept.
    rng = as_generator(random_state)
    edge_u, edge_v = np.asarray(embedding.edges).T  # (n_edges, 2) node pairs, i < j
    for _ in range(SPLIT_ATTEMPTS):
        test_nodes = random_test_mask(n_nodes, test_size=test_size, random_state=rng)
        in_test, in_train = test_nodes[edge_u] & test_nodes[edge_v], ~test_nodes[edge_u] & ~test_nodes[edge_v]
        if in_test.any() and in_train.any():
            break
    else:
        raise ValueError(
            f"{SPLIT_ATTEMPTS} node splits each left no edge on one side (train or test); the graph is too "
            "sparse for link prediction at this test_size: use a larger test_size"
        )
    i, j = np.triu_indices(n_nodes, k=1)
    same_side = test_nodes[i] == test_nodes[j]  # crossing pairs are dropped
    i, j = i[same_side], j[same_side]
    y = embedding.adjacency[i, j].astype(np.int64)
    test_rows = test_nodes[i]
    dist = embedding.embedding_distances[i, j]
    X = np.hstack([X_nodes[i], X_nodes[j], dist[:, None]])
    P = embedding.signature
    signature = Signature([(c.kind, c.dim, c.curvature) for c in (*P.components, *P.components)] + [("E", 1, 0.0)])
    n_edges = len(edge_u)
    return Dataset(
        X=X,
        y=y,
        signature=signature,
        task="link_prediction",
        name=name,
        description=(
            f"Link prediction on a graph of {n_nodes} nodes and {n_edges} edges embedded in {P} "
            f"(average distortion {embedding.distortion:.3f}). A row is a pair of nodes (x_i, x_j) with their "
            f"embedded distance, on {P} x {P} x E1; the label is 1 when the nodes are adjacent. "
            f"{int(test_nodes.sum())} nodes are held out: their pairs form the test rows, pairs between a "
            "training and a test node are dropped."
        ),
        provenance=provenance or "A graph embedding made by this project (curvedtrees.embeddings.embed_graph).",
        test_mask=test_rows,
        feature_names=tuple(
            [f"i_{k}" for k in range(P.ambient_dim)] + [f"j_{k}" for k in range(P.ambient_dim)] + ["distance"]
        ),
        target_names=("no edge", "edge"),
        extra={"pairs": np.stack([i, j], axis=1), "test_nodes": test_nodes, "nodes": list(embedding.nodes)},
    )
