"""Twenty tabs of the heaviest link at once, against a real server: queued or refused, never killed.

Issue 27: "the server process's memory has a ceiling it never passes whatever the
sessions ask (20 tabs of the heaviest page included: refused or queued, never killed)".
Each tab is a websocket session (the protocol of ``perf/bench_class.py``) opening a share
link whose dataset and model are the largest the work budgets admit, each with its own
seed so that no two tabs share a job. The script holds the tabs open for ``--hold``
seconds, sampling the server, then closes them all and watches the work stop.

It prints, each beside its goal:

* the server's peak resident memory against ``curvedtrees.limits.MAX_SERVER_MEMORY_BYTES``
  (the worker pool admits a job only while the server and its workers stay below it);
* what every tab was told: running, waiting for a free worker (with its place), waiting
  for memory, or refused with a reason; none may see a traceback or lose its connection;
* that the server answered its health check every second of the run;
* after the tabs close: how long until no job runs (every queued and running job of the
  tabs released and killed) and the server's CPU rate back near idle, and its memory.

Usage::

    python perf/bench_heavy_tabs.py                 # 20 tabs, held 45 s
    python perf/bench_heavy_tabs.py --tabs 5 --hold 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_class import CONFIGS, ROOT, MemoryWatch, Server, Student
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

sys.path.insert(0, str(ROOT))
from curvedtrees import limits
from curvedtrees.costs import Budget, BudgetExceeded

from ui.data import build_dataset, synthetic_recipe
from ui.training import recipe_cost

GOALS = {"stop_seconds": 5.0}
ROWS = 20_000  # the largest synthetic mixture a link may ask for (curvedtrees.limits.MAX_SYNTHETIC_SAMPLES)
# Wide components and every pair of coordinates as split planes: the most work per tree
# that a link can ask for within the synthetic data's limits.
SIGNATURE = "H8 x S8 x E8"
PARAMS = {"pairs": "all"}


def heaviest_link(seed: int) -> str:
    """A share link to the largest forest the work budgets admit on a large mixture (one seed per tab)."""
    data_recipe = synthetic_recipe(SIGNATURE, ROWS, 6, seed=seed)
    data = build_dataset(data_recipe)
    budget = Budget()
    low, high = 1, 500  # the Train form's largest forest
    while low < high:  # the most trees whose estimate fits every budget (CPU, memory, result)
        middle = (low + high + 1) // 2
        params = {**PARAMS, "n_estimators": middle}
        recipe = {"family": "product_forest", "params": params, "test_size": 0.25, "seed": seed}
        try:
            recipe_cost(data, recipe).check(budget)
            low = middle
        except BudgetExceeded:
            high = middle - 1
    model = {"family": "product_forest", "params": {**PARAMS, "n_estimators": low}, "test_size": 0.25, "seed": seed}
    query = {"data": json.dumps(data_recipe, separators=(",", ":")), "model": json.dumps(model, separators=(",", ":"))}
    return urllib.parse.urlencode(query), low, recipe_cost(data, model)


async def tab(url: str, query: str, hold: float, record: dict) -> None:
    """Open ``query`` on the Train page, read what the page says for ``hold`` seconds, then leave."""
    record["texts"] = []
    try:
        async with Student(url) as session:
            from streamlit.proto.BackMsg_pb2 import BackMsg

            message = BackMsg()
            message.rerun_script.query_string = query
            message.rerun_script.page_name = "Train"
            await session.ws.send(message.SerializeToString())
            deadline = time.monotonic() + hold
            while time.monotonic() < deadline:
                try:
                    data = await asyncio.wait_for(session.ws.recv(), max(0.1, deadline - time.monotonic()))
                except TimeoutError:
                    break
                forward = ForwardMsg()
                forward.ParseFromString(data)
                if forward.WhichOneof("type") == "delta" and forward.delta.WhichOneof("type") == "new_element":
                    element = forward.delta.new_element
                    which = element.WhichOneof("type")
                    if which in ("markdown", "alert"):
                        record["texts"].append(getattr(element, which).body)
                    elif which == "exception":
                        record["texts"].append("EXCEPTION " + element.exception.message)
                    elif which == "spinner":
                        record["texts"].append(element.spinner.text)
        record["connected"] = True
    except Exception as exc:  # the bench reports a lost connection; it must not happen
        record["connected"] = False
        record["error"] = repr(exc)


def classify(text: str) -> str | None:
    """One status line of the page, in a word (None for other text)."""
    text = text.lower()
    if "exception" in text or "traceback" in text:
        return "traceback"
    if "busy" in text:
        return "refused (busy)"
    if "could not be rebuilt" in text:
        return "refused"
    if "waiting for the server's memory" in text:
        return "waiting for memory"
    if "waiting for a free worker" in text:
        return "queued"
    if "training the model (" in text:
        return "training"
    if "sampling the dataset (" in text:
        return "sampling"
    return None


def told(record: dict) -> str:
    """What a tab was told last (a traceback, anywhere, wins)."""
    words = [w for w in map(classify, record["texts"]) if w is not None]
    if "traceback" in words:
        return "traceback"
    return words[-1] if words else "rebuilding"


class Health:
    """Asks the server's health endpoint every second; counts the misses."""

    def __init__(self, port: int):
        self.port, self.asked, self.missed, self._stop = port, 0, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(1.0):
            self.asked += 1
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=5) as reply:
                    self.missed += reply.status != 200
            except OSError:
                self.missed += 1

    def stop(self):
        self._stop.set()
        self._thread.join()


def workers(server: Server) -> list[psutil.Process]:
    """The pool's job processes, alive now: the children of its template process (``ui.worker_template``)."""
    found = []
    for child in server.process.children():
        try:
            if "worker_template" in " ".join(child.cmdline()):
                found += [job for job in child.children() if job.status() != psutil.STATUS_ZOMBIE]
        except psutil.Error:
            pass
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tabs", type=int, default=20)
    parser.add_argument("--hold", type=float, default=45.0, help="seconds every tab stays open")
    args = parser.parse_args(argv)
    links = [heaviest_link(seed) for seed in range(1, args.tabs + 1)]
    trees, cost = links[0][1], links[0][2]
    print(f"{args.tabs} tabs, each a share link to a {trees}-tree product forest on {ROWS:,} rows "
          f"of {SIGNATURE}, pairs=all "
          f"(estimated {cost.cpu_seconds:.0f} CPU-s and {cost.memory_bytes / 2**20:.0f} MiB each; budget "
          f"{limits.MAX_JOB_CPU_SECONDS:.0f} CPU-s); {limits.JOB_WORKERS} workers", flush=True)  # fmt: skip
    server = Server(CONFIGS["new"])
    try:
        # The first visitor starts the pool's template; give it its few seconds before the rush.
        asyncio.run(tab(server.url, "", 20.0, {}))
        rss_start = server.rss()
        watch, health = MemoryWatch(server), Health(server.port)
        records = [{} for _ in links]

        async def everyone():
            await asyncio.gather(*(tab(server.url, q, args.hold, r) for (q, _, _), r in zip(links, records)))

        busiest = [0]

        def count_jobs():
            while not health._stop.is_set():
                busiest[0] = max(busiest[0], len(workers(server)))
                time.sleep(0.5)

        counter = threading.Thread(target=count_jobs, daemon=True)
        counter.start()
        asyncio.run(everyone())
        closed = time.monotonic()
        # The tabs are gone: every job of theirs must stop within seconds.
        stopped = None
        while time.monotonic() - closed < 60:
            if not workers(server):
                stopped = time.monotonic() - closed
                break
            time.sleep(0.1)
        cpu0, t0 = server.cpu(), time.monotonic()
        time.sleep(5)
        idle_rate = (server.cpu() - cpu0) / (time.monotonic() - t0)
        health.stop()
        peak = watch.stop()
        rss_end = server.rss()
        alive = server.proc.poll() is None
    finally:
        server.stop()
    mib = 2**20
    outcomes: dict[str, int] = {}
    for record in records:
        outcomes[told(record)] = outcomes.get(told(record), 0) + 1
    lost = sum(not r.get("connected") for r in records)
    reasons = sorted({t for r in records if told(r).startswith("refused") for t in r["texts"] if "rebuilt" in t})
    for reason in reasons[:3]:
        print(f"  a refusal: {reason[:300]}")
    trained = sum(any(classify(t) == "training" for t in r["texts"]) for r in records)
    print(f"tabs whose model started training while they were open: {trained}")
    print(f"what the tabs were told last: {', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))}; "
          f"connections lost: {lost} (goal 0); tracebacks: {outcomes.get('traceback', 0)} (goal 0)")  # fmt: skip
    print(f"job processes alive at once: at most {busiest[0]} ({limits.JOB_WORKERS} workers; a finished job's "
          "process may still be exiting as the next one starts)")  # fmt: skip
    ceiling = limits.MAX_SERVER_MEMORY_BYTES
    print(f"server memory: {rss_start / mib:.0f} MiB before, peak {peak / mib:.0f} MiB (ceiling "
          f"{ceiling / mib:.0f} MiB: peak / ceiling = {peak / ceiling:.2f},"
          f" goal <= 1), {rss_end / mib:.0f} MiB after the tabs closed")  # fmt: skip
    print(f"server alive: {alive}; health checks missed: {health.missed} of {health.asked} (goal 0)")
    when = "never (60 s)" if stopped is None else f"{stopped:.2f} s"
    print(f"after the tabs closed: no job running after {when} (goal <= {GOALS['stop_seconds']:g} s); "
          f"server CPU rate then {idle_rate:.3f} CPU-s per s")  # fmt: skip
    ok = (
        alive
        and not lost
        and not outcomes.get("traceback")
        and peak <= limits.MAX_SERVER_MEMORY_BYTES
        and stopped is not None
        and stopped <= GOALS["stop_seconds"]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
