"""Compiling, running and checking a Python-language case (in a worker of :mod:`..runner`).

On the CPU (``--dry-run``) a case is compiled with ``triton.compile`` of an
``ASTSource`` carrying the specialization a launch would get, and
self-checked (:func:`selfcheck`).  On a GPU it is launched through the JIT
(``warmup`` first, so a compile is timed and blamed apart from a run), with
every output surrounded by sentinel guards, and compared exactly.  Every
record names the assembler that made its cubin (``ptxas``: path and version,
as the release resolves it for the target, environment overrides included).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import time
from typing import Any

import numpy as np

from ..ptxas import ptxas_of
from .cases import data_of, kernel_of
from .spec import DTYPES, GUARD, SENTINEL_INT, Kernel, compare, representable


def load_kernel(source: str, cache: str) -> Any:
    """Import the source's ``kernel`` (a file of its own: the JIT reads its source back)."""
    name = "llk_" + hashlib.sha256(source.encode()).hexdigest()[:20]
    if name in sys.modules:
        return sys.modules[name].kernel
    d = os.path.join(cache, "lang")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".py")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod.kernel


def compile_cpu(case: dict[str, Any], cache: str) -> tuple[Any, dict[str, Any]]:
    """Compile for the case's target without a GPU: the kernel (or ``None``) and what happened."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    k = kernel_of(case)
    info: dict[str, Any] = {}
    t0 = time.time()
    try:
        fn = load_kernel(k.source, cache)
        src = ASTSource(fn, k.signature(), constexprs=k.constants(), attrs=k.attrs())
        opts = {"num_warps": k.num_warps, "num_stages": k.num_stages}
        compiled = triton.compile(
            src, target=GPUTarget("cuda", case["params"]["cap"], 32), options=opts
        )
    except Exception as e:
        info.update(
            verdict="compile_error",
            exception=type(e).__name__,
            message=_why(e),
            compile_s=round(time.time() - t0, 3),
        )
        return None, info
    info["compile_s"] = round(time.time() - t0, 3)
    info["shared"] = getattr(compiled.metadata, "shared", None)
    return compiled, info


def _why(e: BaseException) -> str:
    """Return a compile failure's message with its cause (a front-end error ends in a caret)."""
    text = str(e).strip()
    if e.__cause__ is not None:
        text += f"\ncause: {type(e.__cause__).__name__}: {e.__cause__}"
    return text[-3000:]


def selfcheck(case: dict[str, Any]) -> list[str]:
    """Return the problems with a case's expectation, found without a GPU (empty: none).

    The inputs are held exactly by their stored types, the expected outputs
    by theirs, every tensor has its declared size, and the data are the same
    when drawn again (the GPU machine draws them itself).
    """
    k = kernel_of(case)
    ins, exp = data_of(case)
    ins2, exp2 = data_of(case)
    problems = []
    for a in k.args:
        if a.kind == "in":
            arr = ins.get(a.name)
            if arr is None or arr.size != a.numel:
                problems.append(f"input {a.name}: {None if arr is None else arr.size} != {a.numel}")
                continue
            if not representable(arr, a.dtype):
                problems.append(f"input {a.name} not exact in {a.dtype}")
            if not np.array_equal(arr, ins2[a.name]):
                problems.append(f"input {a.name} not reproducible")
        elif a.kind == "out":
            arr = exp.get(a.name)
            if arr is None or arr.size != a.numel:
                problems.append(
                    f"output {a.name}: {None if arr is None else arr.size} != {a.numel}"
                )
                continue
            written = arr[~np.isnan(arr)]
            if not representable(written, a.dtype):
                problems.append(f"expected {a.name} not exact in {a.dtype}")
            if written.size and np.abs(written).max() >= 2**24 and DTYPES[a.dtype][3]:
                problems.append(f"expected {a.name} beyond 2**24")
            if not np.array_equal(arr, exp2[a.name], equal_nan=True):
                problems.append(f"expected {a.name} not reproducible")
    return problems


def _tensor(torch: Any, values: np.ndarray, dtype: str) -> Any:
    """Return a device tensor holding ``values`` exactly in ``dtype``."""
    tname = DTYPES[dtype][1]
    flat = np.ascontiguousarray(values, dtype=np.float64).ravel()
    if DTYPES[dtype][3]:
        t = torch.tensor(flat, dtype=torch.float64).to(torch.float32).to(getattr(torch, tname))
    else:
        t = torch.tensor(flat.astype(np.int64), dtype=torch.int64).to(getattr(torch, tname))
    return t.cuda()


def _output(torch: Any, n: int, dtype: str) -> Any:
    """Return an output buffer of ``n`` elements between guards, filled with the sentinel."""
    tdt = getattr(torch, DTYPES[dtype][1])
    if DTYPES[dtype][3]:
        return torch.full((n + 2 * GUARD,), float("nan"), dtype=torch.float32).to(tdt).cuda()
    return torch.full((n + 2 * GUARD,), SENTINEL_INT[dtype], dtype=tdt).cuda()


def _host(t: Any) -> np.ndarray:
    """Return a device tensor's values as float64 (fp8 and bf16 through fp32, exactly)."""
    if t.dtype.is_floating_point:
        return np.asarray(t.float().cpu().tolist(), dtype=np.float64)
    import torch

    return np.asarray(t.to(torch.int64).cpu().tolist(), dtype=np.float64)


def launch_args(
    torch: Any, k: Kernel, ins: dict[str, np.ndarray]
) -> tuple[list[Any], dict[str, Any]]:
    """Return the positional arguments and the outputs (with their guards) by name."""
    args: list[Any] = []
    outs: dict[str, Any] = {}
    for a in k.args:
        if a.kind == "in":
            args.append(_tensor(torch, ins[a.name], a.dtype))
        elif a.kind == "out":
            buf = _output(torch, a.numel, a.dtype)
            outs[a.name] = buf
            args.append(buf[GUARD : GUARD + a.numel])
        else:
            args.append(a.value)
    return args, outs


def run_gpu(worker: Any, case: dict[str, Any], rec: dict[str, Any], say: Any) -> dict[str, Any]:
    """Compile (``warmup``), launch and compare one case on the GPU; fills ``rec``."""
    torch = worker.torch
    k = kernel_of(case)
    rec["ptxas"] = ptxas_of(case["params"]["cap"])
    ins, exp = data_of(case)
    say({"event": "phase", "id": case["id"], "phase": "compile"})
    opts = dict(k.constants(), num_warps=k.num_warps, num_stages=k.num_stages)
    t0 = time.time()
    try:
        fn = load_kernel(k.source, worker.cache)
        args, outs = launch_args(torch, k, ins)
        fn.warmup(*args, grid=k.grid, **opts)
    except Exception as e:
        rec.update(verdict="compile_error", exception=type(e).__name__, message=_why(e))
        return rec
    rec["compile_s"] = round(time.time() - t0, 3)
    say({"event": "phase", "id": case["id"], "phase": "run"})
    try:
        t1 = time.time()
        fn[k.grid](*args, **opts)
        torch.cuda.synchronize()
        rec["run_s"] = round(time.time() - t1, 4)
    except Exception as e:
        rec.update(worker.run_failure(e))
        return rec
    got = {n: _host(t) for n, t in outs.items()}
    rec.update(check_outputs(k, exp, got))
    rec["out_digest"] = out_digest(k, got)
    if rec["verdict"] != "pass":
        rec["outputs"] = pack(got)
    return rec


def out_digest(k: Kernel, got: dict[str, np.ndarray]) -> str:
    """Return a hash of every output's written region (``replay`` re-derives it)."""
    h = hashlib.sha256()
    for a in k.args:
        if a.kind == "out":
            region = np.asarray(got[a.name], dtype=np.float64)[GUARD : GUARD + a.numel]
            if not DTYPES[a.dtype][3]:  # an integer output's sentinel is "left alone" too
                region = np.where(region == SENTINEL_INT[a.dtype], np.nan, region)
            h.update((np.where(np.isnan(region), np.inf, region) + 0.0).tobytes())  # -0.0 is 0.0
    return "z" + h.hexdigest()[:23]


def out_digest_v1(k: Kernel, got: dict[str, np.ndarray]) -> str:
    """Return the digest of the first H200 runs (signed zeros and integer sentinels as written)."""
    h = hashlib.sha256()
    for a in k.args:
        if a.kind == "out":
            region = np.asarray(got[a.name], dtype=np.float64)[GUARD : GUARD + a.numel]
            if not DTYPES[a.dtype][3]:
                region = np.where(np.isnan(region), SENTINEL_INT[a.dtype], region)
            h.update(np.where(np.isnan(region), np.inf, region).tobytes())
    return h.hexdigest()[:24]


def pack(got: dict[str, np.ndarray]) -> str:
    """Return the outputs with their guards, compressed (kept for wrong results, for ``replay``)."""
    import base64
    import json
    import zlib

    plain = {n: [None if np.isnan(v) else float(v) for v in arr] for n, arr in got.items()}
    return base64.b64encode(zlib.compress(json.dumps(plain).encode(), 6)).decode()


def unpack(text: str) -> dict[str, np.ndarray]:
    """Invert :func:`pack`."""
    import base64
    import json
    import zlib

    plain = json.loads(zlib.decompress(base64.b64decode(text)))
    return {
        n: np.array([np.nan if v is None else v for v in vals], dtype=np.float64)
        for n, vals in plain.items()
    }


def job(worker: Any, case: dict[str, Any], rec: dict[str, Any], say: Any) -> dict[str, Any]:
    """One case in a worker: compile and self-check (no GPU), or compile, run and compare."""
    rec["lang"] = case["lang"]
    import triton  # the release that compiles it: refusals are per release

    rec["ran_on"] = triton.__version__
    if worker.gpu:
        return run_gpu(worker, case, rec, say)
    say({"event": "phase", "id": case["id"], "phase": "compile"})
    rec["ptxas"] = ptxas_of(case["params"]["cap"])
    compiled, info = compile_cpu(case, worker.cache)
    rec.update(info)
    if compiled is None:
        return rec
    problems = selfcheck(case)
    if problems:
        rec.update(verdict="selfcheck_failed", message="; ".join(problems)[:4000])
        return rec
    rec["verdict"] = "compiled"
    _, exp = data_of(case)
    k = kernel_of(case)
    rec["out_digest"] = out_digest(
        k,
        {
            n: np.concatenate([np.full(GUARD, np.nan), v, np.full(GUARD, np.nan)])
            for n, v in exp.items()
        },
    )
    return rec


def check_outputs(
    k: Kernel, exp: dict[str, np.ndarray], got: dict[str, np.ndarray]
) -> dict[str, Any]:
    """Return the verdict of guarded outputs ``got`` (host copies) against ``exp``.

    Also what ``replay`` re-derives from recorded outputs.
    """
    res: dict[str, Any] = {"verdict": "pass"}
    bad = {}
    for a in k.args:
        if a.kind != "out":
            continue
        buf = got[a.name]
        guards = np.concatenate([buf[:GUARD], buf[GUARD + a.numel :]])
        sentinel = np.nan if DTYPES[a.dtype][3] else SENTINEL_INT[a.dtype]
        guard_hit = not (
            np.all(np.isnan(guards)) if DTYPES[a.dtype][3] else np.all(guards == sentinel)
        )
        r = compare(exp[a.name], buf[GUARD : GUARD + a.numel], a.dtype)
        if guard_hit and r["verdict"] == "pass":
            r = {"verdict": "wrong", "kind": "out_of_bounds_write"}
        if r["verdict"] != "pass":
            bad[a.name] = r
    if bad:
        first = next(iter(bad.values()))
        res = {"verdict": "wrong", "kind": first["kind"], "outputs_wrong": bad}
    return res
