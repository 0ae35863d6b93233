"""The Embeddings page: embed a graph, train the VAE, adopt the results (Streamlit AppTest, tiny epochs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

pytest.importorskip("torch")
pytest.importorskip("geoopt")

APP = str(Path(__file__).resolve().parent.parent / "app.py")

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
