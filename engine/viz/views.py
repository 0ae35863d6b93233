"""Pictures of one component (or a pair of circles) and the grids that fill them.

A *view* says which part of a product manifold a picture shows:

* ``disk``   an H component (dim >= 2) on the Poincaré or the Klein disk;
* ``sphere`` an S component (dim >= 2) as a 3-D sphere;
* ``map``    an S component (dim >= 2) as a flat equirectangular world map
  (longitude across, latitude up; offered for components that are the globe);
* ``ortho``  the same on an orthographic projection, the hemisphere seen from
  far away, which the figure turns around the polar axis;
* ``circle`` an S1 component as a ring;
* ``torus``  two S1 components as a 3-D torus;
* ``plane``  an E component (dim >= 2) as a flat rectangle;
* ``line``   an E1 or H1 component as a strip.

Components of higher dimension are cut by a 2-D slice through their origin
(for H and S: the totally geodesic copy of H2 or S2 spanned by the chosen
axes, every other coordinate 0; for E: the chosen two axes, every other
coordinate held at the reference point). Every other component of the product
is held at a *reference point* (:func:`reference_point`).

A :class:`ViewGrid` carries, for every grid cell that lies on the manifold, the
values of the product's ambient columns that the view sets. Building the
ambient rows to classify is then one ``np.tile`` of the reference point plus
one column assignment (:func:`product_rows`), so a whole picture is predicted
with a single call to the model.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from .. import coords
from ..manifolds.signature import Signature

__all__ = [
    "SPHERE_KINDS",
    "VIEW_KINDS",
    "View",
    "ViewGrid",
    "available_views",
    "data_bounds",
    "describe_view",
    "facing_direction",
    "holds_reference",
    "ortho_project",
    "ortho_unproject",
    "product_rows",
    "project_points",
    "reference_point",
    "unit_to_latlon",
    "view_grid",
]

VIEW_KINDS = ("disk", "sphere", "map", "ortho", "circle", "torus", "plane", "line")
# Views that show an S component by latitude and longitude of its three chosen axes.
SPHERE_KINDS = ("sphere", "map", "ortho")

# Grid cells and curve samples stay this far (relative to R) inside the rim of a
# Poincaré or Klein disk: at the rim the hyperboloid coordinates are infinite.
RIM_MARGIN = 1e-6
# Share of each side's data range added around a plane or line picture so that
# the outermost points are not drawn on the frame.
BOUNDS_PAD = 0.08
# Torus drawn with these radii (major, minor): fat enough to see both angles.
TORUS_RADII = (2.0, 0.85)


@dataclass(frozen=True)
class View:
    """Which part of a product manifold a picture shows.

    Parameters
    ----------
    kind : {"disk", "sphere", "map", "ortho", "circle", "torus", "plane", "line"}
    components : tuple of int
        Index of the component shown (two indices for a torus).
    axes : tuple of int
        Ambient coordinates of the component used by the picture, counted from 0
        inside the component: two spatial axes (>= 1) for a disk; three ambient
        axes for a sphere, map or ortho (latitude from the third, longitude from
        the first two); two (plane) or one (line) axes for E; ``()`` otherwise.
    model : {"poincare", "klein"}
        Disk model of an H component (ignored by other kinds).
    """

    kind: str
    components: tuple[int, ...]
    axes: tuple[int, ...] = ()
    model: str = "poincare"

    @property
    def key(self) -> str:
        """Short stable text naming the view (used in URLs and cache keys)."""
        comps = "-".join(str(c) for c in self.components)
        axes = "-".join(str(a) for a in self.axes)
        return f"{self.kind}:{comps}:{axes}:{self.model}"

    @classmethod
    def from_key(cls, key: str, signature) -> View:
        """Parse :attr:`key` back, checking it against ``signature``.

        Raises
        ------
        ValueError
            When the text is malformed or does not fit the signature.
        """
        try:
            kind, comps, axes, model = key.split(":")
            components = tuple(int(c) for c in comps.split("-") if c != "")
            axes_t = tuple(int(a) for a in axes.split("-") if a != "")
        except ValueError:
            raise ValueError(f"malformed view {key!r}: expected kind:components:axes:model") from None
        view = cls(kind, components, axes_t, model)
        _check_view(view, Signature.parse(signature))
        return view

    def with_model(self, model: str) -> View:
        """The same view on the other disk model (``"poincare"`` or ``"klein"``)."""
        return View(self.kind, self.components, self.axes, model)


@dataclass
class ViewGrid:
    """The cells of a picture and the ambient values they stand for.

    Attributes
    ----------
    view : View
    shape : (int, int)
        Grid shape (rows, columns) of the picture.
    mask : ndarray of bool, shape (rows * columns,)
        Cells that lie on the manifold (a disk's square corners do not).
    columns : ndarray of int, shape (c,)
        Product ambient columns the view sets.
    values : ndarray of float64, shape (mask.sum(), c)
        Their values at every cell on the manifold (row-major cell order).
    coords : dict of str to ndarray
        Picture coordinates: ``x``, ``y`` axes (1-D) for disk / plane; ``x`` for
        line; ``theta`` (degrees) for circle; ``vx``, ``vy``, ``vz`` (cell corners,
        2-D float32) for sphere / torus; ``lon``, ``lat`` (cell centres in
        degrees, 1-D) for map / ortho.
    bounds : tuple of float or None
        ``(xmin, xmax, ymin, ymax)`` of a plane, ``(xmin, xmax)`` of a line.
    """

    view: View
    shape: tuple[int, int]
    mask: np.ndarray
    columns: np.ndarray
    values: np.ndarray
    coords: dict = field(default_factory=dict)
    bounds: tuple | None = None


# --------------------------------------------------------------------- views
def _check_view(view: View, signature: Signature) -> None:
    if view.kind not in VIEW_KINDS:
        raise ValueError(f"unknown view kind {view.kind!r}; expected one of {', '.join(VIEW_KINDS)}")
    if view.model not in ("poincare", "klein"):
        raise ValueError(f"unknown disk model {view.model!r}; expected 'poincare' or 'klein'")
    n_comp = len(signature.components)
    want = 2 if view.kind == "torus" else 1
    if len(view.components) != want or any(not 0 <= c < n_comp for c in view.components):
        raise ValueError(f"view {view.key!r} names components that {signature} does not have")
    comps = [signature.components[c] for c in view.components]
    comp = comps[0]
    if view.kind == "torus":
        if any(c.kind != "S" or c.dim != 1 for c in comps) or view.components[0] == view.components[1]:
            raise ValueError("a torus view needs two different S1 components")
        return
    expected = {
        "disk": ("H", lambda d: d >= 2, 2, range(1, comp.dim + 1)),
        "sphere": ("S", lambda d: d >= 2, 3, range(0, comp.dim + 1)),
        "map": ("S", lambda d: d >= 2, 3, range(0, comp.dim + 1)),
        "ortho": ("S", lambda d: d >= 2, 3, range(0, comp.dim + 1)),
        "circle": ("S", lambda d: d == 1, 0, range(0)),
        "plane": ("E", lambda d: d >= 2, 2, range(0, comp.dim)),
        "line": ("HE", lambda d: d == 1, 1 if comp.kind == "E" else 0, range(0, comp.dim)),
    }[view.kind]
    kinds, dim_ok, n_axes, allowed = expected
    if comp.kind not in kinds or not dim_ok(comp.dim):
        raise ValueError(f"a {view.kind} view cannot show the component {comp.name}")
    if len(view.axes) != n_axes or len(set(view.axes)) != n_axes or any(a not in allowed for a in view.axes):
        raise ValueError(
            f"view {view.key!r}: {comp.name} needs {n_axes} different axes among {list(allowed)}, got {view.axes}"
        )


def available_views(signature, max_tori: int = 6, globe=()) -> list[View]:
    """One natural picture per component, plus tori for pairs of S1 components.

    Parameters
    ----------
    signature : str or Signature
    max_tori : int
        At most this many torus views (pairs in signature order).
    globe : iterable of int
        S2 components that are the Earth (``Dataset.globe``): each also gets a
        flat world map and an orthographic view, right after its sphere.

    Returns
    -------
    list of View
        Default axes: the first two spatial axes of H, the first three ambient
        axes of S, the first two axes of E.
    """
    signature = Signature.parse(signature)
    globe = {int(c) for c in globe}
    views = []
    for comp in signature.components:
        c = comp.index
        if comp.kind == "H":
            views.append(View("disk", (c,), (1, 2)) if comp.dim >= 2 else View("line", (c,), ()))
        elif comp.kind == "S":
            views.append(View("sphere", (c,), (0, 1, 2)) if comp.dim >= 2 else View("circle", (c,), ()))
            if comp.dim == 2 and c in globe:
                views += [View("map", (c,), (0, 1, 2)), View("ortho", (c,), (0, 1, 2))]
        else:
            views.append(View("plane", (c,), (0, 1)) if comp.dim >= 2 else View("line", (c,), (0,)))
    circles = [c.index for c in signature.components if c.kind == "S" and c.dim == 1]
    for pair in itertools.islice(itertools.combinations(circles, 2), max_tori):
        views.append(View("torus", pair, ()))
    return views


def describe_view(view: View, signature) -> tuple[str, str]:
    """Title and a sentence saying what the picture shows and which slice.

    Returns
    -------
    title : str
        Such as ``"H2 (component 1) on the Poincaré disk"``.
    note : str
        The slice and how data points are placed, for the page to print.
    """
    signature = Signature.parse(signature)
    _check_view(view, signature)
    comps = [signature.components[c] for c in view.components]
    comp = comps[0]
    who = f"{comp} (component {comp.index + 1})"
    if view.kind == "torus":
        a, b = comps
        return (
            f"{a} x {b} (components {a.index + 1} and {b.index + 1}) on a torus",
            f"Around the ring: the angle of component {a.index + 1}; around the tube: the angle of "
            f"component {b.index + 1}.",
        )
    if view.kind == "disk":
        name = "Poincaré" if view.model == "poincare" else "Klein"
        title = f"{who} on the {name} disk"
        if comp.dim == 2:
            shape = "circular arcs meeting the rim at right angles" if view.model == "poincare" else "straight chords"
            return title, f"Geodesics are {shape}."
        a, b = view.axes
        return title, (
            f"{comp.name} is cut by the 2-D slice spanned by x{a} and x{b} through its origin (every other "
            f"coordinate 0: a totally geodesic copy of H2); points are shown by their {name} coordinates "
            f"x{a}, x{b}, that is projected onto the slice."
        )
    if view.kind == "sphere":
        title = f"{who} on the sphere"
        if comp.dim == 2:
            return title, "Great circles are the geodesics; north is x2 > 0."
        a, b, c = view.axes
        return title, (
            f"{comp.name} is cut by the great 2-sphere of the ambient axes x{a}, x{b}, x{c} (every other "
            f"coordinate 0); points are shown by the direction of those three coordinates."
        )
    if view.kind in ("map", "ortho"):
        if view.kind == "map":
            title, how = f"{who} on a world map", "Equirectangular: longitude across, latitude up."
        else:
            title, how = (
                f"{who} on a turning globe (orthographic)",
                "The hemisphere seen from far away; Play turns it around the polar axis.",
            )
        if comp.dim == 2:
            return title, how
        a, b, c = view.axes
        return title, f"{how} Latitude and longitude of the great 2-sphere of the ambient axes x{a}, x{b}, x{c}."
    if view.kind == "circle":
        return f"{who} on the circle", "Angle atan2(x1, x0); points sit just outside the ring, spread out to be seen."
    if view.kind == "plane":
        title = f"{who} on the plane"
        if comp.dim == 2:
            return title, "Axes x0 and x1."
        a, b = view.axes
        return title, (
            f"{comp.name} is cut by the plane of x{a} and x{b}; every other coordinate is held at the "
            f"reference point; points are shown by their x{a}, x{b}."
        )
    if comp.kind == "H":
        return f"{who} on the Poincaré interval", "Position along the hyperbolic line in Poincaré coordinates."
    return f"{who} on the line", "Position along the line; points are spread vertically to be seen."


# ---------------------------------------------------------- reference points
def reference_point(signature, X=None, mode: str = "origin", index: int | None = None) -> np.ndarray:
    """The point at which components outside a picture are held.

    Parameters
    ----------
    signature : str or Signature
    X : array-like of shape (n_samples, ambient_dim), optional
        Data for ``"mean"`` and ``"point"``.
    mode : {"origin", "mean", "point"}
        ``"origin"``: each component's origin. ``"mean"``: per component, the
        ambient mean of the data put back on the manifold (for H the Lorentzian
        centroid, for S the normalised mean direction, for E the mean; S falls
        back to the origin when the directions cancel). ``"point"``: row ``index``
        of ``X``.
    index : int, optional
        Row of ``X`` for ``mode="point"``.

    Returns
    -------
    ndarray of shape (ambient_dim,)
    """
    signature = Signature.parse(signature)
    ref = np.zeros(signature.ambient_dim)
    for comp in signature.components:
        if comp.kind != "E":
            ref[comp.start] = comp.radius
    if mode == "origin":
        return ref
    if X is None:
        raise ValueError(f"reference point {mode!r} needs data")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != signature.ambient_dim or len(X) == 0:
        raise ValueError(f"reference data must have shape (n, {signature.ambient_dim}), got {X.shape}")
    if mode == "point":
        if index is None or not 0 <= int(index) < len(X):
            raise ValueError(f"reference row must be between 0 and {len(X) - 1}, got {index}")
        return X[int(index)].copy()
    if mode != "mean":
        raise ValueError(f"unknown reference point {mode!r}; expected 'origin', 'mean' or 'point'")
    for comp in signature.components:
        block = X[:, comp.slice]
        block = block[np.isfinite(block).all(axis=1)]
        if len(block) == 0:
            continue
        mean = block.mean(axis=0)
        if comp.kind == "E":
            ref[comp.slice] = mean
        elif comp.kind == "H":
            # The mean of future-pointing timelike vectors is timelike: rescale it
            # back onto the hyperboloid (the Lorentzian centroid).
            lorentz = mean[0] ** 2 - np.dot(mean[1:], mean[1:])
            if lorentz > 0 and mean[0] > 0:
                ref[comp.slice] = mean * (comp.radius / math.sqrt(lorentz))
        else:
            norm = np.linalg.norm(mean)
            # Directions that (nearly) cancel have no mean direction: keep the origin.
            if norm > 1e-9 * comp.radius:
                ref[comp.slice] = mean * (comp.radius / norm)
    return ref


def data_bounds(view: View, signature, X=None) -> tuple:
    """Picture bounds of a plane or line view that fit the data (padded).

    Returns
    -------
    tuple
        ``(xmin, xmax, ymin, ymax)`` for a plane, ``(xmin, xmax)`` for a line,
        ``()`` for other views (their picture is the whole manifold).
    """
    signature = Signature.parse(signature)
    comp = signature.components[view.components[0]]
    if view.kind == "plane" or (view.kind == "line" and comp.kind == "E"):
        out = []
        for axis in view.axes:
            if X is None or len(X) == 0:
                lo, hi = -1.0, 1.0
            else:
                col = np.asarray(X, dtype=np.float64)[:, comp.start + axis]
                col = col[np.isfinite(col)]
                lo, hi = (float(col.min()), float(col.max())) if len(col) else (-1.0, 1.0)
            pad = max(hi - lo, 1e-9) * BOUNDS_PAD + (1.0 if hi - lo < 1e-9 else 0.0)
            out += [lo - pad, hi + pad]
        return tuple(out)
    return ()


# ----------------------------------------------------------------- grids
def _disk_to_ambient(points: np.ndarray, comp, view: View) -> np.ndarray:
    """2-D disk coordinates (n, 2) -> the component's ambient rows on the slice."""
    if view.model == "poincare":
        h2 = coords.poincare_to_hyperboloid(points, curvature=comp.curvature)
    else:
        h2 = coords.klein_to_hyperboloid(points, curvature=comp.curvature)
    out = np.zeros((len(points), comp.ambient_dim))
    out[:, 0] = h2[:, 0]
    out[:, view.axes[0]] = h2[:, 1]
    out[:, view.axes[1]] = h2[:, 2]
    return out


def _sphere_to_ambient(unit: np.ndarray, comp, view: View) -> np.ndarray:
    """Unit vectors (n, 3) -> the component's ambient rows on the great 2-sphere."""
    out = np.zeros((len(unit), comp.ambient_dim))
    out[:, list(view.axes)] = unit * comp.radius
    return out


def _circle(angles: np.ndarray, comp) -> np.ndarray:
    return coords.angle_to_circle(angles, curvature=comp.curvature)


def _line_to_ambient(x: np.ndarray, comp, view: View) -> np.ndarray:
    """Picture coordinate of a line view -> the component's ambient column(s) it sets."""
    if comp.kind == "H":
        return coords.poincare_to_hyperboloid(x[:, None], curvature=comp.curvature)
    return x[:, None]


def _component_columns(view: View, signature: Signature) -> np.ndarray:
    """Product ambient columns a view sets (the whole block for H and S slices)."""
    cols = []
    for c in view.components:
        comp = signature.components[c]
        if comp.kind == "E":
            cols += [comp.start + a for a in view.axes]
        else:
            cols += list(range(comp.start, comp.start + comp.ambient_dim))
    return np.asarray(cols, dtype=np.int64)


def view_grid(view: View, signature, resolution: int = 150, bounds: tuple | None = None) -> ViewGrid:
    """The picture's grid cells and the ambient values they stand for.

    Parameters
    ----------
    view : View
    signature : str or Signature
    resolution : int
        Cells per side (disk, plane, sphere latitude and longitude, torus); a
        circle gets ``2 * resolution`` sectors and a line ``2 * resolution`` cells.
    bounds : tuple, optional
        Plane ``(xmin, xmax, ymin, ymax)`` or line ``(xmin, xmax)`` (E only);
        defaults to [-1, 1] per side. See :func:`data_bounds`.

    Returns
    -------
    ViewGrid
    """
    signature = Signature.parse(signature)
    _check_view(view, signature)
    n = int(resolution)
    if not 4 <= n <= 1000:
        raise ValueError(f"grid resolution must be between 4 and 1000, got {resolution}")
    comp = signature.components[view.components[0]]
    columns = _component_columns(view, signature)

    if view.kind == "disk":
        R = comp.radius
        # Cell centres of an n x n grid over the square around the disk.
        axis = (np.arange(n) + 0.5) / n * 2 * R - R
        gx, gy = np.meshgrid(axis, axis)
        flat = np.column_stack([gx.ravel(), gy.ravel()])
        mask = np.hypot(flat[:, 0], flat[:, 1]) < R * (1 - RIM_MARGIN)
        values = _disk_to_ambient(flat[mask], comp, view)
        return ViewGrid(view, (n, n), mask, columns, values, {"x": axis, "y": axis}, (-R, R, -R, R))

    if view.kind == "sphere":
        # Cells of an n x n latitude-longitude grid, predicted at their centres; the figure draws a
        # surface through the centres (colours blend between neighbours, region edges cut smooth
        # over it). The corners (coords "vx", "vy", "vz") outline single cells: the margin band.
        lat_e, lon_e = np.linspace(-90.0, 90.0, n + 1), np.linspace(-180.0, 180.0, n + 1)
        unit = _latlon_grid(_centres(lat_e), _centres(lon_e)).reshape(-1, 3)
        values = _sphere_to_ambient(unit, comp, view)
        corners = _latlon_grid(lat_e, lon_e).astype(np.float32)
        xyz = {f"v{k}": corners[..., i] for i, k in enumerate("xyz")}
        return ViewGrid(view, (n, n), np.ones(n * n, dtype=bool), columns, values, xyz)

    if view.kind in ("map", "ortho"):
        # Cells of a latitude-longitude grid twice as wide as tall (square cells in
        # degrees), predicted at their centres; an orthographic figure resamples it.
        lat, lon = _centres(np.linspace(-90.0, 90.0, n + 1)), _centres(np.linspace(-180.0, 180.0, 2 * n + 1))
        unit = _latlon_grid(lat, lon).reshape(-1, 3)
        values = _sphere_to_ambient(unit, comp, view)
        return ViewGrid(
            view,
            (n, 2 * n),
            np.ones(2 * n * n, dtype=bool),
            columns,
            values,
            {"lon": lon, "lat": lat},
            (-180.0, 180.0, -90.0, 90.0),
        )

    if view.kind == "circle":
        m = 2 * n
        theta = (np.arange(m) + 0.5) / m * 2 * np.pi - np.pi
        values = _circle(theta, comp)
        return ViewGrid(view, (1, m), np.ones(m, dtype=bool), columns, values, {"theta": np.degrees(theta)})

    if view.kind == "torus":
        second = signature.components[view.components[1]]
        edges = np.linspace(-np.pi, np.pi, n + 1)
        # Rows: angle of the second component (around the tube); columns: the first (around the ring).
        ga, gb = np.meshgrid(_centres(edges), _centres(edges))
        values = np.hstack([_circle(ga.ravel(), comp), _circle(gb.ravel(), second)])
        va, vb = np.meshgrid(edges, edges)
        xyz = {f"v{k}": v for k, v in torus_xyz(va, vb).items()}
        return ViewGrid(view, (n, n), np.ones(n * n, dtype=bool), columns, values, xyz)

    if view.kind == "plane":
        xmin, xmax, ymin, ymax = bounds if bounds else (-1.0, 1.0, -1.0, 1.0)
        xs = xmin + (np.arange(n) + 0.5) / n * (xmax - xmin)
        ys = ymin + (np.arange(n) + 0.5) / n * (ymax - ymin)
        gx, gy = np.meshgrid(xs, ys)
        values = np.column_stack([gx.ravel(), gy.ravel()])
        return ViewGrid(
            view, (n, n), np.ones(n * n, dtype=bool), columns, values, {"x": xs, "y": ys}, (xmin, xmax, ymin, ymax)
        )

    # line
    m = 2 * n
    if comp.kind == "H":
        R = comp.radius
        lo, hi = -R, R
    else:
        lo, hi = bounds if bounds else (-1.0, 1.0)
    xs = lo + (np.arange(m) + 0.5) / m * (hi - lo)
    values = _line_to_ambient(xs, comp, view)
    return ViewGrid(view, (1, m), np.ones(m, dtype=bool), columns, values, {"x": xs}, (lo, hi))


def _latlon_grid(lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
    """Unit vectors (len(lat), len(lon), 3) of every latitude with every longitude (degrees).

    What :func:`curvedtrees.coords.latlon_to_sphere` gives on their meshgrid, to the bit, with
    the sines and cosines taken once per row and column rather than once per cell.
    """
    phi, lam = np.radians(np.asarray(lat, dtype=np.float64)), np.radians(np.asarray(lon, dtype=np.float64))
    cos_phi = np.cos(phi)[:, None]
    out = np.empty((len(phi), len(lam), 3))
    out[..., 0] = cos_phi * np.cos(lam)[None, :]
    out[..., 1] = cos_phi * np.sin(lam)[None, :]
    out[..., 2] = np.sin(phi)[:, None]
    return out


def _centres(edges: np.ndarray) -> np.ndarray:
    return 0.5 * (edges[:-1] + edges[1:])


def torus_xyz(a: np.ndarray, b: np.ndarray, lift: float = 0.0) -> dict:
    """3-D coordinates (float32) of angles ``a`` (around the ring) and ``b`` (around the tube).

    ``lift`` moves points off the surface along its normal (in units of the
    tube radius), so that markers and boundary lines stay visible.
    """
    major, minor = TORUS_RADII
    r = minor * (1.0 + lift)
    ring = major + r * np.cos(b)
    return {
        "x": (ring * np.cos(a)).astype(np.float32),
        "y": (ring * np.sin(a)).astype(np.float32),
        "z": (r * np.sin(b)).astype(np.float32),
    }


def holds_reference(view: View, signature) -> bool:
    """Whether the picture holds any ambient coordinate at the reference point.

    A picture that draws every component of the product (a torus of S1 x S1, the disk of H2)
    holds nothing, so a choice of reference point would change nothing.

    Examples
    --------
    >>> from curvedtrees.manifolds import Signature
    >>> sig = Signature.parse("S1 x S1")
    >>> [holds_reference(v, sig) for v in available_views(sig)]
    [True, True, False]
    """
    signature = Signature.parse(signature)
    _check_view(view, signature)
    return len(_component_columns(view, signature)) < signature.ambient_dim


def product_rows(grid: ViewGrid, reference: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
    """Ambient product rows: the reference point with the view's columns replaced.

    Parameters
    ----------
    grid : ViewGrid
    reference : ndarray of shape (ambient_dim,)
    values : ndarray of shape (m, len(grid.columns)), optional
        Defaults to ``grid.values`` (every cell on the manifold).

    Returns
    -------
    ndarray of shape (m, ambient_dim)
    """
    values = grid.values if values is None else values
    rows = np.tile(np.asarray(reference, dtype=np.float64), (len(values), 1))
    rows[:, grid.columns] = values
    return rows


# ---------------------------------------------------------------- points
def project_points(view: View, signature, X) -> dict:
    """Picture coordinates of data points.

    Parameters
    ----------
    view : View
    signature : str or Signature
    X : array-like of shape (n_samples, ambient_dim)

    Returns
    -------
    dict of str to ndarray of shape (n_samples,)
        ``x``, ``y`` (disk, plane), ``x`` (line), ``theta`` in degrees (circle),
        ``x``, ``y``, ``z`` (sphere, torus; just off the surface). Points that
        cannot be placed (a direction of zero length) are NaN.
    """
    signature = Signature.parse(signature)
    _check_view(view, signature)
    X = np.asarray(X, dtype=np.float64)
    comp = signature.components[view.components[0]]
    block = X[:, comp.slice]
    if view.kind == "disk":
        if view.model == "poincare":
            ball = coords.hyperboloid_to_poincare(block, curvature=comp.curvature)
        else:
            ball = coords.hyperboloid_to_klein(block, curvature=comp.curvature)
        return {"x": ball[:, view.axes[0] - 1], "y": ball[:, view.axes[1] - 1]}
    if view.kind in SPHERE_KINDS:
        sub = block[:, list(view.axes)]
        norm = np.linalg.norm(sub, axis=1, keepdims=True)
        # Directions of (near-)zero vectors are undefined: such points are left out.
        unit = np.where(norm > 1e-12, sub / np.where(norm > 0, norm, 1.0), np.nan)
        if view.kind != "sphere":
            lat, lon = unit_to_latlon(unit)
            return {"x": lon, "y": lat} if view.kind == "map" else {"lat": lat, "lon": lon}
        lifted = unit * 1.015  # just above the surface so markers are not buried in it
        return {"x": lifted[:, 0], "y": lifted[:, 1], "z": lifted[:, 2]}
    if view.kind == "circle":
        return {"theta": np.degrees(coords.circle_to_angle(block, curvature=comp.curvature))}
    if view.kind == "torus":
        second = signature.components[view.components[1]]
        a = coords.circle_to_angle(block, curvature=comp.curvature)
        b = coords.circle_to_angle(X[:, second.slice], curvature=second.curvature)
        return torus_xyz(a, b, lift=0.06)
    if view.kind == "plane":
        return {"x": block[:, view.axes[0]], "y": block[:, view.axes[1]]}
    if comp.kind == "H":
        return {"x": coords.hyperboloid_to_poincare(block, curvature=comp.curvature)[:, 0]}
    return {"x": block[:, view.axes[0]]}


# ------------------------------------------------------------- the globe
def unit_to_latlon(unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Latitude and longitude in degrees of unit vectors, shape (n, 3) -> two of shape (n,).

    The inverse of :func:`curvedtrees.coords.latlon_to_sphere` (x toward 0 N 0 E,
    z toward the north pole); NaN rows stay NaN.
    """
    unit = np.asarray(unit, dtype=np.float64)
    lat = np.degrees(np.arcsin(np.clip(unit[:, 2], -1.0, 1.0)))
    lon = np.degrees(np.arctan2(unit[:, 1], unit[:, 0]))
    return lat, lon


def ortho_project(lat, lon, centre_lat: float, centre_lon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Orthographic projection of the unit sphere seen from above (centre_lat, centre_lon).

    Parameters
    ----------
    lat, lon : array-like of shape (n,)
        Degrees.
    centre_lat, centre_lon : float
        The point at the middle of the picture, degrees.

    Returns
    -------
    x, y : ndarray of shape (n,)
        Picture coordinates in the unit disk (east to the right, north up).
    visible : ndarray of bool, shape (n,)
        On the near hemisphere (the far side is hidden behind it).
    """
    phi, lam = np.radians(np.asarray(lat, dtype=np.float64)), np.radians(np.asarray(lon, dtype=np.float64))
    phi0, lam0 = math.radians(centre_lat), math.radians(centre_lon)
    d = lam - lam0
    x = np.cos(phi) * np.sin(d)
    y = math.cos(phi0) * np.sin(phi) - math.sin(phi0) * np.cos(phi) * np.cos(d)
    cos_c = math.sin(phi0) * np.sin(phi) + math.cos(phi0) * np.cos(phi) * np.cos(d)
    return x, y, cos_c >= 0


def ortho_unproject(x, y, centre_lat: float, centre_lon: float) -> tuple[np.ndarray, np.ndarray]:
    """Latitude and longitude (degrees) of picture points of :func:`ortho_project`; NaN outside the disk.

    Parameters
    ----------
    x, y : array-like, same shape
    centre_lat, centre_lon : float

    Returns
    -------
    lat, lon : ndarray, same shape as ``x``; longitudes in [-180, 180)
    """
    lat, turn = _ortho_unproject_turn(x, y, centre_lat)
    return lat, _turned_longitude(turn, centre_lon)


def _ortho_unproject_turn(x, y, centre_lat: float) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`ortho_unproject` finds whatever the centre longitude: latitudes, and longitudes as
    angles (radians) east of the centre (NaN outside the disk); see :func:`_turned_longitude`."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    rho = np.hypot(x, y)
    inside = rho <= 1.0
    c = np.arcsin(np.clip(rho, 0.0, 1.0))
    phi0 = math.radians(centre_lat)
    safe = np.where(rho > 0, rho, 1.0)  # at the centre sin(c)/rho -> 1: the formulas below give the centre
    sin_c, cos_c = np.sin(c), np.cos(c)
    phi = np.arcsin(np.clip(cos_c * math.sin(phi0) + y * sin_c * math.cos(phi0) / safe, -1.0, 1.0))
    turn = np.arctan2(x * sin_c, safe * cos_c * math.cos(phi0) - y * sin_c * math.sin(phi0))
    return np.where(inside, np.degrees(phi), np.nan), np.where(inside, turn, np.nan)


def _turned_longitude(turn: np.ndarray, centre_lon: float) -> np.ndarray:
    """Longitudes (degrees, in [-180, 180)) of the angles ``turn`` east of ``centre_lon``."""
    return (np.degrees(math.radians(centre_lon) + turn) + 180.0) % 360.0 - 180.0


def facing_direction(view: View, signature, X, min_share: float = 0.2) -> np.ndarray | None:
    """The unit mean direction of the data in a sphere view's three axes, or None.

    A picture of a sphere opens facing this direction. None when there is no data
    or the directions nearly cancel (the mean is shorter than ``min_share`` of the
    radius: points spread over the whole sphere, such as a latitude-longitude grid).

    Returns
    -------
    ndarray of shape (3,) or None
    """
    signature = Signature.parse(signature)
    _check_view(view, signature)
    if X is None or len(X) == 0:
        return None
    comp = signature.components[view.components[0]]
    sub = np.asarray(X, dtype=np.float64)[:, comp.start + np.asarray(view.axes, dtype=np.int64)]
    sub = sub[np.isfinite(sub).all(axis=1)]
    if len(sub) == 0:
        return None
    mean = sub.mean(axis=0) / comp.radius
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm >= min_share else None
