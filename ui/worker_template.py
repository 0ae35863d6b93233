"""The worker pool's template process: it loads the engine once, then forks one child per job.

Pure module (no Streamlit). :class:`ui.jobs.JobPool` starts it as
``python -m ui.worker_template FD``, where ``FD`` is its end of a Unix socket pair
(``SOCK_SEQPACKET``: one message per send, file descriptors attached). It imports the
engine and the app's task modules and runs the tree kernels once (numba loads or
compiles them), so a job forked from it starts at once with nothing of the server in it.

The protocol, each message one JSON object:

* server -> template ``{"op": "run", "job": n}`` with two descriptors: the read end of the
  job's request pipe and the write end of its result pipe. The template forks; the child
  reads its request (a pickle written by the server) and writes its result frames (see
  :func:`ui.jobs._run_child`); the template replies ``{"op": "started", "job": n, "pid": p}``.
* server -> template ``{"op": "kill", "pid": p}``: SIGKILL to that child, only while it is
  the template's own unreaped child (so a reused pid is never hit).
* template -> server ``{"op": "exit", "pid": p, "code": c}`` when a child ends (``c`` as
  :func:`os.waitstatus_to_exitcode` gives it: negative for a signal).

When the server's end of the socket closes (the server exited), the template kills its
children and exits.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys


def _send(control: socket.socket, message: dict) -> None:
    try:
        control.send(json.dumps(message).encode())
    except OSError:
        pass  # the server is gone; the loop notices on its next receive


def _reap(control: socket.socket, children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        _send(control, {"op": "exit", "pid": pid, "code": os.waitstatus_to_exitcode(status)})


def serve(control: socket.socket) -> None:
    """The template's loop: fork a child per request, kill on request, report every exit."""
    from ui.jobs import _preload, _run_child

    _preload()
    children: set[int] = set()
    _send(control, {"op": "ready", "pid": os.getpid()})
    while True:
        readable, _, _ = select.select([control], [], [], 0.05)
        _reap(control, children)
        if not readable:
            continue
        try:
            data, fds, _flags, _address = socket.recv_fds(control, 65536, 2)
        except OSError:
            data, fds = b"", []
        if not data:  # the server closed its end: it is gone
            for pid in children:
                os.kill(pid, signal.SIGKILL)
            return
        message = json.loads(data)
        if message.get("op") == "kill":
            pid = int(message["pid"])
            if pid in children:
                os.kill(pid, signal.SIGKILL)
            continue
        if message.get("op") != "run" or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            continue
        request_fd, result_fd = fds
        pid = os.fork()
        if pid == 0:  # the job's process
            code = 1
            try:
                control.close()
                code = _run_child(request_fd, result_fd)
            finally:
                os._exit(code)
        os.close(request_fd)
        os.close(result_fd)
        children.add(pid)
        _send(control, {"op": "started", "job": message["job"], "pid": pid})


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])))
