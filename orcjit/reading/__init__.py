"""Reading rows: stripe streams -> column vectors -> Arrow arrays or pandas columns.

Layers, as in Apache ORC C++: :mod:`.streams` fetches and decompresses the byte ranges of the selected columns,
:mod:`.columns` decodes them with the kernels into :class:`~.vector.ColumnVector` (Arrow's memory layout in numpy
arrays), :mod:`.arrow` and :mod:`.frame` turn those into what the user asked for.
"""
