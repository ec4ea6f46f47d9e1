"""Test support for linear_layout.triton: a stand-in driver, kernels, children.

No GPU is needed. Each release picks its active driver in
``triton.runtime.driver`` (``_create_driver``: the one backend whose
``driver.is_active()``; 3.9 also honours ``TRITON_DEFAULT_BACKEND``), and
every release has ``driver.set_active(obj)``. :class:`StandInDriver` is set
that way. It answers what the JIT path asks (current device, stream and
target: ``GPUTarget("cuda", 90, 32)``), hands the autotuner a benchmarker
that calls the kernel once and reports 1.0 ms, and launches nothing: the
compiled kernel's ``launcher_cls`` is a no-op and ``load_binary`` returns
dummy handles. So ``kernel[grid](...)`` and ``triton.autotune`` run the real
compile (ptxas included) and the real autotuner, up to the launch.

3.1's autotuner imports ``torch`` in its constructor and benchmarks with the
module-level ``do_bench``; the wheels' venvs have no torch, so a stub module
(``torch.cuda.is_available() -> False``) and the benchmarker are put there.
Tensors are :class:`FakeTensor`: a ``data_ptr()`` (16-byte aligned) and a
``dtype`` that prints as ``torch.<name>``, which is all the JIT's
specialisation reads.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import types
from dataclasses import dataclass
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(os.path.dirname(HERE))  # .../python
REPO = os.path.dirname(PYTHON_DIR)


def triton_version() -> tuple[int, int]:
    import triton

    m = re.match(r"(\d+)\.(\d+)", triton.__version__)
    assert m is not None
    return int(m.group(1)), int(m.group(2))


# ------------------------------------------------------------------ stand-ins


class FakeDtype:
    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return "torch." + self.name

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FakeDtype) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class FakeTensor:
    """What the JIT reads of a tensor argument: ``data_ptr()`` and ``dtype``."""

    def __init__(self, dtype: str, ptr: int = 1 << 20) -> None:
        self.dtype = FakeDtype(dtype)
        self._ptr = ptr

    def data_ptr(self) -> int:
        return self._ptr


def bench(kernel_call: Any, quantiles: Any = None, **_: Any) -> Any:
    """A benchmarker: one call (so compile errors surface as with do_bench), 1.0 ms."""
    kernel_call()
    return [1.0, 1.0, 1.0] if quantiles else 1.0


class _Utils:
    def get_device_properties(self, device: int) -> dict[str, int]:
        return {
            "max_shared_mem": 232448,
            "multiprocessor_count": 132,
            "max_num_regs": 65536,
            "warpSize": 32,
            "sm_clock_rate": 1980000,
            "mem_clock_rate": 2619000,
            "mem_bus_width": 5120,
        }

    def load_binary(self, name: str, kernel: bytes, shared: int, device: int) -> tuple[int, ...]:
        # module, function, n_regs, n_spills (+ n_max_threads from 3.4)
        return (1, 1, 0, 0, 1024) if triton_version() >= (3, 4) else (1, 1, 0, 0)

    def unload_module(self, module: Any) -> None:
        pass


class StandInDriver:
    """A driver that compiles for sm90 and launches nothing."""

    def __init__(self, arch: int = 90) -> None:
        from triton.backends.compiler import GPUTarget

        self.target = GPUTarget("cuda", arch, 32)
        self.utils = _Utils()
        self.launches = 0
        driver = self

        class Launcher:
            def __init__(self, src: Any, metadata: Any) -> None:
                pass

            def __call__(self, *args: Any, **kwargs: Any) -> None:
                driver.launches += 1

        self.launcher_cls = Launcher

    def is_active(self) -> bool:
        return True

    def get_current_target(self) -> Any:
        return self.target

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device: int) -> None:
        pass

    def get_current_stream(self, device: Any = None) -> int:
        return 0

    def get_benchmarker(self) -> Any:
        return bench

    def get_active_torch_device(self) -> str:
        return "cuda"

    def get_device_interface(self) -> Any:
        raise RuntimeError("the stand-in driver has no device")

    def get_empty_cache_for_benchmark(self) -> Any:
        raise RuntimeError("the stand-in driver has no device")

    def clear_cache(self, cache: Any) -> None:
        pass


def activate() -> StandInDriver:
    """Make :class:`StandInDriver` the active driver (and 3.1's autotuner torch-free)."""
    import triton

    driver = StandInDriver()
    triton.runtime.driver.set_active(driver)
    if triton_version() < (3, 2):
        if "torch" not in sys.modules:
            stub = types.ModuleType("torch")
            stub.cuda = types.SimpleNamespace(is_available=lambda: False)  # type: ignore[attr-defined]
            sys.modules["torch"] = stub
        import triton.runtime.autotuner as autotuner

        autotuner.do_bench = bench  # type: ignore[attr-defined]
    return driver


# -------------------------------------------------------------------- kernels


def make_kernel(name: str) -> Any:
    """A fresh JIT function (its own in-memory cache) for kernel ``name``."""
    if name in ("chain_b", "matmul"):
        import llt_kernels
        import triton

        return triton.jit(getattr(llt_kernels, name))
    if name == "nvmma_rows":
        import llt_gluon
        from triton.experimental import gluon

        return gluon.jit(llt_gluon.nvmma_rows)
    raise ValueError(name)


@dataclass(frozen=True)
class Job:
    """One compile: a kernel, its constexprs and options."""

    kernel: str
    constexprs: tuple[tuple[str, int], ...]
    num_warps: int
    num_stages: int
    dtype: str = "bfloat16"

    def args(self) -> list[Any]:
        if self.kernel == "matmul":
            # A, B, C, then M, N, K and the row-major strides of 4096 x 4096 matrices
            return [FakeTensor(self.dtype) for _ in range(3)] + [
                4096,
                4096,
                4096,
                4096,
                1,
                4096,
                1,
                4096,
                1,
            ]
        n = 4 if self.kernel == "chain_b" else 1
        return [FakeTensor(self.dtype) for _ in range(n)]

    def kwargs(self) -> dict[str, Any]:
        return {**dict(self.constexprs), "num_warps": self.num_warps, "num_stages": self.num_stages}

    def config_kwargs(self) -> dict[str, int]:
        """The autotuned constexprs (everything but the fixed shape)."""
        fixed = {"M", "K", "X", "TAG", "C"}
        return {k: v for k, v in self.constexprs if k not in fixed}

    def call_kwargs(self) -> dict[str, int]:
        """The constexprs the caller passes (the fixed shape)."""
        fixed = {"M", "K", "X", "TAG", "C"}
        return {k: v for k, v in self.constexprs if k in fixed}

    def tuning_key(self) -> list[str]:
        """An autotuning key: one of the fixed arguments."""
        return ["C"] if self.kernel == "nvmma_rows" else ["M"]

    def config(self) -> Any:
        """The job as a ``triton.Config``."""
        import triton

        return triton.Config(
            self.config_kwargs(), num_warps=self.num_warps, num_stages=self.num_stages
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "constexprs": [list(c) for c in self.constexprs],
            "num_warps": self.num_warps,
            "num_stages": self.num_stages,
            "dtype": self.dtype,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Job:
        return cls(
            d["kernel"],
            tuple((k, v) for k, v in d["constexprs"]),
            d["num_warps"],
            d["num_stages"],
            d.get("dtype", "bfloat16"),
        )


def chain_b(bn: int, num_warps: int, num_stages: int = 2, tag: int = 0) -> Job:
    """chain-b with M = K = X = 64 in bf16."""
    return Job(
        "chain_b",
        (("M", 64), ("K", 64), ("X", 64), ("BN", bn), ("TAG", tag)),
        num_warps,
        num_stages,
    )


def nvmma_rows(rows: int, num_warps: int = 4, num_stages: int = 2) -> Job:
    """The Gluon NVMMA kernel with ``rows`` rows of 64 fp32, ``num_warps`` warps."""
    return Job(
        "nvmma_rows", (("R", rows), ("C", 64), ("W", num_warps)), num_warps, num_stages, "float32"
    )


def matmul(bm: int, bn: int, bk: int, num_warps: int, num_stages: int) -> Job:
    """The fp16 tiled matmul with a K loop (the tutorial's autotuning space)."""
    return Job("matmul", (("BM", bm), ("BN", bn), ("BK", bk)), num_warps, num_stages, "float16")


def compile_job(job: Job, kernel: Any = None) -> Any:
    """Compile ``job`` through the JIT (``warmup=True``: nothing launches)."""
    fn = kernel if kernel is not None else make_kernel(job.kernel)
    return fn.run(*job.args(), grid=(1,), warmup=True, **job.kwargs())


def failing_job() -> Job:
    """A configuration the installed release really fails to compile.

    Found with ``linear-layout predict``/``search`` and confirmed by the
    tests' children: 3.1 asserts in ``hopperMmaToLinearLayout`` on a
    16-column accumulator with 8 warps (wgmma instruction N = 8); 3.2 and 3.3
    fail FLA's 64 x 64 product with 8 warps in the stmatrix lowering (3.2's
    reshapeOuts assertion, 3.3's "Each chunk is filled in with a single
    warp"); from 3.4 no chain-b configuration fails, and the Gluon kernel's
    4-row NVMMA buffer reaches "Illegal shared layout".
    """
    v = triton_version()
    if v < (3, 2):
        return chain_b(16, 8)
    if v < (3, 4):
        return chain_b(64, 8)
    return nvmma_rows(4)


def passing_job() -> Job:
    """A configuration every release compiles (the same kernel as :func:`failing_job`)."""
    if triton_version() < (3, 4):
        return chain_b(64, 4)
    return nvmma_rows(8)


def autotune_jobs() -> list[Job]:
    """Realistic autotuning lists: block size, warps and stages varied."""
    jobs = [
        chain_b(16, 4, 2),
        chain_b(16, 8, 1),
        chain_b(32, 8, 2),
        chain_b(64, 4, 3),
        chain_b(64, 8, 2),
        chain_b(128, 8, 2),
        chain_b(128, 16, 1),
        chain_b(32, 4, 1),
    ]
    if triton_version() >= (3, 4):
        jobs += [
            nvmma_rows(2, 4, 2),
            nvmma_rows(4, 4, 3),
            nvmma_rows(8, 4, 2),
            nvmma_rows(16, 4, 3),
            nvmma_rows(4, 8, 2),
            nvmma_rows(16, 8, 2),
            nvmma_rows(32, 8, 3),
        ]
    return jobs


# ------------------------------------------------------------------- children


@dataclass
class Outcome:
    """How a real compile in a child ended."""

    outcome: str  # ok | abort | error
    detail: str = ""
    stderr: str = ""


def run_children(
    jobs: list[Job],
    env: dict[str, str] | None = None,
    guard: str | None = None,
    timeout: float = 300,
) -> list[Outcome]:
    """Compile every job for real, in children without the guard (unless ``guard``).

    One child compiles the jobs in order, printing one JSON line each; when
    it dies (3.1 and 3.2 abort on a failed assertion), the job it was on is
    recorded as ``abort`` and a new child goes on from the next job.
    """
    results: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="llt-child-") as cache:
        child_env = dict(os.environ if env is None else env)
        child_env["TRITON_CACHE_DIR"] = cache
        child_env["LINEAR_LAYOUT_FAILURES"] = os.path.join(cache, "failures.jsonl")
        child_env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        import llt_import

        ours = [HERE] if llt_import.installed() else [HERE, PYTHON_DIR]
        child_env["PYTHONPATH"] = os.pathsep.join(
            ours + ([child_env["PYTHONPATH"]] if child_env.get("PYTHONPATH") else [])
        )
        while len(results) < len(jobs):
            todo = jobs[len(results) :]
            cmd = [sys.executable, os.path.join(HERE, "llt_child.py")]
            if guard:
                cmd += ["--guard", guard]
            p = subprocess.run(
                cmd,
                input=json.dumps([j.to_json() for j in todo]),
                env=child_env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            lines = [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]
            results += [Outcome(d["outcome"], d.get("detail", "")) for d in lines]
            if len(results) < len(jobs):
                if p.returncode >= 0:
                    raise RuntimeError(
                        f"child exited {p.returncode} without an answer:\n{p.stderr[-3000:]}"
                    )
                results.append(Outcome("abort", f"signal {-p.returncode}", p.stderr[-4000:]))
    return results


# ----------------------------------------------------- stand-in unknown failures

#: What the stand-in LLVM lowering does, by the compile's ``num_stages``
#: (at 4 warps): the failures no model predicts, each the way a real one
#: ends a process.
INJECTED = {
    3: "abort",  # a failed C++ assertion: SIGABRT
    4: "segfault",  # a null dereference: SIGSEGV
    5: "pass_failure",  # an MLIR pass failing: RuntimeError: PassManager::run failed
    6: "hang",  # a pass that never returns
    7: "fatal",  # LLVM's report_fatal_error: "LLVM ERROR: ...", exit status 1
}
INJECTED_MESSAGES = {
    "abort": "stand-in.cpp:42: void standIn(): Assertion `unmodelled' failed.",
    "segfault": "",
    "pass_failure": "error: stand-in pass failed on an unmodelled layout",
    "hang": "",
    "fatal": "LLVM ERROR: stand-in fatal error in an unmodelled lowering",
}


def _fail(kind: str) -> None:
    import ctypes
    import time

    message = INJECTED_MESSAGES[kind]
    if message:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
    if kind == "abort":
        os.abort()
    elif kind == "segfault":
        ctypes.string_at(0)
    elif kind == "pass_failure":
        raise RuntimeError("PassManager::run failed")
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "fatal":
        os._exit(1)


def inject_failures(monkeypatch: Any) -> None:
    """Make the NVIDIA backend's LLVM lowering fail as :data:`INJECTED` says.

    The stand-in wraps ``make_llir`` on the backend class (a static method
    up to 3.4, a method after), so every compile of this process and of its
    forked children runs it; it runs after the layout check of the guard,
    as a real failure in the lowering would.
    """
    import inspect

    from triton.backends import backends

    cls = backends["nvidia"].compiler
    static = isinstance(inspect.getattr_static(cls, "make_llir"), staticmethod)
    original = cls.make_llir

    def make_llir(*args: Any) -> Any:
        options = args[-2]
        if options.num_warps == 4 and options.num_stages in INJECTED:
            _fail(INJECTED[options.num_stages])
        return original(*args)

    monkeypatch.setattr(cls, "make_llir", staticmethod(make_llir) if static else make_llir)


def injected_jobs() -> list[Job]:
    """One configuration per :data:`INJECTED` failure, of :func:`failing_job`'s kernel."""
    base = passing_job()
    return [Job(base.kernel, base.constexprs, 4, s, base.dtype) for s in INJECTED]
