"""The row index (ROW_INDEX streams) read straight from its protobuf bytes into arrays.

A stripe of ten million rows has a thousand row groups per column. Reading each entry's statistics through the
protobuf runtime costs about ten microseconds a row group; pruning a lookup would spend most of its time there.
This kernel walks the wire format once and fills a table with one row per entry and one slot per field pruning
and seeking use (counts, has_null, the minimum and maximum of every statistics kind, string spans, positions).

Protobuf rules kept here so the table says what the runtime would: a scalar field seen twice keeps the last
value; a sub-message seen twice merges, field by field; a repeated field (positions, bucket counts) concatenates;
a known field with an unexpected wire type, and any unknown field, is skipped. ``sint`` fields are zigzag
decoded, ``sint32``/``int32`` fields keep the low 32 bits of their varint as the runtime does. Strings are left as
``(offset, length)`` spans of the buffer, to be decoded (and checked as UTF-8) only when a predicate needs them.

Every read is checked against the end of the enclosing message; a truncated message, a varint longer than ten
bytes, a field number 0 or a group wire type (which ORC never writes) are errors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._jit import jit
from .protobuf import BYTES, FIXED64, VARINT, count_messages, int32, key, skip, span, varint, zigzag
from .status import BAD_LENGTH, ERROR_POS, TRUNCATED, check, new_state
from .utf8 import valid_utf8
from .varint import as_buffer

__all__ = [
    "RowIndexTable",
    "compare_spans",
    "equal_spans",
    "parse_row_index",
    "parse_row_positions",
    "scan_row_positions",
    "utf8_spans",
]

# slots of the table; sub-message slots (INT .. TIMESTAMP) only say the sub-message was present
STATISTICS = 0  # the entry has a statistics message
COUNT = 1
HAS_NULL = 2
BYTES_ON_DISK = 3
INT = 4
INT_MIN = 5
INT_MAX = 6
DOUBLE = 7
DOUBLE_MIN = 8  # the float64's bits
DOUBLE_MAX = 9
STRING = 10
STRING_MIN = 11  # span: value = offset, extra = length
STRING_MAX = 12
STRING_LOWER = 13
STRING_UPPER = 14
BUCKET = 15
TRUE_COUNT = 16  # the first bucket count
DECIMAL = 17
DECIMAL_MIN = 18  # span
DECIMAL_MAX = 19
DATE = 20
DATE_MIN = 21
DATE_MAX = 22
TIMESTAMP = 23
TIMESTAMP_MIN_UTC = 24
TIMESTAMP_MAX_UTC = 25
TIMESTAMP_MIN_NANOS = 26
TIMESTAMP_MAX_NANOS = 27
POSITIONS = 28  # value = first index in the flat positions array, extra = how many
BINARY = 29  # sub-messages read only to check they are well formed, as the runtime does
COLLECTION = 30
SLOTS = 31

# ColumnStatistics field number -> the slot marking its sub-message (-1: not a sub-message)
_SUB_MESSAGES = (-1, -1, INT, DOUBLE, STRING, BUCKET, DECIMAL, DATE, BINARY, TIMESTAMP, -1, -1, COLLECTION)


@jit
def _sub_message(buf, pos, end, row, kind, value, extra, present):  # type: ignore[no-untyped-def]
    """One statistics sub-message of ``kind`` (a sub-message slot) into ``row``.

    ``(new_pos, field_start)``: on error ``new_pos`` is the code and ``field_start`` where the failing field began.
    """
    present[row, kind] = 1
    while pos < end:
        at = pos
        field, wire, pos = key(buf, pos, end)
        if pos < 0:
            return pos, at
        slot = -1
        if kind == INT and wire == VARINT and field <= 2:
            slot = INT_MIN + field - 1
        elif kind == DOUBLE and wire == FIXED64 and field <= 2:
            slot = DOUBLE_MIN + field - 1
        elif kind == STRING and wire == BYTES and field != 3 and field <= 5:
            slot = STRING_MIN + field - 1 if field < 3 else STRING_MIN + field - 2
        elif kind == DECIMAL and wire == BYTES and field <= 2:
            slot = DECIMAL_MIN + field - 1
        elif kind == DATE and wire == VARINT and field <= 2:
            slot = DATE_MIN + field - 1
        elif kind == TIMESTAMP and wire == VARINT and 3 <= field <= 6:
            slot = TIMESTAMP_MIN_UTC + field - 3
        elif kind == BUCKET and field == 1 and (wire in (VARINT, BYTES)):
            slot = TRUE_COUNT
        if slot < 0:
            pos = skip(buf, pos, end, wire)
            if pos < 0:
                return pos, at
        elif wire == FIXED64:
            if pos + 8 > end:
                return TRUNCATED, at
            bits = np.int64(0)
            for b in range(8):
                bits |= np.int64(buf[pos + b]) << (8 * b)
            value[row, slot] = bits
            present[row, slot] = 1
            pos += 8
        elif wire == BYTES and kind != BUCKET:
            start, stop = span(buf, pos, end)
            if stop < 0:
                return stop, at
            value[row, slot] = start
            extra[row, slot] = stop - start
            present[row, slot] = 1
            pos = stop
        elif wire == BYTES:
            # packed bucket counts: only the first count overall (true values) is wanted
            start, stop = span(buf, pos, end)
            if stop < 0:
                return stop, at
            p = start
            while p < stop:
                v, p = varint(buf, p, stop)
                if p < 0:
                    return p, at
                if present[row, TRUE_COUNT] == 0:
                    value[row, TRUE_COUNT] = v
                    present[row, TRUE_COUNT] = 1
            pos = stop
        else:
            v, pos = varint(buf, pos, end)
            if pos < 0:
                return pos, at
            if kind == BUCKET:
                if present[row, TRUE_COUNT] == 0:
                    value[row, TRUE_COUNT] = v
                    present[row, TRUE_COUNT] = 1
                continue
            if kind == DATE:
                v = int32(v)
                v = ((v >> 1) & 0x7FFFFFFF) ^ -(v & 1)
            elif slot in (TIMESTAMP_MIN_NANOS, TIMESTAMP_MAX_NANOS):
                v = int32(v)
            else:
                v = zigzag(v)
            value[row, slot] = v
            present[row, slot] = 1
    return pos, 0


@jit
def _statistics(buf, pos, end, row, value, extra, present):  # type: ignore[no-untyped-def]
    """One ColumnStatistics message into ``row``: ``(new_pos, field_start)`` as :func:`_sub_message`."""
    present[row, STATISTICS] = 1
    while pos < end:
        at = pos
        field, wire, pos = key(buf, pos, end)
        if pos < 0:
            return pos, at
        if wire == VARINT and (field == 1 or field == 10 or field == 11):
            v, pos = varint(buf, pos, end)
            if pos < 0:
                return pos, at
            slot = COUNT if field == 1 else (HAS_NULL if field == 10 else BYTES_ON_DISK)
            if field == 10:
                v = np.int64(1) if v != 0 else np.int64(0)
            value[row, slot] = v
            present[row, slot] = 1
            continue
        kind = _SUB_MESSAGES[field] if wire == BYTES and field < len(_SUB_MESSAGES) else -1
        if kind < 0:
            pos = skip(buf, pos, end, wire)
            if pos < 0:
                return pos, at
            continue
        start, stop = span(buf, pos, end)
        if stop < 0:
            return stop, at
        result, inner = _sub_message(buf, start, stop, row, kind, value, extra, present)
        if result < 0:
            return result, inner
        pos = stop
    return pos, 0


@jit
def _entry(buf, pos, end, row, value, extra, present, positions, used):  # type: ignore[no-untyped-def]
    """One RowIndexEntry into ``row``, its positions appended at ``positions[used:]``.

    ``(new_pos, used, field_start)``; on error ``new_pos`` is the code.
    """
    value[row, POSITIONS] = used
    while pos < end:
        at = pos
        field, wire, pos = key(buf, pos, end)
        if pos < 0:
            return pos, used, at
        if field == 1 and wire == VARINT:
            v, pos = varint(buf, pos, end)
            if pos < 0:
                return pos, used, at
            if used >= positions.size:
                return BAD_LENGTH, used, at
            positions[used] = v
            used += 1
        elif field == 1 and wire == BYTES:
            start, stop = span(buf, pos, end)
            if stop < 0:
                return stop, used, at
            p = start
            while p < stop:
                if used >= positions.size:
                    return BAD_LENGTH, used, p
                v, p = varint(buf, p, stop)
                if p < 0:
                    return p, used, at
                positions[used] = v
                used += 1
            pos = stop
        elif field == 2 and wire == BYTES:
            start, stop = span(buf, pos, end)
            if stop < 0:
                return stop, used, at
            result, inner = _statistics(buf, start, stop, row, value, extra, present)
            if result < 0:
                return result, used, inner
            pos = stop
        else:
            pos = skip(buf, pos, end, wire)
            if pos < 0:
                return pos, used, at
    extra[row, POSITIONS] = used - value[row, POSITIONS]
    present[row, POSITIONS] = 1
    return pos, used, 0


@jit
def scan_row_index(buf, value, extra, present, positions, state):  # type: ignore[no-untyped-def]
    """Fill the table (``value``, ``extra``, ``present``: one row per entry, ``SLOTS`` columns) and the flat
    ``positions`` (room for at least ``buf.size`` values, since each takes a byte or more) from the RowIndex
    ``buf``. Returns the number of positions, or a negative code with the failing field's offset in ``state``."""
    pos = 0
    end = buf.size
    row = 0
    used = 0
    while pos < end:
        at = pos
        field, wire, pos = key(buf, pos, end)
        if pos < 0:
            state[ERROR_POS] = at
            return pos
        if field == 1 and wire == BYTES and row < value.shape[0]:
            start, stop = span(buf, pos, end)
            if stop < 0:
                state[ERROR_POS] = at
                return stop
            result, used, inner = _entry(buf, start, stop, row, value, extra, present, positions, used)
            if result < 0:
                state[ERROR_POS] = inner
                return result
            row += 1
            pos = stop
        else:
            pos = skip(buf, pos, end, wire)
            if pos < 0:
                state[ERROR_POS] = at
                return pos
    return used


@jit
def scan_row_positions(buf, starts, counts, positions, state):  # type: ignore[no-untyped-def]
    """The positions lists of the RowIndex ``buf`` alone, for seeking: entry ``row``'s values at
    ``positions[starts[row]:starts[row] + counts[row]]`` (room for ``buf.size`` values, as
    :func:`scan_row_index`). Statistics are passed over by their length, unread. Returns the number of entries, or
    a negative code with the failing field's offset in ``state``; the protobuf rules are :func:`_entry`'s."""
    pos = 0
    end = buf.size
    row = 0
    used = 0
    while pos < end:
        at = pos
        field, wire, pos = key(buf, pos, end)
        if pos < 0:
            state[ERROR_POS] = at
            return pos
        if field == 1 and wire == BYTES and row < starts.size:
            start, stop = span(buf, pos, end)
            if stop < 0:
                state[ERROR_POS] = at
                return stop
            starts[row] = used
            p = start
            while p < stop:
                inner = p
                number, kind, p = key(buf, p, stop)
                if p < 0:
                    state[ERROR_POS] = inner
                    return p
                if number == 1 and kind == VARINT:
                    v, p = varint(buf, p, stop)
                    if p < 0:
                        state[ERROR_POS] = inner
                        return p
                    if used >= positions.size:
                        state[ERROR_POS] = inner
                        return BAD_LENGTH
                    positions[used] = v
                    used += 1
                elif number == 1 and kind == BYTES:
                    first, last = span(buf, p, stop)
                    if last < 0:
                        state[ERROR_POS] = inner
                        return last
                    q = first
                    while q < last:
                        if used >= positions.size:
                            state[ERROR_POS] = q
                            return BAD_LENGTH
                        v, q = varint(buf, q, last)
                        if q < 0:
                            state[ERROR_POS] = inner
                            return q
                        positions[used] = v
                        used += 1
                    p = last
                else:
                    p = skip(buf, p, stop, kind)
                    if p < 0:
                        state[ERROR_POS] = inner
                        return p
            counts[row] = used - starts[row]
            row += 1
            pos = stop
        else:
            pos = skip(buf, pos, end, wire)
            if pos < 0:
                state[ERROR_POS] = at
                return pos
    return row


@jit
def utf8_spans(data, starts, lengths, present, out):  # type: ignore[no-untyped-def]
    """``out[g]``: span ``g`` (``data[starts[g]:starts[g] + lengths[g]]``) was recorded (``present[g]``) and is
    well-formed UTF-8, as Python's strict decoder has it. The parser checked that spans lie inside ``data``."""
    for g in range(out.size):
        out[g] = present[g] != 0 and valid_utf8(data, starts[g], starts[g] + lengths[g])


@jit
def compare_spans(data, starts, lengths, literal, out):  # type: ignore[no-untyped-def]
    """``out[g]`` = -1, 0 or 1 as span ``g`` sorts before, equal to or after ``literal`` (bytewise: for UTF-8 that
    is code point order, as Python compares ``str``)."""
    m = literal.size
    for g in range(out.size):
        start = starts[g]
        n = lengths[g]
        result = 0
        for j in range(min(n, m)):
            a = data[start + j]
            b = literal[j]
            if a != b:
                result = -1 if a < b else 1
                break
        if result == 0 and n != m:
            result = -1 if n < m else 1
        out[g] = result


@jit
def equal_spans(data, a_starts, a_lengths, b_starts, b_lengths, out):  # type: ignore[no-untyped-def]
    """``out[g]``: spans ``a[g]`` and ``b[g]`` hold the same bytes."""
    for g in range(out.size):
        n = a_lengths[g]
        same = n == b_lengths[g]
        if same:
            a, b = a_starts[g], b_starts[g]
            for j in range(n):
                if data[a + j] != data[b + j]:
                    same = False
                    break
        out[g] = same


@dataclass(frozen=True)
class RowIndexTable:
    """One column's row index in one stripe: a row per entry (row group), a column per slot.

    ``value[g, slot]`` holds the field (spans: the offset in ``data``; doubles: their bits), ``extra[g, slot]`` a
    span's length or the number of positions, and ``present[g, slot]`` whether the writer recorded it.
    """

    data: bytes
    value: np.ndarray
    extra: np.ndarray
    present: np.ndarray
    flat_positions: np.ndarray

    def __len__(self) -> int:
        return int(self.value.shape[0])

    def positions(self, group: int) -> np.ndarray:
        """The positions list of row ``group``."""
        start = int(self.value[group, POSITIONS])
        return self.flat_positions[start : start + int(self.extra[group, POSITIONS])]

    def position_rows(self) -> np.ndarray | list[np.ndarray]:
        """Every row group's positions: a 2-D array when all lists have one length (as a valid index has),
        else a list of arrays."""
        counts = self.extra[:, POSITIONS]
        n = len(self)
        if n and (counts == counts[0]).all():
            return self.flat_positions.reshape(n, int(counts[0]))
        return [self.positions(g) for g in range(n)]

    def texts(self, slot: int) -> list[str | bytes | None]:
        """:meth:`text` of every row group."""
        data = self.data
        out: list[str | bytes | None] = []
        for has, start, length in zip(
            self.present[:, slot].tolist(), self.value[:, slot].tolist(), self.extra[:, slot].tolist(), strict=True
        ):
            if not has:
                out.append(None)
                continue
            raw = data[start : start + length]
            try:
                out.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                out.append(raw)
        return out

    def has(self, slot: int) -> np.ndarray:
        """Per row group: was ``slot`` recorded?"""
        return self.present[:, slot].astype(np.bool_)

    def text(self, group: int, slot: int) -> str | bytes | None:
        """The string in span ``slot`` of row ``group``: ``str`` if UTF-8, else ``bytes``; ``None`` if absent."""
        if not self.present[group, slot]:
            return None
        start = int(self.value[group, slot])
        data = self.data[start : start + int(self.extra[group, slot])]
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data


def parse_row_positions(
    raw: bytes | bytearray | memoryview, what: str, entries: int | None = None
) -> np.ndarray | list[np.ndarray] | None:
    """The positions lists of a decompressed ROW_INDEX stream, as :meth:`RowIndexTable.position_rows` gives them,
    without reading statistics: what seeking needs of the row indexes of columns no filter tests.

    With ``entries``, an index holding another number of entries gives ``None``.

    Raises
    ------
    OrcError
        If the bytes are not a RowIndex message (as far as positions are concerned); the message names ``what``
        and the byte offset.
    """
    buf = as_buffer(raw)
    state = new_state()
    n = check(count_messages(buf, 1, state), state, f"{what}: row index")
    if entries is not None and n != entries:
        return None
    starts = np.zeros(n, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    positions = np.zeros(buf.size, dtype=np.int64)
    check(scan_row_positions(buf, starts, counts, positions, state), state, f"{what}: row index")
    if n and (counts == counts[0]).all():
        return positions[: n * int(counts[0])].reshape(n, int(counts[0]))
    return [positions[a : a + c] for a, c in zip(starts.tolist(), counts.tolist(), strict=True)]


def parse_row_index(raw: bytes | bytearray | memoryview, what: str, entries: int | None = None) -> RowIndexTable | None:
    """Read a decompressed ROW_INDEX stream into a :class:`RowIndexTable`.

    With ``entries`` (the stripe's number of row groups), an index holding another number of entries describes
    something else: ``None`` is returned before any table is allocated.

    Raises
    ------
    OrcError
        If the bytes are not a RowIndex message; the message names ``what`` and the byte offset.
    """
    data = bytes(raw)
    buf = as_buffer(data)
    state = new_state()
    n = check(count_messages(buf, 1, state), state, f"{what}: row index")
    if entries is not None and n != entries:
        return None
    value = np.zeros((n, SLOTS), dtype=np.int64)
    extra = np.zeros((n, SLOTS), dtype=np.int64)
    present = np.zeros((n, SLOTS), dtype=np.uint8)
    positions = np.zeros(buf.size, dtype=np.int64)
    used = check(scan_row_index(buf, value, extra, present, positions, state), state, f"{what}: row index")
    return RowIndexTable(data, value, extra, present, positions[:used])
