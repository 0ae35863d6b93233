"""The tree diagram (a node-link figure around the selected node) and a node's class distribution."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ...trees import describe_split
from ..palette import class_colors
from .layout import (
    DIAGRAM_FONT,
    DIAGRAM_WIDTH,
    LEGEND_ROW_PX,
    LEVEL_PX,
    MARKER_PX,
    SLOT_PX,
    diagram_nodes,
    fit_labels,
    hidden_counts,
    node_depths,
    node_names,
    tidy_layout,
)
from .nodes import renumber

__all__ = ["distribution_figure", "tree_figure"]

_NODE_STYLE_COLORS = {"newest": "#FFE100", "path": "#FFFFFF", "selected": "#FF4FD8"}
_HALO_NAMES = {"newest": "newest split", "path": "decision path", "selected": "selected node"}


@dataclass
class _Drawing:
    """The part of a tree a diagram draws, and what each node is (ids of the estimator's tree).

    ``drawn`` lists the drawn nodes in id order, ``x`` their positions in slots and ``level``
    their depths; ``closed`` marks drawn splits standing for a hidden subtree of ``hidden``
    nodes; ``node_style`` is each node's highlight, ``chosen`` the selected node and
    ``path_to_chosen`` the nodes from the root to it.
    """

    ids: np.ndarray
    left: np.ndarray
    right: np.ndarray
    internal: np.ndarray
    is_open: np.ndarray
    depth: np.ndarray
    drawn: np.ndarray
    x: np.ndarray
    n_slots: float
    closed: np.ndarray
    hidden: np.ndarray
    node_style: dict
    chosen: int | None
    path_to_chosen: set

    @property
    def level(self) -> np.ndarray:
        return self.depth[self.drawn]

    @property
    def styled(self) -> np.ndarray:
        return np.array([self.node_style[int(v)] is not None for v in self.drawn], dtype=bool)

    def sizes(self) -> np.ndarray:
        """Marker diameters of the drawn nodes (px)."""
        base = np.where(self.internal[self.drawn], MARKER_PX["split"], MARKER_PX["leaf"])
        return base + np.where(self.styled, MARKER_PX["styled"], 0)


def _plan(tree, styles: dict, id_map, selected, width) -> _Drawing:
    """Which nodes the diagram draws and where (see :func:`tree_figure`)."""
    n = tree.node_count
    ids = np.arange(n) if id_map is None else np.asarray(id_map)
    to_new = {int(old): new for new, old in enumerate(ids)}
    if selected is None:
        selected = next((node for node, style in styles.items() if style == "selected"), None)
    chosen = to_new.get(int(selected)) if selected is not None else None
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    internal = left >= 0
    keep = [to_new[int(node)] for node in styles if int(node) in to_new]
    max_slots = None if width is None else max(int(width) // SLOT_PX, 1)
    is_open = diagram_nodes(tree, chosen, keep, max_slots)
    xs, n_slots = tidy_layout(0, left, right, is_open)
    drawn = np.array(sorted(xs), dtype=np.int64)
    node_style = {v: styles.get(int(ids[v])) for v in range(n)}
    if chosen is not None and node_style[chosen] is None:
        node_style[chosen] = "selected"  # a node that is also the newest split or on the explained path keeps that halo
    parents = tree.parents()
    path_to_chosen = set()
    node = chosen
    while node is not None and node >= 0:
        path_to_chosen.add(int(node))
        node = int(parents[node]) if parents[node] >= 0 else None
    return _Drawing(
        ids,
        left,
        right,
        internal,
        is_open,
        node_depths(left, right),
        drawn,
        np.array([xs[v] for v in drawn]),
        n_slots,
        internal[drawn] & ~is_open[drawn],
        hidden_counts(left, right)[drawn],
        node_style,
        chosen,
        path_to_chosen,
    )


def _add_edges(fig, d: _Drawing) -> None:
    """Edges in one trace (NaN-separated); the selected node's path and the highlighted path drawn over them."""
    position = dict(zip(d.drawn.tolist(), d.x.tolist()))
    plain, marked, chosen_path = ([], []), ([], []), ([], [])
    for node in d.drawn[d.is_open[d.drawn]]:
        for child in (int(d.left[node]), int(d.right[node])):
            if child in d.path_to_chosen:
                target = chosen_path
            elif d.node_style[int(node)] in ("path", "newest") and d.node_style[child] in ("path", "newest"):
                target = marked
            else:
                target = plain
            target[0].extend([position[int(node)], position[child], None])
            target[1].extend([-d.depth[node], -d.depth[child], None])
    fig.add_trace(
        go.Scatter(
            x=plain[0],
            y=plain[1],
            mode="lines",
            line={"color": "#9A9A9A", "width": 1.2},
            hoverinfo="skip",
            showlegend=False,
            name="edges",
        )
    )
    for (ex, ey), color, name in (
        (marked, "#111111", "path"),
        (chosen_path, _NODE_STYLE_COLORS["selected"], "selected path"),
    ):
        if ex:
            fig.add_trace(
                go.Scatter(
                    x=ex,
                    y=ey,
                    mode="lines",
                    line={"color": color, "width": 4},
                    hoverinfo="skip",
                    showlegend=False,
                    name=name,
                )
            )


def _node_marker(estimator, d: _Drawing, class_names) -> dict:
    """Markers of the drawn nodes: class colour (``class_names`` of a classifier) or value, a triangle for a closed
    subtree, a square for a leaf."""
    value = np.asarray(estimator.tree_.value)
    marker = {
        "size": d.sizes().astype(float),
        "line": {"color": "#222222", "width": np.where(d.styled, 3.0, 1.0)},
        "symbol": [
            "triangle-down" if c else "circle" if d.internal[v] else "square" for v, c in zip(d.drawn, d.closed)
        ],
    }
    if class_names is not None:
        colors = np.asarray(class_colors(len(class_names)))
        marker["color"] = colors[np.argmax(value, axis=1)][d.drawn].tolist()
    else:
        fill = value[:, 0].astype(np.float32)[d.drawn]
        marker.update(
            color=fill, colorscale="Viridis", showscale=True, colorbar={"title": {"text": "value"}, "thickness": 12}
        )
    return marker


def _node_texts(estimator, d: _Drawing, class_names, width, font_size: float) -> tuple[list, list]:
    """(hover text, label) of every drawn node; labels only where they fit at ``width``.

    The selected node and its path first, then the other highlights, then level by level;
    every node keeps its description on hover.
    """
    hover = []
    for v, is_closed, count in zip(d.drawn, d.closed, d.hidden):
        text = renumber(describe_split(estimator, int(v)), int(v), d.ids)
        if is_closed:
            text += f"<br>{count} nodes below are hidden: click to open this subtree"
        hover.append(text)
    names = node_names(estimator, class_names)
    texts = []
    for v, is_closed, count in zip(d.drawn, d.closed, d.hidden):
        if is_closed:
            texts.append(f"{int(d.ids[v])}<br>+{count}")
        elif d.internal[v]:
            texts.append(f"{int(d.ids[v])}<br>{names[v]}")
        else:
            texts.append(names[v])
    span = max(d.n_slots, 1)
    plot_px = float(width if width is not None else d.n_slots * SLOT_PX)
    x_px = (d.x - d.x.min() + 0.5) * plot_px / span
    level, styled = d.level, d.styled
    rank = [
        (0 if int(v) == d.chosen else 1 if int(v) in d.path_to_chosen else 2 if styled[k] else 3, level[k], k)
        for k, v in enumerate(d.drawn)
    ]
    return hover, fit_labels(texts, x_px, level, [k for *_, k in sorted(rank)], font_size)


def _add_halos(fig, d: _Drawing) -> None:
    """Halo markers behind highlighted nodes, in the highlight colour."""
    sizes, level = d.sizes(), d.level
    for style, color in _NODE_STYLE_COLORS.items():
        picked = [k for k, v in enumerate(d.drawn) if d.node_style[int(v)] == style]
        if picked:
            fig.add_trace(
                go.Scatter(
                    x=d.x[picked],
                    y=-level[picked],
                    mode="markers",
                    hoverinfo="skip",
                    marker={
                        "size": sizes[picked] + MARKER_PX["halo"],
                        "color": color,
                        "line": {"color": "#111111", "width": 1.5},
                    },
                    unselected={"marker": {"opacity": 1.0}},
                    name=_HALO_NAMES[style],
                    showlegend=True,
                )
            )
            # Move the halo below the node markers.
            fig.data = (fig.data[-1], *fig.data[:-1])


def _add_closed_entry(fig) -> None:
    """The legend's entry for a closed subtree."""
    fig.add_trace(
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            name="hidden subtree (click)",
            hoverinfo="skip",
            marker={
                "symbol": "triangle-down",
                "size": MARKER_PX["split"],
                "color": "#BBBBBB",
                "line": {"color": "#222222", "width": 1},
            },
        )
    )


def tree_figure(
    estimator,
    class_names=None,
    styles: dict | None = None,
    id_map: np.ndarray | None = None,
    height: int | None = None,
    selected: int | None = None,
    width: int | None = DIAGRAM_WIDTH,
    font_size: float = DIAGRAM_FONT,
) -> go.Figure:
    """The tree as a node-link diagram (root on top, left children to the left), legible at any depth.

    A tree too wide for ``width`` pixels is drawn around the selected node: the path from
    the root to it (each sibling a closed node), its subtree as far as it fits, then the
    rest of the tree as far as it fits (:func:`diagram_nodes`). A closed node stands for
    its subtree (a triangle labelled "+n", the number of nodes hidden under it); clicking
    it selects it, which opens it. Nodes of a level are at least one slot
    (``SLOT_PX``) apart, so no markers overlap at ``width``; a node's label (its id and
    the split's component, or a leaf's class) is written only where it overlaps no label
    of higher priority (the selected node, its path, the other highlights, then shallow
    nodes first); every node has its full description on hover.

    Parameters
    ----------
    estimator : fitted tree estimator (possibly a :class:`PrunedTree`'s estimator)
    class_names : list of str, optional
        Classification: names in class-index order (leaf colours and labels).
    styles : dict of int to {"newest", "path", "selected"}, optional
        Highlight of nodes, keyed by *original* node id; these nodes are always drawn.
    id_map : ndarray of int, optional
        Original id of each node of ``estimator`` (``PrunedTree.kept``); identity
        by default. Node ids shown and returned in ``customdata`` are original ids.
    height : int, optional
        Pixels; by default it grows with the number of levels drawn.
    selected : int, optional
        The selected node (original id): ringed (unless ``styles`` gives it another
        highlight), its path from the root drawn in the selection colour, its subtree
        opened first. Default: the node styled "selected" in ``styles``, else none (the
        diagram opens from the root).
    width : int or None
        Pixels of plot area the diagram is laid out for (the Inspector's diagram column
        at 1024 px); None draws every node, however many.
    font_size : float
        Pixels of the labels and the legend (larger for a lecture).

    Returns
    -------
    plotly.graph_objects.Figure
        Node markers (trace "nodes") carry their original id in ``customdata`` (for
        selection); the selected node's path is the trace "selected path".
    """
    d = _plan(estimator.tree_, styles or {}, id_map, selected, width)
    classification = hasattr(estimator, "classes_")
    if classification and class_names is None:
        class_names = [str(c) for c in estimator.classes_]
    fig = go.Figure()
    _add_edges(fig, d)
    hover, text = _node_texts(estimator, d, class_names, width, font_size)
    fig.add_trace(
        go.Scatter(
            x=d.x,
            y=-d.level,
            mode="markers+text",
            marker=_node_marker(estimator, d, class_names if classification else None),
            text=text,
            textposition="bottom center",
            textfont={"size": font_size, "color": "#111111"},
            hovertext=hover,
            hoverinfo="text",
            customdata=d.ids[d.drawn].astype(np.int64),
            showlegend=False,
            name="nodes",
            # A click selects a node in the app; Plotly would dim every other node until the next click.
            selected={"marker": {"opacity": 1.0}},
            unselected={"marker": {"opacity": 1.0}},
        )
    )
    _add_halos(fig, d)
    if d.closed.any():
        _add_closed_entry(fig)
    level = d.level
    max_level = int(level.max()) if len(level) else 0
    scale = max(font_size / DIAGRAM_FONT, 1.0)  # larger labels need taller rows and levels
    top = 10 + int(LEGEND_ROW_PX * scale) * sum(bool(t.showlegend) for t in fig.data)
    span = max(d.n_slots, 1)
    fig.update_layout(
        height=height or int(top + LEVEL_PX * scale * (max_level + 1) + 10),
        xaxis={"visible": False, "range": [float(d.x.min()) - 0.5, float(d.x.min()) - 0.5 + span], "fixedrange": False},
        # Room below the deepest level for its two-line labels.
        yaxis={"visible": False, "range": [-max_level - 0.6, 0.35]},
        plot_bgcolor="#FFFFFF",
        margin={"l": 10, "r": 10, "t": top, "b": 10},
        legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0.0, "font": {"size": font_size}},
    )
    return fig


def distribution_figure(distribution: dict, height: int | None = None, font_size: float = DIAGRAM_FONT):
    """Horizontal bars of a node's class fractions, each in its class colour.

    Parameters
    ----------
    distribution : dict of str to float
        Class name -> fraction, in the classes' order (``node_details(...)["distribution"]``).
    height : int, optional
        Pixels; by default a row per class, tall enough for ``font_size``.
    font_size : float
        Pixels of the class names, the axis and the percentages.
    """
    names = list(distribution)
    colors = class_colors(len(names))
    fractions = [distribution[n] for n in names]
    fig = go.Figure(
        go.Bar(
            x=fractions,
            y=names,
            orientation="h",
            marker_color=colors,
            hovertemplate="%{y}: %{x:.1%}<extra></extra>",
            # Beside the bar at the axis' font size: inside a short bar Plotly would shrink it unreadably.
            text=[f"{v:.0%}" if v >= 0.005 else "" for v in fractions],
            textposition="outside",
            textfont={"size": font_size},
            cliponaxis=False,
        )
    )
    fig.update_layout(
        height=height or int(40 + len(names) * (font_size + 10)),
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        plot_bgcolor="#FFFFFF",
        font={"size": font_size},
        # Room right of a full bar for its "100%".
        xaxis={
            "range": [0, 1.2],
            "tickvals": [0, 0.5, 1],
            "tickformat": ".0%",
            "title": None,
            "tickfont": {"size": font_size},
        },
        yaxis={"autorange": "reversed", "type": "category", "tickfont": {"size": font_size}},
        showlegend=False,
    )
    return fig
