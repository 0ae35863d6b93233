"""Peak memory of ``curvedtrees.io.loads`` against the document's size, with a reference in the same run.

For each document the script measures, with ``tracemalloc`` (the text itself is
allocated before measuring starts):

* ``loads``: the peak of ``curvedtrees.io.loads(text)``;
* ``parse``: the peak of a plain ``json.loads(text)``, the reference: the Python
  objects any reader that parses the whole document first must hold (``loads``
  used to hold them and then copy every array).

and prints both as multiples of the document's size, and their ratio. Documents:
a decision tree and a 20-tree forest fitted without a depth limit (ordinary
models), and a hostile document whose one array repeats a short float literal
(the worst case per byte for Python floats).

Usage: ``python perf/bench_io.py [--rows 100000]``
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc

from curvedtrees import ProductDecisionTreeClassifier, ProductRandomForestClassifier, io, make_classification


def peak(function, text: str) -> tuple[int, float]:
    tracemalloc.start()
    started = time.perf_counter()
    result = function(text)
    seconds = time.perf_counter() - started
    top = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return top, seconds


def hostile_document(n_items: int) -> str:
    """A valid tree document whose ``threshold`` array is ``n_items`` copies of 0.5 (other arrays broken)."""
    X, y = make_classification("E2", n_samples=100, n_classes=2, n_clusters=2, random_state=0)
    document = json.loads(io.dumps(ProductDecisionTreeClassifier(signature="E2", max_depth=1).fit(X, y)))
    document["fitted"]["tree"]["threshold"] = {"dtype": "float64", "shape": [n_items], "data": [0.5] * n_items}
    return json.dumps(document)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="training rows of the tree and forest")
    args = parser.parse_args()
    X, y = make_classification("H2 x S2 x E2", n_samples=args.rows, n_classes=8, random_state=0)
    documents = {
        "tree": io.dumps(ProductDecisionTreeClassifier(signature="H2 x S2 x E2", random_state=0).fit(X, y)),
        "forest (20 trees)": io.dumps(
            ProductRandomForestClassifier(20, signature="H2 x S2 x E2", max_samples=0.2, random_state=0).fit(X, y)
        ),
        "hostile (one array of 0.5)": hostile_document(2_000_000),
    }

    def load(text):
        try:
            return io.loads(text)
        except ValueError:  # the hostile document is refused after its arrays are read
            return None

    load(documents["tree"])  # import the serialisers before measuring
    print(f"{'document':28s} {'MB':>7s} {'loads/doc':>10s} {'parse/doc':>10s} {'loads/parse':>12s} {'loads s':>8s}")
    for name, text in documents.items():
        size = len(text)
        ours, seconds = peak(load, text)
        reference, _ = peak(json.loads, text)
        print(
            f"{name:28s} {size / 1e6:7.1f} {ours / size:10.2f} {reference / size:10.2f} {ours / reference:12.2f} "
            f"{seconds:8.2f}"
        )


if __name__ == "__main__":
    main()
