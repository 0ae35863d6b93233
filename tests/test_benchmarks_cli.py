"""The benchmark CLI's guards and its trial log: --out and --name checked first, resume, one-line errors."""

import io
import json
import socket
import time

import pandas as pd
import pytest
from curvedtrees.benchmarks import PRESETS, ModelSpec, get_models, run_benchmark, runner
from curvedtrees.benchmarks.cli import ProgressBar, main
from curvedtrees.benchmarks.datasets import blobs
from curvedtrees.benchmarks.presets import Preset
from curvedtrees.benchmarks.runner import TrialLog, TrialLogError

# The tiny preset on 60 points with two fast models: 4 datasets, so 4 jobs per trial.
TINY = ["--preset", "tiny", "--trials", "3", "--n-samples", "60", "--models", "ambient_dt,product_dt"]
TINY_JOBS = 4 * 3
TIMINGS = ["fit_seconds", "predict_seconds"]
RUN_JOB = runner._run_job  # the real job, whatever a test has patched in its place


def _stable(frame):
    return frame.drop(columns=[c for c in TIMINGS if c in frame])


def _interrupt_after(monkeypatch, k):
    """Make the (k+1)-th job raise KeyboardInterrupt, as Ctrl-C would while it runs."""
    calls = []

    def job(*args, **kwargs):
        calls.append(args[2:4])
        if len(calls) > k:
            raise KeyboardInterrupt
        return RUN_JOB(*args, **kwargs)

    monkeypatch.setattr(runner, "_run_job", job)
    return calls


def _count_jobs(monkeypatch):
    calls = []

    def job(*args, **kwargs):
        calls.append(args[2:4])
        return RUN_JOB(*args, **kwargs)

    monkeypatch.setattr(runner, "_run_job", job)
    return calls


def _no_run(monkeypatch):
    """Fail the test if the CLI starts running anything."""
    import curvedtrees.benchmarks.presets as presets

    def refuse(*args, **kwargs):
        raise AssertionError("the run started although the arguments were bad")

    monkeypatch.setattr(presets, "run_preset", refuse)


def _one_line(text):
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


# ---------------------------------------------------------------- --out and --name, before any work
def test_out_that_cannot_be_created_fails_before_the_run(tmp_path, monkeypatch, capsys):
    _no_run(monkeypatch)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main([*TINY, "--out", str(blocker / "results")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("error: --out ") and "cannot create the folder" in line
    assert main([*TINY, "--out", str(blocker)]) == 2
    assert "is a file, not a folder" in _one_line(capsys.readouterr().err)


def test_out_that_is_not_writable_fails_before_the_run(tmp_path, monkeypatch, capsys):
    # Tests may run as root, whom file modes do not stop: refuse the probe file instead.
    import curvedtrees.benchmarks.cli as cli

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    _no_run(monkeypatch)
    monkeypatch.setattr(cli.tempfile, "mkstemp", refuse)
    assert main([*TINY, "--out", str(tmp_path / "new")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "cannot write files there (Permission denied)" in line


@pytest.mark.parametrize("name", ["../escape", "/abs/escape", "..", "sub/escape", ".hidden", "-x", ""])
def test_name_must_be_a_plain_stem(tmp_path, monkeypatch, capsys, name):
    _no_run(monkeypatch)
    out = tmp_path / "out"
    assert main([*TINY, "--out", str(out), f"--name={name}"]) == 2
    assert _one_line(capsys.readouterr().err).startswith("error: --name ")
    assert list(tmp_path.rglob("*escape*")) == []


def test_report_writer_refuses_names_with_paths(tmp_path):
    from curvedtrees.benchmarks.report import write_report

    results = run_benchmark([blobs("classification", n_samples=60)], get_models(["ambient_dt"]), n_trials=2)
    with pytest.raises(ValueError, match="plain file name stem"):
        write_report(results, tmp_path / "out", "../escape")
    assert not (tmp_path / "escape.csv").exists()


# ---------------------------------------------------------------- interrupt and resume
def test_interrupted_run_resumes_to_the_uninterrupted_numbers(tmp_path, monkeypatch, capsys):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    assert main([*TINY, "--out", str(whole), "--quiet"]) == 0

    k = 5
    _interrupt_after(monkeypatch, k)
    assert main([*TINY, "--out", str(parts), "--quiet"]) == 130
    err = capsys.readouterr().err
    assert f"interrupted: {k} finished jobs are kept in" in err and "--resume" in err
    log = parts / "tiny.partial.jsonl"
    assert TrialLog.count(log) == k
    assert not (parts / "tiny_summary.csv").exists()

    calls = _count_jobs(monkeypatch)
    assert main([*TINY, "--out", str(parts), "--quiet", "--resume"]) == 0
    out = capsys.readouterr().out
    assert len(calls) == TINY_JOBS - k  # finished jobs were not run again
    assert f"{TINY_JOBS} (dataset, trial) jobs, {k} of them read back" in out
    assert not log.exists()

    for suffix in ("_summary.csv", "_pairs.csv", ".csv"):
        expected = _stable(pd.read_csv(whole / f"tiny{suffix}"))
        resumed = _stable(pd.read_csv(parts / f"tiny{suffix}"))
        pd.testing.assert_frame_equal(resumed, expected, check_exact=True)
    assert json.loads((parts / "tiny.json").read_text())["resumed_jobs"] == k
    assert f"resumed after an interruption ({k} jobs read back" in (parts / "tiny.md").read_text()
    assert "resumed" not in (whole / "tiny.md").read_text()


def test_resume_with_other_parameters_is_refused(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    _interrupt_after(monkeypatch, 3)
    assert main([*TINY, "--out", str(out), "--quiet"]) == 130
    capsys.readouterr()
    _no_run_jobs = _count_jobs(monkeypatch)

    assert main([*TINY, "--out", str(out), "--quiet", "--resume", "--trials", "4"]) == 2
    assert "trials 3 in the log, 4 now" in _one_line(capsys.readouterr().err)
    more = [*TINY[:5], "80", *TINY[6:]]
    assert main([*more, "--out", str(out), "--quiet", "--resume"]) == 2
    assert "n_samples 60 in the log, 80 now" in _one_line(capsys.readouterr().err)
    assert main([*TINY, "--out", str(out), "--quiet", "--resume", "--max-depth", "2"]) == 2
    assert "max_depth" in _one_line(capsys.readouterr().err)
    assert main([*TINY, "--out", str(out), "--quiet", "--resume", "--seed", "1"]) == 2
    assert "seed 0 in the log, 1 now" in _one_line(capsys.readouterr().err)
    # Starting over on top of an unfinished run is refused too: it would lose its trials.
    assert main([*TINY, "--out", str(out), "--quiet"]) == 2
    assert "holds 3 finished jobs of an interrupted run: add --resume" in _one_line(capsys.readouterr().err)
    assert _no_run_jobs == [] and TrialLog.count(out / "tiny.partial.jsonl") == 3


def test_resume_without_a_log_says_so(tmp_path, capsys):
    assert main([*TINY, "--out", str(tmp_path), "--quiet", "--resume"]) == 2
    assert "nothing to resume" in _one_line(capsys.readouterr().err)


def test_torn_last_line_is_dropped_and_its_job_runs_again(tmp_path, monkeypatch, capsys):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    assert main([*TINY, "--out", str(whole), "--quiet"]) == 0
    _interrupt_after(monkeypatch, 4)
    assert main([*TINY, "--out", str(parts), "--quiet"]) == 130
    log = parts / "tiny.partial.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-1]) + lines[-1][:30])  # killed while writing the fourth job
    calls = _count_jobs(monkeypatch)
    assert main([*TINY, "--out", str(parts), "--quiet", "--resume"]) == 0
    assert len(calls) == TINY_JOBS - 3
    expected = _stable(pd.read_csv(whole / "tiny_summary.csv"))
    pd.testing.assert_frame_equal(_stable(pd.read_csv(parts / "tiny_summary.csv")), expected, check_exact=True)


def test_damaged_log_names_the_line(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    _interrupt_after(monkeypatch, 3)
    assert main([*TINY, "--out", str(out), "--quiet"]) == 130
    capsys.readouterr()
    log = out / "tiny.partial.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    record = json.loads(lines[2])
    record["rows"][0][10] = "not a number"  # the value column
    lines[2] = json.dumps(record) + "\n"
    log.write_text("".join(lines))
    assert main([*TINY, "--out", str(out), "--quiet", "--resume"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "tiny.partial.jsonl, line 3: unexpected value" in line
    log.write_text(lines[0] + "{broken\n" + "".join(lines[2:]))
    assert main([*TINY, "--out", str(out), "--quiet", "--resume"]) == 2
    assert "line 2: not a JSON record" in _one_line(capsys.readouterr().err)


def test_interrupt_before_any_job_leaves_nothing_behind(tmp_path, monkeypatch, capsys):
    _interrupt_after(monkeypatch, 0)
    assert main([*TINY, "--out", str(tmp_path), "--quiet"]) == 130
    assert "nothing to resume" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "tiny.partial.jsonl").exists()


def _smoke_datasets(n_samples=None):
    return [blobs("classification", n_samples=60), blobs("regression", n_samples=60, n_features=3)]


def test_failed_run_is_one_line_and_keeps_its_finished_jobs(tmp_path, monkeypatch, capsys):
    # A model that fails on some trials: the run stops with one line and the log keeps what finished.
    calls = []

    def job(dataset, models, trial, seed, test_size, on_error):
        calls.append(trial)
        if len(calls) == 3:
            raise RuntimeError("model 'X' failed on dataset Blobs, trial 1:\nboom")
        return RUN_JOB(dataset, models, trial, seed, test_size, on_error)

    preset = Preset("smoke", "blobs", _smoke_datasets, ("ambient_dt",), trials=2)
    monkeypatch.setitem(PRESETS, "smoke", preset)
    monkeypatch.setattr(runner, "_run_job", job)
    assert main(["--preset", "smoke", "--out", str(tmp_path), "--quiet"]) == 1
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("error: model 'X' failed on dataset Blobs, trial 1: boom")
    assert "2 finished jobs are kept in" in line and "--resume" in line
    monkeypatch.setattr(runner, "_run_job", RUN_JOB)
    assert main(["--preset", "smoke", "--out", str(tmp_path), "--quiet", "--resume"]) == 0


def _free_port():
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_scheduler_is_one_line_and_exit_2(tmp_path, capsys):
    pytest.importorskip("distributed")
    port = _free_port()
    started = time.perf_counter()
    code = main([*TINY, "--out", str(tmp_path), "--scheduler", f"tcp://127.0.0.1:{port}"])
    elapsed = time.perf_counter() - started
    assert code == 2
    line = _one_line(capsys.readouterr().err)
    assert line == f"error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} (Connection refused)"
    assert elapsed < 3  # a refusal is final: no waiting (distributed alone retries for 30 s)
    assert list(tmp_path.iterdir()) == []  # no trial log for a run that never started
    assert main([*TINY, "--out", str(tmp_path), "--scheduler", "nonsense://x"]) == 2
    assert "is not a Dask scheduler address" in _one_line(capsys.readouterr().err)
    _assert_no_default_client()


def _assert_no_default_client():
    """A failed connection leaves no broken default client behind for get_client()."""
    import distributed

    with pytest.raises(ValueError, match="No clients found"):
        distributed.default_client()


def test_silent_scheduler_times_out_after_connect_timeout(tmp_path, capsys):
    pytest.importorskip("distributed")
    with socket.socket() as silent:  # accepts connections (backlog) but never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        started = time.perf_counter()
        code = main([*TINY, "--out", str(tmp_path), "--scheduler", address, "--connect-timeout", "1"])
        elapsed = time.perf_counter() - started
    assert code == 2
    line = _one_line(capsys.readouterr().err)
    assert line == f"error: cannot reach the Dask scheduler at {address}: no answer within 1 s"
    assert elapsed < 10  # model checks and imports included; the default 30 s is far off
    assert main([*TINY, "--out", str(tmp_path), "--scheduler", address, "--connect-timeout", "0"]) == 2
    assert "--connect-timeout must be a positive" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize(
    ("answer", "hold", "expected"),
    [
        # A web server or proxy: bytes that are no Dask frame, then the connection closes.
        (b"HTTP/1.1 400 Bad Request\r\n\r\n" + b"\xff" * 64, 0.2, ""),
        # A server that says a word and then nothing more: distributed alone would wait forever.
        (b"\x00", 30.0, "no handshake within 2 s"),
    ],
    ids=["web-server", "silent-after-a-byte"],
)
def test_server_that_is_not_a_scheduler_is_one_line(tmp_path, capsys, answer, hold, expected):
    pytest.importorskip("distributed")
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.1)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            threading.Thread(target=talk, args=(conn,), daemon=True).start()

    def talk(conn):
        with conn:
            try:
                conn.sendall(answer)
                stop.wait(hold)
            except OSError:
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    started = time.perf_counter()
    try:
        code = main([*TINY, "--out", str(tmp_path), "--scheduler", address, "--connect-timeout", "1"])
    finally:
        stop.set()
        thread.join()
        server.close()
    elapsed = time.perf_counter() - started
    assert code == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("error: ") and address in line and expected in line
    assert elapsed < 12  # model checks and imports included
    _assert_no_default_client()


def test_other_failures_are_one_line(tmp_path, monkeypatch, capsys):
    assert main(["--update-doc", str(tmp_path / "missing.md"), "--out", str(tmp_path)]) == 2
    assert "--update-doc" in _one_line(capsys.readouterr().err)
    assert main(["--parse-paper", str(tmp_path / "missing.txt"), "--out", str(tmp_path)]) == 2
    assert "--parse-paper" in _one_line(capsys.readouterr().err)
    assert main(["--preset", "no-such-preset"]) == 2
    assert "unknown preset" in _one_line(capsys.readouterr().err)
    assert main(["--trials", "3"]) == 2
    assert "--preset is required" in _one_line(capsys.readouterr().err)
    with pytest.raises(SystemExit) as exit_info:
        main(["--trials", "many"])
    assert exit_info.value.code == 2 and "invalid int value" in _one_line(capsys.readouterr().err)

    import curvedtrees.benchmarks.presets as presets

    def bug(*args, **kwargs):
        raise KeyError("surprise")

    monkeypatch.setattr(presets, "run_preset", bug)
    assert main([*TINY, "--out", str(tmp_path / "bug"), "--quiet"]) == 1
    assert _one_line(capsys.readouterr().err) == "error: KeyError: 'surprise'"
    with pytest.raises(KeyError):
        main([*TINY, "--out", str(tmp_path / "bug"), "--quiet", "--traceback"])


# ---------------------------------------------------------------- the trial log in the library
def _datasets():
    return [blobs("classification", n_samples=80), blobs("regression", n_samples=80, n_features=3)]


def test_library_resume_in_parallel_matches_a_serial_run(tmp_path, monkeypatch):
    models = get_models(["ambient_dt", "ambient_rf"])
    whole = run_benchmark(_datasets(), models, n_trials=3, random_state=7)
    log = tmp_path / "run.jsonl"
    _interrupt_after(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        run_benchmark(_datasets(), models, n_trials=3, random_state=7, checkpoint=log)
    monkeypatch.undo()
    resumed = run_benchmark(_datasets(), models, n_trials=3, random_state=7, checkpoint=log, resume=True, n_jobs=2)
    pd.testing.assert_frame_equal(_stable(resumed), _stable(whole), check_exact=True)
    assert resumed.attrs["resumed_jobs"] == 2 and resumed.attrs["resumed_wall_seconds"] > 0
    with pytest.raises(TrialLogError, match="holds the finished trials"):
        run_benchmark(_datasets(), models, n_trials=3, random_state=7, checkpoint=log)
    with pytest.raises(TrialLogError, match=r"test size 0\.2 in the log, 0\.3 now"):
        run_benchmark(_datasets(), models, n_trials=3, random_state=7, checkpoint=log, resume=True, test_size=0.3)
    with pytest.raises(TrialLogError, match=r"models \[Ambient DT; Ambient RF\] in the log, \[Ambient DT\] now"):
        run_benchmark(_datasets(), models[:1], n_trials=3, random_state=7, checkpoint=log, resume=True)
    with pytest.raises(ValueError, match="needs the checkpoint"):
        run_benchmark(_datasets(), models, n_trials=3, resume=True)


def test_failed_fits_and_nan_survive_the_log(tmp_path):
    def broken(task, signature, random_state):
        from sklearn.tree import DecisionTreeClassifier

        class Broken(DecisionTreeClassifier):
            def predict(self, X):
                raise RuntimeError("boom")

        return Broken()

    models = [*get_models(["ambient_dt"]), ModelSpec("Broken", broken, tasks=("classification",))]
    log = tmp_path / "run.jsonl"
    first = run_benchmark(_datasets(), models, n_trials=2, on_error="record", checkpoint=log)
    again = run_benchmark(_datasets(), models, n_trials=2, on_error="record", checkpoint=log, resume=True)
    assert again.attrs["resumed_jobs"] == 4
    pd.testing.assert_frame_equal(again, first, check_exact=True)  # every job read back, timings included
    assert again.loc[again["model"] == "Broken", "value"].isna().all()
    assert "RuntimeError: boom" in again.loc[again["model"] == "Broken", "error"].iloc[0]


def test_log_lines_are_flushed_as_jobs_finish(tmp_path):
    log = tmp_path / "run.jsonl"
    seen = []
    run_benchmark(_datasets(), get_models(["ambient_dt"]), n_trials=2, checkpoint=log,
                  progress=lambda done, total: seen.append(TrialLog.count(log)))  # fmt: skip
    # Before each progress report the job is already on disk.
    assert seen == [0, 1, 2, 3, 4]
    header = json.loads(log.read_text().splitlines()[0])
    assert header["params"]["n_trials"] == 2 and header["params"]["models"][0]["name"] == "Ambient DT"


# ---------------------------------------------------------------- progress
def test_progress_bar_counts_jobs_and_starts_at_resumed_ones():
    stream = io.StringIO()
    progress = ProgressBar(stream)
    for done in range(5):
        progress(done, 4)
    text = stream.getvalue()
    assert "0/4" in text and "4/4" in text and progress.bar is None  # closed at the end
    stream = io.StringIO()
    resumed = ProgressBar(stream)
    resumed(3, 4)
    resumed.close()
    assert "3/4" in stream.getvalue() and "0/4" not in stream.getvalue()


# ------------------------------------------- issue 27 / 26: everything the CLI reads or is told, first
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--trials", str(10**30)], "--trials must be from 1 to 10,000"),
        (["--trials", "0"], "--trials must be from 1 to 10,000"),
        (["--n-samples", str(10**30)], "--n-samples must be from 10 to 1,000,000"),
        (["--max-depth", "0"], "--max-depth must be from 1 to"),
        (["--max-depth", str(10**30)], "--max-depth must be from 1 to"),
        (["--n-jobs", "0"], "--n-jobs must be a positive number of processes"),
        (["--n-jobs", "-100000"], "--n-jobs must be a positive number of processes"),
        (["--connect-timeout", "inf"], "--connect-timeout must be a positive number of seconds, got inf"),
        (["--connect-timeout", "nan"], "--connect-timeout must be a positive number of seconds, got nan"),
    ],
)
def test_numbers_are_bounded_before_anything_runs(tmp_path, monkeypatch, capsys, arguments, message):
    _no_run(monkeypatch)
    assert main([*TINY, *arguments, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert message in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "out").exists()  # refused before --out was created


def test_a_missing_statsmodels_is_named_before_the_first_trial(tmp_path, monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "statsmodels" else real(name, *a))
    _no_run(monkeypatch)
    assert main([*TINY, "--out", str(tmp_path), "--quiet"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "the reports need statsmodels" in line and "pip install 'curvedtrees[benchmarks]'" in line
    assert "nothing was run" in line


def test_fewer_than_five_trials_warn_that_the_intervals_say_nothing(tmp_path, capsys):
    two = [*TINY[:3], "2", *TINY[4:]]
    assert main([*two, "--out", str(tmp_path), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "warning: only 2 trials: the 95% confidence intervals are too wide to compare models" in err
    assert "multiplies the standard error by 12.7" in err and "--trials 5" in err
    assert "**Warning:** Only 2 trials" in (tmp_path / "tiny.md").read_text()
    from curvedtrees.benchmarks.report import MIN_TRIALS_FOR_INTERVAL, few_trials_warning

    assert MIN_TRIALS_FOR_INTERVAL == 5 and "no interval can be computed" in few_trials_warning(1)


def test_local_workers_never_outnumber_the_jobs(tmp_path, monkeypatch):
    # The case: --n-jobs 40 on a 2-job run started 44 processes.
    import joblib

    asked = []
    real = joblib.Parallel

    def parallel(*args, n_jobs=None, **kwargs):
        asked.append(n_jobs)
        return real(*args, n_jobs=1, **kwargs)

    monkeypatch.setattr(joblib, "Parallel", parallel)
    specs = [blobs("classification", n_samples=60)]
    run_benchmark(specs, get_models("ambient_dt"), n_trials=2, n_jobs=40)
    assert asked == [2]


def _stored_run(tmp_path):
    out = tmp_path / "runs"
    assert main([*TINY, "--out", str(out), "--quiet"]) == 0
    return out


def test_a_stored_table_of_nans_is_refused_naming_the_file_row_and_column(tmp_path, capsys):
    out = _stored_run(tmp_path)
    capsys.readouterr()
    table = pd.read_csv(out / "tiny.csv")
    pd.DataFrame(float("nan"), index=table.index, columns=table.columns).to_csv(out / "tiny.csv", index=False)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert main(["--rewrite-reports", "tiny", "--out", str(out)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "tiny.csv, row 2: section must be a non-empty text, got an empty cell" in line
    assert "KeyError" not in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing was rewritten
    # The same table through --add-models and the summary through --update-doc.
    assert main([*TINY[:6], "--add-models", "product_rf", "--out", str(out), "--quiet"]) == 2
    assert "row 2: section must be a non-empty text" in _one_line(capsys.readouterr().err)
    summary = pd.read_csv(out / "tiny_summary.csv")
    summary["n_trials"] = -1.5
    summary.to_csv(out / "tiny_summary.csv", index=False)
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- begin ranks tiny -->\nold\n<!-- end ranks tiny -->\n")
    assert main(["--update-doc", str(doc), "--out", str(out)]) == 2
    assert "n_trials must be a whole non-negative number, got -1.5" in _one_line(capsys.readouterr().err)
    assert "old" in doc.read_text()


@pytest.mark.parametrize("option", ["--update-doc", "--parse-paper"])
def test_files_read_whole_are_bounded(tmp_path, capsys, option):
    # The case: --update-doc /dev/zero read until MemoryError.
    assert main([option, "/dev/zero", "--out", str(tmp_path)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"{option} /dev/zero: more than 16,777,216 bytes" in line and "MAX_BENCHMARK_TEXT_BYTES" in line


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ('"a JSON string"', "is not a trial log of this version of curvedtrees (line 1)"),  # AttributeError before
        ("[1, 2, 3]", "is not a trial log of this version of curvedtrees (line 1)"),
        ("[" * 100_000 + "]" * 100_000, "line 1: not a JSON record (the file is damaged)"),
    ],
)
def test_a_trial_log_that_is_not_one_is_refused_in_words(tmp_path, capsys, header, message):
    (tmp_path / "tiny.partial.jsonl").write_text(header + "\n")
    assert main([*TINY, "--out", str(tmp_path), "--quiet", "--resume"]) == 2
    assert message in _one_line(capsys.readouterr().err)


def test_a_trial_log_larger_than_any_run_is_refused_unread(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runner, "MAX_BENCHMARK_TABLE_BYTES", 1_000)
    (tmp_path / "tiny.partial.jsonl").write_text("x" * 2_000 + "\n")
    assert main([*TINY, "--out", str(tmp_path), "--quiet", "--resume"]) == 2
    assert "has more than 1,000 bytes" in _one_line(capsys.readouterr().err)
