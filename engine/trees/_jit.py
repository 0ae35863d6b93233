"""Compile options of the tree kernels that only other kernels call.

``inner_kernel`` is ``njit(cache=True, nogil=True, no_cpython_wrapper=True)``: numba then
builds no Python entry point for the kernel (the code that unboxes every argument), a part
of a cold first fit's compile (BENCHMARKS.md, "The first fit"). Such a kernel must never
be called from Python: with no entry point numba jumps to a null address and the process
dies. Kernels that Python calls, or that tests call directly, keep plain ``njit``.
"""

from __future__ import annotations

from typing import Any

from numba import njit

# numba's typing stubs do not list no_cpython_wrapper (an option of numba's own), so
# the options pass as a mapping.
_INNER_KERNEL_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "no_cpython_wrapper": True}
inner_kernel = njit(**_INNER_KERNEL_OPTIONS)

__all__ = ["inner_kernel"]
