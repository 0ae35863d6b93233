"""Curved trees: the explorer app's home page.

Run with ``streamlit run app.py`` (or ``make run``). The page opens on a ready
demo: a mixture on the hyperbolic plane, a trained product decision tree and
its decision regions on the Poincaré disk.

Staged for an audience: a demo button loads its data and model while the page holds
still (the spinner floats over it), then the finished picture is scrolled to the top of
the window; the picture has the page's whole width, the model's scores and the links
to the other pages below it.
"""

import json

import streamlit as st
from curvedtrees import viz
from curvedtrees.viz import describe_view

from ui import state
from ui.chrome import load_demo, metrics_table, page_setup
from ui.data import available_demos
from ui.export import export_buttons
from ui.widgets import picture_picker, show_picture

page_setup("Home")

# The loading spinner floats at the top right instead of growing the demo's row, so that nothing
# moves under the audience's eyes while a model loads; the links below the picture wrap instead of
# being cut ("Pick or upload d...") in a narrow column.
HOME_CSS = """<style>
.st-key-home_loading {position: fixed; top: 4.2rem; right: 1.5rem; z-index: 999990; width: auto;
  background: #FFFFFF; padding: 0.4rem 0.9rem; border: 1px solid #DDDDDD; border-radius: 0.5rem;
  box-shadow: 0 2px 8px rgba(0, 0, 0, 0.12)}
.st-key-home_picture {max-width: 760px}
.st-key-home_links [data-testid='stPageLink'] p {white-space: normal; overflow: visible; text-overflow: clip}
</style>"""
# After a demo click: bring the picture to the top of the window (under Streamlit's header) once
# Plotly has drawn it, and keep it there while the figure settles (the legend and the slider
# take their room a moment after the plot), until it has held still for a second or the visitor
# scrolls, clicks or types. Same-origin frame, as ui.chrome's server watcher.
_SCROLL_TO_PICTURE = """<script>
const page = window.parent.document;
const nonce = %s;
let stop = false, steady = 0, tries = 0;
for (const kind of ["wheel", "touchstart", "keydown", "mousedown"]) {
  page.addEventListener(kind, () => { stop = true; }, {capture: true, once: true});
}
function scroller(el) {
  for (let node = el.parentElement; node && node !== page.body; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) return node;
  }
  return page.scrollingElement;
}
const timer = setInterval(() => {
  tries += 1;
  if (stop || tries > 150 || steady >= 5) { clearInterval(timer); return; }
  const chart = page.querySelector(".st-key-home_picture [data-testid='stPlotlyChart']");
  if (!chart || !chart.querySelector(".js-plotly-plot .main-svg")) return;
  const header = page.querySelector("[data-testid='stHeader']");
  const top = header ? header.getBoundingClientRect().bottom : 0;
  const off = chart.getBoundingClientRect().top - top - 4;
  if (Math.abs(off) > 2) { scroller(chart).scrollBy({top: off}); steady = 0; } else { steady += 1; }
}, 200);
</script>"""
# The picture has the page's width to itself, up to 760 px (HOME_CSS): 564 px at 1024 x 768 with the
# sidebar open, 760 at 1400 x 900. A 3-D picture's camera comes closer (ui.pictures.LECTURE_COLUMN_ZOOM
# is the Inspector's). The world map (2:1, and 112 px of axes, title and legend around it) is as tall as
# fills both: at 1024 px its width binds (a 467 x 234 px map, 54 px to spare), at 1400 its height (576
# x 288 px of 636 px available).
# The globes (3-D and turning) are as tall as a 768 px window allows under Streamlit's 64 px header with
# their legend and slider: 680 px.
HOME_ZOOM = 1.3
HOME_GLOBE_HEIGHT = 680
HOME_MAP_HEIGHT = 400


def home_framing(kind: str) -> viz.Framing | None:
    """How the home page frames a picture of ``kind`` (None: the picture's default)."""
    if kind == "sphere":
        return viz.Framing(zoom=HOME_ZOOM, height=HOME_GLOBE_HEIGHT)
    if kind == "ortho":
        return viz.Framing(height=HOME_GLOBE_HEIGHT)
    if kind == "torus":
        return viz.Framing(zoom=HOME_ZOOM)
    if kind == "map":
        return viz.Framing(height=HOME_MAP_HEIGHT)
    return None


_SCROLL = "home_scroll"  # a number waiting for the run after a demo click
_CLICKS = "home_clicks"

st.markdown(HOME_CSS, unsafe_allow_html=True)
st.title("Curved trees")
st.markdown(
    "Decision trees and random forests for data that lives on **curved spaces**: the hyperbolic plane, the sphere, "
    "circles, and products of them such as `H2 x S2 x E2`. Every split is a geodesic hyperplane of one component, "
    "so the decision regions you see below are cut by true geodesics: circular arcs on the Poincaré disk, great "
    "circles on the sphere."
)

st.subheader("Try a demo")
demos = available_demos()
# Three buttons a row: six in one row cut their labels to "Poi..." on a projector (1024 px and below).
DEMOS_PER_ROW = 3
clicked = None
for start in range(0, len(demos), DEMOS_PER_ROW):
    for column, demo in zip(st.columns(DEMOS_PER_ROW), demos[start : start + DEMOS_PER_ROW]):
        with column:
            if st.button(demo.short, key=f"demo_{demo.key}", help=f"{demo.title}: {demo.blurb}", width="stretch"):
                clicked = demo
if clicked is not None:
    # Out of the page's flow (HOME_CSS): the rows below stay where they are while it shows.
    with st.container(key="home_loading"), st.spinner(f"Loading {clicked.title} and training its model..."):
        load_demo(clicked.key)
    clicks = state.get(_CLICKS, 0) + 1  # a new number each time, so that the browser runs the script again
    state.put(_CLICKS, clicks)
    state.put(_SCROLL, clicks)
    st.rerun()

data = state.get(state.DATA)
model = state.get(state.MODEL)
with st.container(key="home_picture"):
    heading = st.empty()  # filled once the picture is chosen: the title names the disk it is drawn on
    st.caption(data.dataset.description)
    picture = picture_picker(data, "home", resolution=False)
    fig = show_picture(data, picture, model, chart_key="home_regions", framing=home_framing(picture.view.kind))
    export_buttons(fig, describe_view(picture.view, data.signature)[0], key="home")
# A demo titled after the Poincaré disk is shown on the Klein disk when the user switches to it.
klein = picture.view.kind == "disk" and picture.view.model == "klein"
heading.subheader(data.title.replace("Poincaré disk", "Klein disk") if klein else data.title)

scores, links = st.columns([1, 1])
with scores:
    if model is not None:
        st.markdown(f"**{model.title}**")
        st.markdown("  \n".join(f"{name}: **{value}**" for name, value in metrics_table(model)))
    else:
        st.info("No model yet: train one on the Train page.")
with links, st.container(key="home_links"):
    st.page_link("pages/1_Data.py", label="Pick or upload data", icon=":material/folder_open:")
    st.page_link("pages/2_Train.py", label="Train a model", icon=":material/model_training:")
    st.page_link("pages/3_Regions.py", label="Decision regions", icon=":material/map:")
    st.page_link("pages/9_Side_by_side.py", label="Two models side by side", icon=":material/compare:")
    st.page_link("pages/4_Inspector.py", label="Tree inspector", icon=":material/account_tree:")

scroll = state.get(_SCROLL)
if scroll is not None:
    state.drop(_SCROLL)
    st.iframe(_SCROLL_TO_PICTURE % json.dumps(scroll), height=1)

state.sync_url()
