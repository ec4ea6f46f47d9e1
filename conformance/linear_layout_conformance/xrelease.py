"""Running other releases' kernels on the GPU machine, which has one Triton.

The GPU machine has Triton 3.6.0 and cannot fetch other wheels; every wheel
compiles here on CPU. ``pack`` (run under a wheel's python, no GPU) compiles
the cases of a file and writes, per case, the cubin, its entry name, its
shared-memory size and warp count, and the case itself. ``xrun`` (on the GPU
machine, torch and any Triton) loads each cubin through the CUDA driver
(``ctypes``: ``cuModuleLoadData``, ``cuLaunchKernel``), launches it with the
case's inputs exactly as the worker does, and classifies the outputs: so a
finding's "releases tried" covers every wheel on real hardware.

Each kernel runs in a fresh process (``--index``): an illegal address poisons
the CUDA context, and the next kernel must not inherit it.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any


def _read(path: str) -> list[dict[str, Any]]:
    if path.endswith((".jsonl", ".jsonl.gz")):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            return [json.loads(line) for line in f if line.strip()]
    with open(path) as f:
        return [json.load(f)]


def pack(args: Any) -> int:
    """``pack FILE --out OUT.jsonl [--workaround NAME] [--ptxas PATH]``: compile every case.

    With ``--ptxas`` the PTX of this Triton is assembled by that ``ptxas``
    (another wheel's), so a GPU run tells Triton's code from the assembler's.
    """
    import triton
    from triton.backends.compiler import GPUTarget

    from .workaround import WORKAROUNDS

    n = 0
    with open(args.out, "a") as out:
        for obj in _read(args.file):
            case = dict(obj.get("case", obj))
            tag = triton.__version__
            if args.ptxas:
                tag += "+ptxas-" + _ptxas_version(args.ptxas)
            if args.workaround:
                case["ttgir"] = WORKAROUNDS[args.workaround](
                    case["ttgir"], case["params"]["triton"]
                )
                tag += "+" + args.workaround
            rec: dict[str, Any] = {"id": case["id"], "build": tag, "case": case}
            with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
                f.write(case["ttgir"])
            try:
                k = triton.compile(f.name, target=GPUTarget("cuda", case["params"]["cap"], 32))
            except Exception as e:  # this release refuses the module
                rec["compile_error"] = str(e).strip().splitlines()[-1][:300]
            else:
                ptx = k.asm["ptx"]
                entry = re.search(r"\.entry \w+\((.*?)\)", ptx, re.S)
                cubin = (
                    k.asm["cubin"]
                    if not args.ptxas
                    else _assemble(args.ptxas, ptx, args.ptx_version)
                )
                rec.update(
                    cubin=base64.b64encode(cubin).decode(),
                    name=k.metadata.name,
                    shared=k.metadata.shared,
                    warps=k.metadata.num_warps,
                    nparams=len(re.findall(r"\.param ", entry.group(1))) if entry else 0,
                )
            finally:
                os.unlink(f.name)
            out.write(json.dumps(rec) + "\n")
            n += 1
    print(f"pack: {n} kernels of triton {triton.__version__} -> {args.out}", file=sys.stderr)
    return 0


def _ptxas_version(ptxas: str) -> str:
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else "?"


def _assemble(ptxas: str, ptx: str, version: str | None = None) -> bytes:
    """Assemble ``ptx`` with another release's ``ptxas`` (to tell Triton's code from ptxas').

    ``version`` rewrites the PTX ISA version line, for an older ``ptxas``
    (only sound when the code uses nothing newer: ``ptxas`` refuses it if so).
    """
    if version:
        ptx = re.sub(r"^\.version [\d.]+", f".version {version}", ptx, count=1, flags=re.M)
    target = re.search(r"^\.target (\w+)", ptx, re.M)
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        subprocess.run(
            [ptxas, f"--gpu-name={target.group(1) if target else 'sm_90a'}", src, "-o", dst],
            check=True,
            capture_output=True,
        )
        with open(dst, "rb") as f:
            return f.read()


def _driver_launcher(rec: dict[str, Any]) -> Any:
    """Return ``launch(*pointers)`` for the packed kernel, through the CUDA driver API."""
    import ctypes

    import torch

    torch.zeros(1, device="cuda")  # makes the primary context current on this thread
    cuda = ctypes.CDLL("libcuda.so.1")

    def ok(rc: int, what: str) -> None:
        if rc != 0:
            raise RuntimeError(f"CUDA driver error {rc} in {what}")

    image = base64.b64decode(rec["cubin"])
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    ok(cuda.cuModuleLoadData(ctypes.byref(mod), image), "cuModuleLoadData")
    ok(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, rec["name"].encode()), "cuModuleGetFunction")
    shared = int(rec["shared"] or 0)
    if shared > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        ok(cuda.cuFuncSetAttribute(fn, 8, shared), "cuFuncSetAttribute")
    nparams = int(rec["nparams"])

    def launch(*ptrs: int) -> None:
        # the pointer arguments, then the scratch pointers Triton appends (unused: null)
        vals = (ctypes.c_uint64 * nparams)(*(list(ptrs) + [0] * (nparams - len(ptrs))))
        params = (ctypes.c_void_p * nparams)(
            *[ctypes.addressof(vals) + 8 * i for i in range(nparams)]
        )
        ok(
            cuda.cuLaunchKernel(
                fn, 1, 1, 1, 32 * int(rec["warps"]), 1, 1, shared, None, params, None
            ),
            "cuLaunchKernel",
        )

    return launch


def run_one(rec: dict[str, Any]) -> dict[str, Any]:
    """Launch one packed kernel on this machine's GPU and classify its outputs."""
    from .classify import check
    from .plan import make_plan
    from .worker import Worker, case_program, cuda_error_kind

    out: dict[str, Any] = {"id": rec["id"], "build": rec["build"]}
    if "compile_error" in rec:
        out.update(verdict="compile_error", message=rec["compile_error"])
        return out
    case = rec["case"]
    prog = case_program(case)
    plan = make_plan(prog, case["id"])
    with tempfile.TemporaryDirectory() as tmp:
        worker = Worker(gpu=True, cache=tmp, log_path=None)
        try:
            outputs, _ = worker.run(_driver_launcher(rec), prog, plan)
        except Exception as e:
            msg = str(e)
            out.update(verdict=cuda_error_kind(msg), message=msg.strip().splitlines()[0][:200])
            return out
    res = check(prog, plan, outputs)
    out.update({k: res.get(k) for k in ("verdict", "kind", "wrong")})
    out["map"] = (res.get("map") or {}).get("name")
    return out


def xrun(args: Any) -> int:
    """``xrun PACKED.jsonl[.gz] [--jobs N]``: every packed kernel, each in a fresh process."""
    recs = _read(args.packed)
    n = len(recs)
    if args.index is not None:
        print(json.dumps(run_one(recs[args.index])), flush=True)
        return 0
    del recs
    me = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__main__.py")
    from concurrent.futures import ThreadPoolExecutor

    def one(i: int) -> str:
        p = subprocess.run(
            [sys.executable, me, "xrun", args.packed, "--index", str(i)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
        if lines:
            return lines[-1]
        return json.dumps({"index": i, "verdict": "crash", "stderr": p.stderr[-500:]})

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for line in pool.map(one, range(n)):
            print(line, flush=True)
    return 0
