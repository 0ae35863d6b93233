"""Ctrl-C during a fit: prompt KeyboardInterrupt, stopped threads, an unfitted estimator.

The end-to-end tests run a fit on 10^6 rows in a child process, send it SIGINT once the
compiled build is running, and read what the child reports: how long the interrupt
took to arrive, what predict raises afterwards, which fitted attributes are left and
how much CPU the process still burns (threads that kept computing would).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestClassifier
from curvedtrees.trees._builder import build_tree
from curvedtrees.trees._interrupt import (
    BuildCancelled,
    clear_fitted,
    new_cancel_flag,
    raise_flag_on_sigint,
    run_interruptible,
)

# Seconds from SIGINT to the child's report. The builder checks its flag after every
# feature's sort (about 0.1 s at 10^6 rows); the rest is slack for a loaded machine.
# Without the flag the interrupt waits for the whole build: 10-30 s here.
_PROMPT_SECONDS = 2.0
# Seconds the child runs its fit before the signal: long enough to be inside the
# compiled build (validation and split-plane values take well under a second).
_SIGNAL_AFTER = 1.5

_CHILD = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    from sklearn.exceptions import NotFittedError
    from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestClassifier

    kind, n_jobs = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1_000_000, 6))
    y = rng.integers(0, 5, X.shape[0])  # noise: the fully grown trees take many seconds
    if kind.startswith("tree"):
        model = ProductDecisionTreeClassifier(signature="E6", random_state=0)
        # Compile (or load numba's cache) before the signal; "tree-refit" also starts fitted.
        (model if kind == "tree-refit" else ProductDecisionTreeClassifier(signature="E6")).fit(X[:500], y[:500])
    else:
        model = ProductRandomForestClassifier(12, signature="E6", n_jobs=n_jobs, random_state=0, warm_start=True)
        model.set_params(n_estimators=1).fit(X[:500], y[:500])  # compile, and a fitted tree to keep
        model.set_params(n_estimators=12)
    print("fitting", flush=True)
    try:
        model.fit(X, y)
        report = {"interrupted": False}
    except KeyboardInterrupt:
        report = {"interrupted": True, "at": time.time()}
    try:
        model.predict(X[:3])
        report["predict"] = "ok"
    except NotFittedError:
        report["predict"] = "NotFittedError"
    except Exception as exc:
        report["predict"] = type(exc).__name__
    report["fitted"] = sorted(k for k in vars(model) if k.endswith("_") and not k.startswith("__"))
    cpu = time.process_time()
    time.sleep(1.0)
    report["cpu_after"] = time.process_time() - cpu  # threads still building would add ~1 s per thread
    print(json.dumps(report), flush=True)
""")


def _interrupt_child(kind: str, n_jobs: int = 1) -> tuple[dict, float]:
    """Run the child, SIGINT it while it fits; returns its report and the seconds to it."""
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, kind, str(n_jobs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "fitting", child.stderr.read()
        time.sleep(_SIGNAL_AFTER)
        sent = time.time()
        os.kill(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    return report, report.get("at", float("inf")) - sent


@pytest.mark.slow
def test_ctrl_c_stops_a_single_tree_fit_at_a_million_rows():
    report, seconds = _interrupt_child("tree")
    assert report["interrupted"]
    assert seconds < _PROMPT_SECONDS, f"KeyboardInterrupt arrived {seconds:.1f} s after SIGINT"
    assert report["predict"] == "NotFittedError"
    assert report["cpu_after"] < 0.5, "the build kept computing after the interrupt"


@pytest.mark.slow
def test_ctrl_c_during_a_refit_leaves_the_tree_unfitted():
    report, seconds = _interrupt_child("tree-refit")
    assert report["interrupted"] and seconds < _PROMPT_SECONDS
    assert report["predict"] == "NotFittedError"
    assert report["fitted"] == []


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_ctrl_c_stops_every_forest_thread_and_leaves_the_forest_unfitted(n_jobs):
    # The forest had a fitted tree (warm_start): an interrupted fit still leaves it unfitted,
    # with no fitted attribute from either fit.
    report, seconds = _interrupt_child("forest", n_jobs)
    assert report["interrupted"]
    assert seconds < _PROMPT_SECONDS, f"KeyboardInterrupt arrived {seconds:.1f} s after SIGINT"
    assert report["predict"] == "NotFittedError"
    assert report["fitted"] == []
    assert report["cpu_after"] < 0.5, "forest threads kept computing after the interrupt"


# ----------------------------------------------------------------- the pieces
def _args(n=20_000, seed=0):
    """build_tree's arguments for a fully grown classification tree on noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    model = ProductDecisionTreeClassifier(signature="E2").fit(X[:50], np.arange(50) % 2)
    f = model.split_features_
    y_code = rng.integers(0, 3, n).astype(np.int64)
    return (
        X,
        f.values(X),
        f.kind,
        f.col_i,
        f.col_j,
        y_code,
        np.zeros(1),
        np.ones(n),
        np.arange(n),
        3,
        True,
        0,
        2**31 - 1,
        2,
        1,
        0.0,
        2,
        7,
    )


def test_a_raised_flag_stops_the_build_with_build_cancelled():
    cancel = new_cancel_flag()
    cancel[0] = 1
    with pytest.raises(BuildCancelled):
        build_tree(*_args(), cancel=cancel)
    # Same from another thread (forest workers call the compiled builder directly).
    errors = []

    def run():
        try:
            build_tree(*_args(), cancel=cancel)
        except BuildCancelled as exc:
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert len(errors) == 1


def test_build_without_a_raised_flag_matches_a_normal_fit():
    arrays = build_tree(*_args())
    again = build_tree(*_args(), cancel=new_cancel_flag())
    assert arrays[0].shape[0] > 1000  # a fully grown tree on noise
    for a, b in zip(arrays, again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_run_interruptible_raises_the_flag_when_the_wait_is_interrupted():
    cancel = new_cancel_flag()
    stopped = threading.Event()

    def kernel():
        while cancel[0] == 0:  # stands in for the compiled builder's checks
            time.sleep(0.01)
        stopped.set()
        return "stopped"

    timer = threading.Timer(0.2, lambda: signal.pthread_kill(threading.main_thread().ident, signal.SIGINT))
    timer.start()
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        run_interruptible(kernel, (), cancel)
    assert time.perf_counter() - start < 2.0
    assert cancel[0] == 1 and stopped.is_set()  # the worker was joined before the interrupt propagated


def test_run_interruptible_returns_the_result_and_reraises_the_workers_errors():
    assert run_interruptible(lambda a, b: a + b, (2, 3), new_cancel_flag()) == 5

    def broken():
        raise ValueError("bad input at row 3")

    with pytest.raises(ValueError, match="row 3"):
        run_interruptible(broken, (), new_cancel_flag())


def test_sigint_raises_the_flag_first_and_the_old_handler_comes_back():
    cancel = new_cancel_flag()
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), raise_flag_on_sigint(cancel):
        signal.raise_signal(signal.SIGINT)
    assert cancel[0] == 1
    assert signal.getsignal(signal.SIGINT) is before


def test_clear_fitted_removes_fitted_attributes_only():
    X = np.random.default_rng(0).normal(size=(40, 2))
    forest = ProductRandomForestClassifier(2, signature="E2", random_state=0).fit(X, np.arange(40) % 2)
    clear_fitted(forest)
    assert [k for k in vars(forest) if k.endswith("_")] == []
    assert forest.get_params()["n_estimators"] == 2
