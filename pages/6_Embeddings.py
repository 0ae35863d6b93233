"""Learn embeddings: graphs into product manifolds, handwritten digits through a mixed-curvature VAE."""

import json
import time
from collections import OrderedDict

import streamlit as st
from curvedtrees.datasets import get_dataset_info, load_dataset
from curvedtrees.datasets.graphs import GRAPHS
from curvedtrees.embeddings.plots import elbo_figure, embedding_figure, training_curve_figure
from curvedtrees.viz.views import available_views, describe_view

from ui import state
from ui.chrome import adopt_dataset, page_setup, show_note
from ui.data import content_hash, make_record
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

GRAPH_TITLES = {"karate_club": "Karate Club (34 nodes)", "les_miserables": "Les Misérables (77 nodes)",
                "random_tree": "Random tree (generated)", "sbm": "Stochastic block model (generated)"}
MAX_CACHED = 16
REFRESH_SECONDS = 0.3  # live charts are redrawn at most this often
EMBED_SIGNATURE_HELP = SIGNATURE_HELP + " Curvatures of H and S components are starting values when they are learned."


@st.cache_resource(show_spinner=False)
def _results() -> OrderedDict:
    """Finished runs for every session, keyed by the content hash of their recipe (deterministic, public)."""
    return OrderedDict()


def _key(name: str, params: dict) -> str:
    return content_hash(extra=json.dumps({"name": name, "params": params}, sort_keys=True))


def cached(name: str, params: dict):
    store = _results()
    key = _key(name, params)
    if key in store:
        store.move_to_end(key)
        return store[key]
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
    """Load a slow built-in dataset live (see :func:`live`), or take it from the shared store."""
    found = cached(name, params)
    if found is not None:
        return found
    dataset = live(lambda callback: load_dataset(name, callback=callback, **params), total, figure, f"stop_{name}",
                   lambda epoch, value: f"Epoch {epoch + 1} of {total}: {label} {value:.4g}")
    store = _results()
    store[_key(name, params)] = dataset
    while len(store) > MAX_CACHED:
        store.popitem(last=False)
    return dataset


def adopt(dataset, name: str, params: dict, title: str, train_now: bool, place: str):
    record = make_record(dataset, {"source": "builtin", "name": name, "params": params, "title": title})
    note = f"**{title}** is now the current dataset: {len(record.X):,} rows on `{record.signature}`."
    adopt_dataset(record, train_now, place, note)


def adopted_note(place: str) -> None:
    """The note of a dataset just adopted at ``place``, with the way to its regions."""
    if show_note(place):
        st.page_link("pages/3_Regions.py", label="See the decision regions", icon="🗺️")


def view_picker(signature, key: str):
    views = available_views(signature)
    titles = [describe_view(v, signature)[0] for v in views]
    pick = st.selectbox("Picture", range(len(views)), format_func=lambda i: titles[i], key=key,
                        help="Which component to draw; edges are drawn as geodesics of the product.")
    return views[pick]


def embedding_fields(key_prefix: str, names=("n_epochs", "n_restarts", "learn_curvature", "random_state"),
                     loader: str = "karate_club") -> dict:
    """The embedding parameters of a graph loader, drawn from its ``ParamInfo`` records (one row of fields)."""
    specs = [p for p in get_dataset_info(loader).parameters if p.name in names]
    return param_fields(specs, key_prefix=key_prefix, columns=len(specs))


tab_graph, tab_vae = st.tabs(["Graph embedding", "Image latents (VAE)"])

# ---------------------------------------------------------------- graphs
with tab_graph:
    c1, c2, c3 = st.columns(3)
    graph = c1.selectbox("Graph", GRAPHS, format_func=GRAPH_TITLES.get, key="emb_graph_name")
    with c2:
        g_signature = signature_box("Signature", "emb_graph_signature", "H2", help=EMBED_SIGNATURE_HELP,
                                    describe=False)
    node_spec = [p for p in get_dataset_info(graph).parameters if p.name == "n_nodes"]
    params = {"signature": str(g_signature) if g_signature else "H2"}
    if node_spec:  # generated graphs only
        with c3:
            params |= param_fields(node_spec, key_prefix="emb_graph_", columns=1)
    params |= embedding_fields("emb_graph_", loader=graph)
    total = params["n_epochs"] * params["n_restarts"]
    if st.button("Embed", type="primary", key="emb_graph_go", disabled=g_signature is None):
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
        m1.metric("Average distortion", f"{extra['distortion']:.3f}", help="Mean relative error of distances (0 is "
                  "perfect).")
        m2.metric("Mean average precision", f"{extra['map']:.3f}", help="1 when every node's neighbours are its "
                  "nearest embedded points.")
        m3.metric("Nodes", f"{result.n_samples}")
        m4.metric("Edges", f"{len(extra['edges'])}")
        st.caption(f"Requested signature `{extra['requested_signature']}`; learned `{result.signature}`. "
                   + result.provenance)
        left, right = st.columns([2, 3])
        with left:
            st.plotly_chart(training_curve_figure(extra["distortion_history"], title="Distortion per epoch"),
                            config=PLOTLY_CONFIG, key="emb_graph_curve")
        with right:
            view = view_picker(result.signature, "emb_graph_view")
            hover = [f"node {v}" for v in extra["nodes"]]
            st.plotly_chart(embedding_figure(result.X, result.signature, edges=extra["edges"], labels=result.y,
                                             label_names=result.target_names, view=view, hover=hover),
                            config=PLOTLY_CONFIG, key="emb_graph_picture")
        u1, u2 = st.columns(2)
        with u1:
            st.markdown("**Node dataset**: one row per node, the graph's label as target.")
            train_now = st.checkbox("Train a tree right away", value=True, key="emb_graph_train")
            if st.button("Use as the current dataset", key="emb_graph_use"):
                with friendly("use the embedding"):
                    adopt(result, last["name"], last["params"], f"{extra.get('title', result.name)}", train_now,
                          "graph")
            adopted_note("graph")
        with u2:
            st.markdown("**Link prediction**: rows (x_i, x_j, distance) on P x P x E1, label = edge; nodes are "
                        "split first and crossing pairs dropped (this embeds again with the same seed).")
            test_size = st.slider("Held-out nodes", 0.1, 0.5, 0.25, step=0.05, key="emb_graph_test")
            if st.button("Make a link-prediction dataset", key="emb_graph_links"):
                lp_params = {"graph": last["name"], "signature": extra["requested_signature"],
                             "n_nodes": int(last["params"].get("n_nodes", 64)), "test_size": float(test_size),
                             **{k: last["params"][k] for k in ("n_epochs", "n_restarts", "learn_curvature",
                                                                "random_state")}}
                lp_total = lp_params["n_epochs"] * lp_params["n_restarts"]
                with friendly("make the link-prediction dataset"):
                    links = run_live("link_prediction", lp_params, lp_total,
                                     lambda v, t: training_curve_figure(v, total=t), "distortion")
                    adopt(links, "link_prediction", lp_params, links.extra.get("title", "Link prediction"), False,
                          "links")
            adopted_note("links")

# ---------------------------------------------------------------- VAE
with tab_vae:
    st.markdown("scikit-learn's 1797 handwritten digits (8x8 pixels) through a VAE whose latent space is a product "
                "manifold; the wrapped-normal posterior of each component is moved along geodesics. The VAE trains "
                "on the training images only; the rest are the test rows.")
    v_signature = signature_box("Latent signature", "emb_vae_signature", "S2 x E2 x H2")
    vae_specs = [p for p in get_dataset_info("digits_latents").parameters if p.name != "signature"]
    v_params = {"signature": str(v_signature) if v_signature else "S2 x E2 x H2",
                **param_fields(vae_specs, key_prefix="emb_vae_", columns=len(vae_specs))}
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
            st.plotly_chart(elbo_figure(extra["elbo_history"], test_elbo=extra["test_elbo"]), config=PLOTLY_CONFIG,
                            key="emb_vae_curve")
        with right:
            view = view_picker(latents.signature, "emb_vae_view")
            hover = [f"digit {d}" + (" (test)" if t else "") for d, t in zip(latents.y, latents.test_mask)]
            st.plotly_chart(embedding_figure(latents.X, latents.signature, labels=latents.y,
                                             label_names=latents.target_names, view=view, hover=hover),
                            config=PLOTLY_CONFIG, key="emb_vae_picture")
        st.caption(latents.provenance)
        train_now = st.checkbox("Train a tree right away", value=True, key="emb_vae_train")
        if st.button("Use as the current dataset", key="emb_vae_use"):
            with friendly("use the latents"):
                adopt(latents, "digits_latents", v_last, "Digits (VAE latents)", train_now, "vae")
        adopted_note("vae")

state.sync_url()
