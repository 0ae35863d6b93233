"""What the tree layers share with the other estimator families of the package.

The boosted product trees (``curvedtrees.boosting``) and the Klein correction
(``curvedtrees.klein``) reuse the product trees' split geometry, boundary rules,
routing and node arrays. They import them from here, never from the trees'
underscore modules, so those modules stay free to change shape; what is listed
here is the contract, and changing it means changing its users in the same commit.
It is public to the package, not part of the user-facing API (``curvedtrees.trees``
exports the estimators).
"""

from ._builder import _next_node as next_node
from ._builder import pack_nodes
from ._classes import validate_points
from ._features import CIRCULAR, LIFT, TIMELIKE, SplitFeatures
from ._margin import circular_direction, geodesic_margin, hyperbolic_threshold, lift_threshold
from ._tree import Tree

__all__ = [
    # Plane kinds (SplitFeatures.kind): E thresholds, H Klein ratios x_j / x_0, lines through the origin.
    "CIRCULAR",
    "LIFT",
    "TIMELIKE",
    "SplitFeatures",
    # The fitted node arrays, and the compiled routing of one row through packed node records.
    "Tree",
    # Maximum-margin boundaries of a chosen partition, and a plane margin as a geodesic distance.
    "circular_direction",
    "geodesic_margin",
    "hyperbolic_threshold",
    "lift_threshold",
    "next_node",
    "pack_nodes",
    # Input checks of an estimator fitted on points of its signature.
    "validate_points",
]
