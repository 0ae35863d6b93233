"""The examples (``>>>``) in the package's docstrings run and print what they say."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import curvedtrees
import pytest

PACKAGE_DIR = Path(curvedtrees.__file__).resolve().parent


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join(("curvedtrees", *parts)))
    return names


MODULES = _modules_with_examples()


def test_the_public_api_has_examples():
    assert {"curvedtrees.trees._classes", "curvedtrees.manifolds.signature", "curvedtrees.sampling"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (see the output above)"


def test_the_readme_api_example_runs():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = readme.split("```python\n")[1:]
    assert blocks, "the README has no python example"
    code = blocks[0].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)  # the README's own text, not user input
    X, forest, same = namespace["X"], namespace["forest"], namespace["same"]
    assert (same.predict(X) == forest.predict(X)).all()
