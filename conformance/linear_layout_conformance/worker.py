"""A worker process: compiles cases with Triton and, on a GPU, runs them.

Started by :mod:`.runner`, one per core.  Reads one JSON job per line on
stdin, answers JSON lines on its original stdout (any other output of
Triton, ptxas or torch goes to stderr, the worker's log); before each phase
it announces it (``compile``, ``run``) so that the parent can tell a hang in
a kernel from a slow compile, and an abort in the compiler from a crash on
the GPU.  After a CUDA error the context is unusable: the worker reports and
exits, and the parent starts a fresh one.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import sys
import time
import traceback
import zlib
from typing import IO, Any

from .classify import check
from .layouts import BITS, Dialect
from .oracle import Oracle
from .plan import Plan, make_plan
from .program import Program, build

CUDA_ERRORS = (
    ("illegal memory access", "illegal_access"),
    ("misaligned address", "misaligned_address"),
    ("illegal instruction", "illegal_instruction"),
    ("address space", "invalid_address_space"),
    ("hardware stack error", "hardware_stack_error"),
    ("invalid program counter", "invalid_pc"),
    ("unspecified launch failure", "launch_failure"),
    ("device-side assert triggered", "device_assert"),
)
GUARD = 64  # sentinel elements on each side of every output


def cuda_error_kind(message: str) -> str:
    """Name the CUDA error of an exception message (``launch_error`` if none).

    Only the error lines count: torch appends hints to every CUDA error
    ("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions"),
    which once made every misaligned address a ``device_assert``.
    """
    lines = [ln for ln in message.splitlines() if "error" in ln.lower()] or [message]
    for ln in lines:
        for needle, name in CUDA_ERRORS:
            if needle in ln:
                return name
    return "launch_error"


def environment(gpu: bool) -> dict[str, Any]:
    """Versions and device of this worker (recorded in the run's summary)."""
    import platform

    env: dict[str, Any] = {"python": platform.python_version()}
    try:
        import triton

        env["triton"] = triton.__version__
    except Exception as e:  # pragma: no cover - the worker needs triton anyway
        env["triton"] = f"? ({e})"
    if gpu:
        try:
            import torch

            env["torch"] = torch.__version__
            env["cuda"] = torch.version.cuda
            env["device"] = torch.cuda.get_device_name()
            env["capability"] = list(torch.cuda.get_device_capability())
        except Exception as e:
            env["torch_error"] = f"{type(e).__name__}: {e}"
    return env


def case_oracle(case: dict[str, Any]) -> Oracle:
    """Return the oracle of a case: the answers its table holds, for its release."""
    return Oracle(case["params"]["triton"], table=case.get("table"))


def case_program(case: dict[str, Any]) -> Program:
    """Rebuild a case's program from its parameters and saved layouts."""
    return build(case["params"], case_oracle(case))


def digest(outputs: list[list[int]]) -> str:
    """Return a short hash of the outputs of every launch."""
    h = hashlib.sha256()
    for o in outputs:
        h.update(json.dumps(o, separators=(",", ":")).encode())
    return h.hexdigest()[:24]


def exact_digest(plan: Plan, outputs: list[list[int]]) -> str:
    """Return the digest of the outputs of the exact launches.

    That is what ``replay`` re-derives for passing cases.
    """
    return digest([list(o) for launch, o in zip(plan.launches, outputs) if launch.kind == "exact"])


def pack_outputs(outputs: list[list[int]]) -> str:
    """Pack the outputs as compressed text (kept for wrong results, for replay)."""
    return base64.b64encode(zlib.compress(json.dumps(outputs).encode(), 6)).decode()


def unpack_outputs(text: str) -> list[list[int]]:
    """Invert :func:`pack_outputs`."""
    return json.loads(zlib.decompress(base64.b64decode(text)))


class Worker:
    """State kept between jobs: the Triton modules, torch, the cache."""

    def __init__(
        self, gpu: bool, cache: str, log_path: str | None, simulate: str | None = None
    ) -> None:
        self.gpu = gpu
        self.simulate = json.loads(simulate) if simulate else None
        self.cache = cache
        self.log_path = log_path
        os.makedirs(os.path.join(cache, "ttgir"), exist_ok=True)
        import triton
        from triton.backends.compiler import GPUTarget

        self.triton = triton
        self.GPUTarget = GPUTarget
        self.torch: Any = None
        if gpu:
            import torch

            self.torch = torch
            torch.cuda.init()
            if hasattr(triton, "set_allocator"):  # kernels needing global scratch memory
                triton.set_allocator(
                    lambda size, alignment, stream: torch.empty(
                        size, dtype=torch.int8, device="cuda"
                    )
                )

    # ------------------------------------------------------------ compile

    def log_offset(self) -> int:
        """Return the size of this worker's log (where the next diagnostics start)."""
        try:
            return os.path.getsize(self.log_path) if self.log_path else 0
        except OSError:
            return 0

    def log_since(self, offset: int) -> str:
        """Return what the log got since ``offset``."""
        if not self.log_path:
            return ""
        sys.stderr.flush()
        try:
            with open(self.log_path, errors="replace") as f:
                f.seek(offset)
                return f.read()[-20000:]
        except OSError:
            return ""

    def compile(self, text: str, cap: int) -> tuple[Any, dict[str, Any]]:
        """Compile ``text`` for ``sm{cap}``: the kernel (or ``None``) and what happened."""
        name = hashlib.sha256(text.encode()).hexdigest()[:20]
        path = os.path.join(self.cache, "ttgir", f"{name}.ttgir")
        if not os.path.exists(path):
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        info: dict[str, Any] = {}
        off = self.log_offset()
        t0 = time.time()
        c0 = _cpu()
        try:
            kernel = self.triton.compile(path, target=self.GPUTarget("cuda", cap, 32))
        except Exception as e:
            # The module is parsed and verified first: a failure there means
            # the generator wrote invalid IR (a bug of ours, not Triton's).
            invalid = "Parse MLIR file failed" in str(e)
            info.update(
                verdict="invalid_ir" if invalid else "compile_error",
                exception=type(e).__name__,
                message=(_errors(self.log_since(off)) or str(e))[:4000],
            )
            info["compile_s"] = round(time.time() - t0, 3)
            return None, info
        info["compile_s"] = round(time.time() - t0, 3)
        info["compile_cpu_s"] = round(_cpu() - c0, 3)
        info["shared"] = getattr(kernel.metadata, "shared", None)
        return kernel, info

    # ------------------------------------------------------------ run

    def tensor(
        self, bits_list: list[int], dtype: str, guard: int = 0, fill: int | None = None
    ) -> Any:
        """Return a device tensor of the bit patterns (or of ``fill``, with guards)."""
        torch = self.torch
        b = BITS[dtype]
        tdt = {8: torch.int8, 16: torch.int16, 32: torch.int32}[b]
        half = 1 << (b - 1)
        if fill is not None:
            s = fill - (1 << b) if fill >= half else fill
            t = torch.full((len(bits_list) + 2 * guard,), s, dtype=tdt)
            return t.cuda()
        vals = [x - (1 << b) if x >= half else x for x in bits_list]
        return torch.tensor(vals, dtype=tdt).cuda()

    def run(
        self, launch_fn: Any, prog: Program, plan: Plan
    ) -> tuple[list[list[int]], dict[str, Any]]:
        """Call ``launch_fn(*pointers)`` once per launch of ``plan``: the outputs and timings."""
        torch = self.torch
        out_v = prog.values[prog.output]
        n = out_v.numel
        b = BITS[out_v.dtype]
        sent = (1 << b) - 1
        ins, outs = [], []
        for launch in plan.launches:
            ins.append(
                [
                    self.tensor(launch.inputs[i["name"]], prog.values[i["name"]].dtype)
                    for i in prog.inputs
                ]
            )
            outs.append(self.tensor([0] * n, out_v.dtype, guard=GUARD, fill=sent))
        torch.cuda.synchronize()
        esize = max(b // 8, 1)
        t0 = time.time()
        for args, out in zip(ins, outs):
            ptrs = [t.data_ptr() for t in args] + [out.data_ptr() + GUARD * esize]
            launch_fn(*ptrs)
        torch.cuda.synchronize()
        run_s = time.time() - t0
        mask = (1 << b) - 1
        results, guard_hit = [], False
        for out in outs:
            vals = [x & mask for x in out.cpu().tolist()]
            if any(v != sent for v in vals[:GUARD]) or any(v != sent for v in vals[GUARD + n :]):
                guard_hit = True
            results.append(vals[GUARD : GUARD + n])
        info = {"run_s": round(run_s, 4)}
        if guard_hit:
            info["out_of_bounds_write"] = True
        return results, info

    # ------------------------------------------------------------ a job

    def job(self, job: dict[str, Any], say: Any) -> dict[str, Any]:
        """Compile, run and check one case; return its record."""
        case = job["case"]
        rec: dict[str, Any] = {"id": case["id"], "family": case["params"].get("family")}
        t0 = time.time()
        c0 = _cpu()
        try:
            return self._job(case, rec, t0, say)
        finally:
            rec["cpu_s"] = round(_cpu() - c0, 3)

    def _job(
        self, case: dict[str, Any], rec: dict[str, Any], t0: float, say: Any
    ) -> dict[str, Any]:
        if case.get("lang"):  # a kernel in Triton's Python language (see lang/)
            from .lang.job import job as lang_job

            return lang_job(self, case, rec, say)
        prog = case_program(case)
        text = case.get("ttgir") or ""
        if not text:
            from .emit import emit

            text = emit(prog, Dialect(case_oracle(case)))
        say({"event": "phase", "id": case["id"], "phase": "compile"})
        kernel, info = self.compile(text, case["params"]["cap"])
        rec.update(info)
        from .ptxas import ptxas_of  # the assembler that made (or would make) the cubin

        rec["ptxas"] = ptxas_of(case["params"]["cap"])
        if kernel is None:
            return rec
        tp = time.time()
        plan = make_plan(prog, case["id"])
        rec["plan_s"] = round(time.time() - tp, 3)
        rec["launches"] = len(plan.launches)
        if self.simulate is not None:
            from .fault import applies, simulated_outputs

            fault = self.simulate
            if ("die" in fault or "cuda_error" in fault) and applies(
                prog, fault.get("when", {}), case["id"]
            ):
                # a worker dying on the GPU, or a CUDA error poisoning its context
                say({"event": "phase", "id": case["id"], "phase": "run"})
                if "die" in fault:
                    import signal

                    sys.stderr.flush()
                    os.kill(os.getpid(), getattr(signal, fault["die"]))
                    time.sleep(5)
                rec.update(self.run_failure(RuntimeError(fault["cuda_error"])))
                rec["simulated"] = True
                return rec
            outputs = simulated_outputs(prog, plan, self.simulate)
            res = check(prog, plan, outputs)
            rec.update(res)
            rec["simulated"] = True
            rec["exact_digest"] = exact_digest(plan, outputs)
            if rec["verdict"] != "pass":
                rec["outputs"] = pack_outputs(outputs)
            return rec
        if not self.gpu:
            from .selfcheck import selfcheck

            problems = selfcheck(prog, plan)
            if problems:
                rec.update(verdict="selfcheck_failed", message="; ".join(problems)[:4000])
                return rec
            rec["verdict"] = "compiled"
            rec["exact_digest"] = exact_digest(plan, [list(x.expected) for x in plan.launches])
            return rec
        # Loading builds Triton's launcher for this signature (a C compile the
        # first time) and loads the binary: timed like a compile, not a run.
        say({"event": "phase", "id": case["id"], "phase": "load"})
        try:
            launch_fn = kernel[(1, 1, 1)]
        except Exception as e:
            rec.update(verdict="launch_error", message=str(e)[:2000], exception=type(e).__name__)
            return rec
        say({"event": "phase", "id": case["id"], "phase": "run"})
        try:
            outputs, rinfo = self.run(launch_fn, prog, plan)
        except Exception as e:
            rec.update(self.run_failure(e))
            return rec
        rec.update(rinfo)
        res = check(prog, plan, outputs)
        if rinfo.get("out_of_bounds_write") and res["verdict"] == "pass":
            res = {"verdict": "wrong", "kind": "out_of_bounds_write"}
        rec.update(res)
        rec["exact_digest"] = exact_digest(plan, outputs)
        if rec["verdict"] != "pass":
            rec["outputs"] = pack_outputs(outputs)
        rec["total_s"] = round(time.time() - t0, 3)
        return rec

    @staticmethod
    def run_failure(e: BaseException) -> dict[str, Any]:
        """Return the record fields of an exception raised by a launch.

        ``fatal``: the CUDA context is gone; the worker answers, then exits.
        """
        msg = str(e)
        kind = cuda_error_kind(msg)
        return {
            "verdict": kind,
            "message": msg[:2000],
            "exception": type(e).__name__,
            "fatal": kind != "launch_error" or "CUDA" in msg,
        }


def _cpu() -> float:
    """CPU seconds used by this process and its finished children (ptxas)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _errors(log: str) -> str:
    """Return the diagnostic lines of a compile log (errors and assertions first)."""
    lines = [ln for ln in log.splitlines() if ln.strip()]
    keys = ("error", "Assertion", "LLVM ERROR", "ptxas", "Error", "abort")
    hits = [ln for ln in lines if any(k in ln for k in keys)]
    return "\n".join((hits or lines)[-12:])


def main(argv: list[str] | None = None) -> int:
    """Run a worker (see the module docstring)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--log")
    ap.add_argument("--simulate", help="no GPU: fake outputs with this injected fault (JSON)")
    args = ap.parse_args(argv)
    proto: IO[str] = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # stray prints go to the log
    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)  # a crash leaves its traceback

    def say(msg: dict[str, Any]) -> None:
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    try:
        w = Worker(args.gpu, args.cache, args.log, args.simulate)
    except Exception as e:
        say({"event": "fatal", "message": f"worker setup failed: {type(e).__name__}: {e}"})
        return 2
    say({"event": "ready", "pid": os.getpid(), "env": environment(args.gpu)})
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        try:
            rec = w.job(job, say)
        except Exception as e:
            rec = {
                "id": job["case"]["id"],
                "verdict": "harness_error",
                "message": f"{type(e).__name__}: {e}\n{traceback.format_exc()[-3000:]}",
            }
        say({"event": "result", "id": job["case"]["id"], "record": rec})
        if rec.get("fatal"):
            return 3
    return 0
