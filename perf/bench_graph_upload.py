"""Uploaded graphs at the limits: reading time and what a session keeps, against references in the same run.

For a random graph at the upload limits (2,000 nodes, 49,900 edges, string node ids),
the script measures:

* reading an edge list: ``curvedtrees.datasets.read_graph`` (bounds, header, id
  conversion, repairs, largest component) against ``networkx.parse_edgelist`` on the
  same lines followed by the same largest-component step (the reference);
* reading GraphML: ``read_graph`` (DTD refusal and tag counts before parsing) against
  ``networkx.parse_graphml`` on the same text;
* memory a session keeps per signature tried: the slim result the Embeddings page
  stores (``ui.graph_upload.slim``) against the full ``EmbeddingResult`` (its two
  n x n float64 distance matrices), from the arrays' sizes (a 2-epoch embedding).

Times are the best of ``--repeats`` runs. Usage:
``python perf/bench_graph_upload.py [--nodes 2000] [--edges 49900] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import networkx as nx
from curvedtrees.datasets import read_graph
from curvedtrees.embeddings import embed_graph

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the app's ui package, as the pages import it

from ui.graph_upload import slim  # noqa: E402


def best_of(repeats: int, function) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def largest_component(graph):
    return graph.subgraph(max(nx.connected_components(graph), key=len)).copy()


def kept_bytes(result) -> int:
    arrays = ("X", "graph_distances", "embedding_distances", "adjacency", "loss_history", "distortion_history")
    return sum(getattr(result, name).nbytes for name in arrays if getattr(result, name) is not None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--edges", type=int, default=49_900)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    graph = nx.relabel_nodes(nx.gnm_random_graph(args.nodes, args.edges, seed=0), lambda v: f"node{v}")
    lines = [f"{u},{v}" for u, v in graph.edges()]
    edge_list = ("source,target\n" + "\n".join(lines) + "\n").encode()
    buffer = io.BytesIO()
    nx.write_graphml(graph, buffer)
    graphml = buffer.getvalue()
    print(
        f"graph: {args.nodes:,} nodes, {args.edges:,} edges; edge list {len(edge_list) / 2**20:.2f} MB, "
        f"GraphML {len(graphml) / 2**20:.2f} MB"
    )

    ours = best_of(args.repeats, lambda: read_graph(edge_list, "g.csv"))
    reference = best_of(args.repeats, lambda: largest_component(nx.parse_edgelist(lines, delimiter=",")))
    print(
        f"edge list: read_graph {ours:.3f} s, networkx parse_edgelist + component {reference:.3f} s, "
        f"ratio {ours / reference:.2f}x"
    )

    ours = best_of(args.repeats, lambda: read_graph(graphml, "g.graphml"))
    reference = best_of(args.repeats, lambda: largest_component(nx.parse_graphml(graphml.decode())))
    print(
        f"GraphML:   read_graph {ours:.3f} s, networkx parse_graphml + component {reference:.3f} s, "
        f"ratio {ours / reference:.2f}x"
    )

    data = read_graph(edge_list, "g.csv")
    result = embed_graph(data.graph, "H2", n_epochs=2, random_state=0)
    full, kept = kept_bytes(result), kept_bytes(slim(result))
    print(f"kept per signature: slim {kept / 2**20:.1f} MB, full result {full / 2**20:.1f} MB, ratio {kept / full:.3f}")


if __name__ == "__main__":
    main()
