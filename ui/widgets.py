"""Widgets shared by several pages: the picture picker and the region chart."""

from __future__ import annotations

import dataclasses
import time

import streamlit as st
from curvedtrees import viz

from ui import cache, state
from ui.errors import friendly
from ui.pictures import (
    Layers,
    Picture,
    frame_steps,
    globe_components,
    picture_figure,
    reference_note,
    replay_for,
    resolve_layers,
)

__all__ = ["PLOTLY_CONFIG", "picture_picker", "show_picture"]

PLOTLY_CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d"],
    "toImageButtonOptions": {"format": "png", "scale": 2},
}
RESOLUTIONS = (40, 300)


def _slug(signature) -> str:
    return str(signature).replace(" ", "").replace("(", "_").replace(")", "_")


def _axes_widgets(view: viz.View, signature, prefix: str) -> viz.View:
    """Slice axes of a higher-dimensional component (H3+, S3+, E3+)."""
    comp = signature.components[view.components[0]]
    if view.kind == "disk" and comp.dim > 2:
        options, n = list(range(1, comp.dim + 1)), 2
    elif view.kind == "sphere" and comp.dim > 2:
        options, n = list(range(0, comp.dim + 1)), 3
    elif view.kind == "plane" and comp.dim > 2:
        options, n = list(range(0, comp.dim)), 2
    else:
        return view
    saved = state.pref(f"axes:{comp.index}") or list(view.axes)
    saved = [a for a in saved if a in options][:n]
    if len(saved) < n:
        saved = options[:n]
    chosen = st.multiselect(
        f"Slice of {comp.name}: {n} axes",
        options,
        default=saved,
        max_selections=n,
        key=f"{prefix}_axes_{_slug(signature)}_{comp.index}",
        format_func=lambda a: f"x{a}",
        help=f"{comp.name} has more than two dimensions: the picture shows the 2-D slice spanned by these axes "
        "(for H and S through the origin, every other coordinate 0).",
    )
    if len(chosen) != n:
        st.caption(f"Pick {n} axes; showing x{', x'.join(str(a) for a in saved)} meanwhile.")
        chosen = saved
    state.set_pref(f"axes:{comp.index}", list(chosen))
    return viz.View(view.kind, view.components, tuple(chosen), view.model)


def picture_picker(
    data, prefix: str, reference: bool = True, resolution: bool = True, default_resolution: int = 150
) -> Picture:
    """Widgets choosing the picture; choices are kept in the session and mirrored to the URL."""
    signature = data.signature
    views = viz.available_views(signature, globe=globe_components(data))
    # The disk's model (Poincaré or Klein) is the toggle below: the picture's name does not fix it.
    titles = [viz.describe_view(v, signature)[0].replace(" on the Poincaré disk", " on the disk") for v in views]
    saved = state.pref("view")
    index = 0
    if saved and saved.count(":") >= 1:
        kind, comps = saved.split(":")[:2]
        for i, v in enumerate(views):
            if v.kind == kind and "-".join(str(c) for c in v.components) == comps:
                index = i
    # A reference point matters only when something outside the picture is held fixed.
    needs_reference = len(signature.components) > 1 or any(c.kind == "E" and c.dim > 2 for c in signature.components)
    reference = reference and needs_reference
    widths = [4] + ([3] if reference else []) + ([2] if resolution else [])
    cols = st.columns(widths if len(widths) > 1 else [3, 2])
    with cols[0]:
        # Keyed by the signature too: a new signature is a new widget (its options differ).
        pick = st.selectbox(
            "Picture",
            titles,
            index=index,
            key=f"{prefix}_view_{_slug(signature)}",
            help="Which component to draw; a torus shows two circles at once.",
        )
        view = views[titles.index(pick)]
        if view.kind == "disk":
            klein = st.toggle(
                "Klein disk",
                value=bool(saved and saved.endswith(":klein")),
                key=f"{prefix}_klein",
                help="Poincaré disk: conformal, geodesics are circular arcs. Klein disk: geodesics "
                "are straight chords.",
            )
            view = view.with_model("klein" if klein else "poincare")
        view = _axes_widgets(view, signature, prefix)
    state.set_pref("view", view.key)

    ref_mode, ref_row = "origin", 0
    # A picture of every component (a torus of S1 x S1) holds nothing: no control then.
    if reference and viz.holds_reference(view, signature):
        with cols[1]:
            modes = ["origin", "mean", "point"]
            labels = {"origin": "origin", "mean": "data mean", "point": "a data point"}
            saved_mode = state.pref("ref", "origin")
            ref_mode = st.radio(
                "Other components held at",
                modes,
                index=modes.index(saved_mode) if saved_mode in modes else 0,
                format_func=labels.get,
                key=f"{prefix}_ref",
                horizontal=True,
                help="A picture shows one component; every other component of the product is "
                "fixed at this point while the model is evaluated.",
            )
            if ref_mode == "point":
                ref_row = int(
                    st.number_input(
                        "Row",
                        0,
                        len(data.X) - 1,
                        int(min(state.pref("row", 0) or 0, len(data.X) - 1)),
                        key=f"{prefix}_row",
                    )
                )
        state.set_pref("ref", ref_mode)
        state.set_pref("row", ref_row if ref_mode == "point" else None)
    res = int(state.pref("res", default_resolution) or default_resolution)
    if resolution:
        with cols[-1]:
            res = st.slider(
                "Grid resolution",
                *RESOLUTIONS,
                int(state.pref("res", default_resolution) or default_resolution),
                step=10,
                key=f"{prefix}_res",
                help="Cells per side of the region grid (the sphere and torus: per angle). Finer is "
                "sharper but slower to draw.",
            )
        state.set_pref("res", int(res))
    return Picture(view, ref_mode, ref_row, int(res))


@st.cache_data(show_spinner=False, max_entries=8, scope="session")
def _replay(model_key: str, picture_key: tuple, _tree, _data, _picture):
    """:func:`ui.pictures.replay_for`, cached per session by the tree's key and the picture."""
    return replay_for(_tree, _data, _picture)


def show_picture(
    data,
    picture: Picture,
    model=None,
    *,
    estimator=None,
    model_key: str | None = None,
    chart_key: str = "regions",
    caption: bool = True,
    layers: Layers | None = None,
    framing: viz.Framing | None = None,
    replay_k: int | None = None,
    height: int | str = "content",
    on_select: bool = False,
):
    """Predict (cached) and draw one picture; notes about the slice and reference point below it.

    ``layers.show_points`` and ``layers.show_boundaries`` default to
    :func:`ui.pictures.default_layers` (no points over a large dataset, no single-tree
    boundaries over a forest). With ``replay_k``, the picture replays ``layers.tree`` split
    by split in the browser (play, pause, a slider), opening after ``replay_k`` splits.
    ``framing`` gets the view's title. ``height`` is ``st.plotly_chart``'s: ``"stretch"`` fills
    a container of fixed height (a lecture slide's stage, :func:`ui.chrome.lecture_stage`).
    ``on_select``: a click on a data point reruns the page with the chart's selection in session
    state under ``chart_key`` (:func:`ui.pictures.picked_row` reads the clicked row).
    """
    layers = resolve_layers(layers if layers is not None else Layers(), data, model, estimator)
    title, note = viz.describe_view(picture.view, data.signature)
    framing = dataclasses.replace(framing if framing is not None else viz.Framing(), title=title)
    source = None
    started = time.perf_counter()
    with friendly("draw the decision regions") as outcome:
        est = estimator if estimator is not None else (model.estimator if model is not None else None)
        tree = layers.tree
        if replay_k is not None and tree is not None:
            source = _replay(model_key or model.model_id, picture.key(data), tree, data, picture)
            layers = dataclasses.replace(layers, replay_frame=int(abs(source.steps - int(replay_k)).argmin()))
        elif est is not None:
            key = model_key or model.model_id
            source = cache.regions(key, picture.key(data), est, data, picture)
        # Shared by every session when the model is public (a lesson's, a demo's: ui.cache). The tree
        # drawn is named by ``model_key`` (its suffix), so the key leaves the estimator object out.
        shared_key = (model_key or model.model_id) if model is not None and est is not None else None
        fig = cache.figure(
            shared_key,
            picture.key(data),
            {"layers": dataclasses.replace(layers, tree=None, compared_tree=None), "framing": framing},
            data,
            lambda: picture_figure(data, picture, model, source, layers=layers, framing=framing),
        )
    if not outcome.ok:
        return None
    selection = {"on_select": "rerun", "selection_mode": "points"} if on_select else {}
    st.plotly_chart(fig, key=chart_key, config=PLOTLY_CONFIG, width="stretch", height=height, **selection)
    if caption:
        notes = [note]
        ref = reference_note(data, picture) if est is not None else None  # no regions: nothing is held
        if ref:
            notes.append(ref)
        if est is None and state.get(state.MODEL) is None:
            notes.append("No model yet: the points on the bare manifold.")
        elif est is None:
            notes.append("The points alone; the Regions page draws the current model's regions.")
        elif hasattr(est, "classes_"):
            notes.append("Colour: predicted class; pale means the model is less sure (lower winning probability).")
        elif data.task == "classification":  # one boosted tree: a raw-score contribution, not a class
            notes.append("Colour: the tree's value at each point, which it adds to a class's raw score.")
        if replay_k is not None and tree is not None:
            notes.append(
                "Play replays training: each frame adds the next split (highlighted) and recolours the regions."
            )
        elif est is not None and frame_steps(data, picture.view) is not None and layers.show_boundaries:
            notes.append("Split boundaries are not drawn on a picture that plays through steps (each holds for one).")
        notes.append(f"Computed in {time.perf_counter() - started:.2f} s.")
        st.caption(" ".join(notes))
    return fig
