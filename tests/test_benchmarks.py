"""The benchmark runner, presets and CLI (small, scikit-learn-only runs)."""

import importlib.util
import json

import numpy as np
import pandas as pd
import pytest
from curvedtrees.benchmarks import (
    PRESETS,
    RESULT_COLUMNS,
    BenchmarkData,
    DatasetSpec,
    ModelSpec,
    get_models,
    get_preset,
    run_benchmark,
    score,
    trial_seeds,
)
from curvedtrees.benchmarks.cli import main
from curvedtrees.benchmarks.datasets import blobs, gaussian_mixture
from curvedtrees.benchmarks.presets import MULTI_CURVATURE_SIGNATURES, Preset
from curvedtrees.manifolds.signature import Signature
from sklearn.metrics import f1_score, root_mean_squared_error

# Columns that must agree between runs; timings never do.
STABLE = ["section", "dataset", "task", "signature", "model", "trial", "seed", "metric", "value", "n_train", "n_test"]
HAS_SAMPLING = importlib.util.find_spec("curvedtrees.sampling") is not None


def _datasets():
    return [blobs("classification", n_samples=120), blobs("regression", n_samples=100, n_features=3)]


def _models():
    return get_models(["ambient_dt", "ambient_rf", "ambient_knn"])


def test_result_frame_layout_and_values():
    results = run_benchmark(_datasets(), _models(), n_trials=3, random_state=5)
    assert list(results.columns) == RESULT_COLUMNS
    assert len(results) == 2 * 3 * 3
    assert results["model"].tolist()[:3] == ["Ambient DT", "Ambient RF", "Ambient k-NN"]
    assert results["trial"].tolist()[:9] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    clf = results[results["task"] == "classification"]
    assert (clf["metric"] == "f1_micro").all() and clf["value"].between(0, 1).all()
    reg = results[results["task"] == "regression"]
    assert (reg["metric"] == "rmse").all() and (reg["value"] > 0).all()
    assert (results["n_test"] == np.where(results["task"] == "classification", 24, 20)).all()
    assert (results["fit_seconds"] > 0).all() and (results["predict_seconds"] > 0).all()
    assert (results["error"] == "").all()
    assert results.attrs["n_trials"] == 3 and results.attrs["random_state"] == 5


def test_results_do_not_depend_on_n_jobs():
    serial = run_benchmark(_datasets(), _models(), n_trials=4, random_state=2)
    parallel = run_benchmark(_datasets(), _models(), n_trials=4, random_state=2, n_jobs=2)
    threads = run_benchmark(_datasets(), _models(), n_trials=4, random_state=2, n_jobs=2, backend="threading")
    pd.testing.assert_frame_equal(serial[STABLE], parallel[STABLE])
    pd.testing.assert_frame_equal(serial[STABLE], threads[STABLE])


def test_seeds_are_reproducible_and_prefix_stable():
    assert trial_seeds(0, 5) == trial_seeds(0, 5)
    assert trial_seeds(0, 3) == trial_seeds(0, 5)[:3]
    assert trial_seeds(0, 5) != trial_seeds(1, 5)
    assert len(set(trial_seeds(0, 100))) == 100
    short = run_benchmark(_datasets(), _models(), n_trials=2, random_state=9)
    long = run_benchmark(_datasets(), _models(), n_trials=4, random_state=9)
    pd.testing.assert_frame_equal(short[STABLE], long[long["trial"] < 2][STABLE].reset_index(drop=True))
    other = run_benchmark(_datasets(), _models(), n_trials=2, random_state=10)
    assert not np.array_equal(short["value"], other["value"])


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="random_state"):
        run_benchmark(_datasets(), _models(), random_state=None)
    with pytest.raises(ValueError, match="random_state"):
        run_benchmark(_datasets(), _models(), random_state=-1)
    with pytest.raises(ValueError, match="n_trials"):
        run_benchmark(_datasets(), _models(), n_trials=0)
    with pytest.raises(ValueError, match="test_size"):
        run_benchmark(_datasets(), _models(), test_size=1.5)
    with pytest.raises(ValueError, match="no models"):
        run_benchmark(_datasets(), [])
    with pytest.raises(ValueError, match="listed twice"):
        run_benchmark(_datasets() * 2, _models())
    with pytest.raises(ValueError, match="unique"):
        run_benchmark(_datasets(), _models() * 2)
    with pytest.raises(ValueError, match="unknown model"):
        get_models(["no_such_model"])
    with pytest.raises(ValueError, match="unknown preset"):
        get_preset("no-such-preset")


def _broken_factory(task, signature, random_state):
    from sklearn.tree import DecisionTreeClassifier

    class Broken(DecisionTreeClassifier):
        def predict(self, X):
            raise RuntimeError("boom")

    return Broken()


def _missing_factory(task, signature, random_state):
    import curvedtrees.no_such_module  # noqa: F401


def test_failing_model_stops_or_is_recorded():
    broken = ModelSpec("Broken", _broken_factory, tasks=("classification",))
    datasets = [blobs("classification", n_samples=60)]
    expected = r"model 'Broken' failed on dataset Blobs, classification, E2, trial 0.*boom"
    with pytest.raises(RuntimeError, match=expected):
        run_benchmark(datasets, [broken], n_trials=2)
    results = run_benchmark(datasets, [*_models(), broken], n_trials=2, on_error="record")
    failed = results[results["model"] == "Broken"]
    assert failed["value"].isna().all() and failed["error"].str.contains("RuntimeError: boom").all()
    assert results[results["model"] != "Broken"]["value"].notna().all()


def test_missing_models_are_reported_before_the_run():
    missing = ModelSpec("Missing", _missing_factory)
    with pytest.raises(ImportError, match="Missing: ModuleNotFoundError"):
        run_benchmark(_datasets(), [*_models(), missing], n_trials=1)
    results = run_benchmark(_datasets(), [*_models(), missing], n_trials=1, skip_unavailable=True)
    assert "Missing" not in set(results["model"])
    assert "Missing" in results.attrs["skipped_models"]


def test_models_skip_tasks_they_do_not_support():
    only_clf = ModelSpec("DT", get_models(["ambient_dt"])[0].factory, tasks=("classification",))
    results = run_benchmark(_datasets(), [only_clf], n_trials=1)
    assert set(results["task"]) == {"classification"}


def _wrong_signature_loader(random_state):
    return np.zeros((10, 3)), np.zeros(10), "H2", "classification"


def test_loader_output_is_checked():
    spec = DatasetSpec("Bad", _wrong_signature_loader, signature="E3", task="classification")
    with pytest.raises(ValueError, match="returned signature H2, expected E3"):
        run_benchmark([spec], _models(), n_trials=1)
    with pytest.raises(ValueError, match="shape"):
        BenchmarkData(np.zeros((5, 2)), np.zeros(5), "H2", "classification")
    with pytest.raises(ValueError, match="non-finite value at row 1, column 0"):
        BenchmarkData(np.array([[0.0, 1.0], [np.nan, 0.0]]), np.zeros(2), "E2", "classification")
    with pytest.raises(ValueError, match="unknown task"):
        DatasetSpec("X", _wrong_signature_loader, signature="E2", task="ranking")


def _fixed_split_loader(random_state):
    rng = np.random.default_rng(random_state)
    X_train, X_test = rng.normal(size=(30, 2)), rng.normal(size=(7, 2))
    return BenchmarkData(X_train, (X_train[:, 0] > 0).astype(int), "E2", "link_prediction", X_test,
                         (X_test[:, 0] > 0).astype(int))  # fmt: skip


def test_fixed_splits_are_respected():
    spec = DatasetSpec("Fixed", _fixed_split_loader, signature="E2", task="link_prediction")
    results = run_benchmark([spec], _models(), n_trials=2)
    assert (results["n_train"] == 30).all() and (results["n_test"] == 7).all()
    assert (results["metric"] == "f1_micro").all()


def test_progress_is_reported_for_every_job():
    calls = []
    run_benchmark(_datasets(), _models(), n_trials=3, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(i, 6) for i in range(7)]
    calls.clear()
    run_benchmark(_datasets(), _models(), n_trials=3, n_jobs=2, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(i, 6) for i in range(7)]


def test_score_matches_scikit_learn():
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 5, 50), rng.integers(0, 5, 50)
    assert score("classification", y, p) == ("f1_micro", pytest.approx(f1_score(y, p, average="micro")))
    labels = np.array(["a", "b", "b", "c"])
    assert score("link_prediction", labels, np.array(["a", "b", "c", "c"]))[1] == pytest.approx(0.75)
    t, q = rng.normal(size=40), rng.normal(size=40)
    assert score("regression", t, q) == ("rmse", pytest.approx(root_mean_squared_error(t, q)))
    with pytest.raises(ValueError, match="shape"):
        score("regression", t, q[:-1])


def test_presets_match_the_paper_setups():
    multi = get_preset("multi-curvature").datasets()
    assert len(multi) == 16
    assert [d.signature for d in multi[:8]] == [str(Signature.parse(s)) for s in MULTI_CURVATURE_SIGNATURES]
    assert {d.task for d in multi} == {"classification", "regression"}
    single = get_preset("single-curvature").datasets()
    signatures = [d.signature for d in single if d.task == "regression"]
    assert signatures == ["E2", "H2(-0.25)", "H2(-0.5)", "H2", "H2(-2)", "H2(-4)", "S2(0.25)", "S2(0.5)", "S2",
                          "S2(2)", "S2(4)"]  # fmt: skip
    loader = multi[0].loader
    assert (loader.keywords["n_samples"], loader.keywords["n_clusters"], loader.keywords["n_classes"]) == (1000, 32, 8)
    models = get_preset("multi-curvature").model_specs()
    assert [m.name for m in models] == ["Perceptron", "k-NN", "Ambient DT", "Ambient RF", "Tangent DT",
                                        "Tangent RF", "Product DT", "Product RF", "Product GB", "Ambient HGB",
                                        "Klein HGB"]  # fmt: skip
    assert get_preset("tiny").datasets(n_samples=50)[0].loader.keywords["n_samples"] == 50
    with pytest.raises(ValueError, match="n_samples"):
        get_preset("tiny").datasets(n_samples=3)


def test_paper_hyperparameters_reach_the_estimators():
    rf = get_models(["ambient_rf"])[0].build("regression", "H2", 7)
    assert (rf.max_depth, rf.n_estimators, rf.max_features, rf.bootstrap, rf.random_state) == (5, 12, "sqrt", True, 7)
    dt = get_models(["ambient_dt"])[0].build("classification", "H2", 7)
    assert (dt.max_depth, dt.min_samples_split, dt.min_samples_leaf, dt.min_impurity_decrease) == (5, 2, 1, 0.0)


@pytest.mark.skipif(not HAS_SAMPLING, reason="curvedtrees.sampling has not landed")
def test_gaussian_mixture_spec_draws_the_papers_mixture():
    spec = gaussian_mixture("H2 x S2", "classification", n_samples=100, n_clusters=8, n_classes=4)
    data = spec.load(3)
    assert data.X.shape == (100, 6) and set(np.unique(data.y)) <= set(range(4))
    np.testing.assert_array_equal(spec.load(3).X, data.X)


def test_cli_writes_csv_and_markdown(tmp_path, monkeypatch, capsys):
    preset = Preset("smoke", "blobs with scikit-learn models", lambda n_samples=None: _datasets(),
                    ("ambient_dt", "ambient_rf", "ambient_knn"), trials=2)  # fmt: skip
    monkeypatch.setitem(PRESETS, "smoke", preset)
    code = main(["--preset", "smoke", "--trials", "3", "--out", str(tmp_path), "--quiet", "--n-jobs", "1"])
    assert code == 0
    out = capsys.readouterr().out
    assert "total wall time:" in out and "6 (dataset, trial) jobs" in out
    results = pd.read_csv(tmp_path / "smoke.csv", keep_default_na=False, na_values=[""])
    assert len(results) == 18 and set(results["model"]) == {"Ambient DT", "Ambient RF", "Ambient k-NN"}
    summary = pd.read_csv(tmp_path / "smoke_summary.csv")
    assert len(summary) == 6 and summary["n_trials"].eq(3).all()
    markdown = (tmp_path / "smoke.md").read_text()
    assert "| Section | Dataset | Task | Signature | Ambient DT | Ambient RF | Ambient k-NN |" in markdown
    assert "## Ranks" in markdown and "## Timings" in markdown
    meta = json.loads((tmp_path / "smoke.json").read_text())
    assert meta["n_trials"] == 3 and meta["models"] == ["Ambient DT", "Ambient RF", "Ambient k-NN"]
    assert meta["tree_params"] == {}
    assert main(["--preset", "smoke", "--trials", "1", "--out", str(tmp_path), "--quiet", "--max-depth", "2",
                 "--name", "shallow"]) == 0  # fmt: skip
    assert json.loads((tmp_path / "shallow.json").read_text())["tree_params"] == {"max_depth": 2}


def test_cli_list_and_errors(capsys):
    assert main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert "multi-curvature" in listed and "product_rf" in listed
    assert main(["--preset", "no-such-preset", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: unknown preset")


@pytest.mark.parametrize("signature", ["H2(-4) x E2", "S2(0.25) x S2", "H4"])
def test_notebook_mixture_lies_on_the_manifold_and_is_reproducible(signature):
    from curvedtrees.benchmarks.datasets import notebook_mixture
    from curvedtrees.manifolds import ProductManifold

    X, y = notebook_mixture(signature, "classification", n_samples=300, random_state=4)
    assert X.shape == (300, Signature.parse(signature).ambient_dim)
    assert ProductManifold(signature).check_point(X)
    assert set(np.unique(y)) <= set(range(8))
    np.testing.assert_array_equal(notebook_mixture(signature, "classification", n_samples=300, random_state=4)[0], X)
    _, target = notebook_mixture(signature, "regression", n_samples=300, random_state=4)
    assert target.min() == 0.0 and target.max() == 1.0


def test_notebook_preset_uses_the_notebook_sampler():
    datasets = get_preset("multi-curvature-notebook").datasets(n_samples=100)
    assert datasets[0].loader.func.__name__ == "load_notebook_mixture"
    assert datasets[0].load(0).X.shape == (100, 6)
    with pytest.raises(ValueError, match="protocol"):
        gaussian_mixture("H2", "classification", protocol="nope")


HAS_DATASETS = importlib.util.find_spec("curvedtrees.datasets") is not None


@pytest.mark.skipif(not HAS_DATASETS, reason="curvedtrees.datasets has not landed")
def test_real_datasets_keep_the_papers_row_names():
    from curvedtrees.benchmarks.real import real_datasets

    specs = {spec.name: spec for spec in real_datasets()}
    assert specs["Landmasses"].section == "Other" and specs["Landmasses"].signature == "S2"
    assert specs["Karate Club"].task == "link_prediction" and specs["Karate Club"].learned_curvature
    data = real_datasets(n_samples=120, names=["Landmasses"])[0].load(3)
    assert data.X.shape == (120, 3) and not data.has_split


@pytest.mark.skipif(not HAS_DATASETS, reason="curvedtrees.datasets has not landed")
def test_real_datasets_use_their_own_test_set(monkeypatch):
    import curvedtrees.datasets
    from curvedtrees.benchmarks.real import load_real

    rng = np.random.default_rng(0)
    X = np.column_stack([np.ones(10), rng.normal(size=(10, 2))])
    X[:, 0] = np.sqrt(2 + (X[:, 1:] ** 2).sum(axis=1))  # on H2 with K = -0.5
    mask = np.zeros(10, dtype=bool)
    mask[[2, 5]] = True
    labels = np.arange(10) % 2
    record = curvedtrees.datasets.Dataset(X, labels, "H2(-0.5)", "link_prediction", "fake", "", "", test_mask=mask)
    monkeypatch.setattr(curvedtrees.datasets, "load_dataset", lambda name, **params: record)
    data = load_real(1, name="karate_club", params={})
    assert data.has_split and len(data.X) == 8 and len(data.X_test) == 2
    np.testing.assert_array_equal(data.X_test, X[[2, 5]])
    # A learned curvature passes the check of kinds and dimensions only.
    learned = DatasetSpec("G", lambda seed: data, signature="H2", task="link_prediction", learned_curvature=True)
    assert learned.load(0) is data
    with pytest.raises(ValueError, match="expected H2"):
        DatasetSpec("G", lambda seed: data, signature="H2", task="link_prediction").load(0)


def test_stored_runs_round_trip(tmp_path):
    from curvedtrees.benchmarks.figures import score_figure, timing_figure
    from curvedtrees.benchmarks.report import write_report
    from curvedtrees.benchmarks.stored import list_runs, load_run

    results = run_benchmark(_datasets(), _models(), n_trials=2, random_state=1)
    written = write_report(results, tmp_path, "smoke", "blobs", compress=True)
    assert written["results"].name == "smoke.csv.gz"
    runs = list_runs(tmp_path)
    assert [r["stem"] for r in runs] == ["smoke"] and runs[0]["n_trials"] == 2
    run = load_run("smoke", tmp_path, with_results=True)
    pd.testing.assert_frame_equal(run["results"][STABLE], results[STABLE], check_dtype=False)
    assert (run["summary"]["marks"] == "").all() and "## Results" in run["markdown"]
    with pytest.raises(FileNotFoundError, match="no stored run"):
        load_run("missing", tmp_path)
    with pytest.raises(ValueError, match="not a run name"):
        load_run("../etc", tmp_path)
    one_row = run["summary"][run["summary"]["task"] == "classification"]
    figure = score_figure(one_row)
    assert list(figure.data[0].x) == ["Ambient DT", "Ambient RF", "Ambient k-NN"]
    assert figure.data[0].y[0] == pytest.approx(100 * one_row["mean"].iloc[0])
    with pytest.raises(ValueError, match="one metric"):
        score_figure(run["summary"])
    times = timing_figure(run["summary"])
    assert len(times.data) == 2
    assert times.layout.yaxis.type == "log" and times.layout.yaxis.dtick == 1  # decades only, no "2, 5" labels


def test_tree_parameter_overrides_reach_trees_and_forests_only():
    specs = get_models(["knn", "ambient_dt", "ambient_rf"], tree_params={"max_depth": 3, "n_estimators": 7})
    assert specs[0] is get_models(["knn"])[0]
    dt = specs[1].build("classification", "E2", 0)
    rf = specs[2].build("regression", "E2", 0)
    assert dt.max_depth == 3 and not hasattr(dt, "n_estimators")
    assert (rf.max_depth, rf.n_estimators, rf.max_features) == (3, 7, "sqrt")
    preset = get_preset("multi-curvature-notebook-depth3")
    forest = next(m for m in preset.model_specs() if m.name == "Ambient RF").build("classification", "H4", 0)
    assert forest.max_depth == 3


@pytest.mark.skipif(not HAS_SAMPLING, reason="curvedtrees.sampling has not landed")
def test_document_blocks_are_filled_from_stored_runs(tmp_path, capsys):
    from curvedtrees.benchmarks.document import fill_document
    from curvedtrees.benchmarks.report import write_report

    spec = gaussian_mixture("H4", "classification", section="Synthetic (multi-K)", n_samples=100)
    results = run_benchmark([spec], get_models(["ambient_dt", "ambient_rf"]), n_trials=2)
    write_report(results, tmp_path, "mini")
    text = (
        "intro\n<!-- begin comparison mini -->\nold\n<!-- end comparison mini -->\nmiddle\n"
        "<!-- begin agreement mini -->\n<!-- end agreement mini -->\n<!-- begin run mini -->\n<!-- end run mini -->\n"
    )
    filled = fill_document(text, tmp_path)
    assert filled.startswith("intro\n<!-- begin comparison mini -->\n| Task | Signature |") and "old" not in filled
    assert "|  |  | paper | 32.9 ± .5 | 35.9 ± .4 |" in filled
    assert "| `mini` | 2 |" in filled and "`mini`: 2 trials, seed 0" in filled
    residuals = fill_document("<!-- begin residuals mini -->\n<!-- end residuals mini -->", tmp_path)
    assert "No cell differs" in residuals or "| Task | Signature | Model |" in residuals
    assert fill_document(filled, tmp_path) == filled  # idempotent
    doc = tmp_path / "DOC.md"
    doc.write_text(text)
    assert main(["--update-doc", str(doc), "--out", str(tmp_path)]) == 0
    assert doc.read_text() == filled
    with pytest.raises(ValueError, match="unknown block kind"):
        fill_document("<!-- begin nope mini -->\n<!-- end nope mini -->", tmp_path)
