"""The package metadata in pyproject.toml agrees with the source tree and the optional imports."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import curvedtrees
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
