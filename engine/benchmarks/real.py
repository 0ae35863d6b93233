"""Benchmark specs for the offline datasets of :mod:`curvedtrees.datasets`.

Where a dataset stands for a row of the paper's Table 5 it carries that row's
section, name and signature so reports can put the two side by side
(Landmasses, Temperature, the Karate Club and Les Miserables link prediction).
The others are stand-ins for data that cannot be shipped (simulated neuron
instead of the Allen recordings, synthetic traffic instead of Kaggle's, VAE
latents of scikit-learn's 8x8 digits instead of MNIST) and get names of their
own.

Splits follow the paper: a random 80/20 split of rows (city temperatures
included, as in the paper, although rows of one city then fall on both sides),
except where the dataset fixes its own test set (link prediction: test nodes;
VAE latents: images the VAE never saw).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .specs import BenchmarkData, DatasetSpec

__all__ = ["REAL_DATASETS", "dataset_spec", "load_real", "real_datasets"]


def load_real(random_state, name, params):
    """Load ``curvedtrees.datasets`` dataset ``name`` for one trial.

    Parameters
    ----------
    random_state : int
        Passed to loaders that take one (subsampling, embedding initialisation,
        VAE training); deterministic datasets ignore it.
    name : str
        Registry name in :mod:`curvedtrees.datasets`.
    params : dict
        Loader parameters.

    Returns
    -------
    BenchmarkData
        With a fixed split when the dataset defines a test mask.
    """
    from ..datasets import get_dataset_info, load_dataset

    accepts_seed = any(p.name == "random_state" for p in get_dataset_info(name).parameters)
    data = load_dataset(name, **params, **({"random_state": random_state} if accepts_seed else {}))
    if data.test_mask is None:
        return BenchmarkData(data.X, data.y, data.signature, data.task)
    test = np.asarray(data.test_mask, dtype=bool)
    return BenchmarkData(data.X[~test], data.y[~test], data.signature, data.task, data.X[test], data.y[test])


# (section, display name, registry name, loader parameters, signature, learned curvature)
REAL_DATASETS = [
    ("Other", "Landmasses", "landmasses", {"n_samples": 1000, "antarctica_as_water": True}, "S2", False),
    ("Other", "Temperature", "city_temperatures", {}, "S2 x S1", False),
    ("Other", "Neuron (simulated)", "neuron", {"n_samples": 2000, "n_frequencies": 5}, "(S1)^5", False),
    ("Other", "Traffic (synthetic)", "traffic", {"n_samples": 2000}, "E1 x (S1)^4", False),
    ("Other", "El Nino", "el_nino", {}, "E1 x S1", False),
    (
        "Graph embeddings",
        "Karate Club",
        "link_prediction",
        {"graph": "karate_club", "signature": "S2 x E2 x H2"},
        "S2 x E2 x H2 x S2 x E2 x H2 x E1",
        True,
    ),
    (
        "Graph embeddings",
        "Les Mis",
        "link_prediction",
        {"graph": "les_miserables", "signature": "S2 x E2 x H2"},
        "S2 x E2 x H2 x S2 x E2 x H2 x E1",
        True,
    ),
    ("VAE", "Digits (VAE latents)", "digits_latents", {"signature": "S2 x E2 x H2"}, "S2 x E2 x H2", False),
]

_SIZED = {"landmasses", "neuron", "traffic"}


def real_datasets(n_samples=None, names=None) -> list[DatasetSpec]:
    """Dataset specs for the shipped datasets (all of :data:`REAL_DATASETS`, or those named).

    Parameters
    ----------
    n_samples : int, optional
        Overrides the size of the datasets that are sampled (landmasses, neuron,
        traffic).
    names : list of str, optional
        Display names or registry names to keep.

    Raises
    ------
    ImportError
        When :mod:`curvedtrees.datasets` cannot be imported.
    """
    from ..datasets import get_dataset_info

    specs = []
    for section, title, name, params, signature, learned in REAL_DATASETS:
        if names is not None and title not in names and name not in names:
            continue
        params = dict(params)
        if n_samples is not None and name in _SIZED:
            params["n_samples"] = n_samples
        info = get_dataset_info(name)
        specs.append(
            DatasetSpec(
                name=title,
                loader=partial(load_real, name=name, params=params),
                signature=signature,
                task=info.task,
                section=section,
                description=info.summary,
                learned_curvature=learned,
            )
        )
    return specs


def _load_fixed(random_state, dataset, test_size):
    split = getattr(dataset, "split_indices", None)
    if split is None or (getattr(dataset, "groups", None) is None and getattr(dataset, "test_mask", None) is None):
        # Plain rows: let the runner draw its own random split.
        return BenchmarkData(dataset.X, dataset.y, dataset.signature, dataset.task)
    # The dataset's own rule (a fixed test set, or whole groups on one side), seeded per trial.
    train, test = split(test_size=test_size, random_state=random_state)
    return BenchmarkData(
        dataset.X[train], dataset.y[train], dataset.signature, dataset.task, dataset.X[test], dataset.y[test]
    )


def dataset_spec(dataset, name=None, section="", test_size=0.2) -> DatasetSpec:
    """A :class:`DatasetSpec` for data already in memory (an :class:`curvedtrees.datasets.Dataset` or alike).

    Every trial uses the same rows; the train/test split changes with the
    trial's seed. A dataset with a fixed test set keeps it; one with groups
    (e.g. the cities of the temperature data) keeps each group on one side.

    Parameters
    ----------
    dataset : object with X, y, signature, task (and optionally split_indices, groups, test_mask)
    name : str, optional
        Defaults to ``dataset.name``.
    section : str
    test_size : float
        Used by grouped splits (the runner's own ``test_size`` drives plain ones).
    """
    from ..manifolds.signature import Signature

    return DatasetSpec(
        name=name or getattr(dataset, "name", "dataset"),
        loader=partial(_load_fixed, dataset=dataset, test_size=test_size),
        signature=str(Signature.parse(dataset.signature)),
        task=dataset.task,
        section=section,
        description=getattr(dataset, "description", ""),
    )
