"""Child processes: run one to its end, or keep one answering JSON lines.

Every oracle script runs Triton (or our CLI) in a child process: a failed
assertion aborts the process that hits it, and a compile may hang. This
module is the one place that starts, reads, times out and ends them.

- :func:`run`: a child runs to its end in a session of its own; past its
  timeout the whole process group is killed (``ptxas`` is a grandchild).
- :class:`Worker`: a child that reads one JSON request per line on stdin
  and writes JSON lines on stdout; its stderr goes to a file (read back to
  say why it died), reads time out, and it writes no core file.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass


@dataclass
class Ended:
    """How a child ended: ``returncode`` (``None``: killed at its timeout), its output."""

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float

    @property
    def timed_out(self):
        return self.returncode is None

    @property
    def signal(self):
        """The signal that killed it (an abort is 6), or ``None``."""
        rc = self.returncode
        return -rc if rc is not None and rc < 0 else None


def no_core():
    """In the child, before it runs: write no core file when it aborts."""
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except Exception:
        pass


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def run(cmd, *, timeout, env=None, cwd=None, input=None, preexec=no_core):
    """Run ``cmd`` to its end (or ``timeout`` seconds); return :class:`Ended`."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, encoding="utf-8", errors="replace", start_new_session=True,
                            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=preexec)
    try:
        out, err = proc.communicate(input, timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        rc = None
    return Ended(rc, out or "", err or "", time.monotonic() - t0)


class WorkerTimeout(Exception):
    """A worker gave no answer in time."""


class Worker:
    """A child answering JSON lines: :meth:`send` a request, :meth:`receive` answers.

    ``receive`` returns ``None`` when the child has ended (its stderr, from
    :meth:`err_pos` on, says why), raises :class:`WorkerTimeout` after
    ``timeout`` seconds without a line, and ``json.JSONDecodeError`` for a
    line that is not JSON.
    """

    def __init__(self, cmd, *, env=None, cwd=None, preexec=no_core):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     env=env, cwd=cwd, preexec_fn=preexec, bufsize=0)
        self.buf = b""

    @property
    def alive(self):
        return self.proc.poll() is None

    def send(self, obj):
        """Write one request; ``False`` if the child is gone."""
        try:
            self.proc.stdin.write((json.dumps(obj, separators=(",", ":")) + "\n").encode())
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def receive(self, timeout):
        """The next JSON line, or ``None`` at the end of the child's output."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerTimeout(f"no answer in {timeout:.0f} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def ask(self, obj, timeout):
        """Send ``obj`` and return the answer (``None`` if the child ended instead)."""
        if not self.send(obj):
            return None
        return self.receive(timeout)

    def err_pos(self):
        """Where the child's stderr ends now (to read what a request made it write)."""
        self.err.seek(0, os.SEEK_END)
        return self.err.tell()

    def stderr_since(self, pos=0):
        self.err.seek(pos)
        return self.err.read().decode("utf-8", "replace")

    def stderr_tail(self, lines=5):
        kept = [line for line in self.stderr_since().splitlines() if line.strip()]
        return " | ".join(kept[-lines:])

    def wait(self, timeout=30):
        """Wait for the child to end (killing it after ``timeout``); its exit status."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def close(self, timeout=20):
        """End the child: close its stdin, wait, kill it if it lingers."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.wait(timeout)
        try:
            self.proc.stdout.close()
        except OSError:
            pass
        self.err.close()


class WithSpare:
    """A worker in use and a spare started ahead, so that replacing a worker
    that died (a Triton abort) costs no start-up.

    ``make()`` starts a worker; ``greet(worker)`` reads its first line (a
    hello with the versions it runs) and raises if there is none.
    """

    def __init__(self, make, greet):
        self.make, self.greet = make, greet
        self.current = make()
        greet(self.current)
        self.spare = make()
        self.restarts = 0

    def replace(self, kill=False):
        """End the current worker (``kill``: without waiting) and put the spare in its place."""
        if kill:
            self.current.kill()
        self.current.close()
        self.current, self.spare = self.spare, self.make()
        self.greet(self.current)
        self.restarts += 1

    def close(self):
        self.current.close()
        self.spare.close()
