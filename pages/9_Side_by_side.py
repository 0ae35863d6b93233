"""Two pictures of the current dataset on the same view and grid: a model and a disk model per side."""

import time

import streamlit as st
from curvedtrees import viz

from ui import cache, state
from ui.chrome import page_setup
from ui.errors import friendly
from ui.export import export_buttons
from ui.pictures import Picture, globe_components, picture_figure, reference_note
from ui.side_by_side import DEPTHS, KINDS, describe_side, kinds_for, side_recipe
from ui.widgets import PLOTLY_CONFIG, RESOLUTIONS

page_setup("Side by side")
st.title("Side by side")
st.markdown(
    "The same data on the same picture and grid, two models: a tree against a forest, one depth against "
    "another, the Poincaré disk against the Klein disk, a product tree against a tree that ignores the "
    "geometry. Each side's depth slider retrains that side only."
)

# What each side opens with: the question a lecture asks first, a tree against a forest.
DEFAULTS = {"left": ("product_tree", 4), "right": ("product_forest", 8)}
DISK_MODELS = {"poincare": "Poincaré", "klein": "Klein"}


data = state.get(state.DATA)
signature = data.signature
views = viz.available_views(signature, globe=globe_components(data))


def view_label(view) -> str:
    title, _ = viz.describe_view(view, signature)
    # Each side picks its own disk model below: the shared choice names only the component.
    return title.replace(" on the Poincaré disk", " on a disk") if view.kind == "disk" else title


c1, c2 = st.columns([3, 2])
labels = [view_label(v) for v in views]
pick = c1.selectbox(
    "Picture (both sides)",
    labels,
    key=f"sbs_view_{len(views)}_{signature}",
    help="Which component both sides draw; the other components are held at their origin.",
)
shared_view = views[labels.index(pick)]
resolution = c2.slider(
    "Grid resolution", *RESOLUTIONS, 150, step=10, key="sbs_res", help="Cells per side of both grids."
)
kinds = kinds_for(signature)
missing = [KINDS[k].title for k in KINDS if k not in kinds]
if missing:
    st.caption(f"Not offered for `{signature}`: {', '.join(missing)} (H and E components only).")


@st.fragment
def side(name: str) -> None:
    """One side: its model, depth and disk model; moving its widgets reruns this side only."""
    kind_default, depth_default = DEFAULTS[name]
    a, b = st.columns([3, 2])
    kind = a.selectbox(
        "Model",
        kinds,
        index=kinds.index(kind_default) if kind_default in kinds else 0,
        format_func=lambda k: KINDS[k].title,
        key=f"sbs_{name}_kind",
        help=" ".join(f"{KINDS[k].title}: {KINDS[k].blurb}" for k in kinds),
    )
    depth = b.slider(
        "Depth",
        *DEPTHS,
        depth_default,
        key=f"sbs_{name}_depth",
        help="The deepest level a split may sit at; the model is retrained (once per depth).",
    )
    view = shared_view
    if view.kind == "disk":
        disk = st.radio(
            "Disk model",
            list(DISK_MODELS),
            format_func=DISK_MODELS.get,
            horizontal=True,
            key=f"sbs_{name}_disk",
            help="Poincaré: conformal, geodesics are circular arcs. Klein: geodesics are straight chords.",
        )
        view = view.with_model(disk)
    recipe = side_recipe(kind, int(depth))
    record = None
    with friendly(f"train the {KINDS[kind].title.lower()}"):
        record = cache.side_model(data, recipe)
    if record is None:
        return
    picture = Picture(view, "origin", 0, int(resolution))
    view_title, note = viz.describe_view(view, signature)
    # The model goes first in the title: two pictures of one view differ by their models, and a
    # half-width column cuts a long title short.
    title = f"{KINDS[kind].title}, depth {depth}<br><sup>{view_title}</sup>"
    started = time.perf_counter()
    with friendly("draw the decision regions") as outcome:
        grid_regions = cache.regions(record.model_id, picture.key(data), record.estimator, data, picture)
        fig = picture_figure(data, picture, record, grid_regions, framing=viz.Framing(title=title))
    if not outcome.ok:
        return
    st.plotly_chart(fig, key=f"sbs_{name}_chart", config=PLOTLY_CONFIG, width="stretch")
    st.markdown(describe_side(record, recipe))
    reference = reference_note(data, picture)
    st.caption(" ".join(filter(None, [note, reference, f"Drawn in {time.perf_counter() - started:.2f} s."])))
    export_buttons(fig, f"{KINDS[kind].title} depth {depth} {view_title}", key=f"sbs_{name}")


left, right = st.columns(2, gap="medium")
with left:
    side("left")
with right:
    side("right")
state.sync_url()
