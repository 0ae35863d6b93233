"""The Compare and Benchmarks pages, driven through Streamlit's AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import curvedtrees.benchmarks.stored as stored
import pytest
from curvedtrees.benchmarks import get_models, run_benchmark
from curvedtrees.benchmarks.datasets import gaussian_mixture
from curvedtrees.benchmarks.report import write_report
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def start(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_compare_page_runs_models_on_a_mixture():
    at = start("pages/7_Compare.py")
    at.radio(key="cmp_source").set_value("mixture").run()
    at.text_input(key="cmp_signature").set_value("H2 x E2").run()
    at.select_slider(key="cmp_n_samples").set_value(200).run()
    at.multiselect(key="cmp_models").set_value(["knn", "ambient_dt", "product_dt", "product_rf"])
    at.slider(key="cmp_trials").set_value(3)
    at.button[0].click().run()  # the form's submit button
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    assert list(table["model"]) == ["k-NN", "Ambient DT", "Product DT", "Product RF"]
    assert all(" ± " in score for score in table["score"])
    figures = charts(at)
    assert len(figures) == 2
    bars = figures[0]["data"][0]
    assert bars["type"] == "bar" and bars["error_y"]["visible"]
    result = at.session_state["ct:compare_result"]["results"]
    assert result["trial"].nunique() == 3 and set(result["signature"]) == {"H2 x E2"}


def test_compare_page_on_the_current_dataset_and_bad_input():
    at = start("pages/7_Compare.py")
    assert "On **" in markdown(at)
    at.multiselect(key="cmp_models").set_value(["ambient_dt", "product_dt"])
    at.slider(key="cmp_trials").set_value(2)
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value) == 2
    at.radio(key="cmp_source").set_value("mixture").run()
    at.text_input(key="cmp_signature").set_value("Q7 x").run()
    assert any("Signature" in e.value for e in at.error)


@pytest.fixture
def stored_run(tmp_path, monkeypatch):
    datasets = [gaussian_mixture(s, "classification", section="Synthetic (multi-K)", n_samples=120) for s in ("H4",)]
    results = run_benchmark(datasets, get_models(["knn", "ambient_rf", "product_rf"]), n_trials=3)
    results.attrs["wall_seconds"] = 1.5
    write_report(results, tmp_path, "multi-curvature", "a tiny stand-in for the stored preset")
    monkeypatch.setattr(stored, "RESULTS_DIR", tmp_path)
    return tmp_path


def test_benchmarks_page_shows_stored_runs_beside_the_paper(stored_run):
    at = start("pages/8_Benchmarks.py")
    assert not at.error, [e.value for e in at.error]
    text = markdown(at)
    assert "| Section | Dataset | Task | Signature | k-NN | Ambient RF | Product RF |" in text
    # H4 classification is a row of Table 5: the comparison shows the paper's 47.5 for k-NN.
    assert "47.5 ± .5" in text
    figures = charts(at)
    assert [t["name"] for t in figures[0]["data"]] == ["this run", "paper (Table 5)"]


def test_benchmarks_page_reruns_a_small_preset(stored_run):
    at = start("pages/8_Benchmarks.py")
    at.selectbox(key="bench_preset").set_value("tiny").run()
    at.slider(key="bench_trials").set_value(1)
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    rerun = at.session_state["ct:bench_rerun"]["results"]
    assert rerun["trial"].nunique() == 1 and set(rerun["section"]) == {"Tiny"}
    assert "Rerun: tiny" in "\n".join(s.value for s in at.subheader)
