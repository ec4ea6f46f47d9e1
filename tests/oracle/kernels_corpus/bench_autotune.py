#!/usr/bin/env python3
"""`scan` against a full compile over a kernel's whole autotune list, side by
side in one run (a benchmark, not a test).

For each kernel below (real public kernels with their own `@triton.autotune`
list, imported from the corpus scratch directory of `record.py fetch`) and
each release:
  scan     the whole `linear-layout scan` command on that list, cold (a fresh
           cache directory): inspection, warm workers (`--jobs`), every front
           end, the model's check, the report;
  compile  what autotuning pays before it can time anything: one fresh process
           that imports Triton and the kernel and compiles every configuration
           of the same list in full, through ptxas to a cubin, one after the
           other (as `Autotuner` does: it compiles each configuration when it
           first times it).
Both are whole commands, timed in wall-clock seconds and in CPU seconds (user
+ system, children included). Per configuration, each side's fixed cost is
taken off: the compile side's import and loading (timed inside it), and
scan's inspection and worker start-up (the same scan command on the list's
first configuration alone, `--config`): scan's cost per configuration is
(whole − one) / (n − 1). Prints a markdown table. The wall ratios count
scan's concurrent workers; the CPU ratios are the work itself, and move
less when the machine is shared.

    python3 tests/oracle/kernels_corpus/bench_autotune.py --scratch DIR \
        --triton 3.9.0 [--triton ...] --binary target/release/linear-layout [--jobs 2]

The compile side runs inside each release's venv as
`bench_autotune.py compile-list ...` (scan's own worker module does the
binding and the stand-in driver, so both sides compile the same launches).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
WORKER_DIR = os.path.join(REPO, "scan", "src")


def P(dtype):
    return {"ptr": dtype}


# (name, package directory, kernel, arguments in the worker's JSON form)
KERNELS = [
    ("torchao matmul", "torchao-0.11.0", "torchao.prototype.common.triton.matmul::_kernel",
     {"A": P("fp16"), "B": P("fp16"), "C": P("fp16"), "M": 4096, "N": 4096, "K": 4096, "stride_am": 4096,
      "stride_ak": 1, "stride_bk": 4096, "stride_bn": 1, "stride_cm": 4096, "stride_cn": 1,
      "acc_dtype": {"tl": "float32"}, "input_precision": "ieee", "fp8_fast_accum": True, "GROUP_M": 8,
      "AB_DTYPE": None}),
    ("fla softmax attention", "flash_linear_attention-0.2.0",
     "fla.ops.attn.parallel::parallel_attn_fwd_kernel",
     {"q": P("bf16"), "k": P("bf16"), "v": P("bf16"), "o": P("bf16"), "g_cumsum": None, "lse": P("fp32"),
      "scale": 0.125, "cu_seqlens": None, "chunk_indices": None, "T": 4096, "B": 2, "H": 8, "HQ": 8, "G": 1,
      "K": 128, "V": 128, "BT": 128, "BS": 64, "BK": 128, "BV": 128, "USE_G": False, "IS_VARLEN": False}),
    ("fla GLA output", "flash_linear_attention-0.2.0", "fla.ops.gla.chunk::chunk_gla_fwd_kernel_o",
     {"q": P("bf16"), "v": P("bf16"), "g": P("fp32"), "h": P("bf16"), "o": P("bf16"), "A": P("bf16"),
      "cu_seqlens": None, "chunk_indices": None, "scale": 0.125, "T": 4096, "H": 8, "K": 128, "V": 128, "BT": 64,
      "IS_VARLEN": False}),
]


def children_cpu():
    """CPU seconds (user + system) of every child this process has waited for."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, **kw):
    """(completed process, wall seconds, CPU seconds of it and its children)."""
    c0, t0 = children_cpu(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return p, time.perf_counter() - t0, children_cpu() - c0


def scan_text(v):
    """A worker-form argument as `scan --args` writes it."""
    if isinstance(v, dict) and "ptr" in v:
        return "*" + v["ptr"]
    if isinstance(v, dict) and "tl" in v:
        return "tl." + v["tl"]
    return repr(v) if isinstance(v, str) else str(v)


def run_scan(binary, version, py, scratch, pkg, kernel, args, arch, jobs, config=None):
    """The whole scan command, cold; `config` replaces the autotune list by one configuration."""
    cache = tempfile.mkdtemp(prefix="bench-scan-")
    cmd = [binary, "scan", kernel, "--path", os.path.join(scratch, pkg), "--path", os.path.join(scratch, "deps"),
           "--args", ", ".join(f"{k}={scan_text(v)}" for k, v in args.items()), "--arch", arch, "--triton",
           version, "--python", f"{version}={py}", "--no-install", "--no-reduce", "--json", "--cache-dir", cache,
           "--jobs", str(jobs)] + (["--config", config] if config else [])
    p, wall, cpu = timed(cmd)
    if p.returncode not in (0, 1):
        raise SystemExit(f"scan failed ({p.returncode}): {p.stderr[-2000:]}")
    report = json.loads(p.stdout)
    return wall, cpu, report["timing"]["ran"]


def run_compile(version, py, scratch, pkg, kernel, args, arch):
    cmd = [py, os.path.abspath(__file__), "compile-list", "--kernel", kernel, "--path", os.path.join(scratch, pkg),
           "--path", os.path.join(scratch, "deps"), "--args", json.dumps(args), "--target", "cuda:" + arch[2:]]
    p, wall, cpu = timed(cmd, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    if p.returncode != 0:
        raise SystemExit(f"compile-list failed ({p.returncode}): {p.stderr[-2000:]}")
    return wall, cpu, json.loads(p.stdout.strip().splitlines()[-1])


def compile_list(a):
    """In a release's venv: import Triton and the kernel, then compile every
    configuration of its autotune list in full (ptxas included), in this
    process, one after the other. Prints one JSON line."""
    t0 = time.perf_counter()
    sys.path.insert(0, WORKER_DIR)
    import worker as W
    import triton.compiler.compiler as cc
    target = W.parse_target(a.target)
    state = {"driver": W.install_driver(target), "torch": W.ensure_torch(target)}
    obj, _, _ = W.load_kernel(a.kernel, a.path)
    wrappers, state["jit"] = W.layers(obj)
    from triton.runtime.autotuner import Autotuner, Heuristics
    state["heuristics"] = [w for w in wrappers if isinstance(w, Heuristics)]
    tuner = next(w for w in wrappers if isinstance(w, Autotuner))
    given = json.loads(a.args)
    started = time.perf_counter() - t0
    started_cpu = own_cpu()
    orig = cc.make_backend
    work = tempfile.mkdtemp(prefix="bench-compile-")
    outcomes = {}
    for i, cfg in enumerate(tuner.configs):
        opts = {k: getattr(cfg, k) for k in ("num_warps", "num_stages", "num_ctas") if getattr(cfg, k, None)}
        job = {"op": "compile", "ptxas": True, "args": given, "kwargs": dict(cfg.kwargs), "options": opts,
               "heuristics": True}
        os.environ["TRITON_CACHE_DIR"] = os.path.join(work, f"cache{i}")
        try:
            W.run_job(state, job, os.path.join(work, "ttgir"), os.path.join(work, "status"))
            key = "ok"
        except Exception as e:  # noqa: BLE001 -- a failing configuration is an outcome, as in autotuning
            key = type(e).__name__
        finally:
            cc.make_backend = orig
        outcomes[key] = outcomes.get(key, 0) + 1
    first = tuner.configs[0]
    first_text = ", ".join([f"{k}={v}" for k, v in first.kwargs.items()] +
                           [f"{k}={getattr(first, k)}" for k in ("num_warps", "num_stages", "num_ctas")
                            if getattr(first, k, None)])
    print(json.dumps({"configs": len(tuner.configs), "startup_s": started, "startup_cpu": started_cpu,
                      "outcomes": outcomes, "first": first_text}))
    return 0


def own_cpu():
    """CPU seconds of this process and the children it waited for (ptxas)."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "compile-list":
        ap = argparse.ArgumentParser()
        ap.add_argument("cmd")
        ap.add_argument("--kernel", required=True)
        ap.add_argument("--path", action="append", default=[])
        ap.add_argument("--args", required=True)
        ap.add_argument("--target", default="cuda:90")
        return compile_list(ap.parse_args())
    ap = argparse.ArgumentParser()
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--triton", action="append", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--arch", default="sm90")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", help="run only the kernels whose name contains this")
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(HERE))
    from harness import venvs
    rows = []
    for version in args.triton:
        py = venvs.python(version)
        for name, pkg, kernel, kargs in KERNELS:
            if args.only and args.only not in name:
                continue
            s_wall, s_cpu, _ = run_scan(args.binary, version, py, args.scratch, pkg, kernel, kargs, args.arch,
                                            args.jobs)
            c_wall, c_cpu, got = run_compile(version, py, args.scratch, pkg, kernel, kargs, args.arch)
            # scan's fixed cost: the same command on the list's first configuration alone
            o_wall, o_cpu, _ = run_scan(args.binary, version, py, args.scratch, pkg, kernel, kargs, args.arch,
                                        args.jobs, config=got["first"])
            n = got["configs"]
            if not got["outcomes"].get("ok"):
                print(f"{version} {name}: the release compiles none of its configurations ({got['outcomes']}); "
                      "left out", file=sys.stderr, flush=True)
                continue
            rows.append(dict(version=version, name=name, n=n, ok=got["outcomes"].get("ok", 0), sw=s_wall, sc=s_cpu,
                             cw=c_wall, cc=c_cpu, s1w=(s_wall - o_wall) / max(1, n - 1),
                             s1c=(s_cpu - o_cpu) / max(1, n - 1), c1w=(c_wall - got["startup_s"]) / n,
                             c1c=(c_cpu - got["startup_cpu"]) / n))
            print(f"{version} {name}: scan {s_wall:.1f} s ({s_cpu:.1f} s CPU; one configuration {o_wall:.1f} s), "
                  f"compile {c_wall:.1f} s ({c_cpu:.1f} s CPU), {got['outcomes']}", file=sys.stderr, flush=True)
    print("| release | kernel | configs | compiled ok | scan: wall (CPU) s | compile: wall (CPU) s "
          "| compile / scan: wall, CPU | per configuration, ms: scan | compile | compile / scan: wall, CPU |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['version']} | {r['name']} | {r['n']} | {r['ok']} | {r['sw']:.1f} ({r['sc']:.1f}) "
              f"| {r['cw']:.1f} ({r['cc']:.1f}) | {r['cw'] / r['sw']:.1f}x, {r['cc'] / r['sc']:.1f}x "
              f"| {1000 * r['s1w']:.0f} ({1000 * r['s1c']:.0f}) | {1000 * r['c1w']:.0f} ({1000 * r['c1c']:.0f}) "
              f"| {r['c1w'] / max(1e-9, r['s1w']):.1f}x, {r['c1c'] / max(1e-9, r['s1c']):.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
