"""Column readers: one stripe's streams of a column, decoded by the kernels into a :class:`ColumnVector`.

Values are decoded densely (non-null values only) and then spread over the rows with PRESENT. Children of a
struct, list, map or union hold values only for the parent's non-null slots (ORC writes nothing for a null
parent), so after decoding they are spread back over the parent's slots where Arrow's layout needs it.
"""

from __future__ import annotations

import decimal
import functools
import threading
from collections.abc import Callable

import numpy as np

from ..errors import OrcError
from ..kernels.decimal import rescale_decimal128
from ..kernels.present import lengths_to_offsets
from ..kernels.status import BAD_VALUE, OVERFLOW
from ..kernels.strings import entry_words, gather_strings, gathered_size, pack_entries
from ..kernels.timestamp import combine_timestamp
from ..kernels.utf8 import check_utf8
from ..stripes import (
    DATA,
    DICTIONARY,
    DICTIONARY_DATA,
    DICTIONARY_V2,
    DIRECT,
    DIRECT_V2,
    ENCODING_NAMES,
    LENGTH,
    PRESENT,
    SECONDARY,
    rle_v2,
)
from ..timezones import UTC_NAMES, TimeZoneError, ZoneRules, convention_of_writer, orc_epoch_seconds, zone_rules
from ..types.kinds import BINARY_KINDS, HIVE11_DECIMALS, KINDS, MAX_DECIMAL_PRECISION, Hive11Decimals
from ..types.schema import TypeNode
from .cursor import BLOCK_VALUES
from .limits import INTEGERS_PER_BYTE, allocate
from .streams import StripeStreams, stored_as_integers
from .vector import ColumnVector

UTC_2015 = 1420070400

Dictionary = tuple[np.ndarray, np.ndarray]  # a string dictionary's entry offsets and bytes


class SharedDictionaries:
    """The string dictionaries of one stripe, each decoded once for all the runs of rows a read cut the stripe
    into (:func:`orcjit.reading.plan.split_runs`): every run needs a column's whole dictionary, and all get the
    same arrays (which nothing writes to), so categories built from them are the same for every run.

    Safe to use from several threads: the first run to need a column's dictionary decodes it while the others
    that need it wait (a running task, never a queued one, so a shared pool cannot deadlock on it); a decode
    that fails leaves nothing behind, and the next run tries again (and fails the same way).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._locks: dict[int, threading.Lock] = {}
        self._decoded: dict[int, Dictionary] = {}

    def get(self, column: int, decode: Callable[[], Dictionary]) -> Dictionary:
        """Column ``column``'s dictionary, from ``decode()`` the first time."""
        with self._lock:
            lock = self._locks.setdefault(column, threading.Lock())
        with lock:
            got = self._decoded.get(column)
            if got is None:
                got = self._decoded[column] = decode()
            return got

    def __contains__(self, column: int) -> bool:
        return column in self._decoded


class ReadContext:
    """What column readers share while reading one stripe.

    ``streams.open(column, kind)`` hands out each stream as a :class:`~orcjit.decode.cursor.ValueStream`: from
    its start (:class:`StripeStreams`), or entered at a row group with the row index
    (:class:`~orcjit.decode.seek.SeekStreams`), so the same readers decode a whole stripe or a run of rows.

    ``outputs`` maps column ids of top-level fixed-width columns to the slice of the whole read's result array
    where this stripe's (or run's) values belong; their readers decode into it instead of allocating, so the
    result needs no concatenation afterwards. ``hive11`` says how decimals of Hive 0.11 files are given.
    ``dictionaries``: the stripe's dictionaries shared with the other runs of rows it was cut into, if it was.
    """

    def __init__(
        self,
        streams: StripeStreams,
        selected: set[int],
        dictionary_as_category: bool = False,
        outputs: dict[int, np.ndarray] | None = None,
        hive11: Hive11Decimals = HIVE11_DECIMALS["orc_cpp"],
        dictionaries: SharedDictionaries | None = None,
    ) -> None:
        self.streams = streams
        self.selected = selected
        self.dictionary_as_category = dictionary_as_category
        self.outputs = outputs or {}
        self.hive11 = hive11
        self.dictionaries = dictionaries

    def output(self, node: TypeNode, count: int) -> np.ndarray | None:
        """Where ``count`` slots of ``node`` go in the result, if the read allocated them already."""
        out = self.outputs.get(node.column_id)
        return out if out is not None and len(out) == count else None


# -- integer streams -------------------------------------------------------------------------------------------------


def _encoding(ctx: ReadContext, node: TypeNode, allowed: tuple[int, ...]) -> int:
    enc = ctx.streams.encoding(node.column_id).kind
    if enc not in allowed:
        name = ENCODING_NAMES.get(enc, f"unknown encoding {enc}")
        raise OrcError(f"{ctx.streams.where(node.column_id)}: {node.kind} column cannot use {name}")
    return enc


def _present(ctx: ReadContext, node: TypeNode, count: int) -> np.ndarray | None:
    stream = ctx.streams.open_optional(node.column_id, PRESENT)
    if stream is None:
        return None
    valid = stream.booleans(count)
    return None if valid.all() else valid


def _spread(dense: np.ndarray, valid: np.ndarray | None, length: int, out: np.ndarray | None = None) -> np.ndarray:
    """``dense`` placed at the ``valid`` slots of ``length`` (zeros elsewhere), in ``out`` when given."""
    if out is None:
        if valid is None:
            return dense
        out = np.zeros((length, *dense.shape[1:]), dtype=dense.dtype)
        out[valid] = dense
        return out
    if valid is None:
        if dense is not out:
            np.copyto(out, dense, casting="unsafe")  # integer ranges are checked before
        return out
    out[~valid] = 0
    out[valid] = dense
    return out


def _offsets(lengths: np.ndarray, valid: np.ndarray | None, length: int, where: Callable[[], str]) -> np.ndarray:
    """Offsets from ``lengths`` spread over the ``valid`` slots; ``where()`` words the error, if there is one."""
    offsets = np.empty(length + 1, dtype=np.int64)
    result = lengths_to_offsets(lengths, valid, offsets)
    if result == OVERFLOW:
        raise OrcError(f"{where()}: lengths add up past 2**63")
    if result < 0:
        # lengths are unsigned in the file: a value of 2**63 or more reads as negative here
        raise OrcError(f"{where()}: negative or impossibly large length")
    return offsets


# -- primitives ------------------------------------------------------------------------------------------------------


def _read_boolean(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    _encoding(ctx, node, (DIRECT, DIRECT_V2))
    col = node.column_id
    out = ctx.output(node, count)
    dense = ctx.streams.open(col, DATA).booleans(nn, out=out if valid is None else None)
    return ColumnVector(node, count, valid, values=_spread(dense, valid, count, out))


def _read_tinyint(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    _encoding(ctx, node, (DIRECT, DIRECT_V2))
    col = node.column_id
    dense = ctx.streams.open(col, DATA).octets(nn).view(np.int8)
    return ColumnVector(node, count, valid, values=_spread(dense, valid, count, ctx.output(node, count)))


def _read_integer(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    enc = _encoding(ctx, node, (DIRECT, DIRECT_V2))
    col = node.column_id
    dtype = KINDS[node.kind].dtype.type
    out = ctx.output(node, count)
    stream = ctx.streams.open(col, DATA)
    if dtype is np.int64:
        dense = stream.integers(nn, True, rle_v2(enc), out=out if valid is None else None)
    else:
        narrow = stream.narrow_integers(nn, True, rle_v2(enc), dtype, out=out if valid is None else None)
        if narrow is None:
            raise OrcError(f"{ctx.streams.where(col, DATA)}: value outside the range of {node.kind}")
        dense = narrow
    return ColumnVector(node, count, valid, values=_spread(dense, valid, count, out))


def _read_floating(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    _encoding(ctx, node, (DIRECT, DIRECT_V2))
    col = node.column_id
    dtype = np.dtype("<f4") if node.kind == "float" else np.dtype("<f8")
    need = nn * dtype.itemsize
    buf = ctx.streams.open(col, DATA).raw(need)
    if len(buf) < need:
        raise OrcError(f"{ctx.streams.where(col, DATA)}: holds {len(buf)} bytes, {nn} {node.kind} values need {need}")
    dense = buf.view(dtype)
    return ColumnVector(node, count, valid, values=_spread(dense, valid, count, ctx.output(node, count)))


def _read_bytes(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    binary = node.kind in BINARY_KINDS  # binary, and geometry and geography's WKB: never in a dictionary
    allowed = (DIRECT, DIRECT_V2) if binary else (DIRECT, DICTIONARY, DIRECT_V2, DICTIONARY_V2)
    enc = _encoding(ctx, node, allowed)
    col = node.column_id
    streams = ctx.streams
    if enc in (DIRECT, DIRECT_V2):
        lengths = streams.open(col, LENGTH).integers(nn, False, rle_v2(enc))
        offsets = _offsets(lengths, valid, count, functools.partial(streams.where, col, LENGTH))
        data = streams.open(col, DATA).raw(int(offsets[-1]))
        if offsets[-1] > len(data):
            raise OrcError(f"{streams.where(col, DATA)}: LENGTH needs {offsets[-1]} bytes, DATA holds {len(data)}")
        if not binary:
            check_utf8(offsets, data, streams.where(col, DATA))
        return ColumnVector(node, count, valid, offsets=offsets, data=data)

    if ctx.dictionaries is None:
        dict_offsets, dict_data = _read_dictionary(streams, col, enc)
    else:
        dict_offsets, dict_data = ctx.dictionaries.get(col, lambda: _read_dictionary(streams, col, enc))
    size = len(dict_offsets) - 1
    where = functools.partial(streams.where, col, DATA)
    dense = streams.open(col, DATA).integers(nn, False, rle_v2(enc))
    indices = _spread(dense, valid, count)
    if ctx.dictionary_as_category:
        if nn and (dense.min() < 0 or dense.max() >= size):
            raise OrcError(f"{where()}: dictionary index outside the dictionary of {size} entries")
        return ColumnVector(node, count, valid, values=indices, dictionary=(dict_offsets, dict_data))
    mask = valid if valid is not None else np.ones(count, dtype=np.bool_)
    # checks every index as it adds up the entries' bytes
    total = gathered_size(dict_offsets, indices, mask)
    if total == BAD_VALUE:
        raise OrcError(f"{where()}: dictionary index outside the dictionary of {size} entries")
    # rows repeat dictionary entries: the strings can take far more memory than the file (as in any reader's result)
    offsets = allocate(count + 1, np.int64, lambda: f"{where()}: string offsets")
    out_words = allocate((total + 7) // 8, np.uint64, lambda: f"{where()}: {count} strings from the dictionary")
    word_starts = entry_words(dict_offsets)
    words = np.zeros(word_starts[-1], dtype=np.uint64)
    pack_entries(dict_offsets, dict_data, word_starts, words)
    gather_strings(dict_offsets, word_starts, words, indices, mask, offsets, out_words)
    return ColumnVector(node, count, valid, offsets=offsets, data=out_words.view(np.uint8)[:total])


def _read_dictionary(streams: StripeStreams, col: int, enc: int) -> Dictionary:
    """A string column's dictionary in the stripe: its entries' offsets and bytes, checked as UTF-8."""
    size = streams.encoding(col).dictionary_size or 0
    where = functools.partial(streams.where, col, LENGTH)
    dict_lengths = streams.open(col, LENGTH)
    if size > dict_lengths.bytes_left() * INTEGERS_PER_BYTE:  # RLE cannot pack more lengths than this
        raise OrcError(f"{where()}: dictionary of {size} entries is larger than its LENGTH stream can describe")
    dict_offsets = _offsets(dict_lengths.integers(size, False, rle_v2(enc)), None, size, where)
    # only the bytes the entries take: the rest of a hostile stream is never decompressed
    dict_data = streams.open(col, DICTIONARY_DATA).raw(int(dict_offsets[-1]))
    if dict_offsets[-1] > len(dict_data):
        raise OrcError(
            f"{streams.where(col, DICTIONARY_DATA)}: dictionary needs {dict_offsets[-1]} bytes, holds {len(dict_data)}"
        )
    # every row's string is an entry: checking the entries checks them all
    check_utf8(dict_offsets, dict_data, streams.where(col, DICTIONARY_DATA), "dictionary entry")
    return dict_offsets, dict_data


def _writer_zone(streams: StripeStreams, col: int) -> ZoneRules | None:
    """The rules of the stripe's writer zone, as the implementation that wrote the file reads them (see
    :mod:`orcjit.timezones`), or None for UTC (no conversion needed)."""
    name = streams.footer.writer_timezone
    if not name or name in UTC_NAMES:
        return None
    try:
        rules = zone_rules(name, convention_of_writer(streams.writer))
    except TimeZoneError:
        raise OrcError(f"{streams.where(col)}: unknown writer time zone {name!r}") from None
    return None if rules.is_utc else rules


def _read_timestamp(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    enc = _encoding(ctx, node, (DIRECT, DIRECT_V2))
    col = node.column_id
    streams = ctx.streams
    v2 = rle_v2(enc)
    data, secondary = streams.open(col, DATA), streams.open(col, SECONDARY)
    data.check_integers(nn)
    secondary.check_integers(nn)
    zone = None if node.kind == "timestamp with local time zone" else _writer_zone(streams, col)
    epoch = orc_epoch_seconds(zone) if zone is not None else UTC_2015
    out = ctx.output(node, count)
    dense = out if out is not None and valid is None and zone is None else np.empty(nn, dtype=np.int64)
    # a block at a time: the seconds and nanoseconds stay in a core's cache on their way into the result
    seconds, nanos = np.empty((2, min(nn, BLOCK_VALUES)), dtype=np.int64)
    for start in range(0, nn, BLOCK_VALUES):
        n = min(BLOCK_VALUES, nn - start)
        data.integers(n, True, v2, out=seconds[:n])
        secondary.integers(n, False, v2, out=nanos[:n])
        if combine_timestamp(seconds[:n], nanos[:n], dense[start : start + n], epoch) < 0:
            where = streams.where(col, DATA)
            raise OrcError(f"{where}: timestamp outside the years 1677-2262 that nanoseconds reach")
    if zone is not None:
        # TIMESTAMP holds the writer's wall clock: the instant read back in the writer's zone
        try:
            dense = zone.to_wall(dense)
        except OverflowError:
            raise OrcError(
                f"{streams.where(col, DATA)}: timestamp whose wall clock in {zone.name} lies outside the years"
                " 1677-2262 that nanoseconds reach"
            ) from None
    return ColumnVector(node, count, valid, values=_spread(dense, valid, count, out))


def _check_precision(
    hi: np.ndarray, lo: np.ndarray, precision: int, scale: int, where: Callable[[], str], rescaled: bool = True
) -> None:
    """Raise OrcError unless every 128-bit value ``(hi, lo)`` has at most ``precision`` digits (``where()`` words
    the error).

    A writer never stores more digits than the column's precision, and Arrow's decimal arrays must not hold them
    (full validation refuses them; a cast or a computation on them goes wrong): such a file is corrupt.
    ``rescaled``: the values went through :func:`rescale_decimal128`, which checks 38 digits itself.
    """
    if (precision >= 38 and rescaled) or not len(hi):
        return
    limit = 10**precision
    top_hi, top_lo = limit >> 64, limit & (2**64 - 1)  # the lanes of 10**precision and of -(10**precision)
    bottom_hi, bottom_lo = (-limit) >> 64, (-limit) & (2**64 - 1)
    above = (hi > top_hi) | ((hi == top_hi) & (lo >= np.uint64(top_lo)))
    below = (hi < bottom_hi) | ((hi == bottom_hi) & (lo <= np.uint64(bottom_lo)))
    bad = above | below
    if bad.any():
        i = int(np.argmax(bad))
        unscaled = (int(hi[i]) << 64) | int(lo[i])
        value = decimal.Decimal(unscaled).scaleb(-scale)
        raise OrcError(f"{where()}: decimal value {value} has more digits than decimal({precision},{scale}) holds")


def _read_decimal(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    enc = _encoding(ctx, node, (DIRECT, DIRECT_V2))
    col = node.column_id
    streams = ctx.streams
    out = ctx.output(node, count)
    dense = out if out is not None and valid is None else np.empty((nn, 2), dtype=np.int64)
    if stored_as_integers(node, streams.decimal64):
        # unscaled at the type's scale, signed RLE v2 whatever the encoding says (ORC Java's Decimal64TreeWriter)
        low = streams.open(col, DATA).integers(nn, True, True)
        hi, lo = low >> 63, low.view(np.uint64)
        _check_precision(
            hi, lo, node.decimal_precision, node.decimal_scale, functools.partial(streams.where, col, DATA)
        )
        dense[:, 0] = low
        dense[:, 1] = hi
        return ColumnVector(node, count, valid, values=_spread(dense, valid, count, out))
    hi, lo = streams.open(col, DATA).decimals(nn)
    scales = streams.open(col, SECONDARY).integers(nn, True, rle_v2(enc))
    rule = ctx.hive11 if node.hive11_decimal else None
    vector_scale, value_scales = None, None
    if rule is not None and rule.scale is None:
        # each value as stored: its digits are checked, its scale kept beside it
        if nn and (scales.min() < 0 or scales.max() > MAX_DECIMAL_PRECISION):
            raise OrcError(f"{streams.where(col, SECONDARY)}: Hive 0.11 decimal scale outside 0..38")
        _check_precision(hi, lo, MAX_DECIMAL_PRECISION, 0, functools.partial(streams.where, col, DATA), rescaled=False)
        value_scales = _spread(scales, valid, count)
    else:
        scale = node.decimal_scale if rule is None else rule.scale
        assert scale is not None
        half_up = rule is not None and rule.half_up
        where = functools.partial(streams.where, col, DATA)
        if rule is None and bool((scales == scale).all()):
            # every value at the column's scale already (as ORC C++ writes them): nothing to rescale, so the kernel
            # is not needed (nor compiled in a new environment), and the digits are checked here alone
            _check_precision(hi, lo, node.decimal_precision, scale, where, rescaled=False)
        else:
            result = rescale_decimal128(hi, lo, scales, scale, half_up)
            if result == OVERFLOW:
                hint = " (hive11_decimals='exact' reads each value at its own scale)" if rule is not None else ""
                raise OrcError(f"{where()}: decimal value does not fit 38 digits at scale {scale}{hint}")
            if result < 0:
                raise OrcError(f"{streams.where(col, SECONDARY)}: invalid decimal scale")
            _check_precision(hi, lo, node.decimal_precision, scale, where)
        vector_scale = scale if rule is not None else None
    # Arrow's decimal128: 16 little-endian bytes per value, low word first
    dense[:, 0] = lo.view(np.int64)
    dense[:, 1] = hi
    values = _spread(dense, valid, count, out)
    return ColumnVector(node, count, valid, values=values, scale=vector_scale, scales=value_scales)


# -- compound types --------------------------------------------------------------------------------------------------


def expand(vec: ColumnVector, mask: np.ndarray) -> ColumnVector:
    """Spread a vector of the ``mask.sum()`` slots where the parent holds a value over all the parent's slots;
    the others become null."""
    length = len(mask)
    valid = mask.copy()
    if vec.valid is not None:
        valid[mask] = vec.valid
    values = None
    if vec.values is not None:
        shape = (length, *vec.values.shape[1:])
        values = np.zeros(shape, dtype=vec.values.dtype)
        values[mask] = vec.values
    offsets = None
    if vec.offsets is not None:
        lengths = np.zeros(length, dtype=np.int64)
        lengths[mask] = np.diff(vec.offsets)
        offsets = np.empty(length + 1, dtype=np.int64)
        offsets[0] = vec.offsets[0]
        np.cumsum(lengths, out=offsets[1:])
        offsets[1:] += vec.offsets[0]
    node = vec.node
    # list and map children are reached through offsets and keep their length
    compound = node.kind in ("struct", "uniontype")
    children = [expand(child, mask) for child in vec.children] if compound else vec.children
    scales = None
    if vec.scales is not None:
        scales = np.zeros(length, dtype=vec.scales.dtype)
        scales[mask] = vec.scales
    return ColumnVector(
        node,
        length,
        valid,
        values=values,
        offsets=offsets,
        data=vec.data,
        dictionary=vec.dictionary,
        children=children,
        scale=vec.scale,
        scales=scales,
    )


def _read_struct(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    _encoding(ctx, node, (DIRECT, DIRECT_V2))
    children = []
    for child in node.children:
        if child.column_id not in ctx.selected:
            continue
        vec = read_column(ctx, child, nn)
        children.append(expand(vec, valid) if valid is not None else vec)
    return ColumnVector(node, count, valid, children=children)


def _read_list_or_map(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    enc = _encoding(ctx, node, (DIRECT, DIRECT_V2))
    col = node.column_id
    lengths = ctx.streams.open(col, LENGTH).integers(nn, False, rle_v2(enc))
    offsets = _offsets(lengths, valid, count, functools.partial(ctx.streams.where, col, LENGTH))
    total = int(offsets[-1])
    children = []
    for child in node.children:
        vec = read_column(ctx, child, total)
        if node.kind == "map" and not children and vec.valid is not None:
            # ORC C++ writes and reads null keys, but an Arrow map cannot hold one (pyarrow's ORC reader aborts the
            # process on such a file): every read refuses them alike, with or without pyarrow
            raise OrcError(
                f"{ctx.streams.where(child.column_id, PRESENT)}: {vec.null_count} keys of map {node.path!r} are "
                "null, which Arrow maps cannot hold"
            )
        children.append(vec)
    return ColumnVector(node, count, valid, offsets=offsets, children=children)


def _read_union(ctx: ReadContext, node: TypeNode, count: int, valid: np.ndarray | None, nn: int) -> ColumnVector:
    _encoding(ctx, node, (DIRECT, DIRECT_V2))
    col = node.column_id
    tags = ctx.streams.open(col, DATA).octets(nn)
    if nn and int(tags.max()) >= len(node.children):
        raise OrcError(
            f"{ctx.streams.where(col, DATA)}: union tag {int(tags.max())} but the union has {len(node.children)} "
            "variants"
        )
    full_tags = _spread(tags, valid, count)
    mask = valid if valid is not None else np.ones(count, dtype=np.bool_)
    children = []
    for i, child in enumerate(node.children):
        where = mask & (full_tags == i)
        vec = read_column(ctx, child, int(np.count_nonzero(tags == i)))
        children.append(expand(vec, where))
    # uint8: ORC unions have up to 256 variants (Arrow, with at most 128, casts to its int8 type codes itself)
    return ColumnVector(node, count, valid, values=full_tags, children=children)


Reader = Callable[[ReadContext, TypeNode, int, "np.ndarray | None", int], ColumnVector]
READERS: dict[str, Reader] = {
    "boolean": _read_boolean,
    "tinyint": _read_tinyint,
    "smallint": _read_integer,
    "int": _read_integer,
    "bigint": _read_integer,
    "date": _read_integer,
    "float": _read_floating,
    "double": _read_floating,
    "string": _read_bytes,
    "varchar": _read_bytes,
    "char": _read_bytes,
    "binary": _read_bytes,
    "geometry": _read_bytes,
    "geography": _read_bytes,
    "timestamp": _read_timestamp,
    "timestamp with local time zone": _read_timestamp,
    "decimal": _read_decimal,
    "struct": _read_struct,
    "array": _read_list_or_map,
    "map": _read_list_or_map,
    "uniontype": _read_union,
}


def read_column(ctx: ReadContext, node: TypeNode, count: int) -> ColumnVector:
    """Decode ``count`` slots of ``node`` (and the selected part of its subtree) from the stripe's streams."""
    valid = _present(ctx, node, count)
    nn = count if valid is None else int(np.count_nonzero(valid))
    return READERS[node.kind](ctx, node, count, valid, nn)
