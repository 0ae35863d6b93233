"""Pictures of decision regions on the disk, the sphere, the circle, the torus and the plane.

Pure functions (no Streamlit): the app calls them and displays what they return.

* :class:`RegionDisplay`, :class:`TreeDisplay` (:mod:`curvedtrees.viz.display`): one call
  from a fitted estimator to its regions on one component, or to a tree's diagram, framed
  for a notebook cell;
* :mod:`curvedtrees.viz.views`: which part of a product each picture shows, its grid,
  reference points, and where data points land in the picture;
* :mod:`curvedtrees.viz.regions`: a model's predictions over a picture (one call);
* :mod:`curvedtrees.viz.smooth`: smooth region edges on the sphere, the torus and flat pictures (where the
  prediction changes between neighbouring cells, found by bisection, and the mesh cut there);
* :mod:`curvedtrees.viz.boundaries`: split boundaries of one tree as exact geodesics;
* :mod:`curvedtrees.viz.figures`: Plotly figures of all of that: option records
  (:class:`Overlay`, :class:`Colors`, :class:`Framing`, :class:`Animation`) and one
  renderer per view kind behind :func:`region_figure`;
* :mod:`curvedtrees.viz.world`: graticules, coastlines and projections of world pictures
  (S2 components that are the Earth);
* :mod:`curvedtrees.viz.treeview`: the first-k-splits replay (regions after every number
  of splits from one pass over the grid, played as animation frames), a node's region and
  texts, and the tree diagram.

Tree semantics (routing, the first k splits) are the tree's own, in :mod:`curvedtrees.trees`;
``first_splits``, ``PrunedTree`` and ``split_order`` stay importable from here for convenience
(documented under :mod:`curvedtrees.trees`).
"""

from ..utils import require

# Fail on import with the extra to install, not with a bare ModuleNotFoundError deep inside.
require("plotly", "curvedtrees.viz (Plotly figures)")

from .boundaries import BoundaryCurve, boundary_curves, split_plane
from .display import RegionDisplay, TreeDisplay, label_indices
from .figures import Animation, Colors, Framing, Overlay, PointLayer, confusion_figure, region_figure, subsample
from .palette import class_colors, world_class_colors
from .regions import RegionGrid, compute_regions, predict_frames, predict_regions
from .smooth import EdgeCuts, smooth_replay
from .treeview import PrunedTree as PrunedTree
from .treeview import (
    Replay,
    decision_path_nodes,
    explain_path,
    node_details,
    point_value,
    replay_regions,
    tree_figure,
    tree_layout,
)
from .treeview import first_splits as first_splits
from .treeview import split_order as split_order
from .views import (
    View,
    ViewGrid,
    available_views,
    data_bounds,
    describe_view,
    facing_direction,
    holds_reference,
    ortho_project,
    ortho_unproject,
    product_rows,
    project_points,
    reference_point,
    unit_to_latlon,
    view_grid,
)
from .world import graticule, latlon_xyz

__all__ = [
    "Animation",
    "BoundaryCurve",
    "Colors",
    "EdgeCuts",
    "Framing",
    "Overlay",
    "PointLayer",
    "RegionDisplay",
    "RegionGrid",
    "Replay",
    "TreeDisplay",
    "View",
    "ViewGrid",
    "available_views",
    "boundary_curves",
    "class_colors",
    "compute_regions",
    "confusion_figure",
    "data_bounds",
    "decision_path_nodes",
    "describe_view",
    "explain_path",
    "facing_direction",
    "graticule",
    "holds_reference",
    "label_indices",
    "latlon_xyz",
    "node_details",
    "ortho_project",
    "ortho_unproject",
    "point_value",
    "predict_frames",
    "predict_regions",
    "product_rows",
    "project_points",
    "reference_point",
    "region_figure",
    "replay_regions",
    "smooth_replay",
    "split_plane",
    "subsample",
    "tree_figure",
    "tree_layout",
    "unit_to_latlon",
    "view_grid",
    "world_class_colors",
]
