"""Sphinx configuration of orcjit's documentation site.

Build it with ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` after
``pip install -e ".[docs]"``. The guides are MyST text notebooks executed on every build, so a guide whose code
no longer runs fails the build; the notebooks in ``notebooks/`` are copied in and shown with the outputs they were
committed with (``tests/test_notebooks.py`` executes them).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import orcjit

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# the guides' kernels inherit this environment: `!orcjit ...` in a cell runs the orcjit of the Python building the
# site, whether or not its environment is activated
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"

project = "orcjit"
author = "the orcjit developers"
copyright = "2026, the orcjit developers"
release = orcjit.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]
templates_path = ["_templates"]
html_theme = "furo"
html_title = f"orcjit {release}"
html_static_path: list[str] = []

# the API reference: one page per public name, generated from its numpydoc docstring
autosummary_generate = True
autosummary_ignore_module_all = False
autodoc_typehints = "none"  # the signatures carry them; numpydoc's Parameters sections say them in words
autodoc_default_options = {"member-order": "bysource"}
numpydoc_show_class_members = False  # the class template documents the members on the class page itself
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# guides are executed on every build; an error in a cell fails it
nb_execution_mode = "auto"  # executes the pages without outputs: the guides and the front page
# the notebooks are shown with the outputs they were committed with; tests/test_notebooks.py executes them
nb_execution_excludepatterns = ["notebooks/*"]
nb_execution_raise_on_error = True
nb_execution_timeout = 600
nb_execution_in_temp = True  # files a guide writes go to a temporary folder, not into docs/
nb_output_stderr = "remove"  # Spark's and Java's log lines are not part of a guide
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

copybutton_prompt_text = r"\$ |>>> "
copybutton_prompt_is_regexp = True


def copy_notebooks(app: object) -> None:
    """Copy ``notebooks/*.ipynb`` into the site: Sphinx reads only files under ``docs/``."""
    target = DOCS / "notebooks"
    target.mkdir(exist_ok=True)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        shutil.copyfile(notebook, target / notebook.name)


def setup(app: object) -> None:
    app.connect("builder-inited", copy_notebooks)  # type: ignore[attr-defined]
