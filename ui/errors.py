"""Friendly error display: a reason in words, never a traceback."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

__all__ = ["Outcome", "friendly", "message_for"]


def message_for(exc: BaseException) -> str:
    """A one-paragraph reason for an exception (the engine's messages already say what and where)."""
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, (ValueError, TypeError, KeyError, IndexError)):
        return text.strip("'\"") if isinstance(exc, KeyError) else text
    if isinstance(exc, MemoryError):
        return "not enough memory for this: try fewer rows, a coarser grid or a smaller model"
    return f"{type(exc).__name__}: {text}"


class Outcome:
    """Whether the guarded block finished (``ok``) and the error if not."""

    def __init__(self):
        self.ok = True
        self.error: BaseException | None = None


@contextmanager
def friendly(action: str, where=None):
    """Run a block; on an exception show ``Could not <action>: <reason>`` and carry on.

    Parameters
    ----------
    action : str
        What the block does, for the message ("train the model").
    where : streamlit container, optional
        Where the message goes (default: the page).

    Yields
    ------
    Outcome
    """
    outcome = Outcome()
    try:
        yield outcome
    except Exception as exc:  # every failure becomes a message, none a traceback
        outcome.ok = False
        outcome.error = exc
        (where or st).error(f"Could not {action}: {message_for(exc)}", icon=":material/warning:")
