"""How the verbs print: aligned tables and field lists, shortened cells, sizes and plurals, JSON and text lines.

Every verb builds plain data first and hands it to these functions, so text and ``--json`` output share one way
of showing a value.
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from ..statistics import geometry_type_name
from ..types.schema import TypeNode

# Statistics of long strings would stretch a text table past any screen; --json keeps them whole.
MAX_CELL = 32


def _escape(text: str) -> str:
    # a newline or tab inside a value would break the table's rows and columns
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str) and not value:
        return '""'  # so that an empty string is not mistaken for a missing value
    return _escape(str(value))


def shorten(value: Any) -> Any:
    """A string value cut to ``MAX_CELL`` characters (after escaping) for a table; other values as they are."""
    if not isinstance(value, str):
        return value
    text = _escape(value)
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 3] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "  ") -> list[str]:
    """Lay out rows as an aligned text table under underlined headers.

    Parameters
    ----------
    headers : sequence of str
    rows : sequence of sequences
        Raw values; ``None`` shows as an empty cell, ``bool`` as yes/no, control characters are escaped.
    indent : str
        Put before every line.

    Returns
    -------
    list of str
        The lines, without trailing spaces. Columns whose values are all numbers are right-aligned.
    """
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    numeric = [
        any(row[i] is not None for row in rows) and all(row[i] is None or _is_number(row[i]) for row in rows)
        for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return (indent + "  ".join(parts)).rstrip()

    return [line(list(headers)), line(["-" * w for w in widths]), *(line(row) for row in cells)]


def format_fields(pairs: Sequence[tuple[str, Any]], indent: str = "") -> list[str]:
    """Lay out ``label: value`` pairs with the values aligned."""
    width = max((len(label) for label, _ in pairs), default=0) + 1
    return [f"{indent}{label + ':':<{width}} {_cell(value)}".rstrip() for label, value in pairs]


def plural(n: int, word: str) -> str:
    """``"1 row"``, ``"2 rows"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def size(n: int) -> str:
    """A byte count, with KiB, MiB or GiB beside it from 1 KiB on."""
    if n < 1024:
        return plural(n, "byte")
    value, unit = float(n), "bytes"
    for larger in ("KiB", "MiB", "GiB"):
        if value < 1024:
            break
        value, unit = value / 1024, larger
    return f"{n} bytes ({value:.1f} {unit})"


def row_range(first_row: int, rows: int) -> str:
    """``"3 rows (10-12)"``: a count of rows and the row numbers they span."""
    if rows == 0:
        return "no rows"
    span = f"{first_row}-{first_row + rows - 1}" if rows > 1 else str(first_row)
    return f"{plural(rows, 'row')} ({span})"


def type_label(node: TypeNode) -> str:
    """A column's type for a table cell."""
    # a compound type's full string repeats its whole subtree, which the rows below it already show
    return node.kind if node.is_compound else str(node)


# -- output -------------------------------------------------------------------------------------------------------


def pd_na() -> Any:
    """pandas' missing-value singleton, imported only when rows are printed."""
    import pandas as pd

    return pd.NA


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: ISO dates and times, decimals as strings, bytes as hex, missing values as
    ``None``, non-finite floats as the strings ``NaN``, ``Infinity`` and ``-Infinity``."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):  # numpy arrays (list cells) and scalars
        value = value.tolist()
    if value is None or value is pd_na() or (isinstance(value, datetime.datetime) and value != value):
        return None  # pandas' NA and NaT
    # NaN and infinities are not JSON; strings keep them readable and the output strictly valid
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):  # pandas.Timestamp is a datetime
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return value


def write_json(out: TextIO, obj: Any) -> None:
    """``obj`` as one indented JSON object."""
    out.write(json.dumps(jsonable(obj), indent=2, allow_nan=False, default=str) + "\n")


def _cell_value(value: Any) -> Any:
    # a NaN cell of a numeric column is a missing value in a row listing
    return None if isinstance(value, float) and math.isnan(value) else value


def write_json_rows(out: TextIO, frame: Any) -> None:
    """Each row of a DataFrame as one JSON object on its own line."""
    for row in frame.to_dict("records"):
        cells = {k: _cell_value(v) for k, v in row.items()}
        out.write(json.dumps(jsonable(cells), allow_nan=False, default=str) + "\n")


def write_lines(out: TextIO, lines: Iterable[str]) -> None:
    """Text lines, each ended by a newline."""
    text = "\n".join(lines) + "\n"
    encoding = getattr(out, "encoding", None)
    if encoding:
        # a value the terminal's encoding cannot show is printed escaped instead of aborting the listing
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    out.write(text)


def write_report(
    out: TextIO, data: dict[str, Any], as_json: bool, to_lines: Callable[[dict[str, Any]], list[str]]
) -> None:
    """A verb's plain-data report: as one JSON object with ``--json``, else as the text ``to_lines`` makes of it."""
    if as_json:
        write_json(out, data)
    else:
        write_lines(out, to_lines(data))


def stat_cell(key: str, value: Any) -> Any:
    """A statistic as a table shows it: long strings shortened, a bounding box as ranges, geometry types by name."""
    if value is None:
        return None
    if key == "bbox":
        # x, y, then z and m where the values have them: "x 0.0..10.0, y -5.0..5.0"
        axes = [axis for axis in "xyzm" if f"{axis}min" in value]
        return ", ".join(f"{axis} {value[axis + 'min']!r}..{value[axis + 'max']!r}" for axis in axes)
    if key == "geometry_types":
        return ", ".join(geometry_type_name(code) for code in value)
    return shorten(value)
