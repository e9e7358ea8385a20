"""Column assembly: one stripe's streams decoded by the kernels into column vectors.

Layers, as in Apache ORC C++: :mod:`.streams` fetches and decompresses the byte ranges of the selected columns
(through :mod:`.cursor`), :mod:`.columns` decodes them with the kernels into :class:`~.vector.ColumnVector`
(Arrow's memory layout in NumPy arrays), :mod:`.positions` and :mod:`.seek` enter streams at a row group with the
row index and skip rows; :mod:`.limits` keeps hostile counts from taking memory.

It may import the kernels, :mod:`orcjit.compression`, :mod:`orcjit.stripes`, :mod:`orcjit.tail`,
:mod:`orcjit.types` and :mod:`orcjit.timezones`; it takes plain data (sources, tails, stripe footers, schema
nodes), never an API object, and imports nothing of pushdown, conversion, the scan or the API.
"""
