"""Plotly figures of embeddings: training curves and embedded graphs (pure functions, no Streamlit).

The embedded graph is drawn with the same pictures as the decision regions
(:mod:`curvedtrees.viz.views`): an H component on the Poincaré disk, an S2 component
on the sphere, an E component on the plane, S1 on a circle, two S1 on a torus.
Edges are drawn as geodesics of the product (sampled along
``exp_x(t log_x(y))``), so on the Poincaré disk they are circular arcs and on the
sphere great-circle arcs.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..manifolds import ProductManifold, Signature
from ..viz.palette import class_colors
from ..viz.views import View, available_views, describe_view, project_points

__all__ = ["elbo_figure", "embedding_figure", "geodesic_samples", "training_curve_figure"]


def training_curve_figure(
    values,
    *,
    title: str = "",
    y_title: str = "average distortion",
    log_y: bool = True,
    total: int | None = None,
    height: int = 320,
) -> go.Figure:
    """A per-epoch curve (live or final).

    Parameters
    ----------
    values : array-like, shape (n_epochs_so_far,)
    title, y_title : str
    log_y : bool
        Logarithmic y axis (distortion spans decades); values must be positive.
    total : int, optional
        Planned number of epochs: fixes the x range so a live curve grows into it.
    height : int
    """
    values = np.asarray(values, dtype=np.float64)
    fig = go.Figure(
        go.Scatter(
            x=np.arange(len(values)),
            y=values,
            mode="lines",
            line={"width": 2},
            name=y_title,
            hovertemplate="epoch %{x}: %{y:.4g}<extra></extra>",
        )
    )
    fig.update_layout(
        title=title or None,
        height=height,
        margin={"l": 50, "r": 10, "t": 40 if title else 10, "b": 40},
        xaxis_title="epoch",
        yaxis_title=y_title,
        showlegend=False,
    )
    if total:
        fig.update_xaxes(range=[0, max(int(total) - 1, 1)])
    if log_y and len(values) and np.all(values[np.isfinite(values)] > 0):
        fig.update_yaxes(type="log")
    return fig


def elbo_figure(history, *, test_elbo: float | None = None, total: int | None = None, height: int = 320):
    """Training ELBO per epoch (higher is better), with the held-out ELBO as a dashed line."""
    fig = training_curve_figure(history, y_title="ELBO (nats per image)", log_y=False, total=total, height=height)
    if test_elbo is not None and np.isfinite(test_elbo):
        fig.add_hline(y=float(test_elbo), line_dash="dash", annotation_text=f"held-out ELBO {test_elbo:.2f}")
    return fig


def geodesic_samples(X, signature, pairs, n_steps: int = 24) -> np.ndarray:
    """Points along the product geodesics between node pairs.

    Parameters
    ----------
    X : ndarray, shape (n, ambient_dim)
    signature : str or Signature
    pairs : ndarray of int, shape (m, 2)
    n_steps : int
        Samples per geodesic, end points included.

    Returns
    -------
    ndarray, shape (m, n_steps, ambient_dim)
    """
    manifold = ProductManifold(Signature.parse(signature))
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    start, end = X[pairs[:, 0]], X[pairs[:, 1]]
    direction = manifold.logmap(start, end)
    t = np.linspace(0.0, 1.0, int(n_steps))
    steps = np.tile(t, len(pairs))[:, None]
    points = manifold.expmap(np.repeat(start, len(t), axis=0), np.repeat(direction, len(t), axis=0) * steps)
    return points.reshape(len(pairs), len(t), -1)


def _curve_coordinates(view: View, signature, samples: np.ndarray) -> dict:
    """Picture coordinates of geodesic samples, each curve followed by a NaN gap."""
    m, steps, width = samples.shape
    projected = project_points(view, signature, samples.reshape(m * steps, width))
    out = {}
    for key, values in projected.items():
        values = np.asarray(values, dtype=np.float64).reshape(m, steps)
        if key == "theta":
            # Unwrap so an arc crossing the +-180 degree cut is not drawn around the ring.
            values = np.degrees(np.unwrap(np.radians(values), axis=1))
        out[key] = np.concatenate([values, np.full((m, 1), np.nan)], axis=1).ravel()
    return out


def embedding_figure(
    X,
    signature,
    *,
    edges=None,
    labels=None,
    label_names=None,
    view: View | None = None,
    title: str | None = None,
    hover: list[str] | None = None,
    max_edges: int = 2000,
    height: int = 480,
) -> go.Figure:
    """Embedded points (and graph edges as geodesics) in one picture of one component.

    Parameters
    ----------
    X : ndarray, shape (n, signature.ambient_dim)
    signature : str or Signature
    edges : ndarray of int, shape (m, 2), optional
        Row-index pairs to join by geodesics (at most ``max_edges`` are drawn).
    labels : array-like, shape (n,), optional
        Class labels (colours) or real targets (a colour scale).
    label_names : sequence of str, optional
        Display names of the classes, indexed by integer labels.
    view : View, optional
        The picture; defaults to the first of :func:`curvedtrees.viz.available_views`.
    title : str, optional
    hover : list of str, optional
        Hover text per point.
    max_edges : int
    height : int

    Returns
    -------
    plotly.graph_objects.Figure
    """
    signature = Signature.parse(signature)
    X = np.asarray(X, dtype=np.float64)
    view = view or available_views(signature)[0]
    picture_title, _ = describe_view(view, signature)
    comp = signature.components[view.components[0]]
    three_d = view.kind in ("sphere", "torus")
    polar = view.kind == "circle"
    fig = go.Figure()

    if view.kind == "disk":
        radius = comp.radius
        angle = np.linspace(0, 2 * np.pi, 241)
        fig.add_trace(
            go.Scatter(
                x=radius * np.cos(angle),
                y=radius * np.sin(angle),
                mode="lines",
                line={"color": "#888", "width": 1},
                hoverinfo="skip",
                showlegend=False,
            )
        )
    elif view.kind == "sphere":
        u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 49), np.linspace(0, np.pi, 25))
        fig.add_trace(
            go.Surface(
                x=np.cos(u) * np.sin(v),
                y=np.sin(u) * np.sin(v),
                z=np.cos(v),
                opacity=0.15,
                showscale=False,
                colorscale=[[0, "#9aa"], [1, "#9aa"]],
                hoverinfo="skip",
            )
        )

    if edges is not None and len(edges):
        edges = np.asarray(edges, dtype=np.int64)[: int(max_edges)]
        curve = _curve_coordinates(view, signature, geodesic_samples(X, signature, edges))
        line = {"color": "rgba(90, 90, 90, 0.45)", "width": 1.2}
        if three_d:
            fig.add_trace(
                go.Scatter3d(
                    x=curve["x"], y=curve["y"], z=curve["z"], mode="lines", line=line, hoverinfo="skip", name="edges"
                )
            )
        elif polar:
            fig.add_trace(
                go.Scatterpolar(
                    r=np.where(np.isnan(curve["theta"]), np.nan, 1.0),
                    theta=curve["theta"],
                    mode="lines",
                    line=line,
                    hoverinfo="skip",
                    name="edges",
                )
            )
        else:
            y = curve.get("y", np.where(np.isnan(curve["x"]), np.nan, 0.0))
            fig.add_trace(go.Scatter(x=curve["x"], y=y, mode="lines", line=line, hoverinfo="skip", name="edges"))

    points = project_points(view, signature, X)
    marker: dict = {"size": 7 if not three_d else 4, "line": {"width": 0.5, "color": "#333"}}
    groups = [(np.arange(len(X)), None, marker)]
    if labels is not None:
        labels = np.asarray(labels)
        if labels.dtype.kind in "iub" or labels.dtype.kind in "OU":
            classes = np.unique(labels)
            colors = class_colors(len(classes))
            groups = []
            for k, cls in enumerate(classes):
                name = str(cls)
                if label_names is not None and labels.dtype.kind in "iu" and 0 <= int(cls) < len(label_names):
                    name = str(label_names[int(cls)])
                groups.append((np.flatnonzero(labels == cls), name, {**marker, "color": colors[k]}))
        else:
            groups = [
                (
                    np.arange(len(X)),
                    None,
                    {
                        **marker,
                        "color": labels.astype(float),
                        "colorscale": "Viridis",
                        "showscale": True,
                        "colorbar": {"title": "target"},
                    },
                )
            ]
    for rows, name, style in groups:
        text = [hover[i] for i in rows] if hover is not None else [f"row {i}" for i in rows]
        common = {
            "mode": "markers",
            "marker": style,
            "text": text,
            "hoverinfo": "text",
            "name": name or "points",
            "showlegend": name is not None,
        }
        if three_d:
            fig.add_trace(go.Scatter3d(x=points["x"][rows], y=points["y"][rows], z=points["z"][rows], **common))
        elif polar:
            fig.add_trace(go.Scatterpolar(r=np.full(len(rows), 1.04), theta=points["theta"][rows], **common))
        else:
            y = points["y"][rows] if "y" in points else np.zeros(len(rows))
            fig.add_trace(go.Scatter(x=points["x"][rows], y=y, **common))

    fig.update_layout(
        title=title or picture_title,
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        template="plotly_white",
        legend={"orientation": "h", "y": -0.02},
    )
    if view.kind in ("disk", "plane"):
        fig.update_yaxes(scaleanchor="x", scaleratio=1)
    if view.kind == "disk":
        fig.update_xaxes(visible=False)
        fig.update_yaxes(visible=False)
    if three_d:
        fig.update_layout(
            scene={
                "aspectmode": "data",
                "xaxis": {"visible": False},
                "yaxis": {"visible": False},
                "zaxis": {"visible": False},
            }
        )
    if polar:
        fig.update_layout(polar={"radialaxis": {"visible": False, "range": [0, 1.1]}})
    return fig
