"""Hostile model files: each one loads and predicts finite values or raises ValueError; none crashes or hangs.

Every document that could crash is loaded in a child process (a worker that reads one
document per line and answers one verdict per line, its address space capped), so a
regression that segfaults, aborts, loops or allocates without bound fails one test with
the signal's name instead of killing the run. The worker predicts, and walks what the
Inspector and scikit-learn's tools read later (a wrapped tree's ``decision_path``, the
importances), so a field that only those trust is exercised too.
"""

from __future__ import annotations

import json
import os
import re
import resource
import selectors
import signal
import subprocess
import sys

import numpy as np
import pytest
from curvedtrees import io
from curvedtrees.klein import KleinTreeClassifier, KleinTreeRegressor
from curvedtrees.sampling import make_classification
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

xgboost = pytest.importorskip("xgboost")
lightgbm = pytest.importorskip("lightgbm")

SIG = "H2"

# The worker: for each line {"doc": text}, load it, predict on X, and answer ok (with
# whether every output is finite) or the exception's type and message.
_WORKER = r"""
import json, sys
import numpy as np
from curvedtrees import io
X = np.asarray(json.loads(sys.argv[1]), dtype=np.float64)
for line in sys.stdin:
    try:
        model = io.loads(json.loads(line)["doc"])
        outputs = [np.asarray(model.predict(X))]
        if hasattr(model, "predict_proba"):
            outputs.append(np.asarray(model.predict_proba(X), dtype=np.float64))
        # What the Inspector and scikit-learn's tools read later: the wrapped tree's paths
        # (a buffer sized by max_depth) and the importances.
        inner = getattr(model, "estimator_", None)
        if hasattr(inner, "decision_path") and hasattr(model, "transform_features"):
            features = model.transform_features(X)
            inner.decision_path(features)
            inner.apply(features)
        if hasattr(model, "feature_importances_"):
            outputs.append(np.asarray(model.feature_importances_, dtype=np.float64))
        finite = all(o.dtype.kind not in "fc" or bool(np.all(np.isfinite(o))) for o in outputs)
        answer = {"verdict": "ok", "finite": finite, "n": len(outputs[0])}
    except Exception as exc:
        answer = {"verdict": type(exc).__name__, "message": str(exc)}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""


# The worker's address-space cap: Python with XGBoost, LightGBM, scikit-learn and the engine
# imported, one thread each, reserves about 1 GB; 3 GB leaves every legitimate document room
# and turns a regression that allocates without bound into one failed document.
WORKER_MEMORY = 3 * 2**30


def _cap_worker_memory():
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY, WORKER_MEMORY))


class Worker:
    """A child process that loads documents; a crash, a hang or exhausted memory fails the document that caused it."""

    def __init__(self, X: np.ndarray, code: str = _WORKER):
        self.X = X
        self.code = code
        self.process = None

    def _start(self):
        self.process = subprocess.Popen(
            [sys.executable, "-c", self.code, json.dumps(self.X.tolist())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            preexec_fn=_cap_worker_memory,
            # One thread each: thread pools reserve address space of their own.
            env=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", NUMBA_NUM_THREADS="1"),
            text=True,
            bufsize=1,
        )

    def close(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def run(self, document, timeout: float = 60.0) -> dict:
        """The verdict on one document; AssertionError naming the signal if the child died or hung."""
        if self.process is None or self.process.poll() is not None:
            self._start()
        text = document if isinstance(document, str) else json.dumps(document)
        self.process.stdin.write(json.dumps({"doc": text}) + "\n")
        self.process.stdin.flush()
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            ready = selector.select(timeout)
        if not ready:
            self.close()
            raise AssertionError(f"loading the document hung for more than {timeout} s")
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            self.process = None
            name = signal.Signals(-code).name if code < 0 else f"exit code {code}"
            raise AssertionError(f"loading the document killed the child process ({name})")
        return json.loads(line)


def assert_refused(worker: Worker, document, pattern: str) -> None:
    answer = worker.run(document)
    assert answer["verdict"] == "ValueError", answer
    assert re.search(pattern, answer["message"]), answer["message"]


def assert_safe(worker: Worker, document) -> None:
    """Loads and predicts finite values, or is refused with ValueError (never another exception)."""
    answer = worker.run(document)
    assert answer["verdict"] in ("ok", "ValueError"), answer
    if answer["verdict"] == "ok":
        assert answer["finite"], "the document loaded but predicts non-finite values"


# --------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def data():
    return make_classification(SIG, n_samples=150, n_classes=3, n_clusters=3, random_state=0)


@pytest.fixture(scope="module")
def worker(data):
    X, _ = data
    w = Worker(X[:20])
    yield w
    w.close()


@pytest.fixture(scope="module")
def documents(data):
    X, y = data
    models = {
        "xgboost": KleinTreeClassifier(xgboost.XGBClassifier(n_estimators=3, max_depth=3), signature=SIG),
        "lightgbm": KleinTreeClassifier(
            lightgbm.LGBMClassifier(n_estimators=3, num_leaves=5, min_child_samples=5, verbose=-1), signature=SIG
        ),
        "decision_tree": KleinTreeClassifier("decision_tree", signature=SIG),
        "random_forest": KleinTreeClassifier(
            RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0), signature=SIG
        ),
        "xgboost_regressor": KleinTreeRegressor(xgboost.XGBRegressor(n_estimators=3, max_depth=3), signature=SIG),
        "lightgbm_binary": KleinTreeClassifier(
            lightgbm.LGBMClassifier(n_estimators=3, num_leaves=5, min_child_samples=5, verbose=-1), signature=SIG
        ),
    }
    out = {}
    for name, model in models.items():
        target = y if "regressor" not in name else X[:, 1]
        if name == "lightgbm_binary":
            target = y == 0
        out[name] = json.loads(io.dumps(model.fit(X, target)))
    return out


def _with_inner(document, change):
    """A copy of a Klein document with its embedded XGBoost JSON or LightGBM text changed."""
    bad = json.loads(json.dumps(document))
    backend = bad["fitted"]["backend"]
    if backend["kind"] == "xgboost":
        inner = json.loads(backend["model"])
        change(inner)
        backend["model"] = json.dumps(inner)
    else:
        backend["model"] = change(backend["model"])
    return bad


def _xgb_tree(inner, i=0):
    return inner["learner"]["gradient_booster"]["model"]["trees"][i]


def _set(key, index, value, tree=0):
    def change(inner):
        _xgb_tree(inner, tree)[key][index] = value

    return change


def _drop_last_tree(inner):
    body = inner["learner"]["gradient_booster"]["model"]
    body["trees"].pop()
    body["gbtree_model_param"]["num_trees"] = str(len(body["trees"]))


def test_valid_documents_load_and_predict_in_the_worker(worker, documents):
    for name, document in documents.items():
        answer = worker.run(document)
        assert answer == {"verdict": "ok", "finite": True, "n": 20}, name


# ------------------------------------------------------ the cases: XGBoost
@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        pytest.param(_set("left_children", 0, 0), r"trees\[0\]: children must come after their parent", id="cycle"),
        pytest.param(_set("left_children", 1, 1), r"trees\[0\]: children must come after", id="self-loop"),
        pytest.param(_set("right_children", 0, 10**6), r"trees\[0\]: child index out of range", id="child-range"),
        pytest.param(_set("left_children", 0, -5), r"trees\[0\]: child index out of range", id="negative-child"),
        pytest.param(
            _set("split_indices", 0, 7), r"trees\[0\].split_indices: split feature out of range", id="feature-range"
        ),
        pytest.param(_set("split_conditions", 0, 1e39), r"split_conditions must be finite float32", id="threshold"),
        pytest.param(_set("split_type", 0, 1), r"categorical splits are refused", id="categorical"),
        pytest.param(
            lambda m: m["learner"]["gradient_booster"]["model"]["gbtree_model_param"].update(num_trees="8"),
            r"num_trees must equal the number of trees",
            id="tree-count",
        ),
        pytest.param(_drop_last_tree, r"not whole iterations", id="missing-tree"),
        pytest.param(
            lambda m: m["learner"]["learner_model_param"].update(num_class="5"), r"num_class must be 3", id="num-class"
        ),
        pytest.param(
            lambda m: m["learner"].update(extra={}), r"not understood, so refused: \['extra'\]", id="unknown-key"
        ),
        pytest.param(
            lambda m: m["learner"]["gradient_booster"].update(name="gblinear"),
            r"must be 'gbtree' or 'dart'",
            id="booster",
        ),
    ],
)
def test_hostile_xgboost_models_are_refused_not_crashed(worker, documents, change, pattern):
    assert_refused(worker, _with_inner(documents["xgboost"], change), pattern)


# ----------------------------------------------------- the cases: LightGBM
def _lgb_replace(pattern, replacement, count=1):
    return lambda text: re.sub(pattern, replacement, text, count=count, flags=re.M)


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        pytest.param(
            _lgb_replace(r"^Tree=1$", "Tree=7"), r"tree 1 must start with the line 'Tree=1'", id="tree-number"
        ),
        pytest.param(_lgb_replace(r"^num_cat=0$", "num_cat=1"), r"num_cat must be 0: categorical", id="num-cat"),
        pytest.param(
            lambda t: re.sub(
                r"^left_child=\S+", "left_child=0", re.sub(r"^tree_sizes=.*\n", "", t, flags=re.M), count=1, flags=re.M
            ),
            r"Tree=0: children must come after their parent",
            id="no-tree-sizes-and-left-child-0",
        ),
        pytest.param(_lgb_replace(r"^tree_sizes=(\d+) ", "tree_sizes=5 "), None, id="wrong-tree-sizes"),
        pytest.param(
            _lgb_replace(r"^num_leaves=\d+$", "num_leaves=40"), r"Tree=0.split_feature must hold 39", id="num-leaves"
        ),
        pytest.param(
            _lgb_replace(r"^split_feature=\d+", "split_feature=9"),
            r"split_feature must hold integers in",
            id="feature-range",
        ),
        pytest.param(
            _lgb_replace(r"^leaf_value=\S+", "leaf_value=nan"), r"leaf_value must hold plain finite", id="leaf-nan"
        ),
        pytest.param(
            _lgb_replace(r"^right_child=\S+", "right_child=-99"),
            r"right_child must hold integers in",
            id="negative-child",
        ),
        pytest.param(
            _lgb_replace(r"^decision_type=\d+", "decision_type=1"), r"categorical refused", id="categorical-decision"
        ),
        pytest.param(
            _lgb_replace(r"^num_tree_per_iteration=3$", "num_tree_per_iteration=2"),
            r"num_tree_per_iteration must be 3",
            id="trees-per-iteration",
        ),
        pytest.param(_lgb_replace(r"^is_linear=0$", "is_linear=1"), r"linear trees are refused", id="linear"),
        pytest.param(
            _lgb_replace(r"^shrinkage=", "surprise=1\nshrinkage="), r"not understood, so refused", id="unknown-key"
        ),
        pytest.param(
            _lgb_replace(r"^pandas_categorical:null$", 'pandas_categorical:[["a"]]'),
            r"pandas categorical features are refused",
            id="pandas-categorical",
        ),
    ],
)
def test_hostile_lightgbm_models_are_refused_not_crashed(worker, documents, change, pattern):
    document = _with_inner(documents["lightgbm"], change)
    assert document != documents["lightgbm"]
    if pattern is None:  # tree_sizes are recomputed, never trusted: the model loads as it was
        assert worker.run(document) == {"verdict": "ok", "finite": True, "n": 20}
    else:
        assert_refused(worker, document, pattern)


# ------------------------------------------- scikit-learn trees inside Klein wrappers
def _sk_values(document, forest=False):
    backend = document["fitted"]["backend"]
    return backend["trees"][0] if forest else backend["tree"]


@pytest.mark.parametrize("name", ["decision_tree", "random_forest"])
@pytest.mark.parametrize(
    ("field", "value", "pattern"),
    [
        ("values", "nan", r"values must be finite"),
        ("values", "inf", r"values must be finite"),
        ("values", -3.0, r"values must be non-negative class weights"),
        ("n_node_samples", -4, r"n_node_samples must be non-negative finite counts"),
        ("weighted_n_node_samples", "nan", r"weighted_n_node_samples must be non-negative finite counts"),
        ("impurity", "inf", r"impurity must be finite"),
    ],
)
def test_hostile_sklearn_trees_in_klein_wrappers_are_refused(worker, documents, name, field, value, pattern):
    bad = json.loads(json.dumps(documents[name]))
    tree = _sk_values(bad, forest=name == "random_forest")
    array = tree["values"] if field == "values" else tree["nodes"][field]
    leaf = tree["nodes"]["left_child"]["data"].index(-1)
    index = leaf * (len(array["data"]) // len(tree["nodes"]["left_child"]["data"])) if field == "values" else leaf
    array["data"][index] = value
    assert_refused(worker, bad, pattern)


def test_a_leaf_of_zero_class_weights_is_refused(worker, documents):
    bad = json.loads(json.dumps(documents["decision_tree"]))
    tree = _sk_values(bad)
    leaf = tree["nodes"]["left_child"]["data"].index(-1)
    width = len(tree["values"]["data"]) // len(tree["nodes"]["left_child"]["data"])
    tree["values"]["data"][leaf * width : (leaf + 1) * width] = [0.0] * width
    assert_refused(worker, bad, r"values must have a positive finite sum at every leaf")


# ----------------------------------------------------------- property-based tampering
def _numeric_paths(obj, path=()):
    """Paths to every number (and integer written as text) inside a JSON value."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _numeric_paths(value, (*path, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _numeric_paths(value, (*path, i))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield path
    elif isinstance(obj, str) and re.fullmatch(r"-?\d+", obj):
        yield path


def _put(obj, path, value):
    for key in path[:-1]:
        obj = obj[key]
    old = obj[path[-1]]
    obj[path[-1]] = str(value) if isinstance(old, str) else value


_REPLACEMENTS = st.one_of(
    st.integers(-3, 12),
    st.integers(-(2**40), 2**40),
    st.sampled_from([2**31 - 1, -(2**31), 2**63, 0.5, -1e39, 1e300, 3.4e38]),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
_TAMPER = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@_TAMPER
@given(data=st.data())
def test_tampered_xgboost_numbers_never_crash(worker, documents, data):
    document = documents["xgboost"]
    inner = json.loads(document["fitted"]["backend"]["model"])
    paths = list(_numeric_paths(inner))
    for _ in range(data.draw(st.integers(1, 3))):
        _put(inner, data.draw(st.sampled_from(paths)), data.draw(_REPLACEMENTS))
    bad = json.loads(json.dumps(document))
    bad["fitted"]["backend"]["model"] = json.dumps(inner)
    assert_safe(worker, bad)


_LGB_NUMBER = re.compile(r"(?<=[=\s])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?=[\s\n])")


@_TAMPER
@given(data=st.data())
def test_tampered_lightgbm_numbers_never_crash(worker, documents, data):
    document = documents["lightgbm"]
    text = document["fitted"]["backend"]["model"]
    text = text[: text.index("end of trees")]  # the tail (parameters) is never passed on
    spans = [m.span() for m in _LGB_NUMBER.finditer(text)]
    for _ in range(data.draw(st.integers(1, 3))):
        start, end = data.draw(st.sampled_from(spans))
        value = data.draw(st.one_of(_REPLACEMENTS, st.sampled_from(["nan", "inf", "-1", "1e999"])))
        text = text[:start] + str(value) + text[end:]
        spans = [m.span() for m in _LGB_NUMBER.finditer(text)]
    bad = json.loads(json.dumps(document))
    tail = document["fitted"]["backend"]["model"]
    bad["fitted"]["backend"]["model"] = text + tail[tail.index("end of trees") :]
    assert_safe(worker, bad)


@_TAMPER
@given(data=st.data())
def test_tampered_sklearn_arrays_never_crash(worker, documents, data):
    name = data.draw(st.sampled_from(["decision_tree", "random_forest"]))
    bad = json.loads(json.dumps(documents[name]))
    backend = bad["fitted"]["backend"]
    paths = [p for p in _numeric_paths(backend) if "data" in p or "shape" in p or p[-1] in ("max_depth", "n_features")]
    for _ in range(data.draw(st.integers(1, 3))):
        value = data.draw(st.one_of(_REPLACEMENTS, st.sampled_from(["nan", "inf", "-inf"])))
        _put(backend, data.draw(st.sampled_from(paths)), value)
    assert_safe(worker, bad)


# -------------------------------------------------------------- the test harness
def test_the_worker_turns_a_crash_or_a_hang_into_one_failed_test(data):
    X, _ = data
    crash = Worker(X[:2], "import os, signal, sys; sys.stdin.readline(); os.kill(os.getpid(), signal.SIGSEGV)")
    with pytest.raises(AssertionError, match="killed the child process \\(SIGSEGV\\)"):
        crash.run({})
    hang = Worker(X[:2], "import sys, time; sys.stdin.readline(); time.sleep(60)")
    with pytest.raises(AssertionError, match="hung"):
        hang.run({}, timeout=1.0)
    assert hang.process is None  # killed, so the next document gets a fresh child


# ------------------------------------------------------------------ the Train page
APP = str(__import__("pathlib").Path(__file__).resolve().parents[1] / "app.py")


def _train_page():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/2_Train.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _upload(at, name: str, payload: bytes):
    at.file_uploader(key="train_upload").set_value((name, payload, "application/json"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_train_page_reports_a_hostile_klein_file_once_and_keeps_running(monkeypatch):
    import ui.sandbox

    calls = []
    real = ui.sandbox.load_model_isolated
    monkeypatch.setattr(ui.sandbox, "load_model_isolated", lambda *a, **k: calls.append(1) or real(*a, **k))
    at = _train_page()
    data = at.session_state["ct:data"]
    before = at.session_state["ct:model"].model_id
    model = KleinTreeClassifier(xgboost.XGBClassifier(n_estimators=2, max_depth=2), signature=str(data.signature))
    document = json.loads(io.dumps(model.fit(data.X, data.y)))
    hostile = _with_inner(document, _set("left_children", 0, 0))  # the cycle: a segfault before the fix
    _upload(at, "hostile.json", json.dumps(hostile).encode())
    messages = [e.value for e in at.error]
    assert len(messages) == 1 and "children must come after their parent" in messages[0], messages
    assert at.session_state["ct:model"].model_id == before
    at.run()  # a rerun shows the verdict again without loading the file again
    assert not at.exception and len(calls) == 1 and len(at.error) == 1

    _upload(at, "good.json", json.dumps(document).encode())
    assert not at.error, [e.value for e in at.error]
    loaded = at.session_state["ct:model"]
    assert loaded.source == "uploaded" and loaded.model_id != before
    notes = [str(s.value) for s in at.success]
    assert any(n.startswith("Loaded Klein-model wrapper") and f"all {len(data.X):,} rows" in n for n in notes), notes
    labels = [str(v) for table in at.table for v in table.value["metric"]]
    assert f"accuracy on all {len(data.X):,} rows of the current dataset" in labels, labels
    assert not any("test" in label for label in labels), labels


def test_the_train_page_names_a_label_mismatch_in_words():
    at = _train_page()
    data = at.session_state["ct:data"]
    words = np.array(["north", "south", "east", "west"])[np.searchsorted(np.unique(data.y), data.y) % 4]
    model = KleinTreeClassifier("decision_tree", signature=str(data.signature)).fit(data.X, words)
    _upload(at, "words.json", io.dumps(model).encode())
    (message,) = [e.value for e in at.error]
    assert "This model predicts the labels {" in message and "the current dataset's labels are {" in message
    assert "Mix of label input types" not in message


# ------------------------------------------------------------------- ui.sandbox
def test_sandbox_turns_a_native_crash_a_hang_and_a_memory_limit_into_plain_errors(data, monkeypatch):
    import ui.sandbox
    from ui.sandbox import ModelFileError, load_model_isolated

    X, y = data
    good = io.dumps(KleinTreeClassifier("decision_tree", signature=SIG).fit(X, y)).encode()
    model = load_model_isolated(good, X, SIG)
    assert isinstance(model, KleinTreeClassifier) and model.predict(X[:3]).shape == (3,)
    # Out of wall time (the CPU-time limit was not reached): a busy server, not a damaged file.
    with pytest.raises(
        ui.sandbox.CheckerBusy, match=r"too busy to finish checking the model file within 0\.01 seconds"
    ):
        load_model_isolated(good, X, timeout_s=0.01)
    with pytest.raises(ModelFileError, match="rejected: model file is not valid JSON"):
        load_model_isolated(b"{nope", X)
    with pytest.raises(ModelFileError, match="not UTF-8"):
        load_model_isolated(b"\xff\xfe", X)
    # A crash no check foresaw: the child is killed by a signal, the caller gets a sentence.
    monkeypatch.setattr(ui.sandbox, "_CHILD", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    with pytest.raises(ModelFileError, match=r"crashed the separate process that checks it \(SIGSEGV\)"):
        load_model_isolated(good, X)
    monkeypatch.setattr(
        ui.sandbox,
        "_CHILD",
        "import resource, sys; limit = int(sys.argv[1]) * 2**20\n"
        "resource.setrlimit(resource.RLIMIT_AS, (limit, limit)); b = bytearray(2**30)",
    )
    with pytest.raises(ModelFileError, match="more than the 256 MiB allowed"):
        load_model_isolated(good, X, memory_mb=256)


def test_sandbox_checks_a_model_against_the_dataset_in_words(data):
    from types import SimpleNamespace

    from curvedtrees.manifolds import Signature

    from ui.sandbox import ModelFileError, check_against_dataset

    X, y = data
    model = KleinTreeClassifier("decision_tree", signature=SIG).fit(X, y)

    def dataset(X=X, y=y, signature=SIG, task="classification"):
        return SimpleNamespace(X=X, y=y, signature=Signature.parse(signature), task=task)

    check_against_dataset(model, dataset())
    with pytest.raises(ModelFileError, match=r"This model was trained on H2; the current dataset is on S2\."):
        check_against_dataset(model, dataset(signature="S2"))
    with pytest.raises(ModelFileError, match=r"reads rows of 3 numbers; the current dataset's rows have 2"):
        check_against_dataset(model, dataset(X=X[:, 1:]))
    with pytest.raises(ModelFileError, match=r"This model is a classifier; the current dataset is a regression task"):
        check_against_dataset(model, dataset(task="regression"))
    with pytest.raises(
        ModelFileError,
        match=r"predicts the labels \{0, 1, 2\}; the current dataset's labels are "
        r"\{a, b\}\.",
    ):
        check_against_dataset(model, dataset(y=np.where(y == 0, "a", "b")))
    with pytest.raises(ModelFileError, match=r"the current dataset's labels are \{1, 2, 3\}"):
        check_against_dataset(model, dataset(y=np.where(y == 0, 3, y)))


# ------------------------------------- issue 27: every field a library trusts, every output bounded
# Each document is loaded, predicted on and (for scikit-learn trees) walked by decision_path
# in the worker: the max_depth case wrote past decision_path's buffer (SIGSEGV) before.
@pytest.fixture(scope="module")
def more_documents(data):
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingRegressor, RandomForestRegressor
    from sklearn.tree import DecisionTreeRegressor

    X, y = data
    models = {
        "tree_regressor": KleinTreeRegressor(DecisionTreeRegressor(max_depth=3, random_state=0), signature=SIG),
        "forest_regressor": KleinTreeRegressor(
            RandomForestRegressor(n_estimators=2, max_depth=3, random_state=0), signature=SIG
        ),
        "gradient_boosting": KleinTreeClassifier(
            GradientBoostingClassifier(n_estimators=3, max_depth=2, random_state=0), signature=SIG
        ),
        "hist_gradient_boosting": KleinTreeRegressor(
            HistGradientBoostingRegressor(max_iter=3, max_leaf_nodes=4, random_state=0), signature=SIG
        ),
        "lightgbm_regressor": KleinTreeRegressor(
            lightgbm.LGBMRegressor(n_estimators=3, num_leaves=4, min_child_samples=5, verbose=-1), signature=SIG
        ),
    }
    out = {}
    for name, model in models.items():
        target = y if isinstance(model, KleinTreeClassifier) else X[:, 1]
        out[name] = json.loads(io.dumps(model.fit(X, target)))
    return out


def _sk_tree(document):
    """The first scikit-learn tree state of a Klein document (a tree, a forest's or a boosting stage's)."""
    backend = document["fitted"]["backend"]
    if backend["kind"] == "sklearn_tree":
        return backend["tree"]
    if backend["kind"] == "sklearn_forest":
        return backend["trees"][0]
    return backend["stages"][0][0]


def _first_leaf(tree) -> int:
    return tree["nodes"]["left_child"]["data"].index(-1)


def _sk(change):
    """An edit of a copy of a document that applies ``change`` to its first scikit-learn tree."""

    def edit(document):
        bad = json.loads(json.dumps(document))
        change(_sk_tree(bad))
        return bad

    return edit


def _node(field, node, value):
    def change(tree):
        tree["nodes"][field]["data"][_first_leaf(tree) if node is None else node] = value

    return change


def _five_classes(tree):
    n = len(tree["nodes"]["left_child"]["data"])
    tree["n_classes"] = [5]
    tree["values"] = {"dtype": "float64", "shape": [n, 1, 5], "data": [0.2] * 5 * n}


def _leaf_value(value, width=1, count=1):
    def change(tree):
        start = _first_leaf(tree) * width
        tree["values"]["data"][start : start + count] = [value] * count

    return change


def _every_forest_leaf(value):
    def edit(document):
        bad = json.loads(json.dumps(document))
        for tree in bad["fitted"]["backend"]["trees"]:
            tree["values"]["data"][_first_leaf(tree)] = value
        return bad

    return edit


def _gb_learning_rate(rate):
    def edit(document):
        bad = json.loads(json.dumps(document))
        bad["params"]["estimator"]["params"]["learning_rate"] = rate
        return bad

    return edit


def _hgb_leaves(value):
    def edit(document):
        bad = json.loads(json.dumps(document))
        for row in bad["fitted"]["backend"]["predictors"][:2]:
            nodes = row[0]["nodes"]
            nodes["value"]["data"][nodes["is_leaf"]["data"].index(1)] = value
        return bad

    return edit


def _hgb_count(document):
    bad = json.loads(json.dumps(document))
    bad["fitted"]["backend"]["predictors"][0][0]["nodes"]["count"]["data"][0] += 5
    return bad


SKLEARN_FIELDS = [
    # The case: decision_path's buffer is sized by max_depth.
    (
        "max_depth-0",
        "decision_tree",
        _sk(lambda t: t.update(max_depth=0)),
        r"max_depth must be the tree's depth, \d+ .*got 0",
    ),
    ("forest-max_depth", "random_forest", _sk(lambda t: t.update(max_depth=1)), r"trees\[0\]: max_depth must be"),
    ("max_depth-huge", "decision_tree", _sk(lambda t: t.update(max_depth=10**6)), r"max_depth must be the tree's"),
    ("max_depth-bool", "decision_tree", _sk(lambda t: t.update(max_depth=True)), r"max_depth must be the tree's"),
    # n_classes sets value_stride and predict_proba's width: the wrapper's, exactly.
    ("n_classes", "decision_tree", _sk(_five_classes), r"n_classes must be \[3\]"),
    ("regression-n_classes", "tree_regressor", _sk(lambda t: t.update(n_classes=[4])), r"n_classes must be \[1\]"),
    ("max_features", "decision_tree", _sk(lambda t: t.update(max_features=99)), r"max_features must be an integer"),
    # Counts and weights: their children's sums, positive at splits (partial dependence divides).
    ("counts", "decision_tree", _sk(_node("n_node_samples", 0, 7)), r"count must be its children's sum"),
    ("root-weight", "decision_tree", _sk(_node("weighted_n_node_samples", 0, 0.0)), r"positive at every split"),
    ("weights", "decision_tree", _sk(_node("weighted_n_node_samples", 0, 1e9)), r"weight must be its children's"),
    # A finite impurity times a finite weight overflows: the importances would be NaN.
    ("impurity-overflow", "decision_tree", _sk(_node("impurity", 0, 1e307)), r"weighted impurities overflow"),
    # Two class weights of 1e308 sum to inf: predict_proba would divide inf by inf.
    ("leaf-weights-sum", "decision_tree", _sk(_leaf_value(1e308, 3, 2)), r"positive finite sum at every leaf"),
    # What a model can output, along every path.
    ("leaf-1e300", "tree_regressor", _sk(_leaf_value(1e300)), r"a leaf value can reach 1e\+300.*MAX_MODEL_OUTPUT"),
    ("forest-sum", "forest_regressor", _every_forest_leaf(0.6e120), r"the sum of the trees' largest leaf values"),
    ("gb-rate", "gradient_boosting", _gb_learning_rate(1e308), r"learning_rate \(1e\+308\) times the stages'"),
    ("gb-leaf", "gradient_boosting", _sk(_leaf_value(1e200)), r"the initial score plus learning_rate"),
    ("hgb-sum", "hist_gradient_boosting", _hgb_leaves(1e308), r"the baseline plus the iterations' largest leaves"),
    ("hgb-count", "hist_gradient_boosting", _hgb_count, r"count must be positive at every split node and its"),
]


@pytest.mark.parametrize(
    ("name", "edit", "pattern"), [case[1:] for case in SKLEARN_FIELDS], ids=[case[0] for case in SKLEARN_FIELDS]
)
def test_fields_scikit_learn_trusts_are_checked_in_the_worker(worker, documents, more_documents, name, edit, pattern):
    assert_refused(worker, edit({**documents, **more_documents}[name]), pattern)


def _xgb_leaf(inner, tree, value):
    nodes = _xgb_tree(inner, tree)
    nodes["split_conditions"][nodes["left_children"].index(-1)] = value


def _xgb_objective(name, base_score, leaf=None):
    def change(inner):
        inner["learner"]["objective"] = {"name": name}
        inner["learner"]["learner_model_param"]["base_score"] = base_score
        if leaf is not None:
            _xgb_leaf(inner, 0, leaf)

    return change


def _two_xgb_leaves(value, trees=(0, 3)):
    def change(inner):
        for tree in trees:
            _xgb_leaf(inner, tree, value)

    return change


XGBOOST_OUTPUTS = [
    # XGBoost adds leaves in float32: two leaves near float32's maximum overflow to inf.
    ("float32-sum", "xgboost", _two_xgb_leaves(3.4e38), r"the base margin plus every tree's largest leaf can reach"),
    ("regressor-sum", "xgboost_regressor", _two_xgb_leaves(3e38, (0, 1)), r"every tree's largest leaf can reach 6e"),
    # The first raw score is base_score's logit or log: a probability, or positive.
    ("logistic-base", "xgboost_regressor", _xgb_objective("reg:logistic", "2E0"), r"a probability in \(0, 1\)"),
    ("gamma-base", "xgboost_regressor", _xgb_objective("reg:gamma", "-1E0"), r"base_score must be positive"),
    # Poisson predicts exp(raw score): a leaf of 100 overflows float32.
    ("poisson-exp", "xgboost_regressor", _xgb_objective("count:poisson", "2E0", 100.0), r"count:poisson \(predicted"),
]


@pytest.mark.parametrize(
    ("name", "change", "pattern"), [case[1:] for case in XGBOOST_OUTPUTS], ids=[case[0] for case in XGBOOST_OUTPUTS]
)
def test_xgboost_outputs_are_bounded_in_float32(worker, documents, name, change, pattern):
    assert_refused(worker, _with_inner(documents[name], change), pattern)


def _lgb_poisson(text):
    text = re.sub(r"^objective=regression\b", "objective=poisson", text, count=1, flags=re.M)
    return re.sub(r"^leaf_value=(\S+)", "leaf_value=800", text, count=1, flags=re.M)


def test_lightgbm_leaf_sums_and_log_link_raw_scores_are_bounded(worker, more_documents):
    document = more_documents["lightgbm_regressor"]
    # Two trees with a leaf of 1e300: each finite, their sum beyond MAX_MODEL_OUTPUT.
    big = _lgb_replace(r"^leaf_value=(\S+)", r"leaf_value=1e300", count=2)
    assert_refused(worker, _with_inner(document, big), r"the sum of the trees' largest leaf values can reach 2e")
    # Poisson predicts exp(raw score): a leaf of 800 overflows float64.
    assert_refused(worker, _with_inner(document, _lgb_poisson), r"raw score of poisson \(predicted as its exp\)")


def test_thread_counts_of_a_wrapped_model_are_never_read_from_a_file(documents):
    bad = json.loads(json.dumps(documents["random_forest"]))
    bad["params"]["estimator"]["params"]["n_jobs"] = 20_000
    model = io.loads(json.dumps(bad))
    assert model.estimator.n_jobs is None and model.estimator_.n_jobs is None


@pytest.mark.parametrize("name", ["decision_tree", "xgboost", "lightgbm"])
def test_klein_labels_beyond_int64_are_refused_in_words(worker, documents, name):
    bad = json.loads(json.dumps(documents[name]))
    bad["fitted"]["classes"] = {"kind": "int", "values": [0, 1, 2**70]}
    assert_refused(worker, bad, r"fitted\.classes: labels must lie in the int64 range")


def test_every_number_of_more_libraries_tampered_never_crashes(worker, more_documents):
    # Numbers of every scikit-learn state, each in turn set to a hostile value: the document
    # loads and predicts finite values, or is refused with ValueError. About 600 documents.
    rng = np.random.default_rng(0)
    for document in more_documents.values():
        backend = document["fitted"]["backend"]
        if "model" in backend:
            continue  # LightGBM's text: the property-based tests above
        paths = [p for p in _numeric_paths(backend) if "data" in p or p[-1] in ("max_depth", "n_features")]
        for k in rng.choice(len(paths), size=min(30, len(paths)), replace=False):
            for value in (0, -1, 1e308, "nan", 2**31):
                bad = json.loads(json.dumps(document))
                _put(bad["fitted"]["backend"], paths[k], value)
                assert_safe(worker, bad)


# --------------------------------------------- issue 27: baseline files get the trees' checks
@pytest.fixture(scope="module")
def baseline_documents(data):
    from curvedtrees.baselines import (
        AmbientClassifier,
        GeodesicKNNClassifier,
        GeodesicKNNRegressor,
        ProductPerceptronClassifier,
        ProductSVMClassifier,
        ProductSVMRegressor,
        TangentRegressor,
    )

    X, y = data
    target = X[:, 1]
    models = {
        "knn": GeodesicKNNClassifier(n_neighbors=3, signature=SIG).fit(X, y),
        "knn_regressor": GeodesicKNNRegressor(n_neighbors=3, signature=SIG, weights="distance").fit(X, target),
        "perceptron": ProductPerceptronClassifier(signature=SIG, random_state=0).fit(X, y),
        "svm": ProductSVMClassifier(signature=SIG).fit(X, y),
        "svr": ProductSVMRegressor(signature=SIG).fit(X, target),
        "ambient": AmbientClassifier(signature=SIG).fit(X, y),
        "ambient-depth": AmbientClassifier(
            estimator=DecisionTreeClassifier(max_depth=3, random_state=0), signature=SIG
        ).fit(X, y),
        "tangent_regressor": TangentRegressor(signature=SIG).fit(X, target),
    }
    return {name: json.loads(io.dumps(model)) for name, model in models.items()}


def _edit(path, value):
    def edit(document):
        bad = json.loads(json.dumps(document))
        target = bad
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value
        return bad

    return edit


def _set_item(index, value):
    def change(array):
        array["data"][index] = value
        return array

    return change


def _scale(factor):
    def change(array):
        array["data"] = [v * factor for v in array["data"]]
        return array

    return change


BASELINE_FIELDS = [
    # Parameters, validated at load as fit validates them.
    ("knn-weights", "knn", _edit(("params", "weights"), "x"), r"invalid parameters for GeodesicKNNClassifier.*weights"),
    ("knn-k-0", "knn", _edit(("params", "n_neighbors"), 0), r"n_neighbors"),
    ("knn-k-above", "knn", _edit(("params", "n_neighbors"), 10_000), r"n_neighbors is 10000, more than the 150"),
    ("svm-C", "svm", _edit(("params", "C"), -1.0), r"invalid parameters for ProductSVMClassifier.*'C'"),
    ("svm-gamma", "svr", _edit(("params", "gamma"), "huge"), r"invalid parameters for ProductSVMRegressor.*gamma"),
    ("perceptron-weights", "perceptron", _edit(("params", "component_weights"), ["a"]), r"component_weights"),
    ("wrapper-estimator", "ambient", _edit(("params", "estimator"), "x"), r"estimator must be null or an object"),
    (
        "wrapper-estimator-disagrees",
        "ambient-depth",
        _edit(("params", "estimator", "params", "max_depth"), 7),
        r"fitted.estimator: its class or parameters differ from params.estimator",
    ),
    (
        "wrapper-estimator-class",
        "ambient",
        _edit(("params", "estimator"), {"class": "os.system", "params": {}}),
        r"unsupported wrapped model",
    ),
    # Labels beyond int64 (OverflowError before) and too many classes.
    ("knn-int64", "knn", _edit(("fitted", "classes"), {"kind": "int", "values": [0, 1, 2**70]}), r"int64 range"),
    ("svm-int64", "svm", _edit(("fitted", "classes"), {"kind": "int", "values": [0, 1, 2**64]}), r"int64 range"),
    (
        "svm-classes",
        "svm",
        _edit(("fitted", "classes"), {"kind": "int", "values": list(range(101))}),
        r"101 classes; an SVM file may have at most 100",
    ),
    (
        "knn-classes",
        "knn",
        _edit(("fitted", "classes"), {"kind": "int", "values": list(range(1001))}),
        r"1,001 classes; the limit is 1,000",
    ),
    (
        "label-length",
        "knn",
        _edit(("fitted", "classes"), {"kind": "str", "values": ["a", "b", "c" * 5000]}),
        r"a label has 5,000 characters",
    ),
    # Values a prediction is made of.
    ("knn-target-nan", "knn_regressor", _edit(("fitted", "y"), _set_item(0, "nan")), r"targets must be finite"),
    ("knn-target-big", "knn_regressor", _edit(("fitted", "y"), _set_item(0, 1e300)), r"a target can reach 1e\+300"),
    ("knn-point-nan", "knn", _edit(("fitted", "X"), _set_item(0, "nan")), r"fitted\.X"),
    ("perceptron-dual-nan", "perceptron", _edit(("fitted", "dual_coef"), _set_item(0, "nan")), r"whole numbers"),
    ("perceptron-dual-half", "perceptron", _edit(("fitted", "dual_coef"), _set_item(0, 0.5)), r"whole numbers"),
    ("perceptron-dual-big", "perceptron", _edit(("fitted", "dual_coef"), _set_item(0, 1e9)), r"at most n_iter"),
    ("perceptron-sv-nan", "perceptron", _edit(("fitted", "support_vectors"), _set_item(0, "nan")), r"support_vec"),
    ("perceptron-norm-0", "perceptron", _edit(("fitted", "normalisers"), _set_item(0, 0.0)), r"positive finite"),
    ("perceptron-norm-small", "perceptron", _edit(("fitted", "normalisers"), _scale(1e-6)), r"largest squared norm"),
    ("perceptron-n-iter", "perceptron", _edit(("fitted", "n_iter"), 10**6), r"n_iter must be an integer in \[0, "),
    ("svm-dual-big", "svm", _edit(("fitted", "dual_coef"), _set_item(0, 1e308)), r"a decision value .* can reach"),
    ("svr-dual-inf", "svr", _edit(("fitted", "dual_coef"), _set_item(0, "inf")), r"dual_coef must be finite"),
    ("svr-intercept", "svr", _edit(("fitted", "intercept"), _set_item(0, 1e200)), r"can reach 1e\+200"),
    # The wrappers' trees go through the Klein checks (max_depth sizes decision_path's buffer).
    ("ambient-max_depth", "ambient", _edit(("fitted", "estimator", "tree", "max_depth"), 0), r"max_depth must be"),
    (
        "tangent-leaf",
        "tangent_regressor",
        _edit(("fitted", "estimator", "tree", "values"), _set_item(-1, 1e300)),
        r"a leaf value can reach",
    ),
]


@pytest.mark.parametrize(
    ("name", "edit", "pattern"), [case[1:] for case in BASELINE_FIELDS], ids=[case[0] for case in BASELINE_FIELDS]
)
def test_baseline_files_get_the_field_checks_of_the_trees(worker, baseline_documents, name, edit, pattern):
    assert_refused(worker, edit(baseline_documents[name]), pattern)


def test_valid_baseline_documents_load_and_predict_in_the_worker(worker, baseline_documents):
    for name, document in baseline_documents.items():
        assert worker.run(document) == {"verdict": "ok", "finite": True, "n": 20}, name


def test_a_knn_file_of_more_points_than_the_app_trains_on_is_refused_before_predicting(worker):
    # The 100,000-point file took over a minute to predict 1,100 rows: refused at load.
    from curvedtrees.baselines import GeodesicKNNRegressor
    from curvedtrees.limits import MAX_MODEL_POINTS

    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 1))
    document = json.loads(io.dumps(GeodesicKNNRegressor(n_neighbors=1).fit(X, X[:, 0])))
    n = MAX_MODEL_POINTS + 1
    document["fitted"]["X"] = {"dtype": "float64", "shape": [n, 1], "data": [0.5] * n}
    document["fitted"]["y"] = {"dtype": "float64", "shape": [n], "data": [1.0] * n}
    answer = worker.run(document)
    assert answer["verdict"] == "ValueError" and f"{n:,} points" in answer["message"], answer
    assert "MAX_MODEL_POINTS" in answer["message"]


def test_infinite_float_labels_of_a_perceptron_are_refused(worker, baseline_documents):
    # JSON reads 1e400 as infinity; labels were never checked for finiteness (class 0 everywhere).
    bad = json.loads(json.dumps(baseline_documents["perceptron"]))
    bad["fitted"]["classes"] = {"kind": "float", "values": [0.0, 1.0, 98765.4321]}
    answer = worker.run(json.dumps(bad).replace("98765.4321", "1e400"))
    assert answer["verdict"] == "ValueError" and "labels must be finite numbers" in answer["message"], answer
