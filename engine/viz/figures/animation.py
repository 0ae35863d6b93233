"""Animation frames and their controls (a slider, back, play, pause, on, play slower or faster), in the browser.

A frame restyles the traces that change: the regions (the renderer's
:meth:`~curvedtrees.viz.figures.render.Renderer.frame_regions`), and in a replay the boundary
traces of :func:`~curvedtrees.viz.figures.overlays.add_frame_boundaries`. Nothing is tweened
and every frame is redrawn: WebGL and heatmap traces only change when redrawn.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["BACK", "ON", "SPEEDS", "add_controls", "add_frames"]


def add_frames(fig, renderer, frames, moving=None, layouts=None) -> None:
    """One animation frame per prediction, each restyling the regions traces.

    ``moving``, from :func:`~curvedtrees.viz.figures.overlays.add_frame_boundaries`, adds the
    boundary traces each frame restyles; ``layouts`` (one dict per frame) what each frame
    changes in the layout (a 3-D replay's camera).
    """
    out = [renderer.frame_regions(regions) for regions in frames]
    regions_traces = renderer.regions_traces()
    layouts = layouts if layouts is not None else [None] * len(out)
    if moving is None:
        fig.frames = [go.Frame(data=d, traces=regions_traces, layout=lay) for d, lay in zip(out, layouts)]
    else:
        indices, per_frame = moving
        fig.frames = [
            go.Frame(data=[*d, *extra], traces=[*regions_traces, *indices], layout=lay)
            for d, extra, lay in zip(out, per_frame, layouts)
        ]


# Play at half and at twice the frame time too: a teacher slows a replay down to talk over it.
SPEEDS = ((0.5, "½×"), (2.0, "2×"))
# One frame back and on. Plotly's buttons animate to named frames only, so these two name the frames
# beside the one shown, and every frame's layout renames them for its own neighbours: whether a frame
# comes by Play, the slider or these buttons, they step from it (in the app and in an exported page).
BACK, ON = "◀ Back", "Next ▶"


def _play(duration: int) -> dict:
    # redraw: WebGL and heatmap traces only change when redrawn; no transition (nothing to tween).
    return {
        "frame": {"duration": int(duration), "redraw": True},
        "fromcurrent": True,
        "mode": "immediate",
        "transition": {"duration": 0},
    }


_STILL = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate", "transition": {"duration": 0}}
_PAUSE = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}}


def _menu(names: list[str], shown: int, duration: int, font: dict) -> dict:
    """The buttons under the picture: back, play, pause, on, and play slower or faster, stepping from ``shown``."""
    back, on = names[max(shown - 1, 0)], names[min(shown + 1, len(names) - 1)]
    speeds = [
        {"label": f"▶ {word}", "method": "animate", "args": [None, _play(duration / factor)]} for factor, word in SPEEDS
    ]
    return {
        # On the left above the slider's rail, the current value under them on the right: nothing
        # overlaps in a narrow column.
        "type": "buttons",
        "direction": "left",
        "showactive": False,
        "x": 0.0,
        "y": 0.0,
        "xanchor": "left",
        "yanchor": "top",
        "pad": {"t": 6, "r": 8},
        "font": font,
        "buttons": [
            {"label": BACK, "method": "animate", "args": [[back], _STILL]},
            {"label": "▶ Play", "method": "animate", "args": [None, _play(duration)]},
            {"label": "❚❚ Pause", "method": "animate", "args": [[None], _PAUSE]},
            {"label": ON, "method": "animate", "args": [[on], _STILL]},
            *speeds,
        ],
    }


def _current_value(label: str) -> tuple[str, str]:
    """Prefix and suffix of the slider's current value: ``"Split {} of 12"`` reads "Split 3 of 12", else "label: 3"."""
    if "{}" in label:
        prefix, suffix = label.split("{}", 1)
        return prefix, suffix
    return f"{label}: ", ""


def add_controls(fig, names: list[str], active: int, label: str, duration: int, large: bool = False) -> None:
    """Name the figure's frames, and add a slider over them, back, play, pause, on and play-speed buttons.

    ``label`` names what the slider sets ("month": "month: 3"); with ``{}`` in it, it is the current
    value's pattern ("Split {} of 12"). ``large`` (lecture mode's wide framing) sets the buttons and
    the current value in larger type.
    """
    frames = list(fig.frames)
    # Six buttons in a row fit a 430 px column (a lecture slide at 800 x 600) at 16 px.
    font = {"size": 16 if large else 12}
    shown = int(min(max(int(active), 0), len(names) - 1))
    # Each frame's layout keeps what it had (a 3-D replay's camera) and points back / on at its neighbours.
    layouts = [
        {**(f.layout.to_plotly_json() if f.layout else {}), "updatemenus": [_menu(names, k, duration, font)]}
        for k, f in enumerate(frames)
    ]
    fig.frames = [
        go.Frame(data=f.data, traces=f.traces, name=n, layout=lay) for f, n, lay in zip(frames, names, layouts)
    ]
    prefix, suffix = _current_value(label)
    fig.update_layout(
        updatemenus=[_menu(names, shown, duration, font)],
        sliders=[
            {
                "active": shown,
                "x": 0.0,
                "len": 1.0,
                "y": 0.0,
                "yanchor": "top",
                "pad": {"t": 44},
                "currentvalue": {
                    "prefix": prefix,
                    "suffix": suffix,
                    "font": {"size": 22 if large else 14},
                    "xanchor": "right",
                    "offset": 12,
                },
                "steps": [{"label": name, "method": "animate", "args": [[name], _STILL]} for name in names],
            }
        ],
    )
    fig.update_layout(margin={"b": max(int(fig.layout.margin.b or 0), 130)})
