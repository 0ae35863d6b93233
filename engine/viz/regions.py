"""Decision regions of a fitted model over a picture's grid.

One predict call over the grid; a sphere or torus picture of a classifier adds a few
more on the points along its region edges (:mod:`curvedtrees.viz.smooth`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import is_classifier

from .smooth import FLAT_KINDS, REFERENCE_TREES, SMOOTH_KINDS, EdgeCuts, find_class_cuts, refinement
from .views import View, ViewGrid, product_rows, view_grid

__all__ = ["RegionGrid", "compute_regions", "predict_frames", "predict_regions"]


@dataclass
class RegionGrid:
    """A model's predictions over a picture.

    Attributes
    ----------
    grid : ViewGrid
    task : {"classification", "regression"}
    class_index : ndarray of int16, shape grid.shape
        Index of the predicted class in ``classes`` (-1 outside the manifold);
        classification only.
    confidence : ndarray of float32, shape grid.shape
        Probability of the predicted class (NaN outside); classification only.
    values : ndarray of float32, shape grid.shape
        Predicted values (NaN outside); regression only.
    classes : ndarray
        The model's ``classes_`` (classification) or empty.
    cuts : EdgeCuts or None
        Sphere, torus, disk, plane and map classification pictures: where the class (in a replay: the
        full tree's leaf) changes between neighbouring cell centres
        (:func:`curvedtrees.viz.smooth.find_class_cuts`, ``find_cuts``), which the figure
        draws as smooth region edges; None otherwise.
    """

    grid: ViewGrid
    task: str
    class_index: np.ndarray | None = None
    confidence: np.ndarray | None = None
    values: np.ndarray | None = None
    classes: np.ndarray | None = None
    cuts: EdgeCuts | None = None
    _drawn: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def view(self) -> View:
        return self.grid.view

    def drawn(self, key, build):
        """``build()``, kept under ``key`` for these regions: what every figure of them draws the same.

        A picture's figure is built again for every change of its overlay or framing; a drawing
        that depends on the regions only (a flat picture's refined pixels) is made once.
        """
        if key not in self._drawn:
            self._drawn[key] = build()
        return self._drawn[key]


def _quiet(method, rows: np.ndarray) -> np.ndarray:
    """``method(rows)`` without the warning of an estimator fitted on a DataFrame.

    The picture's rows are ndarrays in the columns' order: such an estimator would warn on
    every picture that they carry no feature names.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="X does not have valid feature names", category=UserWarning)
        return np.asarray(method(rows))


def _probabilities(model, rows: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Class probabilities of every row, shape (n, n_classes); a model without ``predict_proba`` is sure."""
    if hasattr(model, "predict_proba"):
        return np.asarray(_quiet(model.predict_proba, rows), dtype=np.float64)
    sure = np.zeros((len(rows), len(classes)))
    sure[np.arange(len(rows)), np.searchsorted(classes, _quiet(model.predict, rows))] = 1.0
    return sure


def _tree_count(model) -> int:
    """Trees one predicted row costs: 1 for a tree, a forest's or boosting's count, else a reference forest's."""
    if hasattr(model, "tree_"):
        return 1
    if hasattr(model, "estimators_"):
        return max(len(model.estimators_), 1)
    if hasattr(model, "trees_"):
        return max(sum(len(t) if isinstance(t, list | tuple) else 1 for t in model.trees_), 1)
    return REFERENCE_TREES  # a wrapped model of unknown size: priced as the reference forest


def predict_regions(model, grid: ViewGrid, reference: np.ndarray, smooth: bool = True) -> RegionGrid:
    """Predict every cell of ``grid`` with the other components at ``reference``.

    Parameters
    ----------
    model : fitted estimator
        A classifier with ``predict_proba`` and ``classes_``, or a regressor.
    grid : ViewGrid
    reference : ndarray of shape (ambient_dim,)
    smooth : bool
        On a sphere or torus, and on a disk, plane or world map drawn finer than its cells
        (:func:`~curvedtrees.viz.smooth.refinement` above 1), of a classifier, also find where
        the class changes between neighbouring cells (:attr:`RegionGrid.cuts`: a few more predict calls on the
        points along the region edges, as many as the model's size affords, see
        :func:`curvedtrees.viz.smooth.find_class_cuts`), so that the figure draws the
        edges smooth.

    Returns
    -------
    RegionGrid
    """
    rows = product_rows(grid, reference)
    shape = grid.shape
    if is_classifier(model):
        classes = np.asarray(model.classes_)
        index = np.full(grid.mask.shape, -1, dtype=np.int16)
        confidence = np.full(grid.mask.shape, np.nan, dtype=np.float32)
        proba = _probabilities(model, rows, classes) if len(rows) else np.zeros((0, len(classes)))
        if len(rows):
            index[grid.mask], confidence[grid.mask] = np.argmax(proba, axis=1), proba.max(axis=1)
        cuts = None
        # A flat picture drawn a pixel a cell (above FLAT_PIXELS cells up) has no use for crossings.
        drawn = grid.view.kind in SMOOTH_KINDS or (grid.view.kind in FLAT_KINDS and refinement(grid) > 1)
        if smooth and drawn and len(rows):

            def probabilities(values):
                return _probabilities(model, product_rows(grid, reference, values), classes)

            # Cut where the class changes; the cells beneath blend their confidence shades themselves.
            cuts = find_class_cuts(grid, proba, probabilities, _tree_count(model))
        return RegionGrid(grid, "classification", index.reshape(shape), confidence.reshape(shape), None, classes, cuts)
    values = np.full(grid.mask.shape, np.nan, dtype=np.float32)
    if len(rows):
        values[grid.mask] = np.asarray(_quiet(model.predict, rows), dtype=np.float64).ravel()
    return RegionGrid(grid, "regression", None, None, values.reshape(shape), np.array([]))


def predict_frames(model, grid: ViewGrid, references) -> list[RegionGrid]:
    """Predictions of one picture at several reference points (the frames of an animation).

    For example a globe drawn at each month of an S2 x S1 product: the S1
    component held at one angle per frame.

    Parameters
    ----------
    model : fitted estimator
    grid : ViewGrid
    references : sequence of ndarray of shape (ambient_dim,)

    Returns
    -------
    list of RegionGrid, one per reference, in order
    """
    # A flat picture's frames are drawn cell by cell (a byte a cell and frame): no crossings to find.
    smooth = grid.view.kind in SMOOTH_KINDS
    return [predict_regions(model, grid, np.asarray(ref, dtype=np.float64), smooth) for ref in references]


def compute_regions(
    model, signature, view: View, reference: np.ndarray, resolution: int = 150, bounds: tuple | None = None
) -> RegionGrid:
    """Grid a picture and predict it: :func:`view_grid` then :func:`predict_regions`."""
    return predict_regions(model, view_grid(view, signature, resolution, bounds), reference)
