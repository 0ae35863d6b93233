"""Gaussian mixtures on product manifolds (Appendix A of the mixed-curvature paper).

The generator, for each component of the signature (and one shared cluster
assignment):

1. cluster weights ``p = u / sum(u)`` with ``u ~ Uniform(0, 1)^n_clusters``;
   every cluster gets two points, the other ``n_samples - 2 n_clusters`` points
   are assigned by ``Categorical(p)`` (the reference implementation's
   re-draw loop meant to ensure this but missed clusters that were never
   drawn; here the guarantee is by construction);
2. cluster means ``m ~ N(0, mean_scale * s I)`` in the tangent space at the
   origin, mapped by ``expmap0``;
3. cluster covariances ``Sigma ~ Wishart(cov_scale * s I, df=dim)``;
4. points ``v ~ N(0, Sigma_c)`` in the tangent space at the origin,
   parallel-transported to their cluster mean and mapped by ``expmap`` there.

Curvature rescaling (the paper's Eqs. 29, 33, 40): H and S components are
sampled on the unit-curvature manifold with ``s = sqrt(|K|)`` and the points
are then scaled by ``R = 1 / sqrt(|K|)`` onto the manifold of curvature ``K``;
Euclidean components use ``s = 1`` and no rescaling.

Targets: classification maps the first ``n_classes`` clusters to classes
``0 .. n_classes - 1`` and the others uniformly at random; regression draws
per-cluster slopes ``beta ~ U(-1, 1)^dim`` and intercepts ``alpha ~ U(-10, 10)``,
sets ``y = v . beta_c + alpha_c + N(0, noise^2)`` with ``v`` the pre-transport
tangent sample (all components concatenated), and rescales ``y`` to [0, 1].

Defaults follow the paper's benchmarks: 1,000 points, 32 clusters, 8 classes,
unit covariance and mean scales. Everything is vectorised: 100,000 points of
``H2 x S2 x E2`` take a few tens of milliseconds (``perf/bench_sampling.py``).
Randomness comes only from ``random_state`` (``numpy.random.default_rng``
semantics); global RNGs are never touched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .manifolds import Euclidean, Hyperbolic, Signature, Spherical
from .manifolds.shared import check_int
from .utils import as_generator

__all__ = ["Mixture", "as_generator", "gaussian_mixture", "make_classification", "make_regression"]


@dataclass(frozen=True)
class Mixture:
    """A sampled mixture.

    Attributes
    ----------
    X : ndarray, shape (n_samples, ambient_dim)
        Points in ambient coordinates.
    cluster : ndarray of int, shape (n_samples,)
        Cluster of each point.
    tangent : ndarray, shape (n_samples, dim)
        Pre-transport tangent samples ``v`` (unit-curvature units), components concatenated.
    means : ndarray, shape (n_clusters, ambient_dim)
        Cluster means on the manifold.
    weights : ndarray, shape (n_clusters,)
        Cluster probabilities ``p`` (before the two-per-cluster guarantee).
    signature : Signature
    """

    X: np.ndarray
    cluster: np.ndarray
    tangent: np.ndarray
    means: np.ndarray
    weights: np.ndarray
    signature: Signature


def _positive_float(value, name: str, allow_zero: bool = False) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be finite and {'>= 0' if allow_zero else '> 0'}, got {value}")
    return value


# Bytes of the per-row factor matrices gathered at once by :func:`_apply_factors`: a few
# cache-sized blocks instead of one (n_samples, dim, dim) array (H1000 on 2,000 points
# would gather 16 GB), at no measurable cost for small signatures, whose rows all fit in
# one block as before.
_GATHER_BYTES = 4 * 2**20


def _apply_factors(factors: np.ndarray, cluster: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``v[n] = factors[cluster[n]] @ z[n]`` for every row, in blocks of rows.

    Each block is the same ``einsum`` over the same rows as one call on all of them,
    and numpy computes every output row from its own operands in the same order, so
    the result is identical bit for bit whatever the block size (tests/test_sampling.py
    checks it against the unblocked call); only the gathered (rows, dim, dim) array is
    bounded, to about ``_GATHER_BYTES``.
    """
    n_samples, dim = z.shape
    step = max(1, _GATHER_BYTES // (8 * dim * dim))
    v = np.empty((n_samples, dim))
    for start in range(0, n_samples, step):
        rows = slice(start, start + step)
        v[rows] = np.einsum("nij,nj->ni", factors[cluster[rows]], z[rows])
    return v


def gaussian_mixture(
    signature,
    n_samples: int = 1000,
    n_clusters: int = 32,
    cov_scale: float = 1.0,
    mean_scale: float = 1.0,
    random_state=None,
) -> Mixture:
    """Sample a Gaussian mixture on a product manifold (no targets).

    Parameters
    ----------
    signature : str, Signature or list of (curvature, dim)
    n_samples : int, default 1000
        At least ``2 * n_clusters`` (every cluster gets two points or more).
    n_clusters : int, default 32
    cov_scale : float, default 1.0
        Scale of the Wishart covariances (the paper's sigma).
    mean_scale : float, default 1.0
        Variance of the cluster means in the tangent space at the origin.
    random_state : None, int, Generator or RandomState

    Returns
    -------
    Mixture
    """
    signature = Signature.parse(signature)
    n_samples = check_int(n_samples, "n_samples")
    n_clusters = check_int(n_clusters, "n_clusters")
    cov_scale = _positive_float(cov_scale, "cov_scale")
    mean_scale = _positive_float(mean_scale, "mean_scale", allow_zero=True)
    if n_samples < 2 * n_clusters:
        raise ValueError(
            f"n_samples={n_samples} is too small for n_clusters={n_clusters}: every cluster gets at least two "
            f"points, so n_samples must be >= {2 * n_clusters}"
        )
    rng = as_generator(random_state)

    weights = rng.uniform(0.0, 1.0, n_clusters)
    weights /= weights.sum()
    cluster = np.concatenate(
        [np.repeat(np.arange(n_clusters), 2), rng.choice(n_clusters, size=n_samples - 2 * n_clusters, p=weights)]
    )
    cluster = rng.permutation(cluster)

    points, tangents, means = [], [], []
    for component in signature.components:
        # Sample on the unit-curvature manifold of the same kind (default curvatures are -1, +1, 0);
        # the variance factor s = sqrt|K| (1 for E) is Eqs. 29 and 33.
        unit = {"H": Hyperbolic, "S": Spherical, "E": Euclidean}[component.kind](component.dim)
        s = 1.0 if component.kind == "E" else math.sqrt(abs(component.curvature))
        dim = component.dim
        mean_tangent = rng.normal(0.0, math.sqrt(mean_scale * s), (n_clusters, dim))
        cluster_means = unit.expmap0(unit._embed_tangent0(mean_tangent))
        # Wishart(V = cov_scale * s * I, df = dim): Sigma = G G^T with G ~ N(0, V) of shape (dim, df);
        # then v = G z with z ~ N(0, I_df) has covariance Sigma, with no Cholesky needed.
        factors = rng.normal(0.0, math.sqrt(cov_scale * s), (n_clusters, dim, dim))
        z = rng.standard_normal((n_samples, dim))
        v = _apply_factors(factors, cluster, z)
        at_mean = cluster_means[cluster]
        sample = unit.expmap(at_mean, unit.transp0(at_mean, unit._embed_tangent0(v)))
        radius = 1.0 if component.kind == "E" else component.radius  # Eq. 40: back to curvature K
        points.append(radius * sample)
        means.append(radius * cluster_means)
        tangents.append(v)

    return Mixture(
        X=np.ascontiguousarray(np.concatenate(points, axis=1)),
        cluster=cluster,
        tangent=np.concatenate(tangents, axis=1),
        means=np.concatenate(means, axis=1),
        weights=weights,
        signature=signature,
    )


def make_classification(
    signature,
    n_samples: int = 1000,
    n_classes: int = 8,
    n_clusters: int = 32,
    cov_scale: float = 1.0,
    random_state=None,
    *,
    mean_scale: float = 1.0,
):
    """Labelled Gaussian mixture on a product manifold (the paper's classification benchmark).

    Parameters
    ----------
    signature : str, Signature or list of (curvature, dim)
        For example ``"H2 x S2 x E2"``.
    n_samples : int, default 1000
    n_classes : int, default 8
    n_clusters : int, default 32
        At least ``n_classes``; clusters ``0 .. n_classes - 1`` get classes
        ``0 .. n_classes - 1``, the rest a uniformly random class.
    cov_scale : float, default 1.0
        Scale of the per-cluster Wishart covariances.
    random_state : None, int, Generator or RandomState
    mean_scale : float, default 1.0
        Variance of the cluster means (tangent space at the origin).

    Returns
    -------
    X : ndarray, shape (n_samples, ambient_dim)
        Points in ambient coordinates; every row passes ``check_point``.
    y : ndarray of int, shape (n_samples,)
        Class labels in ``0 .. n_classes - 1`` (every class occurs).

    Examples
    --------
    >>> X, y = make_classification("H2 x S2 x E2", n_samples=200, n_clusters=8, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((200, 8), [0, 1, 2, 3, 4, 5, 6, 7])
    """
    n_classes = check_int(n_classes, "n_classes")
    n_clusters = check_int(n_clusters, "n_clusters")
    if n_clusters < n_classes:
        raise ValueError(f"n_clusters={n_clusters} must be >= n_classes={n_classes} (each class needs a cluster)")
    rng = as_generator(random_state)
    mixture = gaussian_mixture(signature, n_samples, n_clusters, cov_scale, mean_scale, rng)
    cluster_class = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n_clusters - n_classes)])
    return mixture.X, cluster_class[mixture.cluster].astype(np.int64)


def make_regression(
    signature,
    n_samples: int = 1000,
    n_clusters: int = 32,
    cov_scale: float = 1.0,
    noise: float = 0.1,
    random_state=None,
    *,
    mean_scale: float = 1.0,
):
    """Gaussian mixture with per-cluster linear targets (the paper's regression benchmark).

    Parameters
    ----------
    signature : str, Signature or list of (curvature, dim)
    n_samples : int, default 1000
    n_clusters : int, default 32
    cov_scale : float, default 1.0
    noise : float, default 0.1
        Standard deviation of the Gaussian noise added before rescaling.
    random_state : None, int, Generator or RandomState
    mean_scale : float, default 1.0

    Returns
    -------
    X : ndarray, shape (n_samples, ambient_dim)
    y : ndarray of float, shape (n_samples,)
        ``v . beta_c + alpha_c + noise``, rescaled to [0, 1].

    Examples
    --------
    >>> from curvedtrees import make_regression
    >>> X, y = make_regression("S2 x E1", n_samples=100, random_state=0)
    >>> X.shape, y.shape
    ((100, 4), (100,))
    """
    noise = _positive_float(noise, "noise", allow_zero=True)
    rng = as_generator(random_state)
    mixture = gaussian_mixture(signature, n_samples, n_clusters, cov_scale, mean_scale, rng)
    dim = mixture.tangent.shape[1]
    slopes = rng.uniform(-1.0, 1.0, (n_clusters, dim))
    intercepts = rng.uniform(-10.0, 10.0, n_clusters)
    c = mixture.cluster
    y = np.einsum("ij,ij->i", mixture.tangent, slopes[c]) + intercepts[c] + rng.normal(0.0, noise, n_samples)
    span = y.max() - y.min()
    # A constant target (possible only for degenerate inputs) maps to zeros instead of 0/0.
    y = (y - y.min()) / span if span > 0 else np.zeros_like(y)
    return mixture.X, y
