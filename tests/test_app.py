"""The explorer app driven through Streamlit's AppTest: every page, widgets, uploads, model files, links."""

from __future__ import annotations

import io
import json
import pickle

import numpy as np
import pytest
from conftest import assert_clean, charts, errors, param, start, text, trace_types
from curvedtrees import io as model_io
from curvedtrees.sampling import make_classification
from curvedtrees.trees import ProductDecisionTreeClassifier
from streamlit.testing.v1 import AppTest

from ui.uploads import MAX_UPLOAD_BYTES

PAGES = ["pages/1_Data.py", "pages/2_Train.py", "pages/3_Regions.py", "pages/4_Inspector.py"]


def picture_box(at: AppTest):
    return next(s for s in at.selectbox if s.label == "Picture")


def data(at: AppTest):
    return at.session_state["ct:data"]


def model(at: AppTest):
    return at.session_state["ct:model"]


def upload(at: AppTest, key: str, name: str, payload: bytes, mime: str = "text/csv") -> AppTest:
    at.file_uploader(key=key).set_value((name, payload, mime))
    at.run()
    assert_clean(at)
    return at


def h2_csv(n=60, seed=0, columns=("x0", "x1", "x2")) -> tuple[bytes, np.ndarray]:
    X, y = make_classification("H2", n_samples=n, n_classes=3, n_clusters=3, cov_scale=0.3, random_state=seed)
    lines = [",".join([*columns, "label"])]
    lines += [",".join([f"{v:.17g}" for v in row] + [f"c{label}"]) for row, label in zip(X, y)]
    return ("\n".join(lines) + "\n").encode(), X


# ------------------------------------------------------------------- home
def test_home_opens_on_a_trained_default_demo_with_regions_on_the_poincare_disk():
    at = start()
    assert str(data(at).signature) == "H2" and model(at) is not None
    (spec,) = charts(at)
    assert "heatmap" in trace_types(spec) and any(t.get("name") == "split boundary" for t in spec["data"])
    assert "Poincaré disk" in spec["layout"]["title"]["text"]
    assert "accuracy" in text(at)
    assert json.loads(param(at, "data"))["signature"] == "H2"
    assert param(at, "view") == "disk:0:1-2:poincare"


@pytest.mark.parametrize(
    ("demo", "kind", "signature"),
    [("sphere", "surface", "S2"), ("torus", "surface", "S1 x S1"), ("product", "heatmap", "H2 x S2 x E2")],
)
def test_demo_buttons_load_data_train_and_draw(demo, kind, signature):
    at = start()
    at.button(key=f"demo_{demo}").click().run()
    assert_clean(at)
    assert str(data(at).signature) == signature and model(at).data_hash == data(at).hash
    assert kind in trace_types(charts(at)[0])


def test_every_page_runs_and_dataset_and_model_survive_page_switches():
    at = start()
    first = (data(at).hash, model(at).model_id)
    for page in PAGES:
        at.switch_page(page).run()
        assert_clean(at)
        assert not errors(at), page
        assert (data(at).hash, model(at).model_id) == first
        assert charts(at), page


def test_sidebar_reset_goes_back_to_the_default_demo():
    at = start()
    at.button(key="demo_torus").click().run()
    assert_clean(at)
    # The torus must really be loaded, or the reset below would prove nothing.
    assert str(data(at).signature) == "S1 x S1" and model(at).data_hash == data(at).hash
    assert "mesh3d" in trace_types(charts(at)[0])
    at.button(key="sidebar_reset").click().run()
    assert_clean(at)
    assert str(data(at).signature) == "H2" and model(at).data_hash == data(at).hash
    assert "heatmap" in trace_types(charts(at)[0])


# ----------------------------------------------------------------- regions
def test_regions_widgets_change_the_picture_and_the_url():
    at = start()
    at.button(key="demo_product").click().run()
    at.switch_page("pages/3_Regions.py").run()
    assert_clean(at)
    views = picture_box(at)
    sphere = next(i for i, label in enumerate(views.options) if "sphere" in label)
    views.set_value(views.options[sphere]).run()
    assert "mesh3d" in trace_types(charts(at)[0])
    assert param(at, "view").startswith("sphere:1")
    views = picture_box(at)
    views.set_value(views.options[0]).run()
    at.toggle(key="regions_klein").set_value(True).run()
    assert param(at, "view").endswith(":klein") and "Klein disk" in charts(at)[0]["layout"]["title"]["text"]
    at.slider(key="regions_res").set_value(60).run()
    heat = next(t for t in charts(at)[0]["data"] if t.get("type") == "heatmap")
    assert heat["z"]["shape"].replace(" ", "") == "240,240"  # 60 cells a side, 4 pixels a cell (smooth edges)
    at.radio(key="regions_ref").set_value("mean").run()
    assert "data's mean" in text(at) and param(at, "ref") == "mean"
    at.radio(key="regions_ref").set_value("point").run()
    at.number_input(key="regions_row").set_value(5).run()
    assert "data row 5" in text(at)
    at.toggle(key="regions_bounds").set_value(False).run()
    assert not any(t.get("name") == "split boundary" for t in charts(at)[0]["data"])
    assert_clean(at)


# -------------------------------------------------------------------- data
def test_signature_box_reports_parse_errors_inline_and_generates_mixtures():
    at = start("pages/1_Data.py")
    at.text_input(key="syn_signature").input("H2 x Q3").run()
    assert any("cannot read the factor" in e for e in errors(at))
    assert at.button(key="syn_go").disabled
    at.text_input(key="syn_signature").input("S2 x S1").run()
    assert not errors(at)
    at.number_input(key="syn_n").set_value(200).run()
    at.button(key="syn_go").click().run()
    assert_clean(at)
    assert str(data(at).signature) == "S2 x S1" and len(data(at).X) == 200
    assert model(at) is not None and model(at).data_hash == data(at).hash
    # The page drew itself again after loading: the sidebar names the new data.
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert "Mixture on S2 x S1" in sidebar and "Poincaré" not in sidebar
    assert any(str(s.value).startswith("Loaded **Mixture on S2 x S1**") for s in at.success)
    # The preview draws the points only, and says so without claiming there is no model.
    captions = "\n".join(str(c.value) for c in at.caption)
    assert "The points alone" in captions and "No model yet" not in captions and "held at" not in captions


def test_regression_mixture_and_builtin_dataset():
    at = start("pages/1_Data.py")
    at.radio(key="syn_task").set_value("regression").run()
    at.button(key="syn_go").click().run()
    assert_clean(at)
    assert data(at).task == "regression" and "r2" in model(at).metrics
    pick = at.selectbox(key="builtin_pick")
    el_nino = next(o for o in pick.options if o.startswith("El Nino"))
    pick.set_value(el_nino).run()
    at.button(key="builtin_go").click().run()
    assert_clean(at)
    assert not errors(at) and data(at).recipe["name"] == "el_nino"


def test_good_csv_upload_is_validated_and_used():
    payload, X = h2_csv()
    at = upload(start("pages/1_Data.py"), "up_file", "points.csv", payload)
    page = text(at)
    assert "Validation report" in page and "every row is on the manifold" in page
    at.button(key="up_use").click().run()
    assert_clean(at)
    assert data(at).recipe["source"] == "upload" and np.allclose(data(at).X, X)
    assert sorted(data(at).class_names) == ["c0", "c1", "c2"] and model(at) is not None


def test_off_manifold_rows_are_explained_and_projected_in_one_click():
    payload, X = h2_csv()
    lines = payload.decode().splitlines()
    for row in (3, 7):  # x0 off by 30 %
        cells = lines[row + 1].split(",")
        cells[0] = repr(float(cells[0]) * 1.3)
        lines[row + 1] = ",".join(cells)
    at = upload(start("pages/1_Data.py"), "up_file", "off.csv", ("\n".join(lines) + "\n").encode())
    page = text(at)
    assert "2 rows off the hyperboloid" in page and "largest relative error" in page and "rows 3, 7" in page
    assert not any(b.key == "up_use" for b in at.button)
    at.button(key="up_project").click().run()
    assert_clean(at)
    assert "2 rows were projected" in text(at)
    at.button(key="up_use").click().run()
    assert data(at).recipe["source"] == "upload" and len(data(at).X) == len(X)


def test_nan_rows_are_reported_and_can_be_dropped():
    payload, X = h2_csv()
    lines = payload.decode().splitlines()
    cells = lines[5].split(",")
    cells[1] = ""
    lines[5] = ",".join(cells)
    at = upload(start("pages/1_Data.py"), "up_file", "nan.csv", ("\n".join(lines) + "\n").encode())
    assert "1 row with a missing, NaN or infinite coordinate (row 4)" in text(at)
    at.button(key="up_drop").click().run()
    assert "1 row with problems was dropped" in text(at)
    at.button(key="up_use").click().run()
    assert_clean(at)
    assert len(data(at).X) == len(X) - 1


def test_wrong_columns_give_reasons_not_tracebacks():
    at = start("pages/1_Data.py")
    # Text in a coordinate column.
    payload = b"x0,x1,x2,label\n1,0,0,a\nabc,0,0,b\n" + b"1,0,0,a\n" * 12
    upload(at, "up_file", "text.csv", payload)
    assert "1 non-numeric entry (row 1)" in text(at) and "'abc'" in text(at)
    # Too few columns for the signature: the mapping cannot be completed.
    at.text_input(key="up_signature").input("H2 x S2").run()
    assert_clean(at)
    assert any("needs 2 columns" in e for e in errors(at))
    # A ragged table.
    upload(at, "up_file", "ragged.csv", b"a,b\n1,2\n3,4,5,6\n")
    assert any("could not be read" in e for e in errors(at))


def test_pickles_disguised_as_numpy_are_refused():
    at = start("pages/1_Data.py")
    upload(at, "up_file", "evil.npy", pickle.dumps({"x": 1}), "application/octet-stream")
    assert any("pickle" in e for e in errors(at))
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    upload(at, "up_file", "objects.npy", buffer.getvalue(), "application/octet-stream")
    assert any("pickle" in e for e in errors(at))
    assert str(data(at).signature) == "H2"  # the current dataset is untouched


def test_npz_upload_with_x_and_y_arrays():
    X, y = make_classification("S2", n_samples=50, n_classes=2, n_clusters=2, random_state=0)
    buffer = io.BytesIO()
    np.savez(buffer, X=X, y=y)
    at = start("pages/1_Data.py")
    at.text_input(key="up_signature").input("S2").run()
    upload(at, "up_file", "sphere.npz", buffer.getvalue(), "application/octet-stream")
    assert "every row is on the manifold" in text(at)
    at.button(key="up_use").click().run()
    assert np.allclose(data(at).X, X)


def test_oversized_files_are_refused_with_the_limit():
    at = start("pages/1_Data.py")
    upload(at, "up_file", "big.csv", b"x" * (MAX_UPLOAD_BYTES + 1))
    assert any("limit is 25 MB" in e for e in errors(at))


# ------------------------------------------------------------------- train
def test_training_a_forest_reports_metrics_and_the_inspector_picks_a_tree():
    at = start("pages/2_Train.py")
    at.selectbox(key="train_family").set_value("product_forest").run()
    # Form widgets take effect when the form is submitted.
    at.number_input(key="train_product_forest_n_estimators").set_value(6)
    at.number_input(key="train_product_forest_max_depth").set_value(4)
    at.button(key="FormSubmitter:train_form-Train").click().run()
    assert_clean(at)
    assert len(model(at).estimator.estimators_) == 6 and "f1_macro" in model(at).metrics
    assert "F1 (macro)" in "".join(str(t.value) for t in at.table)
    at.switch_page("pages/4_Inspector.py").run()
    assert_clean(at)
    at.number_input(key="insp_tree").set_value(3).run()
    assert_clean(at)
    assert len(charts(at)) == 3  # the diagram, the node's class fractions, the picture


def test_baseline_model_regions_draw_without_boundaries_and_inspector_offers_a_tree():
    at = start("pages/2_Train.py")
    at.selectbox(key="train_family").set_value("knn").run()
    at.button(key="FormSubmitter:train_form-Train").click().run()
    assert_clean(at)
    at.switch_page("pages/3_Regions.py").run()
    assert_clean(at)
    spec = charts(at)[0]
    assert "heatmap" in trace_types(spec) and not any(t.get("name") == "split boundary" for t in spec["data"])
    at.switch_page("pages/4_Inspector.py").run()
    at.button(key="insp_train").click().run()
    assert_clean(at)
    assert hasattr(model(at).estimator, "tree_")


def test_the_sidebar_names_the_model_just_trained():
    # The sidebar is drawn before the Train button's run trains; the page draws itself
    # again so that the sidebar names the new model, and the training time shows once.
    at = start("pages/2_Train.py")
    at.selectbox(key="train_family").set_value("klein").run()
    at.button(key="FormSubmitter:train_form-Train").click().run()
    assert_clean(at)
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert type(model(at).estimator).__name__ == "KleinTreeClassifier"
    assert "Klein-model wrapper" in sidebar and "Product decision tree" not in sidebar
    assert any(str(s.value).startswith("Trained in") for s in at.success)
    at.run()
    assert not any(str(s.value).startswith("Trained in") for s in at.success)


def test_model_json_round_trip_through_download_and_upload():
    at = start("pages/2_Train.py")
    assert any(b.label.startswith("Download the model") for b in at.get("download_button"))
    trained = model(at).estimator
    upload(at, "train_upload", "model.json", model_io.dumps(trained).encode(), "application/json")
    loaded = model(at)
    assert loaded.source == "uploaded" and loaded.model_id != ""
    X = data(at).X
    assert np.array_equal(loaded.estimator.predict_proba(X), trained.predict_proba(X))
    assert "accuracy" in loaded.metrics


@pytest.mark.parametrize(
    ("family", "estimator", "cls"),
    [
        ("svm", None, "ProductSVMClassifier"),
        ("klein", "gradient_boosting", "KleinTreeClassifier"),
        ("klein", "hist_gradient_boosting", "KleinTreeClassifier"),
    ],
)
def test_svm_and_sklearn_boosting_models_download_and_load_back(family, estimator, cls):
    at = start("pages/2_Train.py")
    at.selectbox(key="train_family").set_value(family).run()
    if estimator is not None:
        at.selectbox(key="train_klein_estimator").set_value(estimator)
    at.button(key="FormSubmitter:train_form-Train").click().run()
    assert_clean(at)
    trained = model(at).estimator
    assert type(trained).__name__ == cls and getattr(trained, "estimator", None) == estimator
    assert "cannot be saved" not in text(at)
    assert any(b.label.startswith("Download the model") for b in at.get("download_button"))
    saved = at.session_state["ct:model_json"][model(at).model_id]
    upload(at, "train_upload", "model.json", saved.encode(), "application/json")
    loaded = model(at)
    assert loaded.source == "uploaded" and type(loaded.estimator).__name__ == cls
    X = data(at).X
    assert np.array_equal(loaded.estimator.predict(X), trained.predict(X))


def test_malformed_or_mismatched_model_files_are_rejected_with_a_message():
    at = start("pages/2_Train.py")
    before = model(at).model_id
    upload(at, "train_upload", "broken.json", b"{not json", "application/json")
    assert any("not valid JSON" in e for e in errors(at))
    X, y = make_classification("S2", n_samples=40, n_classes=2, n_clusters=2, random_state=0)
    other = ProductDecisionTreeClassifier(signature="S2", max_depth=2).fit(X, y)
    upload(at, "train_upload", "s2.json", model_io.dumps(other).encode(), "application/json")
    assert any("trained on S2" in e for e in errors(at))
    document = json.loads(model_io.dumps(model(at).estimator))
    document["fitted"]["tree"]["children_left"] = "oops" if "tree" in document["fitted"] else None
    document["format"] = "something-else"
    upload(at, "train_upload", "tampered.json", json.dumps(document).encode(), "application/json")
    assert any("not a model document" in e for e in errors(at))
    assert model(at).model_id == before


# --------------------------------------------------------------- inspector
def test_inspector_replays_splits_selects_nodes_and_explains_a_point():
    at = start("pages/4_Inspector.py")
    n_splits = at.slider(key="insp_k").max
    at.slider(key="insp_k").set_value(1).run()
    assert_clean(at)
    diagram, _, picture = charts(at)  # the diagram, the node's class fractions, the picture
    assert any(t.get("name") == "newest split" for t in diagram["data"])
    assert any(t.get("name") == "newest split" for t in picture["data"])
    nodes = next(t for t in diagram["data"] if t.get("name") == "nodes")
    assert len(nodes["x"]) == 3 if isinstance(nodes["x"], list) else True
    at.slider(key="insp_k").set_value(n_splits).run()
    node_box = next(s for s in at.selectbox if s.label == "Node")
    node_box.set_value(node_box.options[1]).run()
    assert_clean(at)
    assert "Node " in text(at)
    at.toggle(key="insp_explain").set_value(True).run()
    at.number_input(key="insp_row").set_value(4).run()
    assert_clean(at)
    page = text(at)
    assert "Path of row 4" in page and "this point:" in page and ("-> left" in page or "-> right" in page)
    assert f"(label `{at.session_state['ct:data'].label_of(4)}`)" in page  # the class's name from the data
    assert any(t.get("name") == "explained point" for t in charts(at)[-1]["data"])  # the picture


# ------------------------------------------------------------------- links
def test_a_shared_link_rebuilds_the_dataset_model_and_view():
    recipe = {
        "source": "synthetic",
        "signature": "S2",
        "n_samples": 150,
        "n_classes": 3,
        "task": "classification",
        "seed": 2,
        "n_clusters": 6,
        "cov_scale": 0.3,
    }
    model_recipe = {"family": "product_tree", "params": {"max_depth": 3}, "test_size": 0.25, "seed": 1}
    at = start(
        query={
            "data": json.dumps(recipe),
            "model": json.dumps(model_recipe),
            "view": "sphere:0:0-1-2:poincare",
            "res": "50",
        }
    )
    assert str(data(at).signature) == "S2" and model(at).estimator.get_depth() <= 3
    mesh = next(t for t in charts(at)[0]["data"] if t.get("type") == "mesh3d")
    assert len(mesh["intensity"]["bdata"]) > 0


def test_a_broken_link_falls_back_to_the_demo_with_a_warning():
    at = start(query={"data": '{"source": "synthetic", "signature": "Q7"}'})
    assert any("could not be rebuilt" in w.value for w in at.warning)
    assert str(data(at).signature) == "H2"


def test_higher_dimensional_components_are_shown_through_a_chosen_slice():
    at = start("pages/1_Data.py")
    at.text_input(key="syn_signature").input("H3 x S3").run()
    at.number_input(key="syn_n").set_value(200).run()
    at.button(key="syn_go").click().run()
    at.switch_page("pages/3_Regions.py").run()
    assert_clean(at)
    assert "cut by the 2-D slice spanned by x1 and x2" in text(at)
    axes = next(m for m in at.multiselect if m.label.startswith("Slice of H3"))
    axes.set_value([1, 3]).run()
    assert_clean(at)
    assert param(at, "view") == "disk:0:1-3:poincare" and "x1 and x3" in text(at)
    views = picture_box(at)
    views.set_value(next(o for o in views.options if "sphere" in o)).run()
    assert "great 2-sphere of the ambient axes x0, x1, x2" in text(at)
    assert "surface" in trace_types(charts(at)[0])
