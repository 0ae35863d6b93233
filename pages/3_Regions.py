"""Decision regions of the current model, one component (or a pair of circles) at a time."""

import streamlit as st
from curvedtrees import viz

from ui import state
from ui.boosted_trees import is_boosted, tree_count, tree_label
from ui.chrome import lecture_mode, page_setup
from ui.export import export_buttons
from ui.pictures import Layers, boundary_note, boundary_tree, default_layers, frame_steps
from ui.widgets import picture_picker, show_picture

page_setup("Decision regions")
st.title("Decision regions")

data = state.get(state.DATA)
model = state.get(state.MODEL)
if model is None:
    st.info("No model yet: the points are drawn on the bare manifold. Train one on the **Train** page.")

picture = picture_picker(data, "regions")
# Until the user chooses: no points over a large dataset, no single-tree boundaries over a forest.
auto_points, auto_bounds = default_layers(data, model)
# The middle column is wider: "Show split boundaries" with its help icon is cut at 1024 px in thirds.
col_a, col_b, col_c = st.columns([1, 1.4, 1])
with col_a:
    show_points = st.toggle("Show data points", value=bool(state.pref("points", auto_points)), key="regions_points")
    state.set_pref("points", show_points)
tree = None
# Only product trees (and ensembles of them) have geodesic splits to draw: no toggle for other models.
has_splits = model is not None and boundary_tree(model) is not None
show_bounds = False
with col_b:
    if has_splits:
        # The choice belongs to one model: a forest trained after a tree was shown with its boundaries opens
        # without one tree's boundaries (they do not match the forest's regions) until the user asks again.
        model_id = model.model_id
        saved_bounds = state.pref("bounds")
        if not (isinstance(saved_bounds, dict) and saved_bounds.get("model") == model_id):
            saved_bounds = {"model": model_id, "on": auto_bounds}
            st.session_state.pop("regions_bounds", None)  # the toggle starts again from the new model's default
        show_bounds = st.toggle(
            "Show split boundaries",
            value=bool(saved_bounds["on"]),
            key="regions_bounds",
            help="Each split of a single tree drawn as the geodesic it is, only where it acts.",
        )
        state.set_pref("bounds", {"model": model_id, "on": bool(show_bounds)})
    elif model is not None:
        st.caption("This model has no geodesic splits to draw (not a product tree).")
with col_c:
    forest = getattr(model.estimator, "estimators_", None) if model is not None else None
    boosted = model is not None and is_boosted(model.estimator)
    n_trees = tree_count(model.estimator) if boosted else len(forest) if forest is not None else 0
    if show_bounds and n_trees:
        index = st.number_input(
            "Boundaries of tree #",
            0,
            n_trees - 1,
            int(min(state.pref("tree", 0) or 0, n_trees - 1)),
            key="regions_tree",
            help="A forest's regions average many trees, a boosted model's add them up; the "
            "boundaries drawn are one tree's.",
        )
        state.set_pref("tree", int(index))
        tree = boundary_tree(model, int(index))
        if boosted:
            st.caption(tree_label(model.estimator, int(index)))

fig = show_picture(
    data,
    picture,
    model,
    chart_key="regions_chart",
    layers=Layers(show_points=show_points, show_boundaries=show_bounds, tree=tree),
    # The picture has the page's whole width; in lecture mode (sidebar folded) at least 736 px.
    framing=viz.Framing(wide=lecture_mode()),
)
if fig is not None and show_bounds and frame_steps(data, picture.view) is None:
    # A fully grown tree has thousands of splits: say which ones the picture draws.
    note = boundary_note(tree if tree is not None else boundary_tree(model), picture.view)
    if note:
        st.caption(note)
export_buttons(fig, viz.describe_view(picture.view, data.signature)[0], key="regions")
state.sync_url()
