"""Guided lessons on the geometry of decision boundaries: one picture and a few sentences a step."""

import streamlit as st
from curvedtrees import viz

from ui import cache
from ui.chrome import lecture_mode, page_setup, set_data, set_model
from ui.errors import friendly
from ui.export import export_buttons
from ui.lessons import LESSONS, get_lesson
from ui.pictures import Layers, Picture, boundary_tree, resolve_view
from ui.widgets import show_picture

page_setup("Lessons")

# Region grid of a lesson picture: sharp enough on a projector, quick to draw.
LESSON_RESOLUTION = 150


def lesson_assets(key: str):
    """The lesson's dataset and models. Recipes are fixed, so every visitor shares them (ui.cache), pictures too."""
    lesson = get_lesson(key)
    data = cache.dataset(lesson.data)
    return data, {name: cache.model(data, recipe) for name, recipe in lesson.models.items()}


def go(lesson_key: str | None, step: int = 0, lecture: bool | None = None) -> None:
    """Open a lesson at a step: the URL is the lesson's state, so it can be shared or bookmarked."""
    lecture = lecture_mode() if lecture is None else lecture
    st.query_params.clear()
    if lesson_key is not None:
        st.query_params["lesson"] = lesson_key
        st.query_params["step"] = str(step + 1)
    if lecture:
        st.query_params["lecture"] = "1"


def picture(data, models: dict, view_key: str, model_name: str, splits, chart_key: str, wide: bool = False) -> None:
    """One lesson picture: the model's regions after ``splits`` splits, the newest one highlighted.

    ``wide``: the picture has the page's whole width in lecture mode (a taller chart, a closer 3-D camera).
    """
    model = models[model_name]
    view = resolve_view(data.signature, view_key)
    shown = Picture(view, "origin", 0, LESSON_RESOLUTION)
    tree = boundary_tree(model)
    title, _ = viz.describe_view(view, data.signature)
    framing = viz.Framing(wide=wide)
    if splits == 0:
        fig = show_picture(data, shown, None, chart_key=chart_key, caption=False, framing=framing)
    elif tree is not None and splits is not None:
        pruned = viz.first_splits(tree, splits)
        styles = pruned.restyle({pruned.newest: "newest"}) if pruned.newest is not None else {}
        fig = show_picture(
            data,
            shown,
            model,
            estimator=pruned.estimator,
            model_key=f"{model.model_id}:k{splits}",
            chart_key=chart_key,
            caption=False,
            layers=Layers(tree=pruned.estimator, styles=styles),
            framing=framing,
        )
    else:
        fig = show_picture(data, shown, model, chart_key=chart_key, caption=False, framing=framing)
    caption = f"{title} · {model.title}" + ("" if splits is None else f" · first {splits} split(s)")
    st.caption(caption)
    export_buttons(fig, caption, key=chart_key)


lesson = get_lesson(st.query_params.get("lesson"))
if lesson is None:
    st.title("Lessons")
    st.markdown(
        "Short guided tours of how decision trees cut curved spaces. Each opens its own data and model "
        "(your current dataset is left alone) and has its own link, so a class can follow along."
    )
    for item in LESSONS:
        with st.container(border=True):
            left, right = st.columns([4, 1])
            left.markdown(f"**{item.title}**  \n{item.summary}")
            right.button("Open", key=f"lesson_open_{item.key}", on_click=go, args=(item.key, 0), width="stretch")
    st.stop()

n_steps = len(lesson.steps)
try:
    index = min(max(int(st.query_params.get("step", "1")) - 1, 0), n_steps - 1)
except ValueError:
    index = 0
step = lesson.steps[index]

st.title(lesson.title)
with friendly("prepare the lesson"):
    data, models = lesson_assets(lesson.key)
st.progress((index + 1) / n_steps, text=f"Step {index + 1} of {n_steps}: **{step.title}**")
st.markdown(step.text)

if step.compare is None:
    # One picture across the page: in lecture mode (sidebar folded) its column is at least 736 px wide.
    picture(data, models, step.view, step.model, step.splits, "lesson_picture", wide=lecture_mode())
else:
    left, right = st.columns(2)
    with left:
        picture(data, models, step.view, step.model, step.splits, "lesson_picture")
    with right:
        picture(data, models, step.compare[0], step.compare[1], step.splits, "lesson_compare")

back, forward, others, lecture, explore = st.columns([1, 1, 1.3, 1.3, 2])
back.button(
    "Previous",
    key="lesson_back",
    on_click=go,
    args=(lesson.key, index - 1),
    disabled=index == 0,
    icon=":material/arrow_back:",
    width="stretch",
)
forward.button(
    "Next",
    key="lesson_next",
    on_click=go,
    args=(lesson.key, index + 1),
    disabled=index == n_steps - 1,
    type="primary",
    icon=":material/arrow_forward:",
    width="stretch",
)
others.button("All lessons", key="lesson_all", on_click=go, args=(None,), width="stretch")
lecture.button(
    "Normal view" if lecture_mode() else "Lecture mode",
    key="lesson_lecture",
    on_click=go,
    args=(lesson.key, index, not lecture_mode()),
    width="stretch",
    help="Large text and the sidebar folded away, for a projector; it is part of the link.",
)
if explore.button(
    "Explore this in the app",
    key="lesson_explore",
    width="stretch",
    help="Make the lesson's data and tree the current ones and open the Regions page.",
):
    set_data(data)
    set_model(models["tree"])
    st.switch_page("pages/3_Regions.py")
