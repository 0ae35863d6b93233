"""What every page does first: page config, restoring state (URL or default demo), the sidebar."""

from __future__ import annotations

import json

import numpy as np
import streamlit as st

from ui import cache, jobs, state, warmup
from ui.data import DEFAULT_DEMO, DEMOS
from ui.errors import message_for
from ui.training import DEFAULT_TREE

__all__ = [
    "NAVIGATION",
    "SERVER_GONE_TEXT",
    "adopt_dataset",
    "lecture_keys",
    "lecture_mode",
    "lecture_slide",
    "lecture_stage",
    "load_demo",
    "navigation",
    "page_setup",
    "rerun_with_note",
    "set_data",
    "set_model",
    "show_note",
    "sidebar",
]

APP_NAME = "Curved trees"


# Lecture mode (``?lecture=1``): the sidebar starts collapsed and text is large enough for a
# projector at the back of a room. The page starts just under Streamlit's 3.75rem header instead
# of 6rem down. Text scales with the window (between 1.05 and 1.35rem), so a step's sentences
# leave its picture room on an 800 x 600 projector too.
#
# A slide (:func:`lecture_slide`: the Lessons page's step, the Inspector's diagram and picture) is
# exactly one window tall under the header: a column of flex boxes in which the ``lecture_stage``
# container takes whatever height its siblings (title, controls, text) leave, and a chart drawn with
# ``height="stretch"`` inside it fills its own column of the stage. The browser measures every
# sibling, so the picture is as tall as the window allows whatever the text's length.
SLIDE_TOP = "3.5rem"  # the main block's top padding: Streamlit's header floats over the first 3.75rem
SLIDE_BOTTOM = "0.75rem"
LECTURE_CSS = f"""<style>
[data-testid='stMainBlockContainer'] {{max-width: 100%; padding: {SLIDE_TOP} 2rem 2rem 2rem}}
[data-testid='stMarkdownContainer'] p, [data-testid='stMarkdownContainer'] li {{
  font-size: clamp(1.05rem, min(2.6vh, 2vw), 1.35rem)
}}
[data-testid='stCaptionContainer'] {{font-size: 1.05rem}}
[data-testid='stElementContainer']:has(> [data-testid='stMarkdown'] style) {{display: none}}
div.st-key-lecture_slide.st-key-lecture_slide {{
  flex: 0 0 auto; height: calc(100vh - {SLIDE_TOP} - {SLIDE_BOTTOM}); gap: 0.6rem; flex-wrap: nowrap
}}
.st-key-lecture_slide h1 {{font-size: clamp(1.4rem, 4vh, 2.4rem); padding: 0}}
.st-key-lecture_slide [data-testid='stCaptionContainer'] {{font-size: 0.95rem}}
[data-testid='stLayoutWrapper']:has(> .st-key-lecture_stage) {{flex: 1 1 0; min-height: 0}}
div.st-key-lecture_stage.st-key-lecture_stage {{flex: 1 1 0; min-height: 0; height: 100%}}
.st-key-lecture_stage [data-testid='stLayoutWrapper']:has(> [data-testid='stHorizontalBlock']) {{
  flex: 1 1 0; min-height: 0
}}
.st-key-lecture_stage [data-testid='stHorizontalBlock'] {{height: 100%; min-height: 0}}
.st-key-lecture_stage [data-testid='stColumn'] > [data-testid='stVerticalBlock'] {{height: 100%; flex-wrap: nowrap}}
.st-key-lecture_stage [data-testid='stElementContainer']:has([data-testid='stPlotlyChart']) {{
  flex: 1 1 0; min-height: 0
}}
</style>"""


# When the server stops answering (it restarted, or went down), Streamlit's own dialog asks "Are you
# connected to the internet?". This watcher says what happened instead: a small script in a
# one-pixel frame (st.iframe, same origin) looks at the app's connection state every second and
# shows a plain banner over the page while it is not connected, removing it once the page is back.
SERVER_GONE_TEXT = (
    "The app's server is not answering: it may be restarting or busy. This page reconnects by itself "
    "when the server is back; if it has not within a minute, reload the page."
)
_SERVER_WATCH = """<script>
const page = window.parent.document;
setInterval(() => {
  const app = page.querySelector("[data-testid='stApp']");
  const state = app ? app.getAttribute("data-test-connection-state") : null;
  const lost = state === "PINGING_SERVER" || state === "CONNECTING" || state === "DISCONNECTED_FOREVER";
  let banner = page.getElementById("ct-server-gone");
  if (lost && !banner) {
    banner = page.createElement("div");
    banner.id = "ct-server-gone";
    banner.setAttribute("role", "alert");
    banner.style.cssText = "position:fixed;top:0;left:0;right:0;z-index:1000001;padding:0.8rem 1.5rem;" +
      "background:#fff3cd;color:#4d3900;border-bottom:1px solid #d9b44a;font:1rem sans-serif";
    banner.textContent = %s;
    page.body.appendChild(banner);
  } else if (!lost && banner) {
    banner.remove();
  }
}, 1000);
</script>"""


# Projector clickers send PageDown / PageUp (some send the arrow keys): in a lecture they press the
# page's Next and Previous buttons. A small script in a one-pixel frame (st.iframe, same origin, as
# the server watcher) listens on the page itself, where the keys arrive, and clicks the buttons;
# keys typed into a field, a select box or a slider are theirs. The frame's text names the step, so
# every new step runs the script again: it replaces the previous step's listener (one press, one
# step) and scrolls the page back to the top, where the step's title is.
_LECTURE_KEYS = """<script>
const view = window.parent, page = view.document;
const buttons = %s;
const FORWARD = ["ArrowRight", "PageDown"], BACK = ["ArrowLeft", "PageUp"];
const OWN_KEYS = "input, textarea, select, [contenteditable=''], [contenteditable='true'], [role='slider'], " +
  "[role='combobox'], [role='listbox'], [role='spinbutton']";
function ownsKeys(el) { return !!(el && el.closest && el.closest(OWN_KEYS)); }
function onKey(event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const which = FORWARD.includes(event.key) ? "next" : BACK.includes(event.key) ? "previous" : null;
  if (!which || ownsKeys(event.target) || ownsKeys(page.activeElement)) return;
  const button = page.querySelector(buttons[which]);
  if (!button) return;
  event.preventDefault();
  if (!button.disabled) button.click();
}
if (view.ctLectureKeys) page.removeEventListener("keydown", view.ctLectureKeys, true);
view.ctLectureKeys = onKey;
page.addEventListener("keydown", onKey, true);
function toTop() {
  for (const el of [page.scrollingElement, page.querySelector("[data-testid='stMain']"),
                    page.querySelector("[data-testid='stAppViewContainer']")]) {
    if (el && el.scrollTop) el.scrollTop = 0;
  }
}
toTop();
for (const wait of [100, 400, 1000]) setTimeout(toTop, wait);
/* step: %s */
</script>"""


def lecture_keys(previous_key: str, next_key: str, step: str) -> None:
    """Let the arrow keys and PageUp / PageDown press two buttons, and start the page at the top.

    Parameters
    ----------
    previous_key, next_key : str
        Widget keys of the page's Previous and Next buttons.
    step : str
        Names what the page shows (a lesson and its step): a new value starts the page at the
        top again. Only letters, digits, ``-`` and ``_`` are kept.
    """
    buttons = {"previous": f".st-key-{previous_key} button", "next": f".st-key-{next_key} button"}
    step = "".join(c for c in str(step) if c.isalnum() or c in "-_")
    st.iframe(_LECTURE_KEYS % (json.dumps(buttons), step), height=1)


def lecture_slide():
    """A container one window tall (lecture mode, see :data:`LECTURE_CSS`); its ``lecture_stage`` fills the rest."""
    return st.container(key="lecture_slide")


def lecture_stage():
    """Inside :func:`lecture_slide`: the container that takes the height the slide's other rows leave."""
    return st.container(key="lecture_stage")


def lecture_mode() -> bool:
    """Whether the page is shown for a lecture (``?lecture=1`` in the URL)."""
    return st.query_params.get("lecture") == "1"


def page_setup(title: str, icon: str = ":material/park:") -> None:
    """Page config, state restored (URL, else the default demo), sidebar status."""
    lecture = lecture_mode()
    st.set_page_config(
        page_title=f"{title} · {APP_NAME}",
        page_icon=icon,
        layout="wide",
        initial_sidebar_state="collapsed" if lecture else "auto",
    )
    if lecture:
        st.markdown(LECTURE_CSS, unsafe_allow_html=True)
    # Once per server process: compile the kernels in the background while this page
    # draws; a fit that needs them first waits under a spinner saying so. The worker pool's
    # template process starts too (it imports and compiles for a few seconds).
    if warmup.start(spinner=st.spinner):
        jobs.pool().start_template()
    if state.get(state.DATA) is None:
        _restore()
    sidebar()


def _restore() -> None:
    """First page view of a session: rebuild the view from the link, or open the default demo."""
    params = state.url_params()
    prefs = state.link_prefs(params)
    if state.UPLOAD_PARAM in st.query_params.keys() and _restore_upload(params, prefs):
        return
    if params.get("data"):
        try:
            recipe = state.decode_param(params["data"], "dataset")
            model_recipe = state.decode_param(params["model"], "model") if params.get("model") else None
            # Both are checked against the work budgets before anything is built, and built in
            # the worker pool (shared with every session that opens the same link).
            with st.spinner("Rebuilding the dataset and model from the link..."):
                data = cache.dataset(recipe)
                model = cache.model(data, model_recipe) if model_recipe is not None else None
            set_data(data)
            if model is not None:
                set_model(model)
            state.put(state.PREFS, prefs)
            return
        except Exception as exc:  # a bad link falls back to the demo, with the reason
            st.warning(
                f"The link's dataset or model could not be rebuilt ({message_for(exc)}); showing the "
                "default demo instead."
            )
    load_demo(DEFAULT_DEMO)
    if prefs:
        state.put(state.PREFS, state.get(state.PREFS, {}) | prefs)


# ---- a kept upload (ui.kept_uploads): a reload of the tab that uploaded it restores it
def _restore_upload(params: dict, prefs: dict) -> bool:
    """Restore the upload whose token the link carries (and its model); False, with the reason, if it cannot."""
    from ui.kept_uploads import GONE_TEXT, restore_record

    token = params.get(state.UPLOAD_PARAM)  # None when malformed (state.url_params checks its form)
    kept = state.kept_uploads().get(token)
    if kept is None:
        st.warning(GONE_TEXT, icon=":material/history:")
        return False
    try:
        with st.spinner(f"Reading {kept.name} again..."):
            data = restore_record(kept, token)
            model_recipe = state.decode_param(params["model"], "model") if params.get("model") else None
            model = cache.model(data, model_recipe) if model_recipe is not None else None
    except Exception as exc:  # it passed when it was kept: say why it no longer does
        st.warning(f"The kept upload could not be read again ({message_for(exc)}); showing the default demo instead.")
        return False
    set_data(data)
    if model is not None:
        set_model(model)
    state.put(state.PREFS, state.get(state.PREFS, {}) | prefs)
    return True


def load_demo(key: str) -> None:
    """Load a demo's dataset and model (cached across sessions: demos are public and deterministic)."""
    demo = DEMOS[key]
    data = cache.recipe_data(json.dumps(demo.data, sort_keys=True))
    set_data(data)
    set_model(cache.recipe_model(json.dumps(demo.model, sort_keys=True), data.hash, data))
    # The grid resolution is a display preference: it survives a change of demo.
    kept = {k: v for k, v in state.get(state.PREFS, {}).items() if k == "res"}
    state.put(state.PREFS, kept | ({"view": demo.view} if demo.view else {}))
    state.forget_widgets()


def set_data(record) -> None:
    """Make ``record`` the current dataset; a model trained on other data is dropped."""
    state.put(state.DATA, record)
    model = state.get(state.MODEL)
    if model is not None and model.data_hash != record.hash:
        state.drop(state.MODEL)
    prefs = dict(state.get(state.PREFS, {}))
    for name in ("row", "k", "node", "tree", "explain_row"):
        prefs.pop(name, None)
    if prefs.get("view"):
        from ui.pictures import resolve_view

        prefs["view"] = resolve_view(record.signature, prefs["view"]).key
    state.put(state.PREFS, prefs)
    state.forget_widgets()


def set_model(record) -> None:
    """Make ``record`` the current model (the inspector starts again from its full tree)."""
    state.put(state.MODEL, record)
    prefs = dict(state.get(state.PREFS, {}))
    for name in ("k", "node", "tree"):
        prefs.pop(name, None)
    state.put(state.PREFS, prefs)
    state.forget_widgets(picture=False)


def _data_line(data) -> str:
    task = data.task
    if task == "classification":
        task += f", {len(data.class_names or [])} classes"
    return f"**{data.title}**  \n`{data.signature}` · {len(data.X):,} rows · {task}"


def _model_line(model) -> str:
    m = model.metrics
    # An uploaded model is scored on every row of the current dataset, not on held-out rows.
    where = "" if model.source == "uploaded" else "test "
    rows = f" on all {m.get('n_test', 0):,} rows" if model.source == "uploaded" else ""
    if "accuracy" in m:
        score = f"{where}accuracy {m['accuracy']:.3f}{rows}"
    elif "r2" in m:
        score = f"{where}R² {m['r2']:.3f}{rows}"
    else:
        score = "not scored"
    est = model.estimator
    shape = ""
    if hasattr(est, "get_depth"):
        shape = f" · depth {est.get_depth()}, {est.get_n_leaves()} leaves"
    elif hasattr(est, "n_trees_per_iteration_"):
        shape = f" · {est.n_iter_} iterations, {est.n_iter_ * est.n_trees_per_iteration_} trees"
    elif hasattr(est, "estimators_") and isinstance(est.estimators_, list):
        shape = f" · {len(est.estimators_)} trees"
    source = " (uploaded)" if model.source == "uploaded" else ""
    return f"**{model.title}**{source}  \n{score}{shape}"


# The app's pages in the sidebar, in the order of a session: "Home" first. Streamlit's own
# navigation names the entry script after its file ("app"); it is switched off in
# .streamlit/config.toml (client.showSidebarNavigation) and drawn here instead.
NAVIGATION = (
    ("app.py", "Home", ":material/home:"),
    ("pages/1_Data.py", "Data", ":material/folder_open:"),
    ("pages/2_Train.py", "Train", ":material/model_training:"),
    ("pages/3_Regions.py", "Regions", ":material/map:"),
    ("pages/9_Side_by_side.py", "Side by side", ":material/compare:"),
    ("pages/4_Inspector.py", "Inspector", ":material/account_tree:"),
    ("pages/5_Lessons.py", "Lessons", ":material/school:"),
    ("pages/6_Embeddings.py", "Embeddings", ":material/hub:"),
    ("pages/7_Compare.py", "Compare", ":material/leaderboard:"),
    ("pages/8_Benchmarks.py", "Benchmarks", ":material/speed:"),
)


def navigation() -> None:
    """Links to every page, labelled as a visitor would name them."""
    for path, label, icon in NAVIGATION:
        st.page_link(path, label=label, icon=icon)


def sidebar() -> None:
    """The pages, the current dataset and model, and a way back to the default demo."""
    data = state.get(state.DATA)
    model = state.get(state.MODEL)
    with st.sidebar:
        navigation()
        st.divider()
        st.caption("Current dataset")
        st.markdown(_data_line(data) if data is not None else "none")
        st.caption("Current model")
        st.markdown(_model_line(model) if model is not None else "none yet: train one on the **Train** page")
        if st.button(
            "Back to the default demo",
            key="sidebar_reset",
            help="Load the mixture on the Poincaré disk and its trained tree.",
        ):
            load_demo(DEFAULT_DEMO)
            st.rerun()
        st.iframe(_SERVER_WATCH % json.dumps(SERVER_GONE_TEXT), height=1)


_NOTE = "note"  # (place, markdown): a success line waiting for the page's next run


def rerun_with_note(place: str, text: str) -> None:
    """Run the page again, then show ``text`` once where :func:`show_note` names ``place``.

    Every page draws the sidebar (current dataset and model) before its buttons act, so
    a page that has just loaded data or trained a model draws itself again for the
    sidebar to name them; the note says what happened, next to the button that did it.
    """
    state.put(_NOTE, (place, text))
    st.rerun()


def adopt_dataset(
    record,
    train_now: bool,
    place: str,
    note: str,
    recipe: dict = DEFAULT_TREE,
    spinner: str = "Training a product decision tree...",
) -> None:
    """Make ``record`` the current dataset, train ``recipe`` (a product tree) on it if asked, and rerun.

    ``note`` then shows once at ``place`` (see :func:`rerun_with_note`).
    """
    set_data(record)
    if train_now:
        with st.spinner(spinner):
            set_model(cache.model(record, recipe))
    rerun_with_note(place, note)


def show_note(place: str) -> bool:
    """Show and forget the note waiting for ``place``; whether there was one."""
    note = state.get(_NOTE)
    if note is None or note[0] != place:
        return False
    st.success(note[1])
    state.drop(_NOTE)
    return True


def metrics_table(model) -> list[tuple[str, str]]:
    """(name, formatted value) pairs of a model's scores."""
    m = model.metrics
    rows = []
    for key, label in (
        ("accuracy", "test accuracy"),
        ("f1_micro", "F1 (micro)"),
        ("f1_macro", "F1 (macro)"),
        ("train_accuracy", "training accuracy"),
        ("rmse", "test RMSE"),
        ("r2", "test R²"),
        ("train_r2", "training R²"),
    ):
        if key in m and m[key] is not None and np.isfinite(m[key]):
            rows.append((label, f"{m[key]:.3f}"))
    rows.append(("rows (train / test)", f"{m.get('n_train', 0):,} / {m.get('n_test', 0):,}"))
    if model.source == "trained":
        rows.append(("fit time (compilation excluded)", f"{model.fit_seconds:.2f} s"))
    return rows
