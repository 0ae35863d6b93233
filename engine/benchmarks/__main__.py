"""``python -m engine.benchmarks``: see :mod:`engine.benchmarks.cli`."""

from engine.benchmarks.cli import main

raise SystemExit(main())
