"""Datasets: reading directories of ORC files as one table.

- :mod:`.partitioning`: Hive-style ``key=value`` folders, parsed and typed as Spark infers them.

It sits just below the API (:class:`orcjit.ORCFile`, :func:`orcjit.read_orc`): it may import :mod:`orcjit.reading`,
:mod:`orcjit.filemeta`, :mod:`orcjit.pushdown`, :mod:`orcjit.types` and :mod:`orcjit.errors`, never the API.
:mod:`.partitioning` takes plain strings and imports only :mod:`orcjit.errors` and :mod:`orcjit.types`.
"""
