"""Dataset specs for the benchmarks: the paper's Gaussian mixtures, and the datasets of :mod:`engine.datasets`.

Loaders are module-level functions bound with :func:`functools.partial`, so
specs pickle cheaply to worker processes and Dask workers, and import their
modules only when a trial runs.
"""

from __future__ import annotations

from functools import partial

from engine.benchmarks.specs import BenchmarkData, DatasetSpec
from engine.manifolds.signature import Signature

__all__ = [
    "MIXTURE_DEFAULTS",
    "blobs",
    "gaussian_mixture",
    "load_blobs",
    "load_gaussian_mixture",
]

#: The paper's synthetic setup (section 4.1): 1,000 points, 32 clusters, 8 classes.
MIXTURE_DEFAULTS = {"n_samples": 1000, "n_clusters": 32, "n_classes": 8}


def load_gaussian_mixture(random_state, signature, task, n_samples=1000, n_clusters=32, n_classes=8, **kwargs):
    """One draw of the paper's Gaussian mixture (Appendix A) on ``signature``.

    Parameters
    ----------
    random_state : int
    signature : str
    task : {"classification", "regression"}
    n_samples, n_clusters, n_classes : int
        ``n_classes`` is used for classification only.
    **kwargs
        Passed to :func:`engine.sampling.make_classification` /
        :func:`engine.sampling.make_regression` (e.g. ``cov_scale``).

    Returns
    -------
    BenchmarkData
    """
    from engine import sampling

    if task == "classification":
        X, y = sampling.make_classification(
            signature,
            n_samples=n_samples,
            n_classes=n_classes,
            n_clusters=n_clusters,
            random_state=random_state,
            **kwargs,
        )
    elif task == "regression":
        X, y = sampling.make_regression(
            signature, n_samples=n_samples, n_clusters=n_clusters, random_state=random_state, **kwargs
        )
    else:
        raise ValueError(f"Gaussian mixtures support classification and regression, not {task!r}")
    return BenchmarkData(X, y, Signature.parse(signature), task)


def gaussian_mixture(signature, task, section="Synthetic", name="Gaussian", **params) -> DatasetSpec:
    """A :class:`DatasetSpec` drawing a new Gaussian mixture on ``signature`` every trial.

    Parameters
    ----------
    signature : str or Signature
    task : {"classification", "regression"}
    section : str
        Table section heading.
    name : str
    **params
        Overrides of :data:`MIXTURE_DEFAULTS` and extra sampler arguments.
    """
    settings = {**MIXTURE_DEFAULTS, **params}
    signature = str(Signature.parse(signature))
    described = f"{settings['n_samples']} points, {settings['n_clusters']} clusters"
    if task == "classification":
        described += f", {settings['n_classes']} classes"
    return DatasetSpec(
        name=name,
        loader=partial(load_gaussian_mixture, signature=signature, task=task, **settings),
        signature=signature,
        task=task,
        section=section,
        description=f"Gaussian mixture on {signature} ({described})",
    )


def load_blobs(random_state, task, n_samples=200, n_features=2, centers=4, noise=1.0):
    """Euclidean Gaussian blobs (classification) or a noisy linear target (regression) on ``E<n_features>``.

    Needs only scikit-learn: a quick dataset for tests and smoke runs.
    """
    from sklearn import datasets as skd

    signature = Signature.euclidean(n_features)
    if task == "classification":
        X, y = skd.make_blobs(
            n_samples=n_samples, n_features=n_features, centers=centers, cluster_std=noise, random_state=random_state
        )
    elif task == "regression":
        X, y = skd.make_regression(n_samples=n_samples, n_features=n_features, noise=noise, random_state=random_state)
    else:
        raise ValueError(f"blobs support classification and regression, not {task!r}")
    return BenchmarkData(X, y, signature, task)


def blobs(task="classification", n_samples=200, n_features=2, section="Smoke", name="Blobs", **params) -> DatasetSpec:
    """A :class:`DatasetSpec` of Euclidean blobs (scikit-learn only), for tests and smoke runs."""
    return DatasetSpec(
        name=name,
        loader=partial(load_blobs, task=task, n_samples=n_samples, n_features=n_features, **params),
        signature=str(Signature.euclidean(n_features)),
        task=task,
        section=section,
        description=f"scikit-learn blobs on E{n_features} ({n_samples} points)",
    )
