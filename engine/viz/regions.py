"""Decision regions of a fitted model over a picture's grid.

One predict call over the grid (on a fine grid of a classifier, a few, coarse to fine); a
classifier's sphere, torus or refined flat picture adds a few more on the points along its
region edges (:mod:`curvedtrees.viz.smooth`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import is_classifier

from .palette import N_LEVELS, confidence_levels
from .smooth import FLAT_KINDS, REFERENCE_TREES, SMOOTH_KINDS, EdgeCuts, find_class_cuts, refinement
from .views import View, ViewGrid, product_rows, view_grid

__all__ = ["SAMPLED_FROM", "SAMPLE_STRIDE", "RegionGrid", "compute_regions", "predict_frames", "predict_regions"]

# A classifier's picture of at least this many cells up (a fine grid: 300 x 300 costs four times
# the app's default of 150) is predicted coarse to fine (:func:`_sampled_probabilities`): every
# SAMPLE_STRIDE-th cell each way first, then only where neighbouring samples differ.
SAMPLED_FROM = 200
SAMPLE_STRIDE = 4
# Rounds of following the region edges from the predicted cells: each predicts a few cells along
# them, the last ones a handful each (a call's own cost, about a millisecond, then outweighs them).
FOLLOW_ROUNDS = 6
_GRIDDED_KINDS = ("disk", "plane", "sphere", "torus", "map", "ortho")
# The eight neighbours of a cell, (row, column) steps.
_AROUND = np.array([(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc])


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


def _lattice(n: int, stride: int) -> np.ndarray:
    """Every ``stride``-th of ``n`` cells along one side of the grid, and the last one."""
    return np.union1d(np.arange(0, n, stride), [n - 1])


def _between(index: np.ndarray, stride: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The cells of :func:`_lattice` ``(n, stride)`` before and after each of ``index`` (both itself on it)."""
    on = (index % stride == 0) | (index == n - 1)
    before = index - index % stride
    return np.where(on, index, before), np.where(on, index, np.minimum(before + stride, n - 1))


def _codes(proba: np.ndarray) -> np.ndarray:
    """What a figure draws of each cell: class and confidence shade as one code (:mod:`~curvedtrees.viz.palette`)."""
    return np.argmax(proba, axis=1) * N_LEVELS + confidence_levels(proba.max(axis=1), proba.shape[1])


def _sampled_probabilities(model, grid: ViewGrid, rows: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Class probabilities of every cell on the manifold (as :func:`_probabilities` of ``rows``), coarse to fine.

    The cells on a lattice of every :data:`SAMPLE_STRIDE`-th row and column are predicted; then,
    halving the lattice's step, each new cell between lattice cells that all draw the same
    (class and confidence shade, :func:`_codes`) takes the probabilities of the first of them,
    and the others are predicted. Last, wherever a predicted cell draws otherwise than a
    neighbour that was not predicted, that neighbour is predicted, until none is left: an
    edge that wanders between the samples is followed. A region that lies wholly between
    the samples, under ``SAMPLE_STRIDE`` cells across, can be missed; on the pictures of
    ``perf/bench_regions.py`` about one cell in 5,000 takes another class than its own
    prediction and one in 200 another confidence shade (one in 50 for a small forest, whose
    shades come in patches), for a third to a half of the predicted rows.
    """
    n_rows, n_cols = grid.shape
    on = grid.mask.reshape(-1)
    position = np.full(on.size, -1, dtype=np.int64)
    position[on] = np.arange(len(rows))
    proba = np.zeros((on.size, len(classes)))
    code = np.full(on.size, -1, dtype=np.int64)  # -1: off the manifold
    predicted = np.zeros(on.size, dtype=bool)

    def predict(cells: np.ndarray) -> np.ndarray:
        cells = cells[on[cells]]
        if len(cells):
            proba[cells] = _probabilities(model, rows[position[cells]], classes)
            code[cells] = _codes(proba[cells])
            predicted[cells] = True
        return cells

    stride = SAMPLE_STRIDE
    predict((_lattice(n_rows, stride)[:, None] * n_cols + _lattice(n_cols, stride)[None, :]).ravel())
    known = predicted.copy()
    while stride > 1:
        coarse, stride = stride, stride // 2
        cells = (_lattice(n_rows, stride)[:, None] * n_cols + _lattice(n_cols, stride)[None, :]).ravel()
        cells = cells[~known[cells]]
        r, c = np.divmod(cells, n_cols)
        # The coarse lattice's cells around each new one (itself on a lattice line: two of them, else four).
        r0, r1 = _between(r, coarse, n_rows)
        c0, c1 = _between(c, coarse, n_cols)
        first = r0 * n_cols + c0
        around = code[first]
        same = around >= 0
        for corner in (r0 * n_cols + c1, r1 * n_cols + c0, r1 * n_cols + c1):
            same &= code[corner] == around
        taken, source = cells[same], first[same]
        proba[taken], code[taken] = proba[source], around[same]
        predict(cells[~same])
        known[cells] = True
    # Predicted cells beside a cell that was not and draws otherwise: on the grid at first, then
    # around the cells each round predicts.
    grid_code, grid_predicted = code.reshape(n_rows, n_cols), predicted.reshape(n_rows, n_cols)
    follow = np.zeros((n_rows, n_cols), dtype=bool)
    for dr, dc in _AROUND:
        beside = np.roll(grid_predicted, (dr, dc), axis=(0, 1)) & (
            np.roll(grid_code, (dr, dc), axis=(0, 1)) != grid_code
        )
        follow |= beside
    front = predict(np.flatnonzero(follow.ravel() & ~predicted))
    for _ in range(FOLLOW_ROUNDS - 1):
        if not len(front):
            break
        r, c = np.divmod(front, n_cols)
        near = ((r[:, None] + _AROUND[:, 0]) % n_rows) * n_cols + (c[:, None] + _AROUND[:, 1]) % n_cols
        differ = on[near] & ~predicted[near] & (code[near] != code[front][:, None])
        front = predict(np.unique(near[differ]))
    return proba[on]


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

    A classifier's grid of at least :data:`SAMPLED_FROM` cells up (a disk, plane, sphere,
    torus, map or orthographic globe) is predicted coarse to fine: a cell between samples
    that all draw the same class and confidence shade takes the first sample's probabilities
    (:func:`_sampled_probabilities`), so a 300 x 300 picture predicts a third to a half of
    its cells.

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
        if not len(rows):
            proba = np.zeros((0, len(classes)))
        elif grid.view.kind in _GRIDDED_KINDS and grid.shape[0] >= SAMPLED_FROM:
            proba = _sampled_probabilities(model, grid, rows, classes)
        else:
            proba = _probabilities(model, rows, classes)
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
