# ruff: noqa: N803  (Triton constexpr arguments are upper case by convention)
"""Autotune real kernels on a GPU, without and with ``linear_layout.triton``, side by side.

Usage, from the repository root, with ``linear_layout`` importable (the wheel
installed with ``pip install --no-deps``, or the source tree with its native
extension on ``PYTHONPATH``) next to Triton, torch and CUDA::

    python python/tests/llt/device_autotune.py [--rounds 2] [--json OUT] [--quick]

For each case, ``triton.autotune`` runs ``--rounds`` times each way, the
two ways alternating, each time with a fresh Triton cache and fresh JIT and
autotuner objects, so every configuration really compiles and benchmarks:

- plain: no guard, no pruner, over the configurations that compile;
- guarded: ``llt.install()`` (the model's check and containment) and
  ``prune_configs_by={"early_config_prune": llt.prune}``, over the whole list
  (for the fp8 case it holds configurations Triton refuses to compile, which
  make a plain autotune raise). ``prune`` compiles every configuration up
  front in parallel forked children; the autotuner then loads the kept ones
  from Triton's cache.

The cases: the tutorial fp16 matmul and its 8 autotuning configurations;
a flash-attention forward kernel (online softmax over key blocks, BLOCK_M,
BLOCK_N, warps and stages varied); flash-linear-attention's chained dots
(``chain-b``: ``O = D @ (A @ B)``, bf16, block N, warps and stages varied);
an fp8 matmul whose list also has ``BLOCK_K = 16``, which Triton refuses for
8-bit dots (a front-end rejection, ``CompilationError``, which the
autotuner does not skip).

Checked (the exit status is 1 when any check fails):

- the guarded run benchmarks exactly the configurations the plain run does
  (prune drops exactly the failing ones), and picks the same best
  configuration, or one whose plain-run timing is within ``--noise`` of the
  plain winner's (two configurations a benchmark cannot tell apart);
- outputs: both runs match the torch reference, and are bitwise equal when
  the same configuration won;
- without the pruner, the list with failing configurations makes the plain
  autotune raise (recorded, not a failure: that is what the pruner is for).

Measured: the autotune wall time of each run (first call, compile and
benchmark included; prune's own time in the guarded run), the cost of a
``fork`` in this process (CUDA context and torch loaded), and, with
``--contain-overhead``, each configuration compiled plain and contained
(``guard()``), alternately, with a fresh cache. A JSON summary goes to stdout
(and to ``--json``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import triton
import triton.language as tl

import linear_layout
import linear_layout.triton as llt

# ------------------------------------------------------------------ kernels
# Undecorated: each run makes fresh JIT functions (their own in-memory cache).


def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def chain_b_kernel(
    a_ptr,
    b_ptr,
    d_ptr,
    o_ptr,
    N,
    M: tl.constexpr,
    K: tl.constexpr,
    X: tl.constexpr,
    BN: tl.constexpr,
):
    # One (head, column block) per program: P = A[M,K] @ B[K,BN] cast to the
    # input type, then O[X,BN] = D[X,M] @ P (flash-linear-attention's shape).
    pid_n = tl.program_id(0)
    head = tl.program_id(1)
    rows = tl.arange(0, M)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, K)
    xs = tl.arange(0, X)
    a = tl.load(a_ptr + head * M * K + rows[:, None] * K + ks[None, :])
    b = tl.load(b_ptr + head * K * N + ks[:, None] * N + cols[None, :])
    p = tl.dot(a, b).to(a_ptr.dtype.element_ty)
    d = tl.load(d_ptr + head * X * M + xs[:, None] * M + rows[None, :])
    o = tl.dot(d, p)
    tl.store(o_ptr + head * X * N + xs[:, None] * N + cols[None, :], o.to(o_ptr.dtype.element_ty))


def attention_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    sm_scale,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # One (query block, head) per program; the keys and values of the head
    # stream through in BLOCK_N rows, with the running max and sum of an
    # online softmax (base 2).
    start_m = tl.program_id(0)
    base = tl.program_id(1) * N_CTX * HEAD_DIM
    rows = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :])
    running_max = tl.full([BLOCK_M], float("-inf"), tl.float32)
    running_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    scale = sm_scale * 1.4426950408889634
    for start in range(0, N_CTX, BLOCK_N):
        keys = start + cols
        k = tl.load(k_ptr + base + keys[:, None] * HEAD_DIM + dims[None, :])
        scores = tl.dot(q, tl.trans(k)) * scale
        new_max = tl.maximum(running_max, tl.max(scores, 1))
        p = tl.math.exp2(scores - new_max[:, None])
        correction = tl.math.exp2(running_max - new_max)
        running_sum = running_sum * correction + tl.sum(p, 1)
        v = tl.load(v_ptr + base + keys[:, None] * HEAD_DIM + dims[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc * correction[:, None])
        running_max = new_max
    out = (acc / running_sum[:, None]).to(o_ptr.dtype.element_ty)
    tl.store(o_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], out)


# -------------------------------------------------------------------- cases


@dataclass
class Case:
    """One autotuning problem: a kernel, its configurations, inputs and reference."""

    name: str
    kernel: Callable[..., Any]
    configs: list[Any]
    key: list[str]
    make_inputs: Callable[[], dict[str, Any]]
    launch: Callable[[Any, dict[str, Any]], Any]  # (kernel, inputs) -> output tensor
    reference: Callable[[dict[str, Any]], Any]
    atol: float
    rtol: float
    compile_args: Callable[[dict[str, Any], Any], tuple[list[Any], dict[str, Any]]]
    # configurations Triton refuses (dropped by prune; left out of the plain run)
    failing: list[Any] = field(default_factory=list)


def cfg(num_warps: int, num_stages: int, **kwargs: int) -> Any:
    return triton.Config(kwargs, num_warps=num_warps, num_stages=num_stages)


def config_id(c: Any) -> str:
    kw = ", ".join(f"{k}={v}" for k, v in sorted(c.kwargs.items()))
    return f"{kw}, num_warps={c.num_warps}, num_stages={c.num_stages}"


def matmul_case(dtype: torch.dtype, size: int, quick: bool) -> Case:
    fp8 = dtype != torch.float16
    if fp8:
        configs = [
            cfg(8, 3, BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=128, GROUP_SIZE_M=8),
            cfg(4, 4, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=128, GROUP_SIZE_M=8),
            cfg(4, 4, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8),
            cfg(4, 4, BLOCK_SIZE_M=64, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8),
            cfg(4, 5, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8),
        ]
        # Triton refuses 8-bit dots with K < 32 (the finder's dot_k site)
        failing = [
            cfg(4, 4, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=16, GROUP_SIZE_M=8),
            cfg(4, 5, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=16, GROUP_SIZE_M=8),
        ]
    else:
        # the tutorial's CUDA list (03-matrix-multiplication.py)
        configs = [
            cfg(8, 3, BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8),
            cfg(4, 4, BLOCK_SIZE_M=64, BLOCK_SIZE_N=256, BLOCK_SIZE_K=32, GROUP_SIZE_M=8),
            cfg(4, 4, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=32, GROUP_SIZE_M=8),
            cfg(4, 4, BLOCK_SIZE_M=128, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8),
            cfg(4, 4, BLOCK_SIZE_M=64, BLOCK_SIZE_N=128, BLOCK_SIZE_K=32, GROUP_SIZE_M=8),
            cfg(4, 4, BLOCK_SIZE_M=128, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=8),
            cfg(2, 5, BLOCK_SIZE_M=64, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=8),
            cfg(2, 5, BLOCK_SIZE_M=32, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8),
        ]
        failing = []
    if quick:
        configs = configs[:3]

    def make_inputs() -> dict[str, Any]:
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn((size, size), device="cuda", generator=g, dtype=torch.float16)
        b = torch.randn((size, size), device="cuda", generator=g, dtype=torch.float16)
        if fp8:
            a, b = a.to(dtype), b.T.contiguous().T.to(dtype)  # b column-major, as fp8 wgmma likes
        out_dtype = torch.float16
        return {"a": a, "b": b, "c": torch.empty((size, size), device="cuda", dtype=out_dtype)}

    def args(i: dict[str, Any]) -> list[Any]:
        a, b, c = i["a"], i["b"], i["c"]
        m, k = a.shape
        n = b.shape[1]
        return [
            a,
            b,
            c,
            m,
            n,
            k,
            a.stride(0),
            a.stride(1),
            b.stride(0),
            b.stride(1),
            c.stride(0),
            c.stride(1),
        ]

    def launch(kernel: Any, i: dict[str, Any]) -> Any:
        m, n = i["a"].shape[0], i["b"].shape[1]

        def grid(meta: dict[str, Any]) -> tuple[int]:
            return (triton.cdiv(m, meta["BLOCK_SIZE_M"]) * triton.cdiv(n, meta["BLOCK_SIZE_N"]),)

        kernel[grid](*args(i))
        return i["c"]

    def reference(i: dict[str, Any]) -> Any:
        return (i["a"].to(torch.float32) @ i["b"].to(torch.float32)).to(torch.float16)

    def compile_args(i: dict[str, Any], c: Any) -> tuple[list[Any], dict[str, Any]]:
        return args(i), {**c.kwargs, "num_warps": c.num_warps, "num_stages": c.num_stages}

    name = "matmul_fp8" if fp8 else "matmul_fp16"
    return Case(
        name,
        matmul_kernel,
        configs,
        ["M", "N", "K"],
        make_inputs,
        launch,
        reference,
        atol=0.5 if fp8 else 0.1,
        rtol=0.05 if fp8 else 0.01,
        compile_args=compile_args,
        failing=failing,
    )


def chain_b_case(quick: bool) -> Case:
    heads, m, k, x, n = 64, 64, 64, 64, 1024
    configs = [cfg(w, s, BN=bn) for bn in (32, 64, 128) for w in (4, 8) for s in (1, 2)]
    if quick:
        configs = configs[:4]

    def make_inputs() -> dict[str, Any]:
        g = torch.Generator(device="cuda").manual_seed(0)

        def t(*shape: int) -> Any:
            return torch.randn(shape, device="cuda", generator=g, dtype=torch.bfloat16) / 8

        return {
            "a": t(heads, m, k),
            "b": t(heads, k, n),
            "d": t(heads, x, m),
            "o": torch.empty((heads, x, n), device="cuda", dtype=torch.bfloat16),
        }

    def launch(kernel: Any, i: dict[str, Any]) -> Any:
        def grid(meta: dict[str, Any]) -> tuple[int, int]:
            return (n // meta["BN"], heads)

        kernel[grid](i["a"], i["b"], i["d"], i["o"], n, M=m, K=k, X=x)
        return i["o"]

    def reference(i: dict[str, Any]) -> Any:
        p = (i["a"].float() @ i["b"].float()).to(torch.bfloat16)
        return (i["d"].float() @ p.float()).to(torch.bfloat16)

    def compile_args(i: dict[str, Any], c: Any) -> tuple[list[Any], dict[str, Any]]:
        return [i["a"], i["b"], i["d"], i["o"], n], {
            "M": m,
            "K": k,
            "X": x,
            **c.kwargs,
            "num_warps": c.num_warps,
            "num_stages": c.num_stages,
        }

    return Case(
        "chain_b",
        chain_b_kernel,
        configs,
        ["N"],
        make_inputs,
        launch,
        reference,
        atol=0.05,
        rtol=0.02,
        compile_args=compile_args,
    )


def attention_case(quick: bool) -> Case:
    heads, n_ctx, head_dim = 32, 2048, 64
    configs = [
        cfg(w, s, BLOCK_M=bm, BLOCK_N=bn)
        for bm in (64, 128)
        for bn in (32, 64)
        for w in (4, 8)
        for s in (2, 3)
    ]
    if quick:
        configs = configs[:4]

    def make_inputs() -> dict[str, Any]:
        g = torch.Generator(device="cuda").manual_seed(0)

        def t() -> Any:
            shape = (heads, n_ctx, head_dim)
            return torch.randn(shape, device="cuda", generator=g, dtype=torch.float16)

        return {
            "q": t(),
            "k": t(),
            "v": t(),
            "o": torch.empty((heads, n_ctx, head_dim), device="cuda", dtype=torch.float16),
        }

    scale = head_dim**-0.5

    def launch(kernel: Any, i: dict[str, Any]) -> Any:
        def grid(meta: dict[str, Any]) -> tuple[int, int]:
            return (n_ctx // meta["BLOCK_M"], heads)

        kernel[grid](i["q"], i["k"], i["v"], i["o"], scale, n_ctx, HEAD_DIM=head_dim)
        return i["o"]

    def reference(i: dict[str, Any]) -> Any:
        s = (i["q"].float() @ i["k"].float().transpose(1, 2)) * scale
        return (torch.softmax(s, dim=-1) @ i["v"].float()).to(torch.float16)

    def compile_args(i: dict[str, Any], c: Any) -> tuple[list[Any], dict[str, Any]]:
        return [i["q"], i["k"], i["v"], i["o"], scale, n_ctx], {
            "HEAD_DIM": head_dim,
            **c.kwargs,
            "num_warps": c.num_warps,
            "num_stages": c.num_stages,
        }

    return Case(
        "attention",
        attention_kernel,
        configs,
        ["N_CTX"],
        make_inputs,
        launch,
        reference,
        atol=0.02,
        rtol=0.02,
        compile_args=compile_args,
    )


# ------------------------------------------------------------------ running


def fresh_cache() -> str:
    d = tempfile.mkdtemp(prefix="llt-device-")
    os.environ["TRITON_CACHE_DIR"] = d
    return d


@dataclass
class Run:
    seconds: float = 0.0
    prune_seconds: float = 0.0
    best: str | None = None
    benchmarked: dict[str, float] = field(default_factory=dict)
    output: Any = None
    error: str | None = None


def autotune_once(case: Case, configs: list[Any], guarded: bool, inputs: dict[str, Any]) -> Run:
    run = Run()
    cache = fresh_cache()
    prune_kw: dict[str, Any] = {}
    if guarded:

        def timed_prune(configs: Any, named_args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return llt.prune(configs, named_args, **kwargs)
            finally:
                run.prune_seconds += time.perf_counter() - t0

        prune_kw = {"prune_configs_by": {"early_config_prune": timed_prune}}
        llt.install()
    try:
        kernel = triton.autotune(configs=configs, key=case.key, **prune_kw)(triton.jit(case.kernel))
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        try:
            out = case.launch(kernel, inputs)
            torch.cuda.synchronize()
        except Exception as e:  # a plain autotune over failing configurations
            run.error = (
                f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"
            )
            return run
        run.seconds = time.perf_counter() - t0
        run.best = config_id(kernel.best_config)
        timings = getattr(kernel, "configs_timings", None) or {}
        run.benchmarked = {
            config_id(c): float(t[0] if isinstance(t, (list, tuple)) else t)
            for c, t in timings.items()
        }
        run.output = out.clone()
        return run
    finally:
        if guarded:
            llt.uninstall()
        shutil.rmtree(cache, ignore_errors=True)


def contain_overhead(
    case: Case, inputs: dict[str, Any], repeats: int, count: int
) -> list[dict[str, Any]]:
    """The first ``count`` configurations compiled in this process and contained, alternately."""
    rows = []
    for c in case.configs[:count]:
        args, kw = case.compile_args(inputs, c)
        m: dict[str, list[float]] = {"plain": [], "contained": []}
        for r in range(repeats):
            for what in ("plain", "contained") if r % 2 == 0 else ("contained", "plain"):
                cache = fresh_cache()
                fn = triton.jit(case.kernel)
                with llt.guard() if what == "contained" else contextlib.nullcontext():
                    t0 = time.perf_counter()
                    fn.run(*args, grid=(1,), warmup=True, **kw)
                    m[what].append(time.perf_counter() - t0)
                shutil.rmtree(cache, ignore_errors=True)
        row: dict[str, Any] = {k: statistics.median(v) for k, v in m.items()}
        row["config"] = config_id(c)
        row["share"] = (row["contained"] - row["plain"]) / row["plain"]
        rows.append(row)
        print(
            f"  compile {case.name} {row['config']}: plain {row['plain']:.3f}s contained "
            f"{row['contained']:.3f}s ({row['share']:+.1%})",
            file=sys.stderr,
            flush=True,
        )
    return rows


def fork_cost(n: int = 20) -> dict[str, float]:
    """Seconds per fork + exit + wait of this process, and its resident memory."""
    import resource

    t0 = time.perf_counter()
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return {
        "fork_exit_wait_seconds": (time.perf_counter() - t0) / n,
        "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def compare(
    case: Case, plain: Run, guarded: Run, noise: float, inputs: dict[str, Any]
) -> dict[str, Any]:
    ref = case.reference(inputs)
    out: dict[str, Any] = {
        "plain_seconds": plain.seconds,
        "guarded_seconds": guarded.seconds,
        "guarded_prune_seconds": guarded.prune_seconds,
        "plain_best": plain.best,
        "guarded_best": guarded.best,
        "benchmarked_plain": len(plain.benchmarked),
        "benchmarked_guarded": len(guarded.benchmarked),
    }
    problems = []
    if plain.error or guarded.error:
        problems.append(f"run failed: plain {plain.error}, guarded {guarded.error}")
    else:
        only_plain = sorted(set(plain.benchmarked) - set(guarded.benchmarked))
        only_guarded = sorted(set(guarded.benchmarked) - set(plain.benchmarked))
        if only_plain or only_guarded:
            problems.append(
                f"benchmarked sets differ: plain only {only_plain}, guarded only {only_guarded}"
            )
        if plain.best == guarded.best:
            out["best"] = "same"
            if not torch.equal(plain.output, guarded.output):
                problems.append("same best config, but outputs differ bitwise")
        else:
            win, other = (
                plain.benchmarked.get(plain.best or ""),
                plain.benchmarked.get(guarded.best or ""),
            )
            gap = (other - win) / win if win and other is not None else float("inf")
            out["best"] = (
                f"differs; the guarded pick is {gap:+.1%} slower in the plain run's timings"
            )
            if gap > noise:
                problems.append(f"best config differs beyond noise ({gap:+.1%} > {noise:.0%})")
        for name, run in (("plain", plain), ("guarded", guarded)):
            if not torch.allclose(run.output.float(), ref.float(), atol=case.atol, rtol=case.rtol):
                err = (run.output.float() - ref.float()).abs().max().item()
                problems.append(
                    f"{name} output differs from the torch reference (max abs error {err})"
                )
    out["problems"] = problems
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--rounds", type=int, default=2, help="autotunes per case and way, alternating (default 2)"
    )
    ap.add_argument(
        "--noise",
        type=float,
        default=0.05,
        help="a different best config is accepted within this relative gap (default 0.05)",
    )
    ap.add_argument("--size", type=int, default=4096, help="matmul size (default 4096)")
    ap.add_argument("--quick", action="store_true", help="fewer configurations, one round")
    ap.add_argument("--cases", default="matmul_fp16,attention,chain_b,matmul_fp8")
    ap.add_argument(
        "--contain-overhead",
        type=int,
        default=0,
        metavar="N",
        help="also compile each configuration plain and contained, N times each (default 0)",
    )
    ap.add_argument(
        "--overhead-configs",
        type=int,
        default=4,
        metavar="K",
        help="--contain-overhead compiles the first K configurations of each case (default 4)",
    )
    ap.add_argument("--json", help="also write the summary here")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("device_autotune: no CUDA device", file=sys.stderr)
        return 2
    rounds = 1 if args.quick else args.rounds
    cases = {
        "matmul_fp16": lambda: matmul_case(torch.float16, args.size, args.quick),
        "attention": lambda: attention_case(args.quick),
        "chain_b": lambda: chain_b_case(args.quick),
        "matmul_fp8": lambda: matmul_case(torch.float8_e4m3fn, args.size, args.quick),
    }
    summary: dict[str, Any] = {
        "triton": triton.__version__,
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(),
        "capability": list(torch.cuda.get_device_capability()),
        "cpus": os.cpu_count(),
        "linear_layout": linear_layout.__version__,
        "linear_layout_file": linear_layout.__file__,
        "modelled_release": llt.release(),
        "cases": {},
    }
    failed = False
    for name in args.cases.split(","):
        case = cases[name]()
        inputs = case.make_inputs()
        print(
            f"== {name}: {len(case.configs)} configs (+{len(case.failing)} failing)",
            file=sys.stderr,
            flush=True,
        )
        # warm the process (CUDA context, the first compile's one-off set-up)
        autotune_once(case, case.configs[:1], False, inputs)
        if not summary.get("fork"):
            summary["fork"] = fork_cost()
        result: dict[str, Any] = {
            "configs": len(case.configs),
            "failing_configs": len(case.failing),
        }
        if case.failing:
            # the full list without the pruner: what happens to a plain autotune
            bare = autotune_once(case, case.failing + case.configs, False, inputs)
            result["plain_with_failing_configs"] = bare.error or f"ran, best {bare.best}"
        plains, guardeds = [], []
        for r in range(rounds):
            ways = (False, True) if r % 2 == 0 else (True, False)
            for guarded in ways:
                configs = case.failing + case.configs if guarded else case.configs
                run = autotune_once(case, configs, guarded, inputs)
                (guardeds if guarded else plains).append(run)
        plain, guarded = plains[-1], guardeds[-1]
        result.update(compare(case, plain, guarded, args.noise, inputs))
        result["plain_seconds_all"] = [p.seconds for p in plains]
        result["guarded_seconds_all"] = [g.seconds for g in guardeds]
        result["guarded_prune_seconds_all"] = [g.prune_seconds for g in guardeds]
        p_med = statistics.median(p.seconds for p in plains)
        g_med = statistics.median(g.seconds for g in guardeds)
        result["plain_seconds_median"] = p_med
        result["guarded_seconds_median"] = g_med
        if p_med > 0 and g_med > 0:
            result["autotune_overhead_share"] = (g_med - p_med) / p_med
        if args.contain_overhead:
            rows = contain_overhead(case, inputs, args.contain_overhead, args.overhead_configs)
            result["compile"] = rows
            result["contain_share_median"] = statistics.median(r["share"] for r in rows)
        summary["cases"][name] = result
        failed |= bool(result["problems"])
        print(
            f"   plain {[round(p.seconds, 2) for p in plains]}s, guarded "
            f"{[round(g.seconds, 2) for g in guardeds]}s (prune "
            f"{[round(g.prune_seconds, 2) for g in guardeds]}s); best {result.get('best')}; "
            f"problems: {result['problems'] or 'none'}",
            file=sys.stderr,
            flush=True,
        )
    from linear_layout.triton import _contain

    summary["contain_stats"] = {
        "forks": _contain.Stats.forks,
        "probe_hits": _contain.Stats.probe_hits,
        "memo_hits": _contain.Stats.memo_hits,
        "failures": [f.to_json() for f in llt.failures()],
    }
    summary["ok"] = not failed
    text = json.dumps(summary, indent=1, default=str)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
