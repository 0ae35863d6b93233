"""Compare models on a dataset over repeated seeded trials: scores with confidence intervals, marks, timings."""

import streamlit as st
from curvedtrees.benchmarks import GROUP_MARKS, MODELS, PAPER_MODELS, pairwise_tests, run_benchmark, summarize
from curvedtrees.benchmarks.datasets import gaussian_mixture
from curvedtrees.benchmarks.figures import score_figure, timing_figure
from curvedtrees.benchmarks.real import dataset_spec
from curvedtrees.benchmarks.report import format_value
from curvedtrees.benchmarks.runner import check_models
from curvedtrees.manifolds import Signature

from ui import state
from ui.chrome import page_setup
from ui.errors import friendly, message_for
from ui.widgets import PLOTLY_CONFIG

# Larger inputs make k-NN and the perceptron (quadratic in the rows) slow for an interactive page.
MAX_ROWS = 5000
RESULT_KEY = "compare_result"
TASK_OF = {"classification": "classification", "regression": "regression", "link_prediction": "link_prediction"}

page_setup("Compare")
st.title("Compare models")
st.markdown(
    "Every model is trained and scored on the same random train/test splits, once per trial; the table gives the "
    "mean with a 95% confidence interval, and the marks say which kinds of model it beats in a paired Wilcoxon "
    "signed-rank test (Bonferroni-corrected p < .05, trees compared with trees and forests with forests, as in "
    "the paper). Hyperparameters are the paper's: depth 5, forests of 12 trees with √features and bootstrap, "
    "k-NN with 5 neighbours on the geodesic distance; product gradient boosting uses scikit-learn's "
    "HistGradientBoosting defaults (100 iterations, 31 leaves)."
)

data = state.get(state.DATA)
source = st.radio(
    "Data",
    ["current", "mixture"],
    format_func={"current": "the current dataset", "mixture": "a Gaussian mixture (the paper's benchmark)"}.get,
    horizontal=True,
    key="cmp_source",
)

spec = None
if source == "current":
    if data is None:
        st.info("No dataset yet: pick one on the **Data** page, or compare on a Gaussian mixture.")
    else:
        task = TASK_OF.get(data.dataset.task, data.task)
        st.markdown(f"On **{data.title}** (`{data.signature}`, {len(data.X):,} rows, {task.replace('_', ' ')}).")
        if len(data.X) > MAX_ROWS:
            st.warning(
                f"This dataset has {len(data.X):,} rows; comparisons here are limited to {MAX_ROWS:,} (k-NN and "
                "the perceptron grow quadratically). Use a smaller sample, or the command line "
                "`python -m curvedtrees.benchmarks`, which runs in parallel or on a Dask cluster."
            )
        else:
            spec = dataset_spec(data.dataset, name=data.title)
else:
    c1, c2, c3 = st.columns(3)
    text = c1.text_input("Signature", "H2 x S2", key="cmp_signature", help="For example H2, S2(0.5) x E2, (S1)^3.")
    task = c2.selectbox("Task", ["classification", "regression"], key="cmp_task")
    n_samples = c3.select_slider("Points", [200, 500, 1000, 2000], value=1000, key="cmp_n_samples",
                                 help="The paper uses 1,000 points, 32 clusters and 8 classes.")  # fmt: skip
    try:
        signature = Signature.parse(text)
    except (TypeError, ValueError) as exc:
        st.error(f"Signature: {message_for(exc)}")
    else:
        spec = gaussian_mixture(str(signature), task, section="Mixture", n_samples=n_samples)

if spec is not None:
    task = spec.task
    kinds = {c.kind for c in Signature.parse(spec.signature)}
    choices = [k for k, m in MODELS.items() if m.supports(task) and not (m.group == "klein" and "S" in kinds)]
    # Offer only models whose modules are installed (each is built once, cheaply, to find out).
    missing = check_models([spec], [MODELS[k] for k in choices])
    choices = [k for k in choices if MODELS[k].name not in missing]
    if missing:
        st.caption("Not available here: " + ", ".join(sorted(missing)) + ".")
    defaults = [k for k in PAPER_MODELS if k in choices]
    with st.form("cmp_form"):
        chosen = st.multiselect("Models", choices, default=defaults, format_func=lambda k: MODELS[k].name,
                                key="cmp_models", help="The paper's eight models are preselected.")  # fmt: skip
        c1, c2, c3 = st.columns(3)
        n_trials = c1.slider("Trials", 2, 30, 10, key="cmp_trials", help="Each trial draws a new split (and, for "
                             "mixtures, a new sample); more trials give narrower intervals.")  # fmt: skip
        test_size = c2.slider("Test share", 0.1, 0.5, 0.2, step=0.05, key="cmp_test_size")
        seed = int(c3.number_input("Seed", 0, 2**31 - 1, 0, key="cmp_seed", help="Same seed, same numbers."))
        submitted = st.form_submit_button("Run the comparison", type="primary")
    if submitted:
        if not chosen:
            st.error("Choose at least one model.")
        else:
            bar = st.progress(0.0, text="Starting...")

            def report(done, total):
                bar.progress(done / total, text=f"Trial {done} of {total}")

            with friendly("run the comparison"):
                results = run_benchmark(
                    [spec], [MODELS[k] for k in chosen], n_trials=n_trials, test_size=test_size, random_state=seed,
                    progress=report, on_error="record",
                )  # fmt: skip
                state.put(RESULT_KEY, {"label": spec.label, "results": results})
            bar.empty()

stored = state.get(RESULT_KEY)
if stored is not None:
    results = stored["results"]
    st.subheader(f"Results: {stored['label']}")
    failed = results[results["error"] != ""]
    if len(failed):
        st.warning(
            f"{len(failed)} fits failed and are left out: "
            + "; ".join(sorted({f"{r.model}: {r.error}" for r in failed.itertuples()})[:3])
        )
    summary = summarize(results, rank_all=True)  # the user's own pick of models, all ranked
    if summary.empty:
        st.error("No model finished a trial.")
    else:
        table = {
            "model": list(summary["model"]),
            "score": [format_value(m, c, k) for m, c, k in zip(summary["mean"], summary["ci"], summary["metric"])],
            "beats": list(summary["marks"]),
            "rank": [int(r) for r in summary["rank"]],
            "fit (ms)": [f"{1000 * s:.1f}" for s in summary["fit_seconds"]],
            "predict (ms)": [f"{1000 * s:.1f}" for s in summary["predict_seconds"]],
        }
        metric = summary["metric"].iloc[0]
        st.caption(
            ("F1 micro in percent" if metric == "f1_micro" else "RMSE (lower is better)")
            + f", mean ± 95% interval over {results['trial'].nunique()} trials. Marks: "
            + ", ".join(f"{mark} beats {group} models" for group, mark in GROUP_MARKS.items())
            + "."
        )
        st.dataframe(table, hide_index=True, key="cmp_table")
        left, right = st.columns(2)
        with left:
            st.plotly_chart(score_figure(summary, title="Score by model"), key="cmp_scores", config=PLOTLY_CONFIG)
        with right:
            st.plotly_chart(timing_figure(summary, title="Time per call"), key="cmp_times", config=PLOTLY_CONFIG)
        with st.expander("Pairwise tests"):
            pairs = pairwise_tests(results)
            st.dataframe(
                pairs[["comparison", "model_a", "model_b", "n", "p_value", "threshold", "winner"]],
                hide_index=True,
                key="cmp_pairs",
            )
        st.download_button(
            "Download the per-trial results (CSV)",
            results.to_csv(index=False),
            file_name="comparison.csv",
            mime="text/csv",
            key="cmp_download",
        )
