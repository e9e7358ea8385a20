"""Numba kernels: the encodings of ORC streams, decoded over raw byte buffers.

Conventions every kernel follows:

- Compiled with :func:`orcjit._jit.jit` (``cache=True, nogil=True``), never ``numba.njit`` directly.
- Pure functions over ``(buf, pos, end, out, start, count, ...)``: ``buf`` is a read-only ``uint8`` array made
  with ``np.frombuffer`` (always read-only, so one compiled variant serves), ``pos``/``end`` bound the bytes the
  kernel may read, values go to ``out[start:start + count]``, and the new byte position is returned.
- Failure is a negative code from :mod:`orcjit.kernels.status`, with the failing offset in ``state[ERROR_POS]``;
  the Python layer raises :class:`orcjit.OrcError` through :func:`orcjit.kernels.status.check`. Every read is
  checked against ``end`` and every loop consumes input, so corrupt bytes can neither crash nor hang a kernel.
- Run-based decoders carry a ``state`` array and a ``scratch`` array so that a call may stop mid-run and the next
  call continue; ``skip_*`` entry points pass over values without writing them anywhere the caller sees.
- One module per encoding; RLE v2 has one module per sub-encoding under :mod:`orcjit.kernels.rle_v2`.

Kernels import only each other, :mod:`orcjit._jit`, :mod:`orcjit.errors` and NumPy; the Python helpers beside them
(bloom filter value hashing, index parsing) also the kind families of :mod:`orcjit.types.kinds`, the stream kinds
of :mod:`orcjit.stripes` and the protobuf messages.
"""
