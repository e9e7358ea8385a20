"""Column encryption (ORC 1.6 and later): which columns a file encrypts, under which keys and masks, and what a
read that cannot decrypt them does.

ORC Java encrypts the data and statistics of chosen column subtrees with AES/CTR under keys held by a key
management server, and also writes an unencrypted *masked* copy of each (all nulls, redacted or hashed values) in
the ordinary streams and statistics, which is what ORC readers without the key return. orcjit holds no keys: by
default a read that touches an encrypted column raises :class:`~orcjit.OrcError`; ``encrypted="skip"`` leaves
those columns out and ``encrypted="masked"`` returns the masked copy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import OrcError
from .tail import text_field
from .types.resolve import Selection
from .types.schema import TypeNode

__all__ = ["ENCRYPTED_MODES", "EncryptedColumn", "Encryption", "check_encrypted_mode", "read_encryption"]

ENCRYPTED_MODES = ("raise", "skip", "masked")
ALGORITHM_NAMES = {1: "AES_CTR_128", 2: "AES_CTR_256"}
KEY_PROVIDER_NAMES = {0: "UNKNOWN", 1: "HADOOP", 2: "AWS", 3: "GCP", 4: "AZURE"}


@dataclass(frozen=True)
class EncryptedColumn:
    """A column whose data the file encrypts, with everything under it.

    Attributes
    ----------
    path : str
        Dotted path of the column, as ``columns=`` takes it (``""`` for the root).
    column_id : int
        The column's id; its subtree ``column_id .. max_column_id`` is encrypted.
    max_column_id : int
        The largest column id under it.
    key : str
        Name of the master key the column's local key is encrypted with.
    key_version : int
        Version of that master key.
    algorithm : str
        ``AES_CTR_128``, ``AES_CTR_256`` or ``UNKNOWN(n)``.
    mask : str or None
        The mask that produced the unencrypted copy (``nullify``, ``redact``, ``sha256`` or a custom name);
        ``None`` when the file does not say.
    mask_parameters : tuple of str
        The mask's parameters as written.
    variant : int
        Index of the encryption variant in the file's footer.
    """

    path: str
    column_id: int
    max_column_id: int
    key: str
    key_version: int
    algorithm: str
    mask: str | None
    mask_parameters: tuple[str, ...]
    variant: int

    def covers(self, column_id: int) -> bool:
        """Whether ``column_id`` lies in this column's subtree."""
        return self.column_id <= column_id <= self.max_column_id

    def describe(self) -> str:
        """``'ssn' (key 'pii', mask nullify)``: the words error messages use."""
        mask = self.mask or "unknown"
        return f"{self.path or '<root>'!r} (key {self.key!r}, mask {mask})"


@dataclass(frozen=True)
class Encryption:
    """What a file's footer says about its encryption: the key provider and the encrypted columns."""

    key_provider: str
    columns: list[EncryptedColumn] = field(default_factory=list)

    def covering(self, column_id: int) -> EncryptedColumn | None:
        """The encrypted column whose subtree holds ``column_id``, if any."""
        return next((c for c in self.columns if c.covers(column_id)), None)

    def touched(self, column_ids: Iterable[int]) -> list[EncryptedColumn]:
        """The encrypted columns a read of ``column_ids`` would need, in column order."""
        ids = set(column_ids)
        return [c for c in self.columns if any(c.covers(i) for i in ids)]


def check_encrypted_mode(encrypted: Any) -> str:
    """``encrypted`` as given, after checking it is ``"raise"``, ``"skip"`` or ``"masked"``.

    Raises
    ------
    OrcError
        On any other value.
    """
    if not isinstance(encrypted, str) or encrypted not in ENCRYPTED_MODES:
        choices = ", ".join(repr(m) for m in ENCRYPTED_MODES)
        raise OrcError(f"encrypted must be one of {choices}, got {encrypted!r}")
    return encrypted


def read_encryption(footer: Any, schema: TypeNode, name: str) -> Encryption | None:
    """The file's encryption from its ``Footer`` message; ``None`` when it encrypts nothing.

    Raises
    ------
    OrcError
        If a variant names a column the schema lacks or a key the footer does not list.
    """
    if not footer.HasField("encryption") or not footer.encryption.variants:
        return None
    message = footer.encryption
    nodes = {node.column_id: node for node in schema.walk()}
    masks: dict[int, tuple[str, tuple[str, ...]]] = {}
    for mask in message.mask:
        for column in mask.columns:
            # the first mask naming a column wins; masks are informational, so odd ids are left unused
            masks.setdefault(column, (text_field(mask.name), tuple(text_field(p) for p in mask.maskParameters)))
    columns: dict[int, EncryptedColumn] = {}
    for i, variant in enumerate(message.variants):
        where = f"{name}: footer: encryption variant {i}"
        node = nodes.get(variant.root)
        if node is None:
            raise OrcError(f"{where} encrypts column {variant.root}, the schema has {len(nodes)} columns")
        if variant.key >= len(message.key):
            raise OrcError(f"{where} uses key {variant.key}, the footer lists {len(message.key)} keys")
        if node.column_id in columns:
            continue  # readers use the first variant of a column they can; without keys all are alike
        key = message.key[variant.key]
        mask, parameters = masks.get(node.column_id, (None, ()))
        columns[node.column_id] = EncryptedColumn(
            path=node.path,
            column_id=node.column_id,
            max_column_id=node.max_column_id,
            key=text_field(key.keyName),
            key_version=int(key.keyVersion),
            algorithm=ALGORITHM_NAMES.get(key.algorithm, f"UNKNOWN({key.algorithm})"),
            mask=mask,
            mask_parameters=parameters,
            variant=i,
        )
    provider = int(message.keyProvider)
    return Encryption(
        key_provider=KEY_PROVIDER_NAMES.get(provider, f"UNKNOWN({provider})"),
        columns=[columns[k] for k in sorted(columns)],
    )


def refusal(name: str, hit: list[EncryptedColumn]) -> OrcError:
    """The error of a read that needs the encrypted columns ``hit``, telling how to go on."""
    listed = ", ".join(c.describe() for c in hit)
    plural = "s are" if len(hit) > 1 else " is"
    return OrcError(
        f"{name}: column{plural} encrypted: {listed}. orcjit cannot decrypt ORC column encryption; pass "
        "encrypted='skip' to read without the encrypted columns, or encrypted='masked' for their masked values "
        "(what ORC readers without the key return)"
    )


def skipped_ids(encryption: Encryption, schema: TypeNode) -> set[int]:
    """The column ids ``encrypted="skip"`` leaves out.

    An encrypted column under a list, map or union cannot be left out of it alone, so the nearest struct field
    (or top-level column) holding it goes; a struct left with none of its fields goes too.
    """
    nodes = {node.column_id: node for node in schema.walk()}
    drop: set[int] = set()
    for column in encryption.columns:
        node = nodes[column.column_id]
        drop.update(n.column_id for n in node.walk())
        parent = node.parent
        while parent is not None and parent.parent is not None:
            gone = [c.column_id in drop for c in parent.children]
            if not (all(gone) if parent.kind == "struct" else any(gone)):
                break
            drop.update(n.column_id for n in parent.walk())
            parent = parent.parent
    return drop


def without(selection: Selection, drop: set[int]) -> Selection:
    """``selection`` less the column ids in ``drop``, and less what was chosen only for them: a struct none of
    whose chosen fields is left, a list, map or union whose chosen element, key, value or variant is gone."""
    before = selection.selected
    selected = before - drop

    def prune(node: TypeNode) -> None:
        for child in node.children:
            if child.column_id in selected:
                prune(child)
        lost = [c.column_id in before and c.column_id not in selected for c in node.children]
        if node.kind == "struct":
            emptied = any(lost) and not any(c.column_id in selected for c in node.children)
        else:
            emptied = any(lost)
        if emptied:
            selected.discard(node.column_id)

    for node in selection.fields:
        if node.column_id in selected:
            prune(node)
    kept = [(f, n) for f, n in zip(selection.fields, selection.names, strict=True) if f.column_id in selected]
    return Selection([f for f, _ in kept], [n for _, n in kept], selected)


def guard_read(
    encryption: Encryption | None,
    mode: str,
    schema: TypeNode,
    output: Selection,
    decode: Selection,
    predicates: Any,
    name: str,
) -> tuple[Selection, Selection, Any]:
    """Apply ``mode`` to a read of ``output`` that decodes ``decode`` and filters with ``predicates``.

    Returns the selections to use and the predicates that may prune stripes and row groups by statistics: none
    on an encrypted column, whose statistics in the footer and row index describe the masked copy at best.

    Raises
    ------
    OrcError
        In ``raise`` mode when the read needs an encrypted column; in ``skip`` mode when a filter tests one.
    """
    if encryption is None:
        return output, decode, predicates
    if mode == "raise":
        hit = encryption.touched(decode.selected)
        if hit:
            raise refusal(name, hit)
    elif mode == "skip":
        drop = skipped_ids(encryption, schema)
        tested = [p for group in predicates or [] for p in group if p.node.column_id in drop]
        if tested:
            column = encryption.covering(tested[0].node.column_id) or encryption.columns[0]
            raise OrcError(
                f"{name}: filter on column {tested[0].path!r}, which encrypted='skip' leaves out: it lies in "
                f"encrypted column {column.describe()}; drop the filter, or filter on the masked values with "
                "encrypted='masked'"
            )
        output, decode = without(output, drop), without(decode, drop)
    return output, decode, pruning_filters(encryption, predicates)


def pruning_filters(encryption: Encryption | None, predicates: Any) -> Any:
    """``predicates`` without the tests of encrypted columns, for pruning by statistics only.

    Leaving a test out of a conjunction only widens what it may match, so pruning stays safe; a conjunction left
    empty may match any row, and then nothing can be pruned (``None``). Rows are still filtered exactly with
    every test.
    """
    if encryption is None or not predicates:
        return predicates
    out = []
    for group in predicates:
        kept = [p for p in group if encryption.covering(p.node.column_id) is None]
        if not kept:
            return None
        out.append(kept)
    return out
