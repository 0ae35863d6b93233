"""Type checkers see the real classes behind ``import curvedtrees`` (issue 26, item 5)."""

from __future__ import annotations

import ast
import collections
import importlib.util
import sys
from pathlib import Path

import curvedtrees
import pytest

ROOT = Path(__file__).resolve().parents[1]
# scripts/ is no package: load the script as a module.
_SPEC = importlib.util.spec_from_file_location("typecheck", ROOT / "scripts" / "typecheck.py")
typecheck = importlib.util.module_from_spec(_SPEC)
sys.modules["typecheck"] = typecheck
_SPEC.loader.exec_module(typecheck)


def _type_checking_names() -> dict[str, str]:
    """Name -> submodule of every import inside ``if TYPE_CHECKING:`` of engine/__init__.py."""
    tree = ast.parse((ROOT / "engine" / "__init__.py").read_text(encoding="utf-8"))
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
    ]
    assert len(blocks) == 1
    names = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.dump(node)
        for alias in node.names:
            # `from .x import A as A`: the redundant alias is what marks a re-export.
            assert alias.asname == alias.name, alias.name
            names[alias.name] = f"curvedtrees.{node.module}"
    return names


# Public names that engine/__init__.py defines itself (type checkers read them directly).
DEFINED_AT_TOP = {"warm_up"}


def test_type_checking_block_names_every_export_from_its_submodule():
    names = _type_checking_names()
    assert sorted(names) == sorted(set(curvedtrees.__all__) - DEFINED_AT_TOP)
    assert names == curvedtrees._EXPORTS
    assert all(callable(getattr(curvedtrees, name)) for name in DEFINED_AT_TOP)
    assert len(set(curvedtrees.__all__)) == len(curvedtrees.__all__)


def test_all_is_a_literal_list_type_checkers_can_read():
    tree = ast.parse((ROOT / "engine" / "__init__.py").read_text(encoding="utf-8"))
    (assignment,) = [
        node
        for node in tree.body
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
    ]
    assert isinstance(assignment.value, ast.List)
    assert all(isinstance(element, ast.Constant) for element in assignment.value.elts)


def test_baseline_comparison_fails_on_a_rise_and_asks_to_lower_on_a_fall():
    baseline = collections.Counter({"curvedtrees/a.py": 2, "curvedtrees/b.py": 1})
    above, below = typecheck.compare(collections.Counter({"curvedtrees/a.py": 3}), baseline)
    assert above == ["curvedtrees/a.py: 3 errors, baseline 2"]
    assert below == ["curvedtrees/b.py: 0 errors, baseline 1"]
    assert typecheck.compare(baseline.copy(), baseline) == ([], [])


def test_error_lines_are_counted_per_file_without_notes_or_the_front_door():
    output = (
        'curvedtrees/a.py:3: error: Need type annotation for "x"  [var-annotated]\n'
        "curvedtrees/a.py:3: note: hint\n"
        "curvedtrees/a.py:9: error: Incompatible types  [assignment]\n"
        'front_door.py:3: error: Unexpected keyword argument "signatur" for "ProductRandomForestClassifier"\n'
    )
    assert typecheck.errors_by_file(output) == {"curvedtrees/a.py": 2}
    assert typecheck.front_door_ok(output)
    assert not typecheck.front_door_ok("curvedtrees/a.py:3: error: x\n")


def test_the_committed_baseline_parses_and_totals():
    counts = typecheck.read_baseline()
    header = typecheck.BASELINE.read_text(encoding="utf-8").splitlines()[1]
    assert header == f"# total {sum(counts.values())}"
    assert all(name.startswith("curvedtrees/") and count > 0 for name, count in counts.items())


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is in requirements-dev.txt")
def test_mypy_reports_a_misspelled_keyword_on_a_top_level_class():
    # The snippet alone, without installed packages' types: a few CPU-seconds.
    output = typecheck.run_mypy(whole_package=False)
    assert typecheck.front_door_ok(output), output
