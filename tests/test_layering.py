"""The package's layering: who may import whom inside ``curvedtrees``, read from the source.

Every import statement counts, also the ones inside functions (a lazy import is still a
dependency), and so does a string that is exactly a module path of the package (what
``importlib.import_module`` or ``importlib.resources`` would be handed). The units are
the package's top-level modules and subpackages. A unit's underscore modules are its own:
other units import what it shares from its public modules (``trees.kernels`` for the
tree layers).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import curvedtrees
import pytest

PACKAGE_DIR = Path(curvedtrees.__file__).resolve().parent
_UNITS = {p.stem for p in PACKAGE_DIR.glob("*.py")} | {p.parent.name for p in PACKAGE_DIR.glob("*/__init__.py")}

# What each layer may import (besides itself). Geometry and the helpers sit at the bottom;
# the estimators above them; pictures, datasets and the benchmark harness on top.
ALLOWED = {
    "utils": set(),
    "limits": set(),
    "data": set(),
    "manifolds": {"utils", "limits"},
    "coords": {"manifolds", "utils", "limits"},
    "sampling": {"manifolds", "utils", "limits"},
    "io": {"manifolds", "utils", "limits"},
    "trees": {"manifolds", "io", "utils", "limits"},
    "klein": {"trees", "manifolds", "coords", "sampling", "io", "utils", "limits"},
    "boosting": {"trees", "manifolds", "io", "utils", "limits"},
    "baselines": {"klein", "trees", "manifolds", "io", "utils", "limits"},
    "viz": {"trees", "manifolds", "coords", "utils", "limits"},
    "embeddings": {"viz", "manifolds", "coords", "utils", "limits"},
    "datasets": {"embeddings", "manifolds", "coords", "sampling", "utils", "limits", "data"},
    "costs": {"datasets", "trees", "manifolds", "utils", "limits"},
    # Inspection reads fitted estimators of every family; nothing below names it in code
    # (the estimators' hint string about it lives in manifolds.shared, as text).
    "inspection": {"baselines", "klein", "boosting", "trees", "manifolds", "io", "utils", "limits"},
}

# Known breaches in files whose owners have the fix in hand, as (file, imported module):
# each entry goes when its import is changed. test_the_pending_breaches_still_exist
# fails once an entry is no longer needed, so the list only shrinks.
PENDING: set[tuple[str, str]] = set()

# A string that is exactly a module path of the package, such as "curvedtrees.data".
_MODULE_PATH = re.compile(r"curvedtrees(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _unit(path: Path) -> str:
    return path.relative_to(PACKAGE_DIR).with_suffix("").parts[0]


def _imports(path: Path, text: str | None = None):
    """(target unit, absolute module name) of every import of the package in ``path`` (or in ``text`` read as it)."""
    parts = list(path.relative_to(PACKAGE_DIR).with_suffix("").parts)
    package = parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if text is None else text)):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            base = package[: len(package) - (node.level - 1)]
            target = base + (node.module.split(".") if node.module else [])
            if not target:  # "from . import x" at the top of the package
                target = [node.names[0].name]
            yield target[0], ".".join(target)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "curvedtrees":
            target = node.module.split(".")[1:] or [node.names[0].name]
            yield target[0], ".".join(target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "curvedtrees" and "." in alias.name:
                    target = alias.name.split(".")[1:]
                    yield target[0], ".".join(target)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _MODULE_PATH.fullmatch(node.value):
            target = node.value.split(".")[1:]
            if target[0] in _UNITS:  # not an entry-point group such as "curvedtrees.serializers"
                yield target[0], ".".join(target)


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE_DIR).as_posix()


def _graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE_DIR.rglob("*.py"):
        source = _unit(path)
        if source == "__init__":
            continue  # the top-level lazy exports
        for target, module in _imports(path):
            if target != source and (_name(path), module) not in PENDING:
                edges[source].add(target)
    return edges


def _private_imports() -> set[tuple[str, str]]:
    """(file, module) of every import of another unit's underscore module."""
    found = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        source = _unit(path)
        if source == "__init__":
            continue
        for target, module in _imports(path):
            if target != source and any(part.startswith("_") for part in module.split(".")[1:]):
                found.add((_name(path), module))
    return found


def test_the_package_has_no_import_cycles():
    edges = _graph()
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])


def test_each_layer_imports_only_the_layers_below_it():
    edges = _graph()
    wrong = {
        unit: sorted(targets - ALLOWED[unit])
        for unit, targets in edges.items()
        if unit in ALLOWED and targets - ALLOWED[unit]
    }
    assert wrong == {}, f"imports above their layer: {wrong}"


def test_no_unit_imports_the_underscore_modules_of_another():
    breaches = sorted(_private_imports() - PENDING)
    assert breaches == [], f"imports of another unit's private modules (use its public modules): {breaches}"


def test_the_pending_breaches_still_exist():
    # Once an owner fixes an import, its entry must leave PENDING so it cannot come back unnoticed.
    found = _private_imports() | {(_name(p), m) for p in PACKAGE_DIR.rglob("*.py") for _, m in _imports(p)}
    assert PENDING - found == set(), f"remove these entries from PENDING: {sorted(PENDING - found)}"


def test_module_path_strings_count_as_imports():
    # The serialiser registry once reached the estimator families through strings such as
    # "curvedtrees.trees.serialization", hidden from the import statements.
    source = 'PROVIDERS = ("curvedtrees.trees.serialization", "curvedtrees.serializers")\n'
    assert list(_imports(PACKAGE_DIR / "io.py", source)) == [("trees", "trees.serialization")]


def test_the_layering_rules_name_every_unit():
    units = {_unit(p) for p in PACKAGE_DIR.rglob("*.py")} - {"__init__", "benchmarks"}
    assert units <= set(ALLOWED), f"units without a layering rule: {sorted(units - set(ALLOWED))}"


def test_the_geometry_imports_nothing_above_it():
    edges = _graph()
    assert edges.get("manifolds", set()) <= {"utils", "limits"}


def test_nothing_in_the_package_imports_streamlit():
    offenders = []
    for path in PACKAGE_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            if any(name.split(".")[0] == "streamlit" for name in names):
                offenders.append(str(path.relative_to(PACKAGE_DIR)))
    assert offenders == []


@pytest.mark.slow
def test_the_core_fits_and_saves_a_forest_without_any_optional_package():
    # A fresh interpreter in which every optional dependency fails to import, as in a
    # `pip install curvedtrees` with no extras.
    script = textwrap.dedent(
        """
        import sys

        OPTIONAL = {"plotly", "pandas", "torch", "geoopt", "networkx", "statsmodels", "xgboost",
                    "lightgbm", "dask", "distributed", "streamlit", "world_temperature_data", "tqdm"}

        class NotInstalled:
            # A finder, not None entries in sys.modules: SciPy looks at sys.modules["torch"].
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in OPTIONAL:
                    raise ModuleNotFoundError(f"No module named {name!r}")
                return None

        sys.meta_path.insert(0, NotInstalled())
        from curvedtrees import ProductRandomForestClassifier, make_classification, io
        X, y = make_classification("H2 x S2 x E2", n_samples=200, random_state=0)
        forest = ProductRandomForestClassifier(3, signature="H2 x S2 x E2", max_depth=3, random_state=0).fit(X, y)
        again = io.loads(io.dumps(forest))
        assert (again.predict(X) == forest.predict(X)).all()
        try:
            import curvedtrees.viz
        except ImportError as error:
            print(error)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "pip install 'curvedtrees[viz]'" in done.stdout
