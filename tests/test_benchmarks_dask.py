"""The same benchmark on a local Dask cluster gives exactly the local results, and the cluster did the work."""

import importlib.util
import re

import pandas as pd
import pytest
from curvedtrees.benchmarks import get_models, run_benchmark
from curvedtrees.benchmarks.datasets import blobs

distributed = pytest.importorskip("distributed")

STABLE = ["section", "dataset", "task", "signature", "model", "trial", "seed", "metric", "value", "n_train", "n_test"]


def _datasets():
    return [blobs("classification", n_samples=120), blobs("regression", n_samples=100, n_features=3)]


def _models():
    return get_models(["ambient_dt", "ambient_rf", "ambient_knn"])


def _calls_on_cluster(records, cluster, function):
    """How many calls of ``function`` the task stream saw run on the cluster's workers.

    joblib's Dask backend submits batches named ``batch_of_<function>_<n>_calls-<id>``.
    """
    workers = {worker.address for worker in cluster.workers.values()}
    calls = 0
    for record in records:
        match = re.fullmatch(rf"batch_of_{function}_(\d+)_calls-\w+", str(record["key"]))
        if match:
            assert record["worker"] in workers, f"{record['key']} ran outside the cluster, on {record['worker']}"
            calls += int(match.group(1))
    return calls


def _executed(cluster):
    """Tasks the cluster's workers have run so far."""
    return sum(worker.state.executed_count for worker in cluster.workers.values())


@pytest.fixture(scope="module")
def cluster():
    # In-process workers (threads): no worker processes to spawn, yet every job still goes
    # through the scheduler, serialisation and joblib's dask backend.
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as local_cluster:
        yield local_cluster


def test_dask_client_matches_local_run(cluster):
    local = run_benchmark(_datasets(), _models(), n_trials=4, random_state=3)
    calls = []
    with distributed.Client(cluster) as client, distributed.get_task_stream(client=client) as stream:
        remote = run_benchmark(
            _datasets(), _models(), n_trials=4, random_state=3, client=client, progress=lambda d, t: calls.append(d)
        )
    pd.testing.assert_frame_equal(local[STABLE], remote[STABLE])
    assert remote.attrs["backend"] == "dask"
    assert calls == list(range(9))
    # Every one of the 2 x 4 (dataset, trial) jobs ran on the cluster's workers.
    assert _calls_on_cluster(stream.data, cluster, "_run_keyed") == 8


def test_dask_scheduler_address_matches_local_run(cluster):
    local = run_benchmark(_datasets(), _models(), n_trials=2, random_state=4)
    before = _executed(cluster)
    remote = run_benchmark(_datasets(), _models(), n_trials=2, random_state=4, scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(local[STABLE], remote[STABLE])
    assert _executed(cluster) > before  # the runner's own client sent the jobs to the cluster


def test_dask_backend_without_client_says_what_is_missing():
    with pytest.raises(ValueError, match=r"needs a running dask\.distributed Client"):
        run_benchmark(_datasets(), _models(), n_trials=1, backend="dask")


@pytest.mark.skipif(importlib.util.find_spec("curvedtrees.trees") is None, reason="curvedtrees.trees has not landed")
def test_product_forest_trains_through_the_dask_backend(cluster):
    import numpy as np
    from curvedtrees import ProductRandomForestClassifier
    from joblib import parallel_config

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 2)), rng.integers(0, 3, 200)
    params = dict(signature="E2", n_estimators=6, max_depth=4, random_state=1)
    local = ProductRandomForestClassifier(**params, n_jobs=1).fit(X, y)
    with distributed.Client(cluster) as client, parallel_config(backend="dask", client=client):
        with distributed.get_task_stream(client=client) as stream:
            remote = ProductRandomForestClassifier(**params, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(local.predict_proba(X), remote.predict_proba(X))
    # The six trees were grown on the cluster's workers, not in local threads.
    assert _calls_on_cluster(stream.data, cluster, "_grow_tree") == 6
