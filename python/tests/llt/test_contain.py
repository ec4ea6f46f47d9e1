"""Containment: no failure of a compile, predicted or not, ends the process or the autotune.

The configurations of each autotune: one whose real compile the model
predicts will fail (``failing_job``), one that compiles, and one per kind of
unknown failure, injected into the LLVM lowering (``inject_failures``): a
failed assertion (SIGABRT), a segfault, a pass failure (``RuntimeError:
PassManager::run failed``), a hang, and ``LLVM ERROR`` (exit status 1).
Then real ones: the predicted failure let through (``mode="warn"``), which
the real compiler aborts on (3.1, 3.2) or fails (3.3+).
"""

from __future__ import annotations

import json
import logging
import math
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import llt_support as lls
import pytest

pytestmark = pytest.mark.triton

#: seconds before a compile counts as hung: well above a real compile of
#: these kernels (1-3 s on a loaded 2-core machine), well below a test's time
HANG_TIMEOUT = 15.0

#: what each injected failure ends as, in CompileFailure.ending
ENDINGS = {
    "abort": "SIGABRT",
    "segfault": "SIGSEGV",
    "pass_failure": "exception RuntimeError",
    "hang": f"timeout (killed after {HANG_TIMEOUT:g} s)",
    "fatal": "exit status 1",
}


def first(t: Any) -> float:
    return float(t[0] if isinstance(t, list) else t)


def autotuned(jobs: list[lls.Job], prune: Any = None) -> Any:
    import triton

    return triton.autotune(
        configs=[j.config() for j in jobs],
        key=jobs[0].tuning_key(),
        prune_configs_by={"early_config_prune": prune} if prune is not None else None,
    )(lls.make_kernel(jobs[0].kernel))


def passing_jobs() -> list[lls.Job]:
    """Two configurations that compile (so the autotuner benchmarks, also after pruning)."""
    p = lls.passing_job()
    return [p, lls.Job(p.kernel, p.constexprs, p.num_warps, 1, p.dtype)]


def jobs_and_kinds() -> tuple[list[lls.Job], dict[str, str]]:
    """The autotune's configurations, and what each one's compile does (by config)."""
    failing = lls.failing_job()
    injected = lls.injected_jobs()
    jobs = [failing, *passing_jobs(), *injected]
    kinds = {str(failing.config()): "predicted"}
    kinds.update({str(j.config()): "ok" for j in passing_jobs()})
    for job in injected:
        kinds[str(job.config())] = lls.INJECTED[job.num_stages]
    return jobs, kinds


@pytest.fixture
def failures_file(tmp_path: Path) -> Path:
    return tmp_path / "failures" / "failures.jsonl"


def check_failures(llt: Any, kinds: dict[str, str], failures_file: Path) -> None:
    """Every failure is recorded once, with the right ending; the file holds the unpredicted."""
    by_kind = {k: c for c, k in kinds.items()}
    recorded = llt.failures()
    predicted = [f for f in recorded if f.predicted]
    unpredicted = [f for f in recorded if not f.predicted]
    assert len(predicted) == 1, [f.ending for f in recorded]
    assert sorted(f.ending for f in unpredicted) == sorted(ENDINGS.values())
    in_file = llt.read_failures(str(failures_file))
    assert sorted(f.id for f in in_file) == sorted(f.id for f in unpredicted)
    for f in in_file:
        kind = next(k for k, e in ENDINGS.items() if e == f.ending)
        assert f.release == llt.release()
        assert f.target == {"backend": "cuda", "arch": 90, "warp_size": 32}
        assert f.config["num_stages"] == next(s for s, k in lls.INJECTED.items() if k == kind), (
            by_kind[kind]
        )
        assert f.stage == "llir"
        message = lls.INJECTED_MESSAGES[kind]
        if message:
            assert message in f.log
            assert f.message == message
        assert f.explain.get("known") is False, f.explain  # nothing models a stand-in
        assert f.reproducer is not None
        assert Path(f.reproducer).read_text(encoding="utf-8") == f.reproducer_script
        assert "STAGE = 'llir'" in (f.reproducer_script or "")
    # one line per failure, each a JSON object of the documented schema
    lines = failures_file.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(ENDINGS)
    assert all(json.loads(ln)["schema"] == "linear-layout/compile-failure/1" for ln in lines)


def test_autotune_runs_to_the_end_through_every_kind_of_failure(
    llt: Any, monkeypatch: pytest.MonkeyPatch, failures_file: Path
) -> None:
    from linear_layout.triton import _contain

    lls.inject_failures(monkeypatch)
    jobs, kinds = jobs_and_kinds()
    kernel = autotuned(jobs)
    llt.install(timeout=HANG_TIMEOUT, failures_file=str(failures_file))
    kernel[(1,)](*jobs[0].args(), **jobs[0].call_kwargs())
    timings = {str(c): first(t) for c, t in kernel.configs_timings.items()}
    assert set(timings) == set(kinds)
    for config, kind in kinds.items():
        assert (timings[config] == 1.0) if kind == "ok" else math.isinf(timings[config]), kind
    assert kinds[str(kernel.best_config)] == "ok"
    check_failures(llt, kinds, failures_file)
    # a failure is not compiled twice: the final launch and a second call reuse the answers
    forks = _contain.Stats.forks
    kernel[(1,)](*jobs[0].args(), **jobs[0].call_kwargs())
    assert _contain.Stats.forks == forks


def test_prune_compiles_up_front_and_drops_every_failure(
    llt: Any, monkeypatch: pytest.MonkeyPatch, failures_file: Path, caplog: Any
) -> None:
    from linear_layout.triton import _contain

    lls.inject_failures(monkeypatch)
    jobs, kinds = jobs_and_kinds()
    kernel = autotuned(jobs, llt.prune)
    llt.install(timeout=HANG_TIMEOUT, failures_file=str(failures_file))
    with caplog.at_level(logging.WARNING, logger="linear_layout.triton"):
        kernel[(1,)](*jobs[0].args(), **jobs[0].call_kwargs())
    # prune kept the configurations that compile, and nothing else was benchmarked
    assert [str(c) for c in kernel.configs_timings] == [str(j.config()) for j in passing_jobs()]
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == len(kinds) - 2
    check_failures(llt, kinds, failures_file)
    # one child per configuration; the autotuner's compile of the kept one was a cache load
    assert _contain.Stats.forks == len(jobs)
    assert _contain.Stats.probe_hits >= 1


def test_the_real_failure_behind_a_prediction_is_contained_and_reproduced(
    llt: Any, failures_file: Path, tmp_path: Path
) -> None:
    from test_guard import autotune_skips

    job = lls.failing_job()
    with llt.guard(), pytest.raises(llt.LayoutCompileError) as prediction:
        lls.compile_job(job)
    # warn: the guard lets the compile go on into Triton's own failure
    with (
        llt.guard("warn", failures_file=str(failures_file)),
        pytest.warns(llt.LayoutWarning),
        pytest.raises(llt.ContainedCompileError) as info,
    ):
        lls.compile_job(job)
    err = info.value
    failure = err.failure
    import triton

    assert isinstance(err, autotune_skips())
    assert failure.stage == "llir"
    if lls.triton_version() < (3, 3):
        assert failure.ending == "SIGABRT"
    else:
        assert failure.ending == "exception RuntimeError"
        assert isinstance(err, RuntimeError)
        assert "PassManager::run failed" in (failure.exception or "")
    # explain knows the site the model predicted
    assert failure.explain["known"] is True
    # the site, or one that prints the same message
    assert prediction.value.site in [failure.explain["site"], *failure.explain["others"]]
    # the reproducer, run by itself, fails the same way
    assert failure.reproducer is not None
    run = subprocess.run(
        [sys.executable, failure.reproducer],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ""},
    )
    if lls.triton_version() < (3, 3):
        assert run.returncode == -int(signal.SIGABRT), run.stderr[-2000:]
    else:
        assert run.returncode != 0, run.stdout
        assert "did not reproduce" not in run.stdout
    assert lls_core(failure.message) in run.stderr
    assert triton.__version__ in run.stdout


def lls_core(message: str) -> str:
    """The telling part of an assertion or error line (no path, no line number)."""
    text = message.split("Assertion", 1)[-1]
    return text.replace("`", "").strip()[:40]


def test_an_injected_failure_reproducer_runs_the_stage_on_its_input(
    llt: Any, monkeypatch: pytest.MonkeyPatch, failures_file: Path, tmp_path: Path
) -> None:
    lls.inject_failures(monkeypatch)
    [job] = [j for j in lls.injected_jobs() if lls.INJECTED[j.num_stages] == "abort"]
    with (
        llt.guard(failures_file=str(failures_file)),
        pytest.raises(llt.ContainedCompileError) as info,
    ):
        lls.compile_job(job)
    failure = info.value.failure
    assert failure.ending == "SIGABRT"
    assert failure.reproducer is not None
    # in a fresh process the stand-in is gone: the real lowering of the same
    # input completes, which proves the script's input, options and metadata
    run = subprocess.run(
        [sys.executable, failure.reproducer],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "did not reproduce" in run.stdout


def test_the_error_is_what_the_autotuner_skips_and_carries_the_record(
    llt: Any, monkeypatch: pytest.MonkeyPatch, failures_file: Path
) -> None:
    import pickle

    from test_guard import autotune_skips, inductor_skips

    lls.inject_failures(monkeypatch)
    [job] = [j for j in lls.injected_jobs() if lls.INJECTED[j.num_stages] == "pass_failure"]
    with (
        llt.guard(failures_file=str(failures_file)),
        pytest.raises(llt.ContainedCompileError) as info,
    ):
        lls.compile_job(job)
    err = info.value
    assert isinstance(err, autotune_skips())
    assert isinstance(err, inductor_skips())
    assert isinstance(err, RuntimeError)  # still the compile's own exception class
    assert "PassManager::run failed" in (err.failure.exception or "")
    assert err.failure.kernel == job.kernel
    assert err.failure.describe() == str(err)
    for needed in ("linear_layout", "llir", "explain: unknown", str(failures_file)):
        assert needed in str(err)
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err)
    assert again.failure == err.failure


def test_compiles_that_pass_come_from_the_cache_unchanged(
    llt: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from linear_layout.triton import _contain

    job = lls.passing_job()
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "warm-up"))
    lls.compile_job(job)  # the first compile of a process sets LLVM up (see test_guard)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "plain"))
    plain = lls.compile_job(job)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "contained"))
    with llt.guard():
        contained = lls.compile_job(job)
        assert _contain.Stats.forks == 1
        again = lls.compile_job(job)  # a fresh JIT function: Triton's cache, no child
    assert _contain.Stats.forks == 1
    assert _contain.Stats.probe_hits == 1  # the second compile (the first loaded after its child)
    for ir in ("ttgir", "llir", "ptx", "cubin"):
        assert contained.asm[ir] == plain.asm[ir], ir
        assert again.asm[ir] == plain.asm[ir], ir
    assert contained.hash == again.hash


def test_a_child_never_collects_the_parents_garbage(
    llt: Any, monkeypatch: pytest.MonkeyPatch, capfd: Any
) -> None:
    """The child compiles with the garbage collector off.

    Collected in a forked child, an object of the parent can hang it in its
    destructor: an MLIR context whose thread pool had threads (held in a
    cycle, say by the traceback of an exception raised by an in-process
    compile) waits for those threads, which a fork does not copy. Seen with
    3.1.0 in this suite; when the child collects depends on the allocator,
    so what is checked is that it never does.
    """
    import gc
    import inspect

    from triton.backends import backends

    cls = backends["nvidia"].compiler
    static = isinstance(inspect.getattr_static(cls, "make_llir"), staticmethod)
    original = cls.make_llir

    def make_llir(*args: Any) -> Any:
        sys.stderr.write(f"garbage collection in the compile: {gc.isenabled()}\n")
        return original(*args)

    monkeypatch.setattr(cls, "make_llir", staticmethod(make_llir) if static else make_llir)
    assert gc.isenabled()
    with llt.guard():
        kernel = lls.compile_job(lls.passing_job())
    assert kernel.asm["cubin"]
    # the child's log is forwarded to this process's stderr
    assert "garbage collection in the compile: False" in capfd.readouterr().err
    assert gc.isenabled()


class _ForkGate:
    """An audit hook that refuses ``os.fork`` for a moment, as filelock's does.

    filelock (3.32 and later, a dependency of torch and Triton) raises
    RuntimeError from its audit hook on ``os.fork`` while another thread is
    handing a lock file's descriptor over; under Inductor's compile threads
    that refused every other contained compile on the H200. Audit hooks stay
    for the life of the process: this one is added once and does nothing
    unless a test closes the gate. Closed, it refuses every fork until 0.3 s
    after the first one it refused.
    """

    closed = False
    refused = 0
    installed = False
    opener: Any = None

    @classmethod
    def hook(cls, event: str, args: Any) -> None:
        if event != "os.fork" or not cls.closed:
            return
        cls.refused += 1
        if cls.opener is None:
            import threading

            cls.opener = threading.Timer(0.3, cls.open)
            cls.opener.start()
        raise RuntimeError("os.fork is unsafe while a stand-in lock is changing hands")

    @classmethod
    def close(cls) -> None:
        if not cls.installed:
            sys.addaudithook(cls.hook)
            cls.installed = True
        cls.refused = 0
        cls.opener = None
        cls.closed = True

    @classmethod
    def open(cls) -> None:
        cls.closed = False


def test_a_fork_refused_for_a_moment_is_tried_again(llt: Any) -> None:
    from linear_layout.triton import _contain

    _ForkGate.close()
    try:
        with llt.guard():
            kernel = lls.compile_job(lls.passing_job())
    finally:
        _ForkGate.open()
    assert _ForkGate.refused > 0  # the first forks were refused
    assert kernel.asm["cubin"]
    assert _contain.Stats.forks == 1  # and the compile still ran in a child
    assert not llt.failures()
