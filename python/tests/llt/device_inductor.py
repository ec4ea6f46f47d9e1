"""``torch.compile(mode="max-autotune")`` under ``linear_layout.triton``, on a GPU.

Usage, from the repository root, with ``linear_layout`` importable next to
torch, Triton and CUDA::

    python python/tests/llt/device_inductor.py [--json OUT]

Inductor's max-autotune compiles a Triton template per candidate
configuration ("choice") of each matmul and benchmarks them. The recipe is
``llt.install()`` and ``torch._inductor.config.compile_threads = 1``: the
second keeps the template compiles in this process (Inductor then compiles
them on its own thread pool, and each thread's compile runs contained in a
forked child), where a pool of fresh worker processes would not have the
guard. The model compiled: a matmul (2048 x 2048 x 2048, fp16) and an
attention block (``softmax(q k^T / 8) v``, 16 heads of 1024 x 64, fp16).

Phases, each with fresh Triton and Inductor caches:

1. ``contained``: the recipe; outputs against eager, and the compiles that
   ran in children;
2. ``plain``: no guard, Inductor's defaults (its process pool), for the time;
3. ``injected``: the recipe, and a stand-in for an unknown compiler failure:
   the LLVM lowering of every 8-warp compile aborts (SIGABRT). max-autotune
   must run to the end, skip those choices, record every failure, and give
   the right answer;
4. ``unguarded``: the same stand-in and settings without the guard, in a
   child process: what a user gets today (expected: the process dies).

A JSON summary goes to stdout (and to ``--json``); the exit status is 1 when
a check fails.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

import torch

PHASES = ("contained", "plain", "injected")


def fresh_caches() -> None:
    import torch._inductor.config as ic

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="llt-inductor-triton-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="llt-inductor-")
    for name, value in (
        ("force_disable_caches", True),
        ("fx_graph_cache", False),
        ("autotune_local_cache", False),
        ("autotune_remote_cache", False),
    ):
        if hasattr(ic, name):
            setattr(ic, name, value)
    torch._dynamo.reset()


def inject_abort_at_8_warps() -> None:
    """Make the LLVM lowering of every 8-warp compile abort, as an unknown assertion would."""
    from triton.backends import backends

    cls = backends["nvidia"].compiler
    static = isinstance(inspect.getattr_static(cls, "make_llir"), staticmethod)
    original = cls.make_llir

    def make_llir(*args: Any) -> Any:
        if args[-2].num_warps == 8:
            sys.stderr.write("stand-in.cpp:42: void standIn(): Assertion `unmodelled' failed.\n")
            sys.stderr.flush()
            os.abort()
        return original(*args)

    cls.make_llir = staticmethod(make_llir) if static else make_llir


def model(a: Any, b: Any, q: Any, k: Any, v: Any) -> tuple[Any, Any]:
    attn = torch.softmax((q @ k.transpose(-1, -2)) * 0.125, dim=-1) @ v
    return a @ b, attn


def inputs() -> list[Any]:
    g = torch.Generator(device="cuda").manual_seed(0)

    def t(*shape: int) -> Any:
        return torch.randn(shape, device="cuda", dtype=torch.float16, generator=g)

    return [t(2048, 2048), t(2048, 2048), t(16, 1024, 64), t(16, 1024, 64), t(16, 1024, 64)]


def close(out: Any, ref: Any) -> float:
    """Largest error relative to the reference's largest magnitude."""
    return float((out.float() - ref.float()).abs().max() / ref.float().abs().max())


_DEFAULT_COMPILE_THREADS: Any = None


def run_phase(phase: str, failures_file: str) -> dict[str, Any]:
    import torch._inductor.config as ic

    global _DEFAULT_COMPILE_THREADS
    if _DEFAULT_COMPILE_THREADS is None:
        _DEFAULT_COMPILE_THREADS = (ic.compile_threads,)
    ic.compile_threads = _DEFAULT_COMPILE_THREADS[0]  # Inductor's own, unless the recipe says
    fresh_caches()
    ic.max_autotune = True
    ic.max_autotune_gemm = True
    result: dict[str, Any] = {"phase": phase}
    guarded = phase in ("contained", "injected")
    if guarded:
        import linear_layout.triton as llt
        from linear_layout.triton import _contain

        llt.install(failures_file=failures_file, timeout=300)
        forks0 = _contain.Stats.forks
        failures0 = len(llt.failures())
    if phase != "plain":
        ic.compile_threads = 1  # the template compiles stay in this process
    if phase in ("injected", "unguarded"):
        inject_abort_at_8_warps()
    args = inputs()
    ref = model(*args)
    compiled = torch.compile(model, mode="max-autotune")
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = compiled(*args)
    torch.cuda.synchronize()
    result["seconds"] = time.perf_counter() - t0
    result["errors"] = [close(o, r) for o, r in zip(out, ref)]
    result["correct"] = all(e < 2e-2 for e in result["errors"])
    if guarded:
        new = llt.failures()[failures0:]
        result["contained_compiles"] = _contain.Stats.forks - forks0
        result["probe_hits"] = _contain.Stats.probe_hits
        result["failures"] = len(new)
        result["failure_endings"] = sorted({f.ending for f in new})
        result["failure_configs"] = [f.config for f in new][:8]
        result["failure_messages"] = sorted({f.message for f in new})[:3]
        result["explained_unknown"] = all(not f.explain.get("known") for f in new)
        result["reproducers"] = sum(1 for f in new if f.reproducer)
        if new:
            with open(failures_file, encoding="utf-8") as fh:
                result["failures_file_lines"] = sum(1 for _ in fh)
        llt.uninstall()
    return result


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--json", help="also write the summary here")
    ap.add_argument("--phase", choices=(*PHASES, "unguarded"), help="run one phase only")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("device_inductor: no CUDA device", file=sys.stderr)
        return 2
    failures_file = os.path.join(tempfile.mkdtemp(prefix="llt-failures-"), "failures.jsonl")
    if args.phase:
        print(json.dumps(run_phase(args.phase, failures_file), default=str))
        return 0
    import triton

    summary: dict[str, Any] = {
        "torch": torch.__version__,
        "triton": triton.__version__,
        "device": torch.cuda.get_device_name(),
        "python": sys.version.split()[0],
        "phases": {},
    }
    problems = []
    for phase in PHASES:
        print(f"== {phase}", file=sys.stderr, flush=True)
        try:
            r = run_phase(phase, failures_file)
        except Exception as e:  # report and go on: one phase must not hide the others
            r = {"phase": phase, "error": f"{type(e).__name__}: {e}"[:2000]}
        summary["phases"][phase] = r
        print(f"   {json.dumps(r, default=str)[:1500]}", file=sys.stderr, flush=True)
        if "error" in r or not r.get("correct"):
            problems.append(f"{phase}: {r.get('error') or 'wrong output'}")
    inj = summary["phases"].get("injected", {})
    if not inj.get("failures") or inj.get("failure_endings") != ["SIGABRT"]:
        problems.append("injected: the 8-warp choices were not contained as SIGABRT")
    print("== unguarded (a child process)", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    try:
        child = subprocess.run(
            [sys.executable, __file__, "--phase", "unguarded"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        summary["phases"]["unguarded"] = {
            "returncode": child.returncode,
            "died_of_sigabrt": child.returncode == -int(signal.SIGABRT),
            "seconds": time.perf_counter() - t0,
            "stderr_tail": child.stderr[-600:],
        }
    except subprocess.TimeoutExpired:
        summary["phases"]["unguarded"] = {"timeout": True}
    print(f"   {summary['phases']['unguarded']}", file=sys.stderr, flush=True)
    summary["problems"] = problems
    summary["ok"] = not problems
    text = json.dumps(summary, indent=1, default=str)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
