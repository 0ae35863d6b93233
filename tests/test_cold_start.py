"""Cold start: kernels compile in a background thread once per server; fit times exclude it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from ui import training, warmup


@pytest.fixture
def fresh_warmup(monkeypatch):
    """A process without a warm-up yet (the module's state is per process)."""
    monkeypatch.setattr(warmup, "_STATE", {"thread": None, "started_at": None, "spinner": None})
    monkeypatch.setattr(warmup, "_EVENTS", {key: threading.Event() for key, _, _ in warmup.STAGES})
    return warmup


class RecordingSpinner:
    def __init__(self):
        self.texts = []

    def __call__(self, text):
        self.texts.append(text)
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_one_thread_per_process_and_stages_in_order(fresh_warmup):
    calls = []
    release = threading.Event()

    def trees():
        release.wait(5)
        calls.append("trees")

    assert fresh_warmup.is_ready("trees")  # no warm-up started: nothing to wait for
    assert fresh_warmup.start([("trees", trees), ("klein", lambda: calls.append("klein"))])
    assert not fresh_warmup.start([("trees", lambda: calls.append("again"))])  # the guard
    assert not fresh_warmup.is_ready("trees") and not fresh_warmup.is_ready("klein")
    release.set()
    fresh_warmup._STATE["thread"].join(5)
    assert calls == ["trees", "klein"]
    assert fresh_warmup.is_ready("trees") and fresh_warmup.is_ready("klein")


def test_a_failing_stage_never_blocks_a_fit(fresh_warmup):
    def broken():
        raise RuntimeError("no compiler")

    fresh_warmup.start([("trees", broken), ("klein", lambda: None)])
    assert fresh_warmup.wait_for("klein") >= 0.0  # returns: the events are set even after a failure
    assert fresh_warmup.is_ready("trees")


def test_fit_time_excludes_the_wait_and_the_spinner_says_why(fresh_warmup):
    from curvedtrees.sampling import make_classification
    from curvedtrees.trees import ProductDecisionTreeClassifier

    X, y = make_classification("S2", n_samples=200, random_state=0)
    ProductDecisionTreeClassifier(signature="S2").fit(X, y)  # compiled here, not in the timed fit
    spinner = RecordingSpinner()
    fresh_warmup.start([("trees", lambda: time.sleep(1.5)), ("klein", lambda: None)], spinner=spinner)
    started = time.perf_counter()
    estimator, seconds = training.fit_model(ProductDecisionTreeClassifier(signature="S2"), X, y)
    wall = time.perf_counter() - started
    assert wall >= 1.4  # it did wait for the warm-up...
    assert seconds < 1.0  # ...and timed only the fit
    assert hasattr(estimator, "tree_")
    assert len(spinner.texts) == 1
    assert spinner.texts[0].startswith("Compiling the tree kernels (once per server, about 20 s")
    # Ready now: the next fit neither waits nor shows a spinner.
    training.fit_model(ProductDecisionTreeClassifier(signature="S2"), X, y)
    assert len(spinner.texts) == 1


def test_klein_fits_wait_for_the_klein_stage(fresh_warmup):
    from curvedtrees.klein import KleinTreeClassifier
    from curvedtrees.trees import ProductRandomForestClassifier

    assert fresh_warmup.kernels_for(KleinTreeClassifier()) == "klein"
    assert fresh_warmup.kernels_for(ProductRandomForestClassifier()) == "trees"
    spinner = RecordingSpinner()
    fresh_warmup.start([("trees", lambda: None), ("klein", lambda: time.sleep(0.5))])
    waited = fresh_warmup.wait_for("klein", spinner)
    assert waited > 0.3
    assert "Klein-model kernels (once per server, about 35 s" in spinner.texts[0]


def test_warm_up_compiles_the_prediction_kernels():
    # A fresh interpreter: in this one, other tests may have compiled them already.
    code = (
        "import curvedtrees.trees as t; t.warm_up()\n"
        "from curvedtrees.trees._builder import forest_accumulate\n"
        "from curvedtrees.manifolds._kernels import rows_clear\n"
        "print(len(forest_accumulate.signatures), len(rows_clear.signatures))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    n_forest, n_rows = (int(v) for v in out.stdout.split())
    assert n_forest >= 1 and n_rows >= 1


def test_fit_model_without_a_warm_up_does_not_wait(fresh_warmup):
    from curvedtrees.sampling import make_classification
    from curvedtrees.trees import ProductDecisionTreeClassifier

    X, y = make_classification("S2", n_samples=100, random_state=0)
    estimator, seconds = training.fit_model(ProductDecisionTreeClassifier(signature="S2"), X, y)
    assert not fresh_warmup.started()
    assert hasattr(estimator, "tree_") and np.isfinite(seconds) and seconds >= 0


@pytest.fixture
def fresh_compile_notice(monkeypatch):
    from curvedtrees import utils

    monkeypatch.setitem(utils._COMPILES, "seconds", 0.0)
    monkeypatch.setitem(utils._COMPILES, "told", False)
    monkeypatch.setitem(utils._COMPILES, "quiet", 0)
    return utils


def test_compile_notice_is_logged_once_past_a_second(fresh_compile_notice, caplog):
    utils = fresh_compile_notice
    with caplog.at_level("WARNING", logger="curvedtrees"):
        utils.compile_notice(0.6)
        assert not caplog.records  # under a second in all: nothing to say
        utils.compile_notice(0.6)
        utils.compile_notice(5.0)
    assert len(caplog.records) == 1
    assert "curvedtrees.warm_up()" in caplog.records[0].getMessage()


def test_no_compile_notice_inside_warm_up(fresh_compile_notice, caplog):
    utils = fresh_compile_notice
    with caplog.at_level("WARNING", logger="curvedtrees"):
        with utils.quiet_compiles():
            utils.compile_notice(3.0)
        utils.compile_notice(0.2)  # a fit's short compile after the warm-up: not added to its 3 s
    assert not caplog.records


_FIRST_FITS = (
    "import curvedtrees as ct\n"
    "X, y = ct.make_classification('H2 x E1', n_samples=100, random_state=0)\n"
    "ct.ProductDecisionTreeClassifier(signature='H2 x E1').fit(X, y)\n"
    "ct.ProductDecisionTreeRegressor(signature='H2 x E1').fit(X, y * 1.0)\n"
)


@pytest.mark.slow
def test_a_compiling_first_fit_says_so_once_and_a_cached_one_is_silent(tmp_path):
    # An empty numba cache: this process compiles the tree kernels (several CPU-seconds).
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    cold = subprocess.run([sys.executable, "-c", _FIRST_FITS], env=env, capture_output=True, text=True, check=True)
    assert cold.stderr.count("curvedtrees.warm_up()") == 1, cold.stderr
    warm = subprocess.run([sys.executable, "-c", _FIRST_FITS], env=env, capture_output=True, text=True, check=True)
    assert "curvedtrees.warm_up" not in warm.stderr, warm.stderr
