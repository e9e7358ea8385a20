"""Which files a Spark read takes: paths, directories and globs, local or through fsspec, resolved as Spark
resolves them (hidden files and folders, starting with ``_`` or ``.``, left out)."""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Sequence

__all__ = ["DEFAULT_GLOB", "resolve_paths"]

DEFAULT_GLOB = "*.orc"


def _hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def _local(path: str) -> str | None:
    """The local path of ``path``, or None for a URL fsspec must handle."""
    if path.startswith("file://"):
        return path[len("file://") :]
    if path.startswith("file:"):
        return path[len("file:") :]
    return None if "://" in path else path


def _list_local(root: str, pattern: str) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        found += [os.path.join(folder, f) for f in sorted(files) if not _hidden(f) and fnmatch.fnmatch(f, pattern)]
    return found


def _resolve_local(path: str, pattern: str) -> list[str]:
    if glob.has_magic(path):
        matches = sorted(glob.glob(path))
        if not matches:
            raise FileNotFoundError(f"orcjit: no path matches {path!r}")
        out: list[str] = []
        for match in matches:
            if os.path.isdir(match):
                out += _list_local(match, pattern)
            elif not _hidden(os.path.basename(match)):
                out.append(match)
        return out
    if os.path.isdir(path):
        return _list_local(path, pattern)
    if os.path.isfile(path):
        return [path]
    raise FileNotFoundError(f"orcjit: path does not exist: {path!r}")


def _resolve_url(url: str, pattern: str) -> list[str]:
    import fsspec

    fs, path = fsspec.core.url_to_fs(url)
    if glob.has_magic(path):
        matches = sorted(fs.glob(path))
        if not matches:
            raise FileNotFoundError(f"orcjit: no path matches {url!r}")
    elif fs.exists(path):
        matches = [path]
    else:
        raise FileNotFoundError(f"orcjit: path does not exist: {url!r}")
    out = []
    for match in matches:
        if fs.isdir(match):
            for found in sorted(fs.find(match)):
                parts = found[len(match) :].strip("/").split("/")
                if not any(_hidden(p) for p in parts) and fnmatch.fnmatch(parts[-1], pattern):
                    out.append(fs.unstrip_protocol(found))
        elif not _hidden(match.rstrip("/").rsplit("/", 1)[-1]):
            out.append(fs.unstrip_protocol(match))
    return out


def resolve_paths(paths: Sequence[str], pattern: str = DEFAULT_GLOB) -> list[str]:
    """The files to read for ``paths``: files as given, directories listed recursively, globs expanded.

    Parameters
    ----------
    paths : sequence of str
        Files, directories or glob patterns; local paths, ``file:`` URLs or URLs fsspec knows.
    pattern : str
        Names of the files taken from directories (``fnmatch``); names starting with ``_`` or ``.`` are skipped,
        and so are such directories.

    Returns
    -------
    list of str
        Without duplicates, in the order found (each directory and glob sorted).

    Raises
    ------
    FileNotFoundError
        If a path does not exist, a glob matches nothing, or no file is found at all.
    """
    out: list[str] = []
    for path in paths:
        local = _local(str(path))
        found = _resolve_local(local, pattern) if local is not None else _resolve_url(str(path), pattern)
        out += [f for f in found if f not in out]
    if not out:
        shown = ", ".join(repr(str(p)) for p in paths)
        raise FileNotFoundError(f"orcjit: no ORC files (names matching {pattern!r}) found in {shown}")
    return out


# -- options ---------------------------------------------------------------------------------------------------------
