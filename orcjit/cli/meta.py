"""``orcjit meta PATH``: file facts, then each stripe's layout, streams and column encodings (like ORC's
``orc-metadata``); for a dataset, a summary of its files and one row per file.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

from ..errors import OrcError
from ..orcdataset import ORCDataset
from ..orcfile import ORCFile
from .options import (
    add_columns,
    add_json,
    add_paths,
    add_stripes,
    add_verb,
    column_list,
    dataset_of,
    select_nodes,
    selected_stripes,
    subtree_ids,
)
from .render import format_fields, format_table, plural, row_range, size, write_report

DICTIONARY_ENCODINGS = frozenset({"DICTIONARY", "DICTIONARY_V2"})


def add_to(subparsers: Any) -> None:
    """Add ``meta`` and its options."""
    p = add_verb(
        subparsers,
        "meta",
        "print file metadata and each stripe's streams and encodings",
        "Print the file's metadata, like ORC's orc-metadata: rows, stripes, compression and block size, file "
        "version, writer and writer version, software version, row index stride, file size, content length and "
        "user metadata keys with their value sizes. Then, per stripe: offset, section lengths, rows, writer "
        "timezone, its streams (kind, column, offset, length) and each column's encoding (kind, dictionary size). "
        "Given a directory, a glob or several files, print the dataset's summary instead: files, rows, bytes, "
        "type, partition columns and the notes on files skipped (empty ones), then one row per file with its "
        "path, rows, stripes, size and partition values (--stripes and --columns are for one file).",
        "  orcjit meta data.orc\n  orcjit meta data.orc --stripes 0,2\n  orcjit meta data.orc --json --stripes 1-3\n"
        "  orcjit meta warehouse/events/ --json",
        run,
    )
    add_paths(p)
    add_json(p, "the metadata")
    add_stripes(p)
    add_columns(p, "show the streams and encodings of only these columns and those below them")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Print the metadata of the file or dataset ``args.file`` names."""
    dataset = dataset_of(args)
    if dataset is not None:
        for option, given in (("--stripes", args.stripes), ("--columns", args.columns)):
            if given is not None:
                # a dataset's summary shows no stripe footers, so these would silently select nothing
                raise OrcError(f"{option} is for one file's stripes, which a dataset's summary does not show")
        write_report(out, dataset_meta_data(dataset), args.json, dataset_meta_lines)
        return 0
    with ORCFile(args.file[0]) as orc:
        meta = meta_data(orc, args.stripes, columns=column_list(args.columns))
    write_report(out, meta, args.json, meta_lines)
    return 0


def meta_data(
    orc: ORCFile,
    stripes: Sequence[range] | None = None,
    *,
    stripe_details: bool = True,
    columns: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Collect what ``orcjit meta`` reports about a file.

    Parameters
    ----------
    orc : ORCFile
    stripes : sequence of range, optional
        Stripes to describe, as :func:`parse_stripe_selection` returns them; all stripes when ``None``.
    stripe_details : bool
        Whether to read each stripe's footer for its streams, encodings and writer time zone. Without it only
        the stripe layout from the file footer is reported, which costs no reads.
    columns : sequence of str, optional
        Report the streams and encodings of only these columns and the columns below them (dotted paths).

    Returns
    -------
    dict
        JSON-ready: file facts, then a ``stripes`` list.

    Raises
    ------
    OrcError
        If a selected stripe does not exist, its footer is corrupt or a column is not in the file.
    """
    selected = selected_stripes(orc, stripes)
    nodes = list(orc.schema.walk())
    shown = subtree_ids(select_nodes(orc, columns))
    out: dict[str, Any] = {
        "file": orc.source.name,
        "type": str(orc.schema),
        "rows": orc.nrows,
        "stripe_count": orc.nstripes,
        "column_count": orc.ncolumns,
        "compression": orc.compression,
        "compression_block_size": orc.compression_block_size,
        "file_version": orc.file_version,
        "writer": orc.writer,
        "writer_version": orc.writer_version,
        "writer_version_number": orc.writer_version_number,
        "software_version": orc.software_version,
        "row_index_stride": orc.row_index_stride,
        "file_size": orc.file_size,
        "content_length": orc.content_length,
        "user_metadata": {key: {"size": len(value)} for key, value in orc.user_metadata.items()},
        "stripes": [],
    }
    all_stripes = orc.stripes
    for i in selected:
        s = all_stripes[i]
        entry: dict[str, Any] = {
            "index": s.index,
            "offset": s.offset,
            "length": s.length,
            "index_length": s.index_length,
            "data_length": s.data_length,
            "footer_length": s.footer_length,
            "rows": s.rows,
            "first_row": s.first_row,
        }
        if stripe_details:
            footer = orc.stripe_footer(i)
            entry["writer_timezone"] = footer.writer_timezone
            entry["streams"] = [
                {"kind": st.kind_name, "column": st.column, "offset": st.offset, "length": st.length}
                for st in footer.streams
                if shown is None or st.column in shown
            ]
            encodings = []
            for column, enc in enumerate(footer.encodings):
                if shown is not None and column not in shown:
                    continue
                item: dict[str, Any] = {
                    "column": column,
                    "path": nodes[column].path if column < len(nodes) else None,
                    "kind": enc.kind_name,
                    # only dictionary encodings have a meaningful size; writers fill in 0 for the rest
                    "dictionary_size": enc.dictionary_size if enc.kind_name in DICTIONARY_ENCODINGS else None,
                }
                if enc.bloom_encoding is not None:
                    item["bloom_encoding"] = enc.bloom_encoding
                encodings.append(item)
            entry["encodings"] = encodings
        out["stripes"].append(entry)
    return out


def file_fact_lines(meta: dict[str, Any], *, with_name: bool = True) -> list[str]:
    """The file facts of :func:`meta_data` as aligned ``label: value`` lines, then the user metadata keys."""
    compression = meta["compression"]
    if compression != "NONE":
        compression += f", block size {size(meta['compression_block_size'])}"
    stride = meta["row_index_stride"]
    software = meta["software_version"]
    user_metadata = meta["user_metadata"]
    named = [("File", meta["file"]), ("Type", meta["type"])] if with_name else []
    lines = format_fields(
        [
            *named,
            ("Rows", meta["rows"]),
            ("Stripes", meta["stripe_count"]),
            ("Columns", meta["column_count"]),
            ("Compression", compression),
            ("File version", meta["file_version"]),
            ("Writer", meta["writer"]),
            ("Writer version", f"{meta['writer_version']} ({meta['writer_version_number']})"),
            ("Software version", software if software is not None else "(not recorded)"),
            ("Row index stride", stride if stride else "0 (no row index)"),
            ("File size", size(meta["file_size"])),
            ("Content length", size(meta["content_length"])),
            ("User metadata", plural(len(user_metadata), "key") if user_metadata else "(none)"),
        ]
    )
    if user_metadata:
        lines += format_table(["key", "value bytes"], [[key, v["size"]] for key, v in user_metadata.items()])
    return lines


def stripe_table(meta: dict[str, Any]) -> list[str]:
    """The stripe layout of :func:`meta_data` as a table, with writer time zones where stripe footers were read."""
    stripes = meta["stripes"]
    if not stripes:
        return ["  (none)"]
    with_tz = any("writer_timezone" in s for s in stripes)
    headers = ["stripe", "offset", "length", "index", "data", "footer", "rows", "first row"]
    if with_tz:
        headers.append("writer timezone")
    rows = []
    for s in stripes:
        row = [s["index"], s["offset"], s["length"], s["index_length"], s["data_length"], s["footer_length"]]
        row += [s["rows"], s["first_row"]]
        if with_tz:
            row.append(s.get("writer_timezone"))
        rows.append(row)
    return format_table(headers, rows)


def meta_lines(meta: dict[str, Any]) -> list[str]:
    """Render :func:`meta_data` as text: file facts, a stripe table, then each stripe's streams and encodings."""
    shown = len(meta["stripes"])
    title = f"Stripes ({shown} of {meta['stripe_count']})" if shown != meta["stripe_count"] else "Stripes"
    lines = [*file_fact_lines(meta), "", f"{title}:", *stripe_table(meta)]
    for s in meta["stripes"]:
        if "streams" not in s:
            continue
        lines += [
            "",
            f"Stripe {s['index']}: offset {s['offset']}, {size(s['length'])}, {row_range(s['first_row'], s['rows'])}"
            f", writer timezone {s['writer_timezone'] or '(not recorded)'}",
            f"  Streams ({len(s['streams'])}):",
            *format_table(
                ["kind", "column", "offset", "length"],
                [[st["kind"], st["column"], st["offset"], st["length"]] for st in s["streams"]],
                indent="    ",
            ),
            f"  Encodings ({len(s['encodings'])}):",
        ]
        with_bloom = any("bloom_encoding" in e for e in s["encodings"])
        headers = ["column", "path", "encoding", "dictionary size"] + (["bloom encoding"] if with_bloom else [])
        rows = []
        for e in s["encodings"]:
            row = [e["column"], e["path"] or ("(root)" if e["column"] == 0 else None), e["kind"], e["dictionary_size"]]
            if with_bloom:
                row.append(e.get("bloom_encoding"))
            rows.append(row)
        lines += format_table(headers, rows, indent="    ")
    return lines


def dataset_meta_data(dataset: ORCDataset) -> dict[str, Any]:
    """Collect what ``orcjit meta`` reports about a dataset: its totals, type, partition columns and notes, and
    for each file its path, rows, stripes, size in bytes and partition values.

    Returns
    -------
    dict
        JSON-ready: dataset facts, then a ``files`` list in the order the files are read.
    """
    meta = dataset.meta
    sizes = [f.size for f in meta.discovered.files]
    return {
        "file_count": len(dataset.files),
        "rows": dataset.nrows,
        "stripe_count": sum(len(m.stripes) for m in meta.metas),
        "bytes": sum(sizes),
        "type": str(dataset.schema),
        "column_count": len(dataset.columns),
        "partition_columns": dataset.partition_columns,
        "notes": dataset.notes,
        "files": [
            {
                "path": path,
                "rows": meta.metas[i].nrows,
                "stripes": len(meta.metas[i].stripes),
                "size": sizes[i],
                "partition": meta.partition_values(i),
            }
            for i, path in enumerate(dataset.files)
        ],
    }


def dataset_meta_lines(meta: dict[str, Any]) -> list[str]:
    """Render :func:`dataset_meta_data` as text: dataset facts, the notes, then a table of the files."""
    notes = meta["notes"]
    lines = format_fields(
        [
            ("Files", meta["file_count"]),
            ("Rows", meta["rows"]),
            ("Stripes", meta["stripe_count"]),
            ("Size", size(meta["bytes"])),
            ("Type", meta["type"]),
            ("Columns", meta["column_count"]),
            ("Partition columns", ", ".join(meta["partition_columns"]) or "(none)"),
            ("Notes", plural(len(notes), "note") if notes else "(none)"),
        ]
    )
    lines += [f"  {note}" for note in notes]
    names = meta["partition_columns"]
    rows = [[f["path"], f["rows"], f["stripes"], f["size"], *(f["partition"][n] for n in names)] for f in meta["files"]]
    return [*lines, "", "Files:", *format_table(["path", "rows", "stripes", "bytes", *names], rows)]
