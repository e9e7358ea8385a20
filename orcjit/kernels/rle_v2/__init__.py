"""Integer RLE version 2: one module per sub-encoding (short repeat, direct, patched base, delta) and the
decoder that dispatches runs to them. Its modules import only each other, :mod:`orcjit.kernels.bitpack`,
:mod:`orcjit.kernels.status` and :mod:`orcjit._jit`."""

from .decoder import decode_rle_v2, skip_rle_v2

__all__ = ["decode_rle_v2", "skip_rle_v2"]
