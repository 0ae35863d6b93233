"""Graphs brought by the user on the Embeddings page: reading, embedding, the datasets they become.

Pure module (no Streamlit): the page calls it, the tests call it directly.

The uploaded bytes are read once per content hash by
:func:`curvedtrees.datasets.read_graph` (bounded sizes, plain messages) into a
:class:`GraphUpload` that the page keeps in its own session state, never in a cache
shared between sessions. Embedding results are kept *slim*: the two n x n distance
matrices of an :class:`~curvedtrees.embeddings.EmbeddingResult` (64 MB at the
2,000-node limit, per signature tried) are dropped, and :func:`link_dataset` recomputes
the one it needs from the embedded points.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, replace

import numpy as np
from curvedtrees.limits import MAX_UPLOAD_ROWS

from ui.data import content_hash, make_record

__all__ = [
    "FOREST_RECIPE",
    "GRAPH_TYPES",
    "LABEL_TYPES",
    "MAX_LINK_ROWS",
    "TITLE_CHARS",
    "GraphUpload",
    "embed",
    "graph_record",
    "graph_summary",
    "hover_names",
    "link_dataset",
    "link_rows",
    "most_spread_view",
    "node_dataset",
    "picture_spread",
    "read_upload",
    "search_figure",
    "search_table",
    "slim",
    "upload_hash",
]

# Extensions the uploaders accept (read_graph picks the format from the extension).
GRAPH_TYPES = ("csv", "tsv", "txt", "edges", "edgelist", "gml", "graphml", "xml")
LABEL_TYPES = ("csv", "tsv", "txt")
# A file name becomes the dataset's title in the sidebar; longer names are cut.
TITLE_CHARS = 60
# Link prediction makes one row per pair of nodes on the same side of the node split,
# about 0.6 n^2 / 2 rows: the bound on uploaded tables (what a forest trains on
# interactively) applies, so graphs of up to about 400 nodes qualify.
MAX_LINK_ROWS = MAX_UPLOAD_ROWS
# The forest trained by "Train a product forest right away": enough trees for smooth
# regions, depth-limited so that a few thousand rows fit in about a second.
FOREST_RECIPE = {
    "family": "product_forest",
    "params": {"n_estimators": 24, "max_depth": 8, "min_samples_leaf": 2},
    "test_size": 0.25,
    "seed": 0,
}


@dataclass
class GraphUpload:
    """An uploaded graph (and labels file) as read once, with what was embedded from it.

    Attributes
    ----------
    hash : str
        Content hash of both files and their names (a new upload replaces the record).
    name : str
        The graph file's name.
    labels_name : str or None
        The labels file's name.
    data : GraphData or None
        The graph, None when it could not be read.
    error : str or None
        Why it could not be read.
    results : list of EmbeddingResult
        Slim results (see :func:`slim`), lowest distortion first; empty before embedding.
    params : dict
        The embedding parameters of ``results``.
    """

    hash: str
    name: str
    labels_name: str | None
    data: object | None
    error: str | None
    results: list = field(default_factory=list)
    params: dict = field(default_factory=dict)


def upload_hash(
    name: str,
    raw: bytes,
    labels_name: str | None = None,
    labels_raw: bytes | None = None,
    label_attribute: str | None = None,
) -> str:
    """Content hash of an uploaded graph file, its labels file, their names and the label attribute chosen."""
    arrays = [np.frombuffer(raw, dtype=np.uint8)]
    if labels_raw is not None:
        arrays.append(np.frombuffer(labels_raw, dtype=np.uint8))
    return content_hash(*arrays, extra=f"{name}|{labels_name}|{label_attribute!r}")


def read_upload(
    name: str,
    raw: bytes,
    labels_name: str | None = None,
    labels_raw: bytes | None = None,
    label_attribute: str | None = None,
) -> GraphUpload:
    """Read an uploaded graph file (and optional labels file) into a :class:`GraphUpload`.

    ``label_attribute`` picks the node attribute that holds the label (see
    :func:`curvedtrees.datasets.read_graph`; None: the usual one, ``""``: none).

    A file that cannot be used gives a record with ``error`` set (the reason in plain
    words, from :func:`curvedtrees.datasets.read_graph`), not an exception. The app runs
    this in its worker pool (:mod:`ui.jobs`: limited in CPU time and memory, stopped when
    the visitor leaves); the function itself is pure and runs anywhere.
    """
    from curvedtrees.datasets import read_graph

    digest = upload_hash(name, raw, labels_name, labels_raw, label_attribute)
    title = name if len(name) <= TITLE_CHARS else name[: TITLE_CHARS - 3] + "..."
    try:
        data = read_graph(raw, name, labels=labels_raw, title=title, label_attribute=label_attribute)
    except ValueError as exc:
        return GraphUpload(digest, name, labels_name, None, str(exc))
    return GraphUpload(digest, name, labels_name, data, None)


def graph_summary(data) -> dict:
    """What the page previews before embedding.

    Returns
    -------
    dict
        ``nodes``, ``edges``, ``min_degree``, ``median_degree``, ``max_degree``, ``task`` and
        ``target``: a sentence about the labels.
    """
    degrees = np.fromiter((d for _, d in data.graph.degree()), dtype=np.int64)
    if data.y is None:
        target = "no node labels: the graph can become a link-prediction dataset"
    elif data.task == "regression":
        values = np.fromiter(data.y.values(), dtype=np.float64)
        target = f"a number per node ({values.min():.4g} to {values.max():.4g}): node regression"
    else:
        counts = np.bincount(np.fromiter(data.y.values(), dtype=np.int64), minlength=len(data.target_names))
        shown = ", ".join(f"{name} {count}" for name, count in zip(data.target_names[:8], counts[:8]))
        more = f", ... ({len(data.target_names)} in all)" if len(data.target_names) > 8 else ""
        target = f"{len(data.target_names)} classes ({shown}{more}): node classification"
    return {
        "nodes": data.graph.number_of_nodes(),
        "edges": data.graph.number_of_edges(),
        "min_degree": int(degrees.min()),
        "median_degree": float(np.median(degrees)),
        "max_degree": int(degrees.max()),
        "task": data.task,
        "target": target,
    }


def slim(result):
    """``result`` without its two n x n distance matrices (rebuilt by :func:`link_dataset` when needed)."""
    return replace(result, graph_distances=None, embedding_distances=None)


def embed(data, candidates, params: dict, callback=None) -> list:
    """Embed the graph into every candidate signature, best (lowest distortion) first.

    Parameters
    ----------
    data : GraphData
    candidates : sequence of str or Signature
        One signature, or several for a signature search.
    params : dict
        ``n_epochs``, ``n_restarts``, ``learn_curvature``, ``random_state``.
    callback : callable, optional
        ``callback(epoch, distortion)``, epochs counted across candidates; False cancels.

    Returns
    -------
    list of EmbeddingResult
        Slim results (:func:`slim`).
    """
    from curvedtrees.embeddings import search_signatures

    rest = {k: v for k, v in params.items() if k != "random_state"}
    results = search_signatures(
        data.graph, candidates, random_state=params.get("random_state"), callback=callback, **rest
    )
    return [slim(r) for r in results]


def search_table(results) -> list[dict]:
    """One row per signature tried, best first: the rows of the page's table."""
    return [
        {
            "rank": k + 1,
            "signature": str(r.requested_signature),
            "learned": str(r.signature),
            "distortion": float(r.distortion),
            "mAP": float(r.map),
        }
        for k, r in enumerate(results)
    ]


def search_figure(results, height: int = 300):
    """Distortion (lower is better) and mAP (higher is better) per signature, side by side.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    names = [str(r.requested_signature) for r in results]
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("Average distortion (lower is better)", "Mean average precision (higher is better)"),
    )
    best = ["#2a6fdb" if k == 0 else "#9db7e0" for k in range(len(results))]  # the best signature stands out
    fig.add_trace(
        go.Bar(
            x=names,
            y=[r.distortion for r in results],
            marker_color=best,
            name="distortion",
            hovertemplate="%{x}: %{y:.3f}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=names,
            y=[r.map for r in results],
            marker_color=best,
            name="mAP",
            hovertemplate="%{x}: %{y:.3f}<extra></extra>",
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(range=[0, 1.02], row=1, col=2)  # mAP lies in [0, 1]
    fig.update_layout(height=height, showlegend=False, margin={"l": 40, "r": 10, "t": 40, "b": 40})
    return fig


def node_dataset(data, result):
    """The nodes as a dataset: one row per node of ``result``, the node's label as target.

    Raises
    ------
    ValueError
        When the graph has no node labels.
    """
    from curvedtrees.datasets.graphs import embedding_dataset

    if data.y is None:
        raise ValueError(
            f"the graph {data.title!r} has no node labels; make a link-prediction dataset instead, "
            "or upload a labels file"
        )
    return embedding_dataset(data, result, "uploaded_graph")


def link_rows(n_nodes: int, test_size: float) -> int:
    """Rows of a link-prediction dataset: pairs of nodes on the same side of the node split."""
    # The split's size, as curvedtrees.datasets.random_test_mask draws it.
    n_test = min(max(2, round(test_size * n_nodes)), n_nodes - 2)
    n_train = n_nodes - n_test
    return n_train * (n_train - 1) // 2 + n_test * (n_test - 1) // 2


def link_dataset(data, result, test_size: float = 0.25, random_state=0):
    """Node pairs of the embedding as a link-prediction dataset (:func:`curvedtrees.datasets.make_link_prediction`).

    Raises
    ------
    ValueError
        When the dataset would have more than :data:`MAX_LINK_ROWS` rows (checked before
        anything is allocated), or when the node split leaves no edge on one side.
    """
    from curvedtrees.datasets import make_link_prediction
    from curvedtrees.embeddings import embedding_distances

    n_nodes = len(result.nodes)
    rows = link_rows(n_nodes, test_size)
    if rows > MAX_LINK_ROWS:
        largest = next(n for n in range(n_nodes, 3, -1) if link_rows(n, test_size) <= MAX_LINK_ROWS)
        raise ValueError(
            f"link prediction makes one row per pair of nodes on the same side of the split: {n_nodes:,} nodes give "
            f"{rows:,} rows; the limit is {MAX_LINK_ROWS:,} (about {largest:,} nodes). Use the node labels instead, "
            "or a smaller graph"
        )
    full = replace(result, embedding_distances=embedding_distances(result.X, result.signature))
    dataset = make_link_prediction(
        full,
        test_size=test_size,
        random_state=random_state,
        name="uploaded_graph_links",
        provenance=data.provenance + " Embedding learned by this project (curvedtrees.embeddings.embed_graph).",
    )
    dataset.extra["title"] = f"{data.title} (link prediction)"
    dataset.extra["distortion"] = result.distortion
    return dataset


def graph_record(dataset, upload: GraphUpload, kind: str):
    """The app's ``DataRecord`` of a dataset made from an uploaded graph (not rebuildable from a link)."""
    title = dataset.extra.get("title", upload.name)
    recipe = {
        "source": "upload",
        "file": upload.name,
        "labels": upload.labels_name,
        "kind": kind,
        "signature": str(dataset.signature),
        "task": dataset.task,
        "title": title,
    }
    return make_record(dataset, recipe)


def hover_names(nodes) -> list[str]:
    """Hover text of each node; ids come from the user's file, so HTML in them is shown, not interpreted."""
    return [f"node {html.escape(str(v))}" for v in nodes]


# ------------------------------------------------------------------ which picture shows an embedding best
# Cells of equal area that a picture is cut into to see how its points spread: 8 rings x 16 sectors
# on a disk or a sphere (rings equal in r^2 or in z, so equal in area), 12 x 12 on a plane or a torus,
# 128 arcs on a circle or a line.
_RINGS, _SECTORS, _SIDE, _ARCS = 8, 16, 12, 128


def _bins(values, low, high, n):
    """Bin index in [0, n) of each value over [low, high] (the top edge goes in the last bin)."""
    span = high - low if high > low else 1.0
    return np.clip(((np.asarray(values, dtype=np.float64) - low) / span * n).astype(np.int64), 0, n - 1)


def _cells(view, signature, X) -> tuple[np.ndarray, int]:
    """The equal-area cell of each point of ``X`` in the picture ``view``, and the number of cells."""
    from curvedtrees import coords
    from curvedtrees.manifolds import Signature
    from curvedtrees.viz import project_points

    signature = Signature.parse(signature)
    pos = project_points(view, signature, X)
    if view.kind == "torus":  # the two circles' angles: the torus' own (flat) coordinates
        first, second = (signature.components[c] for c in view.components)
        a = coords.circle_to_angle(X[:, first.slice], curvature=first.curvature)
        b = coords.circle_to_angle(X[:, second.slice], curvature=second.curvature)
        return _bins(a, -np.pi, np.pi, _SIDE) * _SIDE + _bins(b, -np.pi, np.pi, _SIDE), _SIDE * _SIDE
    if view.kind == "disk":
        r2 = np.clip(pos["x"] ** 2 + pos["y"] ** 2, 0.0, 1.0)
        angle = np.arctan2(pos["y"], pos["x"])
        return _bins(r2, 0.0, 1.0, _RINGS) * _SECTORS + _bins(angle, -np.pi, np.pi, _SECTORS), _RINGS * _SECTORS
    if view.kind in ("sphere", "map", "ortho"):
        if "z" in pos:
            unit = np.column_stack([pos["x"], pos["y"], pos["z"]])
            unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
            z, lon = unit[:, 2], np.arctan2(unit[:, 1], unit[:, 0])
        else:
            lat, lon = (pos["lat"], pos["lon"]) if "lat" in pos else (pos["y"], pos["x"])  # ortho, map
            z, lon = np.sin(np.radians(lat)), np.radians(lon)
        return _bins(z, -1.0, 1.0, _RINGS) * _SECTORS + _bins(lon, -np.pi, np.pi, _SECTORS), _RINGS * _SECTORS
    if view.kind == "circle":
        return _bins(pos["theta"], -180.0, 180.0, _ARCS), _ARCS
    if view.kind == "plane":  # drawn over the points' own extent
        x, y = pos["x"], pos["y"]
        return _bins(x, x.min(), x.max(), _SIDE) * _SIDE + _bins(y, y.min(), y.max(), _SIDE), _SIDE * _SIDE
    x = pos["x"]  # a line, over the points' extent
    return _bins(x, x.min(), x.max(), _ARCS), _ARCS


def picture_spread(view, signature, X) -> float:
    """How evenly the points of ``X`` cover the picture ``view``: 0 when they share one cell, 1 when even.

    The picture is cut into cells of equal area (rings and sectors on the disk and the sphere,
    a grid on the plane and the torus over what they draw, arcs on a circle); the measure is
    the entropy of the points' share of each cell, over the largest entropy ``n`` points can
    reach in those cells, ``log(min(n, cells))``. A component whose points pile into one patch
    scores near 0, one where they are spread out near 1.

    Parameters
    ----------
    view : curvedtrees.viz.View
    signature : str or Signature
    X : ndarray of shape (n_points, ambient_dim)

    Returns
    -------
    float
    """
    X = np.asarray(X, dtype=np.float64)
    finite = np.isfinite(X).all(axis=1)
    if finite.sum() < 2:
        return 0.0
    cells, n_cells = _cells(view, signature, X[finite])
    counts = np.bincount(cells, minlength=n_cells)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum() / np.log(min(int(finite.sum()), n_cells)))


def most_spread_view(views, signature, X) -> int:
    """Index in ``views`` of the picture where the points of ``X`` are most spread (:func:`picture_spread`).

    Ties go to the first (the signature's order).
    """
    scores = [picture_spread(view, signature, X) for view in views]
    return int(np.argmax(np.round(scores, 9))) if scores else 0
