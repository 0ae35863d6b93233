"""Pick a dataset: a synthetic mixture, a built-in dataset, or your own file."""

import numpy as np
import pandas as pd
import streamlit as st
from curvedtrees import viz
from curvedtrees.limits import MAX_SYNTHETIC_CLASSES, MAX_SYNTHETIC_SAMPLES

from ui import cache, state
from ui.chrome import adopt_dataset, page_setup, show_note
from ui.data import builtin_datasets, check_recipe, content_hash, recipe_cost, synthetic_recipe
from ui.errors import friendly
from ui.forms import param_fields, signature_box
from ui.pictures import Layers, Picture
from ui.text import plural
from ui.uploads import (
    ACCEPTED_TYPES,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_MB,
    UPLOADER_MB,
    UploadError,
    convert_upload,
    coordinate_models,
    read_table,
    suggest_mapping,
    upload_record,
)
from ui.widgets import picture_picker, show_picture

page_setup("Data")
st.title("Data")

# Material icons ship with Streamlit (emoji depend on the system's fonts).
OK = ":green[:material/check_circle:]"
BAD = ":red[:material/cancel:]"


def next_steps() -> None:
    """Where a dataset just adopted leads: training a model, and its decision regions."""
    c1, c2, _ = st.columns([1, 1, 2])
    c1.page_link("pages/2_Train.py", label="Train a model on it", icon=":material/model_training:")
    c2.page_link("pages/3_Regions.py", label="See its decision regions", icon=":material/map:")


def adopt(record, train_now: bool, place: str):
    note = f"Loaded **{record.title}**: {len(record.X):,} rows on `{record.signature}`."
    adopt_dataset(record, train_now, place, note)


tab_synthetic, tab_builtin, tab_upload = st.tabs(["Synthetic mixture", "Built-in datasets", "Upload a file"])

# ------------------------------------------------------------------ synthetic
with tab_synthetic:
    st.markdown("Gaussian mixtures wrapped onto the manifold (the benchmark of the mixed-curvature paper).")
    signature = signature_box("Signature", "syn_signature", "H2")
    c1, c2, c3, c4 = st.columns(4)
    n_samples = c1.number_input(
        "Points",
        10,
        MAX_SYNTHETIC_SAMPLES,
        600,
        step=100,
        key="syn_n",
        help=f"How many points to sample (up to {MAX_SYNTHETIC_SAMPLES:,}).",
    )
    task = c2.radio(
        "Task",
        ["classification", "regression"],
        key="syn_task",
        horizontal=True,
        help="Classification: each cluster gets a class. Regression: a linear target per cluster.",
    )
    n_classes = c3.number_input(
        "Classes",
        2,
        MAX_SYNTHETIC_CLASSES,
        5,
        key="syn_classes",
        disabled=task == "regression",
        help="Number of classes (classification).",
    )
    seed = c4.number_input("Seed", 0, 2**31 - 1, 0, key="syn_seed", help="Same seed, same data.")
    c5, c6, c7 = st.columns(3)
    n_clusters = c5.number_input(
        "Clusters", 1, 200, 10, key="syn_clusters", help="Mixture components; at least the number of classes."
    )
    spread = c6.slider(
        "Cluster spread",
        0.05,
        2.0,
        0.35,
        step=0.05,
        key="syn_spread",
        help="Scale of each cluster's covariance: small values give tight, separable clusters.",
    )
    train_now = c7.checkbox(
        "Train a tree right away",
        value=True,
        key="syn_train",
        help="Fit a default product decision tree so the regions show at once.",
    )
    recipe = None
    if signature is not None:
        recipe = synthetic_recipe(
            signature,
            n_samples,
            n_classes,
            task,
            seed,
            max(n_clusters, n_classes),
            spread,
            title=f"Mixture on {signature}",
        )
        try:
            # Sizes and the work budget are checked here, before the button (a share link's too).
            recipe_cost(check_recipe(recipe)).check()
        except ValueError as exc:
            st.error(str(exc), icon=":material/edit:")
            recipe = None
    if st.button("Generate", type="primary", key="syn_go", disabled=recipe is None):
        with friendly("generate the mixture"):
            adopt(cache.dataset(recipe), train_now, "synthetic")
    if show_note("synthetic"):
        next_steps()

# ------------------------------------------------------------------- built-in
with tab_builtin:
    infos = builtin_datasets()
    if not infos:
        st.info("No built-in datasets are installed.")
    else:
        pick = st.selectbox(
            "Dataset",
            range(len(infos)),
            key="builtin_pick",
            format_func=lambda i: f"{infos[i].title} ({infos[i].signature}, {infos[i].task})",
        )
        info = infos[pick]
        st.markdown(info.summary)
        available, hint = info.available()
        params = param_fields(info.parameters, key_prefix=f"builtin_{info.name}_")
        train_builtin = st.checkbox("Train a tree right away", value=True, key="builtin_train")
        if not available:
            st.warning(f"This dataset needs an optional package: `{hint}`")
        recipe = {"source": "builtin", "name": info.name, "params": params, "title": info.title}
        over_budget = None
        if available:
            try:  # the work budget, before the button: an embedding of 5,000 epochs x 20 restarts is refused here
                recipe_cost(recipe).check()
            except ValueError as exc:
                over_budget = str(exc)
                st.error(over_budget, icon=":material/edit:")
        if st.button("Load", type="primary", key="builtin_go", disabled=not available or over_budget is not None):
            with friendly(f"load {info.title}"):
                if info.slow:
                    status = st.empty()

                    def report(epoch, value=None, status=status):
                        status.caption(
                            f"Working... step {epoch}" + (f", loss {float(value):.4g}" if value is not None else "")
                        )

                    with st.spinner(f"Loading {info.title} (this one computes an embedding)..."):
                        record = cache.dataset(recipe, on_progress=report)
                    status.empty()
                else:
                    with st.spinner(f"Loading {info.title}..."):
                        record = cache.dataset(recipe)
                adopt(record, train_builtin, "builtin")
        if show_note("builtin"):
            next_steps()

# --------------------------------------------------------------------- upload
with tab_upload:
    st.markdown(
        f"A table with one row per point: **CSV, TSV** (text, header row) or **NumPy `.npy` / `.npz`** arrays "
        f"(plain numbers; `.npz` with arrays `X` and `y` works directly). Limits: **{MAX_UPLOAD_MB} MB**, "
        f"**{MAX_ROWS:,} rows**. Pickled files are refused. Rows are counted from 0 in messages (header excluded). "
        "Your file stays with this browser tab: a reload keeps it (a copy is kept on the server for a few hours, "
        "reachable only through this tab's link)."
    )
    up_signature = signature_box("Signature of the data", "up_signature", "H2")
    # The uploader's own limit is above ours, so that read_table's message explains a file over ours.
    uploaded = st.file_uploader("File", type=list(ACCEPTED_TYPES), key="up_file", max_upload_size=UPLOADER_MB)
    upload = state.get(state.UPLOAD)
    if uploaded is None:
        if upload is not None:
            state.drop(state.UPLOAD)
        upload = None
    else:
        # Oversized files are refused from their size, before they are hashed or read.
        raw = uploaded.getvalue() if uploaded.size <= MAX_UPLOAD_BYTES else b""
        digest = content_hash(np.frombuffer(raw, dtype=np.uint8), extra=f"{uploaded.name}|{uploaded.size}")
        if upload is None or upload.get("hash") != digest:
            upload = {
                "hash": digest,
                "name": uploaded.name,
                "table": None,
                "error": None,
                "project": False,
                "drop": False,
            }
            try:
                if uploaded.size > MAX_UPLOAD_BYTES:
                    raise UploadError(
                        f"{uploaded.name} is {uploaded.size / 2**20:.1f} MB; the limit is "
                        f"{MAX_UPLOAD_MB} MB (subsample the rows or keep fewer columns)"
                    )
                upload["table"] = read_table(uploaded.name, raw)
            except UploadError as exc:
                upload["error"] = str(exc)
            state.put(state.UPLOAD, upload)
    if upload is not None and upload["error"]:
        st.error(f"Could not read the file: {upload['error']}", icon=":material/warning:")
    elif upload is not None and up_signature is not None:
        table = upload["table"]
        st.caption(f"**{upload['name']}**: {plural(len(table), 'row')}, {plural(table.shape[1], 'column')}.")
        if table.attrs.get("hint"):
            st.info(
                table.attrs["hint"] + " Check the columns below; save the file with commas and decimal points "
                "if they are wrong.",
                icon=":material/tune:",
            )
        st.dataframe(table.head(8), hide_index=False)
        guess = suggest_mapping(table, up_signature)
        prefix = f"map_{upload['hash']}_{str(up_signature).replace(' ', '')}"
        columns = list(table.columns)
        c1, c2 = st.columns(2)
        label_options = ["(none)", *columns]
        label = c1.selectbox(
            "Label column (what to predict)",
            label_options,
            index=label_options.index(guess["label"]) if guess["label"] in columns else 0,
            key=f"{prefix}_label",
        )
        up_task = c2.radio(
            "Task",
            ["classification", "regression"],
            index=0 if guess["task"] == "classification" else 1,
            key=f"{prefix}_task",
            horizontal=True,
        )
        mapping = {"label": None if label == "(none)" else label, "task": up_task, "components": []}
        for comp, suggestion in zip(up_signature.components, guess["components"]):
            models = coordinate_models(comp)
            keys = [m[0] for m in models]
            c1, c2 = st.columns([1, 2])
            model_key = c1.selectbox(
                f"{comp} (component {comp.index + 1}): coordinates given as",
                keys,
                index=keys.index(suggestion["model"]),
                format_func=lambda k, models=models: next(m[1] for m in models if m[0] == k),
                key=f"{prefix}_model_{comp.index}",
            )
            need = next(m[2] for m in models if m[0] == model_key)
            default_cols = suggestion["columns"] if model_key == suggestion["model"] else []
            chosen = c2.multiselect(
                f"columns, in order ({need})",
                columns,
                default=default_cols[:need],
                max_selections=need,
                key=f"{prefix}_cols_{comp.index}_{model_key}",
            )
            mapping["components"].append({"model": model_key, "columns": chosen})
        result = None
        with friendly("use these columns"):
            result = convert_upload(table, up_signature, mapping, project=upload["project"], drop_bad=upload["drop"])
        if result is not None:
            st.markdown("#### Validation report")
            for report in result.reports:
                if report.ok:
                    st.markdown(f"{OK} **{report.name}** ({report.model}): every row is on the manifold.")
                else:
                    st.markdown(f"{BAD} **{report.name}** ({report.model}): " + "; ".join(report.problems) + ".")
            if mapping["label"] is not None and not result.label_problems:
                st.markdown(f"{OK} **label** `{mapping['label']}` ({up_task}).")
            for problem in result.label_problems:
                st.markdown(f"{BAD} **label**: {problem}.")
            for problem in result.general:
                st.markdown(f"{BAD} {problem}.")
            if result.n_projected:
                st.info(
                    f"{result.n_projected} {'row was' if result.n_projected == 1 else 'rows were'} projected onto "
                    "the manifold."
                )
            if result.n_dropped:
                st.info(
                    f"{result.n_dropped} {'row' if result.n_dropped == 1 else 'rows'} with problems "
                    f"{'was' if result.n_dropped == 1 else 'were'} dropped."
                )
            b1, b2, b3, b4 = st.columns(4)
            if b1.button(
                "Project onto the manifold",
                key="up_project",
                disabled=upload["project"] or not result.fixable_by_projection,
                help="Move off-manifold rows to the nearest point of the manifold (hyperboloid: recompute "
                "x0; sphere: rescale; ball coordinates: pull inside the ball; latitudes: clip).",
            ):
                upload["project"] = True
                st.rerun()
            if b2.button(
                "Drop rows with problems",
                key="up_drop",
                disabled=upload["drop"] or not result.bad.any(),
                help="Leave out every row that is still not usable.",
            ):
                upload["drop"] = True
                st.rerun()
            if b3.button("Undo fixes", key="up_undo", disabled=not (upload["project"] or upload["drop"])):
                upload["project"] = upload["drop"] = False
                st.rerun()
            train_upload = b4.checkbox("Train a tree right away", value=True, key="up_train")
            if result.ok:
                st.success(f"Ready: {plural(len(result.X), 'row')} on `{up_signature}`.")
                # The points on their manifold (the first picture the signature offers), before they are used.
                with friendly("draw the uploaded points"):
                    ready = upload_record(result, up_signature, up_task, upload["name"], mapping)
                    first_view = viz.available_views(ready.signature)[0]
                    show_picture(
                        ready,
                        Picture(first_view, "origin", 0, 60),
                        None,
                        chart_key="upload_points",
                        layers=Layers(show_boundaries=False),
                        framing=viz.Framing(height=380),
                        caption=False,
                    )
                    st.caption(f"The uploaded points on {viz.describe_view(first_view, ready.signature)[0]}.")
                if st.button("Use this dataset", type="primary", key="up_use"):
                    with friendly("use the uploaded data"):
                        record = upload_record(result, up_signature, up_task, upload["name"], mapping)
                        # A copy kept on the server under a token in this tab's URL: a reload restores it.
                        record.recipe["kept"] = state.kept_uploads().keep(
                            raw, upload["name"], up_signature, mapping, up_task, upload["project"], upload["drop"]
                        )
                        adopt(record, train_upload, "upload")
                if show_note("upload"):
                    next_steps()
            else:
                st.warning("Fix the problems above (or use the buttons) before training on this file.")

# ------------------------------------------------------------------ preview
data = state.get(state.DATA)
st.divider()
st.subheader(f"Current dataset: {data.title}")
st.markdown(data.dataset.description)
st.caption(f"Source: {data.dataset.provenance}")
names = data.dataset.feature_names or [
    f"{c.name}#{c.index + 1}:x{k}" for c in data.signature.components for k in range(c.ambient_dim)
]
preview = pd.DataFrame(data.X[:200], columns=list(names))
preview.insert(0, "label", [str(v) for v in data.y[:200]] if data.task == "classification" else data.y[:200])
c1, c2 = st.columns([1, 1])
with c1:
    st.caption(f"First {len(preview)} of {len(data.X):,} rows (ambient coordinates).")
    st.dataframe(preview, height=420)
with c2:
    picture = picture_picker(data, "data", reference=False, resolution=False)
    show_picture(
        data,
        picture,
        None,
        chart_key="data_preview",
        layers=Layers(show_boundaries=False),
        framing=viz.Framing(height=430),
    )
state.sync_url()
