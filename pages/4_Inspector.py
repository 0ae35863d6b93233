"""Inspect one product tree: its diagram, training replayed split by split, nodes, and a point's path."""

import streamlit as st
from curvedtrees import viz

from ui import cache, state
from ui.boosted_trees import is_boosted, tree_label
from ui.chrome import lecture_mode, lecture_slide, lecture_stage, page_setup, set_model
from ui.errors import friendly
from ui.export import export_buttons
from ui.pictures import LECTURE_COLUMN_ZOOM, Layers, Picture, boundary_note, boundary_tree, picked_row
from ui.training import DEFAULT_TREE
from ui.widgets import PLOTLY_CONFIG, picture_picker, show_picture

page_setup("Tree inspector")
lecture = lecture_mode()
# In a lecture the diagram and the picture are one slide, one window tall (ui.chrome.lecture_slide):
# the title and the page's controls in one row, then the two charts filling the rest; the selected
# node's details, the picture's notes and its exports follow below it.
slide = lecture_slide() if lecture else st.container()
head = slide.container(horizontal=True, vertical_alignment="bottom", wrap=False) if lecture else slide
with head:
    st.title("Tree inspector", width="content")

data = state.get(state.DATA)
model = state.get(state.MODEL)
tree = boundary_tree(model) if model is not None else None
if tree is None:
    st.info(
        "The inspector shows a product decision tree (or one tree of a product forest); the current model "
        + ("is not one." if model is not None else "is missing.")
    )
    if st.button("Train a product decision tree now", type="primary", key="insp_train"):
        with friendly("train a tree"), st.spinner("Training..."):
            set_model(cache.model(data, DEFAULT_TREE))  # budgeted, in the worker pool
            st.rerun()
    st.stop()

forest = getattr(model.estimator, "estimators_", None)
tree_index = 0
if is_boosted(model.estimator):
    boosted = model.estimator
    per_iteration = int(boosted.n_trees_per_iteration_)
    c1, c2 = head.columns(2)
    # The preference "tree" is the flat tree number (iteration * trees per iteration + class), as on Regions.
    last = int(boosted.n_iter_) - 1
    iteration = int(
        c1.number_input(
            "Iteration",
            0,
            last,
            int(min((state.pref("tree", 0) or 0) // per_iteration, last)),
            key="insp_tree",
            help="Boosting adds one tree per iteration (one per class for 3 "
            "or more classes); each is fitted to what the trees before it got wrong.",
        )
    )
    k_class = 0
    if per_iteration > 1:
        k_class = int(
            c2.selectbox(
                "Class",
                range(per_iteration),
                key=f"insp_class_{model.model_id}",
                format_func=lambda k: str(boosted.classes_[k]),
            )
        )
    tree_index = iteration * per_iteration + k_class
    state.set_pref("tree", tree_index)
    tree = boundary_tree(model, tree_index)
    st.caption(
        f"{tree_label(boosted, tree_index)}: each leaf holds what it adds to the model's raw score"
        + (" of that class" if per_iteration > 1 else "")
        + " (learning rate included); the picture shows "
        "this one tree's contribution, not the model's prediction."
    )
elif forest is not None:
    tree_index = int(
        head.number_input(
            "Tree of the forest",
            0,
            len(forest) - 1,
            int(min(state.pref("tree", 0) or 0, len(forest) - 1)),
            key="insp_tree",
        )
    )
    state.set_pref("tree", tree_index)
    tree = boundary_tree(model, tree_index)

n_splits = len(viz.split_order(tree))
k = 0
if n_splits == 0:
    st.warning("This tree is a single leaf: it predicts the same for every point.")
else:
    saved_k = state.pref("k")
    k = head.slider(
        # On a slide the label keeps to one line at 800 px: every line of it is a line less of picture.
        "First k splits" if lecture else "First k splits (the diagram and the picture's first frame)",
        0,
        n_splits,
        int(saved_k) if saved_k is not None and 0 <= int(saved_k) <= n_splits else n_splits,
        key="insp_k",
        help="The diagram and the picture's first frame. "
        "Splits are numbered in the order training chose them; the diagram shows the tree "
        "stopped after k of them and the picture opens there. The picture's Play button "
        "replays every split in the browser. The newest split is highlighted.",
    )
    state.set_pref("k", int(k))
pruned = viz.first_splits(tree, k)
# A boosted tree predicts raw-score contributions, not classes: its leaves carry no class names.
class_names = data.class_names if hasattr(tree, "classes_") else None
kept_ids = [int(v) for v in pruned.kept]

c1, c2 = (head, head) if lecture else head.columns(2)
# A click on a data point of the picture arrives as the chart's selection state before anything is drawn:
# it explains that point (once; the row box may move on from it). The widgets then take their values from
# session state, set here from the click or from the saved preference.
picked = picked_row(st.session_state.get("insp_regions"), len(data.X))
if picked is not None and picked != state.pref("picked"):
    st.session_state["insp_explain"], st.session_state["insp_row"] = True, picked
state.set_pref("picked", picked)
saved_row = state.pref("explain_row")
st.session_state.setdefault("insp_explain", saved_row is not None)
st.session_state.setdefault("insp_row", int(saved_row or 0))
# A row kept from a larger dataset would be past the box's maximum, which Streamlit refuses.
st.session_state["insp_row"] = int(min(max(int(st.session_state["insp_row"]), 0), len(data.X) - 1))
explain = c1.toggle(
    "Explain a point",
    key="insp_explain",
    help="Follow one data row from the root to its leaf, on the diagram and on the manifold. "
    "Or click a point on the picture.",
)
row = None
if explain:
    row = int(c2.number_input("Row", 0, len(data.X) - 1, key="insp_row"))
state.set_pref("explain_row", row)

# Highlights, keyed by original node ids: the newest split, and the explained row's path.
styles = {}
if row is not None:
    for node in viz.decision_path_nodes(pruned.estimator, data.X[row]):
        styles[pruned.to_old(node)] = "path"
if pruned.newest is not None:
    styles[pruned.newest] = "newest"

# A click on the diagram arrives as the chart's selection state, before this run draws anything:
# read it first, so the diagram drawn below already rings the clicked node.
points = ((st.session_state.get("insp_diagram") or {}).get("selection") or {}).get("points") or []
try:
    clicked = int(points[0]["customdata"])
except (IndexError, KeyError, TypeError, ValueError):
    clicked = None
node_key = f"insp_node_{model.model_id}_{tree_index}_{k}"
if clicked is not None and clicked != state.pref("clicked") and clicked in kept_ids:
    st.session_state[node_key] = clicked  # a click selects the node once; the box may move on from it
state.set_pref("clicked", clicked)
if st.session_state.get(node_key) not in kept_ids:
    saved = state.pref("node")
    st.session_state[node_key] = saved if saved in kept_ids else kept_ids[0]

# The picture gets the wider column: a 3-D scene's size follows its column's width.
with slide:
    left, right = (lecture_stage() if lecture else st.container()).columns([2, 3])
# In a lecture the node's details and the picture's notes follow the slide; otherwise each its column.
below_left, below_right = st.columns([2, 3]) if lecture else (left, right)
chart_height = "stretch" if lecture else "content"
# The diagram is laid out for its column's narrowest width: 218 px at 1024 px with the sidebar open; in a
# lecture (sidebar collapsed, larger text) 286 px from 800 px up. Less the chart's margins.
diagram_size = (
    {"width": 266, "font_size": 15}
    if lecture
    else {"width": viz.treeview.DIAGRAM_WIDTH, "font_size": viz.treeview.DIAGRAM_FONT}
)
with left:
    st.markdown("**The tree**" + (f" (first {k} of {n_splits} splits)" if k < n_splits else f" ({n_splits} splits)"))
    selected = st.session_state[node_key]
    # Around the selected node: its path and subtree open, the rest as far as it fits (click a triangle to open it).
    fig = viz.tree_figure(
        pruned.estimator, class_names, styles=styles, id_map=pruned.kept, selected=int(selected), **diagram_size
    )
    st.plotly_chart(
        fig,
        key="insp_diagram",
        config=PLOTLY_CONFIG,
        on_select="rerun",
        selection_mode="points",
        height=chart_height,
    )
with below_left:
    # The key stays the same while the tree does, so the first pick after a page load counts.
    node = st.selectbox("Node", kept_ids, key=node_key, help="Click a node in the diagram, or pick its id here.")
    state.set_pref("node", int(node))
    details = viz.node_details(pruned.estimator, pruned.to_new(node), class_names, id_map=pruned.kept)
    prediction, impurity = details["prediction"], f" · impurity {details['impurity']:.4g}"
    if is_boosted(model.estimator):
        # A boosted tree is grown on gradients: no impurity, and a leaf's value is added to a raw score.
        prediction, impurity = f"{details['value']:+.4g} added to the raw score", ""
    if details["kind"] == "split":
        st.markdown(
            f"**Node {node}: split** on {details['geometry']}.  \n"
            f"Rule: `{details['boundary']}`{impurity} · "
            f"{details['samples']} training rows · children {details['left']} (left), {details['right']} "
            "(right)"
        )
    else:
        st.markdown(f"**Node {node}: leaf** predicting {prediction}{impurity} · {details['samples']} training rows")
    if "distribution" in details:
        st.plotly_chart(
            viz.treeview.distribution_figure(details["distribution"], font_size=diagram_size["font_size"]),
            key="insp_distribution",
            config=PLOTLY_CONFIG,
        )

with right:
    # On a slide the picture's choices fold into a button, leaving the picture the column's height.
    with st.popover("Picture", icon=":material/tune:") if lecture else st.container():
        chosen = picture_picker(data, "insp", resolution=False)
    picture = Picture(chosen.view, chosen.ref_mode, chosen.ref_row, 120)
    # The picture replays the whole tree in the browser (Play, or its own slider), opening at k splits;
    # its boundaries carry the tree's own node ids, the ones the diagram shows.
    picture_styles = {}
    if row is not None:
        picture_styles = dict.fromkeys(viz.decision_path_nodes(tree, data.X[row]), "path")
    if details["kind"] == "split":
        picture_styles[int(node)] = "selected"
    fig = show_picture(
        data,
        picture,
        model,
        estimator=tree,
        model_key=f"{model.model_id}:t{tree_index}",
        chart_key="insp_regions",
        caption=not lecture,  # on a slide the picture keeps the column's height
        # A big tree's ids would pile up into an unreadable heap: only its largest splits' and the highlighted ones.
        layers=Layers(tree=tree, styles=picture_styles, marked_row=row, label_nodes=True, highlight_node=int(node)),
        # In a lecture the picture's column is wider than the default framing's: a closer 3-D camera.
        framing=viz.Framing(zoom=LECTURE_COLUMN_ZOOM if lecture else None, wide=lecture),
        replay_k=k,
        height=chart_height,
        on_select=True,
    )
with below_right:
    note = boundary_note(tree, picture.view, replay=True)
    if note:
        st.caption(note)
    export_buttons(fig, viz.describe_view(picture.view, data.signature)[0], key="insp")

if row is not None:
    st.markdown(f"**Path of row {row}** (label `{data.label_of(row)}`):")
    lines = viz.explain_path(pruned.estimator, data.X[row], class_names, id_map=pruned.kept)
    st.markdown("\n".join(f"- {line}" for line in lines))
state.sync_url()
