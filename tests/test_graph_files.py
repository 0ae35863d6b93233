"""Uploaded graphs: edge lists, GML and GraphML, labels, and every way a file can be wrong."""

from __future__ import annotations

import numpy as np
import pytest
from curvedtrees.datasets import graph_files, load_graph_embedding, load_link_prediction, read_graph, read_node_labels

TRIANGLE_AND_TAIL = b"1,2\n2,3\n3,1\n3,4\n"


@pytest.mark.parametrize(
    "raw, name",
    [
        (b"source,target\n1,2\n2,3\n3,1\n3,4\n", "edges.csv"),
        (b"1\t2\n2\t3\n3\t1\n3\t4\n", "edges.tsv"),
        (b"# a comment\n1 2\n2  3\n3 1\n3 4\n", "edges.txt"),
        (b"1;2\n2;3\n3;1\n3;4\n", "edges.csv"),
    ],
)
def test_edge_lists_in_every_separator_give_the_same_graph(raw, name):
    data = read_graph(raw, name)
    assert sorted(data.graph.nodes) == [1, 2, 3, 4]
    assert data.graph.number_of_edges() == 4
    assert data.y is None and data.task == "link_prediction"


def test_string_node_ids_and_a_labels_file():
    edges = b"alice,bob\nbob,carol\ncarol,alice\ncarol,dave\n"
    labels = b"node,label\nalice,red\nbob,red\ncarol,blue\ndave,blue\nzoe,red\n"
    data = read_graph(edges, "friends.csv", labels=labels)
    assert data.task == "classification" and data.target_names == ("red", "blue")
    assert data.y == {"alice": 0, "bob": 0, "carol": 1, "dave": 1}
    assert any("'zoe'" in note and "ignored" in note for note in data.notes)


def test_numeric_labels_with_fractions_make_a_regression():
    edges = b"".join(f"{k},{k + 1}\n".encode() for k in range(15))
    labels = b"".join(f"{k},{k * 0.37:.3f}\n".encode() for k in range(16))
    data = read_graph(edges, "path.csv", labels=labels)
    assert data.task == "regression" and data.target_names is None
    assert data.y[3] == pytest.approx(1.11)


def test_repairs_are_said_in_the_notes():
    raw = b"1,2\n2,1\n1,2\n2,3\n3,3\n3,4\n10,11\n"
    data = read_graph(raw, "messy.csv")
    notes = " ".join(data.notes)
    assert "1 self-loop dropped" in notes
    assert "2 repeated edges dropped" in notes
    assert "largest connected component was kept: 4 of 6 nodes" in notes
    assert sorted(data.graph.nodes) == [1, 2, 3, 4]


GML = b"""graph [
  node [ id 0 label "a" club "x" ]
  node [ id 1 label "b" club "x" ]
  node [ id 2 label "c" club "y" ]
  node [ id 3 label "d" club "y" ]
  node [ id 4 label "alone" club "y" ]
  edge [ source 0 target 1 ]
  edge [ source 1 target 2 ]
  edge [ source 2 target 3 ]
]
"""

GRAPHML = b"""<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="c" for="node" attr.name="class" attr.type="string"/>
  <graph edgedefault="directed">
    <node id="n0"><data key="c">A</data></node>
    <node id="n1"><data key="c">A</data></node>
    <node id="n2"><data key="c">B</data></node>
    <edge source="n0" target="n1"/>
    <edge source="n1" target="n2"/>
  </graph>
</graphml>
"""


def test_gml_labels_come_from_a_node_attribute_and_isolated_nodes_are_dropped():
    data = read_graph(GML, "club.gml")
    assert data.graph.number_of_nodes() == 4
    assert data.task == "classification" and set(data.y.values()) == {0, 1}
    notes = " ".join(data.notes)
    assert "'club'" in notes and "largest connected component" in notes


def test_graphml_is_read_undirected():
    data = read_graph(GRAPHML, "g.graphml")
    assert data.graph.number_of_edges() == 2
    assert any("directed" in note for note in data.notes)
    assert data.y == {"n0": 0, "n1": 0, "n2": 1}


def test_xml_entities_are_refused_before_parsing():
    bomb = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<graphml><graph><node id="&lol2;"/></graph></graphml>"""
    with pytest.raises(ValueError, match="DTD or entities"):
        read_graph(bomb, "bomb.graphml")


@pytest.mark.parametrize(
    "raw, name, message",
    [
        (b"", "empty.csv", "is empty"),
        (b"   \n\n", "blank.csv", "is empty"),
        (b"1,2\n", "one.csv", "1 edge between distinct nodes; an embedding needs at least 2 edges"),
        (b"1,1\n2,2\n", "loops.csv", "0 edges between distinct nodes"),
        (b"1,2\n3\n", "short.csv", "row 2 has 1 value"),
        (b"source,target\n", "header.csv", "no edges"),
        (TRIANGLE_AND_TAIL, "edges.json", "unknown graph format .json"),
        (b"graph [ node [ id 0 ] edge [ source 0 target ", "broken.gml", "GML file could not be read"),
        (b"<graphml><graph><node", "broken.graphml", "GRAPHML file could not be read"),
    ],
)
def test_bad_files_name_the_problem(raw, name, message):
    with pytest.raises(ValueError, match=message):
        read_graph(raw, name)


def test_labels_must_cover_every_node_and_differ():
    with pytest.raises(ValueError, match="1 of 4 nodes have no label"):
        read_graph(TRIANGLE_AND_TAIL, "e.csv", labels=b"1,a\n2,a\n3,b\n")
    with pytest.raises(ValueError, match="same label"):
        read_graph(TRIANGLE_AND_TAIL, "e.csv", labels=b"1,a\n2,a\n3,a\n4,a\n")
    with pytest.raises(ValueError, match="two labels"):
        read_node_labels(b"1,a\n1,b\n")
    with pytest.raises(ValueError, match="row 2 has no label"):
        read_node_labels(b"1,a\n2\n")


def test_sizes_are_bounded_before_parsing(monkeypatch):
    monkeypatch.setattr(graph_files, "MAX_GRAPH_BYTES", 100)
    with pytest.raises(ValueError, match="the limit is 100"):
        read_graph(b"1,2\n" * 40, "big.csv")
    monkeypatch.setattr(graph_files, "MAX_GRAPH_BYTES", 10**6)
    monkeypatch.setattr(graph_files, "MAX_GRAPH_EDGES", 10)
    with pytest.raises(ValueError, match="more than 10 rows"):
        read_graph(b"".join(f"{k},{k + 1}\n".encode() for k in range(20)), "long.csv")
    monkeypatch.setattr(graph_files, "MAX_GRAPH_NODES", 5)
    with pytest.raises(ValueError, match="8 nodes; the limit is 5"):
        read_graph(b"".join(f"{k},{k + 1}\n".encode() for k in range(7)), "path.csv")


def test_an_uploaded_graph_embeds_like_a_bundled_one():
    pytest.importorskip("torch")
    pytest.importorskip("geoopt")
    edges = b"".join(f"{k},{(k + 1) % 12}\n".encode() for k in range(12))
    labels = b"".join(f"{k},{'even' if k % 2 == 0 else 'odd'}\n".encode() for k in range(12))
    data = read_graph(edges, "ring.csv", labels=labels)
    nodes = load_graph_embedding(data, "S1", n_epochs=20, random_state=0)
    assert nodes.X.shape == (12, 2) and nodes.name == "uploaded_graph"
    np.testing.assert_allclose(np.linalg.norm(nodes.X, axis=1), np.linalg.norm(nodes.X[0]), rtol=1e-9)
    links = load_link_prediction(read_graph(edges, "ring.csv"), "E2", n_epochs=20, random_state=0)
    assert links.task == "link_prediction" and links.y.sum() > 0
    with pytest.raises(ValueError, match="no node labels"):
        load_graph_embedding(read_graph(edges, "ring.csv"), "E2", n_epochs=20)


def test_a_lone_node_row_is_explained():
    with pytest.raises(ValueError, match=r"row 3 has 1 value \(a node without edges"):
        read_graph(b"1,2\n2,3\n5,\n", "g.csv")


def test_labels_for_unknown_nodes_are_named_in_the_refusal():
    with pytest.raises(ValueError, match=r"the labels name 2 nodes the graph does not have \(7, 8\)"):
        read_graph(b"1,2\n2,3\n3,1\n", "g.csv", labels=b"7,a\n8,b\n")


# ------------------------------------------------------------------ labels by name, and which attribute is the label
NAMED_GML = b"""graph [
  node [ id 0 label "Alice" club "x" role "lead" ]
  node [ id 1 label "Bob" club "x" role "member" ]
  node [ id 2 label "Carol" club "y" role "member" ]
  node [ id 3 label "Dan" club "y" role "lead" ]
  edge [ source 0 target 1 ]
  edge [ source 1 target 2 ]
  edge [ source 2 target 3 ]
]
"""


def test_a_labels_file_keyed_by_node_names_matches_by_label_when_ids_do_not():
    labels = b"node,label\nAlice,red\nBob,red\nCarol,blue\nDan,blue\n"
    data = read_graph(NAMED_GML, "people.gml", labels=labels)
    assert data.task == "classification" and data.target_names == ("red", "blue")
    assert data.y == {0: 0, 1: 0, 2: 1, 3: 1}  # nodes stay named by id; the labels found them by name
    assert any("matched by name" in note for note in data.notes)
    # Ids still win when they match: a file keyed by ids is read as before.
    by_id = read_graph(NAMED_GML, "people.gml", labels=b"0,red\n1,red\n2,blue\n3,blue\n")
    assert by_id.y == data.y and not any("matched by name" in note for note in by_id.notes)
    # A name two nodes share names neither: those nodes are unlabelled, and the refusal says so.
    twins = NAMED_GML.replace(b'label "Dan"', b'label "Carol"')
    with pytest.raises(graph_files.GraphFileError, match="have no label"):
        read_graph(twins, "people.gml", labels=labels)


def test_the_label_attribute_is_chosen_among_the_nodes_own_attributes():
    auto = read_graph(NAMED_GML, "people.gml")
    assert auto.label_attributes == ("club", "label", "role") and auto.label_attribute == "club"
    role = read_graph(NAMED_GML, "people.gml", label_attribute="role")
    assert role.label_attribute == "role" and role.target_names == ("lead", "member")
    assert role.y == {0: 0, 1: 1, 2: 1, 3: 0}
    none = read_graph(NAMED_GML, "people.gml", label_attribute="")
    assert none.y is None and none.task == "link_prediction"
    with pytest.raises(graph_files.GraphFileError, match=r"no attribute 'colour'.*'club', 'label', 'role'"):
        read_graph(NAMED_GML, "people.gml", label_attribute="colour")


def test_label_attributes_offered_are_bounded(monkeypatch):
    monkeypatch.setattr(graph_files, "MAX_GRAPH_LABEL_ATTRIBUTES", 2)
    data = read_graph(NAMED_GML, "people.gml")
    assert len(data.label_attributes) == 2
