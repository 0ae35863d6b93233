"""Named benchmark presets: the paper's synthetic setups, the shipped datasets, and small ones for tests.

A preset is a list of dataset specs plus a list of model ids. The paper's
synthetic presets follow section 4.1 and Appendix E: 1,000 points, an 80/20
split, 32 clusters, 8 classes (classification) and 100 trials. Every preset but
``tiny-sklearn`` runs the paper's eight models plus product gradient boosting and
its two HistGradientBoosting baselines (:data:`~curvedtrees.benchmarks.models.PRESET_MODELS`).
The paper has none of these three: they stay out of the paper's tables, tests and
ranks and are compared in a table of their own (``"boosting"`` family, see
:mod:`curvedtrees.benchmarks.statistics`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from .datasets import gaussian_mixture
from .models import PRESET_MODELS, SKLEARN_MODELS, get_models
from .specs import DatasetSpec, ModelSpec

__all__ = [
    "MULTI_CURVATURE_SIGNATURES",
    "PRESETS",
    "SINGLE_CURVATURES",
    "Preset",
    "get_preset",
]

#: |K| of the single-curvature sweep (paper Figures 3 and 4, Table 5).
SINGLE_CURVATURES = (0.25, 0.5, 1.0, 2.0, 4.0)

#: The eight 4-dimensional signatures of section 4.2, in the row order of Table 5.
MULTI_CURVATURE_SIGNATURES = (
    "S2 x S2",
    "E4",
    "H2 x E2",
    "H2 x S2",
    "H4",
    "S2 x E2",
    "S4",
    "H2 x H2",
)

_TASKS = ("classification", "regression")


def _single_curvature_signatures():
    signatures = ["E2"]
    signatures += [f"H2({-k})" for k in SINGLE_CURVATURES]
    signatures += [f"S2({k})" for k in SINGLE_CURVATURES]
    return signatures


def _mixtures(signatures, section, tasks=_TASKS, **params):
    # Task-major order, as in Table 5: every classification row, then every regression row.
    return [gaussian_mixture(sig, task, section=section, **params) for task in tasks for sig in signatures]


def _size(n_samples):
    return {} if n_samples is None else {"n_samples": n_samples}


def _single_curvature(n_samples=None, protocol="paper"):
    return _mixtures(_single_curvature_signatures(), "Synthetic (single K)", protocol=protocol, **_size(n_samples))


def _multi_curvature(n_samples=None, protocol="paper"):
    return _mixtures(MULTI_CURVATURE_SIGNATURES, "Synthetic (multi-K)", protocol=protocol, **_size(n_samples))


def _paper_synthetic(n_samples=None):
    return _single_curvature(n_samples) + _multi_curvature(n_samples)


def _tiny(n_samples=None):
    return _mixtures(["H2", "S2 x E2"], "Tiny", n_samples=n_samples or 200, n_clusters=8, n_classes=4)


def _datasets(n_samples=None):
    from .real import real_datasets

    return real_datasets(n_samples=n_samples)


@dataclass(frozen=True)
class Preset:
    """A named benchmark.

    Parameters
    ----------
    name : str
    description : str
    build : callable
        ``build(n_samples=None) -> list of DatasetSpec``; ``n_samples``
        overrides the size of generated data (None: the preset's own).
    models : tuple of str
        Model ids (see :data:`curvedtrees.benchmarks.models.MODELS`).
    trials : int
        Default number of trials.
    paper : bool
        Whether the rows correspond to rows of the paper's Table 5.
    tree_params : dict, optional
        Overrides of the paper's tree/forest hyperparameters (e.g. ``{"max_depth": 3}``).
    """

    name: str
    description: str
    build: Callable[..., list[DatasetSpec]]
    models: tuple[str, ...]
    trials: int = 100
    paper: bool = False
    tree_params: dict | None = None

    def datasets(self, n_samples: int | None = None) -> list[DatasetSpec]:
        """The preset's dataset specs."""
        if n_samples is not None and (int(n_samples) != n_samples or n_samples < 10):
            raise ValueError(f"n_samples must be an integer of at least 10, got {n_samples!r}")
        return self.build(n_samples=n_samples)

    def model_specs(self, names=None) -> list[ModelSpec]:
        """The preset's model specs (or the given subset, by id or display name)."""
        return get_models(list(self.models) if names is None else names, tree_params=self.tree_params)


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in [
        Preset(
            "single-curvature",
            "Gaussian mixtures on E2 and on H2 and S2 with |K| in 0.25, 0.5, 1, 2, 4; classification "
            "and regression (paper Figures 3 and 4, Table 5 'Synthetic (single K)')",
            _single_curvature,
            tuple(PRESET_MODELS),
            paper=True,
        ),
        Preset(
            "multi-curvature",
            "Gaussian mixtures on the eight 4-dimensional signatures (H2)^2, H2 x E2, H2 x S2, S2 x E2, "
            "(S2)^2, H4, E4, S4; classification and regression (paper Tables 2, 3 and 5 'Synthetic (multi-K)')",
            _multi_curvature,
            tuple(PRESET_MODELS),
            paper=True,
        ),
        Preset(
            "single-curvature-notebook",
            "the single-curvature sweep with the mixture scales of the authors' benchmark notebooks "
            "(curvedtrees.benchmarks.datasets.notebook_mixture), to separate data-generation differences from "
            "model differences",
            partial(_single_curvature, protocol="notebook"),
            tuple(PRESET_MODELS),
            paper=True,
        ),
        Preset(
            "multi-curvature-notebook",
            "the multi-curvature signatures with the mixture scales of the authors' benchmark notebooks",
            partial(_multi_curvature, protocol="notebook"),
            tuple(PRESET_MODELS),
            paper=True,
        ),
        Preset(
            "single-curvature-notebook-depth3",
            "the single-curvature sweep with the notebook mixture scales and trees of depth 3: a depth chosen "
            "afterwards because it fits the paper's printed Table 5 (the authors' code and stored results use 5, "
            "as the text says)",
            partial(_single_curvature, protocol="notebook"),
            tuple(PRESET_MODELS),
            paper=True,
            tree_params={"max_depth": 3},
        ),
        Preset(
            "multi-curvature-notebook-depth3",
            "the multi-curvature signatures with the notebook mixture scales and trees of depth 3: a depth chosen "
            "afterwards because it fits the paper's printed Table 5 (the authors' code and stored results use 5, "
            "as the text says)",
            partial(_multi_curvature, protocol="notebook"),
            tuple(PRESET_MODELS),
            paper=True,
            tree_params={"max_depth": 3},
        ),
        Preset(
            "paper-synthetic",
            "single-curvature and multi-curvature together",
            _paper_synthetic,
            tuple(PRESET_MODELS),
            paper=True,
        ),
        Preset(
            "datasets",
            "the offline datasets of curvedtrees.datasets (landmasses, city temperatures, graphs, signals, latents)",
            _datasets,
            tuple(PRESET_MODELS),
            trials=10,
        ),
        Preset(
            "tiny",
            "two small mixtures (H2 and S2 x E2, 200 points, 8 clusters, 4 classes) with the paper's models, "
            "product gradient boosting and its baselines: a quick check that everything runs",
            _tiny,
            tuple(PRESET_MODELS),
            trials=5,
        ),
        Preset(
            "tiny-sklearn",
            "the tiny mixtures with scikit-learn models only (ambient DT, RF and k-NN)",
            _tiny,
            tuple(SKLEARN_MODELS),
            trials=5,
        ),
    ]
}


def get_preset(name: str) -> Preset:
    """A preset by name.

    Raises
    ------
    ValueError
        For an unknown name, listing the known ones.
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}: expected one of {', '.join(PRESETS)}") from None


def run_preset(
    name: str,
    n_trials: int | None = None,
    models=None,
    n_samples: int | None = None,
    random_state: int = 0,
    tree_params: dict | None = None,
    **run_kwargs,
):
    """Run a preset with :func:`curvedtrees.benchmarks.run_benchmark`.

    Parameters
    ----------
    name : str
        A key of :data:`PRESETS`.
    n_trials : int, optional
        Default: the preset's own.
    models : list of str, optional
        Subset of models (ids or display names); default: the preset's.
    n_samples : int, optional
        Override the size of generated data.
    random_state : int
    tree_params : dict, optional
        Tree/forest hyperparameters overriding the preset's (e.g. ``{"max_depth": 3}``).
    **run_kwargs
        Passed on (``n_jobs``, ``client``, ``scheduler``, ``progress``,
        ``on_error``, ``skip_unavailable``, ...).

    Returns
    -------
    pandas.DataFrame
        The tidy results, with ``attrs["preset"]`` set.
    """
    from .runner import run_benchmark

    preset = get_preset(name)
    specs = preset.model_specs(models)
    if tree_params:
        from .models import with_tree_params

        specs = [with_tree_params(spec, tree_params) for spec in specs]
    results = run_benchmark(
        preset.datasets(n_samples),
        specs,
        n_trials=preset.trials if n_trials is None else n_trials,
        random_state=random_state,
        **run_kwargs,
    )
    results.attrs["preset"] = preset.name
    results.attrs["tree_params"] = {**(preset.tree_params or {}), **(tree_params or {})}
    return results
