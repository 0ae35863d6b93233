"""A fitted product tree as a diagram, replayed split by split, and explained per point.

One module per job:

* :mod:`~curvedtrees.viz.treeview.replay`: the regions after every number of splits from
  one pass over the grid (:func:`replay_regions`, a :class:`Replay`, played as animation
  frames);
* :mod:`~curvedtrees.viz.treeview.nodes`: one node in a picture (:func:`node_region`: its
  cells, side labels, margin band and nearest training rows) and its texts
  (:func:`node_details`, :func:`split_geometry`, :func:`explain_path`);
* :mod:`~curvedtrees.viz.treeview.layout`: which nodes a diagram draws and where
  (:func:`diagram_nodes`, a tidy layout, labels that fit);
* :mod:`~curvedtrees.viz.treeview.diagram`: the diagram figure (:func:`tree_figure`) and a
  node's class distribution (:func:`distribution_figure`).

The tree semantics they use live beside the tree (:mod:`curvedtrees.trees`): routing
(``Tree.goes_left``, ``Tree.reaches``, ``Tree.route``), the first k splits
(``Tree.nodes_after_splits``, :func:`~curvedtrees.trees.first_splits`,
:class:`~curvedtrees.trees.PrunedTree`, :func:`~curvedtrees.trees.split_order`), re-exported here.
"""

from ...trees import PrunedTree, first_splits, split_order
from .diagram import distribution_figure, tree_figure
from .layout import DIAGRAM_FONT, DIAGRAM_WIDTH, diagram_nodes, tree_layout
from .nodes import (
    NodeRegion,
    decision_path_nodes,
    explain_path,
    node_details,
    node_region,
    point_value,
    split_geometry,
)
from .replay import MAX_REPLAY_FRAMES, Replay, replay_regions, replay_steps

__all__ = [
    "DIAGRAM_FONT",
    "DIAGRAM_WIDTH",
    "MAX_REPLAY_FRAMES",
    "NodeRegion",
    "PrunedTree",
    "Replay",
    "decision_path_nodes",
    "diagram_nodes",
    "distribution_figure",
    "explain_path",
    "first_splits",
    "node_details",
    "node_region",
    "point_value",
    "replay_regions",
    "replay_steps",
    "split_geometry",
    "split_order",
    "tree_figure",
    "tree_layout",
]
