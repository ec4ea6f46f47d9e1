"""One Triton compile in a forked child, so that nothing it does ends this process.

A compile can end its process in ways no Python code catches: a failed C++
assertion (SIGABRT), a segfault, ``llvm_unreachable``, an ``LLVM ERROR``
(``exit(1)``), or a pass that never returns. The child is a ``fork`` of this
process: it has the kernel, its globals and every hook exactly as they are
here, so the compile it runs is the one this process would run, and what it
produces lands in Triton's on-disk cache, where this process then finds it.
(A pool of long-lived workers cannot see a kernel defined after it started,
and a fresh interpreter per compile costs an ``import triton``: see
``notes/python.md`` for the measurements behind the choice.)

The child reports over a pipe, one JSON object a line: ``{"stage": NAME}``
as it enters each compile stage, then ``{"done": PAYLOAD}`` or
``{"error": EXCEPTION}``. Its stdout and stderr (Triton's log: MLIR
diagnostics, assertion messages) go to files that the parent reads back. It
runs in its own process group, ignores SIGINT (the parent is interrupted
and kills it), and leaves with ``os._exit``, running none of this process's
exit handlers. The parent waits with a deadline; a child past it is killed
with its whole group (``ptxas`` included).
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import faulthandler
import gc
import json
import os
import pickle
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

# Python 3.12+ warns on every fork of a process with threads (torch starts
# some). The child runs a compile and exits with os._exit; it never touches
# the locks that warning is about beyond what Triton's compile itself takes.
warnings.filterwarnings(
    "ignore",
    message=r".*use of fork\(\) may lead to deadlocks",
    category=DeprecationWarning,
    module=r"linear_layout\.triton\._worker",
)

#: True inside a forked compile child.
IN_CHILD = False
_channel: int | None = None  # the child's end of its pipe
_lock = threading.Lock()
_scratch: str | None = None  # where children write their stdout and stderr
_zombies: list[int] = []  # children that reported and are left to reap
# How often a wait checks whether a silent child has exited (a child's pipe
# can stay open in a sibling forked from another thread at the same moment).
_TICK = 0.05
LOG_LIMIT = 1 << 20  # bytes of a child's log kept (the tail)


def _after_fork_in_child() -> None:
    # another thread of the parent may have held these at the fork
    global _lock
    _lock = threading.Lock()
    _zombies.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def available() -> bool:
    """Whether compiles can be forked (POSIX with ``os.fork``)."""
    return hasattr(os, "fork") and sys.platform != "win32"


def scratch_dir() -> str:
    """Return the scratch directory of this process (children's logs), made on first use."""
    global _scratch
    with _lock:
        if _scratch is None:
            _scratch = tempfile.mkdtemp(prefix="linear-layout-compile-")
            atexit.register(_clean_up)
        return _scratch


def _clean_up() -> None:
    reap()
    if _scratch is not None and not IN_CHILD:
        shutil.rmtree(_scratch, ignore_errors=True)


def reap() -> None:
    """Collect the exit status of children that already reported (no waiting)."""
    with _lock:
        pending = list(_zombies)
        _zombies.clear()
    still = []
    for pid in pending:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if done == 0:
            still.append(pid)
    with _lock:
        _zombies.extend(still)


# ------------------------------------------------------------ what comes back


@dataclass
class ExceptionInfo:
    """An exception raised in the child, as it crossed the pipe."""

    module: str
    name: str
    message: str
    traceback: str
    pickled: bytes | None = None

    def summary(self) -> str:
        """``Type: last line of the message``."""
        lines = [ln.strip() for ln in self.message.splitlines() if ln.strip()]
        return f"{self.name}: {lines[-1] if lines else ''}".rstrip(": ")

    def load(self) -> BaseException | None:
        """Return the exception itself, when it can be unpickled here."""
        if self.pickled is None:
            return None
        try:
            value = pickle.loads(self.pickled)
        except Exception:
            return None
        return value if isinstance(value, BaseException) else None

    def exception_type(self) -> type[BaseException] | None:
        """Return the exception's class, when its module is imported here."""
        module = sys.modules.get(self.module)
        cls = getattr(module, self.name, None) if module is not None else None
        return cls if isinstance(cls, type) and issubclass(cls, BaseException) else None

    @classmethod
    def of(cls, e: BaseException) -> ExceptionInfo:
        pickled: bytes | None
        try:
            data = pickle.dumps(e)
            pickle.loads(data)  # a class whose __init__ wants other arguments fails here
            pickled = data
        except Exception:
            pickled = None
        return cls(
            type(e).__module__,
            type(e).__qualname__,
            str(e),
            "".join(traceback.format_exception(type(e), e, e.__traceback__)),
            pickled,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "name": self.name,
            "message": self.message,
            "traceback": self.traceback,
            "pickled": base64.b64encode(self.pickled).decode() if self.pickled else None,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ExceptionInfo:
        p = d.get("pickled")
        return cls(
            str(d.get("module", "")),
            str(d.get("name", "Exception")),
            str(d.get("message", "")),
            str(d.get("traceback", "")),
            base64.b64decode(p) if isinstance(p, str) else None,
        )


@dataclass
class Outcome:
    """How a child's compile ended."""

    payload: Any = None  # the job's answer (ok only)
    ok: bool = False
    stages: list[str] = field(default_factory=list)  # the stages it entered, in order
    exception: ExceptionInfo | None = None
    signal: int | None = None
    exit_code: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""
    notes: dict[str, Any] = field(default_factory=dict)  # what the child added on the way

    @property
    def stage(self) -> str | None:
        """The stage the child was in when it ended (None: before the first)."""
        return self.stages[-1] if self.stages else None

    def ending(self, timeout: float | None = None) -> str:
        """How it ended, in a few words: ``SIGABRT``, ``exit status 1``, ``timeout``..."""
        if self.ok:
            return "ok"
        if self.timed_out:
            return f"timeout (killed after {timeout:g} s)" if timeout else "timeout"
        if self.exception is not None:
            return f"exception {self.exception.name}"
        if self.signal is not None:
            try:
                return signal.Signals(self.signal).name
            except ValueError:
                return f"signal {self.signal}"
        if self.exit_code is not None:
            return f"exit status {self.exit_code}"
        return "no answer"

    def log(self) -> str:
        """Return the child's stderr, then its stdout (when it printed any)."""
        parts = [self.stderr.rstrip("\n")]
        if self.stdout.strip():
            parts.append("--- stdout ---\n" + self.stdout.rstrip("\n"))
        return "\n".join(p for p in parts if p)


# -------------------------------------------------------------- the child side


def send(message: dict[str, Any]) -> None:
    """Child: send one message to the parent (no-op outside a child)."""
    if _channel is None:
        return
    data = (json.dumps(message, default=str) + "\n").encode()
    view = memoryview(data)
    while view:
        try:
            n = os.write(_channel, view)
        except InterruptedError:
            continue
        view = view[n:]


def _child_main(job: Callable[[], Any], write_fd: int, read_fd: int) -> None:
    """Run ``job`` in the child and leave without returning (never raises)."""
    global IN_CHILD, _channel
    code = 0
    try:
        # No garbage collection here: a collected object of the parent can
        # hang or crash the child in its destructor (an MLIR context created
        # in the parent waits, when destroyed, on its thread pool's threads,
        # which a fork does not copy; a CUDA tensor would free device
        # memory). The child is short-lived and leaves with os._exit.
        gc.disable()
        IN_CHILD = True
        _channel = write_fd
        os.close(read_fd)
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        scratch = scratch_dir()
        for fd, suffix in ((1, "out"), (2, "err")):
            log = os.open(
                os.path.join(scratch, f"{os.getpid()}.{suffix}"),
                os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                0o600,
            )
            os.dup2(log, fd)
            os.close(log)
        # The parent's sys.stdout may be a capture object or a notebook's
        # socket stream: the child writes to its own files instead.
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        # a crash's Python stack goes to the log (the parent's handler may
        # write to a descriptor of its own)
        faulthandler.enable(file=sys.stderr)
        warnings.showwarning = _send_warning
        try:
            message = {"done": job()}
        except BaseException as e:
            message = {"error": ExceptionInfo.of(e).to_json()}
        _flush()  # the log is complete before the parent reads it
        send(message)
    except BaseException:
        code = 70  # the child's own machinery failed: the parent says so
    finally:
        _flush()
        os._exit(code)


def _send_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Child: a warning goes to the parent as it is issued (the child may die next)."""
    send({"warning": [category.__module__, category.__qualname__, str(message)]})


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


# ------------------------------------------------------------- the parent side


class Child:
    """A running compile child, seen from the parent."""

    def __init__(self, pid: int, fd: int, timeout: float | None) -> None:
        self.pid = pid
        self.fd = fd
        self.timeout = timeout
        self.started = time.monotonic()
        self.deadline = None if timeout is None else self.started + timeout
        self._buffer = b""
        self._result: Outcome | None = None
        self._outcome = Outcome()
        self._status: int | None = None  # waitpid status once exited

    @property
    def finished(self) -> bool:
        return self._result is not None

    def _read(self) -> bool:
        """Read what is there; return False at end of file."""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except InterruptedError:
            return True
        except OSError:
            return False
        if not chunk:
            return False
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._message(line)
        return True

    def _message(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        if "stage" in msg:
            self._outcome.stages.append(str(msg["stage"]))
        elif "note" in msg and isinstance(msg["note"], dict):
            self._outcome.notes.update(msg["note"])
        elif "warning" in msg:
            self._outcome.notes.setdefault("warnings", []).append(msg["warning"])
        elif "done" in msg:
            self._outcome.ok = True
            self._outcome.payload = msg["done"]
            self._finish(reported=True)
        elif "error" in msg and isinstance(msg["error"], dict):
            self._outcome.exception = ExceptionInfo.from_json(msg["error"])
            self._finish(reported=True)

    def _exited(self, block: bool) -> bool:
        if self._status is not None:
            return True
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:  # reaped by someone else: no status
            self._status = -1
            return True
        if pid == 0:
            return False
        self._status = status
        return True

    def _finish(self, reported: bool) -> None:
        if self._result is not None:
            return
        o = self._outcome
        o.seconds = time.monotonic() - self.started
        if reported:
            # the child only has os._exit left to run: reap it later
            with _lock:
                _zombies.append(self.pid)
        else:
            self._exited(block=True)
            status = self._status
            if status is not None and status >= 0:
                if os.WIFSIGNALED(status):
                    o.signal = os.WTERMSIG(status)
                elif os.WIFEXITED(status):
                    o.exit_code = os.WEXITSTATUS(status)
        with contextlib.suppress(OSError):
            os.close(self.fd)
        o.stdout, o.stderr = self._logs()
        self._result = o

    def _logs(self) -> tuple[str, str]:
        out = []
        for suffix in ("out", "err"):
            path = os.path.join(scratch_dir(), f"{self.pid}.{suffix}")
            try:
                with open(path, "rb") as f:
                    f.seek(0, os.SEEK_END)
                    size = f.tell()
                    f.seek(max(0, size - LOG_LIMIT))
                    out.append(f.read().decode("utf-8", "replace"))
                os.unlink(path)
            except OSError:
                out.append("")
        return out[0], out[1]

    def on_readable(self) -> None:
        """Read what the child sent; finish it at end of file."""
        if self._result is None and not self._read() and self._result is None:
            self._finish(reported=False)  # end of file without an answer: it died

    def check(self, now: float) -> None:
        """Finish the child if it is past its deadline (killed) or exited silently."""
        if self._result is not None:
            return
        if self.deadline is not None and now >= self.deadline:
            self.kill()
            self._outcome.timed_out = True
            self._finish(reported=False)
        elif self._exited(block=False):
            while self._result is None and self._read():
                pass
            self._finish(reported=False)

    def wait_budget(self, now: float) -> float:
        """How long a wait may last before this child needs looking at."""
        if self.deadline is None:
            return _TICK
        return max(0.0, min(_TICK, self.deadline - now))

    def wait(self) -> Outcome:
        """Wait until the child answers, dies, or runs past its deadline."""
        wait_all([self])
        assert self._result is not None
        return self._result

    def outcome(self) -> Outcome:
        """How the child ended (it must have finished)."""
        assert self._result is not None, "the child is still running"
        return self._result

    def kill(self) -> None:
        """Kill the child and everything it started (its process group)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)


#: seconds a refused fork is tried again (see :func:`fork`)
FORK_PATIENCE = 10.0


class ForkRefusedError(RuntimeError):
    """``os.fork`` kept being refused (by an audit hook) for :data:`FORK_PATIENCE` seconds."""


def _fork_process() -> int:
    # An audit hook may refuse a fork for a moment: filelock (from 3.32; torch
    # and Triton depend on it) raises RuntimeError from its hook on "os.fork"
    # while another thread is handing a lock file's descriptor over, which
    # Inductor's compile threads do all the time. Such a refusal passes.
    deadline = time.monotonic() + FORK_PATIENCE
    delay = 0.001
    while True:
        try:
            return os.fork()
        except RuntimeError as e:
            if time.monotonic() >= deadline:
                raise ForkRefusedError(f"os.fork was refused for {FORK_PATIENCE:g} s: {e}") from e
            time.sleep(delay)
            delay = min(2 * delay, 0.05)


def fork(job: Callable[[], Any], timeout: float | None) -> Child:
    """Run ``job`` in a forked child; its return value (JSON-able) is the payload.

    Raises:
        ForkRefusedError: no fork was possible (the compile cannot be contained).

    """
    reap()
    scratch_dir()
    _flush()  # what this process has buffered must not be written twice
    read_fd, write_fd = os.pipe()
    try:
        pid = _fork_process()
    except BaseException:
        os.close(read_fd)
        os.close(write_fd)
        raise
    if pid == 0:
        _child_main(job, write_fd, read_fd)  # never returns
    os.close(write_fd)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # also here: a kill may come before the child's own call
    return Child(pid, read_fd, timeout)


def wait_all(children: Iterable[Child]) -> None:
    """Wait until every child has answered, died or timed out.

    Interrupted (``KeyboardInterrupt``), it kills the children still running:
    no compile outlives the wait for it.
    """
    _wait(list(children), every=True)


def wait_any(children: Iterable[Child]) -> None:
    """Wait until one of the children has finished (see :func:`wait_all`)."""
    _wait(list(children), every=False)


def _wait(children: list[Child], every: bool) -> None:
    pending = [c for c in children if not c.finished]
    if not every and len(pending) < len(children):
        return
    try:
        while pending:
            now = time.monotonic()
            poller = select.poll()
            by_fd = {}
            for c in pending:
                poller.register(c.fd, select.POLLIN | select.POLLHUP | select.POLLERR)
                by_fd[c.fd] = c
            budget = min(c.wait_budget(now) for c in pending)
            try:
                events = poller.poll(budget * 1000)
            except InterruptedError:
                events = []
            for fd, _ in events:
                by_fd[fd].on_readable()
            now = time.monotonic()
            for c in pending:
                if not events or (c.deadline is not None and now >= c.deadline):
                    c.check(now)
            still = [c for c in pending if not c.finished]
            if not every and len(still) < len(pending):
                return
            pending = still
    except BaseException:
        for c in pending:
            c.kill()
        raise
