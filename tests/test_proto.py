"""The committed protobuf module must match proto/orcjit/orc_proto.proto."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from google.protobuf import descriptor_pb2

from orcjit._proto import orc_proto_pb2

ROOT = Path(__file__).resolve().parents[1]


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_proto", ROOT / "scripts" / "gen_proto.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_proto"] = module
    spec.loader.exec_module(module)
    return module


def _descriptor_of(module_path: Path) -> descriptor_pb2.FileDescriptorProto:
    # pull the serialized descriptor out of a generated module without importing it (importing would register
    # a second file of the same name in protobuf's global pool)
    text = module_path.read_text()
    start = text.index("AddSerializedFile(") + len("AddSerializedFile(")
    end = text.index(")\n", start)
    proto = descriptor_pb2.FileDescriptorProto()
    proto.ParseFromString(eval(text[start:end]))
    return proto


def test_committed_module_is_not_stale(tmp_path: Path) -> None:
    fresh_module, fresh_stub = _load_generator().generate(tmp_path)
    committed = ROOT / "orcjit" / "_proto" / "orc_proto_pb2.py"
    assert _descriptor_of(fresh_module) == _descriptor_of(committed), (
        "orcjit/_proto/orc_proto_pb2.py is stale: run python scripts/gen_proto.py"
    )
    assert fresh_stub.read_text() == (ROOT / "orcjit" / "_proto" / "orc_proto_pb2.pyi").read_text()


def test_module_has_no_runtime_version_pin() -> None:
    # the committed module must import on any protobuf runtime >= 4.21, so protoc's version check is stripped
    text = (ROOT / "orcjit" / "_proto" / "orc_proto_pb2.py").read_text()
    assert "ValidateProtobufRuntimeVersion" not in text


def test_field_numbers_follow_real_files() -> None:
    # real writers put these where the specification's prose does not: check the numbers we rely on
    ps = orc_proto_pb2.PostScript.DESCRIPTOR.fields_by_name
    assert ps["writerVersion"].number == 6
    assert ps["stripeStatisticsLength"].number == 7
    assert ps["magic"].number == 8000
    footer = orc_proto_pb2.Footer.DESCRIPTOR.fields_by_name
    assert footer["encryption"].number == 10
    assert footer["calendar"].number == 11
    assert footer["softwareVersion"].number == 12
    kinds = orc_proto_pb2.Stream.Kind
    assert kinds.Value("BLOOM_FILTER_UTF8") == 8
    assert kinds.Value("ENCRYPTED_DATA") == 10
    assert orc_proto_pb2.Type.Kind.Value("TIMESTAMP_INSTANT") == 18
