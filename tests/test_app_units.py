"""The app's pure helpers: reading and checking uploads, recipes, training and pictures (no Streamlit)."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from curvedtrees import coords
from curvedtrees.manifolds import ProductManifold, Signature
from curvedtrees.sampling import make_classification

from ui import data as appdata
from ui import pictures, training, uploads


def table(text: str) -> pd.DataFrame:
    return uploads.read_table("t.csv", text.encode())


# ------------------------------------------------------------------ reading
def test_read_table_handles_csv_tsv_npy_npz():
    assert list(table("a,b\n1,2\n").columns) == ["a", "b"]
    assert uploads.read_table("t.tsv", b"a\tb\n1\t2\n").shape == (1, 2)
    buffer = io.BytesIO()
    np.save(buffer, np.arange(6.0).reshape(3, 2))
    assert list(uploads.read_table("t.npy", buffer.getvalue()).columns) == ["c0", "c1"]
    buffer = io.BytesIO()
    np.savez(buffer, X=np.zeros((4, 3)), y=np.array(["a", "b", "a", "b"]))
    assert list(uploads.read_table("t.npz", buffer.getvalue()).columns) == ["x0", "x1", "x2", "y"]


@pytest.mark.parametrize(
    ("name", "payload", "reason"),
    [
        ("t.npy", b"\x80\x04K\x01.", "pickle"),
        ("t.exe", b"MZ", "unsupported file type"),
        ("t.csv", b"", "empty"),
        ("t.csv", b"\xff\xfe\x00a", "UTF-8"),
        ("t.npz", b"PK\x03\x04garbage", "not a valid NumPy file"),
    ],
)
def test_read_table_refuses_bad_files_with_reasons(name, payload, reason):
    with pytest.raises(uploads.UploadError, match=reason):
        uploads.read_table(name, payload)


def test_object_arrays_and_row_caps_are_refused(monkeypatch):
    buffer = io.BytesIO()
    np.save(buffer, np.array([object(), 1], dtype=object), allow_pickle=True)
    with pytest.raises(uploads.UploadError, match="pickle"):
        uploads.read_table("t.npy", buffer.getvalue())
    monkeypatch.setattr(uploads, "MAX_ROWS", 5)
    with pytest.raises(uploads.UploadError, match="limit is 5"):
        uploads.read_table("t.csv", b"a\n" + b"1\n" * 6)
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("X.npy", b"not an array")
    with pytest.raises(uploads.UploadError):
        uploads.read_table("t.npz", zipped.getvalue())


# ------------------------------------------------------------------ mapping
def test_suggested_mapping_finds_label_task_and_latlon():
    frame = pd.DataFrame({"lat": [0.0, 10.0], "lon": [5.0, 6.0], "month": [0.1, 0.2], "temp": [1.5, 2.7]})
    guess = uploads.suggest_mapping(frame, "S2 x S1")
    assert guess["label"] == "temp" and guess["task"] == "regression"
    assert guess["components"][0] == {"model": "latlon", "columns": ["lat", "lon"]}
    assert guess["components"][1] == {"model": "angle", "columns": ["month"]}


@pytest.mark.parametrize("model", ["ambient", "poincare", "klein"])
def test_hyperbolic_coordinate_models_convert_to_the_hyperboloid(model):
    X, y = make_classification("H2(-0.5)", n_samples=30, n_classes=2, n_clusters=2, random_state=0)
    given = {
        "ambient": X,
        "poincare": coords.hyperboloid_to_poincare(X, curvature=-0.5),
        "klein": coords.hyperboloid_to_klein(X, curvature=-0.5),
    }[model]
    frame = pd.DataFrame(given, columns=[f"c{k}" for k in range(given.shape[1])]).assign(label=y)
    mapping = {
        "label": "label",
        "task": "classification",
        "components": [{"model": model, "columns": list(frame.columns[:-1])}],
    }
    result = uploads.convert_upload(frame, "H2(-0.5)", mapping)
    assert result.ok and np.allclose(result.X, X, rtol=1e-9, atol=1e-9)


def test_sphere_circle_models_and_a_product():
    lat, lon, angle = np.array([10.0, -45.0, 80.0]), np.array([0.0, 120.0, -170.0]), np.array([0.5, 2.0, -3.0])
    frame = pd.DataFrame({"lat": lat, "lon": lon, "a": angle, "e": [1.0, 2.0, 3.0], "y": [0, 1, 0]})
    frame = pd.concat([frame] * 4, ignore_index=True)
    mapping = {
        "label": "y",
        "task": "classification",
        "components": [
            {"model": "latlon", "columns": ["lat", "lon"]},
            {"model": "angle", "columns": ["a"]},
            {"model": "ambient", "columns": ["e"]},
        ],
    }
    result = uploads.convert_upload(frame, "S2 x S1 x E1", mapping)
    assert result.ok
    assert np.allclose(result.X[:3, :3], coords.latlon_to_sphere(np.column_stack([lat, lon])))
    assert np.allclose(result.X[:3, 3:5], coords.angle_to_circle(angle))


def test_reports_name_component_rows_and_largest_error_and_projection_fixes_them():
    X, y = make_classification("S2 x E1", n_samples=20, n_classes=2, n_clusters=2, random_state=0)
    X[[3, 5], :3] *= 1.31
    frame = pd.DataFrame(X, columns=["a", "b", "c", "e"]).assign(label=y)
    mapping = {
        "label": "label",
        "task": "classification",
        "components": [{"model": "ambient", "columns": ["a", "b", "c"]}, {"model": "ambient", "columns": ["e"]}],
    }
    result = uploads.convert_upload(frame, "S2 x E1", mapping)
    assert not result.ok and result.fixable_by_projection
    (sphere, flat) = result.reports
    assert sphere.problems == ["2 rows off the sphere, largest relative error 0.31 (rows 3, 5)"]
    assert sphere.name.startswith("S2 (component 1)") and flat.ok
    fixed = uploads.convert_upload(frame, "S2 x E1", mapping, project=True)
    assert fixed.ok and fixed.n_projected == 2 and ProductManifold("S2 x E1").check_point(fixed.X)


def test_lower_sheet_outside_ball_and_latitudes_are_explained():
    frame = pd.DataFrame({"x0": [-1.0] + [1.0] * 11, "x1": [0.0] * 12, "x2": [0.0] * 12, "y": [0, 1] * 6})
    mapping = {
        "label": "y",
        "task": "classification",
        "components": [{"model": "ambient", "columns": ["x0", "x1", "x2"]}],
    }
    (report,) = uploads.convert_upload(frame, "H2", mapping).reports
    assert "1 row off the hyperboloid (1 on the lower sheet, x0 <= 0)" in report.problems[0]
    ball = pd.DataFrame({"p": [0.2, 1.5] * 6, "q": [0.0] * 12, "y": [0, 1] * 6})
    mapping = {"label": "y", "task": "classification", "components": [{"model": "poincare", "columns": ["p", "q"]}]}
    result = uploads.convert_upload(ball, "H2", mapping)
    assert "6 rows outside the Poincaré ball of radius 1" in result.reports[0].problems[0]
    assert uploads.convert_upload(ball, "H2", mapping, project=True).ok
    geo = pd.DataFrame({"lat": [95.0] + [0.0] * 11, "lon": [0.0] * 12, "y": [0, 1] * 6})
    mapping = {"label": "y", "task": "classification", "components": [{"model": "latlon", "columns": ["lat", "lon"]}]}
    assert "latitude beyond" in uploads.convert_upload(geo, "S2", mapping).reports[0].problems[0]


def test_label_problems_and_table_level_problems():
    frame = pd.DataFrame({"a": np.arange(12.0), "y": ["x"] * 11 + [None]})
    mapping = {"label": "y", "task": "classification", "components": [{"model": "ambient", "columns": ["a"]}]}
    result = uploads.convert_upload(frame, "E1", mapping)
    assert result.label_problems == ["1 row without a label (row 11)"]
    dropped = uploads.convert_upload(frame, "E1", mapping, drop_bad=True)
    assert dropped.n_dropped == 1 and any("single class" in g for g in dropped.general)
    frame = pd.DataFrame({"a": np.arange(12.0), "y": ["1.5", "oops"] * 6})
    mapping["task"] = "regression"
    assert "not a number" in uploads.convert_upload(frame, "E1", mapping).label_problems[0]
    assert uploads.convert_upload(frame.head(5), "E1", mapping).general


@pytest.mark.parametrize(
    ("mapping", "reason"),
    [
        ({"label": "y", "components": [{"model": "ambient", "columns": ["a"]}]}, "needs 2 columns; 1 is selected"),
        ({"label": "y", "components": [{"model": "ambient", "columns": []}]}, "needs 2 columns; none is selected"),
        ({"label": "y", "components": [{"model": "ambient", "columns": ["a", "zz"]}]}, "not in the file"),
        ({"label": "a", "components": [{"model": "ambient", "columns": ["a", "b"]}]}, "used twice"),
        ({"label": "y", "components": []}, "has 1 component;"),
        ({"label": "y", "components": [{"model": "klein", "columns": ["a", "b"]}]}, "unknown coordinate model"),
    ],
)
def test_inconsistent_mappings_are_rejected(mapping, reason):
    frame = pd.DataFrame({"a": [1.0], "b": [2.0], "y": [0]})
    with pytest.raises(ValueError, match=reason):
        uploads.convert_upload(frame, "E2", mapping)


def test_upload_record_wraps_a_clean_result():
    X, y = make_classification("E2", n_samples=30, n_classes=2, n_clusters=2, random_state=0)
    frame = pd.DataFrame(X, columns=["a", "b"]).assign(y=y)
    mapping = {"label": "y", "task": "classification", "components": [{"model": "ambient", "columns": ["a", "b"]}]}
    record = uploads.upload_record(
        uploads.convert_upload(frame, "E2", mapping), "E2", "classification", "f.csv", mapping
    )
    assert record.recipe["source"] == "upload" and record.class_names == ["0", "1"] and len(record.hash) == 16
    with pytest.raises(ValueError, match="cannot be rebuilt"):
        appdata.build_dataset(record.recipe)


# ------------------------------------------------------------------ recipes
def test_synthetic_recipes_rebuild_identical_data_and_hashes():
    recipe = appdata.synthetic_recipe("H2 x S1", 120, 3, seed=5)
    first, second = appdata.build_dataset(recipe), appdata.build_dataset(json.loads(json.dumps(recipe)))
    assert first.hash == second.hash and np.array_equal(first.X, second.X)
    assert first.signature == Signature.parse("H2 x S1") and first.class_names == ["0", "1", "2"]
    other = appdata.build_dataset(appdata.synthetic_recipe("H2 x S1", 120, 3, seed=6))
    assert other.hash != first.hash
    with pytest.raises(ValueError, match="n_samples"):
        appdata.build_dataset(appdata.synthetic_recipe("H2", 10**7, 3))
    with pytest.raises(ValueError, match="unknown dataset source"):
        appdata.build_dataset({"source": "ftp"})


def test_every_demo_is_buildable_and_its_view_fits():
    for demo in appdata.available_demos():
        data = appdata.build_dataset(demo.data)
        if demo.view:
            assert pictures.resolve_view(data.signature, demo.view).key == demo.view
        # The world demos open on forests (continents need them); the others on one tree to inspect.
        family = "product_forest" if demo.key in ("landmass", "temperatures") else "product_tree"
        assert training.normalise_recipe(demo.model, data.task)["family"] == family


def test_training_recipe_split_metrics_and_forest_progress():
    data = appdata.build_dataset(appdata.synthetic_recipe("S2", 200, 3, seed=1))
    record = training.train_from_recipe(data, {"family": "product_tree", "params": {"max_depth": 3}, "seed": 2})
    assert record.estimator.get_depth() <= 3 and len(record.train_idx) + len(record.test_idx) == 200
    assert set(record.metrics) >= {"accuracy", "f1_micro", "f1_macro", "confusion", "train_accuracy"}
    assert np.array(record.metrics["confusion"]).sum() == len(record.test_idx)
    steps = []
    family = training.FAMILIES["product_forest"]
    forest = family.build("classification", "S2", {"n_estimators": 7, "max_depth": 3}, seed=0)
    forest, _ = training.fit_model(forest, data.X, data.y, lambda done, total: steps.append((done, total)))
    assert steps[-1] == (7, 7) and len(steps) > 2 and not forest.warm_start
    one_shot = family.build("classification", "S2", {"n_estimators": 7, "max_depth": 3}, seed=0).fit(data.X, data.y)
    assert np.array_equal(forest.predict_proba(data.X), one_shot.predict_proba(data.X))


@pytest.mark.parametrize("family", ["product_tree", "product_forest", "product_boosting"])
def test_every_product_family_offers_the_radial_splits(family):
    data = appdata.build_dataset(appdata.synthetic_recipe("H2 x S2", 120, 2, seed=3))
    assert training.FAMILIES[family].defaults("classification")["splits"] == "geodesic"
    params = (
        {"splits": "geodesic+radial", "n_estimators": 3}
        if family == "product_forest"
        else {"splits": "geodesic+radial"}
    )
    if family == "product_boosting":
        params["max_iter"] = 3
    record = training.train_from_recipe(data, {"family": family, "params": params, "seed": 0})
    assert record.estimator.get_params()["splits"] == "geodesic+radial"
    assert record.estimator.split_features_.splits == "geodesic+radial"
    with pytest.raises(ValueError, match="splits"):
        training.train_from_recipe(data, {"family": family, "params": {"splits": "horospheres"}})


def test_bad_model_recipes_and_parameters_name_the_problem():
    data = appdata.build_dataset(appdata.synthetic_recipe("E2", 60, 2, task="regression", seed=1))
    with pytest.raises(ValueError, match="unknown model family"):
        training.train_from_recipe(data, {"family": "magic"})
    with pytest.raises(ValueError, match="does not do regression"):
        training.train_from_recipe(data, {"family": "perceptron"})
    with pytest.raises(ValueError, match="max_depth must be between"):
        training.train_from_recipe(data, {"family": "product_tree", "params": {"max_depth": -3}})
    with pytest.raises(ValueError, match="no parameter"):
        training.train_from_recipe(data, {"family": "product_tree", "params": {"depth": 3}})
    record = training.train_from_recipe(data, {"family": "product_tree", "params": {"max_depth": 0}})
    assert record.estimator.max_depth is None and {"rmse", "r2", "train_r2"} <= set(record.metrics)


def test_adopting_a_model_checks_signature_and_task():
    data = appdata.build_dataset(appdata.synthetic_recipe("H2", 80, 2, seed=0))
    record = training.train_from_recipe(data, {"family": "product_tree"})
    adopted = training.adopt_model(record.estimator, data)
    assert adopted.source == "uploaded" and adopted.metrics["n_test"] == 80
    other = appdata.build_dataset(appdata.synthetic_recipe("S2", 80, 2, seed=0))
    with pytest.raises(ValueError, match="trained on H2"):
        training.adopt_model(record.estimator, other)
    regression = appdata.build_dataset(appdata.synthetic_recipe("H2", 80, 2, task="regression", seed=0))
    with pytest.raises(ValueError, match="classifier"):
        training.adopt_model(record.estimator, regression)


# ----------------------------------------------------------------- pictures
def test_picture_figure_for_a_product_states_the_reference_and_draws_everything():
    data = appdata.build_dataset(appdata.synthetic_recipe("H2 x S2 x E3", 150, 3, seed=0))
    record = training.train_from_recipe(data, {"family": "product_tree", "params": {"max_depth": 4}})
    for view in pictures.viz.available_views(data.signature):
        picture = pictures.Picture(view, "mean", 0, 30)
        grid_regions = pictures.regions_for(record.estimator, data, picture)
        fig = pictures.picture_figure(data, picture, record, grid_regions, layers=pictures.Layers(marked_row=3))
        names = {t.name for t in fig.data}
        assert {"training points", "test points", "explained point"} <= names, view
        assert "held at the data's mean" in pictures.reference_note(data, picture)
    assert (
        pictures.reference_note(
            appdata.build_dataset(appdata.synthetic_recipe("H2", 50, 2)),
            pictures.Picture(pictures.viz.View("disk", (0,), (1, 2))),
        )
        is None
    )
    assert pictures.resolve_view(data.signature, "garbage").kind == "disk"


def test_klein_wrapper_is_offered_for_h_and_e_data_only():
    pytest.importorskip("curvedtrees.klein")
    assert "klein" in [f.key for f in training.families_for("classification", "H2 x E1")]
    assert "klein" not in [f.key for f in training.families_for("classification", "H2 x S1")]
    data = appdata.build_dataset(appdata.synthetic_recipe("H2", 120, 3, seed=0))
    record = training.train_from_recipe(data, {"family": "klein", "params": {"estimator": "random_forest"}})
    assert record.metrics["accuracy"] > 0.3
    fig_data = pictures.regions_for(
        record.estimator, data, pictures.Picture(pictures.viz.View("disk", (0,), (1, 2)), resolution=20)
    )
    assert fig_data[1].class_index.shape == (20, 20)
    s2 = appdata.build_dataset(appdata.synthetic_recipe("S2", 60, 2, seed=0))
    with pytest.raises(ValueError, match="accepts only H, E"):
        training.train_from_recipe(s2, {"family": "klein"})


def test_the_sidebar_scores_an_uploaded_model_on_all_rows_not_a_test_set():
    from ui.chrome import _model_line

    data = appdata.build_dataset(appdata.synthetic_recipe("H2", 80, 2, seed=0))
    trained = training.train_from_recipe(data, {"family": "product_tree"})
    assert "test accuracy" in _model_line(trained)
    uploaded = training.adopt_model(trained.estimator, data)
    line = _model_line(uploaded)
    assert "test" not in line and "accuracy" in line and "on all 80 rows" in line


def test_regions_offer_boundaries_and_a_reference_only_where_they_mean_something():
    from pathlib import Path

    from curvedtrees import viz
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/2_Train.py").run()
    at.selectbox(key="train_family").set_value("knn").run()
    at.button(key="FormSubmitter:train_form-Train").click().run()
    at.switch_page("pages/3_Regions.py").run()
    assert not at.exception
    assert not [t for t in at.toggle if t.label == "Show split boundaries"]  # k-NN has no geodesic splits
    assert any("no geodesic splits" in str(c.value) for c in at.caption)
    assert [r for r in at.radio if r.label == "Other components held at"] == []  # H2 on its disk: nothing held

    # The torus of S1 x S1 draws both components; each circle alone holds the other.
    at.switch_page("app.py").run()
    at.button(key="demo_torus").click().run()
    at.switch_page("pages/3_Regions.py").run()
    assert not at.exception
    assert "torus" in str(next(s for s in at.selectbox if s.label == "Picture").value)
    assert [r for r in at.radio if r.label == "Other components held at"] == []
    assert [t for t in at.toggle if t.label == "Show split boundaries"]  # a product tree: the toggle is there
    sig = Signature.parse("S1 x S1")
    views = {v.key: viz.holds_reference(v, sig) for v in viz.available_views(sig)}
    assert views == {"circle:0::poincare": True, "circle:1::poincare": True, "torus:0-1::poincare": False}
