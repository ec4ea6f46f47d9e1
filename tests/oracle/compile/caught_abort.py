#!/usr/bin/env python3
"""How a compile from source ends when Triton calls `abort()` inside the
pass manager: the check behind `Failure::verdict` (triton/src/finder/sites/mod.rs).

From 3.3 the pass manager runs with a crash reproducer, which catches the
SIGABRT of a failed assertion or of `report_fatal_error` and fails the pass
instead, so `triton.compile` raises `PassManager::run failed` and the
process lives. No kernel pattern of the finder reaches a fatal error, so
this script reaches one on purpose: a Gluon kernel (its API as 3.4.0 and
3.9.0 ship it) that stores a [ROWS, 64] fp32 tensor into an NVMMA buffer with a
64-byte swizzle. Its 8-row swizzle tile does not fit 4 rows, and the
buffer's linear layout stops in `report_fatal_error("Illegal shared
layout")`; 8 rows compile (the control).

Usage: caught_abort.py WHEEL...   check these wheels (`linear-layout releases
                                  --wheels` names them; CI: the first release
                                  that models several CTAs and the newest),
                                  exit 1 on a surprise
       caught_abort.py child ROWS (internal; run under a release's python)
"""

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from harness import child as children, venvs  # noqa: E402

FATAL = "LLVM ERROR: Illegal shared layout"


def child(rows):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    target = GPUTarget("cuda", 90, 32)

    class NoGpu:
        """3.4's Gluon front end asks the active driver for the target."""

        def get_current_target(self):
            return target

    triton.runtime.driver.set_active(NoGpu())

    @gluon.jit
    def store_and_load(ptr, R: gl.constexpr, C: gl.constexpr):
        regs: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
        rows = gl.arange(0, R, layout=gl.SliceLayout(1, regs))
        cols = gl.arange(0, C, layout=gl.SliceLayout(0, regs))
        offsets = rows[:, None] * C + cols[None, :]
        x = gl.load(ptr + offsets)
        nvmma: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=32, rank=2)
        buffer = gl.allocate_shared_memory(gl.float32, [R, C], nvmma, x)
        gl.store(ptr + offsets, buffer.load(regs))

    src = GluonASTSource(fn=store_and_load, signature={"ptr": "*fp32", "R": "constexpr", "C": "constexpr"},
                         constexprs={"R": rows, "C": 64})
    triton.compile(src, target=target, options={"num_warps": 4})


def compile_once(py, rows):
    """(return code, stderr) of one compile in a child process (``None``: timed out)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TRITON_CACHE_DIR=cache, PYTHONDONTWRITEBYTECODE="1")
        ended = children.run([py, os.path.abspath(__file__), "child", str(rows)], env=env, timeout=300)
    return ended.returncode, ended.stderr


def check(wheels):
    surprises = 0
    for release in wheels:
        py = venvs.python(release)
        for rows, want in [(8, "ok"), (4, "error")]:
            rc, err = compile_once(py, rows)
            if rc == 0:
                got = "ok"
            elif rc is None:
                got = "no result in 300 s"
            elif rc < 0:
                got = f"killed by signal {-rc}"
            else:
                got = "error" if FATAL in err and "PassManager::run failed" in err else f"exit {rc}"
            ok = got == want
            surprises += not ok
            print(f"{release} rows {rows}: {got}{'' if ok else f' (expected {want})'}")
            if not ok:
                print("\n".join(err.strip().splitlines()[-15:]), file=sys.stderr)
    print(f"{2 * len(wheels) - surprises} passed, {surprises} failed")
    return 1 if surprises else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "child":
        child(int(sys.argv[2]))
    elif len(sys.argv) > 1 and sys.argv[1] != "child":
        sys.exit(check(sys.argv[1:]))
    else:
        sys.exit(__doc__)
