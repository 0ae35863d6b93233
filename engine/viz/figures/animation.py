"""Animation frames and their controls (a slider, play, pause, play slower or faster), played in the browser.

A frame restyles the traces that change: the regions (the renderer's
:meth:`~curvedtrees.viz.figures.render.Renderer.frame_regions`), and in a replay the boundary
traces of :func:`~curvedtrees.viz.figures.overlays.add_frame_boundaries`. Nothing is tweened
and every frame is redrawn: WebGL and heatmap traces only change when redrawn.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["add_controls", "add_frames"]


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


def _play(duration: int) -> dict:
    # redraw: WebGL and heatmap traces only change when redrawn; no transition (nothing to tween).
    return {
        "frame": {"duration": int(duration), "redraw": True},
        "fromcurrent": True,
        "mode": "immediate",
        "transition": {"duration": 0},
    }


def add_controls(fig, names: list[str], active: int, label: str, duration: int, large: bool = False) -> None:
    """Name the figure's frames, and add a slider over them, play / pause and play-speed buttons.

    ``large`` (lecture mode's wide framing) sets the buttons and the current value in larger type.
    """
    frames = list(fig.frames)
    fig.frames = [go.Frame(data=f.data, traces=f.traces, name=name, layout=f.layout) for f, name in zip(frames, names)]
    still = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate", "transition": {"duration": 0}}
    play = _play(duration)
    speeds = [
        {"label": f"▶ {word}", "method": "animate", "args": [None, _play(duration / factor)]} for factor, word in SPEEDS
    ]
    font = {"size": 18 if large else 12}
    fig.update_layout(
        # Buttons on the left above the slider's rail, the current value on the right: nothing overlaps
        # in a narrow column.
        updatemenus=[
            {
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
                    {"label": "▶ Play", "method": "animate", "args": [None, play]},
                    {
                        "label": "❚❚ Pause",
                        "method": "animate",
                        "args": [
                            [None],
                            {
                                "frame": {"duration": 0, "redraw": False},
                                "mode": "immediate",
                                "transition": {"duration": 0},
                            },
                        ],
                    },
                    *speeds,
                ],
            }
        ],
        sliders=[
            {
                "active": int(active),
                "x": 0.0,
                "len": 1.0,
                "y": 0.0,
                "yanchor": "top",
                "pad": {"t": 44},
                "currentvalue": {
                    "prefix": f"{label}: ",
                    "font": {"size": 22 if large else 14},
                    "xanchor": "right",
                    "offset": 12,
                },
                "steps": [{"label": name, "method": "animate", "args": [[name], still]} for name in names],
            }
        ],
    )
    fig.update_layout(margin={"b": max(int(fig.layout.margin.b or 0), 130)})
