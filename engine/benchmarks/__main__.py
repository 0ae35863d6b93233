"""``python -m curvedtrees.benchmarks``: see :mod:`curvedtrees.benchmarks.cli`."""

from .cli import main

raise SystemExit(main())
