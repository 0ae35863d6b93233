"""Progress callbacks and cancellation for long trainings (embeddings, VAE, kappa-GCN)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

__all__ = ["Cancelled", "ProgressCallback", "report", "torch_single_thread"]

ProgressCallback = Callable[[int, float], "bool | None"]


class Cancelled(RuntimeError):
    """Raised when a progress callback asks a training to stop.

    A callback cancels by returning ``False`` (``None`` and ``True`` continue)
    or by raising this exception itself. The training then stops at the end of
    the current epoch and the function that was training raises ``Cancelled``;
    no partial result is returned, so a cache never stores an unfinished model.
    """


def report(callback: ProgressCallback | None, epoch: int, value: float) -> None:
    """Call ``callback(epoch, value)`` and turn a ``False`` answer into :class:`Cancelled`."""
    if callback is None:
        return
    if callback(int(epoch), float(value)) is False:
        raise Cancelled(f"cancelled by the progress callback at epoch {epoch}")


@contextlib.contextmanager
def torch_single_thread(torch):
    """Run torch on one intra-op thread for the duration of a training loop.

    The tensors here are small (thousands of entries): torch's thread pool costs
    more than it saves, and on a loaded 2-core machine an element-wise op measured
    20x slower with 2 threads than with 1. The previous setting is restored.
    """
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
