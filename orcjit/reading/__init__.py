"""The scan: planning and executing a read, and handing its result over as a DataFrame or an Arrow table.

- :mod:`.options`: :class:`~.options.ReadOptions`, every read's arguments, checked once;
- :mod:`.plan`: the columns a read returns and decodes, its filters, and the runs of rows to decode (whole
  stripes, row-group runs that pruning kept, or a range of rows);
- :mod:`.scan`: the runs times groups of columns on a thread pool, decoded into result arrays allocated once,
  with a progress bar; :func:`~.scan.decode_run`, the one way rows are decoded;
- :mod:`.result`: the scanned columns as a DataFrame or ``pyarrow.Table``, filtered.

It may import what lies below it: :mod:`orcjit.filemeta`, :mod:`orcjit.decode`, :mod:`orcjit.pushdown`,
:mod:`orcjit.convert`, :mod:`orcjit.types`, :mod:`orcjit.encryption`, :mod:`orcjit.progress` and
:mod:`orcjit._extras` (the optional packages an argument needs); the API
(:class:`orcjit.ORCFile`, :func:`orcjit.read_orc`) sits on top of it and nothing here imports the API.
"""
