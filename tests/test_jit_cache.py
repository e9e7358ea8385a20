"""Where kernels are cached, and that a read compiles (or loads) only the kernels it needs.

Each test runs orcjit in fresh Python processes, since Numba's choices (where to cache, what is compiled) are made
once per process. A process reports, as JSON, the Numba compile events of orcjit's kernels, the cache hits, the
directories the kernels cache in and the kernels that hold compiled code.

The read-only package: a copy of ``orcjit/`` in a temporary directory, imported through ``PYTHONPATH``, made
unwritable. ``chmod`` does that for a normal user; root ignores permissions, so as root the process runs in its
own mount namespace (``unshare -m``) with the copy bind-mounted read-only, where writes fail with EROFS even for
root. Either way the process first checks that it really cannot write into the package.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as pa_orc
import pytest

import orcjit
from orcjit import _jit

PACKAGE = Path(orcjit.__file__).resolve().parent

# Run in the child: arguments are the directory holding the orcjit to import and the file to read ("-" for none).
PROBE = r"""
import json, os, sys, warnings
from numba.core import event

compiled = []

class Listener(event.Listener):
    def on_start(self, e):
        pass

    def on_end(self, e):
        module = e.data["dispatcher"].py_func.__module__
        if module.startswith("orcjit"):
            compiled.append(module + "." + e.data["dispatcher"].py_func.__qualname__)

event.register("numba:compile", Listener())
root, path = sys.argv[1], sys.argv[2]
try:
    with open(os.path.join(root, "orcjit", "probe.tmp"), "w"):
        pass
    os.remove(os.path.join(root, "orcjit", "probe.tmp"))
    package_writable = True
except OSError:
    package_writable = False
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import orcjit
from orcjit._jit import registered_kernels
from orcjit.warmup import kernel_cache_dirs

def used():
    return sorted(
        d.py_func.__module__ + "." + d.py_func.__qualname__ for d in registered_kernels() if d.signatures
    )

after_import = {"compiled": len(compiled), "used": used()}
rows = len(orcjit.read_orc(path)) if path != "-" else 0
print(json.dumps({
    "file": orcjit.__file__,
    "package_writable": package_writable,
    "warnings": [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)],
    "after_import": after_import,
    "compiled": compiled,
    "cache_hits": sum(sum(d._cache_hits.values()) for d in registered_kernels()),
    "used": used(),
    "cache_dirs": kernel_cache_dirs(),
    "rows": rows,
}))
"""


def _clean_env(cwd: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.pop("PYTHONPATH", None)
    env.update(extra, PROBE_CWD=str(cwd))
    return env


def _probe(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    # run outside the repository: python -c puts the working directory first on sys.path
    cwd = env["PROBE_CWD"]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _bool_file(path: Path) -> Path:
    # booleans only: the cheapest read that still compiles a kernel (boolean RLE)
    pa_orc.write_table(pa.table({"flag": [True, False, False, True, True] * 200}), str(path))
    return path


def _package_copy(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(PACKAGE, root / "orcjit", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _listing(root: Path) -> list[tuple[str, int, float]]:
    # files with their sizes and times; folders by name (the probe's write test touches the package's mtime)
    return sorted(
        (str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime) if p.is_file() else (str(p), 0, 0.0)
        for p in root.rglob("*")
    )


def _can_unshare() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.run(
            ["unshare", "-m", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0"', d],
            capture_output=True,
            check=False,
        )
    return proc.returncode == 0


def _read_only_command(root: Path, args: list[str]) -> list[str]:
    """The command running ``python -c PROBE root args`` with ``root`` unwritable."""
    command = [sys.executable, "-c", PROBE, str(root), *args]
    if os.name != "posix":
        pytest.skip("read-only package directories are simulated with POSIX permissions or mounts")
    if os.geteuid() != 0:
        for p in [root, *root.rglob("*")]:
            p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        return command
    if not _can_unshare():
        pytest.skip("running as root without unshare -m: cannot make a directory read-only for this process")
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return ["unshare", "-m", "sh", "-c", script, str(root), *command]


def _make_writable(root: Path) -> None:
    for p in [root, *root.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


@pytest.fixture
def read_only_package(tmp_path: Path):  # type: ignore[no-untyped-def]
    root = _package_copy(tmp_path)
    yield root
    _make_writable(root)  # so that pytest can delete it


def _check_user_cache(root: Path, tmp_path: Path, command: list[str], *, writable: bool) -> None:
    data = _bool_file(tmp_path / "flags.orc")
    before = _listing(root)
    cache = tmp_path / "xdg-cache"
    env = _clean_env(
        tmp_path,
        PYTHONPATH=str(root),
        XDG_CACHE_HOME=str(cache),
        HOME=str(tmp_path / "home"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    first = _probe([*command, str(data)], env)
    second = _probe([*command, str(data)], env)

    for run in (first, second):
        assert run["file"].startswith(str(root))
        assert run["package_writable"] is writable
        assert run["rows"] == 1000
        assert run["warnings"] == []
        assert run["cache_dirs"] and all(d.startswith(str(cache / "orcjit")) for d in run["cache_dirs"])
    assert first["compiled"], "the first process compiles"
    assert second["compiled"] == [], "the second process loads every kernel from the cache"
    assert second["cache_hits"] >= 1
    assert list(cache.rglob("*.nbi")) and list(cache.rglob("*.nbc"))
    assert _listing(root) == before, "nothing was written into the package"


def test_installed_package_caches_in_the_user_cache_dir_not_beside_its_modules(tmp_path: Path) -> None:
    """A writable install (site-packages of a virtual environment): kernels cache under
    $XDG_CACHE_HOME/orcjit, never in ``__pycache__`` beside the modules, where ``pip uninstall`` would leave them
    behind as a folder that later shadows an editable install."""
    root = _package_copy(tmp_path)
    _check_user_cache(root, tmp_path, [sys.executable, "-c", PROBE, str(root)], writable=True)
    assert not list(root.rglob("*.nb[ic]"))


def test_read_only_package_caches_in_the_user_cache_dir(read_only_package: Path, tmp_path: Path) -> None:
    """A package nobody may write into caches the same way, and a second process loads from there."""
    _check_user_cache(read_only_package, tmp_path, _read_only_command(read_only_package, []), writable=False)


def test_no_writable_cache_dir_falls_back_to_a_private_temp_dir(read_only_package: Path, tmp_path: Path) -> None:
    """Neither the package nor the home directory writable (a read-only container): Numba alone would refuse to
    create the kernels and ``import orcjit`` would fail; orcjit caches in $TMPDIR/orcjit-numba-<uid> instead."""
    data = _bool_file(tmp_path / "flags.orc")
    blocker = tmp_path / "not-a-directory"
    blocker.write_bytes(b"")  # nothing can be created below a regular file, whoever asks
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = _clean_env(
        tmp_path,
        PYTHONPATH=str(read_only_package),
        XDG_CACHE_HOME=str(blocker / "cache"),
        HOME=str(blocker / "home"),
        TMPDIR=str(temp),
    )
    command = _read_only_command(read_only_package, [str(data)])
    first = _probe(command, env)
    second = _probe(command, env)

    private = temp / f"orcjit-numba-{os.getuid()}"
    for run in (first, second):
        assert not run["package_writable"]
        assert run["rows"] == 1000
        assert run["warnings"] == []
        assert run["cache_dirs"] and all(d.startswith(str(private)) for d in run["cache_dirs"])
    assert stat.S_IMODE(private.stat().st_mode) == 0o700
    assert first["compiled"]
    assert second["compiled"] == []
    assert second["cache_hits"] >= 1


def test_nowhere_to_cache_compiles_without_a_cache_and_warns(read_only_package: Path, tmp_path: Path) -> None:
    """Not even the temporary directory is usable: kernels compile uncached, with one warning, and reads work."""
    data = _bool_file(tmp_path / "flags.orc")
    blocker = tmp_path / "not-a-directory"
    blocker.write_bytes(b"")
    env = _clean_env(
        tmp_path, PYTHONPATH=str(read_only_package), XDG_CACHE_HOME=str(blocker / "cache"), HOME=str(blocker / "home")
    )
    # the last resort of tempfile.gettempdir() is the working directory: pin it below the blocker instead
    probe = f"import tempfile; tempfile.tempdir = {str(blocker / 'tmp')!r}\n" + PROBE
    command = _read_only_command(read_only_package, [str(data)])
    command[command.index(PROBE)] = probe
    run = _probe(command, env)

    assert run["rows"] == 1000
    assert run["cache_dirs"] == []
    assert len(run["warnings"]) == 1 and "NUMBA_CACHE_DIR" in run["warnings"][0]
    assert run["compiled"]


def test_fallback_dir_refuses_a_directory_others_can_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(os, "getuid"):
        pytest.skip("POSIX ownership")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = tmp_path / f"orcjit-numba-{os.getuid()}"
    assert _jit.fallback_cache_dir() == str(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    path.chmod(0o777)  # cache files are pickles that get run: a directory others may write is not trusted
    assert _jit.fallback_cache_dir() is None
    path.rmdir()
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    path.symlink_to(tmp_path / "elsewhere")
    assert _jit.fallback_cache_dir() is None


# -- what is compiled ----------------------------------------------------------------------------------------------

# Kernels an integer column without nulls cannot need: every other type, nulls, seeks, filters, other codecs.
NOT_FOR_INTEGERS = (
    "orcjit.kernels.bloom",
    "orcjit.kernels.boolean_rle",
    "orcjit.kernels.byte_rle",
    "orcjit.kernels.decimal",
    "orcjit.kernels.present",
    "orcjit.kernels.protobuf",
    "orcjit.kernels.rle_v1",
    "orcjit.kernels.row_index",
    "orcjit.kernels.split_block",
    "orcjit.kernels.strings",
    "orcjit.kernels.timestamp",
    "orcjit.compression.lzo",
    "orcjit.kernels.convert.distinct_strings",
)


def test_import_compiles_nothing_and_an_integer_read_only_integer_kernels(tmp_path: Path) -> None:
    path = tmp_path / "ints.orc"
    table = pa.table({"a": pa.array(range(6000), pa.int64()), "b": pa.array([7, -3, 1 << 40] * 2000, pa.int64())})
    pa_orc.write_table(table, str(path), compression="zstd")
    env = _clean_env(tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(PACKAGE.parent))
    cold = _probe([sys.executable, "-c", PROBE, str(PACKAGE.parent), str(path)], env)
    warm = _probe([sys.executable, "-c", PROBE, str(PACKAGE.parent), str(path)], env)

    for run in (cold, warm):
        assert run["after_import"] == {"compiled": 0, "used": []}, "import orcjit compiles and loads nothing"
        assert run["rows"] == 6000
        assert run["used"], "the read used kernels"
        wrong = [k for k in run["used"] if k.startswith(NOT_FOR_INTEGERS)]
        assert wrong == [], f"an integer read compiled or loaded {wrong}"
    assert all(not k.startswith(NOT_FOR_INTEGERS) for k in cold["compiled"])
    assert warm["compiled"] == [] and warm["cache_hits"] >= 1


def test_every_kernel_is_registered() -> None:
    """Warmup counts and finds caches through ``_jit.registered_kernels()``: every Numba dispatcher of orcjit's
    modules must be there (made by ``jit``, not ``numba.njit``), and nothing else."""
    import importlib
    import pkgutil

    from numba.core.dispatcher import Dispatcher

    for info in pkgutil.walk_packages(orcjit.__path__, "orcjit."):
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
    found = {
        id(value): value
        for name, module in list(sys.modules.items())
        if name == "orcjit" or name.startswith("orcjit.")
        for value in list(vars(module).values())
        if isinstance(value, Dispatcher)
    }
    registered = {id(k): k for k in _jit.registered_kernels()}
    assert found, "orcjit has kernels"
    unregistered = [f"{d.py_func.__module__}.{d.py_func.__qualname__}" for i, d in found.items() if i not in registered]
    assert unregistered == []
    assert all(k.py_func.__module__.startswith("orcjit.") for k in registered.values())
    assert len(registered) == len(_jit.registered_kernels()), "each kernel once"


def test_kernels_are_compiled_without_a_cfunc_wrapper() -> None:
    """Numba's C-callable wrapper serves first-class function values, which orcjit never makes of its kernels, and
    costs compile time in a new environment: every kernel is made without it, and a compiled one holds none."""
    import numba
    import numpy as np

    from orcjit.kernels.present import count_present

    assert all(k.targetoptions.get("no_cfunc_wrapper") for k in _jit.registered_kernels())
    # compiled here with the kernels' options but no cache, so that the code is this process's, not loaded
    kernel = numba.njit(**{**_jit.JIT_OPTIONS, "cache": False})(count_present.py_func)
    assert kernel(np.array([True, False, True]), 0, 3) == 2
    (compiled,) = kernel.overloads.values()
    code = compiled.library.get_llvm_str()
    assert compiled.fndesc.llvm_cpython_wrapper_name in code
    assert compiled.fndesc.llvm_cfunc_wrapper_name not in code
