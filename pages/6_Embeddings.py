"""Learn embeddings: graphs (built-in or uploaded) into product manifolds, digits through a mixed-curvature VAE."""

import math
import time

import streamlit as st
from curvedtrees.costs import estimate_embedding_cost
from curvedtrees.datasets import get_dataset_info, graph_files
from curvedtrees.datasets.graphs import GRAPHS
from curvedtrees.embeddings.graph import DEFAULT_CANDIDATES
from curvedtrees.embeddings.plots import elbo_figure, embedding_figure, training_curve_figure
from curvedtrees.manifolds import Signature
from curvedtrees.viz.views import available_views, describe_view

from ui import cache, graph_upload, jobs, state, work
from ui.chrome import adopt_dataset, page_setup, show_note
from ui.data import make_record, recipe_cost
from ui.errors import friendly
from ui.forms import SIGNATURE_HELP, param_fields, signature_box
from ui.widgets import PLOTLY_CONFIG

page_setup("Embeddings")
st.title("Embeddings")
st.markdown(
    "Some data has no coordinates of its own. A **graph** gets them by placing its nodes on a product manifold so "
    "that geodesic distances match shortest-path distances (Riemannian Adam on the distortion, as in Gu et al. "
    "2018). **Images** get them from the latent space of a variational autoencoder whose posterior lives on the "
    "manifold. Either result can become the current dataset for the trees."
)

GRAPH_TITLES = {
    "karate_club": "Karate Club (34 nodes)",
    "les_miserables": "Les Misérables (77 nodes)",
    "random_tree": "Random tree (generated)",
    "sbm": "Stochastic block model (generated)",
}
REFRESH_SECONDS = 0.3  # live charts are redrawn at most this often
EMBED_SIGNATURE_HELP = SIGNATURE_HELP + " Curvatures of H and S components are starting values when they are learned."
OWN = "emb_own"  # session key of the uploaded graph (ui.graph_upload.GraphUpload)
# The signatures a search starts with: one of each kind, and two products.
SEARCH_DEFAULT = ["H2", "S2", "E2", "H2 x E2", "S2 x E2 x H2"]
# Above this many nodes an epoch takes a noticeable fraction of a second (all pairs are compared).
LARGE_GRAPH = 500


def _recipe(name: str, params: dict) -> dict:
    """The recipe of a built-in dataset with these parameters (public: its result is shared by every session)."""
    return {"source": "builtin", "name": name, "params": dict(params)}


def cached(name: str, params: dict):
    """A finished run of a built-in recipe from the server's shared results (ui.cache), or None.

    Uploaded graphs never come here: their results stay in their session's state.
    """
    record = cache.shared().get(work.data_key(_recipe(name, params)))
    return None if record is None else record.dataset


def over_budget(name: str, params: dict) -> str | None:
    """Why a run would exceed the work budget (the parameter to lower), or None when it fits."""
    try:
        recipe_cost(_recipe(name, params)).check()
    except ValueError as exc:
        return str(exc)
    return None


def live(run, total: int, figure, stop_key: str, describe):
    """Run ``run(callback)`` with a live curve, a progress bar and a Stop button; return its result.

    Stop (or any other click) makes Streamlit rerun the page, which interrupts the run at
    its next chart update; the caller stores nothing unfinished.

    Parameters
    ----------
    run : callable
        ``run(callback)``, where ``callback(epoch, value)`` is called every epoch.
    total : int
        Epochs in all (the progress bar's end).
    figure : callable
        ``figure(values, total)``: the live chart.
    stop_key : str
        Widget key of the Stop button (set in the session when it was clicked).
    describe : callable
        ``describe(epoch, value)``: the progress bar's text.
    """
    progress = st.progress(0.0, text="Starting (the first run also loads torch)...")
    stop = st.empty()
    stop.button("Stop", key=stop_key, help="Cancel this run; nothing is kept.")
    chart = st.empty()
    values: list[float] = []
    last = [0.0]

    def callback(epoch, value):
        values.append(float(value))
        now = time.perf_counter()
        if now - last[0] >= REFRESH_SECONDS or epoch + 1 == total:
            last[0] = now
            progress.progress(min((epoch + 1) / total, 1.0), text=describe(epoch, value))
            chart.plotly_chart(figure(values, total), config=PLOTLY_CONFIG)

    try:
        return run(callback)
    finally:
        progress.empty()
        stop.empty()
        chart.empty()


def run_live(name: str, params: dict, total: int, figure, label: str):
    """Load a slow built-in dataset live (see :func:`live`) in the worker pool, or take it from the shared store.

    Checked against the work budget first; sessions asking for the same recipe at once
    share one run, and the finished run is kept for every session (ui.cache).
    """
    found = cached(name, params)
    if found is not None:
        return found
    return live(
        lambda callback: cache.dataset(_recipe(name, params), on_progress=callback).dataset,
        total,
        figure,
        f"stop_{name}",
        lambda epoch, value: f"Epoch {epoch + 1} of {total}: {label} {value:.4g}",
    )


def adopt(dataset, name: str, params: dict, title: str, train_now: bool, place: str):
    record = make_record(dataset, {"source": "builtin", "name": name, "params": params, "title": title})
    note = f"**{title}** is now the current dataset: {len(record.X):,} rows on `{record.signature}`."
    adopt_dataset(record, train_now, place, note)


def adopt_with_forest(record, train_now: bool, place: str) -> None:
    """Make ``record`` the current dataset, train a product forest on it if asked, and rerun with a note."""
    note = f"**{record.title}** is now the current dataset: {len(record.X):,} rows on `{record.signature}`" + (
        ", with a product random forest trained on it." if train_now else "."
    )
    adopt_dataset(record, train_now, place, note, graph_upload.FOREST_RECIPE, "Training a product random forest...")


def adopted_note(place: str) -> None:
    """The note of a dataset just adopted at ``place``, with the way to its regions."""
    if show_note(place):
        st.page_link("pages/3_Regions.py", label="See the decision regions", icon=":material/map:")


NO_LABEL = "(none: link prediction only)"


def attribute_choice(graph_key: str) -> str | None:
    """The label attribute the picker chose for this graph file (None before any choice: the usual one)."""
    picked = st.session_state.get(f"emb_own_attr_{graph_key}")
    return None if picked is None else ("" if picked == NO_LABEL else picked)


def label_picker(graph_key: str, attributes, current) -> None:
    """Which node attribute of the file is the label: any of those its nodes carry, or none."""
    if not attributes:
        return
    options = [NO_LABEL, *attributes]
    st.selectbox(
        "Node attribute used as the label",
        options,
        index=options.index(current) if current in options else 0,
        key=f"emb_own_attr_{graph_key}",
        help="The attributes the file's nodes carry (text or numbers). A name such as `label` is unique to "
        "each node: as a class it says little; a group such as `club` or `community` is what a forest can learn.",
    )


def view_picker(signature, key: str, X=None):
    """The picture of an embedding: at first the component where its points ``X`` are most spread."""
    views = available_views(signature)
    titles = [describe_view(v, signature)[0] for v in views]
    pick = st.selectbox(
        "Picture",
        range(len(views)),
        index=graph_upload.most_spread_view(views, signature, X) if X is not None else 0,
        format_func=lambda i: titles[i],
        key=key,
        help="Which component to draw; edges are drawn as geodesics of the product. It opens on the "
        "component where the points are most spread out.",
    )
    return views[pick]


def embedding_fields(
    key_prefix: str, names=("n_epochs", "n_restarts", "learn_curvature", "random_state"), loader: str = "karate_club"
) -> dict:
    """The embedding parameters of a graph loader, drawn from its ``ParamInfo`` records (one row of fields)."""
    specs = [p for p in get_dataset_info(loader).parameters if p.name in names]
    return param_fields(specs, key_prefix=key_prefix, columns=len(specs))


tab_graph, tab_own, tab_vae = st.tabs(["Graph embedding", "Your graph", "Image latents (VAE)"])

# ---------------------------------------------------------------- graphs
with tab_graph:
    c1, c2, c3 = st.columns(3)
    graph = c1.selectbox("Graph", GRAPHS, format_func=GRAPH_TITLES.get, key="emb_graph_name")
    with c2:
        g_signature = signature_box("Signature", "emb_graph_signature", "H2", help=EMBED_SIGNATURE_HELP, describe=False)
    node_spec = [p for p in get_dataset_info(graph).parameters if p.name == "n_nodes"]
    params = {"signature": str(g_signature) if g_signature else "H2"}
    if node_spec:  # generated graphs only
        with c3:
            params |= param_fields(node_spec, key_prefix="emb_graph_", columns=1)
    params |= embedding_fields("emb_graph_", loader=graph)
    total = params["n_epochs"] * params["n_restarts"]
    refused = over_budget(graph, params) if g_signature is not None else None
    if refused:
        st.error(refused, icon=":material/edit:")
    if st.button("Embed", type="primary", key="emb_graph_go", disabled=g_signature is None or refused is not None):
        with friendly("embed the graph"):
            run_live(graph, params, total, lambda v, t: training_curve_figure(v, total=t), "distortion")
            state.put("emb_graph", {"name": graph, "params": params})
    elif st.session_state.get(f"stop_{graph}"):
        st.info("Stopped: the unfinished embedding was dropped.")

    last = state.get("emb_graph")
    result = cached(last["name"], last["params"]) if last else None
    if result is not None:
        extra = result.extra
        st.subheader(f"{extra.get('title', result.name)} in `{result.signature}`")
        m1, m2, m3, m4 = st.columns(4)
        m1.metric(
            "Average distortion", f"{extra['distortion']:.3f}", help="Mean relative error of distances (0 is perfect)."
        )
        m2.metric(
            "Mean average precision",
            f"{extra['map']:.3f}",
            help="1 when every node's neighbours are its nearest embedded points.",
        )
        m3.metric("Nodes", f"{result.n_samples}")
        m4.metric("Edges", f"{len(extra['edges'])}")
        st.caption(
            f"Requested signature `{extra['requested_signature']}`; learned `{result.signature}`. " + result.provenance
        )
        left, right = st.columns([2, 3])
        with left:
            st.plotly_chart(
                training_curve_figure(extra["distortion_history"], title="Distortion per epoch"),
                config=PLOTLY_CONFIG,
                key="emb_graph_curve",
            )
        with right:
            view = view_picker(result.signature, "emb_graph_view", result.X)
            hover = [f"node {v}" for v in extra["nodes"]]
            st.plotly_chart(
                embedding_figure(
                    result.X,
                    result.signature,
                    edges=extra["edges"],
                    labels=result.y,
                    label_names=result.target_names,
                    view=view,
                    hover=hover,
                ),
                config=PLOTLY_CONFIG,
                key="emb_graph_picture",
            )
        u1, u2 = st.columns(2)
        with u1:
            st.markdown("**Node dataset**: one row per node, the graph's label as target.")
            train_now = st.checkbox("Train a tree right away", value=True, key="emb_graph_train")
            if st.button("Use as the current dataset", key="emb_graph_use"):
                with friendly("use the embedding"):
                    adopt(
                        result, last["name"], last["params"], f"{extra.get('title', result.name)}", train_now, "graph"
                    )
            adopted_note("graph")
        with u2:
            st.markdown(
                "**Link prediction**: rows (x_i, x_j, distance) on P x P x E1, label = edge; nodes are "
                "split first and crossing pairs dropped (this embeds again with the same seed)."
            )
            test_size = st.slider("Held-out nodes", 0.1, 0.5, 0.25, step=0.05, key="emb_graph_test")
            if st.button("Make a link-prediction dataset", key="emb_graph_links"):
                lp_params = {
                    "graph": last["name"],
                    "signature": extra["requested_signature"],
                    "n_nodes": int(last["params"].get("n_nodes", 64)),
                    "test_size": float(test_size),
                    **{k: last["params"][k] for k in ("n_epochs", "n_restarts", "learn_curvature", "random_state")},
                }
                lp_total = lp_params["n_epochs"] * lp_params["n_restarts"]
                with friendly("make the link-prediction dataset"):
                    links = run_live(
                        "link_prediction",
                        lp_params,
                        lp_total,
                        lambda v, t: training_curve_figure(v, total=t),
                        "distortion",
                    )
                    adopt(
                        links, "link_prediction", lp_params, links.extra.get("title", "Link prediction"), False, "links"
                    )
            adopted_note("links")

# ---------------------------------------------------------------- the user's graph
with tab_own:
    st.markdown(
        "Bring your own graph: an **edge list** (CSV or TSV, two columns of node ids, numbers or strings, an "
        "optional header such as `source,target`), or a **GML** or **GraphML** file. Node labels, optional, come "
        "from a second file (two columns: node id or name, label) or from a node attribute of a GML / GraphML "
        "file (chosen below once it is read). Edges are undirected and unweighted; the largest connected "
        "component is kept. "
        f"Limits: **{graph_files.MAX_GRAPH_NODES:,} nodes** (embedding compares every pair), "
        f"**{graph_files.MAX_GRAPH_EDGES:,} edges**, **{graph_files.MAX_GRAPH_BYTES / 2**20:g} MB**. "
        "Your files stay in this browser session."
    )
    # The uploaders' own limit is above ours, so that read_graph's message explains a file over ours.
    uploader_mb = math.ceil(2 * graph_files.MAX_GRAPH_BYTES / 2**20)
    f1, f2 = st.columns(2)
    graph_file = f1.file_uploader(
        "Graph file",
        type=list(graph_upload.GRAPH_TYPES),
        key="emb_own_file",
        max_upload_size=uploader_mb,
        help="Edge list (.csv, .tsv, .txt, .edges), .gml or .graphml.",
    )
    labels_file = f2.file_uploader(
        "Node labels (optional)",
        type=list(graph_upload.LABEL_TYPES),
        key="emb_own_labels",
        max_upload_size=uploader_mb,
        help="Two columns: node id, label (a header row such as node,label is allowed). "
        "Without labels the graph can still become a link-prediction dataset.",
    )
    upload = state.get(OWN)
    if graph_file is None:
        if upload is not None:
            state.drop(OWN)
        upload = None
        st.caption("Upload a graph file to start.")
    else:
        labels_raw = labels_file.getvalue() if labels_file is not None else None
        labels_name = labels_file.name if labels_file is not None else None
        # The node attribute chosen as the label, by the picker under the summary (per graph file).
        graph_key = graph_upload.upload_hash(graph_file.name, graph_file.getvalue())
        label_attribute = None if labels_raw is not None else attribute_choice(graph_key)
        digest = graph_upload.upload_hash(
            graph_file.name, graph_file.getvalue(), labels_name, labels_raw, label_attribute
        )
        if upload is None or upload.hash != digest:
            # Parsed in the worker pool (a file of unclosed elements must not tie up the server);
            # only the checked result comes back.
            try:
                upload = work.run(
                    "read_graph",
                    graph_file.name,
                    graph_file.getvalue(),
                    labels_name,
                    labels_raw,
                    label_attribute,
                    what="reading the graph file",
                )
            except jobs.JobError as exc:  # stopped for its time or memory, or a busy server: the reason, for this file
                upload = graph_upload.GraphUpload(digest, graph_file.name, labels_name, None, str(exc))
            state.put(OWN, upload)

    if upload is not None and upload.error:
        where = f"`{upload.name}`" + (f" with the labels in `{upload.labels_name}`" if upload.labels_name else "")
        st.error(f"Could not use {where}: {upload.error}.", icon=":material/warning:")
        if labels_file is None:  # an attribute that does not label every node: choose another
            label_picker(graph_key, st.session_state.get(f"emb_own_attrs_{graph_key}", ()), label_attribute)
    elif upload is not None:
        data = upload.data
        summary = graph_upload.graph_summary(data)
        if data.notes:
            st.info(
                "**While reading the graph**\n\n" + "\n".join(f"- {note}" for note in data.notes),
                icon=":material/build:",
            )
        if labels_file is None and data.label_attributes:
            st.session_state[f"emb_own_attrs_{graph_key}"] = data.label_attributes
            label_picker(graph_key, data.label_attributes, data.label_attribute)
        s1, s2, s3 = st.columns(3)
        s1.metric("Nodes", f"{summary['nodes']:,}")
        s2.metric("Edges", f"{summary['edges']:,}")
        s3.metric(
            "Degree (min / median / max)",
            f"{summary['min_degree']} / {summary['median_degree']:g} / {summary['max_degree']}",
        )
        st.caption(f"Labels: {summary['target']}.")
        if summary["nodes"] > LARGE_GRAPH:
            st.caption(
                f"Each epoch compares all {summary['nodes'] * (summary['nodes'] - 1) // 2:,} pairs of nodes "
                "(about a second an epoch at 2,000 nodes here): try a hundred epochs first, and Stop a run "
                "that is too slow."
            )

        mode = st.radio(
            "Embed into",
            ["One signature", "The best of several (signature search)"],
            horizontal=True,
            key="emb_own_mode",
            help="A search embeds the graph once per candidate and ranks them by distortion.",
        )
        candidates: list = []
        if mode == "One signature":
            own_signature = signature_box("Signature", "emb_own_signature", "H2", help=EMBED_SIGNATURE_HELP)
            candidates = [own_signature] if own_signature is not None else []
        else:
            picked = st.multiselect(
                "Candidate signatures",
                list(DEFAULT_CANDIDATES),
                default=SEARCH_DEFAULT,
                key="emb_own_candidates",
                accept_new_options=True,
                help="Pick from the list or type another signature, e.g. 'H3 x S1'.",
            )
            bad = []
            for text in picked:
                try:
                    candidates.append(Signature.parse(text))
                except (TypeError, ValueError) as exc:
                    bad.append(f"`{text}`: {exc}")
            if bad:
                st.error("Not a signature: " + "; ".join(bad), icon=":material/edit:")
                candidates = []
            elif not picked:
                st.warning("Pick at least one signature.")
        own_params = embedding_fields("emb_own_")
        per_run = own_params["n_epochs"] * own_params["n_restarts"]
        own_total = per_run * max(len(candidates), 1)
        own_cost = None
        if candidates:
            widest = max(candidates, key=lambda c: Signature.parse(c).ambient_dim)
            own_cost = estimate_embedding_cost(
                summary["nodes"], widest, own_params["n_epochs"], own_params["n_restarts"], len(candidates)
            )
            if not own_cost.fits():
                try:
                    own_cost.check()
                except ValueError as exc:
                    st.error(str(exc), icon=":material/edit:")
        go_label = "Embed" if mode == "One signature" else f"Search {len(candidates)} signatures"
        too_much = own_cost is not None and not own_cost.fits()
        if st.button(go_label, type="primary", key="emb_own_go", disabled=not candidates or too_much):

            def describe(epoch, value, _names=tuple(str(c) for c in candidates)):
                k = min(epoch // per_run, len(_names) - 1)
                step = f"epoch {epoch % per_run + 1} of {per_run}: distortion {value:.4g}"
                if len(_names) == 1:
                    return step.capitalize()
                return f"Signature {k + 1} of {len(_names)} ({_names[k]}), {step}"

            with friendly("embed your graph"):
                upload.results = live(
                    lambda callback: work.run(
                        "embed_graph",
                        data,
                        candidates,
                        own_params,
                        cost=own_cost,
                        what="embedding your graph",
                        progress_arg="callback",
                        on_progress=callback,
                    ),
                    own_total,
                    lambda v, t: training_curve_figure(v, total=t),
                    "stop_own",
                    describe,
                )
                upload.params = own_params
        elif st.session_state.get("stop_own"):
            st.info("Stopped: the unfinished embedding was dropped.")

        if upload.results:
            results = upload.results
            if len(results) > 1:
                st.subheader("Signature search")
                st.dataframe(
                    graph_upload.search_table(results),
                    hide_index=True,
                    key="emb_own_table",
                    column_config={
                        "distortion": st.column_config.NumberColumn(format="%.3f"),
                        "mAP": st.column_config.NumberColumn(format="%.3f"),
                    },
                )
                st.caption(f"Best: `{results[0].requested_signature}` (lowest average distortion).")
                st.plotly_chart(graph_upload.search_figure(results), config=PLOTLY_CONFIG, key="emb_own_search")
            pick = st.selectbox(
                "Embedding",
                range(len(results)),
                key="emb_own_pick",
                format_func=lambda k: (
                    f"{results[k].requested_signature}" + (" (best)" if k == 0 and len(results) > 1 else "")
                ),
                disabled=len(results) == 1,
                help="The embedding to look at and to use; the search lists the best first.",
            )
            chosen = results[pick]
            st.subheader(f"{data.title} in `{chosen.signature}`")
            m1, m2, m3, m4 = st.columns(4)
            m1.metric(
                "Average distortion",
                f"{chosen.distortion:.3f}",
                help="Mean relative error of distances (0 is perfect).",
            )
            m2.metric(
                "Mean average precision",
                f"{chosen.map:.3f}",
                help="1 when every node's neighbours are its nearest embedded points.",
            )
            m3.metric("Nodes", f"{len(chosen.nodes):,}")
            m4.metric("Edges", f"{len(chosen.edges):,}")
            left, right = st.columns([2, 3])
            with left:
                st.plotly_chart(
                    training_curve_figure(chosen.distortion_history, title="Distortion per epoch"),
                    config=PLOTLY_CONFIG,
                    key="emb_own_curve",
                )
            with right:
                view = view_picker(chosen.signature, "emb_own_view", chosen.X)
                labels = None if data.y is None else [data.y[v] for v in chosen.nodes]
                st.plotly_chart(
                    embedding_figure(
                        chosen.X,
                        chosen.signature,
                        edges=chosen.edges,
                        labels=labels,
                        label_names=data.target_names,
                        view=view,
                        hover=graph_upload.hover_names(chosen.nodes),
                    ),
                    config=PLOTLY_CONFIG,
                    key="emb_own_picture",
                )
            u1, u2 = st.columns(2)
            with u1:
                st.markdown("**Node dataset**: one row per node, its label as target.")
                if data.y is None:
                    st.caption(
                        "This graph has no node labels: upload a labels file to use its nodes, or make a "
                        "link-prediction dataset."
                    )
                else:
                    own_train = st.checkbox("Train a product forest right away", value=True, key="emb_own_train")
                    if st.button("Use as the current dataset", key="emb_own_use"):
                        with friendly("use the embedding"):
                            adopt_with_forest(
                                graph_upload.graph_record(graph_upload.node_dataset(data, chosen), upload, "nodes"),
                                own_train,
                                "own",
                            )
                adopted_note("own")
            with u2:
                st.markdown(
                    "**Link prediction**: rows (x_i, x_j, distance) on P x P x E1, label = edge; nodes are "
                    "split first and crossing pairs dropped (from this embedding, no new training)."
                )
                own_test = st.slider("Held-out nodes", 0.1, 0.5, 0.25, step=0.05, key="emb_own_test")
                links_train = st.checkbox("Train a product forest right away", value=True, key="emb_own_links_train")
                if st.button("Make a link-prediction dataset", key="emb_own_links"):
                    with friendly("make the link-prediction dataset"):
                        links = graph_upload.link_dataset(data, chosen, own_test, upload.params.get("random_state", 0))
                        adopt_with_forest(graph_upload.graph_record(links, upload, "links"), links_train, "own_links")
                adopted_note("own_links")

# ---------------------------------------------------------------- VAE
with tab_vae:
    st.markdown(
        "scikit-learn's 1797 handwritten digits (8x8 pixels) through a VAE whose latent space is a product "
        "manifold; the wrapped-normal posterior of each component is moved along geodesics. The VAE trains "
        "on the training images only; the rest are the test rows."
    )
    v_signature = signature_box("Latent signature", "emb_vae_signature", "S2 x E2 x H2")
    vae_specs = [p for p in get_dataset_info("digits_latents").parameters if p.name != "signature"]
    v_params = {
        "signature": str(v_signature) if v_signature else "S2 x E2 x H2",
        **param_fields(vae_specs, key_prefix="emb_vae_", columns=len(vae_specs)),
    }
    if st.button("Train the VAE", type="primary", key="emb_vae_go", disabled=v_signature is None):
        with friendly("train the VAE"):
            run_live("digits_latents", v_params, v_params["n_epochs"], lambda v, t: elbo_figure(v, total=t), "ELBO")
            state.put("emb_vae", v_params)
    elif st.session_state.get("stop_digits_latents"):
        st.info("Stopped: the unfinished VAE was dropped.")

    v_last = state.get("emb_vae")
    latents = cached("digits_latents", v_last) if v_last else None
    if latents is not None:
        extra = latents.extra
        st.subheader(f"Digits in `{latents.signature}`")
        m1, m2, m3 = st.columns(3)
        m1.metric("Training ELBO (last epoch)", f"{extra['elbo_history'][-1]:.2f}")
        m2.metric("Held-out ELBO", f"{extra['test_elbo']:.2f}", help="Nats per image; higher is better.")
        m3.metric("Rows (train / test)", f"{int((~latents.test_mask).sum())} / {int(latents.test_mask.sum())}")
        left, right = st.columns([2, 3])
        with left:
            st.plotly_chart(
                elbo_figure(extra["elbo_history"], test_elbo=extra["test_elbo"]),
                config=PLOTLY_CONFIG,
                key="emb_vae_curve",
            )
        with right:
            view = view_picker(latents.signature, "emb_vae_view", latents.X)
            hover = [f"digit {d}" + (" (test)" if t else "") for d, t in zip(latents.y, latents.test_mask)]
            st.plotly_chart(
                embedding_figure(
                    latents.X,
                    latents.signature,
                    labels=latents.y,
                    label_names=latents.target_names,
                    view=view,
                    hover=hover,
                ),
                config=PLOTLY_CONFIG,
                key="emb_vae_picture",
            )
        st.caption(latents.provenance)
        train_now = st.checkbox("Train a tree right away", value=True, key="emb_vae_train")
        if st.button("Use as the current dataset", key="emb_vae_use"):
            with friendly("use the latents"):
                adopt(latents, "digits_latents", v_last, "Digits (VAE latents)", train_now, "vae")
        adopted_note("vae")

state.sync_url()
