"""Pictures of decision regions on the disk, the sphere, the circle, the torus and the plane.

Pure functions (no Streamlit): the app calls them and displays what they return.

* :mod:`engine.viz.views`: which part of a product each picture shows, its grid,
  reference points, and where data points land in the picture;
* :mod:`engine.viz.regions`: a model's predictions over a picture (one call);
* :mod:`engine.viz.boundaries`: split boundaries of one tree as exact geodesics;
* :mod:`engine.viz.figures`: Plotly figures of all of that;
* :mod:`engine.viz.treeview`: the tree diagram, the first-k-splits replay and
  node details.
"""

from engine.viz.boundaries import BoundaryCurve, boundary_curves, goes_left, reaches_node, split_plane
from engine.viz.figures import PointLayer, confusion_figure, region_figure, subsample
from engine.viz.palette import class_colors
from engine.viz.regions import RegionGrid, compute_regions, predict_regions
from engine.viz.treeview import (
    PrunedTree,
    decision_path_nodes,
    explain_path,
    first_splits,
    node_details,
    split_order,
    tree_figure,
    tree_layout,
)
from engine.viz.views import (
    View,
    ViewGrid,
    available_views,
    data_bounds,
    describe_view,
    product_rows,
    project_points,
    reference_point,
    view_grid,
)

__all__ = [
    "BoundaryCurve",
    "PointLayer",
    "PrunedTree",
    "RegionGrid",
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
    "first_splits",
    "goes_left",
    "node_details",
    "predict_regions",
    "product_rows",
    "project_points",
    "reaches_node",
    "reference_point",
    "region_figure",
    "split_order",
    "split_plane",
    "subsample",
    "tree_figure",
    "tree_layout",
    "view_grid",
]
