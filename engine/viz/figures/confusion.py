"""A confusion matrix as an annotated heatmap (the Train page's)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

__all__ = ["confusion_figure"]


def confusion_figure(matrix: np.ndarray, class_names: list[str], title: str | None = None) -> go.Figure:
    """Confusion matrix as an annotated heatmap (rows: true class, columns: predicted).

    Parameters
    ----------
    matrix : ndarray of int, shape (n_classes, n_classes)
    class_names : list of str
    """
    matrix = np.asarray(matrix)
    names = [str(c) for c in class_names]
    totals = matrix.sum(axis=1, keepdims=True)
    share = np.divide(matrix, totals, out=np.zeros(matrix.shape, dtype=np.float64), where=totals > 0)
    fig = go.Figure(
        go.Heatmap(
            z=share,
            x=names,
            y=names,
            colorscale="Blues",
            zmin=0,
            zmax=1,
            showscale=False,
            text=matrix.astype(str),
            texttemplate="%{text}",
            hovertemplate="true %{y}<br>predicted %{x}<br>%{text} rows<extra></extra>",
        )
    )
    size = min(80 + 42 * len(names), 640)
    fig.update_layout(
        xaxis={"title": {"text": "predicted"}, "type": "category", "side": "bottom", "showgrid": False},
        yaxis={"title": {"text": "true"}, "type": "category", "autorange": "reversed", "showgrid": False},
        height=size + 80,
        width=size + 100,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        title=title,
        plot_bgcolor="#FFFFFF",
    )
    return fig
