"""Driver of ``test_passbisect.py``, run under a Triton wheel's python: the int16 argmax family.

Compiles ``tl.argmax`` over int16 rows, 21 of 32 loaded and the rest the masked ``other``
(``findings/gpu-int16-reduce.md``), runs its PTX on the CPU (``ptxemu``), bisects the pass
pipeline, and prints one JSON line: the emulated output and the guilty pass.
"""

import importlib.util
import json
import os
import random
import struct
import sys
import tempfile

_dir = os.environ["LLCONFORMANCE_DIR"]  # the package, loaded from its directory (cfhelpers)
_spec = importlib.util.spec_from_file_location(
    "llconformance", os.path.join(_dir, "__init__.py"), submodule_search_locations=[_dir]
)
assert _spec is not None
assert _spec.loader is not None
_mod = importlib.util.module_from_spec(_spec)
sys.modules["llconformance"] = _mod
_spec.loader.exec_module(_mod)
from llconformance.passbisect import (  # noqa: E402
    bisect,
    dump_log,
    guilty,
    split_dumps,
    ttgir_stages,
)
from llconformance.ptxemu import run_ptx  # noqa: E402

M, N, M_REAL, WARPS = 32, 128, 21, 8
KERNEL = """
import triton
import triton.language as tl


@triton.jit
def argmax_rows(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, M_REAL: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    mask = rows[:, None] < M_REAL
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=-30000)
    tl.store(out_ptr + rows, tl.argmax(x, axis=1))
"""
COMPILE = """
import sys
sys.path.insert(0, {d!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from kernel import argmax_rows
sig = {{"x_ptr": "*i16", "out_ptr": "*i32"}}
sig.update({{name: "constexpr" for name in ("M", "N", "M_REAL")}})
src = ASTSource(argmax_rows, sig, constexprs={{"M": {M}, "N": {N}, "M_REAL": {R}}},
                attrs={{(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}})
k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={{"num_warps": {W}}})
open({d!r} + "/final.ptx", "w").write(k.asm["ptx"])
"""


def main() -> None:
    rng = random.Random(0)
    x = []
    for _ in range(M):
        p = list(range(N))
        rng.shuffle(p)
        x += [v - N // 2 for v in p]
    xb = b"".join(struct.pack("<h", v) for v in x)
    want = [max(range(N), key=lambda c: (x[r * N + c], -c)) if r < M_REAL else 0 for r in range(M)]

    def output(ptx: str) -> list[int]:
        out = run_ptx(ptx, [bytearray(xb), bytearray(b"\xff" * 4 * M)])[1]
        return list(struct.unpack(f"<{M}i", bytes(out)))

    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "kernel.py"), "w") as f:
            f.write(KERNEL)
        log = dump_log(COMPILE.format(d=d, M=M, N=N, R=M_REAL, W=WARPS))
        with open(os.path.join(d, "final.ptx")) as f:
            final = output(f.read())
    stages = ttgir_stages(split_dumps(log))
    results = bisect(stages, 90, lambda ptx: output(ptx) == want)
    print(
        json.dumps(
            {
                "final": final,
                "want": want,
                "stages": results,
                "guilty": guilty(results, final == want),
            }
        )
    )


main()
