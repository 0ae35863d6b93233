"""What the geometry shares with the layers above it (coordinates, samplers).

Row-wise products and norms, the listing of offending rows in messages, and the
integer-parameter check. Other units import them from here, never from the
underscore modules of ``curvedtrees.manifolds``, which stay free to change shape.
The ``random_state`` helper is :func:`curvedtrees.utils.as_generator`.
"""

from ._common import check_int, format_rows, row_dot, row_norm

__all__ = ["check_int", "format_rows", "row_dot", "row_norm"]
