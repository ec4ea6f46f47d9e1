"""Conformance case 102-7419-min (shared): Triton 3.6, sm90, num_warps=1.

Observed: wrong: misplaced: 16/32 wrong; output layout: register bit 1 <-> register bit 2

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
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S0 = #ttg.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 1, order = [0, 1]}>
#S1 = #ttg.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 1, order = [1, 0]}>
#L1 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [0, 1]}>
#L2 = #ttg.linear<{register = [[0, 0], [2, 0], [1, 0]], lane = [[0, 1], [4, 0], [0, 2], [0, 0], [0, 0]], warp = [], block = []}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %out: !tt.ptr<i8> {tt.divisibility = 16 : i32}) {
    %t1 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<4xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<4x1xi32, #L0>
    %t3 = arith.constant dense<8> : tensor<4x1xi32, #L0>
    %t4 = arith.muli %t2, %t3 : tensor<4x1xi32, #L0>
    %t5 = tt.broadcast %t4 : tensor<4x1xi32, #L0> -> tensor<4x8xi32, #L0>
    %t6 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L0}>>
    %t7 = tt.expand_dims %t6 {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L0}>> -> tensor<1x8xi32, #L0>
    %t8 = tt.broadcast %t7 : tensor<1x8xi32, #L0> -> tensor<4x8xi32, #L0>
    %t9 = arith.addi %t5, %t8 : tensor<4x8xi32, #L0>
    %t10 = tt.splat %in0 : !tt.ptr<i8> -> tensor<4x8x!tt.ptr<i8>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<4x8x!tt.ptr<i8>, #L0>, tensor<4x8xi32, #L0>
    %v1 = tt.load %t11 : tensor<4x8x!tt.ptr<i8>, #L0>
    %m2 = ttg.local_alloc %v1 : (tensor<4x8xi8, #L0>) -> !ttg.memdesc<4x8xi8, #S0, #smem>
    %m3 = ttg.memdesc_trans %m2 {order = array<i32: 1, 0>} : !ttg.memdesc<4x8xi8, #S0, #smem> -> !ttg.memdesc<8x4xi8, #S1, #smem>
    %v4 = ttg.local_load %m3 : !ttg.memdesc<8x4xi8, #S1, #smem> -> tensor<8x4xi8, #L1>
    %v5 = ttg.convert_layout %v4 : tensor<8x4xi8, #L1> -> tensor<8x4xi8, #L2>
    %t12 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L2}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L2}>> -> tensor<8x1xi32, #L2>
    %t14 = arith.constant dense<4> : tensor<8x1xi32, #L2>
    %t15 = arith.muli %t13, %t14 : tensor<8x1xi32, #L2>
    %t16 = tt.broadcast %t15 : tensor<8x1xi32, #L2> -> tensor<8x4xi32, #L2>
    %t17 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #ttg.slice<{dim = 0, parent = #L2}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<4xi32, #ttg.slice<{dim = 0, parent = #L2}>> -> tensor<1x4xi32, #L2>
    %t19 = tt.broadcast %t18 : tensor<1x4xi32, #L2> -> tensor<8x4xi32, #L2>
    %t20 = arith.addi %t16, %t19 : tensor<8x4xi32, #L2>
    %t21 = tt.splat %out : !tt.ptr<i8> -> tensor<8x4x!tt.ptr<i8>, #L2>
    %t22 = tt.addptr %t21, %t20 : tensor<8x4x!tt.ptr<i8>, #L2>, tensor<8x4xi32, #L2>
    tt.store %t22, %v5 : tensor<8x4x!tt.ptr<i8>, #L2>
    tt.return
  }
}
"""

TTGIR_WORKAROUND = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S0 = #ttg.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 1, order = [0, 1]}>
#S1 = #ttg.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 1, order = [1, 0]}>
#L1 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [0, 1]}>
#L2 = #ttg.linear<{register = [[0, 0], [2, 0], [1, 0]], lane = [[0, 1], [4, 0], [0, 2], [0, 0], [0, 0]], warp = [], block = []}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<i8> {tt.divisibility = 16 : i32}, %out: !tt.ptr<i8> {tt.divisibility = 16 : i32}) {
    %t1 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<4xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<4x1xi32, #L0>
    %t3 = arith.constant dense<8> : tensor<4x1xi32, #L0>
    %t4 = arith.muli %t2, %t3 : tensor<4x1xi32, #L0>
    %t5 = tt.broadcast %t4 : tensor<4x1xi32, #L0> -> tensor<4x8xi32, #L0>
    %t6 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L0}>>
    %t7 = tt.expand_dims %t6 {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L0}>> -> tensor<1x8xi32, #L0>
    %t8 = tt.broadcast %t7 : tensor<1x8xi32, #L0> -> tensor<4x8xi32, #L0>
    %t9 = arith.addi %t5, %t8 : tensor<4x8xi32, #L0>
    %t10 = tt.splat %in0 : !tt.ptr<i8> -> tensor<4x8x!tt.ptr<i8>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<4x8x!tt.ptr<i8>, #L0>, tensor<4x8xi32, #L0>
    %v1 = tt.load %t11 : tensor<4x8x!tt.ptr<i8>, #L0>
    %m2 = ttg.local_alloc %v1 : (tensor<4x8xi8, #L0>) -> !ttg.memdesc<4x8xi8, #S0, #smem>
    %m3 = ttg.memdesc_trans %m2 {order = array<i32: 1, 0>} : !ttg.memdesc<4x8xi8, #S0, #smem> -> !ttg.memdesc<8x4xi8, #S1, #smem>
    %v4 = ttg.local_load %m3 : !ttg.memdesc<8x4xi8, #S1, #smem> -> tensor<8x4xi8, #L1>
    %v5_wa1 = arith.extui %v4 : tensor<8x4xi8, #L1> to tensor<8x4xi32, #L1>
    %v5_wa2 = ttg.convert_layout %v5_wa1 : tensor<8x4xi32, #L1> -> tensor<8x4xi32, #L2>
    %v5 = arith.trunci %v5_wa2 : tensor<8x4xi32, #L2> to tensor<8x4xi8, #L2>
    %t12 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L2}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<8xi32, #ttg.slice<{dim = 1, parent = #L2}>> -> tensor<8x1xi32, #L2>
    %t14 = arith.constant dense<4> : tensor<8x1xi32, #L2>
    %t15 = arith.muli %t13, %t14 : tensor<8x1xi32, #L2>
    %t16 = tt.broadcast %t15 : tensor<8x1xi32, #L2> -> tensor<8x4xi32, #L2>
    %t17 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #ttg.slice<{dim = 0, parent = #L2}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<4xi32, #ttg.slice<{dim = 0, parent = #L2}>> -> tensor<1x4xi32, #L2>
    %t19 = tt.broadcast %t18 : tensor<1x4xi32, #L2> -> tensor<8x4xi32, #L2>
    %t20 = arith.addi %t16, %t19 : tensor<8x4xi32, #L2>
    %t21 = tt.splat %out : !tt.ptr<i8> -> tensor<8x4x!tt.ptr<i8>, #L2>
    %t22 = tt.addptr %t21, %t20 : tensor<8x4x!tt.ptr<i8>, #L2>, tensor<8x4xi32, #L2>
    tt.store %t22, %v5 : tensor<8x4x!tt.ptr<i8>, #L2>
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
x0 = ((torch.arange(32) + 0) % 128).to(torch.int8).reshape(4, 8)  # element ids (bit patterns)

# reference: the meaning of each op
m2 = x0
m3 = m2.permute(1, 0)
v4 = m3
v5 = v4
expected = v5.contiguous().reshape(-1)

ins = [t.contiguous().cuda() for t in (x0,)]
out = torch.full((32,), -1, dtype=torch.int8, device="cuda")
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
shape = (8, 4)
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
