"""Predicate pushdown: filters in pandas/pyarrow's DNF form, evaluated with three-valued logic against file,
stripe and row-group statistics and bloom filters, then exactly against the decoded rows.

- :mod:`.filters`: filters checked against the schema (columns through :mod:`orcjit.types.resolve`), values of
  the column's type; :mod:`.semantics`: what each op selects, defined once;
- :mod:`.prune` and :mod:`.group_statistics`: yes / no / maybe from file, stripe and row-group statistics;
  :mod:`.rowgroups`: row groups by the row index and bloom filters; :mod:`.plan`: every stage in order, and
  ``explain``; :mod:`.rows`: the exact row masks.

It takes a :class:`~orcjit.filemeta.FileMeta` and plain data, never an API object. It may import
:mod:`orcjit.filemeta`, :mod:`orcjit.compression` (chunk framing), :mod:`orcjit.decode` (row positions, stream
plans, vectors), :mod:`orcjit.convert` (decimal objects), :mod:`orcjit.types`, :mod:`orcjit.statistics` and the
kernels; nothing of the scan or the API.
"""
