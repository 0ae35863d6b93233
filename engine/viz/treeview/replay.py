"""Training replayed split by split: a tree's regions over one picture after each number of splits.

The tree stopped after its first k splits predicts, for a row, the training statistics of the
first node of the row's full path that is not among those splits
(:meth:`curvedtrees.trees.Tree.nodes_after_splits`), so every frame comes from one pass of the
grid through the full tree, with no pruned copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..figures.options import Animation
from ..regions import RegionGrid
from ..views import ViewGrid, product_rows

__all__ = ["MAX_REPLAY_FRAMES", "Replay", "replay_regions", "replay_steps"]

# A replay sends every frame to the browser at once (one byte per cell each): deeper trees are
# replayed at this many evenly spaced split counts, the full tree always last.
MAX_REPLAY_FRAMES = 64


def replay_steps(n_splits: int, max_frames: int = MAX_REPLAY_FRAMES) -> np.ndarray:
    """Split counts a replay shows: 0, 1, ..., n_splits, or ``max_frames`` of them evenly spaced.

    Returns
    -------
    ndarray of int64, shape (min(n_splits + 1, max_frames),)
        Increasing, from 0 to ``n_splits`` inclusive.
    """
    n_splits, max_frames = int(n_splits), max(int(max_frames), 2)
    if n_splits + 1 <= max_frames:
        return np.arange(n_splits + 1, dtype=np.int64)
    return np.unique(np.rint(np.linspace(0, n_splits, max_frames)).astype(np.int64))


@dataclass
class Replay:
    """A tree's regions over one picture after each number of splits.

    Attributes
    ----------
    frames : list of RegionGrid
        ``frames[f]`` is what the tree stopped after ``steps[f]`` splits predicts.
    steps : ndarray of int64, shape (n_frames,)
        Number of splits of each frame (see :func:`replay_steps`).
    order : ndarray of int64, shape (n_splits,)
        Node ids of the splits in the order training chose them
        (:func:`curvedtrees.trees.split_order`).
    """

    frames: list
    steps: np.ndarray
    order: np.ndarray

    def newest(self, frame: int) -> int | None:
        """Node id of the last split of frame ``frame`` (None before the first split)."""
        k = int(self.steps[frame])
        return int(self.order[k - 1]) if k > 0 else None

    def nodes(self, frame: int) -> np.ndarray:
        """Node ids of the splits of frame ``frame``, in training order."""
        return self.order[: int(self.steps[frame])]

    def animation(self, boundary_styles=None, active: int | None = None) -> Animation:
        """The replay as a figure's :class:`~curvedtrees.viz.figures.Animation`.

        Parameters
        ----------
        boundary_styles : sequence of dict of int to str, optional
            The boundaries each frame draws (node -> style), one dict per frame.
        active : int, optional
            The frame shown first (default: the last, the whole tree).
        """
        last = len(self.frames) - 1
        shown = last if active is None else int(np.clip(active, 0, last))
        names = [str(int(k)) for k in self.steps]
        # The slider reads "Split 3 of 12": the number of splits shown, of the tree's.
        return Animation(tuple(self.frames), names, shown, f"Split {{}} of {len(self.order)}", boundary_styles)


def replay_regions(estimator, grid: ViewGrid, reference: np.ndarray, steps=None) -> Replay:
    """The regions of the tree after its first k splits, for every k, from one pass over the grid.

    Each cell is routed once through the full tree (``apply``). Stopped after k splits, the
    tree sends the cell to the first node of that path which is not one of the first k splits
    (a leaf of the full tree, or a split chosen later): that node's training statistics are
    the prediction, exactly as :func:`curvedtrees.trees.first_splits` would give.

    Parameters
    ----------
    estimator : fitted ProductDecisionTreeClassifier or ProductDecisionTreeRegressor
    grid : ViewGrid
    reference : ndarray of shape (ambient_dim,)
        Where the components outside the picture are held.
    steps : array-like of int, optional
        Split counts to show (default :func:`replay_steps`), each in ``[0, n_splits]``.

    Returns
    -------
    Replay
    """
    tree = estimator.tree_
    order = tree.split_order()
    steps = replay_steps(len(order)) if steps is None else np.asarray(steps, dtype=np.int64).ravel()
    if steps.size == 0 or steps.min() < 0 or steps.max() > len(order):
        raise ValueError(f"replay steps must lie in [0, {len(order)}] (the tree's splits), got {steps.tolist()}")
    # owner[f, v]: the node a cell whose full-tree path passes v sits in after steps[f] splits.
    owner = tree.nodes_after_splits(steps)
    rows = product_rows(grid, reference)
    leaf = np.asarray(estimator.apply(rows), dtype=np.int64) if len(rows) else np.zeros(0, dtype=np.int64)
    value = np.asarray(tree.value, dtype=np.float64).reshape(tree.node_count, -1)
    if hasattr(estimator, "classes_"):
        frames = _class_frames(grid, owner, leaf, value, np.asarray(estimator.classes_))
    else:
        frames = _value_frames(grid, owner, leaf, value)
    return Replay(frames, steps, order)


def _class_frames(grid: ViewGrid, owner, leaf, value: np.ndarray, classes: np.ndarray) -> list[RegionGrid]:
    """Classification frames: the node a cell's leaf falls in (``owner[f][leaf]``) gives its class."""
    shape, mask = grid.shape, grid.mask
    node_class = np.argmax(value, axis=1).astype(np.int16)
    node_conf = value.max(axis=1).astype(np.float32)
    frames = []
    for stopped in owner:
        nodes = stopped[leaf]
        index = np.full(mask.shape, -1, dtype=np.int16)
        confidence = np.full(mask.shape, np.nan, dtype=np.float32)
        index[mask], confidence[mask] = node_class[nodes], node_conf[nodes]
        frames.append(
            RegionGrid(grid, "classification", index.reshape(shape), confidence.reshape(shape), None, classes)
        )
    return frames


def _value_frames(grid: ViewGrid, owner, leaf, value: np.ndarray) -> list[RegionGrid]:
    """Regression frames: the node a cell's leaf falls in gives its value."""
    shape, mask = grid.shape, grid.mask
    node_value = value[:, 0].astype(np.float32)
    frames = []
    for stopped in owner:
        values = np.full(mask.shape, np.nan, dtype=np.float32)
        values[mask] = node_value[stopped[leaf]]
        frames.append(RegionGrid(grid, "regression", None, None, values.reshape(shape), np.array([])))
    return frames
