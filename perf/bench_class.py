"""A class arrives: 30 websocket sessions open the same lesson within 3 s, against a real server.

Goals (issue 27), each measured in the same run against a reference from that run:

* first picture: p95 over the class at most 3x a single session's time (a lone session on
  the same, already warm, server);
* server CPU per additional session at most 10% of the first session's (the first
  session of a fresh server, which pays for the lesson's shared dataset, models and
  pictures);
* resident memory back within 10% of its start (before the class) some minutes after the
  class has left (5 minutes; ``--rss-wait`` for a quicker look).

Each session is a Streamlit client speaking the websocket protocol of
``/_stcore/stream`` (``streamlit.proto`` BackMsg / ForwardMsg, as the browser does): it
asks for ``/Lessons?lesson=poincare-geodesics&step=2`` and waits for the first Plotly
chart, then steps to the next step, then opens the Train page and clicks **Train** on the
default model, as a student would, and leaves (``--open-only``: it opens the lesson and leaves;
the single sessions that serve as references do the same). Server CPU is the CPU time of the server's
whole process tree (the server, the worker pool's template, finished jobs) from
``psutil``; memory is the server process's resident size.

Two configurations are compared, each on a fresh server: ``old``, Streamlit's defaults
(the file watcher on, a full garbage collection after every script run), and ``new``, the
repository's ``.streamlit/config.toml`` (what ``make serve`` runs). The machine is shared:
the script prints the load average at the start of each run.

Usage::

    python perf/bench_class.py                          # both configurations (about 15 minutes)
    python perf/bench_class.py --config new --rss-wait 60
    python perf/bench_class.py --quick                  # 10 sessions, 30 s memory wait, both configurations
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[1]
LESSON = "lesson=poincare-geodesics&step=2"
NEXT_STEP = "lesson=poincare-geodesics&step=3"
# Streamlit's defaults for the two settings the profile pointed at; "new" adds nothing
# to the repository's config.toml.
CONFIGS = {
    "old": ["--server.fileWatcherType", "auto", "--runner.postScriptGC", "true"],
    "new": [],
}
GOALS = {"p95": 3.0, "cpu": 0.10, "rss": 1.10}
FINISHED = 0  # ScriptFinishedStatus.FINISHED_SUCCESSFULLY


# ------------------------------------------------------------------ the server
class Server:
    """``streamlit run app.py`` on a free port, with the CPU and memory of its process tree at hand."""

    def __init__(self, extra_args, root: Path = ROOT, pythonpath: str | None = None):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        self.log = open(ROOT / "test-artifacts" / f"bench-class-server-{self.port}.log", "wb")  # closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(self.port),
             "--browser.gatherUsageStats", "false", *extra_args],
            cwd=root, stdout=self.log, stderr=subprocess.STDOUT,
            env={**os.environ, **({"PYTHONPATH": pythonpath} if pythonpath else {})},
        )  # fmt: skip
        self.process = psutil.Process(self.proc.pid)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/_stcore/stream"

    def cpu(self) -> float:
        """CPU seconds of the server's process tree, reaped children included."""
        total = 0.0
        for proc in [self.process, *self.process.children(recursive=True)]:
            try:
                t = proc.cpu_times()
                total += t.user + t.system + t.children_user + t.children_system
            except psutil.Error:
                pass
        return total

    def rss(self) -> int:
        return self.process.memory_info().rss

    def stop(self) -> None:
        for child in self.process.children(recursive=True):
            try:
                child.kill()
            except psutil.Error:
                pass
        self.proc.kill()
        self.proc.wait(30)
        self.log.close()


class MemoryWatch:
    """Samples the server's resident size four times a second; ``peak`` is the largest seen."""

    def __init__(self, server: Server):
        self.server, self.peak, self._stop = server, server.rss(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(0.25):
            try:
                self.peak = max(self.peak, self.server.rss())
            except psutil.Error:
                return

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


# ------------------------------------------------------------------ one student
class Student:
    """One browser session, spoken to in Streamlit's websocket protocol."""

    def __init__(self, url: str):
        self.url = url
        self.page_hash = ""
        self.buttons: dict[str, str] = {}
        self.texts: list[str] = []

    async def __aenter__(self):
        self.ws = await websockets.connect(
            self.url, subprotocols=["streamlit"], max_size=None, compression=None, open_timeout=120,
            ping_interval=None,
        )  # fmt: skip
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    async def run(self, query: str, page: str = "", trigger: str | None = None, timeout: float = 600) -> float | None:
        """Ask for a script run; return the seconds to its first Plotly chart (None if it drew none)."""
        message = BackMsg()
        message.rerun_script.query_string = query
        message.rerun_script.page_name = page
        if trigger is not None:
            widget = message.rerun_script.widget_states.widgets.add()
            widget.id, widget.trigger_value = self.buttons[trigger], True
        started = time.monotonic()
        await self.ws.send(message.SerializeToString())
        chart = None
        self.buttons, self.texts = {}, []
        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout)
            forward = ForwardMsg()
            forward.ParseFromString(data)
            kind = forward.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = forward.new_session.page_script_hash
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                which = element.WhichOneof("type")
                if which == "plotly_chart" and chart is None:
                    chart = time.monotonic() - started
                elif which == "button":
                    self.buttons[element.button.label] = element.button.id
                elif which in ("markdown", "alert"):
                    self.texts.append(getattr(element, which).body)
            elif kind == "script_finished" and forward.script_finished == FINISHED:
                return chart


async def student(url: str, delay: float, results: list, train: bool, step: bool = True) -> None:
    await asyncio.sleep(delay)
    record = {"step": 0.0}
    async with Student(url) as session:
        record["first"] = await session.run(LESSON, "Lessons")
        if step:
            started = time.monotonic()
            await session.run(NEXT_STEP, "Lessons")
            record["step"] = time.monotonic() - started
        if train:
            await session.run("", "Train")
            started = time.monotonic()
            await session.run("", "Train", trigger="Train")
            record["train"] = time.monotonic() - started
            record["trained"] = any("Trained in" in t for t in session.texts)
    results.append(record)


def class_of(url: str, n: int, spread: float, train: bool, step: bool = True) -> list[dict]:
    results: list[dict] = []
    rng = random.Random(0)

    async def everyone():
        await asyncio.gather(*(student(url, rng.uniform(0, spread), results, train, step) for _ in range(n)))

    asyncio.run(everyone())
    return results


# ------------------------------------------------------------------ one configuration
def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def measure(
    name: str, n: int, spread: float, rss_wait: float, train: bool, root: Path = ROOT, pythonpath=None, step=True
) -> dict:
    where = "" if root == ROOT else f" of the checkout in {root}"
    print(f"\n== configuration {name!r}{where} ({' '.join(CONFIGS[name]) or 'config.toml as it is'}); "
          f"load average {os.getloadavg()[0]:.2f} ==", flush=True)  # fmt: skip
    server = Server(CONFIGS[name], root, pythonpath)
    try:
        cpu0 = server.cpu()
        first = class_of(server.url, 1, 0.0, train, step)[0]
        cpu_first = server.cpu() - cpu0
        cpu1 = server.cpu()
        single = class_of(server.url, 1, 0.0, train, step)[0]
        cpu_single = server.cpu() - cpu1
        time.sleep(3)
        rss_start = server.rss()
        watch = MemoryWatch(server)
        cpu2 = server.cpu()
        burst = class_of(server.url, n, spread, train, step)
        cpu_burst = (server.cpu() - cpu2) / n
        peak = watch.stop()
        left = time.monotonic()
        rss_samples = []
        while time.monotonic() - left < rss_wait:
            time.sleep(min(10.0, rss_wait))
            rss_samples.append(server.rss())
        rss_end = server.rss()
    finally:
        server.stop()
    firsts = [r["first"] for r in burst if r["first"] is not None]
    out = {
        "first_cold": first["first"],
        "single": single["first"],
        "p50": statistics.median(firsts),
        "p95": percentile(firsts, 0.95),
        "step_p95": percentile([r["step"] for r in burst], 0.95),
        "train_p95": percentile([r["train"] for r in burst], 0.95) if train else None,
        "trained": sum(r.get("trained", False) for r in burst),
        "cpu_first": cpu_first,
        "cpu_single": cpu_single,
        "cpu_per_session": cpu_burst,
        "rss_start": rss_start,
        "rss_peak": peak,
        "rss_end": rss_end,
        "missing_charts": n - len(firsts),
    }
    mib = 2**20
    print(f"first picture: cold first session {out['first_cold']:.2f} s, single (warm) session {out['single']:.2f} s;"
          f" {n} sessions: p50 {out['p50']:.2f} s, p95 {out['p95']:.2f} s"
          f" (p95 / single = {out['p95'] / out['single']:.2f}, goal <= {GOALS['p95']:g})")  # fmt: skip
    step = f"next step p95 {out['step_p95']:.2f} s"
    if train:
        step += f"; training p95 {out['train_p95']:.2f} s ({out['trained']} of {n} trained)"
    print(step)
    ratio = cpu_burst / cpu_first
    print(f"server CPU: first session {cpu_first:.2f} s, a single warm session {cpu_single:.2f} s, per session of the"
          f" class {cpu_burst:.3f} s (per session / first = {ratio:.3f}, goal <= {GOALS['cpu']:g})")  # fmt: skip
    ratio = rss_end / rss_start
    print(f"server RSS: {rss_start / mib:.0f} MiB before the class, peak {peak / mib:.0f} MiB, {rss_end / mib:.0f} MiB"
          f" {rss_wait:.0f} s after it left (after / before = {ratio:.3f}, goal <= {GOALS['rss']:g})")  # fmt: skip
    if out["missing_charts"]:
        print(f"WARNING: {out['missing_charts']} sessions drew no chart")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", choices=["old", "new", "both"], default="both")
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--spread", type=float, default=3.0, help="seconds over which the sessions arrive")
    parser.add_argument("--rss-wait", type=float, default=300.0, help="seconds to wait after the class left")
    parser.add_argument("--no-train", action="store_true", help="students do not train a model")
    parser.add_argument(
        "--open-only", action="store_true", help="the class only opens the lesson (no step, no training)"
    )
    parser.add_argument("--quick", action="store_true", help="10 sessions, 30 s memory wait")
    parser.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="serve the app of another checkout (for example an export of an older commit), with this venv",
    )
    parser.add_argument("--pythonpath", help="PYTHONPATH for that server (a folder whose curvedtrees is that engine)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sessions, args.rss_wait = 10, 30.0
    names = ["old", "new"] if args.config == "both" else [args.config]
    results = {
        name: measure(
            name,
            args.sessions,
            args.spread,
            args.rss_wait,
            not (args.no_train or args.open_only),
            args.root,
            args.pythonpath,
            step=not args.open_only,
        )
        for name in names
    }
    print("\n| configuration | single first picture | class p50 / p95 | p95 / single | CPU first / per session |"
          " per session / first | RSS before / peak / after | after / before |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        mib = 2**20
        print(f"| {name} | {r['single']:.2f} s | {r['p50']:.2f} / {r['p95']:.2f} s | {r['p95'] / r['single']:.2f} |"
              f" {r['cpu_first']:.2f} / {r['cpu_per_session']:.3f} s | {r['cpu_per_session'] / r['cpu_first']:.3f} |"
              f" {r['rss_start'] / mib:.0f} / {r['rss_peak'] / mib:.0f} / {r['rss_end'] / mib:.0f} MiB |"
              f" {r['rss_end'] / r['rss_start']:.3f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
