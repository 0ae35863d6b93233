"""Stored benchmark results beside the paper's Table 5, and quick reruns of small presets."""

import streamlit as st
from curvedtrees.benchmarks import PRESETS, load_paper_table5, run_preset, summarize
from curvedtrees.benchmarks.figures import score_figure, timing_figure
from curvedtrees.benchmarks.reference import (
    REFERENCE_PATH,
    REFERENCE_SECTIONS,
    agreement_counts,
    compare_with_reference,
    load_reference,
    reference_markdown,
)
from curvedtrees.benchmarks.report import (
    boosting_counts_markdown,
    boosting_markdown,
    comparison_markdown,
    rank_markdown,
    table5_markdown,
)
from curvedtrees.benchmarks.statistics import BOOSTING_FAMILY, ROW_KEYS, pairwise_tests
from curvedtrees.benchmarks.stored import list_runs, load_run

from ui import state
from ui.chrome import page_setup
from ui.errors import friendly
from ui.widgets import PLOTLY_CONFIG

RERUN_KEY = "bench_rerun"
# Reruns here are capped so the page stays interactive; the command line has no cap.
MAX_TRIALS = 5
RERUN_PRESETS = [
    "tiny",
    "multi-curvature",
    "multi-curvature-notebook",
    "single-curvature",
    "single-curvature-notebook",
]

page_setup("Benchmarks")
# A cell such as "31.0 ± .9" must not wrap over three lines; wide tables scroll sideways instead.
st.markdown(
    "<style>[data-testid='stMarkdownContainer']:has(> table), [data-testid='stMarkdownContainer'] > div:has(table)"
    "{overflow-x: auto} [data-testid='stMarkdownContainer'] td, [data-testid='stMarkdownContainer'] th"
    "{white-space: nowrap}</style>",
    unsafe_allow_html=True,
)
st.title("Benchmarks")
st.markdown(
    "Results of the paper's protocol (many seeded trials, paired significance tests) run with this project's "
    "models, stored in `results/` by `python -m curvedtrees.benchmarks`, beside the numbers the paper reports in its "
    "Table 5, and beside the authors' own stored per-trial results (10 trials, their mixture, depth 5). "
    "BENCHMARKS.md explains every difference."
)


@st.cache_data(show_spinner=False)
def _paper():
    return load_paper_table5()


@st.cache_data(show_spinner=False)
def _reference():
    return load_reference() if REFERENCE_PATH.exists() else None


@st.cache_data(show_spinner=False)
def _run(stem: str, modified: float):
    # ``modified`` is part of the cache key: a rewritten run is read again.
    return load_run(stem)


def _show(summary, paper, models, key, pairs=None):
    """Table 5 layout, the paper comparison, a chart per dataset row, ranks and timings; boosting's own tests."""
    # The tables are generated here from numbers and registry names only (no user text), so HTML is safe.
    boosting = pairs is not None and (summary["family"] == BOOSTING_FAMILY).any()
    names = ["Table", "Compared with the paper", "Chart", "Ranks and timings"] + (["Boosting"] if boosting else [])
    tabs = st.tabs(names)
    with tabs[0]:
        st.markdown(table5_markdown(summary, models), unsafe_allow_html=True)
        st.caption(
            "F1 micro in percent or RMSE, mean ± 95% interval. Bold: best; underlined: second. Marks: * beats "
            "product models, † ambient, ‡ tangent, § k-NN, ¶ the perceptron (Wilcoxon, Bonferroni p < .05)."
        )
    keys = [k for k in ROW_KEYS if k in summary]
    rows = summary[keys].drop_duplicates()
    joined = rows.merge(paper[keys].drop_duplicates(), on=keys)
    with tabs[1]:
        if joined.empty:
            st.info("None of these rows is in the paper's Table 5.")
        else:
            st.markdown(comparison_markdown(summary.merge(joined, on=keys), paper, models))
            st.caption(
                "Ours above, the paper's below. ▲/▼: our mean lies above/below the paper's 95% interval; !: the "
                "difference exceeds both intervals combined."
            )
    with tabs[2]:
        labels = [", ".join(str(v) for v in row) for row in rows.itertuples(index=False)]
        choice = st.selectbox("Dataset row", range(len(labels)), format_func=labels.__getitem__, key=f"{key}_row")
        row = rows.iloc[choice]
        mask = (summary[keys] == row.to_numpy()).all(axis=1)
        paper_mask = (paper[keys] == row.to_numpy()).all(axis=1)
        figure = score_figure(summary[mask], paper[paper_mask] if paper_mask.any() else None)
        st.plotly_chart(figure, key=f"{key}_chart", config=PLOTLY_CONFIG)
    with tabs[3]:
        st.markdown(rank_markdown(summary, models))
        st.plotly_chart(timing_figure(summary), key=f"{key}_times", config=PLOTLY_CONFIG)
    if boosting:
        with tabs[4]:
            st.markdown(boosting_markdown(summary, pairs))
            st.caption(
                "Product GB minus each model, Wilcoxon p Bonferroni-adjusted over the row's comparisons; ▲/▼ "
                "significantly better/worse; n/a: the Klein wrapper has no model of a sphere. The paper's models "
                "keep their own tests, marks and ranks in the other tabs."
            )
            st.markdown(boosting_counts_markdown(summary, pairs))


def _show_reference(summary):
    """The run's cells beside the authors' stored results, if it has any of their rows."""
    reference = _reference()
    if reference is None:
        return
    summary = summary[summary["section"].isin(REFERENCE_SECTIONS.values())]
    if summary.empty:
        return
    table = compare_with_reference(summary, reference)
    if table.empty:
        return
    total = agreement_counts(table).iloc[-1]
    with st.expander(f"Beside the authors' stored results: {total.agree} of {total.cells} cells agree"):
        st.markdown(reference_markdown(table))
        st.caption(
            "Means ± one standard error: ours over this run's trials, the authors' over their 10 stored trials "
            "(their notebooks' mixture, trees of depth 5). A cell agrees when the difference is at most 2 combined "
            "standard errors. Runs at another depth or with another mixture are not expected to agree."
        )


paper = _paper()
runs = list_runs()
st.header("Stored results")
if not runs:
    st.info("No stored results yet: run `python -m curvedtrees.benchmarks --preset multi-curvature --out results/`.")
else:
    stems = [r["stem"] for r in runs]
    by_stem = {r["stem"]: r for r in runs}

    def _label(stem):
        meta = by_stem[stem]
        wall = f", {meta['wall_seconds'] / 60:.1f} min" if meta.get("wall_seconds") else ""
        return f"{stem} ({meta.get('n_trials', '?')} trials{wall})"

    default = stems.index("multi-curvature") if "multi-curvature" in stems else 0
    stem = st.selectbox("Run", stems, index=default, format_func=_label, key="bench_stem")
    with friendly("read the stored run"):
        run = _run(stem, by_stem[stem]["modified"])
        meta = run["meta"]
        # A stored run keeps its preset's description from the day it ran; the preset's current text
        # carries later corrections (such as what the depth-3 presets are), so it wins for the preset's own runs.
        preset = PRESETS.get(stem) if meta.get("preset") == stem else None
        description = preset.description if preset is not None else meta.get("description")
        if description:
            st.markdown(description)
        st.caption(
            f"{meta.get('n_trials', '?')} trials, seed {meta.get('random_state', '?')}, test share "
            f"{meta.get('test_size', '?')}, backend {meta.get('backend', '?')}"
            + (f", {meta['wall_seconds']:.0f} s wall time" if meta.get("wall_seconds") else "")
        )
        _show(run["summary"], paper, meta.get("models"), "stored", run.get("pairs"))
        _show_reference(run["summary"])

st.header("Rerun a small preset")
st.markdown(
    f"Up to {MAX_TRIALS} trials on smaller samples, to see the protocol at work; the stored runs above use 100 "
    "trials of 1,000 points (numbers from a few small trials are not comparable with the paper's)."
)
with st.form("bench_form"):
    c1, c2, c3 = st.columns(3)
    preset_name = c1.selectbox("Preset", RERUN_PRESETS, key="bench_preset",
                               help="See `python -m curvedtrees.benchmarks --list`.")  # fmt: skip
    n_trials = c2.slider("Trials", 1, MAX_TRIALS, 2, key="bench_trials")
    n_samples = c3.select_slider("Points per dataset", [200, 500, 1000], value=200, key="bench_n_samples")
    submitted = st.form_submit_button("Run", type="primary")
st.caption(PRESETS[preset_name].description)
if submitted:
    bar = st.progress(0.0, text="Starting...")

    def report(done, total):
        bar.progress(done / total, text=f"{done} of {total} (dataset, trial) jobs")

    with friendly("run the preset"):
        results = run_preset(preset_name, n_trials=n_trials, n_samples=n_samples, progress=report, on_error="record")
        state.put(RERUN_KEY, {"preset": preset_name, "results": results})
    bar.empty()
rerun = state.get(RERUN_KEY)
if rerun is not None:
    results = rerun["results"]
    st.subheader(f"Rerun: {rerun['preset']}, {results['trial'].nunique()} trials")
    failed = int((results["error"] != "").sum())
    if failed:
        st.warning(f"{failed} fits failed and are left out.")
    summary = summarize(results)
    if not summary.empty:
        _show(summary, paper, results.attrs.get("models"), "rerun", pairwise_tests(results))
