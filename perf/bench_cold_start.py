"""CPU time of a first fit: cold (numba's cache empty) and warm (cache filled), beside the goal.

Each measurement is a fresh Python process whose numba cache (``NUMBA_CACHE_DIR``) is a new
temporary folder: the cold process compiles every kernel its fit calls and fills the folder,
then a second process on the same folder loads them. A tree, a forest and a boosting model are
measured in separate folders, each as a user's first fit of that kind would be. CPU time is the
child's (``resource.getrusage``), so a loaded machine does not inflate it; "fit" is the fit
itself (``time.process_time`` around it in the child) and "process" the whole child, imports
included. Goal (issue 26): a cold first tree fit under 5 CPU-s, a warm one under 1::

    nice -n 10 python perf/bench_cold_start.py            # tree, forest, boosting
    nice -n 10 python perf/bench_cold_start.py tree       # only some

It also lists the kernels that compiled in the cold tree fit with their compile times
(``--kernels``), which is where to cut further.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap

GOALS = {"tree": (5.0, 1.0)}  # (cold, warm) CPU-seconds of the fit

_CHILD = textwrap.dedent(
    """
    import json, sys, time
    kind, list_kernels = sys.argv[1], sys.argv[2] == "1"
    compiled = []
    if list_kernels:
        from numba.core import event

        class Timer(event.Listener):
            def __init__(self):
                self.stack = []

            def on_start(self, e):
                self.stack.append(time.process_time())

            def on_end(self, e):
                started = self.stack.pop()
                d = e.data["dispatcher"]
                name = d.py_func.__module__ + "." + d.py_func.__qualname__
                compiled.append((name, str(e.data["args"]), time.process_time() - started, len(self.stack)))

        event.register("numba:compile", Timer())
    import numpy as np
    import curvedtrees as ct

    X, y = ct.make_classification("H2 x S2 x E2", n_samples=1000, random_state=0)
    models = {
        "tree": lambda: ct.ProductDecisionTreeClassifier(signature="H2 x S2 x E2", random_state=0),
        "forest": lambda: ct.ProductRandomForestClassifier(10, signature="H2 x S2 x E2", random_state=0),
        "boosting": lambda: ct.ProductGradientBoostingClassifier(
            signature="H2 x S2 x E2", max_iter=10, random_state=0
        ),
    }
    model = models[kind]()
    started = time.process_time()
    model.fit(X, y)
    fit = time.process_time() - started
    started = time.process_time()
    model.predict(X)
    predict = time.process_time() - started
    print(json.dumps({"fit": fit, "predict": predict, "compiled": compiled}))
    """
)


def run_child(kind: str, cache_dir: str, list_kernels: bool = False) -> dict:
    """One fresh process fitting ``kind`` on ``cache_dir``: its fit, predict and whole CPU-seconds."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, kind, "1" if list_kernels else "0"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result["notice"] = "curvedtrees.warm_up" in out.stderr
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kinds", nargs="*", default=["tree", "forest", "boosting"])
    parser.add_argument("--kernels", action="store_true", help="list the kernels the cold tree fit compiled")
    args = parser.parse_args(argv)
    print(f"{'first fit':<10} {'cache':<5} {'fit CPU-s':>9} {'process':>8} {'predict':>8} {'notice':>6}  goal")
    for kind in args.kinds:
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache_dir:
            for state in ("cold", "warm"):
                r = run_child(kind, cache_dir, list_kernels=args.kernels and state == "cold")
                goal = GOALS.get(kind)
                verdict = ""
                if goal:
                    limit = goal[0] if state == "cold" else goal[1]
                    verdict = f"< {limit:.0f}: {'met' if r['fit'] < limit else 'NOT met'} ({r['fit'] / limit:.2f}x)"
                print(
                    f"{kind:<10} {state:<5} {r['fit']:9.2f} {r['process']:8.2f} {r['predict']:8.2f} "
                    f"{'yes' if r['notice'] else 'no':>6}  {verdict}"
                )
                if r["compiled"]:
                    print("  kernels compiled (outermost first by CPU-s, nested ones indented):")
                    for name, sig, seconds, depth in sorted(r["compiled"], key=lambda c: (c[3], -c[2])):
                        print(f"  {'  ' * depth}{seconds:6.2f}  {name}{sig}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
