"""Graphs brought by the user: edge lists (CSV / TSV), GML and GraphML, with optional node labels.

:func:`read_graph` turns the bytes of an uploaded file into a :class:`GraphData` that
:func:`curvedtrees.datasets.load_graph_embedding` and
:func:`curvedtrees.datasets.load_link_prediction` embed like the bundled graphs. The bytes
are untrusted, so everything is counted the way it is parsed, before the parser builds
anything:

* the file's bytes are bounded first (``MAX_GRAPH_BYTES``);
* an edge list's rows are counted by the reader that parses them, one at a time,
  stopping at ``MAX_GRAPH_EDGES``; fields longer than ``MAX_GRAPH_FIELD_CHARS`` are
  refused (the ``csv`` module's own limit raised an error of its own);
* GraphML is first read by expat's own tokeniser (the parser networkx uses), without
  building a tree: ``node`` and ``edge`` elements are counted by their local name
  whatever their namespace prefix (``<ns0:node>``), every element and attribute counts
  towards ``MAX_GRAPH_RECORDS``, nesting (unclosed elements) stops at ``MAX_GRAPH_NESTING``,
  and a DTD or an entity declaration is refused;
* GML is first read by a tokeniser of networkx's own GML grammar (keys, numbers,
  strings, brackets, comments, strings spread over lines), so ``node`` records are
  counted however they are spaced or commented (``node#\n[``) and whatever the line
  endings, with the same record and nesting bounds (networkx's parser recurses once
  per nesting level).

Only then does networkx parse the text. Every problem, whichever step finds it, is a
:class:`GraphFileError` (a ``ValueError``) in plain words. What is repaired rather
than refused (self-loops, repeated edges, direction, nodes outside the largest connected
component, labels of nodes the graph does not have) is said in ``GraphData.notes``.

:func:`read_graph` is a pure function of its arguments (bytes and strings in, a
:class:`GraphData` of plain Python and networkx objects out, an exception that pickles):
the app can run it in a worker process.
"""

from __future__ import annotations

import csv
import re
import xml.parsers.expat

from ..limits import (
    MAX_GRAPH_BYTES,
    MAX_GRAPH_EDGES,
    MAX_GRAPH_FIELD_CHARS,
    MAX_GRAPH_FILE_NODES,
    MAX_GRAPH_LABEL_ATTRIBUTES,
    MAX_GRAPH_NESTING,
    MAX_GRAPH_NODES,
    MAX_GRAPH_RECORDS,
)
from ..utils import require
from .graphs import GraphData

__all__ = [
    "MAX_GRAPH_BYTES",
    "MAX_GRAPH_EDGES",
    "MAX_GRAPH_FIELD_CHARS",
    "MAX_GRAPH_FILE_NODES",
    "MAX_GRAPH_LABEL_ATTRIBUTES",
    "MAX_GRAPH_NESTING",
    "MAX_GRAPH_NODES",
    "MAX_GRAPH_RECORDS",
    "GraphFileError",
    "read_graph",
    "read_node_labels",
]

# The limits live in curvedtrees.limits (with their reasons); they are read from this
# module's globals at call time, so tests (and the app) can lower them here.


class GraphFileError(ValueError):
    """A graph or labels file that cannot be used, with the reason in plain words."""


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
    if not isinstance(raw, (bytes, bytearray)):
        raise GraphFileError(f"the {what} must be bytes, not {type(raw).__name__}")
    if len(raw) > MAX_GRAPH_BYTES:
        raise GraphFileError(f"the {what} has {len(raw):,} bytes; the limit is {MAX_GRAPH_BYTES:,}")
    if not raw.strip():
        raise GraphFileError(f"the {what} is empty")
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
    """The non-blank, non-comment rows of a table, counted as they are read (stopping at the limit)."""
    lines = text.splitlines()
    delimiter = _sniff_delimiter(lines)
    rows = []
    reader = csv.reader(lines, delimiter=delimiter) if delimiter else (line.split() for line in lines)
    try:
        for row in reader:
            cells = [cell.strip() for cell in row]
            if not any(cells) or cells[0].startswith("#"):
                continue
            long = next((cell for cell in cells if len(cell) > MAX_GRAPH_FIELD_CHARS), None)
            if long is not None:
                raise GraphFileError(
                    f"row {len(rows) + 1} of the {what} has a value of {len(long):,} characters; the limit is "
                    f"{MAX_GRAPH_FIELD_CHARS:,} (node ids and labels are short: is a quote left open?)"
                )
            rows.append(cells)
            if len(rows) > MAX_GRAPH_EDGES + 1:  # + 1: a header row
                raise GraphFileError(
                    f"the {what} has more than {MAX_GRAPH_EDGES:,} rows; the limit is {MAX_GRAPH_EDGES:,}"
                )
    except csv.Error as exc:  # a field beyond the csv module's own limit, a stray quote ...
        raise GraphFileError(
            f"row {len(rows) + 1} of the {what} could not be read ({exc}): node ids and labels are short values "
            "separated by commas, tabs, semicolons or spaces; is a quote left open?"
        ) from None
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
        raise GraphFileError("the edge list has no edges")
    short = [k + 1 for k, row in enumerate(rows) if len(row) < 2 or not row[0] or not row[1]]
    if short:
        # Count the ids actually there: "5," splits into two cells but names one node.
        found = sum(bool(cell) for cell in rows[short[0] - 1][:2])
        raise GraphFileError(
            f"an edge list needs two node ids per row (source and target, separated by a comma, a tab, a semicolon "
            f"or spaces); row {short[0]} has {found} value{'s' if found != 1 else ''}"
            + (f" ({len(short)} such rows)" if len(short) > 1 else "")
            + (" (a node without edges cannot be placed by distances: leave it out)" if found == 1 else "")
        )
    if any(len(row) > 2 for row in rows):
        notes.append("Columns after the second (such as weights) were ignored: edges are unweighted.")
    return [(_node_id(row[0]), _node_id(row[1])) for row in rows], []


class _Refused(Exception):
    """Raised inside a tokeniser's callback to stop it with a :class:`GraphFileError` message."""


def _count_limits(kind: str, nodes: int, edges: int, records: int, depth: int) -> None:
    """Stop a tokeniser as soon as a count passes its limit."""
    if depth > MAX_GRAPH_NESTING:
        raise _Refused(
            f"the {kind} file nests {'elements' if kind == 'GraphML' else 'lists'} deeper than {MAX_GRAPH_NESTING} "
            f"levels (a graph file nests about four{'; is an element left unclosed?' if kind == 'GraphML' else ''})"
        )
    if nodes > MAX_GRAPH_FILE_NODES or edges > MAX_GRAPH_EDGES:
        raise _Refused(
            f"the {kind} file has more than {MAX_GRAPH_FILE_NODES:,} nodes or {MAX_GRAPH_EDGES:,} edges; the limits "
            f"are {MAX_GRAPH_NODES:,} nodes (in its largest connected component, {MAX_GRAPH_FILE_NODES:,} in the "
            f"file) and {MAX_GRAPH_EDGES:,} edges"
        )
    if records > MAX_GRAPH_RECORDS:
        what = "elements and attributes" if kind == "GraphML" else "key-value records"
        raise _Refused(
            f"the {kind} file has more than {MAX_GRAPH_RECORDS:,} {what}; the limit is {MAX_GRAPH_RECORDS:,}"
        )


def _scan_graphml(text: str) -> None:
    """Read GraphML with expat's tokeniser, counting before anything is built.

    Names arrive as ``"namespace-uri local-name"`` (namespace processing on), so a
    prefixed ``<ns0:node>`` counts as a node like ``<node>``. A DOCTYPE or an entity
    declaration stops the scan: GraphML never needs one, and the tree builder would
    expand entities.
    """
    # expat hands each element's attributes over as one dict, built before any callback can
    # count them (700,000 attributes on one element took 200 MB): every attribute has an
    # equals sign, so their count bounds the attributes first, at C speed.
    if text.count("=") > MAX_GRAPH_RECORDS:
        raise GraphFileError(
            f"the GraphML file has more than {MAX_GRAPH_RECORDS:,} attributes (equals signs); the limit is "
            f"{MAX_GRAPH_RECORDS:,} elements and attributes"
        )
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    counts = {"node": 0, "edge": 0}
    state = {"depth": 0, "records": 0}

    def start(name, attributes):
        state["depth"] += 1
        state["records"] += 1 + len(attributes)  # networkx keeps every attribute of every element
        local = name.rsplit(" ", 1)[-1]
        if local in counts:
            counts[local] += 1
        _count_limits("GraphML", counts["node"], counts["edge"], state["records"], state["depth"])

    def end(name):
        state["depth"] -= 1

    def refuse_dtd(*args):
        raise _Refused("the GraphML file declares a DTD or entities, which GraphML files do not need; remove them")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = refuse_dtd
    parser.EntityDeclHandler = refuse_dtd
    try:
        parser.Parse(text, True)
    except _Refused as exc:
        raise GraphFileError(str(exc)) from None
    except xml.parsers.expat.ExpatError as exc:
        raise GraphFileError(f"the GRAPHML file could not be read: {exc}") from None


# networkx's GML grammar, one alternative per token kind, tried in its order: keys,
# reals, integers, strings, list start and end, then comments and spaces (skipped).
_GML_TOKEN = re.compile(
    r"(?P<key>[A-Za-z][0-9A-Za-z_]*\b)"
    r"|(?P<real>[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.[0-9]*|INF)(?:[Ee][+-]?[0-9]+)?)"
    r"|(?P<int>[+-]?[0-9]+)"
    r'|(?P<string>".*?")'
    r"|(?P<open>\[)"
    r"|(?P<close>\])"
    r"|(?P<skip>#.*$|\s+)"
)


def _gml_lines(text: str):
    """The lines networkx tokenises: ``str.splitlines`` (any line ending), and a string
    spread over lines (a line with one quote, not at either end) joined to the line that
    closes it by spaces."""
    pending: list[str] = []
    for line in text.splitlines():
        if pending:
            pending.append(line.strip())
            if line.endswith('"'):
                yield " ".join(pending)
                pending = []
            continue
        stripped = line.strip()
        if line.count('"') == 1 and stripped[0] != '"' and stripped[-1] != '"':
            pending = [line.rstrip()]
            continue
        yield line
    # An unclosed string (pending at the end) is never tokenised by networkx either.


def _scan_gml(text: str) -> None:
    """Count GML's node and edge records, key-value records and nesting as networkx's tokeniser sees them.

    A record is a key token; a node (an edge) is the key ``node`` (``edge``) whose next
    token, comments and spaces skipped, opens a list. Nothing is built; the scan stops at
    the first passed limit, or at a character no token matches (which networkx's parser
    then reports, with its position).
    """
    nodes = edges = records = depth = 0
    last_key = None
    for number, line in enumerate(_gml_lines(text), start=1):
        position = 0
        while position < len(line):
            match = _GML_TOKEN.match(line, position)
            if match is None:
                return
            position = match.end()
            kind = match.lastgroup
            if kind == "skip":
                continue
            if kind == "open":
                depth += 1
                nodes += last_key == "node"
                edges += last_key == "edge"
            elif kind == "close":
                depth -= 1
            elif kind == "key":
                records += 1
            last_key = match.group() if kind == "key" else None
            try:
                _count_limits("GML", nodes, edges, records, depth)
            except _Refused as exc:
                raise GraphFileError(f"{exc} (line {number})") from None


def _networkx_graph(text: str, kind: str, notes: list[str]):
    nx = require("networkx", "Reading graph files")
    # Counted by the format's own tokeniser before the parser builds anything.
    if kind == "graphml":
        _scan_graphml(text)
    else:
        _scan_gml(text)
    try:
        if kind == "graphml":
            graph = nx.parse_graphml(text)
        else:
            graph = nx.parse_gml(text, label="id")  # ids, not labels, name the nodes (labels may repeat)
    except (nx.NetworkXError, ValueError, SyntaxError, KeyError, TypeError) as exc:
        raise GraphFileError(f"the {kind.upper()} file could not be read: {exc}") from None
    except Exception as exc:  # the XML parser's own errors (ParseError and friends), networkx's surprises
        raise GraphFileError(f"the {kind.upper()} file could not be read: {type(exc).__name__}: {exc}") from None
    if graph.is_directed():
        notes.append("The graph is directed; edges are treated as undirected.")
    if graph.is_multigraph():
        notes.append("Parallel edges were merged.")
    edges = [(_node_id(str(u)), _node_id(str(v))) for u, v in graph.edges()]
    isolated = [node for node in graph.nodes if graph.degree(node) == 0]
    return edges, [(_node_id(str(n)), None) for n in isolated], _node_attributes(graph)


def _node_attributes(graph) -> dict:
    """{attribute: {node id: value}} of the nodes' plain attributes (text and numbers), the first few names.

    At most ``MAX_GRAPH_LABEL_ATTRIBUTES`` names are offered as labels (a file may give every node
    its own); lists, records and booleans are not labels.
    """
    found: dict = {}
    for node, attributes in graph.nodes(data=True):
        for name, value in attributes.items():
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                continue
            if name not in found and len(found) >= MAX_GRAPH_LABEL_ATTRIBUTES:
                continue
            found.setdefault(str(name), {})[_node_id(str(node))] = value
    return found


def _chosen_attribute(attributes: dict, label_attribute, notes: list[str]) -> str | None:
    """The node attribute that labels the nodes: the one asked for, else the first usual one, else none."""
    if label_attribute is None:
        name = next((n for n in _LABEL_ATTRIBUTES if n in attributes), None)
    elif label_attribute == "":
        return None
    elif label_attribute not in attributes:
        offered = ", ".join(repr(n) for n in sorted(attributes)) or "none"
        raise GraphFileError(
            f"the graph's nodes have no attribute {str(label_attribute)[:60]!r} to use as the label "
            f"(their attributes: {offered})"
        )
    else:
        name = label_attribute
    if name is not None:
        notes.append(f"Node labels taken from the node attribute {name!r}.")
    return name


def _match_by_name(raw_labels: dict, graph, names: dict, notes: list[str]) -> dict:
    """Labels keyed by node names (a GML node's ``label``) moved to the nodes' ids, when names match more nodes.

    ``names`` is ``{node id: name}``; a name that two nodes share names neither.
    """
    by_id = sum(node in raw_labels for node in graph.nodes)
    if by_id == graph.number_of_nodes() or not names:
        return raw_labels
    owner: dict = {}
    for node in graph.nodes:
        if node in names:
            name = _node_id(str(names[node]))
            owner[name] = None if name in owner else node  # shared names are ambiguous
    moved = {owner[key]: value for key, value in raw_labels.items() if owner.get(key) is not None}
    if len(moved) <= by_id:
        return raw_labels
    for key, value in raw_labels.items():  # labels of names the graph lacks: reported as unknown below
        if key not in owner and key not in moved:
            moved[key] = value
    notes.append(
        f"The labels file names nodes by their name (the node attribute 'label'), not their id: {len(moved):,} "
        "labels matched by name."
    )
    return moved


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
        raise GraphFileError("the labels file has no rows")
    short = [k + 1 for k, row in enumerate(rows) if len(row) < 2 or row[1] == ""]
    if short:
        raise GraphFileError(f"a labels file needs two columns (node id, label); row {short[0]} has no label")
    labels = {}
    for row in rows:
        node = _node_id(row[0])
        if node in labels and labels[node] != row[1]:
            raise GraphFileError(f"node {node!r} has two labels in the labels file: {labels[node]!r} and {row[1]!r}")
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


def read_graph(
    raw: bytes,
    filename: str,
    labels: bytes | None = None,
    title: str | None = None,
    label_attribute: str | None = None,
) -> GraphData:
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
        A two-column table of node labels (:func:`read_node_labels`), keyed by node ids or,
        in GML and GraphML, by the nodes' names (their ``label`` or ``name`` attribute,
        matched when the ids match fewer nodes). Without it, GML and GraphML labels come
        from a node attribute: ``label_attribute``.
    title : str, optional
        Name shown by the app (default: the file name).
    label_attribute : str, optional
        The node attribute that holds the label (``GraphData.label_attributes`` lists those
        a file offers); ``""`` for none; None picks the first usual one (``class``,
        ``community``, ``club``, ...).

    Returns
    -------
    GraphData
        The largest connected component, simple and undirected. ``y`` is None when no node
        has a label (the graph can still be used for link prediction); ``notes`` lists what
        was repaired or dropped.

    Raises
    ------
    GraphFileError
        (a ``ValueError``) An empty or oversized file, too many nodes, edges, records or
        nesting levels, a malformed row or document, fewer than 3 nodes or 2 edges, nodes
        without a label when others have one, and so on, with the reason; whatever step
        finds the problem, it is this one error type with a plain message.
    """
    try:
        return _read_graph(raw, filename, labels, title, label_attribute)
    except GraphFileError:
        raise
    except RecursionError:
        raise GraphFileError(f"{filename!r} nests too deeply to be read") from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, UnicodeError, csv.Error) as exc:
        # A parser's own surprise (networkx's GML reader indexes an empty line inside a string
        # spread over lines, for one): still one error type, naming the file.
        raise GraphFileError(f"{filename!r} could not be read: {type(exc).__name__}: {exc}") from None


def _read_graph(raw, filename, labels, title, label_attribute=None) -> GraphData:
    nx = require("networkx", "Reading graph files")
    suffix = "." + filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    kind = _FORMATS.get(suffix)
    if kind is None:
        raise GraphFileError(
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
        raise GraphFileError(
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
        raise GraphFileError(
            f"the graph's largest connected component has {graph.number_of_nodes():,} nodes; the limit is "
            f"{MAX_GRAPH_NODES:,} (embedding compares every pair of nodes)"
        )

    names = attributes.get("label") or attributes.get("name") or {}
    chosen = None
    if labels is not None:
        raw_labels = _match_by_name(read_node_labels(labels), graph, names, notes)
    else:
        chosen = _chosen_attribute(attributes, label_attribute, notes)
        raw_labels = attributes.get(chosen, {}) if chosen is not None else {}
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
            raise GraphFileError(
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
            raise GraphFileError(f"every node has the same label ({names[0]!r}); a classifier needs at least two")
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
        label_attributes=tuple(sorted(attributes)),
        label_attribute=chosen,
    )
