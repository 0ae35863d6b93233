"""Decision regions of a fitted model over a picture's grid (one predict call)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import is_classifier

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
    """

    grid: ViewGrid
    task: str
    class_index: np.ndarray | None = None
    confidence: np.ndarray | None = None
    values: np.ndarray | None = None
    classes: np.ndarray | None = None

    @property
    def view(self) -> View:
        return self.grid.view


def predict_regions(model, grid: ViewGrid, reference: np.ndarray) -> RegionGrid:
    """Predict every cell of ``grid`` with the other components at ``reference``.

    Parameters
    ----------
    model : fitted estimator
        A classifier with ``predict_proba`` and ``classes_``, or a regressor.
    grid : ViewGrid
    reference : ndarray of shape (ambient_dim,)

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
        if len(rows):
            if hasattr(model, "predict_proba"):
                proba = np.asarray(model.predict_proba(rows))
                index[grid.mask] = np.argmax(proba, axis=1)
                confidence[grid.mask] = proba.max(axis=1)
            else:
                pred = np.asarray(model.predict(rows))
                index[grid.mask] = np.searchsorted(classes, pred)
                confidence[grid.mask] = 1.0
        return RegionGrid(grid, "classification", index.reshape(shape), confidence.reshape(shape), None, classes)
    values = np.full(grid.mask.shape, np.nan, dtype=np.float32)
    if len(rows):
        values[grid.mask] = np.asarray(model.predict(rows), dtype=np.float64).ravel()
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
    return [predict_regions(model, grid, np.asarray(ref, dtype=np.float64)) for ref in references]


def compute_regions(
    model, signature, view: View, reference: np.ndarray, resolution: int = 150, bounds: tuple | None = None
) -> RegionGrid:
    """Grid a picture and predict it: :func:`view_grid` then :func:`predict_regions`."""
    return predict_regions(model, view_grid(view, signature, resolution, bounds), reference)
