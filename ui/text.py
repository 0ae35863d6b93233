"""Small helpers for the app's sentences (pure: no Streamlit)."""

from __future__ import annotations

__all__ = ["first_splits", "plural"]


def plural(n: int, word: str, plural_form: str | None = None) -> str:
    """``"1 row"``, ``"2 rows"``, ``"1,200 rows"``; ``plural_form`` for irregular words."""
    return f"{n:,} {word if n == 1 else (plural_form or word + 's')}"


def first_splits(k: int) -> str:
    """``"the points alone"``, ``"the first split"``, ``"the first 3 splits"``: a picture after ``k`` splits."""
    if k <= 0:
        return "the points alone"
    return "the first split" if k == 1 else f"the first {k:,} splits"
