"""Conformance case 101-3807-min (convert): Triton 3.6, sm90, num_warps=1.

Observed: wrong: misplaced: 4/8 wrong; output layout: register bit 0 <-> register bit 2

Loads each input in its layout, runs the ops below (layouts fixed in the TTGIR),
stores the result; compares with the same ops in torch. Needs only triton and torch.

With --workaround: the same module rewritten by 'widen-8bit-convert', which
must print OK.
"""

import sys
import tempfile

import torch
import triton
from triton.backends.compiler import GPUTarget

TTGIR = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#L1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#L2 = #ttg.linear<{register = [[2, 0], [0, 0], [1, 0]], lane = [[4, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [], block = []}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}) {
    %t1 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<8x1xi32, #L0>
    %t3 = tt.splat %in0 : !tt.ptr<f8E4M3FN> -> tensor<8x1x!tt.ptr<f8E4M3FN>, #L0>
    %t4 = tt.addptr %t3, %t2 : tensor<8x1x!tt.ptr<f8E4M3FN>, #L0>, tensor<8x1xi32, #L0>
    %v1 = tt.load %t4 : tensor<8x1x!tt.ptr<f8E4M3FN>, #L0>
    %v2 = ttg.convert_layout %v1 : tensor<8x1xf8E4M3FN, #L0> -> tensor<8x1xf8E4M3FN, #L1>
    %v3 = ttg.convert_layout %v2 : tensor<8x1xf8E4M3FN, #L1> -> tensor<8x1xf8E4M3FN, #L2>
    %t5 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L2}>>
    %t6 = tt.expand_dims %t5 {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L2}>> -> tensor<8x1xi32, #L2>
    %t7 = tt.splat %out : !tt.ptr<f8E4M3FN> -> tensor<8x1x!tt.ptr<f8E4M3FN>, #L2>
    %t8 = tt.addptr %t7, %t6 : tensor<8x1x!tt.ptr<f8E4M3FN>, #L2>, tensor<8x1xi32, #L2>
    tt.store %t8, %v3 : tensor<8x1x!tt.ptr<f8E4M3FN>, #L2>
    tt.return
  }
}
"""

TTGIR_WORKAROUND = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#L1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#L2 = #ttg.linear<{register = [[2, 0], [0, 0], [1, 0]], lane = [[4, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = [], block = []}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}) {
    %t1 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<8x1xi32, #L0>
    %t3 = tt.splat %in0 : !tt.ptr<f8E4M3FN> -> tensor<8x1x!tt.ptr<f8E4M3FN>, #L0>
    %t4 = tt.addptr %t3, %t2 : tensor<8x1x!tt.ptr<f8E4M3FN>, #L0>, tensor<8x1xi32, #L0>
    %v1 = tt.load %t4 : tensor<8x1x!tt.ptr<f8E4M3FN>, #L0>
    %v2_wa0 = tt.bitcast %v1 : tensor<8x1xf8E4M3FN, #L0> -> tensor<8x1xi8, #L0>
    %v2_wa1 = arith.extui %v2_wa0 : tensor<8x1xi8, #L0> to tensor<8x1xi32, #L0>
    %v2_wa2 = ttg.convert_layout %v2_wa1 : tensor<8x1xi32, #L0> -> tensor<8x1xi32, #L1>
    %v2_wa3 = arith.trunci %v2_wa2 : tensor<8x1xi32, #L1> to tensor<8x1xi8, #L1>
    %v2 = tt.bitcast %v2_wa3 : tensor<8x1xi8, #L1> -> tensor<8x1xf8E4M3FN, #L1>
    %v3_wa0 = tt.bitcast %v2 : tensor<8x1xf8E4M3FN, #L1> -> tensor<8x1xi8, #L1>
    %v3_wa1 = arith.extui %v3_wa0 : tensor<8x1xi8, #L1> to tensor<8x1xi32, #L1>
    %v3_wa2 = ttg.convert_layout %v3_wa1 : tensor<8x1xi32, #L1> -> tensor<8x1xi32, #L2>
    %v3_wa3 = arith.trunci %v3_wa2 : tensor<8x1xi32, #L2> to tensor<8x1xi8, #L2>
    %v3 = tt.bitcast %v3_wa3 : tensor<8x1xi8, #L2> -> tensor<8x1xf8E4M3FN, #L2>
    %t5 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L2}>>
    %t6 = tt.expand_dims %t5 {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L2}>> -> tensor<8x1xi32, #L2>
    %t7 = tt.splat %out : !tt.ptr<f8E4M3FN> -> tensor<8x1x!tt.ptr<f8E4M3FN>, #L2>
    %t8 = tt.addptr %t7, %t6 : tensor<8x1x!tt.ptr<f8E4M3FN>, #L2>, tensor<8x1xi32, #L2>
    tt.store %t8, %v3 : tensor<8x1x!tt.ptr<f8E4M3FN>, #L2>
    tt.return
  }
}
"""

if "--workaround" in sys.argv[1:]:
    TTGIR = TTGIR_WORKAROUND

with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
    f.write(TTGIR)
kernel = triton.compile(f.name, target=GPUTarget("cuda", 90, 32))

torch.manual_seed(0)
x0 = ((torch.arange(8) + 0) % 64).to(torch.int8).reshape(8, 1)  # element ids (bit patterns)

# reference: the meaning of each op
v2 = x0
v3 = v2
expected = v3.contiguous().reshape(-1)

ins = [t.contiguous().cuda() for t in (x0,)]
out = torch.full((8,), -1, dtype=torch.int8, device="cuda")
kernel[(1, 1, 1)](*[t.data_ptr() for t in ins], out.data_ptr())
torch.cuda.synchronize()
got = out.cpu()
bits = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32}
if got.dtype in bits:
    same = got.view(bits[got.dtype]) == expected.to(got.dtype).view(bits[got.dtype])
elif got.dtype.itemsize == 1 and got.dtype != torch.int8:
    same = got.view(torch.int8) == expected.to(got.dtype).view(torch.int8)
else:
    same = got == expected.to(got.dtype)
bad = (~same).nonzero().flatten()
shape = (8, 1)
if len(bad) == 0:
    print("OK: output matches the reference")
    sys.exit(0)
i = int(bad[0])
coords = []
for s in reversed(shape):
    coords.append(i % s)
    i //= s
coords = tuple(reversed(coords))
print(f"WRONG: {len(bad)} of {got.numel()} elements differ; first at {coords}: "
      f"got {got[int(bad[0])].item()}, expected {expected[int(bad[0])].item()}")
sys.exit(1)
