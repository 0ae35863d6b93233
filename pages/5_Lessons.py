"""Guided lessons on the geometry of decision boundaries: one picture and a few sentences a step."""

import streamlit as st
from curvedtrees import viz

from ui import cache
from ui.chrome import lecture_keys, lecture_mode, lecture_slide, lecture_stage, page_setup, set_data, set_model
from ui.errors import friendly
from ui.export import export_buttons
from ui.lessons import LESSONS, get_lesson
from ui.pictures import LECTURE_COLUMN_ZOOM, Layers, Picture, boundary_tree, resolve_view
from ui.text import first_splits
from ui.widgets import show_picture

page_setup("Lessons")

# Region grid of a lesson picture: sharp enough on a projector, quick to draw.
LESSON_RESOLUTION = 150
# A lecture slide's one picture has two thirds of the window's width and the height the slide leaves
# (ui.chrome.LECTURE_CSS), so its columns are about 1.1 to 1.45 times as wide as tall: the torus's
# camera stays farther than the wide framing's, which draws it 1.22 times as wide as its chart is tall.
SLIDE_ZOOM = {"torus": 1.5}


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


def picture(
    data,
    models: dict,
    view_key: str,
    model_name: str,
    splits,
    chart_key: str,
    wide: bool = False,
    height="content",
    step=None,
):
    """One lesson picture: the model's regions after ``splits`` splits, the newest one highlighted.

    ``wide``: the picture has the page's whole width in lecture mode (a taller chart, a closer 3-D camera).
    ``height="stretch"``: the chart fills its column of a lecture slide's stage. ``step``: the lesson step
    whose dashed model, margin band and caption this picture carries (the first picture of a step).
    Returns the figure and its caption (the page adds the export buttons where they do not take the
    picture's room).
    """
    model = models[model_name]
    view = resolve_view(data.signature, view_key)
    shown = Picture(view, "origin", 0, LESSON_RESOLUTION)
    tree = boundary_tree(model)
    title, _ = viz.describe_view(view, data.signature)
    if wide:
        framing = viz.Framing(wide=True, zoom=SLIDE_ZOOM.get(view.kind))
    else:
        # Two pictures side by side on a slide: each column is at least 360 px wide and wider than tall.
        framing = viz.Framing(zoom=LECTURE_COLUMN_ZOOM if height == "stretch" else None)
    common = {"chart_key": chart_key, "caption": False, "framing": framing, "height": height}
    if splits == 0:
        fig = show_picture(data, shown, None, **common)
    elif tree is not None and splits is not None:
        pruned = viz.first_splits(tree, splits)
        styles = pruned.restyle({pruned.newest: "newest"}) if pruned.newest is not None else {}
        fig = show_picture(
            data,
            shown,
            model,
            estimator=pruned.estimator,
            model_key=f"{model.model_id}:k{splits}",
            layers=Layers(tree=pruned.estimator, styles=styles),
            **common,
        )
    elif step is not None and (step.dashed or step.margin_node is not None):
        dashed = models[step.dashed[0]] if step.dashed else None
        # The split whose margin is drawn stands out on either side's tint (the Inspector's selected colour).
        chosen = {step.margin_node: "selected"} if step.margin_node is not None else {}
        layers = Layers(
            tree=tree,
            styles=chosen,
            boundary_names={"selected": "maximum margin (product tree)"} if chosen else None,
            highlight_node=step.margin_node,
            compared_tree=dashed.estimator if dashed is not None else None,
            compared_name=step.dashed[1] if step.dashed else "",
        )
        key = f"{model.model_id}:m{step.margin_node}:d{dashed.model_id if dashed is not None else ''}"
        fig = show_picture(data, shown, model, model_key=key, layers=layers, **common)
    else:
        fig = show_picture(data, shown, model, **common)
    if step is not None and step.caption:
        what = step.caption
    elif splits == 0:
        what = first_splits(0)
    else:
        what = model.title + ("" if splits is None else f" · {first_splits(splits)}")
    # On a slide the chart's own title names the picture: the caption keeps to one line.
    st.caption(what if height == "stretch" else f"{title} · {what}")
    return fig, f"{title} · {what}"


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
lecture = lecture_mode()

drawn = []  # (figure, caption, key) of each picture, for the export buttons under the slide
# In a lecture the step is one slide, one window tall (ui.chrome.lecture_slide): the title with
# Previous / Next beside it, the step's words, and its picture filling the rest.
with lecture_slide() if lecture else st.container():
    with st.container(horizontal=True, vertical_alignment="center", wrap=False, key="lesson_head"):
        st.title(lesson.title, width="stretch")
        st.button(
            "Previous",
            key="lesson_back",
            on_click=go,
            args=(lesson.key, index - 1),
            disabled=index == 0,
            icon=":material/arrow_back:",
            width="content",
        )
        st.button(
            "Next",
            key="lesson_next",
            on_click=go,
            args=(lesson.key, index + 1),
            disabled=index == n_steps - 1,
            type="primary",
            icon=":material/arrow_forward:",
            width="content",
        )
    with friendly("prepare the lesson"):
        data, models = lesson_assets(lesson.key)
    st.progress((index + 1) / n_steps, text=f"Step {index + 1} of {n_steps}: **{step.title}**")
    if step.compare is None and lecture:
        # One picture: the words on its left, where a landscape screen has room to spare.
        with lecture_stage():
            words, shown = st.columns([1, 2], gap="medium")
            words.container(key="lesson_text").markdown(step.text)
            with shown:
                fig, caption = picture(
                    data,
                    models,
                    step.view,
                    step.model,
                    step.splits,
                    "lesson_picture",
                    wide=True,
                    height="stretch",
                    step=step,
                )
                drawn.append((fig, caption, "lesson_picture"))
    else:
        st.container(key="lesson_text").markdown(step.text)
        with lecture_stage() if lecture else st.container():
            pictures = [(step.view, step.model, "lesson_picture")]
            if step.compare is not None:
                pictures.append((*step.compare, "lesson_compare"))
            height = "stretch" if lecture else "content"
            for column, (view_key, model_name, key) in zip(st.columns(len(pictures)), pictures):
                with column:
                    # The step's dashed boundaries, margin band and caption belong to its first picture.
                    own = step if key == "lesson_picture" else None
                    fig, caption = picture(
                        data, models, view_key, model_name, step.splits, key, height=height, step=own
                    )
                    drawn.append((fig, caption, key))

for fig, caption, key in drawn:
    export_buttons(fig, caption, key=key)
others, switch, explore = st.columns([1.3, 1.3, 2])
others.button("All lessons", key="lesson_all", on_click=go, args=(None,), width="stretch")
switch.button(
    "Normal view" if lecture else "Lecture mode",
    key="lesson_lecture",
    on_click=go,
    args=(lesson.key, index, not lecture),
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
if lecture:
    lecture_keys("lesson_back", "lesson_next", f"{lesson.key}-{index + 1}")
