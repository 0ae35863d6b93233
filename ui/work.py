"""Heavy work of the pages: budgeted first, run in the worker pool, waited for with the queue in view.

Every fit, embedding, dataset build and graph parse a page starts goes through here:

1. its cost is estimated from its parameters (:mod:`curvedtrees.costs`) and held to the
   work budgets of :mod:`curvedtrees.limits` *before anything is allocated*; a request over
   budget is refused with the parameter to lower (:class:`curvedtrees.costs.BudgetExceeded`,
   a ValueError the pages show in words);
2. it is handed to the server's worker pool (:mod:`ui.jobs`): a process with CPU-time and
   address-space limits, a fixed number at a time, the others queued;
3. the page waits for it in its own script thread, showing its place in the queue or how
   long it has run, and checking twice a second whether the visitor is still there. When
   the visitor closes the tab or navigates away, Streamlit stops (or reruns) the script at
   that check, the ticket is released, and a job nobody else waits for is killed at once.

Work that depends only on a public recipe (a synthetic or built-in dataset, a model
trained from a recipe on one) gets a content address as its key: sessions asking for the
same thing at once share one job, and :mod:`ui.cache` keeps the result for every session.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import numpy as np
import streamlit as st
from curvedtrees.costs import Budget

from ui import jobs

__all__ = ["check_model_record", "data_key", "is_public", "model_key", "run", "still_wanted", "wait"]

# How often a waiting page looks at its job and at its visitor (seconds).
POLL_SECONDS = 0.25


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:24]


def is_public(data) -> bool:
    """Whether a dataset depends only on its recipe (synthetic or built-in), so that it may be shared."""
    return data is not None and data.recipe.get("source") in ("synthetic", "builtin")


def data_key(recipe: dict) -> str:
    """Content address of a dataset recipe."""
    return "data:" + _digest(recipe)


def model_key(data, recipe: dict) -> str | None:
    """Content address of a model recipe on a public dataset (None for a dataset that is not public)."""
    if not is_public(data):
        return None
    return "model:" + _digest({"data": data_key(data.recipe), "hash": data.hash, "model": recipe})


def still_wanted() -> None:
    """Raise Streamlit's stop or rerun request, if any, here (the visitor left, or clicked something)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is not None:
        # Reading session state is one of Streamlit's interruption points: a pending stop (the
        # session disconnected) or rerun (the visitor clicked or navigated) is raised here.
        _ = "ct:alive" in st.session_state


def _status(ticket: jobs.Ticket, what: str) -> str:
    if ticket.state == "queued":
        if ticket.waiting_for_memory():
            return (
                f":material/hourglass_top: {what.capitalize()}: waiting for the server's memory to free up "
                "(other visitors' work is using it)..."
            )
        ahead = ticket.position() - 1
        workers = jobs.pool().workers
        place = "next in line" if ahead <= 0 else f"{ahead} {'job' if ahead == 1 else 'jobs'} ahead of yours"
        return (
            f":material/hourglass_top: {what.capitalize()}: waiting for a free worker, {place} "
            f"({workers} run at a time)..."
        )
    return f":material/progress_activity: {what.capitalize()} ({ticket.elapsed():.0f} s)..."


def wait(ticket: jobs.Ticket, what: str, on_progress: Callable | None = None, show: bool = True):
    """Wait for a job, showing its place in the queue, and release it however the wait ends.

    Parameters
    ----------
    ticket : ui.jobs.Ticket
    what : str
        What the job does ("training the model"), for the status line.
    on_progress : callable, optional
        Called with each progress event's values (in this script thread, so it may draw).
    show : bool, default True
        Whether to draw the status line.

    Returns
    -------
    The job's result.

    Raises
    ------
    ui.jobs.JobError
        The job failed, or was refused because the server is busy.
    """
    line = st.empty() if show else None
    shown = None
    try:
        while not ticket.wait(POLL_SECONDS):
            still_wanted()
            if on_progress is not None:
                for event in ticket.events():
                    on_progress(*event)
            text = _status(ticket, what)
            if line is not None and text != shown:
                line.caption(text)
                shown = text
        if on_progress is not None:
            for event in ticket.events():
                on_progress(*event)
        return ticket.result()
    finally:
        ticket.release()
        if line is not None:
            line.empty()


def run(
    task: str,
    *args,
    cost=None,
    what: str = "working",
    key: str | None = None,
    progress_arg: str | None = None,
    on_progress: Callable | None = None,
    show: bool = True,
    **kwargs,
):
    """Check ``cost`` against the budgets, run ``ui.jobs.TASKS[task]`` in the pool and wait for it.

    Parameters
    ----------
    task : str
        A task of :data:`ui.jobs.TASKS`.
    cost : curvedtrees.costs.Cost, optional
        The work's estimate; checked first (:meth:`~curvedtrees.costs.Cost.check`) and passed
        on to the pool as the job's CPU and memory budgets.
    what : str
        The work in words, for the status line and messages.
    key : str, optional
        Content address of public work (sessions asking at once share the job).
    progress_arg, on_progress
        The task's progress keyword and what to do with each event (see :func:`wait`).

    Raises
    ------
    curvedtrees.costs.BudgetExceeded
        Over budget (nothing was started).
    ui.jobs.JobError
    """
    budget = Budget()
    cpu, memory, result = budget.cpu_seconds, budget.memory_bytes, 0
    if cost is not None:
        cost.check(budget)
        # A small job still gets room for what the estimate leaves out (imports, a busy machine's
        # cache misses): the budget it is killed at is never below half a CPU-minute.
        cpu = min(budget.cpu_seconds, max(cost.cpu_seconds, 30.0))
        memory = budget.memory_bytes
        result = cost.result_bytes
    ticket = jobs.pool().submit(
        task,
        *args,
        key=key,
        label=what,
        cpu_seconds=cpu,
        memory_bytes=memory,
        result_bytes=result,
        progress_arg=progress_arg,
        **kwargs,
    )
    return wait(ticket, what, on_progress, show=show)


def check_model_record(record, data) -> None:
    """A model record from a worker refers to ``data``'s rows (the worker is not believed blindly).

    Raises
    ------
    ui.jobs.JobError
    """
    n = len(data.X)
    if record.data_hash != data.hash:
        raise jobs.JobError("the worker trained on other data than the page sent")
    for rows in (record.train_idx, record.test_idx):
        rows = np.asarray(rows)
        if rows.size and (rows.min() < 0 or rows.max() >= n):
            raise jobs.JobError("the worker's train/test rows are out of range")
    if not isinstance(record.metrics, dict):
        raise jobs.JobError("the worker's scores are not readable")
