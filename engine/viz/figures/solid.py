"""3-D pictures: the sphere (and the globe) and the torus, in a WebGL scene.

Regions are a ``Surface`` through the cell centres (float32 vertices, one uint8 colour code per
cell and no faces to send: a 300 x 300 picture's cells weigh 1.6 MB of JSON where a mesh of
faces weighed 4.6), whose colours blend between neighbouring cells, so confidence shades meet
smoothly. A classifier's regions with :attr:`~curvedtrees.viz.regions.RegionGrid.cuts` get a
``Mesh3d``, "region edges", of the squares of centres where the class changes, cut along the
crossings (:mod:`curvedtrees.viz.smooth`), drawn on the surface with the cells just below it,
so region edges are exact and smooth; a replay restyles their colours, frames predicted at
other reference points their pieces too. The camera faces what matters: the explained point,
the selected split, the newest split, or the data (a globe: 20 N 20 E without data).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..smooth import Patches, sink_depth
from ..views import TORUS_RADII, torus_xyz
from ..world import latlon_xyz
from .coloring import BLANK, Coloring, cell_values, color_args
from .flat import world_lines
from .framing import SPHERE_EYE_DISTANCE, eye, facing_latlon
from .overlays import middle
from .render import Renderer

__all__ = ["SphereRenderer", "TorusRenderer"]

MESH_LIGHTING = {"ambient": 0.9, "diffuse": 0.25, "specular": 0.02, "roughness": 0.9, "fresnel": 0.0}
# A patch trace with nothing to draw: one triangle of zero area at the origin (hidden inside the sphere,
# in the torus's hole), so that every frame restyles the same trace with valid data.
_NO_PATCHES = Patches(
    *(np.zeros(1, dtype=np.float32),) * 3, *(np.zeros(1, dtype=np.uint16),) * 3, np.zeros(1, np.int64)
)
# Lines on a 3-D globe sit just above its surface so that the mesh does not hide them, below
# the split boundaries (1.006) and the points (1.015).
_COAST_LIFT, _GRID_LIFT = 1.004, 1.002
# The margin band sits this far out from the sphere: above the regions, below the boundaries.
_BAND_LIFT = 1.003


def mesh_faces(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two triangles per cell of a (rows + 1) x (cols + 1) vertex grid, cell order row-major."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    v00 = (r * (cols + 1) + c).ravel()
    v01, v10 = v00 + 1, v00 + cols + 1
    v11 = v10 + 1
    dtype = np.uint16 if (rows + 1) * (cols + 1) < 2**16 else np.uint32
    i = np.concatenate([v00, v00]).astype(dtype)
    j = np.concatenate([v01, v11]).astype(dtype)
    k = np.concatenate([v11, v10]).astype(dtype)
    return i, j, k


def _cell_codes(regions, coloring: Coloring) -> np.ndarray:
    """What each cell sends, shape grid.shape: uint8 palette codes (classification), else values or steps."""
    cell = cell_values(regions, coloring)
    if regions.task == "classification":
        cell = np.nan_to_num(cell, nan=0.0).astype(np.uint8)
    return cell.reshape(regions.grid.shape)


def _smooth(regions, frames) -> bool:
    """Whether a sphere or torus picture draws smooth region edges: classification regions with crossings."""
    shown = [r for r in (frames or [regions]) if r is not None]
    return any(r.task == "classification" and r.cuts is not None for r in shown)


class Patcher:
    """The smooth-edge patches of a picture's regions (built once per set of crossings, shared by frames)."""

    def __init__(self, grid, coloring: Coloring):
        self.grid, self.coloring = grid, coloring

    def patches(self, regions) -> Patches:
        cuts = regions.cuts if regions is not None and regions.task == "classification" else None
        if cuts is None or not len(cuts):
            return _NO_PATCHES
        return cuts.patches(self.grid)

    def intensity(self, regions, patches: Patches) -> np.ndarray:
        """Each piece's colour code: that of the cell whose corner it holds (uint8)."""
        if patches is _NO_PATCHES:
            return np.zeros(1, dtype=np.uint8)
        codes = np.nan_to_num(cell_values(regions, self.coloring).ravel(), nan=0.0).astype(np.uint8)
        return codes[patches.source]

    def shared(self, frames) -> bool:
        """Whether every frame's pieces are the same (a replay: one set of crossings for all)."""
        first = frames[0].cuts if frames else None
        return first is not None and all(f.cuts is first for f in frames)

    def trace(self, regions, geometry: bool = True) -> go.Mesh3d:
        patches = self.patches(regions)
        if not geometry:
            return go.Mesh3d(intensity=self.intensity(regions, patches))
        return go.Mesh3d(
            x=patches.x,
            y=patches.y,
            z=patches.z,
            i=patches.i,
            j=patches.j,
            k=patches.k,
            intensity=self.intensity(regions, patches),
        )


class SolidRenderer(Renderer):
    """A surface in a 3-D scene: the cell mesh, smooth region edges, a camera facing what matters."""

    trace = go.Scatter3d
    keys = ("x", "y", "z")
    nearest_keys = ("x", "y", "z")
    three_d = True
    # The camera's look point when nothing asks for one (picture coordinates).
    default_look = (0.0, -1.0, 0.0)

    def __init__(self, scene):
        super().__init__(scene)
        smooth = scene.regions is not None and _smooth(scene.regions, scene.frames)
        self.patcher = Patcher(scene.grid, scene.coloring) if smooth else None
        # A replay's frames share one set of pieces: they restyle its colours only.
        self._patch_geometry = self.patcher is not None and not self.patcher.shared(scene.frames)

    # ------------------------------------------------------------------ regions
    def centres(self, sink: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """x, y, z (2-D float32) of the surface through the cell centres, ``sink`` picture units below it."""
        raise NotImplementedError

    def surface_values(self, cell: np.ndarray) -> np.ndarray:
        """Cell values (grid.shape) on the vertices of :meth:`centres` (the wrapping row or column repeated)."""
        raise NotImplementedError

    def _surface_trace(self, regions) -> go.Surface:
        if regions is None:
            return go.Surface(surfacecolor=self.surface_values(np.zeros(self.grid.shape, dtype=np.uint8)))
        return go.Surface(surfacecolor=self.surface_values(_cell_codes(regions, self.scene.coloring)))

    def add_regions(self, fig) -> None:
        """The cells (trace 0) and, with smooth edges, the patches on top of it (trace 1).

        The cells are a ``Surface`` through their centres: no faces to send, one byte a cell,
        a colour that blends between neighbouring shades; where the class changes the
        patches cover the blend with the exact edge.
        """
        regions, coloring, grid = self.scene.regions, self.scene.coloring, self.grid
        sink = sink_depth(grid) if self.patcher is not None else 0.0
        vx, vy, vz = self.centres(sink)
        surface = self._surface_trace(regions)
        no_lines = {"show": False, "highlight": False}
        surface.update(
            x=vx,
            y=vy,
            z=vz,
            hoverinfo="skip",
            lighting=MESH_LIGHTING,
            showlegend=False,
            name="regions",
            contours={"x": no_lines, "y": no_lines, "z": no_lines},
        )
        if regions is None:
            surface.update(colorscale=[[0, BLANK], [1, BLANK]], cmin=0, cmax=1, showscale=False)
            fig.add_trace(surface)
            return
        surface.update(**color_args(regions, coloring))
        fig.add_trace(surface)
        if self.patcher is not None:
            patch = self.patcher.trace(regions)
            patch.update(
                hoverinfo="skip",
                lighting=MESH_LIGHTING,
                flatshading=True,
                showlegend=False,
                name="region edges",
                intensitymode="cell",
                **color_args(regions, coloring),
            )
            fig.add_trace(patch)

    def regions_traces(self) -> list[int]:
        return [0, 1] if self.patcher is not None else [0]

    def frame_regions(self, regions) -> list:
        data = [self._surface_trace(regions)]
        if self.patcher is not None:
            data.append(self.patcher.trace(regions, geometry=self._patch_geometry))
        return data

    # ------------------------------------------------------------------ overlays
    def line_trace(self, joined: dict, common: dict):
        xyz = {k: joined[k].astype(np.float32) for k in "xyz"}
        return go.Scatter3d(**xyz, **common)

    def points_trace(self, coords: dict, part, common: dict, test: bool):
        marker = dict(common["marker"], size=3.5 if not test else 4.5, line={"color": "#222222", "width": 0.5})
        return go.Scatter3d(
            x=np.asarray(coords["x"], np.float32),
            y=np.asarray(coords["y"], np.float32),
            z=np.asarray(coords["z"], np.float32),
            **(common | {"marker": marker}),
        )

    def marked_trace(self, marked, common: dict):
        return go.Scatter3d(
            x=[float(marked["x"])],
            y=[float(marked["y"])],
            z=[float(marked["z"])],
            **(common | {"marker": dict(common["marker"], symbol="diamond", size=9)}),
        )

    def band_corners(self):
        return (np.asarray(self.grid.coords[c], dtype=np.float32).ravel() for c in ("vx", "vy", "vz"))

    def add_band(self, fig, band: np.ndarray) -> None:
        """The margin band: a see-through mesh over its cells, just above the surface."""
        if not band.any():
            return
        rows, cols = self.grid.shape
        i, j, k = mesh_faces(rows, cols)
        keep = np.concatenate([band.ravel(), band.ravel()])
        vx, vy, vz = self.band_corners()
        fig.add_trace(
            go.Mesh3d(
                x=vx,
                y=vy,
                z=vz,
                i=i[keep],
                j=j[keep],
                k=k[keep],
                color="#FFE100",
                opacity=0.45,
                hoverinfo="skip",
                showlegend=False,
                name="margin",
                flatshading=True,
            )
        )

    # ------------------------------------------------------------------ camera and layout
    def look_at(self, curves, styles=None) -> dict | None:
        """Picture point the camera should face, and the pole of its boundary (sphere), or None.

        The explained point first, then the selected node's boundary, then its region's label
        (a selected leaf), then the newest split's boundary (of ``styles``, default the shown frame's).
        """
        marked, highlight = self.scene.overlay.marked, self.scene.overlay.highlight
        if marked:
            return {"point": np.array([marked["x"], marked["y"], marked["z"]], dtype=np.float64), "pole": None}
        styles = (self.scene.styles if styles is None else styles) or {}
        if "selected" not in styles.values() and highlight is not None and highlight.labels:
            point = highlight.labels[0][0]
            return {"point": np.array([point[k] for k in "xyz"], dtype=np.float64), "pole": None}
        for wanted in ("selected", "newest"):
            for curve in curves:
                if styles.get(curve.node) != wanted:
                    continue
                found = middle(curve)
                if found is None:
                    continue
                xyz = np.column_stack([np.asarray(curve.coords[k], dtype=np.float64) for k in "xyz"])
                xyz = xyz[np.isfinite(xyz).all(axis=1)]
                # Two points of a great circle (its drawn ends) span its plane: their cross product is the pole.
                pole = np.cross(xyz[0], xyz[len(xyz) // 3]) if len(xyz) > 2 else np.zeros(3)
                norm = np.linalg.norm(pole)
                pole = pole / norm * np.sign(pole[2] or 1.0) if norm > 1e-6 else None
                return {"point": np.array([found[k] for k in "xyz"]), "pole": pole}
        return None

    def default_eye(self) -> dict:
        """The camera when :meth:`look_at` finds nothing to face."""
        return eye(self.scene.kind, {"point": np.array(self.default_look), "pole": None}, self.scene.zoom)

    def camera(self, curves, styles=None) -> dict:
        """The scene's camera: its eye facing :meth:`look_at` (or the default), its centre lifted."""
        s = self.scene
        look = self.look_at(curves, styles)
        camera_eye = eye(s.kind, look, s.zoom) if look is not None else self.default_eye()
        return {"eye": camera_eye, "center": {"x": 0.0, "y": 0.0, "z": s.lift}} if s.lift else {"eye": camera_eye}

    def frame_layouts(self, curves) -> list | None:
        """A replay's frames turn the camera to each frame's newest split (the last one's while none is new)."""
        styles = self.scene.boundary_styles
        if styles is None or not curves:
            return None
        out, last = [], None
        for frame_styles in styles:
            has_newest = "newest" in frame_styles.values()
            camera = self.camera(curves, frame_styles) if has_newest or last is None else last
            last = camera
            out.append({"scene": {"camera": camera}})
        return out

    def finish_layout(self, fig, curves) -> None:
        s = self.scene
        hidden = {"visible": False, "showbackground": False}
        layout = {
            "scene": {
                "xaxis": hidden,
                "yaxis": hidden,
                "zaxis": hidden,
                "aspectmode": "data",
                "camera": self.camera(curves),
                "dragmode": "turntable",
            },
            "margin": {"l": 0, "r": 0, "t": 40 if s.framing.title else 0, "b": 0},
            "legend": {"itemsizing": "constant", "bgcolor": "rgba(255,255,255,0.8)"},
            "height": s.height,
            "title": s.framing.title,
        }
        # Nothing has set these yet: set one by one, they cost a tenth of what update_layout's
        # merging does (a fifth of a 300 x 300 sphere's figure), and say the same.
        for key, value in layout.items():
            if value is not None:
                fig.layout[key] = value
            else:
                fig.update_layout({key: None})  # as update_layout leaves it: an empty title


class SphereRenderer(SolidRenderer):
    """An S component (the globe, with coastlines) as a sphere."""

    kinds = ("sphere",)
    default_look = (1.1, 1.1, 0.75)

    def centres(self, sink: float):
        rows, cols = self.grid.shape
        # Rows at the cell centres' latitudes between the two poles; the first column repeated at the end.
        lat = np.concatenate([[-90.0], -90.0 + (np.arange(rows) + 0.5) * 180.0 / rows, [90.0]])
        lon = -180.0 + (np.arange(cols + 1) + 0.5) * 360.0 / cols
        glon, glat = np.meshgrid(lon, lat)
        xyz = latlon_xyz(glat, glon, 1.0 - sink)
        return tuple(np.asarray(xyz[k], dtype=np.float32) for k in "xyz")

    def surface_values(self, cell: np.ndarray) -> np.ndarray:
        wrapped = np.concatenate([cell, cell[:, :1]], axis=1)
        return np.concatenate([wrapped[:1], wrapped, wrapped[-1:]], axis=0)  # each pole takes its nearest row

    def band_corners(self):
        vx, vy, vz = super().band_corners()
        return vx * _BAND_LIFT, vy * _BAND_LIFT, vz * _BAND_LIFT  # above the regions, below the boundaries

    def add_world(self, fig, coastlines) -> None:
        lifts = {"graticule": _GRID_LIFT, "coastlines": _COAST_LIFT}
        for (lat, lon), line, name in world_lines(coastlines):
            common = {"mode": "lines", "line": line, "hoverinfo": "skip", "showlegend": False, "name": name}
            fig.add_trace(go.Scatter3d(**latlon_xyz(lat, lon, lifts[name]), **common))

    def default_eye(self) -> dict:
        s = self.scene
        facing = s.framing.facing
        if facing is None and s.overlay.coastlines is None:
            return super().default_eye()
        # Open facing the data (a globe without a mean direction: Africa and Europe), from a
        # little above its equator so that the poles do not fill the view.
        lat, lon = facing_latlon(facing)
        lat = float(np.clip(lat, -35.0, 35.0))
        return {k: SPHERE_EYE_DISTANCE / s.zoom * float(v[0]) for k, v in latlon_xyz([lat], [lon]).items()}


class TorusRenderer(SolidRenderer):
    """Two S1 components as a torus: columns around the ring, rows around the tube."""

    kinds = ("torus",)

    def centres(self, sink: float):
        rows, cols = self.grid.shape
        # The torus grid (views.view_grid): columns around the ring, rows around the tube; both wrap.
        a = -np.pi + (np.arange(cols + 1) + 0.5) * 2 * np.pi / cols
        b = -np.pi + (np.arange(rows + 1) + 0.5) * 2 * np.pi / rows
        va, vb = np.meshgrid(a, b)
        xyz = torus_xyz(va, vb, lift=-sink / TORUS_RADII[1])
        return tuple(xyz[k] for k in "xyz")

    def surface_values(self, cell: np.ndarray) -> np.ndarray:
        wrapped = np.concatenate([cell, cell[:, :1]], axis=1)
        return np.concatenate([wrapped, wrapped[:1]], axis=0)
