"""Quality of a graph embedding: average distortion and mean average precision."""

from __future__ import annotations

import numpy as np

__all__ = ["average_distortion", "mean_average_precision"]


def _check_square(name: str, D: np.ndarray) -> np.ndarray:
    D = np.asarray(D, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1]:
        raise ValueError(f"{name} must be a square (n_nodes, n_nodes) matrix, got shape {D.shape}")
    if not np.all(np.isfinite(D)):
        raise ValueError(f"{name} has non-finite entries (is the graph connected?)")
    return D


def average_distortion(D_graph, D_embedding) -> float:
    """D_avg: the mean relative error of embedded distances over node pairs.

    ``D_avg = mean_{i<j} |d_emb(i, j) - d_G(i, j)| / d_G(i, j)`` (Gu et al. 2018).
    0 is a perfect (isometric) embedding.

    Parameters
    ----------
    D_graph : ndarray, shape (n_nodes, n_nodes)
        Graph (shortest-path) distances, positive off the diagonal.
    D_embedding : ndarray, shape (n_nodes, n_nodes)
        Distances between the embedded nodes, on the same scale.
    """
    D_graph = _check_square("D_graph", D_graph)
    D_embedding = _check_square("D_embedding", D_embedding)
    if D_graph.shape != D_embedding.shape:
        raise ValueError(f"D_graph has shape {D_graph.shape} but D_embedding has shape {D_embedding.shape}")
    i, j = np.triu_indices(D_graph.shape[0], k=1)
    if np.any(D_graph[i, j] <= 0):
        raise ValueError("D_graph must be positive between distinct nodes")
    return float(np.mean(np.abs(D_embedding[i, j] - D_graph[i, j]) / D_graph[i, j]))


def mean_average_precision(adjacency, D_embedding) -> float:
    """mAP of a graph embedding (Gu et al. 2018): do neighbours come first?

    For a node ``a`` with neighbours ``N_a``, rank the other nodes by embedded
    distance to ``a``; for each neighbour ``b``, precision = the fraction of
    neighbours among the nodes no farther than ``b`` (ties count as no farther,
    so a non-neighbour at exactly ``b``'s distance lowers ``b``'s precision).
    Average over ``N_a``, then over the nodes that have neighbours. 1 means every
    node's neighbours are strictly nearer than its other nodes.

    This is scikit-learn's label ranking average precision with one sample per
    node, its neighbours as relevant labels and ``-distance`` as the score; the
    node itself is left out of its own ranking.

    Parameters
    ----------
    adjacency : ndarray of bool or 0/1, shape (n_nodes, n_nodes)
        Symmetric adjacency matrix (the diagonal is ignored).
    D_embedding : ndarray, shape (n_nodes, n_nodes)
        Distances between the embedded nodes.

    Returns
    -------
    float
        In (0, 1].

    Raises
    ------
    ValueError
        Shapes that differ or are not square, non-finite distances, or a graph
        without edges.
    """
    from sklearn.metrics import label_ranking_average_precision_score

    A = np.array(adjacency) != 0
    D = _check_square("D_embedding", D_embedding)
    if A.shape != D.shape:
        raise ValueError(f"adjacency has shape {A.shape} but D_embedding has shape {D.shape}")
    n = D.shape[0]
    if n < 2:
        raise ValueError("the graph has no edges, so mean average precision is undefined")
    # Drop the diagonal: a node is never a candidate in its own ranking. Each row keeps
    # the n - 1 other nodes in their original order.
    off_diagonal = ~np.eye(n, dtype=bool)
    relevant = A[off_diagonal].reshape(n, n - 1)
    scores = -D[off_diagonal].reshape(n, n - 1)
    # Nodes without neighbours have no average precision; scikit-learn would score them 1.
    has_neighbours = relevant.any(axis=1)
    if not has_neighbours.any():
        raise ValueError("the graph has no edges, so mean average precision is undefined")
    return float(label_ranking_average_precision_score(relevant[has_neighbours], scores[has_neighbours]))
