"""Learned embeddings that turn graphs and images into datasets on product manifolds.

- :func:`embed_graph`, :func:`search_signatures`: graph embeddings by distortion
  minimisation (Gu et al. 2018) with Riemannian Adam (geoopt);
  :func:`average_distortion`, :func:`mean_average_precision` measure them.
- :class:`KappaGCNClassifier`: kappa-GCN node classifier (Bachmann et al. 2020).
- :class:`MixedCurvatureVAE`: a VAE with a wrapped-normal posterior on a product
  latent space (Skopek et al. 2020 style), trained on scikit-learn's digits.

Long trainings take ``callback(epoch, value)``; returning False cancels and the
training raises :class:`Cancelled`. torch and geoopt are imported only when a
training runs, so importing this package is cheap.
"""

from importlib import import_module

_EXPORTS = {
    "Cancelled": "curvedtrees.embeddings._progress",
    "average_distortion": "curvedtrees.embeddings.metrics",
    "mean_average_precision": "curvedtrees.embeddings.metrics",
    "EmbeddingResult": "curvedtrees.embeddings.graph",
    "embed_graph": "curvedtrees.embeddings.graph",
    "embedding_distances": "curvedtrees.embeddings.graph",
    "graph_distances": "curvedtrees.embeddings.graph",
    "search_signatures": "curvedtrees.embeddings.graph",
    # Moved to curvedtrees.datasets (it builds a Dataset); kept here until the tests follow.
    "KappaGCNClassifier": "curvedtrees.embeddings.kappa_gcn",
    "MixedCurvatureVAE": "curvedtrees.embeddings.vae",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'curvedtrees.embeddings' has no attribute {name!r}") from None
    return getattr(import_module(module), name)


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
