"""Graphs (Karate Club, Les Miserables, random trees, block models) and their embeddings.

A graph becomes a dataset on a product manifold through a learned embedding
(:func:`curvedtrees.embeddings.embed_graph`): one row per node (node classification or
regression) or one row per node pair (link prediction). Embedding trains with
torch, so these loaders take a second or more and accept a progress callback.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..limits import MAX_EMBEDDING_DIM
from ..utils import as_generator, require
from ._base import Dataset, ParamInfo, register

__all__ = [
    "GRAPHS",
    "GraphData",
    "load_graph",
    "load_graph_embedding",
    "load_link_prediction",
    "random_recursive_tree",
]

GRAPHS = ("karate_club", "les_miserables", "random_tree", "sbm")

_NETWORKX_LICENCE = "shipped with networkx (BSD-3-Clause)"


@dataclass(frozen=True, eq=False)
class GraphData:
    """A graph with a node target.

    Attributes
    ----------
    graph : networkx.Graph
    y : dict or None
        Target of every node; None for a graph without labels (link prediction only).
    task : {"classification", "regression", "link_prediction"}
    target_names : tuple of str or None
        Class names, indexed by the integer labels.
    title, description, provenance : str
    notes : tuple of str
        What reading the graph repaired or dropped (uploaded graphs).
    label_attributes : tuple of str
        Uploaded GML / GraphML: the node attributes that could be the label (text or numbers).
    label_attribute : str or None
        The one that is (None: a labels file, or no label).
    """

    graph: object
    y: dict | None
    task: str
    target_names: tuple | None
    title: str
    description: str
    provenance: str
    notes: tuple = ()
    label_attributes: tuple = ()
    label_attribute: str | None = None


def random_recursive_tree(n_nodes: int, random_state=None):
    """A random recursive tree: node ``k`` attaches to a uniformly chosen earlier node.

    Its depth grows like ``log n``, and it is exactly the kind of hierarchy that
    hyperbolic space embeds with low distortion.

    Returns
    -------
    graph : networkx.Graph
        Nodes ``0..n_nodes-1``, root 0.
    depth : ndarray of int, shape (n_nodes,)
        Distance of every node from the root.
    """
    nx = require("networkx", "The random tree graph")
    rng = as_generator(random_state)
    parent = np.zeros(n_nodes, dtype=np.int64)
    depth = np.zeros(n_nodes, dtype=np.int64)
    graph = nx.Graph()
    graph.add_node(0)
    for node in range(1, n_nodes):
        parent[node] = rng.integers(node)
        depth[node] = depth[parent[node]] + 1
        graph.add_edge(int(parent[node]), node)
    return graph, depth


def load_graph(name: str, n_nodes: int = 64, random_state=None) -> GraphData:
    """One of the bundled or generated graphs with its node target.

    Parameters
    ----------
    name : {"karate_club", "les_miserables", "random_tree", "sbm"}
    n_nodes : int
        Size of the generated graphs (random tree, block model); ignored otherwise.
    random_state : int, Generator or None
        Seed of the generated graphs.
    """
    nx = require("networkx", f"The {name!r} graph")
    n_nodes = int(n_nodes)
    if name == "karate_club":
        graph = nx.karate_club_graph()
        clubs = ("Mr. Hi", "Officer")
        return GraphData(
            graph=graph,
            y={v: clubs.index(graph.nodes[v]["club"]) for v in graph.nodes},
            task="classification",
            target_names=clubs,
            title="Karate Club",
            description=(
                "Zachary's karate club: 34 members of a university karate club and their 78 friendships outside "
                "the club. The label is the faction each member joined when the club split (Mr. Hi or the Officer)."
            ),
            provenance=f"Zachary (1977), J. Anthropological Research 33(4); {_NETWORKX_LICENCE}.",
        )
    if name == "les_miserables":
        graph = nx.les_miserables_graph()
        # The graph has no node labels; modularity communities give a classification
        # target that follows the graph's structure (deterministic: no randomness).
        communities = nx.community.greedy_modularity_communities(graph)
        label = {v: k for k, members in enumerate(communities) for v in members}
        return GraphData(
            graph=graph,
            y=label,
            task="classification",
            target_names=tuple(f"community {k}" for k in range(len(communities))),
            title="Les Miserables",
            description=(
                "Co-appearance network of the 77 characters of Victor Hugo's Les Miserables (254 edges). The "
                f"label is one of the {len(communities)} communities found by greedy modularity maximisation "
                "(networkx), since the graph has no labels of its own."
            ),
            provenance=f"Knuth (1993), The Stanford GraphBase; {_NETWORKX_LICENCE}.",
        )
    if name == "random_tree":
        if n_nodes < 4:
            raise ValueError(f"n_nodes must be at least 4, got {n_nodes}")
        graph, depth = random_recursive_tree(n_nodes, random_state=random_state)
        return GraphData(
            graph=graph,
            y={v: float(depth[v]) for v in graph.nodes},
            task="regression",
            target_names=None,
            title="Random tree",
            description=(
                f"A random recursive tree of {n_nodes} nodes (each new node attaches to a uniformly chosen earlier "
                "one). The target is the node's depth: its distance from the root."
            ),
            provenance="Generated by this project; no external data, no licence terms.",
        )
    if name == "sbm":
        if n_nodes < 8:
            raise ValueError(f"n_nodes must be at least 8, got {n_nodes}")
        n_blocks = 4
        sizes = [n_nodes // n_blocks + (k < n_nodes % n_blocks) for k in range(n_blocks)]
        p_in, p_out = 0.3, 0.02
        probs = np.full((n_blocks, n_blocks), p_out)
        np.fill_diagonal(probs, p_in)
        seed = int(as_generator(random_state).integers(2**31 - 1))
        graph = nx.stochastic_block_model(sizes, probs.tolist(), seed=seed)
        return GraphData(
            graph=graph,
            y={v: int(graph.nodes[v]["block"]) for v in graph.nodes},
            task="classification",
            target_names=tuple(f"block {k}" for k in range(n_blocks)),
            title="Stochastic block model",
            description=(
                f"A stochastic block model with {n_nodes} nodes in {n_blocks} blocks (edge probability {p_in} "
                f"inside a block, {p_out} between blocks). The label is the node's block."
            ),
            provenance="Generated by this project with networkx.stochastic_block_model; no licence terms.",
        )
    raise ValueError(f"unknown graph {name!r}; choose one of {GRAPHS}")


def embedding_dataset(data: GraphData, result, name: str, detail: str = "") -> Dataset:
    """The embedded nodes as a dataset: one row per node of ``result``, the node's target as ``y``.

    Parameters
    ----------
    data : GraphData
        The graph and its node targets (``y`` must not be None).
    result : EmbeddingResult
        From :func:`curvedtrees.embeddings.embed_graph`.
    name : str
        The dataset's name.
    detail : str
        Appended to the description's parenthesis (how the embedding was trained).
    """
    return Dataset(
        X=result.X,
        y=np.array([data.y[v] for v in result.nodes]),
        signature=result.signature,
        task=data.task,
        name=name,
        description=(
            f"{data.description} Each row is a node embedded in {result.signature} by minimising the distortion "
            f"of shortest-path distances (average distortion {result.distortion:.3f}, mean average precision "
            f"{result.map:.3f}{detail})."
        ),
        provenance=data.provenance + " Embedding learned by this project (curvedtrees.embeddings.embed_graph).",
        target_names=data.target_names,
        extra={
            "edges": result.edges,
            "distortion": result.distortion,
            "map": result.map,
            "distortion_history": result.distortion_history,
            "requested_signature": str(result.requested_signature),
            "nodes": list(result.nodes),
            "title": data.title,
        },
    )


def _graph_data(graph, n_nodes, rng) -> tuple[GraphData, str]:
    """(graph data, dataset name) of a bundled graph's name or of a GraphData."""
    if isinstance(graph, GraphData):
        return graph, "uploaded_graph"
    return load_graph(graph, n_nodes=n_nodes, random_state=rng), graph


def load_graph_embedding(
    graph: str | GraphData = "karate_club",
    signature: str = "H2",
    n_nodes: int = 64,
    n_epochs: int = 1000,
    n_restarts: int = 1,
    learn_curvature: bool = True,
    random_state=0,
    callback=None,
) -> Dataset:
    """A graph's nodes embedded in a product manifold, with the graph's node target.

    Parameters
    ----------
    graph : {"karate_club", "les_miserables", "random_tree", "sbm"} or GraphData
        A bundled graph, or one read by :func:`curvedtrees.datasets.read_graph`.
    signature : str
        Signature to embed into; the dataset's signature carries the learned
        curvatures.
    n_nodes : int
        Size of the generated graphs.
    n_epochs, n_restarts, learn_curvature :
        See :func:`curvedtrees.embeddings.embed_graph`.
    random_state : int, Generator or None
        Seeds the generated graph and the embedding.
    callback : callable, optional
        ``callback(epoch, distortion)``; return False to cancel.

    Returns
    -------
    Dataset
        One row per node of the largest connected component. ``extra`` has
        ``edges`` (row-index pairs), ``distortion``, ``map``,
        ``distortion_history``, ``requested_signature`` and ``nodes``.
    """
    from ..embeddings import embed_graph

    rng = as_generator(random_state)
    data, name = _graph_data(graph, n_nodes, rng)
    if data.y is None:
        raise ValueError(f"the graph {data.title!r} has no node labels; use it for link prediction")
    result = embed_graph(
        data.graph,
        signature,
        n_epochs=n_epochs,
        n_restarts=n_restarts,
        learn_curvature=learn_curvature,
        random_state=rng,
        callback=callback,
    )
    return embedding_dataset(data, result, name, f"; {n_epochs} epochs x {n_restarts} restart(s)")


def load_link_prediction(
    graph: str | GraphData = "karate_club",
    signature: str = "S2 x E2 x H2",
    n_nodes: int = 64,
    test_size: float = 0.25,
    n_epochs: int = 1000,
    n_restarts: int = 1,
    learn_curvature: bool = True,
    random_state=0,
    callback=None,
) -> Dataset:
    """Link prediction on a graph embedding: rows ``(x_i, x_j, dist)`` on ``P x P x E1``.

    The graph is embedded in ``signature`` (= P), then the nodes are split into
    train and test nodes and crossing pairs are dropped
    (:func:`curvedtrees.datasets.make_link_prediction`). The returned dataset's
    ``test_mask`` holds the test pairs; :meth:`Dataset.split` uses it. ``graph`` is a
    bundled graph's name or a :class:`GraphData` (an uploaded graph).
    """
    from ..embeddings import embed_graph
    from .link_prediction import make_link_prediction

    rng = as_generator(random_state)
    data, graph = _graph_data(graph, n_nodes, rng)
    result = embed_graph(
        data.graph,
        signature,
        n_epochs=n_epochs,
        n_restarts=n_restarts,
        learn_curvature=learn_curvature,
        random_state=rng,
        callback=callback,
    )
    dataset = make_link_prediction(
        result,
        test_size=test_size,
        random_state=rng,
        name=f"{graph}_links",
        provenance=data.provenance + " Embedding learned by this project (curvedtrees.embeddings.embed_graph).",
    )
    dataset.extra["title"] = f"{data.title} (link prediction)"
    dataset.extra["distortion"] = result.distortion
    return dataset


# ---------------------------------------------------------------- registry entries
_SIGNATURE_CHOICES = ("H2", "S2", "E2", "H2 x E2", "H2 x S2", "S2 x E2 x H2")
_EMBED_PARAMS = (
    ParamInfo(
        "n_epochs",
        "int",
        1000,
        "Riemannian Adam epochs per restart (the paper used 3000).",
        10,
        5000,
        step=100,
        label="Epochs",
    ),
    ParamInfo(
        "n_restarts", "int", 1, "Random restarts; the lowest distortion is kept (paper: 10).", 1, 20, label="Restarts"
    ),
    ParamInfo(
        "learn_curvature", "bool", True, "Learn each component's curvature after a burn-in.", label="Learn curvatures"
    ),
    ParamInfo("random_state", "seed", 0, "Seed of the embedding (and of generated graphs).", label="Seed"),
)


def _signature_param(default):
    return ParamInfo(
        "signature",
        "signature",
        default,
        "Product signature to embed into.",
        max=MAX_EMBEDDING_DIM,
        choices=_SIGNATURE_CHOICES,
    )


_N_NODES = ParamInfo("n_nodes", "int", 64, "Number of nodes of the generated graph.", 8, 500, step=8, label="Nodes")


def _embedding_entry(name, title, task, summary, with_nodes):
    params = (_signature_param("H2"), *((_N_NODES,) if with_nodes else ()), *_EMBED_PARAMS)

    if with_nodes:

        def loader(
            signature="H2",
            n_nodes=64,
            n_epochs=1000,
            n_restarts=1,
            learn_curvature=True,
            random_state=0,
            callback=None,
        ):
            return load_graph_embedding(
                name, signature, n_nodes, n_epochs, n_restarts, learn_curvature, random_state, callback
            )

    else:

        def loader(signature="H2", n_epochs=1000, n_restarts=1, learn_curvature=True, random_state=0, callback=None):
            return load_graph_embedding(
                name, signature, 64, n_epochs, n_restarts, learn_curvature, random_state, callback
            )

    loader.__name__ = f"load_{name}"
    loader.__doc__ = f"{title} embedded into a product signature; see :func:`load_graph_embedding`."
    register(
        name,
        title=title,
        task=task,
        signature="H2",
        summary=summary,
        category="graph",
        parameters=params,
        requires=("networkx", "torch", "geoopt"),
        slow=True,
    )(loader)
    return loader


load_karate_club = _embedding_entry(
    "karate_club",
    "Karate Club (embedded)",
    "classification",
    "Zachary's karate club embedded by distortion minimisation; label = faction.",
    with_nodes=False,
)
load_les_miserables = _embedding_entry(
    "les_miserables",
    "Les Miserables (embedded)",
    "classification",
    "Character co-appearance graph embedded by distortion minimisation; label = community.",
    with_nodes=False,
)
load_random_tree = _embedding_entry(
    "random_tree",
    "Random tree (embedded)",
    "regression",
    "A random recursive tree embedded by distortion minimisation; target = depth.",
    with_nodes=True,
)
load_sbm = _embedding_entry(
    "sbm",
    "Stochastic block model (embedded)",
    "classification",
    "A 4-block stochastic block model embedded by distortion minimisation; label = block.",
    with_nodes=True,
)

register(
    "link_prediction",
    title="Link prediction (graph embedding)",
    task="link_prediction",
    signature="S2 x E2 x H2 x S2 x E2 x H2 x E1",
    summary="Node pairs (x_i, x_j, distance) of an embedded graph; label = edge. Split by node.",
    category="graph",
    parameters=(
        ParamInfo("graph", "choice", "karate_club", "Which graph to embed.", choices=GRAPHS),
        ParamInfo(
            "signature",
            "signature",
            "S2 x E2 x H2",
            "Signature P of each node.",
            max=MAX_EMBEDDING_DIM,
            choices=_SIGNATURE_CHOICES,
        ),
        _N_NODES,
        ParamInfo(
            "test_size", "float", 0.25, "Fraction of nodes held out.", 0.05, 0.8, step=0.05, label="Held-out nodes"
        ),
        *_EMBED_PARAMS,
    ),
    requires=("networkx", "torch", "geoopt"),
    slow=True,
)(load_link_prediction)
