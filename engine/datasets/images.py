"""Image latents: scikit-learn's digits encoded by a mixed-curvature VAE."""

from __future__ import annotations

import numpy as np

from ..limits import MAX_EMBEDDING_DIM
from ..utils import as_generator
from ._base import Dataset, ParamInfo, random_test_mask, register

__all__ = ["load_digits_latents"]


@register(
    "digits_latents",
    title="Digits (VAE latents)",
    task="classification",
    signature="S2 x E2 x H2",
    summary="8x8 handwritten digits encoded by a mixed-curvature VAE; label = digit.",
    category="image latents",
    parameters=(
        ParamInfo(
            "signature",
            "signature",
            "S2 x E2 x H2",
            "Latent signature of the VAE.",
            max=MAX_EMBEDDING_DIM,
            choices=("S2 x E2 x H2", "H2", "S2", "E2", "H2 x H2", "S2 x S2"),
        ),
        ParamInfo(
            "n_epochs", "int", 40, "VAE training epochs (about 0.1-0.2 s each).", 1, 500, step=10, label="Epochs"
        ),
        ParamInfo(
            "test_size",
            "float",
            0.25,
            "Fraction of images the VAE never sees (the test rows).",
            0.05,
            0.8,
            label="Held-out images",
        ),
        ParamInfo("random_state", "seed", 0, "Seed of the split and of the VAE.", label="Seed"),
    ),
    requires=("torch",),
    slow=True,
)
def load_digits_latents(
    signature: str = "S2 x E2 x H2", n_epochs: int = 40, test_size: float = 0.25, random_state=0, callback=None
) -> Dataset:
    """Latent means of scikit-learn's 1797 digits under a VAE trained on the training images.

    As in the paper (Appendix E.3), the VAE is trained on the training split only
    and then encodes every image (the posterior mean); the held-out images are
    the dataset's ``test_mask``, so :meth:`Dataset.split` never lets the VAE's
    training leak into the test rows. Stands in for the paper's MNIST.

    Parameters
    ----------
    signature : str
        Latent signature.
    n_epochs : int
    test_size : float
    random_state : int, Generator or None
    callback : callable, optional
        ``callback(epoch, elbo)``; return False to cancel.

    Returns
    -------
    Dataset
        ``X`` of shape (1797, ambient_dim), ``y`` the digit; ``extra["elbo_history"]``,
        ``extra["test_elbo"]``, ``extra["images"]`` (1797, 64) in [0, 1].
    """
    from sklearn.datasets import load_digits

    from ..embeddings.vae import MixedCurvatureVAE

    digits = load_digits()
    images = digits.data / 16.0  # intensities 0..16 -> [0, 1]
    rng = as_generator(random_state)
    test_mask = random_test_mask(len(images), test_size=test_size, random_state=rng)
    vae = MixedCurvatureVAE(signature=signature, n_epochs=n_epochs, random_state=rng, callback=callback)
    vae.fit(images[~test_mask])
    return Dataset(
        X=vae.transform(images),
        y=digits.target.astype(np.int64),
        signature=vae.signature_,
        task="classification",
        name="digits_latents",
        description=(
            f"The 1797 8x8 handwritten digits bundled with scikit-learn, encoded into {vae.signature_} by a "
            "variational autoencoder with a wrapped-normal posterior per component (Skopek et al. 2020 style). "
            f"The VAE trained for {n_epochs} epochs on {int((~test_mask).sum())} images only; each row is the "
            "posterior mean of one image, the label its digit. The held-out images are the test rows. Stands in "
            "for the paper's MNIST, which cannot be downloaded here."
        ),
        provenance=(
            "Optical Recognition of Handwritten Digits (Alpaydin and Kaynak, 1998, UCI Machine Learning "
            "Repository, CC BY 4.0), bundled with scikit-learn (BSD-3-Clause) as sklearn.datasets.load_digits. "
            "Latents learned by this project (curvedtrees.embeddings.MixedCurvatureVAE)."
        ),
        test_mask=test_mask,
        target_names=tuple(str(d) for d in range(10)),
        extra={
            "elbo_history": vae.history_,
            "test_elbo": vae.elbo(images[test_mask]),
            "images": images,
        },
    )
