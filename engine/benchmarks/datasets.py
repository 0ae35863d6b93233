"""Dataset specs for the benchmarks: the paper's Gaussian mixtures, and the datasets of :mod:`curvedtrees.datasets`.

Loaders are module-level functions bound with :func:`functools.partial`, so
specs pickle cheaply to worker processes and Dask workers, and import their
modules only when a trial runs.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..manifolds.signature import Signature
from .specs import BenchmarkData, DatasetSpec

__all__ = [
    "MIXTURE_DEFAULTS",
    "blobs",
    "gaussian_mixture",
    "load_blobs",
    "load_gaussian_mixture",
    "load_notebook_mixture",
    "notebook_mixture",
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
        Passed to :func:`curvedtrees.sampling.make_classification` /
        :func:`curvedtrees.sampling.make_regression` (e.g. ``cov_scale``).

    Returns
    -------
    BenchmarkData
    """
    from .. import sampling

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


def gaussian_mixture(signature, task, section="Synthetic", name="Gaussian", protocol="paper", **params) -> DatasetSpec:
    """A :class:`DatasetSpec` drawing a new Gaussian mixture on ``signature`` every trial.

    Parameters
    ----------
    signature : str or Signature
    task : {"classification", "regression"}
    section : str
        Table section heading.
    name : str
    protocol : {"paper", "notebook"}
        ``"paper"``: :mod:`curvedtrees.sampling`, Appendix A as written;
        ``"notebook"``: :func:`notebook_mixture`, the scales of the authors'
        benchmark notebooks.
    **params
        Overrides of :data:`MIXTURE_DEFAULTS` and extra sampler arguments.
    """
    if protocol not in ("paper", "notebook"):
        raise ValueError(f"protocol must be 'paper' or 'notebook', got {protocol!r}")
    settings = {**MIXTURE_DEFAULTS, **params}
    signature = str(Signature.parse(signature))
    described = f"{settings['n_samples']} points, {settings['n_clusters']} clusters"
    if task == "classification":
        described += f", {settings['n_classes']} classes"
    return DatasetSpec(
        name=name,
        loader=partial(
            load_gaussian_mixture if protocol == "paper" else load_notebook_mixture,
            signature=signature,
            task=task,
            **settings,
        ),
        signature=signature,
        task=task,
        section=section,
        description=f"Gaussian mixture on {signature} ({described}"
        + (", scales of the authors' notebooks)" if protocol == "notebook" else ")"),
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


def _tangent_at_origin(component, v):
    """Embed intrinsic tangent coordinates ``v`` (n, dim) at the component's origin (ambient coordinates)."""
    if component.kind == "E":
        return v
    # At the origin (R, 0, ..., 0) of H and S the tangent space is {u : u_0 = 0}.
    return np.concatenate([np.zeros((len(v), 1)), v], axis=1)


def notebook_mixture(signature, task, n_samples=1000, n_clusters=32, n_classes=8, noise=0.1, random_state=None):
    """The Gaussian mixture as parameterised in the authors' benchmark notebooks.

    The paper's Appendix A and the code that produced its tables differ in four
    ways, and the difference matters for the numbers (see BENCHMARKS.md):

    - both the cluster means and the Wishart scale matrix are divided by the
      signature's total dimension ``D`` (mean tangent covariance ``I / D``; point
      covariances ``Wishart(df=d + 1, I / D)`` per component of dimension ``d``),
      where the text has ``N(0, sqrt(K) I)`` and ``Wishart(sqrt(K) I, df=d)``;
    - the variances are those of tangent vectors of the curvature-K manifold
      itself (the code samples on a unit manifold scaled by 1/sqrt|K|, which is
      the same wrapped normal), so |K| changes how far the clusters wrap;
    - on spheres the tangent samples are moved to their cluster mean by
      projection onto the mean's tangent space (geoopt's ``Sphere.transp``), not
      by parallel transport;
    - regression slopes and intercepts are ``(0.5 - N(0, 1)) * 2`` and
      ``(0.5 - N(0, 1)) * 20`` rather than uniform.

    Cluster weights are normalised uniforms and clusters are drawn without a
    minimum size, classes are assigned as in Appendix A.3, targets are
    normalised to [0, 1].

    Parameters
    ----------
    signature : str or Signature
    task : {"classification", "regression"}
    n_samples, n_clusters, n_classes : int
    noise : float
        Standard deviation of the regression noise.
    random_state : int, Generator or None

    Returns
    -------
    X : ndarray of shape (n_samples, ambient_dim)
    y : ndarray of shape (n_samples,)
    """
    from ..manifolds import manifold_for

    signature = Signature.parse(signature)
    rng = np.random.default_rng(random_state)
    total_dim = signature.dim
    weights = rng.uniform(0.0, 1.0, n_clusters)
    cluster = rng.choice(n_clusters, size=n_samples, p=weights / weights.sum())
    points, tangents = [], []
    for component in signature.components:
        manifold = manifold_for(component)
        d = component.dim
        means = manifold.expmap0(
            _tangent_at_origin(component, rng.normal(0.0, np.sqrt(1.0 / total_dim), (n_clusters, d)))
        )
        # Wishart(df = d + 1, scale I / D) as G G^T with G of shape (d, d + 1); then v = G z has that covariance.
        factors = rng.normal(0.0, np.sqrt(1.0 / total_dim), (n_clusters, d, d + 1))
        v = np.einsum("nij,nj->ni", factors[cluster], rng.standard_normal((n_samples, d + 1)))
        at_mean = means[cluster]
        if component.kind == "E":
            points.append(at_mean + v)
        else:
            tangent0 = _tangent_at_origin(component, v)
            if component.kind == "S":
                # geoopt's Sphere.transp, used by the authors' code, is the projection onto the
                # tangent space at the mean (not parallel transport): it shortens vectors along
                # the geodesic from the origin, so clusters are tighter than a wrapped normal.
                moved = manifold.proju(at_mean, tangent0)
            else:
                origin = np.broadcast_to(manifold.origin(), at_mean.shape)
                moved = manifold.transp(origin, at_mean, tangent0)
            points.append(manifold.expmap(at_mean, moved))
        tangents.append(v)
    X = np.concatenate(points, axis=1)
    if task == "classification":
        cluster_class = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n_clusters - n_classes)])
        return X, cluster_class[cluster].astype(np.int64)
    if task != "regression":
        raise ValueError(f"Gaussian mixtures support classification and regression, not {task!r}")
    tangent = np.concatenate(tangents, axis=1)
    slopes = (0.5 - rng.standard_normal((n_clusters, total_dim))) * 2.0
    intercepts = (0.5 - rng.standard_normal(n_clusters)) * 20.0
    y = np.einsum("ij,ij->i", tangent, slopes[cluster]) + intercepts[cluster] + rng.normal(0.0, noise, n_samples)
    span = y.max() - y.min()
    # A constant target (only for degenerate draws) maps to zeros instead of 0/0.
    return X, (y - y.min()) / span if span > 0 else np.zeros_like(y)


def load_notebook_mixture(random_state, signature, task, **params):
    """Loader of :func:`notebook_mixture` for a :class:`DatasetSpec`."""
    X, y = notebook_mixture(signature, task, random_state=random_state, **params)
    return BenchmarkData(X, y, Signature.parse(signature), task)
