"""The package metadata in pyproject.toml agrees with the source tree and the optional imports."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import curvedtrees
import curvedtrees.io
import pytest
from curvedtrees.utils import EXTRAS

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SOURCE = ROOT / "engine"


def _requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("-", "_")


def test_every_subpackage_is_listed_for_the_wheel():
    on_disk = {
        ".".join(("curvedtrees", *init.parent.relative_to(SOURCE).parts))
        for init in SOURCE.rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert set(PROJECT["tool"]["setuptools"]["packages"]) == on_disk


def test_the_package_data_is_shipped():
    assert (SOURCE / "py.typed").is_file()
    shipped = PROJECT["tool"]["setuptools"]["package-data"]["curvedtrees.data"]
    assert "*.npz" in shipped
    assert list((SOURCE / "data").glob("*.npz")), "the land mask is missing from the package data"


def test_the_core_needs_only_numpy_scipy_scikit_learn_and_numba():
    core = {_requirement_name(r) for r in PROJECT["project"]["dependencies"]}
    assert core == {"numpy", "scipy", "scikit_learn", "numba"}


def test_each_optional_import_names_an_extra_that_installs_it():
    extras = PROJECT["project"]["optional-dependencies"]
    for module, extra in EXTRAS.items():
        names = {_requirement_name(r) for r in extras[extra]}
        # dask[distributed] installs the distributed module; world-temperature-data is its import name.
        assert module in names or (module == "distributed" and "dask" in names), (module, extra)


def test_one_version():
    assert "version" in PROJECT["project"]["dynamic"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", curvedtrees.__version__)


def _registering_modules() -> set[str]:
    """Modules of the source tree that import ``register`` from curvedtrees.io (lazily or not)."""
    found = set()
    for path in SOURCE.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and (node.module or "").split(".")[-1] == "io"
                and any(alias.name == "register" for alias in node.names)
            ):
                found.add(".".join(("curvedtrees", *path.relative_to(SOURCE).with_suffix("").parts)))
    return found


def test_every_module_that_registers_serialisers_is_an_entry_point():
    declared = PROJECT["project"]["entry-points"]["curvedtrees.serializers"]
    assert set(declared.values()) == _registering_modules()
    assert {"trees", "klein", "baselines", "boosting"} <= set(declared)


def test_the_installed_metadata_declares_the_same_entry_points():
    # An editable install reads its entry points from the metadata written at install
    # time: after editing pyproject.toml, `pip install -e .` must run again.
    from importlib.metadata import entry_points

    installed = {e.name: e.value for e in entry_points(group=curvedtrees.io.SERIALIZERS_GROUP)}
    declared = PROJECT["project"]["entry-points"]["curvedtrees.serializers"]
    assert {k: v for k, v in installed.items() if k in declared} == declared


def test_a_fresh_interpreter_loads_every_family_through_the_entry_points():
    # The documents are written here; the child imports nothing but curvedtrees.io, so
    # each family's classes can only be found through the entry points.
    from curvedtrees.baselines import GeodesicKNNClassifier, ProductSVMRegressor
    from curvedtrees.boosting import ProductGradientBoostingClassifier
    from curvedtrees.klein import KleinTreeClassifier
    from curvedtrees.trees import ProductDecisionTreeClassifier, ProductRandomForestRegressor

    families = [
        ProductDecisionTreeClassifier,
        ProductRandomForestRegressor,
        KleinTreeClassifier,
        GeodesicKNNClassifier,
        ProductSVMRegressor,
        ProductGradientBoostingClassifier,
    ]
    documents = [curvedtrees.io.dumps(cls()) for cls in families]
    script = textwrap.dedent(
        """
        import json, sys
        import curvedtrees.io as io
        families = ("curvedtrees.trees", "curvedtrees.klein", "curvedtrees.baselines", "curvedtrees.boosting")
        assert not any(m.startswith(families) for m in sys.modules), "curvedtrees.io imported a family"
        print(" ".join(type(io.loads(text)).__name__ for text in json.load(sys.stdin)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(documents), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [cls.__name__ for cls in families]


# A link target that is neither absolute (scheme://) nor an anchor: an index cannot resolve it.
_RELATIVE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*://|#)([^)\s]+)\)", re.IGNORECASE)


def _long_description_file() -> Path:
    readme = PROJECT["project"]["readme"]
    assert isinstance(readme, dict) and readme["content-type"] == "text/markdown"
    return ROOT / readme["file"]


def test_the_long_description_has_no_relative_links():
    # README.md shows the repository's screenshots by relative paths, which an index cannot
    # resolve; the index gets README-pypi.md.
    text = _long_description_file().read_text(encoding="utf-8")
    assert _RELATIVE_LINK.findall(text) == []
    assert _RELATIVE_LINK.findall("see ![shot](assets/screenshot.png) and [docs](https://x.org/a)") == [
        "assets/screenshot.png"
    ]


def test_the_long_description_shows_the_readmes_api_example():
    # The same five lines as README.md's (whose block test_doctests runs), so they stay true.
    def first_block(path: Path) -> str:
        return path.read_text(encoding="utf-8").split("```python\n")[1].split("```", 1)[0]

    assert first_block(_long_description_file()) == first_block(ROOT / "README.md")


def test_no_invented_project_urls():
    # The project has no public home yet: URLs appear only once they are real.
    assert "urls" not in PROJECT["project"]


def test_the_sdist_leaves_the_tests_out():
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    assert "prune tests" in manifest


@pytest.mark.slow
def test_the_built_sdist_holds_the_library_and_its_long_description(tmp_path):
    # Built from a copy (the build writes egg-info next to the sources), tests/ included in
    # the copy so that leaving it out is the manifest's doing.
    import shutil
    import tarfile

    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "MANIFEST.in", "README.md", "README-pypi.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "engine", source / "engine", ignore=ignore)
    shutil.copytree(ROOT / "tests", source / "tests", ignore=ignore)
    script = "from setuptools import build_meta; print(build_meta.build_sdist('../dist'))"
    done = subprocess.run([sys.executable, "-c", script], cwd=source, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    archive = tmp_path / "dist" / done.stdout.split()[-1]
    with tarfile.open(archive) as sdist:
        names = sdist.getnames()
        root = names[0].split("/")[0]
        info = sdist.extractfile(f"{root}/PKG-INFO").read().decode("utf-8")
    assert not [n for n in names if "/tests/" in n or n.endswith("conftest.py")]
    assert f"{root}/engine/trees/_classes.py" in names and f"{root}/engine/data/land_mask_0.05deg.npz" in names
    assert "Description-Content-Type: text/markdown" in info
    assert "## The API in five lines" in info and "assets/screenshot.png" not in info
    assert "Project-URL" not in info
