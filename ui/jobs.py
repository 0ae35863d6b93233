"""Heavy work off the server's request threads: a bounded pool of worker processes.

Pure module (no Streamlit); :mod:`ui.work` is the pages' side of it.

* **Bounded.** One pool per server process (:func:`pool`) runs
  :data:`curvedtrees.limits.JOB_WORKERS` jobs at a time; the others wait in one queue
  (first come, first served, at most :data:`~curvedtrees.limits.MAX_QUEUED_JOBS`), and
  a waiter can ask its place in it.
* **Isolated.** A job runs in a child process forked from a template process
  (:mod:`ui.worker_template`, started once per server) that imported the engine and
  compiled its kernels: nothing of the server is forked, a job costs a fork rather than
  an interpreter start, and all its memory returns to the system when it exits.
* **Limited.** Before the task starts the child limits itself: CPU time (``RLIMIT_CPU``,
  the job's budget times :data:`~curvedtrees.limits.JOB_CPU_GRACE`; the kernel stops it
  with SIGXCPU), address space (``RLIMIT_AS``: the template's plus
  :data:`~curvedtrees.limits.MAX_JOB_MEMORY_BYTES` and headroom for imports), and a
  lower priority than the server's request threads (nice 5).
* **Shared and cancellable.** Jobs with the same key (a content address of a public
  recipe) run once, whoever asks; each asker holds a :class:`Ticket`. A job that no
  ticket holds any more is cancelled: dropped from the queue, or its process killed
  (SIGKILL) within one tick of the dispatcher (0.05 s). Pages release their tickets when
  the visitor leaves or the page reruns, so leaving stops the work.
* **Safe results.** Results come back through a pipe as :mod:`ui.transport` messages
  (JSON and NumPy arrays, never pickle), at most
  :data:`~curvedtrees.limits.MAX_RESULT_BYTES`; progress comes as JSON. Arguments go the
  other way as pickles made by the server, which the child trusts.
* **Within the server's memory.** No job starts while the server's resident memory plus
  what the running jobs will hand back would pass
  :data:`~curvedtrees.limits.MAX_SERVER_MEMORY_BYTES`: it waits (its ticket says why) and
  is refused after :data:`MEMORY_WAIT_SECONDS`.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from curvedtrees import limits

from ui import transport

__all__ = [
    "MEMORY_WAIT_SECONDS",
    "TASKS",
    "JobError",
    "JobPool",
    "ServerBusy",
    "Ticket",
    "pool",
    "server_memory",
]

logger = logging.getLogger(__name__)

# The tasks a job may run: name -> (module, function). The server chooses among these;
# the child imports the function by name and calls it with the job's arguments.
TASKS = {
    "build_dataset": ("ui.data", "build_dataset"),
    "load_dataset": ("ui.data", "load_builtin"),
    "train": ("ui.training", "train_from_recipe"),
    "fit": ("ui.training", "fit_and_score"),
    "train_side": ("ui.side_by_side", "train_side"),
    "read_graph": ("ui.graph_upload", "read_upload"),
    "embed_graph": ("ui.graph_upload", "embed"),
    "burn": ("ui.jobs", "burn"),
}
# Modules whose input limits (their MAX_* names) a job takes from the server, so that the
# worker enforces exactly the limits the server states on its pages, whatever the template
# read when it started (a server whose limits were changed at run time, a test's limits).
LIMIT_MODULES = (
    "curvedtrees.limits",
    "curvedtrees.datasets.graph_files",
    "curvedtrees.trees._features",
    "ui.data",
    "ui.graph_upload",
    "ui.uploads",
)
# How long a job may wait for the server's memory to come back before it is refused.
MEMORY_WAIT_SECONDS = 120.0
# Address space a worker may add to the template's beyond the job's memory budget: importing
# torch reserves about 0.5 GB of it, and every thread an 8 MB stack.
_ADDRESS_HEADROOM = 1536 * 2**20
_TICK = 0.05  # seconds between the dispatcher's looks at the queue and the workers
_MESSAGE_SLACK = 1 * 2**20  # a result message's framing on top of MAX_RESULT_BYTES


class JobError(ValueError):
    """A job that did not produce its result; ``str(error)`` is a plain sentence for the visitor."""


class ServerBusy(JobError):
    """A job refused or stopped because the server is busy or full (not because of what it asked)."""


# ------------------------------------------------------------------------ the child
def _preload() -> None:
    """What the template process imports once, so that every forked job finds it ready."""
    import curvedtrees.datasets
    import curvedtrees.klein
    import curvedtrees.trees

    import ui.data
    import ui.graph_upload
    import ui.training  # noqa: F401

    try:  # numba loads (or compiles) the kernels here, once, instead of in every job
        curvedtrees.trees.warm_up()
        curvedtrees.klein.warm_up()
    except Exception:  # a failed warm-up only makes the first job slower
        logger.exception("the worker template's warm-up failed")


def _set_limits(cpu_seconds: float, memory_bytes: int) -> None:
    import resource

    def limit(kind, soft: int, hard: int) -> None:
        # A server that itself runs under limits (a test's child, a container) passes them down:
        # a process may lower its hard limits, never raise them.
        ceiling = resource.getrlimit(kind)[1]
        if ceiling != resource.RLIM_INFINITY:
            soft, hard = min(soft, ceiling), min(hard, ceiling)
        resource.setrlimit(kind, (soft, hard))

    os.nice(5)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    cpu = max(1, math.ceil(cpu_seconds))
    # Soft limit: SIGXCPU (the job is stopped); hard limit two seconds later: SIGKILL.
    limit(resource.RLIMIT_CPU, cpu, cpu + 2)
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    address = pages * os.sysconf("SC_PAGE_SIZE") + int(memory_bytes) + _ADDRESS_HEADROOM
    limit(resource.RLIMIT_AS, address, address)


def _run_child(request_fd: int, result_fd: int) -> int:
    """A job's process (forked by the template): read the request, limit itself, run the task, reply.

    The request is a pickle written by the server (``(module, function, args, kwargs,
    progress_arg, (cpu_seconds, memory_bytes), server_limits)``); replies are frames of one kind byte
    (``P`` progress, ``R`` result, ``E`` error), an 8-byte length and the payload:
    JSON, or a :mod:`ui.transport` message for the result. Returns the exit code.
    """
    import importlib

    with os.fdopen(result_fd, "wb", buffering=0) as out:

        def send(kind: bytes, payload: bytes) -> None:
            out.write(kind + struct.pack("<Q", len(payload)))
            out.write(payload)

        try:
            with os.fdopen(request_fd, "rb") as request:
                module, function, args, kwargs, progress_arg, budget, server_limits = pickle.load(request)
            _set_limits(*budget)
            _apply_limits(server_limits)
            task = getattr(importlib.import_module(module), function)
            if progress_arg:
                kwargs = dict(kwargs)
                kwargs[progress_arg] = lambda *values: send(b"P", json.dumps(_plain(values)).encode())
            value = task(*args, **kwargs)
            message = transport.encode(value)
            if len(message) > limits.MAX_RESULT_BYTES:
                raise JobError(
                    f"the result is {len(message) / 2**20:,.0f} MB, above the "
                    f"{limits.MAX_RESULT_BYTES / 2**20:,.0f} MB a result may take on the server: ask for a smaller "
                    "model or less data"
                )
            send(b"R", message)
        except MemoryError:
            send(b"E", json.dumps({"kind": "MemoryError", "message": ""}).encode())
        except BaseException as exc:  # every failure is reported in words; the server decides what to show
            send(b"E", json.dumps({"kind": type(exc).__name__, "message": str(exc)[:4000]}).encode())
    return 0


def _server_limits() -> dict:
    """The server's values of the input limits of :data:`LIMIT_MODULES` (those it has imported)."""
    found = {}
    for name in LIMIT_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            found[name] = {
                k: v for k, v in vars(module).items() if k.startswith("MAX_") and isinstance(v, (int, float))
            }
    return found


def _apply_limits(server_limits: dict) -> None:
    # Only modules the template has loaded: importing one here (pandas, for ui.uploads) would cost
    # every job its import, and the tasks only read the modules the template preloads.
    for name, values in server_limits.items():
        module = sys.modules.get(name)
        if module is not None:
            for key, value in values.items():
                setattr(module, key, value)


def _plain(values):
    out = []
    for v in values:
        try:
            out.append(float(v) if not isinstance(v, (int, str)) else v)
        except (TypeError, ValueError):
            out.append(None)
    return out


def burn(cpu_seconds: float = 0.0, megabytes: int = 0, progress=None) -> dict:
    """A task that spins the CPU and holds memory (for the pool's tests and the serving benchmark)."""
    import numpy as np

    held = np.ones(int(megabytes) * 2**17) if megabytes else None  # 2**17 float64 per MiB
    start = time.process_time()
    step = 0
    while time.process_time() - start < cpu_seconds:
        sum(range(10_000))
        step += 1
        if progress is not None and step % 200 == 0:
            progress(step, time.process_time() - start)
    return {"steps": step, "held": 0 if held is None else int(held.nbytes)}


# ------------------------------------------------------------------------ the parent
def server_memory() -> int:
    """Resident memory of this process, in bytes (Linux ``/proc/self/statm``)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclass(eq=False)
class _Job:
    key: str
    task: str
    args: tuple
    kwargs: dict
    label: str
    cpu_seconds: float
    memory_bytes: int
    result_bytes: int
    progress_arg: str | None
    created: float = field(default_factory=time.monotonic)
    number: int = 0
    state: str = "queued"  # queued, running, done, failed, cancelled
    holders: int = 0
    pid: int | None = None
    exit_code: int | None = None
    finished: bool = False  # the result or an error arrived (or the pipe closed without either)
    reply: tuple | None = None  # ("done", message) or ("error", details), from the job's reader
    started: float | None = None
    message: bytes | None = None
    value: object = None
    decoded: bool = False
    error: JobError | None = None
    events: list = field(default_factory=list)
    waiting_for_memory: bool = False
    memory_since: float = 0.0  # when it first found the server's memory too full to start
    done: threading.Event = field(default_factory=threading.Event)
    decode_lock: threading.Lock = field(default_factory=threading.Lock)


class Ticket:
    """One asker's hold on a job: its place, its progress and its result.

    Release the ticket (:meth:`release`, or use it as a context manager) when the result
    is no longer wanted; a job that no ticket holds is cancelled.
    """

    def __init__(self, owner: JobPool, job: _Job):
        self._pool, self._job = owner, job
        self._seen = 0
        self._released = False

    @property
    def label(self) -> str:
        return self._job.label

    @property
    def state(self) -> str:
        """``"queued"``, ``"running"``, ``"done"``, ``"failed"`` or ``"cancelled"``."""
        return self._job.state

    def position(self) -> int:
        """Jobs ahead of this one in the queue, plus one (0 once it runs or is over)."""
        return self._pool._position(self._job)

    def waiting_for_memory(self) -> bool:
        """Whether the job is held back because the server's memory is near its ceiling."""
        return self._job.waiting_for_memory

    def elapsed(self) -> float:
        """Seconds since the job started running (0 while it waits)."""
        started = self._job.started
        return 0.0 if started is None else time.monotonic() - started

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job is over or ``timeout`` seconds pass; whether it is over."""
        return self._job.done.wait(timeout)

    def events(self) -> list:
        """Progress values the task reported since the last call (each a list of numbers)."""
        events = self._job.events
        new = events[self._seen :]
        self._seen += len(new)
        return new

    def result(self, timeout: float | None = None):
        """The job's value (shared by every ticket of the job; treat it as read-only).

        Raises
        ------
        JobError
            The job failed, was refused or cancelled, or did not finish within ``timeout``.
        """
        if not self._job.done.wait(timeout):
            raise JobError(f"{self._job.label} has not finished yet")
        job = self._job
        if job.error is not None:
            raise job.error
        with job.decode_lock:
            if not job.decoded:
                try:
                    job.value = transport.decode(job.message, limits.MAX_RESULT_BYTES + _MESSAGE_SLACK)
                except transport.TransportError as exc:
                    job.error = JobError(f"{job.label} sent back a result that was refused ({exc})")
                    raise job.error from None
                finally:
                    job.message = None
                job.decoded = True
        return job.value

    def release(self) -> None:
        """Give up this ticket; the job is cancelled when no ticket holds it any more."""
        if not self._released:
            self._released = True
            self._pool._release(self._job)

    def __enter__(self) -> Ticket:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class JobPool:
    """Worker processes for heavy work (see the module's notes).

    Parameters
    ----------
    workers : int, default :data:`curvedtrees.limits.JOB_WORKERS`
        Jobs that run at a time.
    max_queued : int, default :data:`curvedtrees.limits.MAX_QUEUED_JOBS`
        Jobs that may wait; beyond, :meth:`submit` raises :class:`ServerBusy`.
    memory_ceiling : int, default :data:`curvedtrees.limits.MAX_SERVER_MEMORY_BYTES`
        The server's resident memory above which no job starts.
    """

    def __init__(
        self,
        workers: int = limits.JOB_WORKERS,
        max_queued: int = limits.MAX_QUEUED_JOBS,
        memory_ceiling: int = limits.MAX_SERVER_MEMORY_BYTES,
    ):
        self.workers = int(workers)
        self.max_queued = int(max_queued)
        self.memory_ceiling = int(memory_ceiling)
        self._lock = threading.RLock()
        self._queue: deque[_Job] = deque()
        self._running: list[_Job] = []
        self._by_key: dict[str, _Job] = {}
        self._numbers = itertools.count(1)
        self._thread: threading.Thread | None = None
        self._template: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        self._ready = False
        self._launched: dict[int, _Job] = {}
        self._stopped = False
        # A byte written here wakes the dispatcher from its wait on the template's socket at once
        # (a submit, a release, a reply), instead of at its next tick.
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)

    # ------------------------------------------------------------------ public
    def submit(
        self,
        task: str,
        *args,
        key: str | None = None,
        label: str = "the job",
        cpu_seconds: float = limits.MAX_JOB_CPU_SECONDS,
        memory_bytes: int = limits.MAX_JOB_MEMORY_BYTES,
        result_bytes: int = 0,
        progress_arg: str | None = None,
        **kwargs,
    ) -> Ticket:
        """Queue ``TASKS[task](*args, **kwargs)`` (or join the job of the same ``key``) and return a ticket.

        Parameters
        ----------
        task : str
            A key of :data:`TASKS`.
        key : str, optional
            A content address: asks with the same key share one job (give it only for
            work that depends on nothing but public inputs).
        label : str
            What the job does, for messages ("training the model").
        cpu_seconds : float
            The job's estimated CPU budget; the process is stopped at
            ``JOB_CPU_GRACE`` times it.
        memory_bytes : int
            Its working memory budget (the address-space limit adds the template's).
        result_bytes : int
            The estimated size of its result, held against the server's memory.
        progress_arg : str, optional
            Name of the task's keyword that takes a progress callback.

        Raises
        ------
        ServerBusy
            The queue is full.
        """
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}")
        with self._lock:
            if key is not None and key in self._by_key and self._by_key[key].state in ("queued", "running"):
                job = self._by_key[key]
            else:
                if len(self._queue) >= self.max_queued:
                    raise ServerBusy(
                        f"the server is busy: {len(self._queue):,} jobs are waiting for a worker. Try again in a minute"
                    )
                job = _Job(
                    key=key or f"private:{next(self._numbers)}",
                    task=task,
                    args=args,
                    kwargs=kwargs,
                    label=label,
                    cpu_seconds=min(float(cpu_seconds), limits.MAX_JOB_CPU_SECONDS) * limits.JOB_CPU_GRACE,
                    memory_bytes=int(memory_bytes),
                    result_bytes=int(result_bytes),
                    progress_arg=progress_arg,
                    number=next(self._numbers),
                )
                self._queue.append(job)
                if key is not None:
                    self._by_key[key] = job
            job.holders += 1
            self._ensure_thread()
        self._wake()
        return Ticket(self, job)

    def stats(self) -> dict:
        """Queued and running jobs, the running jobs' process ids and the template's (for tests and benchmarks)."""
        with self._lock:
            return {
                "queued": len(self._queue),
                "running": len(self._running),
                "pids": [j.pid for j in self._running if j.pid is not None],
                "template": None if self._template is None else self._template.pid,
            }

    def start_template(self) -> None:
        """Start the template process now (it imports and compiles for a few seconds), not at the first job."""
        with self._lock:
            self._ensure_thread()

    # ------------------------------------------------------------------ internals
    def _position(self, job: _Job) -> int:
        with self._lock:
            if job.state != "queued":
                return 0
            for index, queued in enumerate(self._queue):
                if queued is job:
                    return index + 1
            return 0

    def _release(self, job: _Job) -> None:
        with self._lock:
            job.holders -= 1
            if job.holders <= 0 and job.state in ("queued", "running"):
                self._cancel(job, "cancelled")
        self._wake()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            pass  # a wake-up is already pending

    def _cancel(self, job: _Job, why: str) -> None:
        """Drop a queued job or kill a running one (called with the lock held)."""
        if job.state == "queued":
            self._queue.remove(job)
        elif job.state == "running":
            self._kill(job)
            self._running.remove(job)
        job.state = "cancelled"
        job.error = JobError(f"{job.label} was {why}")
        self._forget(job)
        job.done.set()

    def _forget(self, job: _Job) -> None:
        if self._by_key.get(job.key) is job:
            del self._by_key[job.key]

    def _kill(self, job: _Job) -> None:
        """Ask the template to kill the job's process (it does so only for its own live child)."""
        if job.pid is not None and job.exit_code is None and self._template is not None:
            self._control_send({"op": "kill", "pid": job.pid})

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._dispatch, name="curvedtrees-jobs", daemon=True)
            self._thread.start()

    # The template: a child process started once, and its control socket.
    def _start_template(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
        # glibc reserves 64 MB of address space per malloc arena and thread: two arenas keep
        # a worker's address space near what it uses (RLIMIT_AS counts it).
        env.setdefault("MALLOC_ARENA_MAX", "2")
        # OpenMP's threads (scikit-learn's HistGradientBoosting, LightGBM) sleep when idle instead of
        # spinning: spinning burns the CPU time RLIMIT_CPU counts, most on a busy machine.
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self._template = subprocess.Popen(
            [sys.executable, "-m", "ui.worker_template", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), cwd=root, env=env, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        theirs.close()
        self._control = ours
        self._ready = False

    def _control_send(self, message: dict, fds=()) -> None:
        try:
            if fds:
                socket.send_fds(self._control, [json.dumps(message).encode()], list(fds))
            else:
                self._control.send(json.dumps(message).encode())
        except OSError:
            logger.warning("the worker template did not take a message; it is restarted")

    def _template_alive(self) -> bool:
        return self._template is not None and self._template.poll() is None

    def _admissible(self, job: _Job) -> bool:
        pending = sum(j.result_bytes for j in self._running)
        return server_memory() + pending + job.result_bytes <= self.memory_ceiling

    def _launch(self, job: _Job) -> None:
        """Hand a job to the template (with the lock held); its thread writes the request and reads the reply."""
        module, function = TASKS[job.task]
        request = pickle.dumps(
            (
                module,
                function,
                job.args,
                job.kwargs,
                job.progress_arg,
                (job.cpu_seconds, job.memory_bytes),
                _server_limits(),
            ),
            protocol=pickle.HIGHEST_PROTOCOL,
        )
        job.args = job.kwargs = None  # the child gets them; the server need not hold them
        request_r, request_w = os.pipe()
        result_r, result_w = os.pipe()
        self._control_send({"op": "run", "job": job.number}, fds=(request_r, result_w))
        os.close(request_r)
        os.close(result_w)
        job.started = time.monotonic()
        job.state = "running"
        self._running.append(job)
        self._launched[job.number] = job
        threading.Thread(
            target=self._talk, args=(job, request, request_w, result_r), name=f"curvedtrees-job-{job.number}",
            daemon=True,
        ).start()  # fmt: skip

    def _talk(self, job: _Job, request: bytes, request_w: int, result_r: int) -> None:
        """A running job's own thread: write its request, then read its frames until it ends."""
        reply = None
        try:
            with os.fdopen(request_w, "wb") as pipe:
                pipe.write(request)
        except OSError:
            pass  # the child died before reading its request: its exit code says why
        del request
        try:
            with os.fdopen(result_r, "rb") as pipe:
                while reply is None:
                    head = pipe.read(9)
                    if len(head) < 9:
                        break
                    kind, (length,) = head[:1], struct.unpack("<Q", head[1:])
                    if length > limits.MAX_RESULT_BYTES + _MESSAGE_SLACK:
                        reply = ("error", {"kind": "TooLarge", "message": f"{length:,} bytes"})
                        break
                    payload = pipe.read(length)
                    if len(payload) < length:
                        break
                    if kind == b"P":
                        job.events.append(json.loads(payload))
                    elif kind == b"R":
                        reply = ("done", payload)
                    elif kind == b"E":
                        reply = ("error", json.loads(payload))
                    else:
                        reply = ("error", {"kind": "Protocol", "message": repr(kind)})
        except (OSError, ValueError):
            pass  # killed while sending: the exit code says why
        with self._lock:
            job.reply = reply
            job.finished = True
        self._wake()

    def _dispatch(self) -> None:
        while not self._stopped:
            try:
                self._dispatch_once()
            except Exception:  # the dispatcher must survive anything: jobs fail, the server does not
                logger.exception("the job dispatcher hit an error")
                time.sleep(_TICK)

    def _dispatch_once(self) -> None:
        with self._lock:
            if not self._template_alive():
                self._template_died()
                self._start_template()
            if self._ready:
                self._start_what_fits()
            self._finish_what_ended()
        readable, _, _ = select.select([self._control, self._wake_r], [], [], _TICK)
        if self._wake_r in readable:
            os.read(self._wake_r, 4096)
        if self._control in readable:
            try:
                data = self._control.recv(65536)
            except OSError:
                data = b""
            if data:
                self._on_template_message(json.loads(data))

    def _on_template_message(self, message: dict) -> None:
        with self._lock:
            op = message.get("op")
            if op == "ready":
                self._ready = True
            elif op == "started":
                job = self._launched.get(message["job"])
                if job is not None:
                    job.pid = int(message["pid"])
                    if job.state != "running":  # cancelled before the template said which process it is
                        self._control_send({"op": "kill", "pid": job.pid})
            elif op == "exit":
                pid, code = int(message["pid"]), int(message["code"])
                for number, job in list(self._launched.items()):
                    if job.pid == pid:
                        job.exit_code = code
                        del self._launched[number]
        self._wake()

    def _template_died(self) -> None:
        """Fail the running jobs of a template that is gone (with the lock held)."""
        if self._template is not None:
            logger.warning("the worker template exited (code %s); starting a new one", self._template.returncode)
            for job in list(self._running):
                self._running.remove(job)
                self._fail(job, JobError(f"the worker doing {job.label} was lost; try again"))
            self._launched.clear()
            self._control.close()

    def _start_what_fits(self) -> None:
        while self._queue and len(self._running) < self.workers:
            job = self._queue[0]
            if not self._admissible(job):
                if not job.waiting_for_memory:
                    job.waiting_for_memory, job.memory_since = True, time.monotonic()
                if not self._running and time.monotonic() - job.memory_since > MEMORY_WAIT_SECONDS:
                    self._queue.popleft()
                    self._fail(job, ServerBusy(
                        f"the server's memory is full with other visitors' work ({server_memory() / 2**30:.1f} GB): "
                        f"{job.label} could not start. Try again in a few minutes"
                    ))  # fmt: skip
                    continue
                return
            job.waiting_for_memory = False
            self._queue.popleft()
            self._launch(job)

    def _finish_what_ended(self) -> None:
        """Settle running jobs whose reply arrived, whose process ended, or that ran out of time."""
        now = time.monotonic()
        for job in list(self._running):
            if job.finished and (job.reply is not None or job.exit_code is not None):
                status, detail = job.reply if job.reply is not None else ("died", job.exit_code)
            elif now - job.started > 4 * job.cpu_seconds + 60:
                status, detail = "error", {"kind": "WallTime", "message": ""}
            else:
                continue
            self._running.remove(job)
            if status == "done":
                job.message, job.state = detail, "done"
                self._forget(job)
                job.done.set()
            else:
                self._kill(job)
                self._fail(job, self._explain(job, status, detail))

    def _fail(self, job: _Job, error: JobError) -> None:
        job.state, job.error = "failed", error
        self._forget(job)
        job.done.set()

    @staticmethod
    def _explain(job: _Job, status: str, detail) -> JobError:
        budget = job.cpu_seconds
        if status == "died":
            code = detail if isinstance(detail, int) else 0
            over_time = job.started is not None and time.monotonic() - job.started > budget
            if code == -signal.SIGXCPU or (code == -signal.SIGKILL and over_time):
                return JobError(
                    f"{job.label} was stopped after {budget:,.0f} CPU-seconds, far beyond what its parameters "
                    "promised: ask for less (fewer rows, trees or epochs)"
                )
            name = signal.Signals(-code).name if code < 0 and -code in signal.valid_signals() else f"exit {code}"
            return JobError(
                f"the worker doing {job.label} stopped unexpectedly ({name}); it may have run out of its "
                f"{job.memory_bytes / 2**30:.1f} GB of memory. The server itself is unaffected"
            )
        kind, message = detail.get("kind"), str(detail.get("message", "")).strip()
        if kind == "MemoryError":
            return JobError(
                f"{job.label} needed more than its {job.memory_bytes / 2**30:.1f} GB of memory: ask for less "
                "(fewer rows, a smaller signature or model)"
            )
        if kind == "TooLarge":
            return JobError(
                f"{job.label} produced a result of {message}, above the "
                f"{limits.MAX_RESULT_BYTES / 2**20:,.0f} MB a result may take on the server: ask for less"
            )
        if kind == "WallTime":
            return ServerBusy(f"{job.label} took too long on a busy server and was stopped. Try again in a minute")
        if kind in (
            "ValueError",
            "JobError",
            "BudgetExceeded",
            "TypeError",
            "KeyError",
            "Cancelled",
            "FloatingPointError",
        ):
            return JobError(message or kind)
        return JobError(f"{job.label} failed ({kind}: {message})")


_POOL: JobPool | None = None
_POOL_LOCK = threading.Lock()


def pool() -> JobPool:
    """This server process's pool (made on first use)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = JobPool()
        return _POOL
