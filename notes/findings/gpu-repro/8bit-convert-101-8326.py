"""Conformance case 101-8326-min (dot): Triton 3.6, sm90, num_warps=1.

Observed: wrong: misplaced: 1002/1024 wrong; output layout: register bit 0 <-> lane bit 0

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
#L1 = #ttg.linear<{register = [[2, 0], [1, 0], [4, 0], [0, 8]], lane = [[16, 0], [0, 1], [8, 0], [0, 2], [0, 4]], warp = [], block = []}>
#L2 = #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>
#L3 = #ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>
#L4 = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %in1: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %t1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<64x1xi32, #L0>
    %t3 = arith.constant dense<32> : tensor<64x1xi32, #L0>
    %t4 = arith.muli %t2, %t3 : tensor<64x1xi32, #L0>
    %t5 = tt.broadcast %t4 : tensor<64x1xi32, #L0> -> tensor<64x32xi32, #L0>
    %t6 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #L0}>>
    %t7 = tt.expand_dims %t6 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #L0}>> -> tensor<1x32xi32, #L0>
    %t8 = tt.broadcast %t7 : tensor<1x32xi32, #L0> -> tensor<64x32xi32, #L0>
    %t9 = arith.addi %t5, %t8 : tensor<64x32xi32, #L0>
    %t10 = tt.splat %in0 : !tt.ptr<f8E4M3FN> -> tensor<64x32x!tt.ptr<f8E4M3FN>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<64x32x!tt.ptr<f8E4M3FN>, #L0>, tensor<64x32xi32, #L0>
    %v1 = tt.load %t11 : tensor<64x32x!tt.ptr<f8E4M3FN>, #L0>
    %t12 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #L1}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #L1}>> -> tensor<32x1xi32, #L1>
    %t14 = arith.constant dense<16> : tensor<32x1xi32, #L1>
    %t15 = arith.muli %t13, %t14 : tensor<32x1xi32, #L1>
    %t16 = tt.broadcast %t15 : tensor<32x1xi32, #L1> -> tensor<32x16xi32, #L1>
    %t17 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #L1}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #L1}>> -> tensor<1x16xi32, #L1>
    %t19 = tt.broadcast %t18 : tensor<1x16xi32, #L1> -> tensor<32x16xi32, #L1>
    %t20 = arith.addi %t16, %t19 : tensor<32x16xi32, #L1>
    %t21 = tt.splat %in1 : !tt.ptr<f8E4M3FN> -> tensor<32x16x!tt.ptr<f8E4M3FN>, #L1>
    %t22 = tt.addptr %t21, %t20 : tensor<32x16x!tt.ptr<f8E4M3FN>, #L1>, tensor<32x16xi32, #L1>
    %v2 = tt.load %t22 : tensor<32x16x!tt.ptr<f8E4M3FN>, #L1>
    %v3 = ttg.convert_layout %v1 : tensor<64x32xf8E4M3FN, #L0> -> tensor<64x32xf8E4M3FN, #L2>
    %v4 = ttg.convert_layout %v2 : tensor<32x16xf8E4M3FN, #L1> -> tensor<32x16xf8E4M3FN, #L3>
    %v5 = arith.constant dense<0.000000e+00> : tensor<64x16xf32, #L4>
    %v6 = tt.dot %v3, %v4, %v5 : tensor<64x32xf8E4M3FN, #L2> * tensor<32x16xf8E4M3FN, #L3> -> tensor<64x16xf32, #L4>
    %t23 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L4}>>
    %t24 = tt.expand_dims %t23 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L4}>> -> tensor<64x1xi32, #L4>
    %t25 = arith.constant dense<16> : tensor<64x1xi32, #L4>
    %t26 = arith.muli %t24, %t25 : tensor<64x1xi32, #L4>
    %t27 = tt.broadcast %t26 : tensor<64x1xi32, #L4> -> tensor<64x16xi32, #L4>
    %t28 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #L4}>>
    %t29 = tt.expand_dims %t28 {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #L4}>> -> tensor<1x16xi32, #L4>
    %t30 = tt.broadcast %t29 : tensor<1x16xi32, #L4> -> tensor<64x16xi32, #L4>
    %t31 = arith.addi %t27, %t30 : tensor<64x16xi32, #L4>
    %t32 = tt.splat %out : !tt.ptr<f32> -> tensor<64x16x!tt.ptr<f32>, #L4>
    %t33 = tt.addptr %t32, %t31 : tensor<64x16x!tt.ptr<f32>, #L4>, tensor<64x16xi32, #L4>
    tt.store %t33, %v6 : tensor<64x16x!tt.ptr<f32>, #L4>
    tt.return
  }
}
"""

TTGIR_WORKAROUND = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#L1 = #ttg.linear<{register = [[2, 0], [1, 0], [4, 0], [0, 8]], lane = [[16, 0], [0, 1], [8, 0], [0, 2], [0, 4]], warp = [], block = []}>
#L2 = #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>
#L3 = #ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>
#L4 = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %in1: !tt.ptr<f8E4M3FN> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %t1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<64x1xi32, #L0>
    %t3 = arith.constant dense<32> : tensor<64x1xi32, #L0>
    %t4 = arith.muli %t2, %t3 : tensor<64x1xi32, #L0>
    %t5 = tt.broadcast %t4 : tensor<64x1xi32, #L0> -> tensor<64x32xi32, #L0>
    %t6 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #L0}>>
    %t7 = tt.expand_dims %t6 {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #L0}>> -> tensor<1x32xi32, #L0>
    %t8 = tt.broadcast %t7 : tensor<1x32xi32, #L0> -> tensor<64x32xi32, #L0>
    %t9 = arith.addi %t5, %t8 : tensor<64x32xi32, #L0>
    %t10 = tt.splat %in0 : !tt.ptr<f8E4M3FN> -> tensor<64x32x!tt.ptr<f8E4M3FN>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<64x32x!tt.ptr<f8E4M3FN>, #L0>, tensor<64x32xi32, #L0>
    %v1 = tt.load %t11 : tensor<64x32x!tt.ptr<f8E4M3FN>, #L0>
    %t12 = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #L1}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #L1}>> -> tensor<32x1xi32, #L1>
    %t14 = arith.constant dense<16> : tensor<32x1xi32, #L1>
    %t15 = arith.muli %t13, %t14 : tensor<32x1xi32, #L1>
    %t16 = tt.broadcast %t15 : tensor<32x1xi32, #L1> -> tensor<32x16xi32, #L1>
    %t17 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #L1}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #L1}>> -> tensor<1x16xi32, #L1>
    %t19 = tt.broadcast %t18 : tensor<1x16xi32, #L1> -> tensor<32x16xi32, #L1>
    %t20 = arith.addi %t16, %t19 : tensor<32x16xi32, #L1>
    %t21 = tt.splat %in1 : !tt.ptr<f8E4M3FN> -> tensor<32x16x!tt.ptr<f8E4M3FN>, #L1>
    %t22 = tt.addptr %t21, %t20 : tensor<32x16x!tt.ptr<f8E4M3FN>, #L1>, tensor<32x16xi32, #L1>
    %v2 = tt.load %t22 : tensor<32x16x!tt.ptr<f8E4M3FN>, #L1>
    %v3_wa0 = tt.bitcast %v1 : tensor<64x32xf8E4M3FN, #L0> -> tensor<64x32xi8, #L0>
    %v3_wa1 = arith.extui %v3_wa0 : tensor<64x32xi8, #L0> to tensor<64x32xi32, #L0>
    %v3_wa2 = ttg.convert_layout %v3_wa1 : tensor<64x32xi32, #L0> -> tensor<64x32xi32, #L2>
    %v3_wa3 = arith.trunci %v3_wa2 : tensor<64x32xi32, #L2> to tensor<64x32xi8, #L2>
    %v3 = tt.bitcast %v3_wa3 : tensor<64x32xi8, #L2> -> tensor<64x32xf8E4M3FN, #L2>
    %v4_wa0 = tt.bitcast %v2 : tensor<32x16xf8E4M3FN, #L1> -> tensor<32x16xi8, #L1>
    %v4_wa1 = arith.extui %v4_wa0 : tensor<32x16xi8, #L1> to tensor<32x16xi32, #L1>
    %v4_wa2 = ttg.convert_layout %v4_wa1 : tensor<32x16xi32, #L1> -> tensor<32x16xi32, #L3>
    %v4_wa3 = arith.trunci %v4_wa2 : tensor<32x16xi32, #L3> to tensor<32x16xi8, #L3>
    %v4 = tt.bitcast %v4_wa3 : tensor<32x16xi8, #L3> -> tensor<32x16xf8E4M3FN, #L3>
    %v5 = arith.constant dense<0.000000e+00> : tensor<64x16xf32, #L4>
    %v6 = tt.dot %v3, %v4, %v5 : tensor<64x32xf8E4M3FN, #L2> * tensor<32x16xf8E4M3FN, #L3> -> tensor<64x16xf32, #L4>
    %t23 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L4}>>
    %t24 = tt.expand_dims %t23 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L4}>> -> tensor<64x1xi32, #L4>
    %t25 = arith.constant dense<16> : tensor<64x1xi32, #L4>
    %t26 = arith.muli %t24, %t25 : tensor<64x1xi32, #L4>
    %t27 = tt.broadcast %t26 : tensor<64x1xi32, #L4> -> tensor<64x16xi32, #L4>
    %t28 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #L4}>>
    %t29 = tt.expand_dims %t28 {axis = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 0, parent = #L4}>> -> tensor<1x16xi32, #L4>
    %t30 = tt.broadcast %t29 : tensor<1x16xi32, #L4> -> tensor<64x16xi32, #L4>
    %t31 = arith.addi %t27, %t30 : tensor<64x16xi32, #L4>
    %t32 = tt.splat %out : !tt.ptr<f32> -> tensor<64x16x!tt.ptr<f32>, #L4>
    %t33 = tt.addptr %t32, %t31 : tensor<64x16x!tt.ptr<f32>, #L4>, tensor<64x16xi32, #L4>
    tt.store %t33, %v6 : tensor<64x16x!tt.ptr<f32>, #L4>
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
x0 = ((torch.arange(2048) + 0) % 16).to(torch.float8_e4m3fn).reshape(64, 32)
x1 = torch.eye(32, 16).to(torch.float8_e4m3fn)

# reference: the meaning of each op
v3 = x0
v4 = x1
v5 = 0
v6 = (v3.double() @ v4.double()).to(torch.float32)
expected = v6.contiguous().reshape(-1)

ins = [t.contiguous().cuda() for t in (x0, x1,)]
out = torch.full((1024,), -1, dtype=torch.float32, device="cuda")
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
shape = (64, 16)
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
