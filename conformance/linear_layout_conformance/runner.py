"""The parent process: hands out cases to workers, enforces time limits, writes results.

Each worker (:mod:`.worker`) compiles one case at a time and, on a GPU, runs
it.  The parent watches every worker: a compile that takes longer than
``compile_timeout`` or a kernel that runs longer than ``run_timeout`` is
killed (``compile_timeout`` / ``timeout``: a hang), a worker that dies in
the compiler is a ``compile_crash`` (an abort, with the assertion from its
log), one that dies on the GPU a ``crash``; the worker is then replaced.
With ``max_seconds`` the run stops handing out cases when the time is up,
waits briefly for the cases in flight and writes what it has.

Output directory::

    cases.jsonl.gz       the cases (parameters, layouts used, TTGIR)
    results.jsonl        one record per case, in completion order
    failures/ID.json     case and record of every case that did not pass
    compile-failures.jsonl  the modules Triton failed to compile (for the finder)
    summary.txt, summary.json
    logs/worker-N.log    each worker's stderr (Triton's diagnostics)
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

PASSING = {"pass", "compiled"}
ADDRESS_SPACE = 6 << 30  # compile-only workers: bound runaway allocations


def bootstrap(entry: str) -> str:
    """Return Python code that runs ``entry`` of this package (``module:function``).

    The code imports this package from the directory that holds it (a
    Triton venv need not have it installed) and calls ``entry`` with
    ``sys.argv[1:]``.
    """
    parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    mod, fn = entry.split(":")
    return (
        "import sys; sys.dont_write_bytecode = True; "
        f"sys.path.insert(0, {parent!r}); "
        f"from {__package__}.{mod} import {fn}; sys.exit({fn}(sys.argv[1:]))"
    )


def worker_command(
    python: str, gpu: bool, cache: str, log: str, simulate: str | None = None
) -> list[str]:
    """Return the command line of one worker."""
    boot = bootstrap("worker:main")
    cmd = [python, "-c", boot, "--cache", cache, "--log", log]
    if gpu:
        cmd.append("--gpu")
    if simulate is not None:
        cmd += ["--simulate", simulate]
    return cmd


def read_cases(path: str) -> list[dict[str, Any]]:
    """Cases from a ``.jsonl`` or ``.jsonl.gz`` file (or a single ``.json``)."""
    opener: Callable[..., Any] = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read()
    if path.endswith(".json"):
        obj = json.loads(text)
        return [obj.get("case", obj)]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write_cases(path: str, cases: Iterable[dict[str, Any]]) -> None:
    """Write cases as ``.jsonl.gz`` (or plain ``.jsonl``).

    The gzip header holds no time or file name: the same cases give the
    same bytes (``campaign/MANIFEST.json`` records their sha256).
    """
    tmp = path + ".tmp"
    text = "".join(json.dumps(c, separators=(",", ":")) + "\n" for c in cases).encode()
    with open(tmp, "wb") as raw:
        if path.endswith(".gz"):
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as g:
                g.write(text)
        else:
            raw.write(text)
    os.replace(tmp, path)


class _Slot:
    """One worker process and what it is doing."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.proc: subprocess.Popen[str] | None = None
        self.case: dict[str, Any] | None = None
        self.phase = "idle"
        self.since = 0.0
        self.log = ""
        self.log_off = 0
        self.buf = ""
        self.ready = False
        self.retiring = False  # answered a fatal error: exits, gets no more cases
        self.started = 0.0


class Pool:
    """Worker processes, each running one case at a time."""

    def __init__(
        self,
        jobs: int,
        python: str,
        gpu: bool,
        cache: str,
        logdir: str,
        compile_timeout: float,
        run_timeout: float,
        startup_timeout: float = 300.0,
        simulate: str | None = None,
    ) -> None:
        self.python, self.gpu, self.cache, self.logdir = python, gpu, cache, logdir
        self.simulate = simulate
        self.compile_timeout, self.run_timeout = compile_timeout, run_timeout
        self.startup_timeout = startup_timeout
        self.sel = selectors.DefaultSelector()
        self.slots = [_Slot(i) for i in range(jobs)]
        self.restarts = 0
        os.makedirs(logdir, exist_ok=True)
        os.makedirs(cache, exist_ok=True)

    def start(self, slot: _Slot) -> None:
        """Start the worker of ``slot``."""
        slot.log = os.path.join(self.logdir, f"worker-{slot.index}.log")
        env = dict(os.environ)
        env["TRITON_CACHE_DIR"] = os.path.join(self.cache, "triton")
        env.setdefault("PYTHONUNBUFFERED", "1")
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, "1")  # one core per worker: no thread pools fighting over them
        logf = open(slot.log, "a")  # noqa: SIM115 (kept open by the child)
        pre = None
        if not self.gpu:

            def pre() -> None:
                import resource

                _, hard = resource.getrlimit(resource.RLIMIT_AS)
                soft = ADDRESS_SPACE if hard == resource.RLIM_INFINITY else min(ADDRESS_SPACE, hard)
                resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

        slot.proc = subprocess.Popen(
            worker_command(self.python, self.gpu, self.cache, slot.log, self.simulate),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=logf,
            text=True,
            env=env,
            start_new_session=True,
            preexec_fn=pre,
            bufsize=1,
            cwd=self.cache,
        )
        logf.close()
        assert slot.proc.stdout is not None
        os.set_blocking(slot.proc.stdout.fileno(), False)
        self.sel.register(slot.proc.stdout, selectors.EVENT_READ, slot)
        slot.case, slot.phase, slot.buf, slot.ready = None, "startup", "", False
        slot.retiring = False
        slot.since = slot.started = time.time()

    def kill(self, slot: _Slot) -> None:
        """Kill the worker of ``slot`` (its whole process group)."""
        p = slot.proc
        if p is None:
            return
        with contextlib.suppress(KeyError, ValueError):
            self.sel.unregister(p.stdout)
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                p.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=30)
        for stream in (p.stdin, p.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        slot.proc = None

    def send(self, slot: _Slot, case: dict[str, Any]) -> None:
        """Hand ``case`` to the worker of ``slot``."""
        assert slot.proc is not None
        assert slot.proc.stdin is not None
        slot.case = case
        slot.log_off = os.path.getsize(slot.log) if os.path.exists(slot.log) else 0
        if slot.ready:
            slot.phase, slot.since = "queued", time.time()
        try:
            slot.proc.stdin.write(json.dumps({"case": case}) + "\n")
            slot.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # noticed as a dead worker

    def log_tail(self, slot: _Slot) -> str:
        """Return the diagnostics the worker logged since its current case began."""
        from .worker import _errors

        try:
            with open(slot.log, errors="replace") as f:
                f.seek(slot.log_off)
                return _errors(f.read()[-20000:])
        except OSError:
            return ""

    def stderr_tail(self, slot: _Slot, lines: int = 60) -> str:
        """Return the last ``lines`` lines the worker wrote to stderr (its log), unfiltered.

        Those since its current case began, or, if it wrote none, the last
        ones before (what a worker dying without a word said last).
        """
        try:
            size = os.path.getsize(slot.log)
            with open(slot.log, errors="replace") as f:
                start = slot.log_off if size > slot.log_off else max(0, size - 20000)
                f.seek(max(start, size - 20000))
                text = f.read()
        except OSError:
            return ""
        return "\n".join([ln for ln in text.splitlines() if ln.strip()][-lines:])

    def close(self) -> None:
        """Kill every worker."""
        for s in self.slots:
            self.kill(s)


def death_message(
    returncode: int | None, tail: str, diagnostics: str = ""
) -> tuple[dict[str, Any], str]:
    """Return the record fields and message of a worker that died with ``returncode``.

    The message is what killed it, then the diagnostic lines it logged for
    the case (an assertion, "Fatal Python error: ..."), else its last stderr.
    """
    fields: dict[str, Any] = {}
    if returncode is None:
        what = "worker killed"
    elif returncode < 0:
        fields["signal"] = -returncode
        try:
            fields["signal_name"] = signal.Signals(-returncode).name
        except ValueError:
            fields["signal_name"] = f"signal {-returncode}"
        what = f"worker killed by {fields['signal_name']}"
    else:
        fields["exit_code"] = returncode
        what = f"worker exited with code {returncode}"
    if diagnostics:
        return fields, f"{what}:\n{diagnostics}"
    return fields, what + (f"; its last stderr:\n{tail}" if tail else "; no stderr")


def run_cases(
    cases: Sequence[dict[str, Any]],
    out: str,
    *,
    jobs: int = 2,
    python: str | None = None,
    gpu: bool = False,
    cache: str | None = None,
    max_seconds: float | None = None,
    compile_timeout: float = 300.0,
    run_timeout: float = 30.0,
    grace: float = 20.0,
    quiet: bool = False,
    results_name: str = "results.jsonl",
    simulate: str | None = None,
    max_output_bytes: int = 10 << 20,
) -> list[dict[str, Any]]:
    """Run ``cases`` and write the output directory ``out``; return the records.

    The outputs of wrong cases are kept (for ``replay``) up to
    ``max_output_bytes`` of them in all.
    """
    t_start = time.time()
    os.makedirs(os.path.join(out, "failures"), exist_ok=True)
    cache = cache or os.path.join(out, "cache")
    pool = Pool(
        max(1, jobs),
        python or sys.executable,
        gpu,
        cache,
        os.path.join(out, "logs"),
        compile_timeout,
        run_timeout,
        simulate=simulate,
    )
    todo = list(cases)[::-1]
    requeued: Counter[str] = Counter()
    env: dict[str, Any] = {}
    records: list[dict[str, Any]] = []
    res_f = open(os.path.join(out, results_name), "w")  # noqa: SIM115
    cf_f = open(os.path.join(out, "compile-failures.jsonl"), "w")  # noqa: SIM115
    counts: Counter[str] = Counter()
    kept = [0]
    last_report = 0.0
    deadline = t_start + max_seconds if max_seconds else None
    stopping = False

    def finish(slot: _Slot, rec: dict[str, Any]) -> None:
        case = slot.case or {}
        rec.setdefault("id", case.get("id"))
        rec.setdefault("family", case.get("params", {}).get("family"))
        rec["worker"] = slot.index
        if "outputs" in rec:
            kept[0] += len(rec["outputs"])
            if kept[0] > max_output_bytes:  # keep the results small when a bug hits many cases
                del rec["outputs"]
                rec["outputs_dropped"] = True
        if rec.get("verdict") not in PASSING:
            from .families import known_family

            fam = known_family(case.get("params", {}))
            if fam:
                rec["known"] = fam  # looks like a recorded finding (families.py)
        records.append(rec)
        counts[rec.get("verdict", "?")] += 1
        res_f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        res_f.flush()
        if rec.get("verdict") not in PASSING:
            with open(os.path.join(out, "failures", f"{rec['id']}.json"), "w") as f:
                json.dump({"case": case, "record": rec}, f, indent=1)
        if rec.get("verdict") in (
            "compile_error",
            "compile_crash",
            "compile_timeout",
            "invalid_ir",
        ):
            cf_f.write(
                json.dumps(
                    {
                        "id": rec["id"],
                        "triton": case.get("params", {}).get("triton"),
                        "outcome": rec["verdict"],
                        "message": rec.get("message", ""),
                        "module": case.get("ttgir", ""),
                    }
                )
                + "\n"
            )
            cf_f.flush()
        slot.case, slot.phase = None, "idle"

    def receive(slot: _Slot) -> None:
        """Read and act on what the worker of ``slot`` said."""
        if slot.proc is None or slot.proc.stdout is None:
            return
        try:
            chunk = slot.proc.stdout.read()
        except (OSError, ValueError):
            chunk = ""
        if chunk:
            slot.buf += chunk
        while "\n" in slot.buf:
            line, slot.buf = slot.buf.split("\n", 1)
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            ev = msg.get("event")
            if ev == "ready":
                slot.ready = True
                if msg.get("env") and not env:
                    env.update(msg["env"])
                if slot.case is not None:
                    slot.phase, slot.since = "queued", time.time()
                else:
                    slot.phase = "idle"
            elif ev == "phase":
                slot.phase, slot.since = msg["phase"], time.time()
            elif ev == "result":
                fatal = bool(msg["record"].get("fatal"))
                finish(slot, msg["record"])
                if fatal:
                    # the worker exits now: hand it nothing more (a case sent to
                    # it would die with it); a fresh one starts when it is gone
                    slot.retiring = True
            elif ev == "fatal":
                raise RuntimeError(f"worker {slot.index}: {msg.get('message')}")

    try:
        for s in pool.slots:
            pool.start(s)
        while True:
            now = time.time()
            if deadline and now >= deadline and not stopping:
                stopping = True
                if not quiet:
                    print(
                        f"conformance: time budget reached, {len(todo)} cases not started",
                        file=sys.stderr,
                    )
            # hand out work
            for s in pool.slots:
                if (
                    s.proc is not None
                    and s.ready
                    and not s.retiring
                    and s.case is None
                    and todo
                    and not stopping
                ):
                    pool.send(s, todo.pop())
            busy = [s for s in pool.slots if s.case is not None]
            if not busy and (not todo or stopping):
                break
            if stopping and deadline and now > deadline + grace:
                for s in busy:
                    finish(s, {"verdict": "interrupted", "phase": s.phase})
                    pool.kill(s)
                break
            for key, _ in pool.sel.select(timeout=0.5):
                receive(key.data)
            # dead or stuck workers
            now = time.time()
            for s in pool.slots:
                if s.proc is None:
                    if not stopping or s.case is not None:
                        pool.start(s)
                    continue
                dead = s.proc.poll() is not None
                if dead:
                    receive(s)  # what it said before dying (a result must not be lost)
                limit = {
                    "startup": pool.startup_timeout,
                    "queued": pool.startup_timeout,
                    "compile": pool.compile_timeout,
                    "load": pool.compile_timeout,
                    "run": pool.run_timeout,
                }.get(s.phase)
                timed_out = limit is not None and s.case is not None and now - s.since > limit
                if s.phase == "startup" and not dead and now - s.since > pool.startup_timeout:
                    raise RuntimeError(
                        f"worker {s.index} did not start in {pool.startup_timeout} s"
                    )
                if dead and not s.ready and not s.retiring:
                    raise RuntimeError(
                        f"worker {s.index} exited at startup (code {s.proc.returncode}); "
                        f"see {s.log}"
                    )
                if dead or timed_out:
                    cid = str((s.case or {}).get("id"))
                    if dead and s.case is not None and s.phase == "queued" and not requeued[cid]:
                        # died before it began the case (no phase announced): the case
                        # is not to blame; run it once more on a fresh worker
                        requeued[cid] += 1
                        todo.append(s.case)
                        s.case = None
                    if s.case is not None:
                        if timed_out and not dead:
                            verdict = {
                                "compile": "compile_timeout",
                                "load": "load_timeout",
                                "run": "timeout",
                            }.get(s.phase, "timeout")
                        else:
                            verdict = {"compile": "compile_crash", "run": "crash"}.get(
                                s.phase, "crash"
                            )
                        diag = pool.log_tail(s)[:4000]
                        rec: dict[str, Any] = {
                            "verdict": verdict,
                            "phase": s.phase,
                            "seconds": round(now - s.since, 1),
                            "message": diag,
                        }
                        if dead:
                            tail = pool.stderr_tail(s)
                            fields, msg_ = death_message(s.proc.returncode, tail, diag)
                            rec.update(fields)
                            rec["message"] = msg_[:4000]
                            rec["stderr_tail"] = tail[-8000:]
                        if requeued[cid]:
                            rec["requeued"] = requeued[cid]
                        finish(s, rec)
                    pool.kill(s)
                    pool.restarts += 1
            if not quiet and time.time() - last_report > 10:
                last_report = time.time()
                el = last_report - t_start
                rate = len(records) / el if el else 0
                top = ", ".join(f"{k} {v}" for k, v in counts.most_common())
                print(
                    f"conformance: {len(records)}/{len(cases)} in {el:.0f} s ({rate:.1f}/s; {top})",
                    file=sys.stderr,
                )
    finally:
        pool.close()
        res_f.close()
        cf_f.close()
    elapsed = time.time() - t_start
    write_summary(out, cases, records, elapsed, pool.restarts, gpu, quiet, env)
    return records


def summary_table(records: Sequence[dict[str, Any]]) -> str:
    """Verdict counts per family, as a text table."""
    fams = sorted({r.get("family") or "?" for r in records})
    verdicts = sorted({r.get("verdict", "?") for r in records}, key=lambda v: (v not in PASSING, v))
    width = max([len(v) for v in verdicts] + [8])
    head = f"{'verdict':<{width}} " + " ".join(f"{f:>8}" for f in fams) + f" {'total':>8}"
    lines = [head, "-" * len(head)]
    for v in verdicts:
        row = [
            sum(1 for r in records if r.get("verdict") == v and (r.get("family") or "?") == f)
            for f in fams
        ]
        lines.append(f"{v:<{width}} " + " ".join(f"{x:>8}" for x in row) + f" {sum(row):>8}")
    tot = [sum(1 for r in records if (r.get("family") or "?") == f) for f in fams]
    lines.append(f"{'total':<{width}} " + " ".join(f"{x:>8}" for x in tot) + f" {sum(tot):>8}")
    return "\n".join(lines)


def write_summary(
    out: str,
    cases: Sequence[dict[str, Any]],
    records: Sequence[dict[str, Any]],
    elapsed: float,
    restarts: int,
    gpu: bool,
    quiet: bool = False,
    env: dict[str, Any] | None = None,
) -> None:
    """``summary.txt`` / ``summary.json`` (and the table on stderr)."""
    from .classify import summary_line

    comp = [r["compile_s"] for r in records if isinstance(r.get("compile_s"), (int, float))]
    cpu = [r["compile_cpu_s"] for r in records if isinstance(r.get("compile_cpu_s"), (int, float))]
    case_cpu = [r["cpu_s"] for r in records if isinstance(r.get("cpu_s"), (int, float))]
    run = [r["run_s"] for r in records if isinstance(r.get("run_s"), (int, float))]
    info = {
        "cases": len(cases),
        "finished": len(records),
        "seconds": round(elapsed, 1),
        "cases_per_second": round(len(records) / elapsed, 2) if elapsed else None,
        "compile_seconds_total": round(sum(comp), 1),
        "compile_seconds_mean": round(sum(comp) / len(comp), 3) if comp else None,
        "compile_cpu_seconds_mean": round(sum(cpu) / len(cpu), 3) if cpu else None,
        "compiles_per_cpu_second": round(len(cpu) / sum(cpu), 2) if cpu and sum(cpu) else None,
        "cases_per_cpu_second": round(len(case_cpu) / sum(case_cpu), 2)
        if case_cpu and sum(case_cpu)
        else None,
        "run_seconds_mean": round(sum(run) / len(run), 4) if run else None,
        "worker_restarts": restarts,
        "gpu": gpu,
        "environment": env or {},
        "verdicts": dict(Counter(r.get("verdict", "?") for r in records)),
    }
    bad = [r for r in records if r.get("verdict") not in PASSING]
    lines = [
        summary_table(records),
        "",
        f"{len(records)} of {len(cases)} cases in {elapsed:.0f} s "
        f"({info['cases_per_second']}/s), mean compile {info['compile_seconds_mean']} s "
        f"({info['compiles_per_cpu_second']} compiles and {info['cases_per_cpu_second']} cases "
        "per CPU second), "
        f"{restarts} worker restarts",
    ]
    if bad:
        lines.append("")
        lines.append("not passing:")
        for r in bad[:200]:
            msg = (
                summary_line(r)
                if r.get("verdict") == "wrong"
                else (r.get("message") or "")[:160].replace("\n", " | ")
            )
            known = f" (known: {r['known']})" if r.get("known") else ""
            lines.append(f"  {r.get('id')} [{r.get('family')}] {r.get('verdict')}{known}: {msg}")
        fams = Counter(r["known"] for r in bad if r.get("known"))
        if fams:
            from .families import note

            lines.append("")
            lines.append(
                f"{sum(fams.values())} of {len(bad)} not passing look like known findings:"
            )
            for name, n in fams.most_common():
                lines.append(f"  {name}: {n}, see {note(name)}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(info, f, indent=1)
    if not quiet:
        print(text, file=sys.stderr, end="")


def progress_printer(stream: TextIO = sys.stderr) -> Callable[[int, int, int], None]:
    """Return a progress callback for generation."""
    last = [0.0]

    def cb(done: int, total: int, rounds: int) -> None:
        if time.time() - last[0] > 5 or done == total:
            last[0] = time.time()
            print(f"conformance: generated {done}/{total} (round {rounds})", file=stream)

    return cb
