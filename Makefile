# Two entry points for a fresh Linux machine with Python 3.11+:
#   make run   installs everything into .venv and starts the app
#   make test  installs everything into .venv and runs the whole test suite
# and one for serving a class or a lab from this machine:
#   make serve starts the app headless on every interface (ADDRESS, PORT)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8501
ADDRESS ?= 0.0.0.0

.PHONY: run serve test test-fast lint format bench browser-deps clean

# The stamp file is rebuilt whenever a requirements file changes, so repeated
# runs reuse the virtual environment and only reinstall when needed.
# requirements.txt installs curvedtrees editable in strict mode (so type checkers resolve it):
# a new module under engine/ is importable after `make install`.
$(VENV)/.installed: pyproject.toml requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

# Reinstalls into the existing virtual environment (after adding a module under engine/).
.PHONY: install
install:
	rm -f $(VENV)/.installed
	$(MAKE) $(VENV)/.installed

# Compiling the tree kernels once (cached on disk by numba) keeps the first page fast.
run: $(VENV)/.installed
	$(BIN)/python -c "import curvedtrees, curvedtrees.klein; curvedtrees.warm_up(); curvedtrees.klein.warm_up()"
	$(BIN)/streamlit run app.py --server.port $(PORT)

# Serving a class: the same app and settings (.streamlit/config.toml: no file watcher, no full
# garbage collection after every script run; perf/bench_class.py measures them), headless, on
# every interface, with the kernels compiled before the first visitor arrives. Heavy work runs in
# the app's worker pool (curvedtrees.limits: JOB_WORKERS, MAX_SERVER_MEMORY_BYTES).
serve: $(VENV)/.installed
	$(BIN)/python -c "import curvedtrees, curvedtrees.klein; curvedtrees.warm_up(); curvedtrees.klein.warm_up()"
	$(BIN)/streamlit run app.py --server.headless true --server.address $(ADDRESS) --server.port $(PORT)

# Browser tests drive Debian's chromium through Python playwright; install it
# once when it is missing (needs root, as on CI and the developer machines).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium missing: browser tests will be skipped (install Debian's chromium)"; fi; }

test: $(VENV)/.installed browser-deps
	$(BIN)/python -m pytest

# The inner loop: no browser, nothing marked slow (about a third of the suite's time).
test-fast: $(VENV)/.installed
	$(BIN)/python -m pytest -q -m "not browser and not slow"

# CI runs this beside the tests: lint and formatting (the doctests are part of the suite), and
# mypy on the package against scripts/typecheck_baseline.txt, whose counts may only go down.
lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python scripts/typecheck.py

format: $(VENV)/.installed
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(VENV)/.installed
	for script in perf/bench_*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache

# The documentation site (docs/: Sphinx, sphinx-gallery, numpydoc, PyData theme). Installs
# requirements-docs.txt once, runs every gallery script, and fails on any warning; the
# site lands in docs/_build/html (open docs/_build/html/index.html). Nothing is fetched
# from the network while building.
DOCS_BUILD ?= docs/_build
.PHONY: docs
$(VENV)/.docs-installed: $(VENV)/.installed requirements-docs.txt
	$(BIN)/python -m pip install --quiet -r requirements-docs.txt
	touch $@

docs: $(VENV)/.docs-installed
	@# autosummary writes one page per listed name; pages of names since renamed would fail the build.
	rm -rf docs/api/generated
	$(BIN)/sphinx-build -W --keep-going -b html -d $(DOCS_BUILD)/doctrees docs $(DOCS_BUILD)/html
