"""The documentation site's sources: every public name has a reference page, every guide is an executed page.

The site itself is built by ``.ci/run`` with warnings as errors (``python -m sphinx -W``), which executes every
guide; these checks need no Sphinx and fail fast when a public name, a guide or a notebook is left out.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import orcjit
import orcjit.parquet
import orcjit.spark

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference" / "index.rst"
GUIDES = sorted((DOCS / "guides").glob("*.md"))
FRONT_MATTER = "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n"
# static shell blocks in a guide may only install or set up; anything a reader runs is an executed cell
SETUP_LINE = re.compile(r"^(\s*$|\s*#|pip |python -m pip |export |jupyter |apt-get |sudo apt-get |orcjit warmup)")
# a ``text`` block is a picture or a table; it may not hide code the build would not run
CODE_LINE = re.compile(r"^\s*(>>>|\$ |import |from \w+ import |orcjit |python )")


def reference_entries() -> list[str]:
    """The dotted names listed under the reference page's autosummary directives."""
    names, inside = [], False
    for line in REFERENCE.read_text().splitlines():
        if line.startswith(".. autosummary::"):
            inside = True
        elif inside and line.strip() and not line.startswith("   "):
            inside = False
        elif inside and line.strip() and not line.strip().startswith(":"):
            names.append(line.strip())
    return names


def resolve(dotted: str) -> Any:
    module, _, attr = dotted.rpartition(".")
    while module:
        try:
            return getattr(importlib.import_module(module), attr)
        except ModuleNotFoundError:
            module, _, parent = module.rpartition(".")
            attr = f"{parent}.{attr}"
            obj = importlib.import_module(module)
            for part in attr.split("."):
                obj = getattr(obj, part)
            return obj
    raise AssertionError(f"{dotted} is not a module attribute")


def exported() -> dict[str, Any]:
    """The names a user imports: each package's ``__all__`` (with the Spark helpers ``orcjit.spark`` serves)."""
    names = {f"orcjit.{n}": getattr(orcjit, n) for n in orcjit.__all__ if n != "__version__"}
    helpers = importlib.import_module("orcjit.spark.helpers")
    for name in [*orcjit.spark.__all__, *helpers.__all__]:
        names[f"orcjit.spark.{name}"] = getattr(orcjit.spark, name)
    names.update({f"orcjit.parquet.{n}": getattr(orcjit.parquet, n) for n in orcjit.parquet.__all__})
    return names


def orcjit_classes(annotation: Any, module: str) -> set[type]:
    """orcjit's classes named in an annotation (``list[X]``, ``X | None``), looked up in the annotating module.

    Annotations are strings here (``from __future__ import annotations``) and may name what a module imports
    only for type checking, so each name is looked up on its own rather than the annotation evaluated whole.
    """
    namespace = vars(sys.modules[module])
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    found = set()
    for name in re.findall(r"[A-Za-z_]\w*", text):
        obj = namespace.get(name)
        if isinstance(obj, type) and obj.__module__.startswith("orcjit"):
            found.add(obj)
    return found


def handed_back(cls: type) -> set[type]:
    """The orcjit classes a public method, property or field of ``cls`` returns."""
    found: set[type] = set()
    for name, member in inspect.getmembers(cls):
        if name.startswith("_"):
            continue
        target = member.fget if isinstance(member, property) else member
        if inspect.isfunction(target) and "return" in target.__annotations__:
            found |= orcjit_classes(target.__annotations__["return"], target.__module__)
    for klass in cls.__mro__:
        if dataclasses.is_dataclass(klass) or hasattr(klass, "_fields"):
            for name, annotation in vars(klass).get("__annotations__", {}).items():
                if not name.startswith("_"):
                    found |= orcjit_classes(annotation, klass.__module__)
    return found


def public_objects() -> dict[int, str]:
    """Every exported name, and every class reachable from them through what public members hand back."""
    objects = {id(obj): name for name, obj in exported().items()}
    todo = [obj for obj in exported().values() if isinstance(obj, type)]
    seen: set[type] = set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        for found in handed_back(cls):
            if found.__name__.startswith("_"):
                continue
            objects.setdefault(id(found), f"{found.__module__}.{found.__qualname__}")
            todo.append(found)
    return objects


def test_every_reference_entry_names_a_real_object() -> None:
    for dotted in reference_entries():
        resolve(dotted)


def test_every_public_name_has_a_reference_page() -> None:
    listed = {id(resolve(dotted)) for dotted in reference_entries()}
    missing = sorted(name for key, name in public_objects().items() if key not in listed)
    assert not missing, f"public names without a page in docs/reference/index.rst: {missing}"


def test_the_walk_finds_what_orcfile_hands_back() -> None:
    # the walk above must see through properties, methods and dataclass fields, or the test before proves nothing
    reached = set(public_objects().values())
    for name in (
        "StripeInfo",
        "StripeFooterInfo",
        "StreamInfo",
        "Explanation",
        "StripeDecision",
        "RowGroupVerdict",
        "BoundingBox",
        "DatasetExplanation",
        "FileExplanation",
        "EncryptedColumn",
    ):
        assert any(r.endswith(f".{name}") for r in reached), name


def test_a_name_left_out_of_the_reference_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = reference_entries()
    monkeypatch.setattr(sys.modules[__name__], "reference_entries", lambda: [e for e in entries if "Bloom" not in e])
    with pytest.raises(AssertionError, match="BloomFilterIndex"):
        test_every_public_name_has_a_reference_page()


TESTED_AS_WRITTEN = re.compile(r"<!-- tested as written: (\S+?)::(\w+) -->\n$")


def source_of_test(test_file: str, function: str) -> str:
    module = (ROOT / test_file).read_text()
    match = re.search(rf"^def {function}\(.*?(?=^\S|\Z)", module, flags=re.S | re.M)
    assert match, f"{test_file} has no test {function}"
    return match.group(0)


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.stem)
def test_guide_is_an_executed_page(guide: Path) -> None:
    text = guide.read_text()
    assert text.startswith(FRONT_MATTER), f"{guide.name}: a guide is a MyST notebook, executed when the site builds"
    assert "```{code-cell} python" in text, f"{guide.name}: no executed code"
    assert "HELPER" not in text and "being filled in" not in text, f"{guide.name}: a placeholder is left"
    for match in re.finditer(r"^(`{3,})([^\n]*)\n(.*?)^\1[ \t]*$", text, flags=re.S | re.M):
        language, body = match.group(2).strip(), match.group(3)
        if language.startswith("{"):
            continue
        tested = TESTED_AS_WRITTEN.search(text[: match.start()])
        if tested:
            # code the build cannot run (it needs a writer the site does not have) is run by a named test, as written
            source = source_of_test(*tested.groups())
            for line in body.splitlines():
                assert line.strip() in source, f"{guide.name}: {line!r} is not in {tested.group(0)}"
            continue
        if language == "text":
            for line in body.splitlines():
                assert not CODE_LINE.match(line), f"{guide.name}: {line!r} is code in a text block"
            continue
        assert language not in ("python", "py", "pycon", "ipython", ""), (
            f"{guide.name}: a static {language or 'plain'} block; make it a {{code-cell}} so the build runs it"
        )
        for line in body.splitlines():
            assert SETUP_LINE.match(line), f"{guide.name}: {line!r} in a static block is not run by the build"


def test_every_guide_and_notebook_is_in_a_table_of_contents() -> None:
    index = (DOCS / "index.md").read_text()
    for guide in GUIDES:
        assert f"guides/{guide.stem}\n" in index, guide.name
    notebooks = (DOCS / "notebooks" / "index.md").read_text()
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"\n{notebook.stem}\n" in notebooks, notebook.name


def distribution(requirement: str) -> str:
    return re.split(r"[<>=!\[ ;]", requirement, maxsplit=1)[0].lower()


def dependencies() -> set[str]:
    """What ``pip install orcjit`` installs."""
    return {distribution(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}


def extra(name: str) -> set[str]:
    """The distributions an extra of pyproject.toml installs, following ``orcjit[...]`` references."""
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    found: set[str] = set()
    for requirement in optional[name]:
        dist = distribution(requirement)
        if dist == "orcjit":
            for inner in re.findall(r"\[(.*)\]", requirement)[0].split(","):
                found |= extra(inner.strip())
        else:
            found.add(dist)
    return found


DISTRIBUTION = {"sklearn": "scikit-learn", "yaml": "pyyaml"}
BUNDLED = {"orcjit", "numpy", "pandas", "IPython"}  # orcjit's own dependencies, and the kernel itself


def third_party_imports(sources: list[str]) -> set[str]:
    modules = set()
    for source in sources:
        for match in re.finditer(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", source, flags=re.M):
            modules.add(match.group(1))
    return {m for m in modules if m not in sys.stdlib_module_names and m not in BUNDLED}


def test_notebooks_extra_installs_jupyter_and_what_the_notebooks_import() -> None:
    # a notebook is JSON; its cells' sources are strings or lists of lines
    cells = [
        "".join(cell["source"])
        for path in sorted((ROOT / "notebooks").glob("*.ipynb"))
        for cell in json.loads(path.read_text())["cells"]
        if cell["cell_type"] == "code"
    ]
    wanted = {DISTRIBUTION.get(m, m).lower() for m in third_party_imports(cells)}
    assert wanted, "no imports found: the parsing above is broken"
    installs = extra("notebooks")
    assert {"jupyterlab", "ipykernel"} <= installs
    installs |= dependencies()
    assert wanted <= installs, f"imported by notebooks/ but not in orcjit[notebooks]: {sorted(wanted - installs)}"


def test_docs_extra_installs_what_the_guides_import() -> None:
    cells = [
        m.group(1)
        for guide in [*GUIDES, DOCS / "index.md"]
        for m in re.finditer(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", guide.read_text(), flags=re.S | re.M)
    ]
    wanted = {DISTRIBUTION.get(m, m).lower() for m in third_party_imports(cells)}
    installs = extra("docs")
    assert {"sphinx", "myst-nb", "numpydoc", "furo", "ipykernel"} <= installs
    installs |= dependencies()
    assert wanted <= installs, f"imported by the guides but not in orcjit[docs]: {sorted(wanted - installs)}"


def test_readme_links_into_the_site_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(((?:docs|notebooks|benchmarks)/[^)#]+)", readme)
    assert any(link.startswith("docs/") for link in links), "the README links into the documentation site"
    for link in links:
        assert (ROOT / link).exists(), link


def test_readme_examples_run_and_print_what_they_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (ROOT / "README.md").read_text()
    python = re.findall(r"^```python\n(.*?)^```$", readme, flags=re.S | re.M)
    commands = re.findall(r"^```bash\n(.*?)^```$", readme, flags=re.S | re.M)[1]  # the first is the two commands
    assert len(python) == 1
    monkeypatch.chdir(tmp_path)
    done = subprocess.run([sys.executable, "-c", python[0]], capture_output=True, text=True, check=True)
    # the first two prints' comments end with what they print (after the last ": " where the comment explains)
    said = [
        line.split("  # ", 1)[1].rsplit(": ", 1)[-1]
        for line in python[0].splitlines()
        if line.lstrip().startswith("print(") and "  # " in line
    ][:2]
    assert done.stdout.splitlines()[: len(said)] == said
    assert "row groups kept 1 of 10" in done.stdout
    orcjit_command = [str(Path(sys.executable).parent / "orcjit")]
    for line in commands.splitlines():
        argv = shlex.split(line.split("  #")[0])
        assert argv[0] == "orcjit"
        subprocess.run(orcjit_command + argv[1:], capture_output=True, check=True)


def test_conf_module_docstring_names_the_build_command() -> None:
    # the one documented command is the one .ci/run runs
    command = "python -m sphinx -W --keep-going -b html docs docs/_build/html"
    assert command in (DOCS / "conf.py").read_text()
    assert command in (ROOT / ".ci" / "run").read_text()
    assert command in (ROOT / "README.md").read_text()
