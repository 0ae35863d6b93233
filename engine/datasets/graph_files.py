"""Graphs brought by the user: edge lists (CSV / TSV), GML and GraphML, with optional node labels.

:func:`read_graph` turns the bytes of an uploaded file into a :class:`GraphData` that
:func:`curvedtrees.datasets.load_graph_embedding` and
:func:`curvedtrees.datasets.load_link_prediction` embed like the bundled graphs. The bytes
are untrusted: their size is bounded before anything is parsed, XML documents that declare
a DTD or entities are refused before the XML parser sees them, node and edge counts are
bounded while reading, and every problem is a ``ValueError`` in plain words. What is
repaired rather than refused (self-loops, repeated edges, direction, nodes outside the
largest connected component, labels of nodes the graph does not have) is said in
``GraphData.notes``.
"""

from __future__ import annotations

import csv
import re

from ..utils import require
from .graphs import GraphData

__all__ = ["MAX_GRAPH_BYTES", "MAX_GRAPH_EDGES", "MAX_GRAPH_NODES", "read_graph", "read_node_labels"]

# Embedding is full-batch over all node pairs (an n x n distance matrix per epoch, in torch),
# so 2,000 nodes (4 million pairs, a few seconds per hundred epochs here) is the most a
# shared server should be asked for; the edge bound keeps parsing and the shortest paths cheap.
MAX_GRAPH_NODES = 2_000
MAX_GRAPH_EDGES = 50_000
# A 50,000-edge list with long string ids is about 2 MB; GraphML is wordier (about 80 bytes an edge).
MAX_GRAPH_BYTES = 8 * 1024 * 1024

_FORMATS = {
    ".csv": "edgelist",
    ".tsv": "edgelist",
    ".txt": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".gml": "gml",
    ".graphml": "graphml",
    ".xml": "graphml",
}
# Node attributes that usually hold a class in GML / GraphML files ("label" is often a name).
_LABEL_ATTRIBUTES = ("class", "label_class", "community", "group", "club", "value", "block", "target", "y")


def _text(raw: bytes, what: str) -> str:
    if len(raw) > MAX_GRAPH_BYTES:
        raise ValueError(f"the {what} has {len(raw):,} bytes; the limit is {MAX_GRAPH_BYTES:,}")
    if not raw.strip():
        raise ValueError(f"the {what} is empty")
    for encoding in ("utf-8-sig", "latin-1"):  # latin-1 decodes any bytes: the fallback never fails
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise AssertionError("unreachable")


def _node_id(text: str):
    """Node ids that are all digits become ints (so '7' in an edge list meets 7 in a labels file)."""
    text = text.strip()
    return int(text) if re.fullmatch(r"[+-]?\d{1,18}", text) else text


def _sniff_delimiter(lines: list[str]) -> str | None:
    """The delimiter of a table: tab, comma, semicolon, or None for runs of spaces.

    The one found on most of the first 50 rows wins (a malformed row should not change
    how the others are read); ties go to the order tab, comma, semicolon.
    """
    sample = [line for line in lines[:50] if line.strip() and not line.lstrip().startswith("#")]
    counts = {delimiter: sum(delimiter in line for line in sample) for delimiter in ("\t", ",", ";")}
    best = max(counts, key=counts.get)
    return best if counts[best] > 0 else None


def _rows(text: str, what: str) -> list[list[str]]:
    lines = text.splitlines()
    delimiter = _sniff_delimiter(lines)
    rows = []
    reader = csv.reader(lines, delimiter=delimiter) if delimiter else (line.split() for line in lines)
    for row in reader:
        cells = [cell.strip() for cell in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        rows.append(cells)
        if len(rows) > MAX_GRAPH_EDGES + 1:  # + 1: a header row
            raise ValueError(f"the {what} has more than {MAX_GRAPH_EDGES:,} rows; the limit is {MAX_GRAPH_EDGES:,}")
    return rows


def _edge_list(text: str, notes: list[str]):
    rows = _rows(text, "edge list")
    if (
        rows
        and len(rows[0]) >= 2
        and {rows[0][0].lower(), rows[0][1].lower()}
        & {
            "source",
            "target",
            "from",
            "to",
            "u",
            "v",
            "node1",
            "node2",
            "src",
            "dst",
        }
    ):
        rows = rows[1:]
    if not rows:
        raise ValueError("the edge list has no edges")
    short = [k + 1 for k, row in enumerate(rows) if len(row) < 2 or not row[0] or not row[1]]
    if short:
        # Count the ids actually there: "5," splits into two cells but names one node.
        found = sum(bool(cell) for cell in rows[short[0] - 1][:2])
        raise ValueError(
            f"an edge list needs two node ids per row (source and target, separated by a comma, a tab, a semicolon "
            f"or spaces); row {short[0]} has {found} value{'s' if found != 1 else ''}"
            + (f" ({len(short)} such rows)" if len(short) > 1 else "")
            + (" (a node without edges cannot be placed by distances: leave it out)" if found == 1 else "")
        )
    if any(len(row) > 2 for row in rows):
        notes.append("Columns after the second (such as weights) were ignored: edges are unweighted.")
    return [(_node_id(row[0]), _node_id(row[1])) for row in rows], []


def _refuse_dtd(text: str, what: str) -> None:
    # The XML parser would expand entities (a few hundred bytes can expand to gigabytes);
    # GraphML never needs a DTD, so any declaration is refused before parsing.
    if re.search(r"<!\s*(DOCTYPE|ENTITY)", text, re.IGNORECASE):
        raise ValueError(f"the {what} declares a DTD or entities, which GraphML files do not need; remove them")


def _networkx_graph(text: str, kind: str, notes: list[str]):
    nx = require("networkx", "Reading graph files")
    # Bound the counts before the parser builds anything: each node and edge is one tag.
    n_nodes = len(re.findall(r"<node\b" if kind == "graphml" else r"\bnode\s*\[", text))
    n_edges = len(re.findall(r"<edge\b" if kind == "graphml" else r"\bedge\s*\[", text))
    if n_nodes > MAX_GRAPH_NODES * 10 or n_edges > MAX_GRAPH_EDGES:
        raise ValueError(
            f"the {kind.upper()} file has {n_nodes:,} nodes and {n_edges:,} edges; the limits are "
            f"{MAX_GRAPH_NODES:,} nodes (in its largest connected component) and {MAX_GRAPH_EDGES:,} edges"
        )
    try:
        if kind == "graphml":
            _refuse_dtd(text, "GraphML file")
            graph = nx.parse_graphml(text)
        else:
            graph = nx.parse_gml(text, label="id")  # ids, not labels, name the nodes (labels may repeat)
    except (nx.NetworkXError, ValueError, SyntaxError, KeyError, TypeError) as exc:
        raise ValueError(f"the {kind.upper()} file could not be read: {exc}") from None
    except Exception as exc:  # the XML parser's own errors (ParseError and friends)
        raise ValueError(f"the {kind.upper()} file could not be read: {type(exc).__name__}: {exc}") from None
    if graph.is_directed():
        notes.append("The graph is directed; edges are treated as undirected.")
    if graph.is_multigraph():
        notes.append("Parallel edges were merged.")
    attributes = {}
    for name in _LABEL_ATTRIBUTES:
        values = nx.get_node_attributes(graph, name)
        if values:
            attributes = {_node_id(str(node)): value for node, value in values.items()}
            notes.append(f"Node labels taken from the node attribute {name!r}.")
            break
    edges = [(_node_id(str(u)), _node_id(str(v))) for u, v in graph.edges()]
    isolated = [node for node in graph.nodes if graph.degree(node) == 0]
    return edges, [(_node_id(str(n)), None) for n in isolated], attributes


def read_node_labels(raw: bytes) -> dict:
    """Node labels from a two-column table: node id, label (a header row is allowed).

    Returns
    -------
    dict
        ``{node id: label}`` with all-digit ids as ints (as :func:`read_graph` reads them).
    """
    rows = _rows(_text(raw, "labels file"), "labels file")
    if rows and len(rows[0]) >= 2 and rows[0][0].lower() in {"node", "id", "name", "node_id"}:
        rows = rows[1:]
    if not rows:
        raise ValueError("the labels file has no rows")
    short = [k + 1 for k, row in enumerate(rows) if len(row) < 2 or row[1] == ""]
    if short:
        raise ValueError(f"a labels file needs two columns (node id, label); row {short[0]} has no label")
    labels = {}
    for row in rows:
        node = _node_id(row[0])
        if node in labels and labels[node] != row[1]:
            raise ValueError(f"node {node!r} has two labels in the labels file: {labels[node]!r} and {row[1]!r}")
        labels[node] = row[1]
    return labels


def _target(labels: dict):
    """(task, {node: target}, class names) from raw labels: numbers with fractions -> regression."""
    values = list(labels.values())
    try:
        numbers = [float(v) for v in values]
    except (TypeError, ValueError):
        numbers = None
    if numbers is not None and any(x != round(x) for x in numbers) and len(set(numbers)) > 10:
        return "regression", dict(zip(labels, numbers)), None
    names = sorted({str(v) for v in values}, key=lambda s: (len(s), s))
    index = {name: k for k, name in enumerate(names)}
    return "classification", {node: index[str(v)] for node, v in labels.items()}, tuple(names)


def read_graph(raw: bytes, filename: str, labels: bytes | None = None, title: str | None = None) -> GraphData:
    """An uploaded graph file as :class:`GraphData`, ready to embed.

    Parameters
    ----------
    raw : bytes
        The file: an edge list (two columns of node ids, numbers or strings, separated by
        commas, tabs, semicolons or spaces; an optional header), GML, or GraphML.
    filename : str
        Its name; the extension picks the format (``.csv``, ``.tsv``, ``.txt``, ``.edges``,
        ``.gml``, ``.graphml``).
    labels : bytes, optional
        A two-column table of node labels (:func:`read_node_labels`). Without it, GML and
        GraphML labels come from a node attribute such as ``class`` or ``community``.
    title : str, optional
        Name shown by the app (default: the file name).

    Returns
    -------
    GraphData
        The largest connected component, simple and undirected. ``y`` is None when no node
        has a label (the graph can still be used for link prediction); ``notes`` lists what
        was repaired or dropped.

    Raises
    ------
    ValueError
        An empty or oversized file, a malformed row, fewer than 3 nodes or 2 edges, nodes
        without a label when others have one, and so on, with the reason.
    """
    nx = require("networkx", "Reading graph files")
    suffix = "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    kind = _FORMATS.get(suffix)
    if kind is None:
        raise ValueError(
            f"{filename!r}: unknown graph format {suffix or '(no extension)'}; use an edge list (.csv, .tsv, .txt, "
            ".edges), .gml or .graphml"
        )
    text = _text(raw, "graph file")
    notes: list[str] = []
    attributes: dict = {}
    if kind == "edgelist":
        edges, extra_nodes = _edge_list(text, notes)
    else:
        edges, extra_nodes, attributes = _networkx_graph(text, kind, notes)

    graph = nx.Graph()
    loops = sum(u == v for u, v in edges)
    if loops:
        notes.append(f"{loops:,} self-loop{'s' if loops != 1 else ''} dropped (a node is at distance 0 from itself).")
    simple = [(u, v) for u, v in edges if u != v]
    graph.add_edges_from(simple)
    repeated = len(simple) - graph.number_of_edges()
    if repeated and kind == "edgelist":
        notes.append(
            f"{repeated:,} repeated edge{'s' if repeated != 1 else ''} dropped (edges are undirected "
            "and unweighted, so a-b and b-a are one edge)."
        )
    graph.add_nodes_from(node for node, _ in extra_nodes)
    if graph.number_of_edges() < 2:
        raise ValueError(
            f"the graph has {graph.number_of_edges()} edge{'s' if graph.number_of_edges() != 1 else ''} between "
            "distinct nodes; an embedding needs at least 2 edges (3 nodes)"
        )
    component = max(nx.connected_components(graph), key=len)
    if len(component) < graph.number_of_nodes():
        dropped = graph.number_of_nodes() - len(component)
        n_parts = nx.number_connected_components(graph)
        notes.append(
            f"The largest connected component was kept: {len(component):,} of {graph.number_of_nodes():,} nodes "
            f"({dropped:,} node{'s' if dropped != 1 else ''} in {n_parts - 1:,} other "
            f"component{'s' if n_parts != 2 else ''}, isolated nodes included, cannot be placed by distances)."
        )
        graph = graph.subgraph(component).copy()
    if graph.number_of_nodes() > MAX_GRAPH_NODES:
        raise ValueError(
            f"the graph's largest connected component has {graph.number_of_nodes():,} nodes; the limit is "
            f"{MAX_GRAPH_NODES:,} (embedding compares every pair of nodes)"
        )

    raw_labels = read_node_labels(labels) if labels is not None else attributes
    y = task = names = None
    if raw_labels:
        unknown = [node for node in raw_labels if node not in graph]
        if unknown:
            shown = ", ".join(repr(node) for node in unknown[:5])
            notes.append(
                f"{len(unknown):,} label{'s' if len(unknown) != 1 else ''} for nodes the graph's largest connected "
                f"component does not have ({shown}{', ...' if len(unknown) > 5 else ''}) ignored."
            )
        missing = [node for node in graph.nodes if node not in raw_labels]
        if missing:
            shown = ", ".join(repr(node) for node in missing[:5])
            # Labels for nodes the graph does not have usually mean ids written differently
            # (1-based against 0-based, names against numbers): say so in the same message.
            strangers = ", ".join(repr(node) for node in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
            raise ValueError(
                f"{len(missing):,} of {graph.number_of_nodes():,} nodes have no label ({shown}"
                f"{', ...' if len(missing) > 5 else ''})"
                + (
                    f", and the labels name {len(unknown):,} node{'s' if len(unknown) != 1 else ''} the graph does "
                    f"not have ({strangers}): check that both files write node ids the same way"
                    if unknown
                    else ""
                )
                + "; label every node, or upload no labels to use the graph for link prediction only"
            )
        task, y, names = _target({node: raw_labels[node] for node in graph.nodes})
        if task == "classification" and len(names) < 2:
            raise ValueError(f"every node has the same label ({names[0]!r}); a classifier needs at least two")
    name = title or filename
    return GraphData(
        graph=graph,
        y=y,
        task=task or "link_prediction",
        target_names=names,
        title=name,
        description=(
            f"The uploaded graph {name!r}: {graph.number_of_nodes():,} nodes and {graph.number_of_edges():,} edges"
            + (f"; the label is the node's {'value' if task == 'regression' else 'class'}." if y else "; no labels.")
        ),
        provenance="Uploaded by the user; kept in this session only.",
        notes=tuple(notes),
    )
