"""The documentation's sources: every public name has an API entry, and the guide's examples run.

The site itself is built by ``make docs`` (CI runs it after the tests); these tests read
the sources only, so they need neither Sphinx nor a build.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import curvedtrees
import pytest
from sklearn.base import BaseEstimator

DOCS = Path(__file__).resolve().parents[1] / "docs"
API = DOCS / "api"
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# Folders of the package that hold data files, not Python API.
NOT_MODULES = {"data"}


def public_modules() -> list[str]:
    """Top-level submodules of curvedtrees that declare a public API (``__all__``)."""
    names = []
    for info in pkgutil.iter_modules(curvedtrees.__path__):
        if info.name.startswith("_") or info.name in NOT_MODULES:
            continue
        module = importlib.import_module(f"curvedtrees.{info.name}")
        if hasattr(module, "__all__"):
            names.append(info.name)
    return sorted(names)


def autosummary_entries(page: Path) -> list[str]:
    """The names listed in the autosummary blocks of an API page."""
    entries = []
    in_block = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(".. autosummary::"):
            in_block = True
            continue
        if in_block:
            if line.startswith("   :") or not line.strip():
                continue
            if line.startswith("   "):
                entries.append(line.strip())
                continue
            in_block = False
    return entries


def api_toctree() -> list[str]:
    text = (API / "index.rst").read_text(encoding="utf-8")
    toctree = text.split(".. toctree::", 1)[1]
    return [
        line.strip() for line in toctree.splitlines()[1:] if line.startswith("   ") and not line.strip().startswith(":")
    ]


MODULES = public_modules()


def test_the_package_has_public_modules():
    assert {"manifolds", "trees", "boosting", "klein", "io", "datasets"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_has_an_api_entry(module):
    page = API / f"{module}.rst"
    assert page.is_file(), f"curvedtrees.{module} has no API page: add docs/api/{module}.rst"
    assert module in api_toctree(), f"docs/api/{module}.rst is not in the toctree of docs/api/index.rst"
    listed = autosummary_entries(page)
    public = set(importlib.import_module(f"curvedtrees.{module}").__all__)
    missing = sorted(public - set(listed))
    stale = sorted(set(listed) - public)
    twice = sorted({name for name in listed if listed.count(name) > 1})
    assert not missing, f"docs/api/{module}.rst lists no entry for {missing} (in curvedtrees.{module}.__all__)"
    assert not stale, f"docs/api/{module}.rst lists {stale}, which curvedtrees.{module}.__all__ does not export"
    assert not twice, f"docs/api/{module}.rst lists {twice} more than once"


def test_every_top_level_name_links_to_its_entry():
    index = (API / "index.rst").read_text(encoding="utf-8")
    for name, module in curvedtrees._EXPORTS.items():
        target = f"{module}.{name}`"
        assert f"``curvedtrees.{name}``" in index and target in index, (
            f"docs/api/index.rst has no row for curvedtrees.{name} pointing to {module}.{name}"
        )
        short = module.removeprefix("curvedtrees.")
        assert name in autosummary_entries(API / f"{short}.rst"), f"docs/api/{short}.rst does not list {name}"


def test_the_autosummary_reader_sees_every_entry():
    # The reader must not stop at an option line or a blank line inside a block.
    entries = autosummary_entries(API / "trees.rst")
    assert entries[:2] == ["ProductDecisionTreeClassifier", "ProductDecisionTreeRegressor"]
    assert "export_text" in entries


GUIDE_PAGES = sorted(path.name for path in (DOCS / "user_guide").glob("*.rst"))


@pytest.mark.parametrize("page", GUIDE_PAGES)
def test_user_guide_examples_run(page):
    result = doctest.testfile(
        str(DOCS / "user_guide" / page), module_relative=False, optionflags=DOCTEST_FLAGS, verbose=False
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in docs/user_guide/{page} failed"


def test_the_user_guide_has_examples():
    attempted = 0
    for page in GUIDE_PAGES:
        parser = doctest.DocTestParser()
        attempted += len(parser.get_examples((DOCS / "user_guide" / page).read_text(encoding="utf-8")))
    assert attempted >= 50


def has_examples_section(obj) -> bool:
    return re.search(r"^\s*Examples\n\s*--------", obj.__doc__ or "", flags=re.MULTILINE) is not None


def check_examples(obj, name: str) -> None:
    """``obj`` has an Examples section in its own docstring (run by tests/test_doctests.py)."""
    assert has_examples_section(obj), f"curvedtrees.{name} has no Examples section in its docstring"


@pytest.mark.parametrize("name", sorted(curvedtrees._EXPORTS))
def test_every_top_level_name_has_examples(name):
    check_examples(getattr(curvedtrees, name), name)


def public_estimators() -> list[str]:
    """``module.Name`` of every scikit-learn estimator class that a public module exports."""
    found = []
    for module in MODULES:
        for name in importlib.import_module(f"curvedtrees.{module}").__all__:
            obj = getattr(importlib.import_module(f"curvedtrees.{module}"), name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                found.append(f"{module}.{name}")
    return sorted(found)


ESTIMATORS = public_estimators()


def test_the_public_estimators_are_found():
    assert {"trees.ProductRandomForestClassifier", "embeddings.KappaGCNClassifier"} <= set(ESTIMATORS)


@pytest.mark.parametrize("dotted", ESTIMATORS)
def test_every_public_estimator_has_examples(dotted):
    module, name = dotted.split(".")
    check_examples(getattr(importlib.import_module(f"curvedtrees.{module}"), name), dotted)


def test_the_gallery_has_at_least_twelve_examples():
    scripts = sorted((DOCS / "examples").rglob("*.py"))
    assert len(scripts) >= 12
    for script in scripts:
        text = script.read_text(encoding="utf-8")
        # sphinx-gallery needs a docstring that starts with a title underlined by "=".
        assert re.match(r'"""\n[^\n]+\n=+\n', text), f"{script.name} does not start with a titled docstring"
