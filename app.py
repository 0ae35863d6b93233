"""Curved trees: the explorer app's home page.

Run with ``streamlit run app.py`` (or ``make run``). The page opens on a ready
demo: a mixture on the hyperbolic plane, a trained product decision tree and
its decision regions on the Poincaré disk.
"""

import streamlit as st
from curvedtrees.viz import describe_view

from ui import state
from ui.chrome import load_demo, metrics_table, page_setup
from ui.data import available_demos
from ui.export import export_buttons
from ui.widgets import picture_picker, show_picture

page_setup("Home")

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
for start in range(0, len(demos), DEMOS_PER_ROW):
    for column, demo in zip(st.columns(DEMOS_PER_ROW), demos[start : start + DEMOS_PER_ROW]):
        with column:
            if st.button(demo.short, key=f"demo_{demo.key}", help=f"{demo.title}: {demo.blurb}", width="stretch"):
                with st.spinner(f"Loading {demo.title} and training its model..."):
                    load_demo(demo.key)
                st.rerun()

data = state.get(state.DATA)
model = state.get(state.MODEL)
heading = st.empty()  # filled once the picture is chosen: the title names the disk it is drawn on
st.caption(data.dataset.description)

left, right = st.columns([3, 1])
with left:
    picture = picture_picker(data, "home", resolution=False)
    fig = show_picture(data, picture, model, chart_key="home_regions")
    export_buttons(fig, describe_view(picture.view, data.signature)[0], key="home")
# A demo titled after the Poincaré disk is shown on the Klein disk when the user switches to it.
klein = picture.view.kind == "disk" and picture.view.model == "klein"
heading.subheader(data.title.replace("Poincaré disk", "Klein disk") if klein else data.title)
with right:
    if model is not None:
        st.markdown(f"**{model.title}**")
        for name, value in metrics_table(model):
            st.markdown(f"{name}: **{value}**")
    else:
        st.info("No model yet: train one on the Train page.")
    st.page_link("pages/1_Data.py", label="Pick or upload data", icon=":material/folder_open:")
    st.page_link("pages/2_Train.py", label="Train a model", icon=":material/model_training:")
    st.page_link("pages/3_Regions.py", label="Decision regions", icon=":material/map:")
    st.page_link("pages/9_Side_by_side.py", label="Two models side by side", icon=":material/compare:")
    st.page_link("pages/4_Inspector.py", label="Tree inspector", icon=":material/account_tree:")

state.sync_url()
