"""The kernels' own tests, run again as plain Python (``NUMBA_DISABLE_JIT=1``), where a read outside a buffer raises.

Compiled kernels do not check indices: a read past a buffer's end returns whatever memory lies there, and a
kernel that forgot a check would pass its tests by luck. As plain Python every such read raises ``IndexError``,
so truncated, corrupt and random inputs that the tests expect to end in a status code (and through
``orcjit.kernels.status.check`` in OrcError) prove that the kernels' own checks caught them.

The kernels run in a subprocess (the variable must be set before Numba is imported) under a small harness that
keeps plain Python faithful to the compiled semantics and strict about indices:

- Numba types an element of a ``uint8`` buffer combined with an integer as ``int64``; NumPy 2 keeps ``uint8``
  (NEP 50), so ``(header & 1) << 8`` is 0 and run lengths come out wrong. The harness passes read-only ``uint8``
  arrays (the stream buffers, which orcjit always hands over read-only) to kernels as ``int64`` copies, which
  type like Numba's.
- NumPy wraps a negative index around silently; the harness's arrays raise ``IndexError`` for any integer index
  outside ``[0, len)``, so a read before a buffer's start is caught too.

Before the tests, two canaries show the harness at work: a kernel whose contract leaves the bounds check to its
caller raises on a read past the end and on a read before the start.

Not run here: tests of compilation itself (dispatchers, cache files, throughput), tests too slow as Python
(false-positive rates, LZO's every truncation and bit flip), and the two that rely on Numba's wrapping store
of a value into an array of another signedness (``test_byte_rle_into_int8``: ``uint8`` bytes into an ``int8``
array; ``test_extremes_and_lengths``: a ``uint64`` low lane into an ``int64`` array).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import weakref
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

MODULES = [
    "tests/test_kernels_present.py",
    "tests/test_kernels_rle_v1.py",
    "tests/test_kernels_rle_v2.py",
    "tests/test_kernels_decimal.py",
    "tests/test_kernels_timestamp.py",
    "tests/test_kernels_row_index.py",
    "tests/test_kernels_bloom.py",
    "tests/test_kernels_split_block.py",
    "tests/test_kernels_utf8.py",
    "tests/test_compression.py",
    "tests/test_lzo.py",
    "tests/test_read_errors.py",
]

# byte-vector (spec and reference vectors), truncation, bounds and random-input tests of the kernels, and every
# whole-file read of test_read_errors (each a corrupt file that must give OrcError)
SELECTED = (
    "truncat or random_bytes or random_inputs or random_garbage or random_and_truncated or error or bad_ or garbage"
    " or hostile or clipped or reject or malformed or spec_ or wrong_lengths or damaged or every_width"
    " or pending_values or exact_limit or cut_short or slice_of_its_input or extremes or vectors or insert_then_check"
    " or utf8 or read_errors"
)
LEFT_OUT = (
    # compilation, not decoding
    "compiled_variant or throughput"
    # minutes as Python
    " or bit_flip or sizing_table or false_positive"
    " or (every_truncation_is_truncated and (uvarint or svarint or rle1u))"
    # Numba's wrapping store into an array of another signedness
    " or byte_rle_into_int8 or test_extremes_and_lengths"
)
EXPRESSION = f"({SELECTED}) and not ({LEFT_OUT})"

# at least this many tests must run (455 when written): a selection that silently shrank proves less
MIN_TESTS = 350
MIN_PER_MODULE = 3


# -- the harness, run in the subprocess -----------------------------------------------------------------------------


def _check_index(shape: tuple[int, ...], key: Any) -> None:
    import numpy as np

    keys = key if isinstance(key, tuple) else (key,)
    for axis, k in enumerate(keys):
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and not 0 <= k < shape[axis]:
            raise IndexError(f"index {k} is out of bounds for axis {axis} with size {shape[axis]}")


def _strict_array_type() -> type:
    import numpy as np

    class Strict(np.ndarray):
        """A view whose integer indices must lie in ``[0, len)`` on each axis."""

        def __getitem__(self, key: Any) -> Any:
            _check_index(self.shape, key)
            return super().__getitem__(key)

        def __setitem__(self, key: Any, value: Any) -> None:
            _check_index(self.shape, key)
            super().__setitem__(key, value)

    return Strict


def install_harness() -> None:
    """Make every orcjit kernel take strict arrays, read-only byte buffers widened to int64 (see the module
    docstring). Must run before orcjit is imported, in a process with ``NUMBA_DISABLE_JIT=1``."""
    import numba
    import numpy as np

    if not numba.config.DISABLE_JIT:
        raise RuntimeError("NUMBA_DISABLE_JIT=1 must be set before Numba is imported")
    strict = _strict_array_type()
    widened: dict[int, tuple[Any, Any]] = {}  # id -> (weak reference, int64 copy): a buffer is widened once

    def prepare(x: Any) -> Any:
        if not isinstance(x, np.ndarray) or isinstance(x, strict):
            return x
        if x.dtype == np.uint8 and not x.flags.writeable:
            hit = widened.get(id(x))
            if hit is not None and hit[0]() is x:
                return hit[1]
            copy = x.astype(np.int64).view(strict)
            copy.flags.writeable = False
            if len(widened) > 256:
                widened.clear()
            widened[id(x)] = (weakref.ref(x), copy)
            return copy
        return x.view(strict)  # shares memory: writes reach the caller's array

    original = numba.njit

    def njit(*args: Any, **kwargs: Any) -> Any:
        decorate = original(*args, **kwargs)

        def wrap(fn: Any) -> Any:
            plain = decorate(fn)  # fn itself when the JIT is disabled
            if not getattr(fn, "__module__", "").startswith("orcjit."):
                return plain

            @functools.wraps(plain)
            def kernel(*a: Any, **kw: Any) -> Any:
                return plain(*[prepare(v) for v in a], **{k: prepare(v) for k, v in kw.items()})

            return kernel

        return wrap

    numba.njit = njit


def canaries() -> None:
    """Reads a compiled kernel would make outside its buffer raise here; prints what it saw."""
    import numpy as np

    from orcjit.kernels import bitpack, utf8

    assert not hasattr(bitpack.load_be64, "signatures"), "kernels are still Numba dispatchers"
    buf = np.frombuffer(bytes(range(16)), dtype=np.uint8)
    assert bitpack.load_be64(buf, np.uint64(8)) == 0x08090A0B0C0D0E0F
    for name, call in (
        # load_be64 leaves "j + 8 <= end" to its caller: 4 bytes past the end
        ("past the end", lambda: bitpack.load_be64(buf, np.uint64(12))),
        # valid_utf8 trusts its caller's start and stop: a negative start reads before the start
        ("before the start", lambda: utf8.valid_utf8(buf, -8, 0)),
    ):
        try:
            call()
        except IndexError:
            print(f"canary {name}: IndexError")
        else:
            raise AssertionError(f"canary {name}: the read outside the buffer did not raise")


def main(args: list[str]) -> int:
    install_harness()
    canaries()
    import pytest

    return int(pytest.main(args))


# -- the test ------------------------------------------------------------------------------------------------------


def test_kernels_as_plain_python(tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    args = [
        "-q",
        "-p",
        "no:cacheprovider",
        # the kernels' int64 arithmetic wraps on purpose (as Java's longs do); NumPy scalars warn when it does
        "-W",
        "ignore::RuntimeWarning",
        f"--junitxml={report}",
        "-k",
        EXPRESSION,
        *MODULES,
    ]
    code = f"import sys; from tests.test_pure_python_kernels import main; sys.exit(main({args!r}))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    output = proc.stdout[-6000:] + proc.stderr[-3000:]
    assert proc.returncode == 0, output
    assert "canary past the end: IndexError" in proc.stdout, output
    assert "canary before the start: IndexError" in proc.stdout, output

    outcomes: Counter[str] = Counter()
    per_module: Counter[str] = Counter()
    for case in ET.parse(report).iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[kinds[0] if kinds else "passed"] += 1
        per_module[case.get("classname", "")] += 1
    assert outcomes["failure"] == outcomes["error"] == 0, output
    assert outcomes["skipped"] == 0, output  # a skip would hide a kernel that did not run
    assert outcomes["passed"] >= MIN_TESTS, (outcomes, output)
    for module in MODULES:
        name = module.removesuffix(".py").replace("/", ".")
        assert per_module[name] >= MIN_PER_MODULE, (name, per_module)
