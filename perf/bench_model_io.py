"""Cost of checking the models embedded in Klein model files, against the libraries' own loading.

Loading a Klein document checks every XGBoost / LightGBM tree and re-emits a canonical
model before the library parses it (``curvedtrees.klein._validate``). This script times,
in one run, the whole ``curvedtrees.io.loads`` of such a document and, as the reference,
the library alone loading the same embedded text (``XGBClassifier.load_model`` /
``lightgbm.Booster(model_str=...)``), and prints the ratio and the milliseconds the
whole load takes per 1,000 tree nodes (goal: at most 20 ms per 1,000 nodes, so that a
large uploaded model is checked in seconds; the ratio is large for LightGBM, whose
multi-threaded C++ parser reads 50,000 nodes in some 30 ms).

    python perf/bench_model_io.py [--rounds 100] [--classes 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time


def _best(func, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--classes", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import lightgbm
    import xgboost
    from curvedtrees import io
    from curvedtrees.klein import KleinTreeClassifier
    from curvedtrees.sampling import make_classification

    X, y = make_classification("H4", n_samples=10_000, n_classes=args.classes, random_state=0)
    models = {
        "XGBoost": xgboost.XGBClassifier(n_estimators=args.rounds, max_depth=6, n_jobs=2),
        "LightGBM": lightgbm.LGBMClassifier(n_estimators=args.rounds, n_jobs=2, verbose=-1),
    }
    print(f"H4, {len(X):,} rows, {args.classes} classes, {args.rounds} rounds; best of {args.repeats}")
    print(
        f"{'model':<10} {'nodes':>8} {'text MB':>8} {'library s':>10} {'io.loads s':>11} {'ratio':>6} "
        f"{'ms/1k nodes':>12}"
    )
    for name, estimator in models.items():
        document = io.dumps(KleinTreeClassifier(estimator, signature="H4").fit(X, y))
        text = json.loads(document)["fitted"]["backend"]["model"]
        if name == "XGBoost":
            trees = json.loads(text)["learner"]["gradient_booster"]["model"]["trees"]
            nodes = sum(len(t["left_children"]) for t in trees)
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "model.json")
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text)

                def reference(path=path):
                    xgboost.XGBClassifier().load_model(path)

                library = _best(reference, args.repeats)
        else:
            nodes = sum(
                2 * int(v) - 1
                for v in (line.split("=")[1] for line in text.splitlines() if line.startswith("num_leaves="))
            )
            library = _best(lambda text=text: lightgbm.Booster(model_str=text), args.repeats)
        ours = _best(lambda document=document: io.loads(document), args.repeats)
        print(
            f"{name:<10} {nodes:>8,} {len(text) / 1e6:>8.1f} {library:>10.3f} {ours:>11.3f} {ours / library:>6.2f} "
            f"{1e6 * ours / nodes:>12.1f}"
        )


if __name__ == "__main__":
    main()
