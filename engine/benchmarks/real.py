"""Benchmark specs for the offline datasets of :mod:`engine.datasets` (filled in as they land)."""

from __future__ import annotations

__all__ = ["real_datasets"]


def real_datasets(n_samples=None):
    """Dataset specs for the shipped datasets.

    Raises
    ------
    ImportError
        While :mod:`engine.datasets` is not available.
    """
    try:
        import engine.datasets  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"the 'datasets' preset needs engine.datasets, which cannot be imported: {exc}") from exc
    raise ImportError("the 'datasets' preset is not wired to engine.datasets yet")
