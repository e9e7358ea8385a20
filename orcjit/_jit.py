"""The single place where orcjit sets its Numba options.

Every kernel is compiled with ``cache=True`` (so a new process loads machine code from disk instead of compiling)
and ``nogil=True`` (so kernels can run in parallel threads). Kernels import :func:`jit` from here and never call
``numba.njit`` themselves.

Small helpers called once per run or per value take ``@jit(inline=True)``: a call from one compiled function to
another is not inlined by LLVM, and each array argument costs two atomic reference-count updates, which measured
~200 ns per RLE v2 run (a third of the decode time of a 512-value run) before the per-run helpers were inlined.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

import numba

F = TypeVar("F", bound=Callable[..., Any])

JIT_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True}


@overload
def jit(fn: F) -> F: ...
@overload
def jit(*, inline: bool = False) -> Callable[[F], F]: ...
def jit(fn: F | None = None, *, inline: bool = False) -> F | Callable[[F], F]:
    """Compile ``fn`` as an orcjit kernel with the project's options (``@jit`` or ``@jit(inline=True)``)."""
    options = dict(JIT_OPTIONS, inline="always") if inline else JIT_OPTIONS

    def decorate(f: F) -> F:
        return numba.njit(**options)(f)  # type: ignore[no-any-return]

    return decorate(fn) if fn is not None else decorate
