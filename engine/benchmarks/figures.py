"""Plotly figures of benchmark summaries (pure functions: data in, figure out; no Streamlit).

Scores are shown the way the tables print them: F1 in percent, RMSE as is,
with 95% confidence intervals as error bars.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["score_figure", "timing_figure"]

_OURS = "#2a6f97"
_PAPER = "#b5b5b5"


def _scale(metric: str) -> tuple[float, str]:
    return (100.0, "F1 micro (%)") if metric == "f1_micro" else (1.0, "RMSE (lower is better)")


def score_figure(summary: pd.DataFrame, paper: pd.DataFrame | None = None, title: str | None = None):
    """Mean score per model with 95% confidence intervals, for one dataset row.

    Parameters
    ----------
    summary : DataFrame
        Rows of :func:`curvedtrees.benchmarks.summarize` for a single dataset row
        (one metric); columns model, metric, mean, ci, and optionally marks.
    paper : DataFrame, optional
        The paper's cells for the same row (columns model, mean, ci), drawn as a
        second, grey series.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    import plotly.graph_objects as go

    if summary.empty:
        raise ValueError("nothing to plot: the summary has no rows")
    metrics = summary["metric"].unique()
    if len(metrics) != 1:
        raise ValueError(f"one metric per figure, got {', '.join(metrics)}")
    scale, axis = _scale(metrics[0])
    models = list(summary["model"])
    marks = summary["marks"].fillna("") if "marks" in summary else [""] * len(models)
    figure = go.Figure()
    figure.add_trace(
        go.Bar(
            name="this run",
            x=models,
            y=summary["mean"] * scale,
            error_y={"type": "data", "array": summary["ci"].fillna(0) * scale, "visible": True},
            marker_color=_OURS,
            text=list(marks),
            textposition="outside",
            hovertemplate="%{x}: %{y:.3f} ± %{error_y.array:.3f}<extra>this run</extra>",
        )
    )
    if paper is not None and not paper.empty:
        cells = paper.set_index("model").reindex(models)
        figure.add_trace(
            go.Bar(
                name="paper (Table 5)",
                x=models,
                y=cells["mean"] * scale,
                error_y={"type": "data", "array": cells["ci"].fillna(0) * scale, "visible": True},
                marker_color=_PAPER,
                hovertemplate="%{x}: %{y:.3f} ± %{error_y.array:.3f}<extra>paper</extra>",
            )
        )
    figure.update_layout(
        title=title,
        barmode="group",
        yaxis_title=axis,
        margin={"l": 50, "r": 20, "t": 50 if title else 20, "b": 40},
        legend={"orientation": "h", "y": 1.08},
        height=380,
    )
    return figure


def timing_figure(summary: pd.DataFrame, title: str | None = None):
    """Mean fit and predict time per model (milliseconds, log scale), averaged over the summary's rows."""
    import plotly.graph_objects as go

    if summary.empty:
        raise ValueError("nothing to plot: the summary has no rows")
    means = summary.groupby("model", sort=False)[["fit_seconds", "predict_seconds"]].mean() * 1000.0
    figure = go.Figure()
    for column, name, color in (("fit_seconds", "fit", _OURS), ("predict_seconds", "predict", "#e09f3e")):
        figure.add_trace(
            go.Bar(
                name=name,
                x=list(means.index),
                y=means[column],
                marker_color=color,
                hovertemplate="%{x}: %{y:.2f} ms<extra>" + name + "</extra>",
            )
        )
    figure.update_layout(
        title=title,
        barmode="group",
        # Labels at powers of ten only: Plotly's default log ticks also label 2 and 5 of each
        # decade, which reads as "2, 100, 5, 2, 10" in a short chart.
        yaxis={
            "title": "milliseconds per call",
            "type": "log",
            "dtick": 1,
            "exponentformat": "none",
            "ticksuffix": " ms",
        },
        margin={"l": 50, "r": 20, "t": 50 if title else 20, "b": 40},
        legend={"orientation": "h", "y": 1.08},
        height=320,
    )
    return figure
