"""Train a model on the current dataset, score it, save it as JSON or load one."""

import hashlib
from dataclasses import replace

import streamlit as st
from curvedtrees.viz import confusion_figure

from ui import cache, state, work
from ui.boosted_trees import boosting_summary, is_boosted
from ui.chrome import metrics_table, page_setup, rerun_with_note, set_model, show_note
from ui.errors import friendly, message_for
from ui.forms import param_fields
from ui.sandbox import CheckerBusy, check_against_dataset, load_model_isolated
from ui.training import FAMILIES, adopt_model, families_for
from ui.widgets import PLOTLY_CONFIG

page_setup("Train")
st.title("Train a model")

data = state.get(state.DATA)
model = state.get(state.MODEL)
families = families_for(data.task, data.signature)
st.markdown(f"On **{data.title}** (`{data.signature}`, {len(data.X):,} rows, {data.task}).")

keys = [f.key for f in families]
current = model.recipe.get("family") if model is not None and model.source == "trained" else "product_tree"
family_key = st.selectbox(
    "Model",
    keys,
    index=keys.index(current) if current in keys else 0,
    format_func=lambda k: FAMILIES[k].title,
    key="train_family",
)
family = FAMILIES[family_key]
st.caption(family.blurb)

previous = model.recipe if model is not None and model.recipe.get("family") == family_key else {}
defaults = family.defaults(data.task) | dict(previous.get("params", {}))
with st.form("train_form"):
    # A regression tree has one criterion (squared error): the box is shown for classification only.
    specs = [
        replace(p, choices=tuple(c for c in p.choices if c != "squared_error")) if p.name == "criterion" else p
        for p in family.params
        if not (p.name == "criterion" and data.task == "regression")
    ]
    params = param_fields(specs, key_prefix=f"train_{family_key}_", values=defaults)
    c1, c2 = st.columns(2)
    fixed_split = data.dataset.test_mask is not None
    test_size = c1.slider(
        "Test share",
        0.1,
        0.5,
        float(previous.get("test_size", 0.25)),
        step=0.05,
        key="train_test_size",
        disabled=fixed_split,
        help="Share of rows held out to score the model."
        + (" This dataset has a fixed test set." if fixed_split else "")
        + (" Groups (e.g. cities) stay on one side." if data.dataset.groups is not None else ""),
    )
    seed = int(
        c2.number_input(
            "Seed",
            0,
            2**31 - 1,
            int(previous.get("seed", 0)),
            key="train_seed",
            help="Seeds the split and the model's randomness: same seed, same model.",
        )
    )
    submitted = st.form_submit_button("Train", type="primary")

if submitted:
    with friendly("train the model") as outcome:
        recipe = {"family": family_key, "params": params, "test_size": test_size, "seed": seed}
        bar = st.progress(0.0, text="Training...")

        def report(done, total):
            bar.progress(done / total, text=f"Training... {done} of {total} trees" if total > 1 else "Training...")

        # Checked against the work budget, then fitted in the worker pool (shared with every
        # session training the same recipe on the same public dataset).
        record = cache.model(data, recipe, on_progress=report)
        bar.empty()
        set_model(record)
    if outcome.ok:
        rerun_with_note("train", f"Trained in {record.fit_seconds:.2f} s.")
show_note("train")

if model is not None:
    st.subheader(f"{model.title}" + (" (uploaded)" if model.source == "uploaded" else ""))
    if is_boosted(model.estimator):
        st.caption(boosting_summary(model.estimator))
    left, right = st.columns([1, 2])
    uploaded_model = model.source == "uploaded"
    with left:
        rows = metrics_table(model)
        if uploaded_model:
            # An uploaded model was not trained here: its scores are on every row of the
            # current dataset, and the labels say so (they are not test scores).
            where = f"on all {model.metrics.get('n_test', 0):,} rows of the current dataset"
            rows = [
                (label.replace("test ", "") + f" {where}", value)
                for label, value in rows
                if not label.startswith(("training", "rows (train"))
            ]
        st.table({"metric": [r[0] for r in rows], "value": [r[1] for r in rows]})
    with right:
        if "confusion" in model.metrics:
            scope = "all rows" if uploaded_model else "test rows"
            st.plotly_chart(
                confusion_figure(model.metrics["confusion"], data.class_names, title=f"Confusion matrix ({scope})"),
                key="train_confusion",
                config=PLOTLY_CONFIG,
                width="content",
            )

    st.subheader("Save or load a model")
    try:
        text = cache.model_document(model)
    except TypeError as exc:
        text = None
        st.caption(f"This model cannot be saved: {exc}")
    if text is not None:
        st.download_button(
            "Download the model (JSON)",
            lambda text=text: text,  # handed over when clicked: no copy of the document per page view
            file_name=f"{family_key}-{model.model_id}.json",
            mime="application/json",
            key="train_download",
            help="Versioned JSON (no pickle): parameters and every tree array.",
        )
uploaded = st.file_uploader(
    "Load a model (JSON saved by this app)",
    type=["json"],
    key="train_upload",
    help="Checked field by field in a separate process before use; it must match the current "
    "dataset's signature, columns and labels.",
)
if uploaded is not None:
    raw = uploaded.getvalue()
    # The verdict on a file is kept per content and dataset: a failed upload is not
    # retried on every rerun, and switching to another dataset checks the file again.
    verdict_key = f"{hashlib.sha256(raw).hexdigest()[:16]}:{data.hash}"
    verdicts = state.get("model_upload", {})
    if verdict_key not in verdicts:
        line = st.empty()

        def waiting(place):
            # A few checkers run at a time; the others wait in line, and say so.
            ahead = "next in line" if place <= 1 else f"{place - 1} files ahead of yours"
            line.caption(f":material/hourglass_top: Waiting for a free checker ({ahead})...")
            work.still_wanted()  # the visitor left or clicked: give the place up

        busy = False
        try:
            with st.spinner("Checking the model file in a separate process..."):
                estimator = load_model_isolated(raw, data.X, data.signature, on_wait=waiting)
                check_against_dataset(estimator, data)
                record = adopt_model(estimator, data)
        except CheckerBusy as exc:  # the server, not the file: not remembered, so the next run tries again
            error, busy = message_for(exc), True
        except Exception as exc:  # every failure of an upload is a message, none a traceback
            error = message_for(exc)
        else:
            error = None
            set_model(record)
        line.empty()
        # Only the latest verdicts are kept (a session uploads a handful of files).
        if busy:
            st.warning(f"Could not check the model file yet: {error}", icon=":material/hourglass_top:")
        else:
            verdicts = dict(list(verdicts.items())[-7:]) | {verdict_key: error}
            state.put("model_upload", verdicts)
        if error is None:
            scores = record.metrics
            score = (
                f"accuracy {scores['accuracy']:.3f}"
                if "accuracy" in scores
                else f"R² {scores['r2']:.3f}"
                if "r2" in scores
                else "not scored"
            )
            rerun_with_note(
                "upload",
                f"Loaded {record.title} from {uploaded.name}: {score} on all "
                f"{len(data.X):,} rows of the current dataset.",
            )
    if verdicts.get(verdict_key):
        st.error(f"Could not load the model file: {verdicts[verdict_key]}", icon=":material/warning:")
show_note("upload")
state.sync_url()
