"""Adding models to a stored run (--add-models), and the boosting family's own statistics."""

import json

import numpy as np
import pandas as pd
import pytest
from curvedtrees.benchmarks import get_models, runner, summarize
from curvedtrees.benchmarks.cli import main
from curvedtrees.benchmarks.report import boosting_counts_markdown, boosting_markdown, rank_markdown, table5_markdown
from curvedtrees.benchmarks.statistics import pairwise_tests
from curvedtrees.benchmarks.stored import load_run

# The tiny preset (H2 and S2 x E2, classification and regression) on 60 points, 2 trials: 8 jobs.
TINY = ["--preset", "tiny", "--trials", "2", "--n-samples", "60", "--quiet"]
FIRST = "perceptron,knn,ambient_rf,product_rf"
ADDED = "product_gb,ambient_hgb,klein_hgb"
TIMINGS = ["fit_seconds", "predict_seconds"]
RUN_JOB = runner._run_job


def _stable(frame):
    return frame.drop(columns=[c for c in TIMINGS if c in frame])


def _report_text(path):
    """A report without what only timings decide (the run line's wall time, the timing table)."""
    text = path.read_text(encoding="utf-8")
    head, _, _ = text.partition("## Timings")
    return "\n".join(line for line in head.splitlines() if not line.startswith("Run: "))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """``added``: FIRST, then ADDED added to it; ``whole``: FIRST and ADDED in one run."""
    root = tmp_path_factory.mktemp("additions")
    added, whole = root / "added", root / "whole"
    assert main([*TINY, "--out", str(added), "--models", FIRST, "--gzip"]) == 0
    assert main([*TINY, "--out", str(added), "--add-models", ADDED]) == 0
    assert main([*TINY, "--out", str(whole), "--models", f"{FIRST},{ADDED}", "--gzip"]) == 0
    return added, whole


def test_adding_models_gives_the_tables_of_one_run_of_all_models(runs):
    added, whole = runs
    for suffix in (".csv.gz", "_summary.csv", "_pairs.csv"):
        expected = _stable(pd.read_csv(whole / f"tiny{suffix}"))
        got = _stable(pd.read_csv(added / f"tiny{suffix}"))
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert _report_text(added / "tiny.md") == _report_text(whole / "tiny.md")
    assert not (added / "tiny.csv").exists()  # the stored compressed table was rewritten in place
    meta_added = json.loads((added / "tiny.json").read_text())
    meta_whole = json.loads((whole / "tiny.json").read_text())
    assert meta_added["models"] == meta_whole["models"]
    assert meta_added["added_models"][0]["models"] == ["Product GB", "Ambient HGB", "Klein HGB"]
    assert not list(added.glob("*.partial.jsonl"))


def test_the_klein_wrapper_is_not_applicable_on_spheres(runs):
    results = pd.read_csv(runs[0] / "tiny.csv.gz")
    klein = results[results["model"] == "Klein HGB"]
    assert set(klein["signature"]) == {"H2"}  # no row, not a failed one, on S2 x E2
    assert results["error"].isna().all()
    summary = load_run("tiny", runs[0])["summary"]
    pairs = load_run("tiny", runs[0])["pairs"]
    table = boosting_markdown(summary, pairs)
    s2e2 = [line for line in table.splitlines() if "S2 x E2" in line]
    header = [cell.strip() for cell in table.splitlines()[0].strip("|").split("|")]
    for line in s2e2:
        cells = dict(zip(header, [cell.strip() for cell in line.strip("|").split("|")]))
        assert cells["Klein HGB"] == "n/a" and cells["− Klein HGB"] == "n/a"
        assert cells["Ambient HGB"] and cells["− Ambient HGB"].startswith(("+", "-"))
    assert len(s2e2) == 2
    boosting = pairs[pairs["comparison"] == "boosting"]
    assert set(boosting["model_a"]) == {"Product GB"}
    # Bonferroni over the family's comparisons of the row: 3 with the Klein wrapper, 2 without.
    by_signature = boosting.groupby("signature")["n_comparisons"].agg(set).to_dict()
    assert by_signature == {"H2": {3}, "S2 x E2": {2}}


def test_addition_with_other_parameters_is_refused(runs, tmp_path, capsys, monkeypatch):
    added = runs[0]
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in added.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    calls = []
    monkeypatch.setattr(runner, "_run_job", lambda *a, **k: calls.append(a) or RUN_JOB(*a, **k))
    cases = [
        ({"--seed": "1"}, "seed 0 in the run, 1 now"),
        ({"--trials": "3"}, "trials 2 in the run, 3 now"),
        ({"--max-depth": "3"}, "tree parameters {} in the run, {'max_depth': 3} now"),
        ({"--n-samples": "80"}, "48 training and 12 test rows in the run, 64 and 16 now"),
    ]
    for changed, message in cases:
        options = {"--trials": "2", "--n-samples": "60", **changed}
        args = ["--preset", "tiny", "--quiet", "--out", str(copy), "--add-models", "ambient_dt"]
        assert main([*args, *[x for item in options.items() for x in item]]) == 2, changed
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert main(["--preset", "tiny-sklearn", "--trials", "2", "--n-samples", "60", "--quiet", "--name", "tiny",
                 "--out", str(copy), "--add-models", "ambient_dt"]) == 2  # fmt: skip
    assert "preset 'tiny' in the run, 'tiny-sklearn' now" in capsys.readouterr().err
    assert main([*TINY, "--out", str(copy), "--add-models", "product_gb"]) == 2
    assert "'tiny' already holds Product GB: nothing to add" in capsys.readouterr().err
    assert main([*TINY, "--out", str(tmp_path / "empty"), "--add-models", "product_gb"]) == 2
    assert "there is no stored run 'tiny'" in capsys.readouterr().err
    assert main([*TINY, "--out", str(copy), "--add-models", "product_gb", "--models", "knn"]) == 2
    assert "cannot be combined" in capsys.readouterr().err
    assert calls == []  # nothing ran
    for path in added.iterdir():  # and nothing was written
        assert (copy / path.name).read_bytes() == path.read_bytes()


def test_an_interrupted_addition_resumes(runs, tmp_path, capsys, monkeypatch):
    added, _ = runs
    target = tmp_path / "target"
    target.mkdir()
    # The first run only: the stored files as they were before the addition.
    assert main([*TINY, "--out", str(target), "--models", FIRST, "--gzip"]) == 0
    calls = []

    def interrupt_after_three(*args, **kwargs):
        calls.append(args[2:4])
        if len(calls) > 3:
            raise KeyboardInterrupt
        return RUN_JOB(*args, **kwargs)

    monkeypatch.setattr(runner, "_run_job", interrupt_after_three)
    before = (target / "tiny_summary.csv").read_bytes()
    assert main([*TINY, "--out", str(target), "--add-models", ADDED]) == 130
    err = capsys.readouterr().err
    log = target / "tiny.add.partial.jsonl"
    assert "3 finished jobs are kept in" in err and str(log) in err and "--resume" in err
    assert (target / "tiny_summary.csv").read_bytes() == before  # the stored run is untouched
    # Without --resume the log is not overwritten; adding other models to it is refused.
    assert main([*TINY, "--out", str(target), "--add-models", ADDED]) == 2
    assert "add --resume" in capsys.readouterr().err
    monkeypatch.setattr(runner, "_run_job", lambda *a, **k: calls.append(a[2:4]) or RUN_JOB(*a, **k))
    assert main([*TINY, "--out", str(target), "--add-models", "product_gb", "--resume"]) == 2
    assert "in the log" in capsys.readouterr().err
    calls.clear()
    assert main([*TINY, "--out", str(target), "--add-models", ADDED, "--resume"]) == 0
    assert len(calls) == 8 - 3
    assert not log.exists()
    for suffix in (".csv.gz", "_summary.csv", "_pairs.csv"):
        expected = _stable(pd.read_csv(added / f"tiny{suffix}"))
        got = _stable(pd.read_csv(target / f"tiny{suffix}"))
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert main([*TINY, "--out", str(target), "--add-models", ADDED, "--resume"]) == 2
    assert "nothing to resume" in capsys.readouterr().err


def _paper_only(frame):
    if "comparison" in frame:
        return frame[frame["comparison"] != "boosting"].reset_index(drop=True)
    return frame[frame["family"] != "boosting"].reset_index(drop=True)


def test_boosting_leaves_the_papers_statistics_alone():
    """The paper's models keep their comparison sets, Bonferroni factors, marks and ranks."""
    from curvedtrees.benchmarks.datasets import gaussian_mixture

    datasets = [gaussian_mixture("H2", "classification", n_samples=120, n_clusters=4, n_classes=3)]
    paper = get_models("perceptron,knn,ambient_dt,ambient_rf,product_dt,product_rf")
    boosting = get_models("product_gb,ambient_hgb,klein_hgb")
    alone = runner.run_benchmark(datasets, paper, n_trials=6, random_state=3)
    both = runner.run_benchmark(datasets, [*paper, *boosting], n_trials=6, random_state=3)
    pairs_alone, pairs_both = pairwise_tests(alone), pairwise_tests(both)
    pd.testing.assert_frame_equal(_paper_only(pairs_both), pairs_alone, check_exact=True)
    assert set(pairs_alone["n_comparisons"]) == {6}  # trees: 4 models (6 pairs), forests: 4 models
    summary_alone, summary_both = summarize(alone), summarize(both)
    columns = ["model", "mean", "ci", "rank", "marks"]
    pd.testing.assert_frame_equal(_paper_only(summary_both)[columns], summary_alone[columns], check_exact=True)
    assert summary_both.loc[summary_both["family"] == "boosting", "rank"].isna().all()
    assert (summary_both.loc[summary_both["family"] == "boosting", "marks"] == "").all()
    # The paper's tables keep the paper's columns; the boosting table has its own.
    assert table5_markdown(summary_both) == table5_markdown(summary_alone)
    assert rank_markdown(summary_both) == rank_markdown(summary_alone)
    # A boosting model listed by the run but with no row at all (Klein HGB where every signature has an S
    # component) does not become an empty column of the paper's table either.
    listed = [*dict.fromkeys(summary_alone["model"]), "Klein HGB"]
    assert table5_markdown(summary_alone, listed) == table5_markdown(summary_alone)
    boosted = pairs_both[pairs_both["comparison"] == "boosting"]
    assert list(zip(boosted["model_a"], boosted["model_b"])) == [
        ("Product GB", "Product RF"),
        ("Product GB", "Ambient HGB"),
        ("Product GB", "Klein HGB"),
    ]
    assert set(boosted["n_comparisons"]) == {3}
    np.testing.assert_allclose(boosted["p_adjusted"], np.minimum(1.0, 3 * boosted["p_value"]))
    table = boosting_markdown(summary_both, pairs_both)
    assert "− Product RF" in table.splitlines()[0] and "Klein HGB" in table.splitlines()[0]
    counts = boosting_counts_markdown(summary_both, pairs_both)
    assert "Product GB vs Ambient HGB" in counts


def test_klein_models_apply_to_hyperbolic_and_euclidean_components_only():
    klein = get_models("klein_hgb")[0]
    assert klein.applies_to("classification", "H2 x E2")
    assert not klein.applies_to("classification", "H2 x S2")
    assert get_models("ambient_hgb")[0].applies_to("regression", "S2 x S2")
    with pytest.raises(ValueError, match="kinds"):
        type(klein)("x", klein.factory, kinds=("Q",))


def test_document_blocks_show_the_boosting_table_and_the_addition(runs):
    from curvedtrees.benchmarks.document import fill_document

    text = "<!-- begin boosting tiny -->\n<!-- end boosting tiny -->\n<!-- begin run tiny -->\n<!-- end run tiny -->\n"
    filled = fill_document(text, runs[0], paper=pd.DataFrame(columns=["section", "dataset", "task", "signature"]))
    assert "| C | H2 |" in filled and "Product GB vs Klein HGB" in filled
    assert "Product GB, Ambient HGB, Klein HGB added later in" in filled
    assert "added later" not in fill_document(text, runs[1], paper=pd.DataFrame())
