"""Reading directories of ORC files as one table: discovery of the files (:mod:`.discovery`), Hive partition
folders (:mod:`.partitioning`), one schema over the files (:mod:`.schema`), the dataset's metadata (:mod:`.files`),
per-file plans and the columns files do not store (:mod:`.scan`, :mod:`.columns`), reads (:mod:`.read`) and
``explain`` (:mod:`.explain`).

This package sits above the scan of one file: it may import :mod:`orcjit.reading`, :mod:`orcjit.pushdown`,
:mod:`orcjit.convert`, :mod:`orcjit.decode`, :mod:`orcjit.types`, :mod:`orcjit.filemeta`, :mod:`orcjit.sources`,
:mod:`orcjit.progress` and :mod:`orcjit.errors`; never the API (:mod:`orcjit.orcfile`, :mod:`orcjit.orcdataset`,
:mod:`orcjit.read`).
"""
