"""The shape of the package: no import cycle of any kind, small modules, no private member of another module.

Imports are read from the source with :mod:`ast`, so imports inside functions and under ``TYPE_CHECKING`` count as
much as those at the top of a module. Cycles are looked for between modules and between the packages of
``orcjit`` (``orcjit.types``, ``orcjit.decode``, ``orcjit.reading``, ... and the top-level modules).
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "orcjit"
# kernels are long by nature (decode and skip twins of every encoding); generated protobuf code is not ours
SIZE_EXEMPT = ("kernels", "_proto")
MAX_LINES = 600
# modules orcjit keeps private to itself, whose underscore is about the package, not its members
PRIVATE_MODULES = ("_jit", "_proto", "_extras")


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(module: str, node: ast.ImportFrom) -> str | None:
    if not node.level:
        return node.module
    base = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _owner(name: str) -> str | None:
    """The orcjit module ``name`` (a module, or a name inside one) belongs to."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in MODULES else None


def _imports() -> dict[str, set[tuple[str, str]]]:
    """Per module, every ``(module, name)`` it imports from orcjit (``name`` empty for ``import x``)."""
    out: dict[str, set[tuple[str, str]]] = collections.defaultdict(set)
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                source = _imported(module, node)
                if source and source.split(".")[0] == "orcjit":
                    for alias in node.names:
                        target = f"{source}.{alias.name}"
                        out[module].add((target, "") if target in MODULES else (source, alias.name))
            elif isinstance(node, ast.Import):
                out[module].update((a.name, "") for a in node.names if a.name.split(".")[0] == "orcjit")
    return out


IMPORTS = _imports()


def _graph(key: object) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = collections.defaultdict(set)
    for module, targets in IMPORTS.items():
        for target, _ in targets:
            owner = _owner(target)
            if owner is None:
                continue
            a, b = key(module), key(owner)  # type: ignore[operator]
            if a != b:
                graph[a].add(b)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(set(graph) | {b for bs in graph.values() for b in bs}):
        if node not in index:
            visit(node)
    return found


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_the_import_reader_sees_imports_of_every_kind() -> None:
    """Imports inside functions and under TYPE_CHECKING are seen (the cycle checks would be blind otherwise)."""
    assert ("orcjit.warmup", "warmup") in IMPORTS["orcjit.cli.warmup"]  # inside run()
    assert ("orcjit.pushdown.plan", "StripeDecision") in IMPORTS["orcjit.reading.plan"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_between_modules() -> None:
    assert _cycles(_graph(lambda m: m)) == []


def test_no_import_cycle_between_packages() -> None:
    assert _cycles(_graph(_package)) == []


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ("orcjit.types", "orcjit.decode"),
        ("orcjit.decode", "orcjit.convert"),
        ("orcjit.convert", "orcjit.pushdown"),
        ("orcjit.pushdown", "orcjit.reading"),
        ("orcjit.reading", "orcjit.orcfile"),
        ("orcjit.reading", "orcjit.dataset"),
        ("orcjit.dataset", "orcjit.orcfile"),
        ("orcjit.dataset", "orcjit.orcdataset"),
        ("orcjit.dataset", "orcjit.read"),
        ("orcjit.filemeta", "orcjit.pushdown"),
    ],
)
def test_layers_import_downwards(lower: str, upper: str) -> None:
    """Each layer may import the ones below it, never the ones above."""
    graph = _graph(_package)
    seen, todo = set(), [lower]
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    assert upper not in seen, f"{lower} reaches {upper}"


def test_below_the_api_nothing_takes_an_orcfile() -> None:
    below = ("orcjit.types", "orcjit.decode", "orcjit.convert", "orcjit.pushdown", "orcjit.reading", "orcjit.dataset")
    for module, targets in IMPORTS.items():
        if module.startswith(below) or module in ("orcjit.indexes", "orcjit.filemeta"):
            assert all(_owner(t) not in ("orcjit.orcfile", "orcjit.orcdataset", "orcjit.read") for t, _ in targets), (
                module
            )


def test_partitioning_takes_plain_strings() -> None:
    """Partition folders are parsed from strings alone: nothing of files, reading or the API."""
    owners = {_owner(t) for t, _ in IMPORTS["orcjit.dataset.partitioning"]}
    assert all(o == "orcjit.errors" or (o or "").startswith("orcjit.types") for o in owners), owners


def test_no_private_member_of_another_module() -> None:
    wrong = [
        f"{module} imports {name} from {source}"
        for module, targets in IMPORTS.items()
        for source, name in targets
        if name.startswith("_") and not name.startswith("__") and source != module
    ]
    assert wrong == []


def test_modules_stay_small() -> None:
    large = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if not path.relative_to(PACKAGE).parts[0].startswith(SIZE_EXEMPT)
        and (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert large == {}


def test_each_package_says_what_lives_there_and_what_it_may_import() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        if init.parent.name == "_proto" or init.parent == PACKAGE:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert "import" in doc, f"{init.relative_to(PACKAGE)} does not say what it may import"
