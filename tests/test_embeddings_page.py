"""The Embeddings page: embed a built-in or uploaded graph, train the VAE, adopt the results (AppTest, tiny epochs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from curvedtrees.datasets import graph_files
from streamlit.testing.v1 import AppTest

pytest.importorskip("torch")
pytest.importorskip("geoopt")
nx = pytest.importorskip("networkx")

APP = str(Path(__file__).resolve().parent.parent / "app.py")

KARATE = nx.karate_club_graph()
# Karate Club as an edge list with a header, plus a self-loop and an edge given twice (b-a after a-b).
KARATE_EDGES = ("source,target\n" + "".join(f"{u},{v}\n" for u, v in KARATE.edges()) + "0,0\n1,0\n").encode()
# Its factions, plus a label for a node the graph does not have.
KARATE_LABELS = (
    "node,club\n" + "".join(f"{v},{KARATE.nodes[v]['club']}\n" for v in KARATE.nodes) + "99,Mr. Hi\n"
).encode()
GML = b"""graph [
  node [ id 0 label "a" class "x" ]
  node [ id 1 label "b" class "x" ]
  node [ id 2 label "c" class "y" ]
  node [ id 3 label "d" class "y" ]
  node [ id 4 label "alone" class "y" ]
  edge [ source 0 target 1 ]
  edge [ source 1 target 2 ]
  edge [ source 2 target 3 ]
  edge [ source 3 target 0 ]
]
"""


def _open_page():
    """The app, then its Embeddings page (from the entry point, so the page's links resolve)."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception
    at.switch_page("pages/6_Embeddings.py").run()
    assert not at.exception
    return at


def _current_data(at):
    return at.session_state["ct:data"]


def _upload(at, raw: bytes, name: str, labels: bytes | None = None, labels_name: str = "labels.csv"):
    at.file_uploader(key="emb_own_file").set_value((name, raw, "text/plain"))
    if labels is not None:
        at.file_uploader(key="emb_own_labels").set_value((labels_name, labels, "text/csv"))
    at.run()
    assert not at.exception


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _errors(at) -> str:
    return "\n".join(str(e.value) for e in at.error)


def _infos(at) -> str:
    return "\n".join(str(i.value) for i in at.info)


@pytest.mark.slow
def test_embed_a_graph_and_use_it_as_the_current_dataset():
    at = _open_page()
    # The embedding parameters are drawn from the loader's ParamInfo records (ui.forms.param_fields).
    assert at.number_input(key="emb_graph_n_epochs").label == "Epochs"
    at.number_input(key="emb_graph_n_epochs").set_value(50)
    at.button(key="emb_graph_go").click()
    at.run()
    assert not at.exception
    labels = [m.label for m in at.metric]
    assert "Average distortion" in labels and "Mean average precision" in labels
    at.checkbox(key="emb_graph_train").uncheck()
    at.button(key="emb_graph_use").click()
    at.run()
    assert not at.exception
    data = _current_data(at)
    assert data.dataset.name == "karate_club" and len(data.X) == 34
    # The page ran again after adopting: the sidebar names the graph, the note shows once.
    assert "Karate" in "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert any("is now the current dataset" in str(s.value) for s in at.success)
    assert data.recipe["source"] == "builtin" and data.recipe["params"]["n_epochs"] == 50


@pytest.mark.slow
def test_train_the_vae_and_see_its_latents():
    at = _open_page()
    at.number_input(key="emb_vae_n_epochs").set_value(5)
    at.text_input(key="emb_vae_signature").set_value("H2 x E2")
    at.button(key="emb_vae_go").click()
    at.run()
    assert not at.exception
    assert "Held-out ELBO" in [m.label for m in at.metric]
    at.checkbox(key="emb_vae_train").uncheck()
    at.button(key="emb_vae_use").click()
    at.run()
    assert not at.exception
    assert str(_current_data(at).signature) == "H2 x E2"


def test_a_bad_signature_is_explained_and_disables_the_button():
    at = _open_page()
    at.text_input(key="emb_graph_signature").set_value("H2 x Q3")
    at.run()
    assert not at.exception
    assert any("Q3" in e.value for e in at.error)
    assert at.button(key="emb_graph_go").disabled


@pytest.mark.slow
def test_upload_an_edge_list_with_labels_embed_it_and_train_a_forest():
    at = _open_page()
    _upload(at, KARATE_EDGES, "karate.csv", KARATE_LABELS, "clubs.csv")
    assert not at.error
    # The preview: the graph's size after the repairs, and what was repaired.
    metrics = _metrics(at)
    assert metrics["Nodes"] == "34" and metrics["Edges"] == "78"
    notes = _infos(at)
    assert "1 self-loop dropped" in notes and "1 repeated edge dropped" in notes
    assert "(99) ignored" in notes  # the label of a node the graph does not have
    assert any("2 classes" in str(c.value) for c in at.caption)
    at.number_input(key="emb_own_n_epochs").set_value(20)
    at.button(key="emb_own_go").click()
    at.run()
    assert not at.exception and not at.error
    assert "Average distortion" in _metrics(at)
    assert at.get("plotly_chart"), "the embedding picture is drawn"
    assert at.checkbox(key="emb_own_train").value  # a forest is trained unless the user says no
    at.button(key="emb_own_use").click()
    at.run()
    assert not at.exception
    data = _current_data(at)
    assert len(data.X) == 34 and data.title == "karate.csv" and data.class_names == ["Mr. Hi", "Officer"]
    # Uploads are never put into a share link: the recipe says it cannot be rebuilt.
    assert data.recipe["source"] == "upload" and data.recipe["labels"] == "clubs.csv"
    model = at.session_state["ct:model"]
    assert model.recipe["family"] == "product_forest" and model.data_hash == data.hash
    assert any("product random forest trained" in str(s.value) for s in at.success)
    # The forest's regions over the embedded nodes.
    at.switch_page("pages/3_Regions.py").run()
    assert not at.exception and not at.error
    assert at.get("plotly_chart")


@pytest.mark.slow
def test_a_signature_search_ranks_the_candidates_and_makes_link_prediction_data():
    at = _open_page()
    _upload(at, KARATE_EDGES, "karate.csv")  # no labels: link prediction only
    assert "no node labels" in "\n".join(str(c.value) for c in at.caption)
    at.radio(key="emb_own_mode").set_value("The best of several (signature search)")
    at.run()
    at.multiselect(key="emb_own_candidates").set_value(["H2", "E2"])
    at.number_input(key="emb_own_n_epochs").set_value(20)
    at.run()
    at.button(key="emb_own_go").click()
    at.run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert sorted(table["signature"]) == ["E2", "H2"]
    assert list(table["distortion"]) == sorted(table["distortion"])  # best first
    assert at.selectbox(key="emb_own_pick").value == 0
    # Without labels there is nothing to classify: the node dataset is not offered.
    with pytest.raises(KeyError):
        at.button(key="emb_own_use")
    at.checkbox(key="emb_own_links_train").uncheck()
    at.button(key="emb_own_links").click()
    at.run()
    assert not at.exception and not at.error
    data = _current_data(at)
    assert data.dataset.task == "link_prediction" and data.recipe["kind"] == "links"
    assert str(data.signature).endswith("x E1") and set(data.y) == {0, 1}


def test_a_gml_file_with_class_attributes_and_an_isolated_node():
    at = _open_page()
    _upload(at, GML, "square.gml")
    assert not at.error
    metrics = _metrics(at)
    assert metrics["Nodes"] == "4" and metrics["Edges"] == "4"
    notes = _infos(at)
    assert "node attribute 'class'" in notes
    assert "largest connected component was kept: 4 of 5 nodes" in notes
    assert any("2 classes" in str(c.value) for c in at.caption)


@pytest.mark.slow
def test_the_label_attribute_is_picked_and_names_match_a_labels_file():
    at = _open_page()
    _upload(at, GML, "square.gml")
    picker = next(s for s in at.selectbox if s.label == "Node attribute used as the label")
    assert picker.value == "class" and "label" in picker.options
    picker.set_value("label").run()  # every node its own name: four classes
    assert not at.exception and not at.error
    assert any("4 classes" in str(c.value) for c in at.caption)
    assert "node attribute 'label'" in _infos(at)
    # A labels file keyed by the nodes' names (networkx's own `label`), not their ids.
    _upload(at, GML, "square.gml", b"node,label\na,red\nb,red\nc,blue\nd,blue\n")
    assert not at.error, _errors(at)
    assert "matched by name" in _infos(at) and any("2 classes" in str(c.value) for c in at.caption)


@pytest.mark.parametrize(
    "files, expected",
    [
        ((b"", "empty.csv"), "the graph file is empty"),
        ((b"\n\n  \n", "blank.csv"), "the graph file is empty"),
        ((b"a,b\n", "one.csv"), "the graph has 1 edge between distinct nodes"),
        ((b"a,a\nb,b\nc,c\n", "loops.csv"), "the graph has 0 edges between distinct nodes"),
        ((b"1,2\n2,3\n4\n", "lonely.csv"), "row 3 has 1 value (a node without edges"),
        ((b"<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a 'b'>]><graphml/>", "bomb.graphml"), "declares a DTD"),
        (
            (b"1,2\n2,3\n3,1\n", "g.csv", b"node,label\n7,a\n8,b\n"),
            "3 of 3 nodes have no label (1, 2, 3), and the labels name 2 nodes the graph does not have (7, 8)",
        ),
        ((b"1,2\n2,3\n3,1\n", "g.csv", b"1,a\n2,a\n3,a\n"), "every node has the same label"),
        ((b"1,2\n2,3\n3,1\n", "g.csv", b"1,a\n2\n3,b\n"), "row 2 has no label"),
    ],
    ids=[
        "empty",
        "blank",
        "one-edge",
        "only-self-loops",
        "lone-node",
        "dtd",
        "labels-for-unknown-nodes",
        "one-class",
        "label-missing",
    ],
)
def test_bad_graph_files_are_explained(files, expected):
    at = _open_page()
    _upload(at, files[0], files[1], files[2] if len(files) > 2 else None)
    errors = _errors(at)
    assert expected in errors, errors
    assert f"`{files[1]}`" in errors  # the message names the file
    with pytest.raises(KeyError):  # nothing to embed
        at.button(key="emb_own_go")


@pytest.mark.parametrize(
    "limit, value, expected",
    [
        ("MAX_GRAPH_NODES", 20, "largest connected component has 34 nodes; the limit is 20"),
        ("MAX_GRAPH_EDGES", 40, "more than 40 rows; the limit is 40"),
        ("MAX_GRAPH_BYTES", 100, "bytes; the limit is 100"),
    ],
)
def test_graphs_over_the_limits_are_refused_with_the_limit(monkeypatch, limit, value, expected):
    monkeypatch.setattr(graph_files, limit, value)
    at = _open_page()
    _upload(at, KARATE_EDGES, "karate.csv")
    assert expected in _errors(at)
    # The page states the limits it applies.
    stated = {
        "MAX_GRAPH_NODES": f"**{value:,} nodes**",
        "MAX_GRAPH_EDGES": f"**{value:,} edges**",
        "MAX_GRAPH_BYTES": f"**{value / 2**20:g} MB**",
    }[limit]
    assert stated in "\n".join(str(m.value) for m in at.markdown)


def test_a_new_upload_replaces_the_old_one_and_removing_it_clears_the_tab():
    at = _open_page()
    _upload(at, b"1,2\n", "one.csv")
    assert "1 edge" in _errors(at)
    _upload(at, b"1,2\n2,3\n3,1\n", "triangle.csv")
    assert not at.error and _metrics(at)["Nodes"] == "3"
    assert not any("Each epoch compares" in str(c.value) for c in at.caption)  # a small graph needs no warning
    at.file_uploader(key="emb_own_file").set_value(None)
    at.run()
    assert not at.exception and "Nodes" not in _metrics(at)
    assert "ct:emb_own" not in at.session_state  # the graph is forgotten with its file


def test_a_large_graph_comes_with_a_word_on_time():
    at = _open_page()
    ring = b"".join(f"{k},{(k + 1) % 600}\n".encode() for k in range(600))
    _upload(at, ring, "ring.csv")
    assert not at.error and _metrics(at)["Nodes"] == "600"
    assert any("Each epoch compares all 179,700 pairs" in str(c.value) for c in at.caption)
