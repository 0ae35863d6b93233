"""Serving a class: the worker pool, the safe transport, the model checkers and the shared results.

The pool's tests run real worker processes (forked from the pool's template), so they
check what the server relies on: limits that stop a job, a queue that says its place,
shared jobs, cancellation that kills the process, and results that cannot carry
anything but checked data back.
"""

from __future__ import annotations

import json
import struct
import threading
import time

import numpy as np
import psutil
import pytest
from conftest import assert_clean, errors, start, text

from ui import jobs, transport
from ui.cache import SharedResults
from ui.data import build_dataset, synthetic_recipe
from ui.training import DEFAULT_TREE, train_from_recipe

pytestmark = pytest.mark.slow  # real worker processes: a template start and forks


@pytest.fixture(scope="module")
def pool():
    """One pool (and template) for the module's tests, one worker at a time so that queues form."""
    made = jobs.JobPool(workers=1, max_queued=3)
    ticket = made.submit("burn", 0.0, label="warming up")
    assert ticket.wait(180), "the worker template did not start"
    ticket.result()
    ticket.release()
    yield made
    made._stopped = True
    if made._template is not None:
        made._template.kill()


@pytest.fixture(scope="module")
def record():
    return build_dataset(synthetic_recipe("H2", 300, 3, seed=1))


# ------------------------------------------------------------------ transport
def test_records_and_models_travel_and_come_back_checked(record):
    model = train_from_recipe(record, DEFAULT_TREE)
    back = transport.decode(transport.encode(model))
    assert np.array_equal(back.estimator.predict(record.X), model.estimator.predict(record.X))
    assert back.metrics == model.metrics and np.array_equal(back.test_idx, model.test_idx)
    data = transport.decode(transport.encode(record))
    assert data.hash == record.hash and np.array_equal(data.X, record.X)
    mixed = transport.decode(transport.encode({(1, "a"): [np.arange(3), None, 2.5]}))
    assert list(mixed) == [(1, "a")] and np.array_equal(mixed[(1, "a")][0], [0, 1, 2])
    assert mixed[(1, "a")][1:] == [None, 2.5]


def test_a_records_hash_is_recomputed_never_believed(record):
    message = transport.encode(record)
    tampered = message.replace(record.hash.encode(), b"0" * len(record.hash))
    assert transport.decode(tampered).hash == record.hash


def test_anything_but_checked_data_is_refused():
    with pytest.raises(TypeError, match="do not travel"):
        transport.encode(np.array([object()], dtype=object))
    with pytest.raises(TypeError, match="do not travel"):
        transport.encode({1, 2})

    def framed(document: dict, arrays=()) -> bytes:
        header = json.dumps(document).encode()
        parts = [b"CTR1", struct.pack("<Q", len(header)), header, struct.pack("<Q", len(arrays))]
        for blob in arrays:
            parts += [struct.pack("<Q", len(blob)), blob]
        return b"".join(parts)

    with pytest.raises(transport.TransportError, match="unknown tag"):
        transport.decode(framed({"$": "pickle", "v": "gASV"}))
    with pytest.raises(transport.TransportError, match="not a result"):
        transport.decode(b"\x80\x04\x95" + b"\0" * 20)  # a pickle is not a message
    # An array header that promises a billion floats in 80 bytes: refused before any allocation.
    import io

    blob = io.BytesIO()
    np.lib.format.write_array(blob, np.zeros(10))
    lying = blob.getvalue().replace(b"(10,)", b"(1000000000,)")
    with pytest.raises(transport.TransportError, match="does not match its data"):
        transport.decode(framed({"$": "array", "i": 0}, [lying]))
    with pytest.raises(transport.TransportError, match="above the limit"):
        transport.decode(transport.encode(list(range(100))), max_bytes=10)
    # A model document is validated by curvedtrees.io like an uploaded file.
    with pytest.raises(transport.TransportError, match="does not check out"):
        transport.decode(framed({"$": "model", "v": '{"format": "curvedtrees", "estimator": "os.system"}'}))


# ------------------------------------------------------------------ the pool
def test_a_job_returns_its_value_and_its_progress(pool, record):
    ticket = pool.submit("train", record, DEFAULT_TREE, label="training", progress_arg="progress")
    assert ticket.wait(120)
    model = ticket.result()
    ticket.release()
    assert model.metrics["accuracy"] > 0.5 and ticket.events() == [[1, 1]]


def test_the_queue_says_its_place_and_a_released_job_stops_at_once(pool):
    running = pool.submit("burn", 60.0, 50, label="burning")
    deadline = time.monotonic() + 60
    while not pool.stats()["pids"] and time.monotonic() < deadline:
        time.sleep(0.05)
    pid = pool.stats()["pids"][0]
    second = pool.submit("burn", 60.0, label="second")
    third = pool.submit("burn", 60.0, label="third")
    assert (running.position(), second.position(), third.position()) == (0, 1, 2)
    with pytest.raises(jobs.ServerBusy, match="the server is busy"):
        for _ in range(3):
            pool.submit("burn", 1.0, label="one too many")
    second.release()
    assert third.position() == 1 and second.state == "cancelled"
    started = time.monotonic()
    running.release()  # nobody waits for it any more: its process is killed
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() - started < 3, "the released job's process still runs"
        time.sleep(0.05)
    third.release()
    for ticket in list(pool._queue):
        pool._release(ticket)


def test_asks_with_the_same_key_share_one_job(pool):
    first = pool.submit("burn", 0.3, key="same", label="shared")
    second = pool.submit("burn", 0.3, key="same", label="shared")
    assert first._job is second._job
    first.release()  # the other ticket still holds it
    assert second.wait(60) and second.result()["steps"] > 0
    second.release()


def test_a_job_over_its_cpu_or_memory_is_stopped_with_the_reason(pool):
    slow = pool.submit("burn", 30.0, label="burning the CPU", cpu_seconds=1)
    assert slow.wait(60)
    with pytest.raises(jobs.JobError, match=r"stopped after 2 CPU-seconds"):
        slow.result()
    slow.release()
    greedy = pool.submit("burn", 0.0, 3000, label="holding memory", memory_bytes=2**30)
    assert greedy.wait(60)
    with pytest.raises(jobs.JobError, match=r"needed more than its 1\.0 GB of memory"):
        greedy.result()
    greedy.release()


def test_a_full_server_queues_jobs_and_then_refuses_them(monkeypatch):
    monkeypatch.setattr(jobs, "MEMORY_WAIT_SECONDS", 2.0)
    full = jobs.JobPool(workers=1, memory_ceiling=jobs.server_memory() // 2)
    try:
        ticket = full.submit("burn", 0.0, label="a small job")
        queued_for_memory = False
        deadline = time.monotonic() + 90
        while not ticket.wait(0.02) and time.monotonic() < deadline:
            queued_for_memory |= ticket.waiting_for_memory() and ticket.state == "queued"
        assert queued_for_memory and ticket.wait(0)
        with pytest.raises(jobs.ServerBusy, match="memory is full"):
            ticket.result()
    finally:
        full._stopped = True
        if full._template is not None:
            full._template.kill()


# ------------------------------------------------------------------ model checkers
def test_checkers_run_a_few_at_a_time_and_name_a_busy_server(monkeypatch):
    from ui import sandbox

    checkers = sandbox._Checkers(1)
    checkers.acquire(None, 1.0)  # the one checker is taken
    places = []
    with pytest.raises(sandbox.CheckerBusy, match="not the file's fault"):
        checkers.acquire(places.append, 0.6)
    assert places and set(places) == {1}
    checkers.release()
    checkers.acquire(None, 1.0)  # free again
    checkers.release()
    assert checkers.busy() == (0, 0)


def test_a_check_is_limited_by_its_cpu_time_not_the_wall_clock(monkeypatch):
    from ui import sandbox

    monkeypatch.setattr(
        sandbox, "_CHILD", "import resource, sys\ncpu = int(sys.argv[3])\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))\nwhile True: pass",
    )  # fmt: skip
    with pytest.raises(sandbox.ModelFileError, match="used more than its 1 CPU-seconds") as refused:
        sandbox.load_model_isolated(b"{}", cpu_seconds=1, timeout_s=60)
    assert not isinstance(refused.value, sandbox.CheckerBusy)


# ------------------------------------------------------------------ shared results
def test_shared_results_are_bounded_and_computed_once():
    store = SharedResults(max_bytes=3 * 800)
    for k in range(4):
        store.put(f"k{k}", np.zeros(100))  # 800 bytes each
    assert store.get("k0") is None and store.get("k3") is not None and store.bytes == 2400
    calls, results = [], []

    def slow():
        calls.append(1)
        time.sleep(0.3)
        return np.ones(3)

    threads = [threading.Thread(target=lambda: results.append(store.get_or_compute("x", slow))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and all(r is results[0] for r in results)


def test_a_link_over_budget_is_refused_naming_the_parameter_and_the_demo_shows():
    data = json.dumps(synthetic_recipe("S99", 20000, 5, seed=0))
    heavy = {"family": "product_forest", "params": {"n_estimators": 500, "pairs": "all", "max_features": "all"}}
    at = start(query={"data": data, "model": json.dumps(heavy)})
    assert_clean(at)
    warning = text(at)
    assert "could not be rebuilt" in warning and "n_estimators" in warning and "CPU" in warning
    assert "Poincaré disk" in warning or not errors(at)
