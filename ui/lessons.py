"""Guided lessons: the geometry of decision boundaries, one picture and a few sentences at a time.

Pure module (no Streamlit). A lesson is a dataset recipe, one or two model recipes and a
list of steps; each step names the picture (a view key of :mod:`curvedtrees.viz.views`),
how many of the tree's splits to show (the order training chose them), and what to look
at. Everything is deterministic, so a lesson is its URL: ``?lesson=KEY&step=N``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ui.data import synthetic_recipe

__all__ = ["LESSONS", "Lesson", "Step", "get_lesson"]


@dataclass(frozen=True)
class Step:
    """One step of a lesson.

    Attributes
    ----------
    title : str
    text : str
        Markdown: what to look at.
    view : str
        A view key, e.g. ``"disk:0:1-2:poincare"``.
    splits : int or None
        Show the tree after this many splits (0: the points alone), None: the whole tree.
    model : str
        Which of the lesson's models draws the picture.
    compare : tuple of (view, model) or None
        A second picture beside the first (the same data and grid).
    dashed : tuple of (model, legend name) or None
        A lesson model whose split boundaries are drawn dashed over the first picture.
    margin_node : int or None
        A split of the picture's model whose margin band and nearest training rows are drawn.
    caption : str or None
        What the picture shows, instead of the model's name and its number of splits.
    """

    title: str
    text: str
    view: str
    splits: int | None = None
    model: str = "tree"
    compare: tuple[str, str] | None = None
    dashed: tuple[str, str] | None = None
    margin_node: int | None = None
    caption: str | None = None


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    summary: str
    data: dict
    models: dict
    steps: tuple[Step, ...]


_TREE = {"family": "product_tree", "params": {"max_depth": 4, "min_samples_leaf": 5}, "test_size": 0.25, "seed": 0}

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "poincare-geodesics",
        "Geodesics of the Poincaré disk",
        "Why a split of hyperbolic data is an arc that meets the rim at right angles.",
        synthetic_recipe("H2", 500, 3, seed=20, n_clusters=6, cov_scale=0.5, title="Three classes on H2"),
        {"tree": _TREE},
        (
            Step(
                "The data",
                "Three classes of points on the hyperbolic plane, drawn in the **Poincaré disk**. The "
                "rim is infinitely far away: points near it are far apart even when they look close.",
                "disk:0:1-2:poincare",
                0,
            ),
            Step(
                "The first split",
                "A split is a **plane through the origin of the hyperboloid** "
                "`x0² - x1² - x2² = 1`. Such a plane cuts the hyperboloid along a geodesic, and in the disk that "
                "geodesic is a circular arc that meets the rim **at right angles**. Every point on one side of "
                "the arc goes left in the tree. The Inspector names the two rim angles of each arc.",
                "disk:0:1-2:poincare",
                1,
            ),
            Step(
                "Two more splits",
                "Each split cuts only its own node's region: the second and third arcs stop at "
                "the first. Regions of a tree are intersections of half-planes bounded by geodesics, so every "
                "region is **geodesically convex**: the shortest path between two of its points stays inside.",
                "disk:0:1-2:poincare",
                3,
            ),
            Step(
                "The whole tree",
                "All the splits: the regions tile the disk. Pale colours mark leaves the tree is less sure of.",
                "disk:0:1-2:poincare",
                None,
            ),
        ),
    ),
    Lesson(
        "klein-disk",
        "The Klein disk, where geodesics are straight",
        "The same tree in another model of the hyperbolic plane: arcs become straight chords.",
        synthetic_recipe("H2", 500, 3, seed=20, n_clusters=6, cov_scale=0.5, title="Three classes on H2"),
        {"tree": _TREE},
        (
            Step(
                "Poincaré and Klein side by side",
                "Left: the Poincaré disk. Right: the **Klein disk**, which "
                "maps every point `x` of the hyperboloid to `(x1/x0, x2/x0)`. Geodesics of the Klein disk are "
                "straight chords, so the arcs on the left are straight lines on the right, with the same "
                "endpoints on the rim.",
                "disk:0:1-2:poincare",
                1,
                compare=("disk:0:1-2:klein", "tree"),
            ),
            Step(
                "Why trees like the Klein disk",
                "A split of the product tree on the plane `(x0, xj)` keeps "
                "`xj/x0 <= t`: a straight cut of one Klein coordinate. That is why any Euclidean tree library "
                "can learn on Klein coordinates (the Train page's Klein wrapper) and still split along geodesics.",
                "disk:0:1-2:klein",
                None,
            ),
            Step(
                "The whole tree in both disks",
                "The regions are the same sets of points; only the drawing "
                "differs. Angles are true in the Poincaré disk, straightness in the Klein disk.",
                "disk:0:1-2:poincare",
                None,
                compare=("disk:0:1-2:klein", "tree"),
            ),
        ),
    ),
    Lesson(
        "sphere-great-circles",
        "Great circles on the sphere",
        "On a sphere a split is a great circle: the sphere's section by a plane through its centre.",
        synthetic_recipe("S2", 600, 4, seed=2, n_clusters=8, cov_scale=0.35, title="Four classes on S2"),
        {"tree": _TREE},
        (
            Step(
                "The data",
                "Four classes on the sphere S2. Turn the globe with the mouse.",
                "sphere:0:0-1-2:poincare",
                0,
            ),
            Step(
                "A great circle",
                "The first split is a plane through the sphere's centre; it meets the sphere "
                "in a **great circle**, the sphere's geodesic. The Inspector gives the circle's pole as a "
                "latitude and longitude.",
                "sphere:0:0-1-2:poincare",
                1,
            ),
            Step(
                "Regions are spherical polygons",
                "Later splits are great circles too, each cutting one region. "
                "A region smaller than a hemisphere is geodesically convex.",
                "sphere:0:0-1-2:poincare",
                None,
            ),
        ),
    ),
    Lesson(
        "torus-wrap",
        "The torus S1 x S1 and splits that wrap around",
        "Angles have no ends: a split of a circle can hold an arc that crosses ±180°.",
        synthetic_recipe("S1 x S1", 600, 3, seed=5, n_clusters=6, cov_scale=0.5, title="Three classes on a torus"),
        {"tree": _TREE},
        (
            Step(
                "Two circles",
                "Each row has two angles: a point on the **torus** S1 x S1 (think of the time of "
                "day and the day of the year).",
                "torus:0-1::poincare",
                0,
            ),
            Step(
                "A split of one circle",
                "A split of a circle is a diameter: it keeps a half-turn of angles on "
                "one side, wherever that half-turn starts. On the torus it is a band around the ring, and it may "
                "cross the seam where -180° meets 180°: nothing special happens there.",
                "torus:0-1::poincare",
                1,
            ),
            Step(
                "One circle alone",
                "The same tree seen on the first circle, the second held at the data's "
                "origin: each split of this circle is a line through the centre.",
                "circle:0::poincare",
                None,
            ),
            Step(
                "The whole tree",
                "Bands of the two circles intersect in rectangles on the torus that wrap around it.",
                "torus:0-1::poincare",
                None,
            ),
        ),
    ),
    Lesson(
        "product-components",
        "A product space: each split picks one component",
        "In H2 x S2 a point has a hyperbolic and a spherical part, and each split cuts one of them.",
        synthetic_recipe("H2 x S2", 700, 4, seed=0, n_clusters=8, cov_scale=0.45, title="Four classes on H2 x S2"),
        {"tree": _TREE},
        (
            Step(
                "Two pictures of one dataset",
                "Left, the hyperbolic part of every row; right, its spherical "
                "part. A picture of one component holds the other at the data's origin.",
                "disk:0:1-2:poincare",
                0,
                compare=("sphere:1:0-1-2:poincare", "tree"),
            ),
            Step(
                "The first split",
                "A split is chosen among the planes of **every** component; it cuts one "
                "component and ignores the other, so it appears as a boundary in one picture only.",
                "disk:0:1-2:poincare",
                1,
                compare=("sphere:1:0-1-2:poincare", "tree"),
            ),
            Step(
                "The whole tree",
                "A region of the product is a region of H2 times a region of S2; the Train "
                "page's component importances say how much each component decided.",
                "disk:0:1-2:poincare",
                None,
                compare=("sphere:1:0-1-2:poincare", "tree"),
            ),
        ),
    ),
    Lesson(
        "maximum-margin",
        "Maximum-margin thresholds",
        "Where exactly a split sits between the two sides' nearest training points.",
        synthetic_recipe("H2", 300, 2, seed=6, n_clusters=2, cov_scale=0.3, title="Two classes far out on H2"),
        {
            # One split each (both trees are stumps: the two classes are separable), so the
            # picture shows one choice of boundary between the same two sides.
            "tree": {**_TREE, "params": {"max_depth": 1}},
            "midpoint": {
                "family": "klein",
                "params": {"estimator": "decision_tree", "max_margin": False},
                "test_size": 0.25,
                "seed": 0,
            },
            "wrapped": {
                "family": "klein",
                "params": {"estimator": "decision_tree", "max_margin": True},
                "test_size": 0.25,
                "seed": 0,
            },
        },
        (
            Step(
                "Two boundaries, one split",
                "A tree of one split. Any boundary between the two ringed points (each side's nearest "
                "training row) makes the same training error. **Dashed**: scikit-learn's tree on Klein "
                "coordinates, at the midpoint of the two rows' `x1/x0`. **Solid**: the product tree's "
                "**maximum margin**, equally far from both rows in hyperbolic distance. The tinted band "
                "is the margin.",
                "disk:0:1-2:poincare",
                None,
                dashed=("midpoint", "Klein midpoint (scikit-learn)"),
                margin_node=0,
                caption="Solid: maximum margin (product tree) · dashed: Klein midpoint (scikit-learn)",
            ),
            Step(
                "The midpoint is not the middle",
                "The same boundaries in the **Klein disk**, where geodesics are straight. The dashed chord "
                "halves the straight gap between the ringed rows, but the Klein disk squeezes distance "
                "toward the rim: the same length on the page is ever more hyperbolic distance. The "
                "maximum-margin chord sits nearer the row closer to the rim, which is the true middle.",
                "disk:0:1-2:klein",
                None,
                dashed=("midpoint", "Klein midpoint (scikit-learn)"),
                margin_node=0,
                caption="Solid: maximum margin · dashed: Klein midpoint, in the Klein disk",
            ),
            Step(
                "Any tree library, at maximum margin",
                "The Train page's **Klein wrapper** (Fast-HyperDT) lets scikit-learn grow the tree on Klein "
                "coordinates, then moves every threshold to the maximum margin: its boundary (dashed) now lies "
                "on the product tree's. The Inspector lists each split's margin in the units of `dist` and "
                "draws the band of the node you pick.",
                "disk:0:1-2:poincare",
                None,
                dashed=("wrapped", "Klein wrapper, maximum margin"),
                margin_node=0,
                caption="Solid: product tree · dashed: Klein wrapper with maximum margin (Fast-HyperDT)",
            ),
        ),
    ),
)


def get_lesson(key: str | None) -> Lesson | None:
    """The lesson named ``key`` (from a URL), or None."""
    return next((lesson for lesson in LESSONS if lesson.key == key), None)
