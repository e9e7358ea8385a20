"""Strings and binary: pandas' string dtypes, object arrays of ``str`` or ``bytes`` (binary, and the WKB of
geometry and geography), and categoricals.

With pyarrow, a column becomes an Arrow ``large_string`` (``large_binary``) array over the vectors' own int64
offsets and bytes, which pandas' Arrow-backed ``str`` dtype stores as it is (Arrow's ORC path casts its 32-bit
offsets to 64 bits first), or which Arrow converts to objects where pandas keeps strings as objects. Without it
(and inside lists, maps, structs and unions, where Arrow gives objects) the strings are decoded here: repeated
values decoded once and shared (:func:`orcjit.kernels.convert.distinct_strings`), as Arrow's ``to_pandas``
deduplicates objects. ``dictionary_as_category`` columns become :class:`pandas.Categorical` from the stripes'
dictionaries, without building every string.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd

from ..decode.vector import ColumnVector
from ..errors import OrcError
from ..kernels.convert import distinct_strings
from ..types.kinds import BINARY_KINDS
from ..types.schema import TypeNode
from .chunks import DEDUPE_MIN_VALUES, dedupe_sample, valid_of
from .env import arrow_available, arrow_string_dtype, default_string_dtype

__all__ = ["categorical", "decode_strings", "strings"]


def strings(node: TypeNode, chunks: list[ColumnVector], target: str) -> Any:
    """The column as pandas' string dtype (``str``; ``string`` for ``numpy_nullable``; object before pandas 3),
    binary as ``bytes`` objects, and inside nested values as an object array."""
    binary = node.kind in BINARY_KINDS  # binary, and geometry and geography's WKB
    dictionaries = any(c.dictionary is not None for c in chunks)
    if target != "element" and arrow_available() and not dictionaries:
        return _through_arrow(chunks, binary, target)
    try:
        objects = _objects(chunks, binary)
    except UnicodeDecodeError as exc:  # the reader checks UTF-8 as it decodes: vectors made otherwise may not be
        raise OrcError(f"column {node.path!r}: string is not valid UTF-8 ({exc})") from None
    if binary or target == "element":
        return objects
    dtype = pd.StringDtype() if target == "numpy_nullable" else default_string_dtype()
    return objects if dtype is None else pd.array(objects, dtype=dtype, copy=False)


def _through_arrow(chunks: list[ColumnVector], binary: bool, target: str) -> Any:
    import pyarrow as pa

    from .arrow import large_strings

    type_ = pa.large_binary() if binary else pa.large_string()
    column = pa.chunked_array([large_strings(vec, type_) for vec in chunks], type=type_)
    # the dtype to_pandas gives (it follows pandas' version and options): the Arrow-backed str of pandas 3 (and
    # 2.3 with future.infer_string) or StringDtype() keep Arrow's buffers as they are; object str / bytes are made
    # by Arrow's own conversion
    dtype = arrow_string_dtype(binary, target == "numpy_nullable")
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):
        return dtype.__from_arrow__(column)
    return column.to_numpy(zero_copy_only=False)


def _objects(chunks: list[ColumnVector], binary: bool) -> np.ndarray:
    """Object array of ``str`` (or ``bytes``), None for nulls; dictionaries are looked up (and decoded once for
    the chunks that share one)."""
    entries: dict[int, np.ndarray] = {}
    parts = [_chunk_objects(c, binary, entries) for c in chunks]
    out = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.empty(0, dtype=object)
    valid = valid_of(chunks)
    if valid is not None:
        out[~valid] = None
    return out


def _chunk_objects(vec: ColumnVector, binary: bool, decoded: dict[int, np.ndarray]) -> np.ndarray:
    if vec.dictionary is None:
        return decode_strings(vec.offsets, vec.data, binary)
    entries = decoded.get(id(vec.dictionary[0]))
    if entries is None:
        entries = decoded[id(vec.dictionary[0])] = decode_strings(*vec.dictionary, binary=binary)
    if vec.valid is None:
        return entries[vec.values]
    out = np.full(vec.length, None, dtype=object)
    out[vec.valid] = entries[vec.values[vec.valid]]
    return out


def decode_strings(offsets: np.ndarray | None, data: np.ndarray | None, binary: bool) -> np.ndarray:
    """Object array of the values between consecutive ``offsets`` into ``data``: ``bytes``, or ``str`` decoded as
    UTF-8.

    Repeated values are decoded once and share one object (as pyarrow's ``to_pandas`` deduplicates objects): a
    Numba hash table numbers the distinct values first, unless the first values are mostly distinct. Decoding is
    one ``bytes`` copy of the range, then one slice (and decode) per distinct value. Per million strings: about
    0.2 s all distinct (the Python objects themselves being most of it), 0.03 s with few distinct values.
    """
    if offsets is None or data is None or len(offsets) <= 1:
        return np.empty(0 if offsets is None else max(len(offsets) - 1, 0), dtype=object)
    n = len(offsets) - 1
    start = int(offsets[0])
    buf = data[start : int(offsets[-1])].tobytes()
    bounds = offsets - start
    ids = None
    if n >= DEDUPE_MIN_VALUES:
        ids = np.empty(n, dtype=np.int64)
        firsts = np.empty(n, dtype=np.int64)
        view = data[start:]
        view.flags.writeable = False  # one kernel variant whether the bytes were gathered or viewed in a stream
        count = distinct_strings(bounds, view, ids, firsts, dedupe_sample(n))
        if count >= 0:
            pairs = zip(bounds[firsts[:count]].tolist(), bounds[firsts[:count] + 1].tolist(), strict=True)
        else:
            ids = None
    if ids is None:
        pairs = itertools.pairwise(bounds.tolist())
    values = [buf[a:b] for a, b in pairs] if binary else [buf[a:b].decode() for a, b in pairs]
    out = np.fromiter(values, dtype=object, count=len(values))
    return out if ids is None else out[ids]


def categorical(node: TypeNode, chunks: list[ColumnVector]) -> pd.Categorical:
    """Codes and one category per distinct dictionary entry, the stripes' dictionaries unified in order of
    appearance (as Arrow's ``DictionaryUnifier``); a stripe encoded directly has its values' distinct strings in
    order of appearance as its dictionary (as Arrow's ``dictionary_encode``). Only the dictionaries' strings (and
    the directly encoded stripes' values) become Python objects, once for a dictionary that several chunks share
    (the pieces of one stripe)."""
    positions: dict[str, int] = {}
    codes = []
    transposes: dict[int, np.ndarray] = {}  # by the id of a dictionary's offsets (the chunks hold them alive)
    for vec in chunks:
        if vec.dictionary is not None:
            indices = vec.values
            key = id(vec.dictionary[0])
            if key not in transposes:
                transposes[key] = _number(decode_strings(*vec.dictionary, binary=False), positions)
            transpose = transposes[key]
        else:
            indices, uniques = pd.factorize(_objects([vec], binary=False), use_na_sentinel=True)
            transpose = _number(list(uniques), positions)
        chunk_codes = np.full(vec.length, -1, dtype=np.int64)
        valid = np.ones(vec.length, dtype=np.bool_) if vec.valid is None else vec.valid
        if vec.dictionary is None:
            valid = valid & (indices >= 0)
        chunk_codes[valid] = transpose[indices[valid]]
        codes.append(chunk_codes)
    all_codes = np.concatenate(codes) if codes else np.empty(0, dtype=np.int64)
    size = len(positions)
    code_dtype = np.int8 if size < 2**7 else np.int16 if size < 2**15 else np.int32
    categories = pd.Index(list(positions), dtype=default_string_dtype() or object)
    return pd.Categorical.from_codes(all_codes.astype(code_dtype), categories=categories)


def _number(entries: Any, positions: dict[str, int]) -> np.ndarray:
    """Each entry's category number in ``positions``, numbering those met for the first time after the others."""
    return np.fromiter(
        (positions.setdefault(entry, len(positions)) for entry in entries), dtype=np.int64, count=len(entries)
    )
