"""What the geometry shares with the layers above it (coordinates, samplers).

Row-wise products and norms, the listing of offending rows in messages, and the
integer-parameter check, and the hint the estimators add to an off-manifold error
(``COLUMN_PERMUTATION_HINT``). Other units import them from here, never from the
underscore modules of ``curvedtrees.manifolds``, which stay free to change shape.
The ``random_state`` helper is :func:`curvedtrees.utils.as_generator`.
"""

from ._common import check_int, format_rows, row_dot, row_norm
from .product import COLUMN_PERMUTATION_HINT

__all__ = ["COLUMN_PERMUTATION_HINT", "check_int", "format_rows", "row_dot", "row_norm"]
