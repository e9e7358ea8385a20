"""ORC column encryption: files with encrypted columns give a clear OrcError, or leave the columns out
(``encrypted="skip"``), or return their masked copy (``encrypted="masked"``), while the other columns read as usual.

The real file comes from ORC Java inside Spark. ORC Java asks a Hadoop key management server (KMS) for each
file's local keys, so the test serves the few KMS REST calls it makes (key metadata, and "decrypt" of the random
local key it drew, answered with a key derived from it) from a server on 127.0.0.1. Knowing those keys, the test
decrypts the encrypted streams at the offsets orcjit lays them out at (AES/CTR in the JVM) and finds the real
values there. Smaller files that pyorc writes, with encryption metadata and random "encrypted" bytes spliced in
by ``split_file`` / ``join_file``, cover nesting and corrupt encryption sections.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pandas as pd
import pyarrow.orc as po
import pytest

import orcjit
from orcjit import OrcError, ORCFile
from tests.factory import write_pyorc
from tests.test_read_errors import SCHEMA, StreamPart, join_file, rows, split_file

ENCRYPTED_DATA = 10
ROWS = 3000
KEYS = ("pii", "credit")
SECRET = b"orcjit test master key"


def local_key(encrypted_key: bytes) -> bytes:
    """The local key the test KMS hands out for an encrypted local key (any function of it would do)."""
    return hashlib.sha256(SECRET + encrypted_key).digest()[: len(encrypted_key)]


class KmsHandler(BaseHTTPRequestHandler):
    """The Hadoop KMS REST calls ORC Java's writer and reader make: key metadata, and decrypting a local key."""

    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, body: Any, status: int = 200) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self) -> None:
        # Hadoop's client first probes for Kerberos; a plain answer makes it fall back to simple auth
        self._reply({})

    def do_GET(self) -> None:
        parts = urlparse(self.path).path.split("/")
        if parts[-1] == "names":
            self._reply(list(KEYS))
        elif parts[-1] == "_metadata" and parts[-2] in KEYS:
            # "created" must not fit an int: Hadoop's client casts it to a Long
            self._reply(
                {
                    "name": parts[-2],
                    "cipher": "AES/CTR/NoPadding",
                    "length": 128,
                    "description": None,
                    "attributes": {},
                    "created": 1_700_000_000_000,
                    "versions": 1,
                }
            )
        else:
            self._reply({}, 404)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        material = local_key(base64.b64decode(body["material"]))
        self._reply({"name": body["name"], "versionName": "EK", "material": base64.b64encode(material).decode()})


@pytest.fixture(scope="module")
def kms() -> Iterator[str]:
    """A key provider path for Hadoop: the test KMS on a free loopback port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), KmsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"kms://http@127.0.0.1:{server.server_address[1]}/kms"
    server.shutdown()
    server.server_close()


def people(n: int = ROWS) -> list[tuple[Any, ...]]:
    return [
        (
            i,
            f"name{i}",
            f"{i:09d}" if i % 3 else None,
            f"u{i}@x.org",
            (f"city{i % 7}", i % 100) if i % 5 else None,
            i * 1.5,
            12345 + i,
        )
        for i in range(n)
    ]


PEOPLE_SCHEMA = (
    "id long, name string, ssn string, email string, address struct<city:string,zip:int>, x double, salary int"
)


def forget_key_providers(spark: Any) -> None:
    """Empty ORC Java's cache of key providers: it keeps one per kind for the JVM's life, so a provider made by an
    earlier test in the session (a NullKeyProvider, without the test KMS) would answer for ours."""
    cache = spark._jvm.java.lang.Class.forName("org.apache.orc.impl.CryptoUtils").getDeclaredField("keyProviderCache")
    cache.setAccessible(True)
    cache.get(None).clear()


@pytest.fixture(scope="module")
def spark_file(spark: Any, kms: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ORC Java's file (zstd, three stripes, row index every 1,000 rows) with ``ssn`` and ``email`` encrypted
    under key ``pii`` and the nested ``address.zip`` and ``salary`` under ``credit``; masks nullify ``ssn`` and
    ``address.zip``, hash ``email`` with SHA-256 and redact ``salary``."""
    out = tmp_path_factory.mktemp("encrypted") / "people"
    forget_key_providers(spark)
    (
        spark.createDataFrame(people(), PEOPLE_SCHEMA)
        .coalesce(1)
        .write.option("hadoop.security.key.provider.path", kms)
        .option("orc.key.provider", "hadoop")
        .option("orc.encrypt", "pii:ssn,email;credit:address.zip,salary")
        .option("orc.mask", "nullify:ssn;sha256:email;redact:salary")
        .option("orc.stripe.size", "4096")
        .option("orc.row.index.stride", "1000")
        .orc(str(out))
    )
    (path,) = out.glob("*.orc")
    return path


def test_spark_file_is_encrypted(spark_file: Path) -> None:
    with ORCFile(spark_file) as f:
        assert f.writer == "ORC_JAVA" and f.nstripes == 3 and f.compression == "ZSTD"
        assert f.encryption is not None and f.encryption.key_provider == "HADOOP"
        listed = {(c.path, c.column_id, c.key, c.algorithm, c.mask) for c in f.encrypted_columns}
        assert listed == {
            ("ssn", 3, "pii", "AES_CTR_128", "nullify"),
            ("email", 4, "pii", "AES_CTR_128", "sha256"),
            ("address.zip", 7, "credit", "AES_CTR_128", "nullify"),
            ("salary", 9, "credit", "AES_CTR_128", "redact"),
        }
        footer = f.stripe_footer(0)
        assert sorted(s.kind_name for s in footer.streams if s.kind >= 9) == ["ENCRYPTED_DATA", "ENCRYPTED_INDEX"]
        assert len(footer.encrypted_streams) == 4


def jvm_decrypt(spark: Any, key: bytes, iv: bytes, data: bytes) -> bytes:
    """AES/CTR decryption by the JVM's own cipher (no Python crypto package needed)."""
    jvm = spark._jvm
    cipher = jvm.javax.crypto.Cipher.getInstance("AES/CTR/NoPadding")
    spec = jvm.javax.crypto.spec
    cipher.init(2, spec.SecretKeySpec(bytearray(key), "AES"), spec.IvParameterSpec(bytearray(iv)))  # 2: decrypt
    return bytes(cipher.doFinal(bytearray(data)))


def test_encrypted_streams_hold_the_real_values(spark: Any, spark_file: Path) -> None:
    """Where orcjit lays out the encrypted streams, the keys the KMS gave decrypt the real ``email`` values: the
    layout (and so every bound check on it) matches ORC Java's."""
    data = spark_file.read_bytes()
    with ORCFile(spark_file) as f:
        (email,) = [c for c in f.encrypted_columns if c.path == "email"]
        first = f.meta.tail.footer.stripes[0]
        assert first.encryptStripeId == 1  # later stripes count on from the first
        key = local_key(bytes(first.encryptedLocalKeys[email.variant]))
        for stripe in f.stripes:
            streams = f.stripe_footer(stripe.index).encrypted_streams[email.variant]
            (s,) = [s for s in streams if s.kind_name == "DATA"]
            iv = s.column.to_bytes(3, "big") + s.kind.to_bytes(2, "big") + (stripe.index + 1).to_bytes(3, "big")
            plain = jvm_decrypt(spark, key, iv + bytes(8), data[s.offset : s.offset + s.length])
            values = bytes(f.meta.tail.decompress(plain, "decrypted email DATA"))
            rows = range(stripe.first_row, stripe.first_row + stripe.rows)
            assert values == "".join(f"u{i}@x.org" for i in rows).encode()


ENTRY_POINTS = {
    "read_orc": lambda f, path, **kw: orcjit.read_orc(path, **kw),
    "read": lambda f, path, **kw: f.read(**kw),
    "read_stripe": lambda f, path, **kw: f.read_stripe(-1, **kw),
    "iter_stripes": lambda f, path, **kw: list(f.iter_stripes(**kw)),
    "read_rows": lambda f, path, **kw: f.read_rows(10, 2500, **{k: v for k, v in kw.items() if k != "filters"}),
    "read_arrow": lambda f, path, **kw: f.read_arrow(**kw),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_reading_an_encrypted_column_raises(spark_file: Path, entry: str) -> None:
    call = ENTRY_POINTS[entry]
    with ORCFile(spark_file) as f:
        with pytest.raises(OrcError) as info:
            call(f, spark_file)
        message = str(info.value)
        for words in ("'ssn' (key 'pii', mask nullify)", "'email' (key 'pii', mask sha256)", "'address.zip'"):
            assert words in message
        assert "key 'credit', mask redact" in message
        assert "encrypted='skip'" in message and "encrypted='masked'" in message
        # only the encrypted columns a read needs are named
        with pytest.raises(OrcError, match=r"column is encrypted: 'ssn' \(key 'pii'") as info:
            call(f, spark_file, columns=["id", "ssn"])
        assert "email" not in str(info.value)
        # a filter on an encrypted column needs it too
        if entry != "read_rows":
            with pytest.raises(OrcError, match="'salary'"):
                call(f, spark_file, columns=["id"], filters=[("salary", ">", 5)])


def test_unencrypted_columns_read_as_usual(spark: Any, spark_file: Path) -> None:
    columns = ["id", "name", "address.city", "x"]
    got = orcjit.read_orc(spark_file, columns=columns)
    expected = pd.DataFrame(
        {
            "id": [r[0] for r in people()],
            "name": pd.array([r[1] for r in people()], dtype="str"),
            "address": [None if r[4] is None else {"city": r[4][0]} for r in people()],
            "x": [r[5] for r in people()],
        }
    )
    pd.testing.assert_frame_equal(got, expected)
    pd.testing.assert_frame_equal(got, po.read_table(spark_file, columns=columns).to_pandas(), check_dtype=False)
    # filters on unencrypted columns prune by statistics as usual
    filters = [("id", ">=", 2500)]
    with ORCFile(spark_file) as f:
        assert [d.keep for d in f.explain(filters, columns).stripes] == [False, False, True]
        filtered = f.read(columns, filters=filters)
    pd.testing.assert_frame_equal(filtered, expected[expected.id >= 2500].reset_index(drop=True))


def test_skip_leaves_the_encrypted_columns_out(spark_file: Path) -> None:
    with ORCFile(spark_file) as f:
        masked = f.read(encrypted="masked")
        got = f.read(encrypted="skip")
        # the whole of ssn, email and salary; the nested zip, leaving address with its city
        assert list(got.columns) == ["id", "name", "address", "x"]
        expected = masked[["id", "name", "address", "x"]].copy()
        expected["address"] = [None if a is None else {"city": a["city"]} for a in expected["address"]]
        pd.testing.assert_frame_equal(got, expected)
        # named encrypted columns are left out too, so one column list serves files with and without encryption
        pd.testing.assert_frame_equal(f.read(["id", "ssn"], encrypted="skip"), masked[["id"]])
        assert list(f.read(["ssn", "salary"], encrypted="skip").columns) == []
        assert len(f.read(["ssn", "salary"], encrypted="skip")) == ROWS
        # a nested field chosen alone goes with its struct
        assert list(f.read(["id", "address.zip"], encrypted="skip").columns) == ["id"]
        # every entry point, filters on unencrypted columns included
        filters = [("id", "<", 100)]
        for entry, call in ENTRY_POINTS.items():
            result = call(f, spark_file, encrypted="skip", filters=filters)
            frame = result.to_pandas() if entry == "read_arrow" else result
            frame = pd.concat(frame) if entry == "iter_stripes" else frame
            assert list(frame.columns) == ["id", "name", "address", "x"], entry


@pytest.mark.parametrize("entry", ["read_orc", "read", "read_stripe", "iter_stripes", "read_arrow"])
def test_skip_with_a_filter_on_an_encrypted_column_raises(spark_file: Path, entry: str) -> None:
    leaves_out = r"filter on column 'address.zip', which encrypted='skip' leaves out"
    with ORCFile(spark_file) as f, pytest.raises(OrcError, match=leaves_out):
        ENTRY_POINTS[entry](f, spark_file, encrypted="skip", columns=["id"], filters=[("address.zip", "==", 3)])


def test_masked_is_what_readers_without_the_key_return(spark: Any, kms: str, spark_file: Path) -> None:
    got = orcjit.read_orc(spark_file, encrypted="masked")
    # ORC C++ (pyarrow) holds no keys
    pd.testing.assert_frame_equal(got, po.read_table(spark_file).to_pandas(), check_dtype=False)
    assert got.ssn.isna().all() and got.address.map(lambda a: a is None or a["zip"] is None).all()
    assert (got.salary == 99999).all()
    assert list(got.email[:2]) == [hashlib.sha256(f"u{i}@x.org".encode()).hexdigest().upper() for i in range(2)]
    # ORC Java with a key provider that lacks the keys ("memory": an empty in-process key store)
    reader = spark.read.option("orc.key.provider", "memory")
    java = reader.orc(str(spark_file)).selectExpr("id", "ssn", "email", "address.zip as zip", "salary")
    java = java.orderBy("id").toPandas()
    assert java.ssn.isna().all() and java.zip.isna().all()
    assert list(java.email) == list(got.email) and list(java.salary) == list(got.salary)
    # and ORC Java with the key reads the real values, so the masked ones really stand in for them
    forget_key_providers(spark)
    real = spark.read.option("hadoop.security.key.provider.path", kms).option("orc.key.provider", "hadoop")
    real = real.orc(str(spark_file)).select("id", "ssn", "salary").orderBy("id").toPandas()
    assert list(real.salary) == [r[6] for r in people()]
    assert list(real.ssn.fillna("-")) == [r[2] or "-" for r in people()]


def test_masked_filters_test_the_masked_values(spark_file: Path) -> None:
    with ORCFile(spark_file) as f:
        full = f.read(encrypted="masked")
        for filters, expected in [
            ([("salary", "==", 99999), ("id", "<", 10)], full[full.id < 10]),
            ([("salary", "==", 12345)], full.iloc[:0]),
            ([("ssn", "is null"), ("email", "in", list(full.email[5:8]))], full.iloc[5:8]),
            ([[("salary", "<", 0)], [("id", ">", 2990)]], full[full.id > 2990]),
        ]:
            got = f.read(filters=filters, encrypted="masked")
            pd.testing.assert_frame_equal(got, expected.reset_index(drop=True))
        # the statistics of salary (99999 everywhere, the masked copy's) would rule every stripe out; encrypted
        # columns' statistics are not trusted, so nothing is skipped by them and the rows decide
        assert f.stripe_statistics(0)[9].minimum == f.stripe_statistics(0)[9].maximum == 99999
        assert all(d.keep for d in f.explain([("salary", "==", 12345)]).stripes)
        # a conjunction with an unencrypted test still prunes by that test
        kept = [d.keep for d in f.explain([("salary", "==", 12345), ("id", ">=", 2500)]).stripes]
        assert kept == [False, False, True]
        # reads entered by row group give the same rows
        pd.testing.assert_frame_equal(
            f.read_rows(1500, 1600, encrypted="masked"), full.iloc[1500:1600], check_index_type=False
        )


# -- files built around pyorc's ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """An uncompressed pyorc file: struct<i:int,s:string,n:bigint,l:array<int>,t:timestamp,f:double>."""
    path = tmp_path_factory.mktemp("plain") / "plain.orc"
    return write_pyorc(path, SCHEMA, rows(), compression="none").read_bytes()


def encrypt(data: bytes, roots: dict[int, str], *, algorithm: int = 1, seed: int = 5) -> tuple[bytes, Any]:
    """``data`` with the columns ``roots`` (column id to mask name) declared encrypted under key ``pii``: footer
    and stripe footer encryption sections, and an ``ENCRYPTED_DATA`` area of random bytes per stripe holding
    one DATA stream per variant. The ordinary streams stay as they were and play the masked copy."""
    rng = random.Random(seed)
    parts = split_file(data)
    encryption = parts.footer.encryption
    encryption.keyProvider = 1
    encryption.key.add(keyName="pii", keyVersion=1, algorithm=algorithm)
    for root, mask in roots.items():
        encryption.variants.add(root=root, key=0, encryptedKey=rng.randbytes(16))
        encryption.mask.add(name=mask, columns=[root])
    for stripe in parts.stripes:
        sizes = [rng.randint(1, 64) for _ in roots]
        for root, size in zip(roots, sizes, strict=True):
            stripe.footer.encryption.add().streams.add(kind=1, column=root, length=size)
        stripe.streams.append(StreamPart(ENCRYPTED_DATA, 0, rng.randbytes(sum(sizes))))
    return join_file(parts), parts


def write(tmp_path: Path, data: bytes, name: str = "encrypted.orc") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_plain_files_encrypt_nothing(plain: bytes) -> None:
    with ORCFile(plain) as f:
        assert f.encryption is None and f.encrypted_columns == []
        assert f.stripe_footer(0).encrypted_streams == []
        pd.testing.assert_frame_equal(f.read(encrypted="skip"), f.read())


@pytest.mark.parametrize("value", ["Raise", "mask", "", None, True, 1])
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_encrypted_argument_is_checked(plain: bytes, entry: str, value: Any) -> None:
    with ORCFile(plain) as f, pytest.raises(OrcError, match=r"encrypted must be one of 'raise', 'skip', 'masked'"):
        ENTRY_POINTS[entry](f, plain, encrypted=value)


def test_spliced_file(plain: bytes, tmp_path: Path) -> None:
    data, _ = encrypt(plain, {2: "redact", 6: "nullify"}, algorithm=2)
    path = write(tmp_path, data)
    with ORCFile(path) as f:
        assert [(c.path, c.key, c.key_version, c.algorithm, c.mask) for c in f.encrypted_columns] == [
            ("s", "pii", 1, "AES_CTR_256", "redact"),
            ("t", "pii", 1, "AES_CTR_256", "nullify"),
        ]
        assert [[(s.column, s.kind_name) for s in v] for v in f.stripe_footer(0).encrypted_streams] == [
            [(2, "DATA")],
            [(6, "DATA")],
        ]
        with pytest.raises(OrcError, match=r"columns are encrypted: 's' \(key 'pii', mask redact\), 't'"):
            f.read()
        full = orcjit.read_orc(plain)
        pd.testing.assert_frame_equal(f.read(encrypted="skip"), full[["i", "n", "l", "f"]])
        pd.testing.assert_frame_equal(f.read(encrypted="masked"), full)
        pd.testing.assert_frame_equal(f.read(["i", "l"]), full[["i", "l"]])
    # pyarrow reads the same (masked) data as before the splice
    assert po.read_table(path).equals(po.read_table(write(tmp_path, plain, "plain.orc")))


def test_skip_inside_a_list_leaves_the_list_out(plain: bytes) -> None:
    data, _ = encrypt(plain, {5: "nullify"})  # the int elements of l
    with ORCFile(data) as f:
        assert [c.path for c in f.encrypted_columns] == ["l._elem"]
        assert list(f.read(encrypted="skip").columns) == ["i", "s", "n", "t", "f"]
        assert list(f.read(["i", "l"], encrypted="skip").columns) == ["i"]
        with pytest.raises(OrcError, match=r"column is encrypted: 'l._elem' \(key 'pii', mask nullify\)"):
            f.read(["l"])


def test_an_encrypted_root_leaves_only_the_row_count(plain: bytes) -> None:
    data, _ = encrypt(plain, {0: "nullify"})
    with ORCFile(data) as f:
        with pytest.raises(OrcError, match=r"column is encrypted: '<root>'"):
            f.read(["i"])
        skipped = f.read(encrypted="skip")
        assert list(skipped.columns) == [] and len(skipped) == f.nrows


def test_variant_of_a_missing_column(plain: bytes) -> None:
    _, parts = encrypt(plain, {2: "nullify"})
    parts.footer.encryption.variants[0].root = 99
    with ORCFile(join_file(parts)) as f:
        with pytest.raises(OrcError, match=r"footer: encryption variant 0 encrypts column 99, the schema has 8"):
            f.read(encrypted="skip")
        assert f.nrows == len(rows())  # the rest of the file's metadata stays readable


def test_variant_with_a_missing_key(plain: bytes) -> None:
    _, parts = encrypt(plain, {2: "nullify"})
    parts.footer.encryption.variants[0].key = 3
    with ORCFile(join_file(parts)) as f, pytest.raises(OrcError, match=r"variant 0 uses key 3, the footer lists 1"):
        _ = f.encrypted_columns


def test_unknown_algorithm_is_named(plain: bytes) -> None:
    data, _ = encrypt(plain, {3: "nullify"}, algorithm=7)
    with ORCFile(data) as f:
        assert f.encrypted_columns[0].algorithm == "UNKNOWN(7)"


def test_encrypted_stream_past_its_area(plain: bytes) -> None:
    _, parts = encrypt(plain, {2: "nullify"})
    parts.stripes[0].footer.encryption[0].streams[0].length += 1
    with ORCFile(join_file(parts)) as f, pytest.raises(OrcError) as info:
        f.read(encrypted="masked")
    message = str(info.value)
    assert "stripe 0 footer" in message and "encryption variant 0: DATA stream of column 2" in message
    assert "past the end of the stripe's ENCRYPTED_DATA area" in message


def test_stripe_variants_disagreeing_with_the_footer(plain: bytes) -> None:
    _, parts = encrypt(plain, {2: "nullify"})
    parts.stripes[0].footer.encryption.add()
    with ORCFile(join_file(parts)) as f, pytest.raises(OrcError, match=r"2 encryption variants, the file footer has 1"):
        f.read(encrypted="skip")


def test_encrypted_area_listed_twice(plain: bytes) -> None:
    _, parts = encrypt(plain, {2: "nullify"})
    parts.stripes[0].streams.append(StreamPart(ENCRYPTED_DATA, 0, b"\x00"))
    with ORCFile(join_file(parts)) as f, pytest.raises(OrcError, match=r"2 ENCRYPTED_DATA streams, ORC writes at most"):
        f.read(encrypted="skip")


def test_cli_head_takes_the_encrypted_choice(plain: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from orcjit.cli import main

    path = write(tmp_path, encrypt(plain, {2: "nullify"})[0])
    assert main(["head", str(path), "-n", "2", "--json"]) != 0
    assert "column is encrypted: 's'" in capsys.readouterr().err
    assert main(["head", str(path), "-n", "2", "--json", "--encrypted", "skip"]) == 0
    skipped = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [list(r) for r in skipped] == [["i", "n", "l", "t", "f"]] * 2
    assert main(["head", str(path), "-n", "2", "--json", "--encrypted", "masked"]) == 0
    masked = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["s"] for r in masked] == [r[1] for r in rows()[:2]]
