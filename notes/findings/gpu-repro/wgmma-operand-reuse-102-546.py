"""Conformance case 102-546-min (dot): Triton 3.6, sm90, num_warps=4.

Observed: wrong: misplaced: 4096/4096 wrong; not an affine map of the index bits

Loads each input in its layout, runs the ops below (layouts fixed in the TTGIR),
stores the result; compares with the same ops in torch. Needs only triton and torch.

With --workaround: the same module rewritten by 'keep-wgmma-operands', which
must print OK.
"""

import sys
import tempfile

import torch
import triton
from triton.backends.compiler import GPUTarget

TTGIR = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#L1 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [2, 2], order = [1, 0]}>
#L2 = #ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 0]], lane = [[0, 32], [0, 4], [0, 16], [0, 2], [32, 0]], warp = [[0, 8], [0, 1]], block = []}>
#S0 = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 32}>
#S1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>
#L3 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 8]}>
#S2 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#L4 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 8]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %in1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %in2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %true = arith.constant true
    %t1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<64x1xi32, #L0>
    %t3 = arith.constant dense<64> : tensor<64x1xi32, #L0>
    %t4 = arith.muli %t2, %t3 : tensor<64x1xi32, #L0>
    %t5 = tt.broadcast %t4 : tensor<64x1xi32, #L0> -> tensor<64x64xi32, #L0>
    %t6 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L0}>>
    %t7 = tt.expand_dims %t6 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L0}>> -> tensor<1x64xi32, #L0>
    %t8 = tt.broadcast %t7 : tensor<1x64xi32, #L0> -> tensor<64x64xi32, #L0>
    %t9 = arith.addi %t5, %t8 : tensor<64x64xi32, #L0>
    %t10 = tt.splat %in0 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<64x64x!tt.ptr<f32>, #L0>, tensor<64x64xi32, #L0>
    %v1 = tt.load %t11 : tensor<64x64x!tt.ptr<f32>, #L0>
    %t12 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L1}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L1}>> -> tensor<64x1xi32, #L1>
    %t14 = arith.constant dense<64> : tensor<64x1xi32, #L1>
    %t15 = arith.muli %t13, %t14 : tensor<64x1xi32, #L1>
    %t16 = tt.broadcast %t15 : tensor<64x1xi32, #L1> -> tensor<64x64xi32, #L1>
    %t17 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L1}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L1}>> -> tensor<1x64xi32, #L1>
    %t19 = tt.broadcast %t18 : tensor<1x64xi32, #L1> -> tensor<64x64xi32, #L1>
    %t20 = arith.addi %t16, %t19 : tensor<64x64xi32, #L1>
    %t21 = tt.splat %in1 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #L1>
    %t22 = tt.addptr %t21, %t20 : tensor<64x64x!tt.ptr<f32>, #L1>, tensor<64x64xi32, #L1>
    %v2 = tt.load %t22 : tensor<64x64x!tt.ptr<f32>, #L1>
    %t23 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L2}>>
    %t24 = tt.expand_dims %t23 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L2}>> -> tensor<64x1xi32, #L2>
    %t25 = arith.constant dense<64> : tensor<64x1xi32, #L2>
    %t26 = arith.muli %t24, %t25 : tensor<64x1xi32, #L2>
    %t27 = tt.broadcast %t26 : tensor<64x1xi32, #L2> -> tensor<64x64xi32, #L2>
    %t28 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L2}>>
    %t29 = tt.expand_dims %t28 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L2}>> -> tensor<1x64xi32, #L2>
    %t30 = tt.broadcast %t29 : tensor<1x64xi32, #L2> -> tensor<64x64xi32, #L2>
    %t31 = arith.addi %t27, %t30 : tensor<64x64xi32, #L2>
    %t32 = tt.splat %in2 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #L2>
    %t33 = tt.addptr %t32, %t31 : tensor<64x64x!tt.ptr<f32>, #L2>, tensor<64x64xi32, #L2>
    %v7 = tt.load %t33 : tensor<64x64x!tt.ptr<f32>, #L2>
    %m3 = ttg.local_alloc %v2 : (tensor<64x64xf32, #L1>) -> !ttg.memdesc<64x64xf32, #S0, #smem>
    %m4 = ttg.local_alloc %v1 : (tensor<64x64xf32, #L0>) -> !ttg.memdesc<64x64xf32, #S1, #smem>
    %v5 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #L3>
    ttng.fence_async_shared {bCluster = false}
    %v6 = ttng.warp_group_dot %m3, %m4, %v5, %true {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf32, #S0, #smem> * !ttg.memdesc<64x64xf32, #S1, #smem> -> tensor<64x64xf32, #L3>
    %m8 = ttg.local_alloc %v7 : (tensor<64x64xf32, #L2>) -> !ttg.memdesc<64x64xf32, #S2, #smem>
    %m9 = ttg.local_alloc %v6 : (tensor<64x64xf32, #L3>) -> !ttg.memdesc<64x64xf32, #S1, #smem>
    %v10 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #L4>
    ttng.fence_async_shared {bCluster = false}
    %v11 = ttng.warp_group_dot %m8, %m9, %v10, %true {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf32, #S2, #smem> * !ttg.memdesc<64x64xf32, #S1, #smem> -> tensor<64x64xf32, #L4>
    %t34 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L4}>>
    %t35 = tt.expand_dims %t34 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L4}>> -> tensor<64x1xi32, #L4>
    %t36 = arith.constant dense<64> : tensor<64x1xi32, #L4>
    %t37 = arith.muli %t35, %t36 : tensor<64x1xi32, #L4>
    %t38 = tt.broadcast %t37 : tensor<64x1xi32, #L4> -> tensor<64x64xi32, #L4>
    %t39 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L4}>>
    %t40 = tt.expand_dims %t39 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L4}>> -> tensor<1x64xi32, #L4>
    %t41 = tt.broadcast %t40 : tensor<1x64xi32, #L4> -> tensor<64x64xi32, #L4>
    %t42 = arith.addi %t38, %t41 : tensor<64x64xi32, #L4>
    %t43 = tt.splat %out : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #L4>
    %t44 = tt.addptr %t43, %t42 : tensor<64x64x!tt.ptr<f32>, #L4>, tensor<64x64xi32, #L4>
    tt.store %t44, %v11 : tensor<64x64x!tt.ptr<f32>, #L4>
    tt.return
  }
}
"""

TTGIR_WORKAROUND = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#L1 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [2, 2], order = [1, 0]}>
#L2 = #ttg.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 0]], lane = [[0, 32], [0, 4], [0, 16], [0, 2], [32, 0]], warp = [[0, 8], [0, 1]], block = []}>
#S0 = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 32}>
#S1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>
#L3 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 8]}>
#S2 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
#L4 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 8]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %in1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %in2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %true = arith.constant true
    %t1 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<64x1xi32, #L0>
    %t3 = arith.constant dense<64> : tensor<64x1xi32, #L0>
    %t4 = arith.muli %t2, %t3 : tensor<64x1xi32, #L0>
    %t5 = tt.broadcast %t4 : tensor<64x1xi32, #L0> -> tensor<64x64xi32, #L0>
    %t6 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L0}>>
    %t7 = tt.expand_dims %t6 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L0}>> -> tensor<1x64xi32, #L0>
    %t8 = tt.broadcast %t7 : tensor<1x64xi32, #L0> -> tensor<64x64xi32, #L0>
    %t9 = arith.addi %t5, %t8 : tensor<64x64xi32, #L0>
    %t10 = tt.splat %in0 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<64x64x!tt.ptr<f32>, #L0>, tensor<64x64xi32, #L0>
    %v1 = tt.load %t11 : tensor<64x64x!tt.ptr<f32>, #L0>
    %t12 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L1}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L1}>> -> tensor<64x1xi32, #L1>
    %t14 = arith.constant dense<64> : tensor<64x1xi32, #L1>
    %t15 = arith.muli %t13, %t14 : tensor<64x1xi32, #L1>
    %t16 = tt.broadcast %t15 : tensor<64x1xi32, #L1> -> tensor<64x64xi32, #L1>
    %t17 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L1}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L1}>> -> tensor<1x64xi32, #L1>
    %t19 = tt.broadcast %t18 : tensor<1x64xi32, #L1> -> tensor<64x64xi32, #L1>
    %t20 = arith.addi %t16, %t19 : tensor<64x64xi32, #L1>
    %t21 = tt.splat %in1 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #L1>
    %t22 = tt.addptr %t21, %t20 : tensor<64x64x!tt.ptr<f32>, #L1>, tensor<64x64xi32, #L1>
    %v2 = tt.load %t22 : tensor<64x64x!tt.ptr<f32>, #L1>
    %t23 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L2}>>
    %t24 = tt.expand_dims %t23 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L2}>> -> tensor<64x1xi32, #L2>
    %t25 = arith.constant dense<64> : tensor<64x1xi32, #L2>
    %t26 = arith.muli %t24, %t25 : tensor<64x1xi32, #L2>
    %t27 = tt.broadcast %t26 : tensor<64x1xi32, #L2> -> tensor<64x64xi32, #L2>
    %t28 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L2}>>
    %t29 = tt.expand_dims %t28 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L2}>> -> tensor<1x64xi32, #L2>
    %t30 = tt.broadcast %t29 : tensor<1x64xi32, #L2> -> tensor<64x64xi32, #L2>
    %t31 = arith.addi %t27, %t30 : tensor<64x64xi32, #L2>
    %t32 = tt.splat %in2 : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #L2>
    %t33 = tt.addptr %t32, %t31 : tensor<64x64x!tt.ptr<f32>, #L2>, tensor<64x64xi32, #L2>
    %v7 = tt.load %t33 : tensor<64x64x!tt.ptr<f32>, #L2>
    %m3 = ttg.local_alloc %v2 : (tensor<64x64xf32, #L1>) -> !ttg.memdesc<64x64xf32, #S0, #smem>
    %m4 = ttg.local_alloc %v1 : (tensor<64x64xf32, #L0>) -> !ttg.memdesc<64x64xf32, #S1, #smem>
    %v5 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #L3>
    ttng.fence_async_shared {bCluster = false}
    %v6 = ttng.warp_group_dot %m3, %m4, %v5, %true {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf32, #S0, #smem> * !ttg.memdesc<64x64xf32, #S1, #smem> -> tensor<64x64xf32, #L3>
    %m8 = ttg.local_alloc %v7 : (tensor<64x64xf32, #L2>) -> !ttg.memdesc<64x64xf32, #S2, #smem>
    %m9 = ttg.local_alloc %v6 : (tensor<64x64xf32, #L3>) -> !ttg.memdesc<64x64xf32, #S1, #smem>
    %v10 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #L4>
    ttng.fence_async_shared {bCluster = false}
    %v11 = ttng.warp_group_dot %m8, %m9, %v10, %true {inputPrecision = 0 : i32} : !ttg.memdesc<64x64xf32, #S2, #smem> * !ttg.memdesc<64x64xf32, #S1, #smem> -> tensor<64x64xf32, #L4>
    ttg.local_dealloc %m3 : !ttg.memdesc<64x64xf32, #S0, #smem>
    ttg.local_dealloc %m4 : !ttg.memdesc<64x64xf32, #S1, #smem>
    ttg.local_dealloc %m8 : !ttg.memdesc<64x64xf32, #S2, #smem>
    ttg.local_dealloc %m9 : !ttg.memdesc<64x64xf32, #S1, #smem>
    %t34 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L4}>>
    %t35 = tt.expand_dims %t34 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L4}>> -> tensor<64x1xi32, #L4>
    %t36 = arith.constant dense<64> : tensor<64x1xi32, #L4>
    %t37 = arith.muli %t35, %t36 : tensor<64x1xi32, #L4>
    %t38 = tt.broadcast %t37 : tensor<64x1xi32, #L4> -> tensor<64x64xi32, #L4>
    %t39 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L4}>>
    %t40 = tt.expand_dims %t39 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #L4}>> -> tensor<1x64xi32, #L4>
    %t41 = tt.broadcast %t40 : tensor<1x64xi32, #L4> -> tensor<64x64xi32, #L4>
    %t42 = arith.addi %t38, %t41 : tensor<64x64xi32, #L4>
    %t43 = tt.splat %out : !tt.ptr<f32> -> tensor<64x64x!tt.ptr<f32>, #L4>
    %t44 = tt.addptr %t43, %t42 : tensor<64x64x!tt.ptr<f32>, #L4>, tensor<64x64xi32, #L4>
    tt.store %t44, %v11 : tensor<64x64x!tt.ptr<f32>, #L4>
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
x0 = ((torch.arange(4096) + 0) % 2048).to(torch.float32).reshape(64, 64)
x1 = torch.eye(64, 64).to(torch.float32)
x2 = torch.eye(64, 64).to(torch.float32)

# reference: the meaning of each op
m3 = x1
m4 = x0
v5 = 0
v6 = (m3.double() @ m4.double()).to(torch.float32)
m8 = x2
m9 = v6
v10 = 0
v11 = (m8.double() @ m9.double()).to(torch.float32)
expected = v11.contiguous().reshape(-1)

ins = [t.contiguous().cuda() for t in (x0, x1, x2,)]
out = torch.full((4096,), -1, dtype=torch.float32, device="cuda")
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
shape = (64, 64)
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
