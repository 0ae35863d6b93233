"""A variational autoencoder with a latent space on a product manifold.

In the style of Skopek et al. (2020, "Mixed-curvature variational
autoencoders"): the encoder gives, for every component of the latent
signature, a mean on the manifold (``mu = exp_o(u)`` from a tangent vector at
the origin) and a diagonal standard deviation; the posterior is the wrapped
normal: draw ``v ~ N(0, diag(sigma^2))`` in the tangent space at the origin,
parallel-transport it to ``mu`` and follow the exponential map. Its log-density
is the Gaussian one minus the log-Jacobian ``(d - 1) log(R sinh(r / R) / r)`` in
H (``sin`` in S, nothing in E), with ``r = |v|``. The KL term is estimated by
Monte Carlo against a standard wrapped normal at the origin (H, E) or the
uniform distribution (S: the wrapped normal's density on a sphere has a
singularity at the antipode of the origin that an encoder can exploit, the
uniform one has none). The decoder reads the latent's tangent vectors at the
origin and outputs Bernoulli logits of the pixels.

Everything is computed in the project's ambient coordinates (hyperboloid
``x0^2 - |x|^2 = R^2``, sphere ``|x| = R``), with the curvatures of the
signature kept fixed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted

from ..manifolds.signature import Signature
from ..utils import as_generator, require
from ._progress import report, torch_single_thread

__all__ = ["MixedCurvatureVAE"]

# Norms below this are treated as this when dividing (a zero tangent vector has no
# direction; the maps are continuous there and the value only guards 0 / 0).
_TINY = 1e-12


# ---------------------------------------------------------------- geometry in torch
def _expmap0(torch, kind, u, R):
    """Tangent vector ``(0, u)`` at the origin -> point, shape (b, d + 1) (E: (b, d))."""
    if kind == "E":
        return u
    r = u.norm(dim=-1, keepdim=True).clamp_min(_TINY)
    if kind == "H":
        return torch.cat([R * torch.cosh(r / R), R * torch.sinh(r / R) * u / r], dim=-1)
    return torch.cat([R * torch.cos(r / R), R * torch.sin(r / R) * u / r], dim=-1)


def _logmap0(torch, kind, x, R):
    """Point -> spatial part of its tangent vector at the origin, shape (b, d)."""
    if kind == "E":
        return x
    xs = x[..., 1:]
    n = xs.norm(dim=-1, keepdim=True).clamp_min(_TINY)
    if kind == "H":
        r = R * torch.asinh(n / R)  # equals R arccosh(x0 / R) on the manifold, accurate near 0
    else:
        r = R * torch.atan2(n, x[..., :1])
    return r * xs / n


def _transp0(torch, kind, mu, v, R):
    """Parallel transport of ``(0, v)`` from the origin to ``mu`` (ambient tangent vector)."""
    m0, ms = mu[..., :1], mu[..., 1:]
    dot = (ms * v).sum(dim=-1, keepdim=True)
    if kind == "H":
        return torch.cat([dot / R, v + dot * ms / (R * (R + m0))], dim=-1)
    # m0 = -R (mu at the antipode of the origin) has no unique geodesic; clamp the
    # denominator so that a posterior mean there gives a finite, if arbitrary, frame.
    return torch.cat([-dot / R, v - dot * ms / (R * (R + m0)).clamp_min(_TINY)], dim=-1)


def _expmap(torch, kind, mu, w, R):
    """Exponential map at ``mu`` of the ambient tangent vector ``w``."""
    if kind == "H":
        sq = (w[..., 1:] ** 2).sum(-1, keepdim=True) - w[..., :1] ** 2
        n = sq.clamp_min(0.0).sqrt().clamp_min(_TINY)  # rounding can make <w, w>_L slightly negative
        return torch.cosh(n / R) * mu + R * torch.sinh(n / R) * w / n
    n = w.norm(dim=-1, keepdim=True).clamp_min(_TINY)
    return torch.cos(n / R) * mu + R * torch.sin(n / R) * w / n


def _log_jacobian(torch, kind, r, R, dim):
    """``(dim - 1) log(R sinh(r / R) / r)`` (H) or with ``sin`` (S); r of shape (b,)."""
    if kind == "E" or dim == 1:
        return torch.zeros_like(r)
    x = (r / R).clamp_min(1e-8)
    if kind == "H":
        # log(sinh x / x) written with expm1 so it neither overflows nor cancels.
        value = x + torch.log(-torch.expm1(-2.0 * x)) - math.log(2.0) - torch.log(x)
    else:
        # Beyond the cut locus (x >= pi) the one-preimage density is undefined;
        # the floor keeps the estimate finite for the rare samples there.
        value = torch.log((torch.sin(x) / x).clamp_min(1e-12))
    return (dim - 1) * value


def _log_normal(torch, v, log_sigma):
    """Sum over the last axis of log N(v; 0, sigma^2)."""
    return (-0.5 * (v / log_sigma.exp()) ** 2 - log_sigma - 0.5 * math.log(2.0 * math.pi)).sum(-1)


def _log_sphere_area(dim, R):
    """log of the surface area of the sphere S^dim of radius R."""
    return math.log(2.0) + 0.5 * (dim + 1) * math.log(math.pi) - math.lgamma(0.5 * (dim + 1)) + dim * math.log(R)


# ---------------------------------------------------------------- estimator
class MixedCurvatureVAE(TransformerMixin, BaseEstimator):
    """VAE with a wrapped-normal posterior on a product-manifold latent space.

    Parameters
    ----------
    signature : str or Signature, default="S2 x E2 x H2"
        Latent space; curvatures are fixed.
    hidden_dims : tuple of int, default=(128,)
        Hidden layer widths of the encoder (the decoder mirrors them); ReLU.
    n_epochs : int, default=40
    batch_size : int, default=128
    lr : float, default=1e-3
        Adam learning rate (the paper's default).
    beta : float, default=1.0
        Weight of the KL term.
    random_state : int, Generator or None
        Seeds a local ``torch.Generator`` (weights, posterior samples) and the
        batch order; never the global torch seed.
    callback : callable, default=None
        ``callback(epoch, elbo)`` after every epoch with the epoch's mean training
        ELBO per sample (nats); return False to cancel (``fit`` raises
        :class:`curvedtrees.embeddings.Cancelled`).

    Attributes
    ----------
    signature_ : Signature
    history_ : ndarray of shape (n_epochs,)
        Mean training ELBO per epoch (higher is better).
    n_features_in_ : int

    Notes
    -----
    Inputs must lie in [0, 1] (pixel intensities); the likelihood is a
    Bernoulli per pixel with the intensities as soft targets.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from curvedtrees.embeddings import MixedCurvatureVAE
    >>> pixels = load_digits().data[:200] / 16.0
    >>> vae = MixedCurvatureVAE("S2 x E2", n_epochs=3, random_state=0).fit(pixels)
    >>> vae.transform(pixels[:5]).shape, vae.history_.shape
    ((5, 5), (3,))
    """

    def __init__(
        self,
        signature="S2 x E2 x H2",
        hidden_dims=(128,),
        n_epochs=40,
        batch_size=128,
        lr=1e-3,
        beta=1.0,
        random_state=None,
        callback=None,
    ):
        self.signature = signature
        self.hidden_dims = hidden_dims
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.beta = beta
        self.random_state = random_state
        self.callback = callback

    # ------------------------------------------------------------------ network
    def _mlp(self, torch, sizes, generator):
        layers = []
        for index, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
            # skip_init: no draw from torch's global generator; weights come from ours.
            linear = torch.nn.utils.skip_init(torch.nn.Linear, fan_in, fan_out, dtype=torch.float64)
            bound = 1.0 / math.sqrt(fan_in)  # PyTorch's default initialisation range
            with torch.no_grad():
                weight = torch.rand(fan_out, fan_in, generator=generator, dtype=torch.float64)
                linear.weight.copy_((2.0 * weight - 1.0) * bound)
                linear.bias.copy_((2.0 * torch.rand(fan_out, generator=generator, dtype=torch.float64) - 1.0) * bound)
            layers.append(linear)
            if index < len(sizes) - 2:
                layers.append(torch.nn.ReLU())
        return torch.nn.Sequential(*layers)

    def _encode(self, torch, X):
        """Per component: (mean tangent u at the origin, log sigma), each (b, dim)."""
        out = self.encoder_(X)
        parts, start = [], 0
        for comp in self.signature_.components:
            u = out[:, start : start + comp.dim]
            # Bounded log-std: exp(-6)..exp(2) keeps samples off the cut locus and finite.
            log_sigma = out[:, start + comp.dim : start + 2 * comp.dim].clamp(-6.0, 2.0)
            parts.append((u, log_sigma))
            start += 2 * comp.dim
        return parts

    def _decode_tangent(self, tangents):
        return self.decoder_(tangents)

    def _elbo(self, torch, X, generator, n_samples=1):
        """ELBO per row, averaged over ``n_samples`` posterior draws, shape (b,)."""
        parts = self._encode(torch, X)
        total = torch.zeros(X.shape[0], dtype=X.dtype)
        for _ in range(n_samples):
            log_q = torch.zeros_like(total)
            log_p = torch.zeros_like(total)
            tangents = []
            for comp, (u, log_sigma) in zip(self.signature_.components, parts):
                R = 1.0 if comp.kind == "E" else comp.radius
                eps = torch.randn(u.shape, generator=generator, dtype=u.dtype)
                v = eps * log_sigma.exp()
                if comp.kind == "E":
                    z = u + v
                else:
                    mu = _expmap0(torch, comp.kind, u, R)
                    z = _expmap(torch, comp.kind, mu, _transp0(torch, comp.kind, mu, v, R), R)
                r = v.norm(dim=-1)
                log_q = log_q + _log_normal(torch, v, log_sigma) - _log_jacobian(torch, comp.kind, r, R, comp.dim)
                t = _logmap0(torch, comp.kind, z, R)
                if comp.kind == "S":
                    log_p = log_p - _log_sphere_area(comp.dim, R)
                else:
                    zero = torch.zeros_like(t)
                    log_p = (
                        log_p
                        + _log_normal(torch, t, zero)
                        - _log_jacobian(torch, comp.kind, t.norm(dim=-1), R, comp.dim)
                    )
                tangents.append(t)
            logits = self._decode_tangent(torch.cat(tangents, dim=-1))
            log_lik = -torch.nn.functional.binary_cross_entropy_with_logits(logits, X, reduction="none").sum(-1)
            total = total + log_lik - float(self.beta) * (log_q - log_p)
        return total / n_samples

    # ------------------------------------------------------------------ API
    def _check_X(self, X, reset):
        X = check_array(X, dtype=np.float64)
        if X.min() < 0.0 or X.max() > 1.0:
            raise ValueError(
                f"X must hold intensities in [0, 1] (found values in [{X.min():g}, {X.max():g}]); "
                "scale it first, e.g. digits.data / 16"
            )
        if reset:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the VAE was fitted with {self.n_features_in_}")
        return X

    def fit(self, X, y=None):
        """Train on images ``X`` of shape (n_samples, n_features) with values in [0, 1]."""
        torch = require("torch", "MixedCurvatureVAE")
        X = self._check_X(X, reset=True)
        if int(self.n_epochs) < 1 or int(self.batch_size) < 1:
            raise ValueError("n_epochs and batch_size must be positive integers")
        self.signature_ = Signature.parse(self.signature)
        rng = as_generator(self.random_state)
        generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
        hidden = [int(h) for h in self.hidden_dims]
        with torch_single_thread(torch):
            self.encoder_ = self._mlp(torch, [X.shape[1], *hidden, 2 * self.signature_.dim], generator)
            self.decoder_ = self._mlp(torch, [self.signature_.dim, *hidden[::-1], X.shape[1]], generator)
            params = list(self.encoder_.parameters()) + list(self.decoder_.parameters())
            optimizer = torch.optim.Adam(params, lr=float(self.lr))
            data = torch.as_tensor(X)
            history = np.empty(int(self.n_epochs))
            for epoch in range(int(self.n_epochs)):
                order = torch.as_tensor(rng.permutation(X.shape[0]))
                running = 0.0
                for start in range(0, X.shape[0], int(self.batch_size)):
                    batch = data[order[start : start + int(self.batch_size)]]
                    optimizer.zero_grad(set_to_none=True)
                    elbo = self._elbo(torch, batch, generator)
                    loss = -elbo.mean()
                    loss.backward()
                    optimizer.step()
                    running += float(elbo.sum().detach())
                history[epoch] = running / X.shape[0]
                if not math.isfinite(history[epoch]):
                    raise FloatingPointError(f"VAE training diverged at epoch {epoch}; try a smaller lr")
                report(self.callback, epoch, history[epoch])
        self.history_ = history
        return self

    def transform(self, X):
        """Posterior means in ambient coordinates of ``signature_``, shape (n_samples, ambient_dim)."""
        check_is_fitted(self, "encoder_")
        torch = require("torch", "MixedCurvatureVAE")
        X = self._check_X(X, reset=False)
        with torch.no_grad(), torch_single_thread(torch):
            parts = self._encode(torch, torch.as_tensor(X))
            blocks = [
                _expmap0(torch, c.kind, u, 1.0 if c.kind == "E" else c.radius).numpy()
                for c, (u, _) in zip(self.signature_.components, parts)
            ]
        return np.hstack(blocks)

    def decode(self, Z):
        """Pixel probabilities of latent points ``Z`` (ambient coordinates), shape (n, n_features)."""
        check_is_fitted(self, "decoder_")
        torch = require("torch", "MixedCurvatureVAE")
        Z = np.asarray(Z, dtype=np.float64)
        if Z.ndim != 2 or Z.shape[1] != self.signature_.ambient_dim:
            raise ValueError(f"Z must have shape (n, {self.signature_.ambient_dim}), got {Z.shape}")
        with torch.no_grad(), torch_single_thread(torch):
            Zt = torch.as_tensor(Z)
            tangents = [
                _logmap0(torch, c.kind, Zt[:, c.slice], 1.0 if c.kind == "E" else c.radius)
                for c in self.signature_.components
            ]
            return torch.sigmoid(self._decode_tangent(torch.cat(tangents, dim=-1))).numpy()

    def elbo(self, X, n_samples=16, random_state=0):
        """Mean ELBO per row (nats) with ``n_samples`` posterior draws; higher is better."""
        check_is_fitted(self, "encoder_")
        torch = require("torch", "MixedCurvatureVAE")
        X = self._check_X(X, reset=False)
        seed = int(as_generator(random_state).integers(2**62))
        with torch.no_grad(), torch_single_thread(torch):
            generator = torch.Generator().manual_seed(seed)
            return float(self._elbo(torch, torch.as_tensor(X), generator, n_samples=int(n_samples)).mean())
