"""Which files a dataset holds: files, directories (listed recursively), globs, or lists of them, local or through
fsspec, found as Spark and pyarrow find them.

Names starting with ``_`` or ``.`` are hidden, files and folders alike (``_SUCCESS``, ``.part-0.crc``,
``_temporary/``, ``.hive-staging...``), below a directory or glob; a file named directly is taken as named. Empty
files are left out with a note (a writer that had no rows, or one still writing). Whether the rest are ORC files
is for the reader to say (:class:`~orcjit.errors.OrcError` naming the file): Hive names its files ``000000_0``, so
no name pattern is assumed unless one is given. Files come in sorted path order, each once.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from dataclasses import dataclass, field
from typing import Any

from ..errors import OrcError

__all__ = ["Discovered", "FoundFile", "discover", "is_dataset_path", "local_path"]


@dataclass(frozen=True)
class FoundFile:
    """One file of a dataset: its path (as its filesystem names it), its size, and the folders between the
    directory it was found under and the file (``"year=2024/month=1"``), where partition values are read."""

    path: str
    size: int
    folders: str = ""


@dataclass
class Discovered:
    """The files found, the notes on what was left out, and the fsspec filesystem they are on (``None``: local)."""

    files: list[FoundFile]
    notes: list[str] = field(default_factory=list)
    filesystem: Any = None

    def url(self, path: str) -> str:
        """``path`` as a user would write it (with its protocol, for remote files)."""
        return path if self.filesystem is None else self.filesystem.unstrip_protocol(path)


def _hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def local_path(path: str) -> str | None:
    """The local path of ``path``, or None for a URL fsspec must handle."""
    if path.startswith("file://"):
        return path[len("file://") :]
    if path.startswith("file:"):
        return path[len("file:") :]
    return None if "://" in path else path


def is_dataset_path(path: Any, filesystem: Any = None) -> bool:
    """Whether ``path`` names several files (a directory, a glob, or a list of paths) rather than one file."""
    if isinstance(path, (list, tuple)):
        return True
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        return False
    if filesystem is None and local_path(path) is not None:
        local = local_path(path) or ""
        return os.path.isdir(local) or (glob.has_magic(local) and not os.path.exists(local))
    if filesystem is None and path.split("://", 1)[0] in ("http", "https"):
        # a web server has no folders to ask about (asking costs a request): only a glob names several files
        return glob.has_magic(path.split("?", 1)[0])
    fs, inner = _filesystem(path, filesystem)
    if fs is None:
        return False
    return (glob.has_magic(inner) and not fs.exists(inner)) or fs.isdir(inner)


def _filesystem(path: str, filesystem: Any) -> tuple[Any, str]:
    """The fsspec filesystem of ``path`` and the path inside it; ``(None, path)`` for a pyarrow filesystem."""
    if filesystem is not None:
        if not hasattr(filesystem, "find"):  # a pyarrow filesystem: one file at a time only
            return None, path
        return filesystem, path
    try:
        import fsspec
    except ImportError as exc:  # pragma: no cover - the fsspec extra is missing
        raise ImportError(f"orcjit: reading {path!r} needs fsspec: pip install 'orcjit[fsspec]'") from exc
    fs, inner = fsspec.core.url_to_fs(path)
    return fs, inner


def discover(paths: Any, filesystem: Any = None, *, pattern: str | None = None) -> Discovered:
    """Find the files of a dataset.

    Parameters
    ----------
    paths : str, os.PathLike, or sequence of them
        Files, directories or glob patterns; local paths, ``file:`` URLs, or URLs fsspec knows (``s3://...``),
        all on one filesystem.
    filesystem : fsspec filesystem, optional
        The filesystem ``paths`` are on.
    pattern : str, optional
        Take only files whose names match (``fnmatch``, as Spark's ``pathGlobFilter``) from directories and globs.

    Raises
    ------
    FileNotFoundError
        If a path does not exist, a glob matches nothing, or no file is found at all.
    OrcError
        If the paths are on different filesystems, or ``filesystem`` is a pyarrow filesystem (which reads one file).
    """
    items = [
        os.fspath(p) if isinstance(p, os.PathLike) else p
        for p in (paths if isinstance(paths, (list, tuple)) else [paths])
    ]
    if not items or not all(isinstance(p, str) for p in items):
        raise OrcError(f"paths must be a path, a URL, or a list of them, got {paths!r}")
    remote = filesystem is not None or any(local_path(p) is None for p in items)
    if remote:
        if filesystem is not None and not hasattr(filesystem, "find"):
            raise OrcError("a pyarrow filesystem reads one file: pass an fsspec filesystem to read a directory or glob")
        systems = {_protocol(p) for p in items} if filesystem is None else set()
        if len(systems) > 1:
            raise OrcError(f"paths are on different filesystems ({', '.join(sorted(systems))}): read them one by one")
        fs = filesystem if filesystem is not None else _filesystem(items[0], None)[0]
        inner = [p if filesystem is not None else _filesystem(p, None)[1] for p in items]
        found = [f for p, given in zip(inner, items, strict=True) for f in _find_remote(fs, p, given, pattern)]
    else:
        fs = None
        found = [f for p in items for f in _find_local(local_path(p) or "", p, pattern)]
    unique = {f.path: f for f in found}
    notes = [f"{_shown(fs, f.path)}: empty file, skipped" for f in unique.values() if f.size == 0]
    files = sorted((f for f in unique.values() if f.size > 0), key=lambda f: f.path)
    if not files:
        shown = ", ".join(repr(p) for p in items)
        what = f"names matching {pattern!r}" if pattern else "not hidden, not empty"
        raise FileNotFoundError(f"orcjit: no files ({what}) found in {shown}")
    return Discovered(files, notes, fs)


def _protocol(path: str) -> str:
    return "file" if local_path(path) is not None else path.split("://", 1)[0]


def _shown(fs: Any, path: str) -> str:
    return path if fs is None else fs.unstrip_protocol(path)


def _base(path: str, sep: str) -> str:
    """The folder a glob's matches are found under: its part before the first component with a wildcard."""
    parts = path.split(sep)
    for i, part in enumerate(parts):
        if glob.has_magic(part):
            return sep.join(parts[:i])
    return sep.join(parts[:-1])


def _folders(base: str, path: str, sep: str) -> str:
    relative = path[len(base) :].strip(sep) if base and path.startswith(base) else ""
    return "/".join(relative.split(sep)[:-1])


def _find_local(path: str, given: str, pattern: str | None) -> list[FoundFile]:
    if glob.has_magic(path) and not os.path.exists(path):
        matches = sorted(glob.glob(path))
        if not matches:
            raise FileNotFoundError(f"orcjit: no path matches {given!r}")
        base = _base(path, os.sep)
        out: list[FoundFile] = []
        for match in matches:
            relative = match[len(base) :].strip(os.sep).split(os.sep) if base else [os.path.basename(match)]
            if any(_hidden(p) for p in relative):
                continue
            if os.path.isdir(match):
                out += _walk_local(match, pattern, base)
            elif pattern is None or fnmatch.fnmatch(os.path.basename(match), pattern):
                out.append(FoundFile(match, os.path.getsize(match), _folders(base, match, os.sep)))
        return out
    if os.path.isdir(path):
        return _walk_local(path, pattern, path)
    if os.path.isfile(path):
        return [FoundFile(path, os.path.getsize(path))]
    raise FileNotFoundError(f"orcjit: path does not exist: {given!r}")


def _walk_local(root: str, pattern: str | None, base: str) -> list[FoundFile]:
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        for name in sorted(files):
            if not _hidden(name) and (pattern is None or fnmatch.fnmatch(name, pattern)):
                path = os.path.join(folder, name)
                out.append(FoundFile(path, os.path.getsize(path), _folders(base, path, os.sep)))
    return out


def _find_remote(fs: Any, path: str, given: str, pattern: str | None) -> list[FoundFile]:
    path = path.rstrip("/") or path
    if glob.has_magic(path) and not fs.exists(path):
        matches = sorted(fs.glob(path, detail=True).items())
        if not matches:
            raise FileNotFoundError(f"orcjit: no path matches {given!r}")
        base = _base(path, "/")
    elif fs.isdir(path):  # before exists(): older fsspec memory filesystems deny their folders exist
        matches, base = [(path, {"type": "directory"})], path
    elif fs.exists(path):
        matches, base = [(path, fs.info(path))], ""
    else:
        raise FileNotFoundError(f"orcjit: path does not exist: {given!r}")
    out: list[FoundFile] = []
    for match, info in matches:
        match = match.rstrip("/")
        if base and any(_hidden(p) for p in match[len(base) :].strip("/").split("/")):
            continue
        if info.get("type") == "directory":
            for found, detail in sorted(fs.find(match, detail=True).items()):
                parts = found[len(match) :].strip("/").split("/")
                if any(_hidden(p) for p in parts) or (pattern is not None and not fnmatch.fnmatch(parts[-1], pattern)):
                    continue
                out.append(FoundFile(found, int(detail.get("size") or 0), _folders(base or match, found, "/")))
        elif not base or pattern is None or fnmatch.fnmatch(match.rsplit("/", 1)[-1], pattern):
            out.append(FoundFile(match, int(info.get("size") or 0), _folders(base, match, "/")))
    return out
