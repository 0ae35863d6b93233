"""Shared pieces of the manifold classes: tolerances, array checks, random generators.

Every tolerance used by the geometry layer is a named constant here, with the
reason for its value next to it.
"""

from __future__ import annotations

import numbers

import numpy as np

# The one random_state helper lives in the bottom layer (utils); re-exported for _base.
from ..utils import as_generator

__all__ = [
    "CHECK_RTOL",
    "PDIST_CHUNK_BYTES",
    "as_generator",
    "as_points",
    "check_int",
    "format_number",
    "format_rows",
    "row_blocks",
    "row_dot",
    "row_norm",
    "safe_divide",
    "sinc",
    "sinhc",
]

# Default relative tolerance of ``check_point`` / ``validate``. A point passes when
# it is within CHECK_RTOL of the manifold *relative to its own size* (for S: the
# norm is R (1 +- CHECK_RTOL); for H: the time coordinate x0 equals
# sqrt(R^2 + |x_1..|^2) (1 +- CHECK_RTOL), which bounds the intrinsic error by about
# CHECK_RTOL * R however far the point is from the origin). Loose enough for data
# stored as float32 (about 6e-8 relative per coordinate) or printed with 7
# significant digits; tight enough to catch a wrong curvature or a wrong model.
CHECK_RTOL = 1e-6

# Upper bound on the temporary memory of one block of rows of a pairwise
# distance computation (the (n, m) result itself is the caller's): large enough
# for vectorised blocks, small enough that ``pdist`` of 20,000 x 20,000 points
# needs the 3.2 GB result plus at most 64 MB.
PDIST_CHUNK_BYTES = 32 * 2**20


def row_blocks(n_rows: int, n_columns: int, buffers: int = 1):
    """Slices of ``range(n_rows)`` whose ``buffers`` float64 temporaries of width ``n_columns`` fit the budget."""
    rows = max(1, int(PDIST_CHUNK_BYTES // (8 * buffers * max(1, n_columns))))
    return [slice(start, min(start + rows, n_rows)) for start in range(0, n_rows, rows)]


def as_points(x, width: int, what: str = "x") -> np.ndarray:
    """``x`` as a float64 array whose last axis has ``width`` entries.

    Light check used by every geometric method (no manifold-membership test:
    that is ``check_point`` / ``ProductManifold.validate``).
    """
    try:
        array = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{what} must be a numeric array: {error}") from None
    if array.ndim == 0 or array.shape[-1] != width:
        raise ValueError(
            f"{what} must have {width} ambient coordinates on its last axis, got an array of shape {array.shape}"
        )
    return array


def check_int(value, name: str, minimum: int = 1) -> int:
    """``value`` as an int if it is an integer (not a bool) of at least ``minimum``, else ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def row_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot product over the last axis, broadcasting the leading axes."""
    return np.einsum("...i,...i->...", a, b) if a.shape == b.shape else (a * b).sum(axis=-1)


def row_norm(a: np.ndarray) -> np.ndarray:
    """Euclidean norm over the last axis."""
    return np.sqrt(row_dot(a, a))


def safe_divide(numerator, denominator, fill=0.0):
    """``numerator / denominator`` where the denominator is non-zero, ``fill`` elsewhere.

    Used for unit vectors of possibly-zero vectors (a point at the origin has no
    direction): the zero case is a genuine special case, not a rounding problem.
    """
    denominator = np.asarray(denominator, dtype=np.float64)
    nonzero = denominator != 0
    return np.where(nonzero, numerator / np.where(nonzero, denominator, 1.0), fill)


def sinhc(t):
    """``sinh(t) / t`` with its limit 1 at ``t = 0`` (no cancellation elsewhere)."""
    t = np.asarray(t, dtype=np.float64)
    return safe_divide(np.sinh(t), t, fill=1.0)


def sinc(t):
    """``sin(t) / t`` with its limit 1 at ``t = 0`` (unnormalised, unlike ``np.sinc``)."""
    t = np.asarray(t, dtype=np.float64)
    return safe_divide(np.sin(t), t, fill=1.0)


def format_number(value: float) -> str:
    """Six significant digits without exponent padding: ``1.31``, ``1e-6``, ``5.3e+12`` -> ``5.3e12``."""
    text = f"{float(value):.6g}"
    mantissa, sep, exponent = text.partition("e")
    if not sep:
        return text
    sign = "-" if exponent.startswith("-") else ""
    return f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"


def format_rows(rows, limit: int = 5) -> str:
    """``"3, 17, 20 and 4 more"``: the first few of a list of row indices."""
    rows = [int(r) for r in rows]
    shown = ", ".join(str(r) for r in rows[:limit])
    if len(rows) > limit:
        shown += f" and {len(rows) - limit} more"
    return shown
