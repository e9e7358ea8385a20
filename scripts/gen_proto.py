"""Regenerate orcjit/_proto/orc_proto_pb2.py (and its .pyi) from proto/orcjit/orc_proto.proto.

Run from anywhere: ``python scripts/gen_proto.py``. Needs grpcio-tools (in the ``dev`` extra), which ships protoc.

protoc stamps the module with a check that the protobuf runtime is at least as new as protoc itself. orcjit
strips that check so that the committed module works with every protobuf runtime from 4.21 on: users already have
a protobuf pinned by Spark, TensorFlow or gRPC, and the builder calls the module makes are stable since then.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTO_ROOT = ROOT / "proto"
# the path under proto/ is the file's name in protobuf's global pool: "orcjit/" keeps it from clashing with
# another project's orc_proto.proto imported into the same process
PROTO = PROTO_ROOT / "orcjit" / "orc_proto.proto"
OUT = ROOT / "orcjit" / "_proto"

_VERSION_CHECK = re.compile(
    r"from google\.protobuf import runtime_version as _runtime_version\n"
    r"|_runtime_version\.ValidateProtobufRuntimeVersion\(\n(?:    .*\n)*?\)\n"
)


def generate(out_dir: Path) -> list[Path]:
    """Run protoc on the .proto into ``out_dir`` and return the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        str(PROTO),
    ]
    subprocess.run(cmd, check=True)
    module = out_dir / "orcjit" / "orc_proto_pb2.py"
    text, count = _VERSION_CHECK.subn("", module.read_text())
    if count != 2:
        raise SystemExit(f"expected protoc's runtime version check in {module}; protoc changed its output")
    module.write_text(text)
    return [module, module.with_suffix(".pyi")]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for path in generate(Path(tmp)):
            (OUT / path.name).write_text(path.read_text())
            print(f"wrote {(OUT / path.name).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
