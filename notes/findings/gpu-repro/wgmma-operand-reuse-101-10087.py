"""Conformance case 101-10087-min (dot): Triton 3.6, sm90, num_warps=4.

Observed: illegal_access: CUDA error: an illegal memory access was encountered
Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be inco

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
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#L1 = #ttg.linear<{register = [[2, 0], [4, 0], [8, 0], [1, 0], [16, 0], [0, 1]], lane = [[0, 2], [32, 0], [0, 4], [0, 8], [0, 16]], warp = [[0, 64], [0, 32]], block = []}>
#L2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [1, 0]}>
#L3 = #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>, kWidth = 2}>
#S0 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#L4 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>
#L5 = #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>, kWidth = 2}>
#S1 = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = true, elementBitWidth = 16}>
#L6 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %in1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %in2: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
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
    %t10 = tt.splat %in0 : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<64x64x!tt.ptr<f16>, #L0>, tensor<64x64xi32, #L0>
    %v1 = tt.load %t11 : tensor<64x64x!tt.ptr<f16>, #L0>
    %t12 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L1}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L1}>> -> tensor<64x1xi32, #L1>
    %t14 = arith.constant dense<128> : tensor<64x1xi32, #L1>
    %t15 = arith.muli %t13, %t14 : tensor<64x1xi32, #L1>
    %t16 = tt.broadcast %t15 : tensor<64x1xi32, #L1> -> tensor<64x128xi32, #L1>
    %t17 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L1}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L1}>> -> tensor<1x128xi32, #L1>
    %t19 = tt.broadcast %t18 : tensor<1x128xi32, #L1> -> tensor<64x128xi32, #L1>
    %t20 = arith.addi %t16, %t19 : tensor<64x128xi32, #L1>
    %t21 = tt.splat %in1 : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>, #L1>
    %t22 = tt.addptr %t21, %t20 : tensor<64x128x!tt.ptr<f16>, #L1>, tensor<64x128xi32, #L1>
    %v2 = tt.load %t22 : tensor<64x128x!tt.ptr<f16>, #L1>
    %t23 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #L2}>>
    %t24 = tt.expand_dims %t23 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #L2}>> -> tensor<128x1xi32, #L2>
    %t25 = arith.constant dense<128> : tensor<128x1xi32, #L2>
    %t26 = arith.muli %t24, %t25 : tensor<128x1xi32, #L2>
    %t27 = tt.broadcast %t26 : tensor<128x1xi32, #L2> -> tensor<128x128xi32, #L2>
    %t28 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L2}>>
    %t29 = tt.expand_dims %t28 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L2}>> -> tensor<1x128xi32, #L2>
    %t30 = tt.broadcast %t29 : tensor<1x128xi32, #L2> -> tensor<128x128xi32, #L2>
    %t31 = arith.addi %t27, %t30 : tensor<128x128xi32, #L2>
    %t32 = tt.splat %in2 : !tt.ptr<bf16> -> tensor<128x128x!tt.ptr<bf16>, #L2>
    %t33 = tt.addptr %t32, %t31 : tensor<128x128x!tt.ptr<bf16>, #L2>, tensor<128x128xi32, #L2>
    %v8 = tt.load %t33 : tensor<128x128x!tt.ptr<bf16>, #L2>
    %v3 = ttg.convert_layout %v1 : tensor<64x64xf16, #L0> -> tensor<64x64xf16, #L3>
    %m4 = ttg.local_alloc %v2 : (tensor<64x128xf16, #L1>) -> !ttg.memdesc<64x128xf16, #S0, #smem>
    %v5 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #L4>
    ttng.fence_async_shared {bCluster = false}
    %v6 = ttng.warp_group_dot %v3, %m4, %v5, %true {inputPrecision = 0 : i32} : tensor<64x64xf16, #L3> * !ttg.memdesc<64x128xf16, #S0, #smem> -> tensor<64x128xf32, #L4>
    %v7 = arith.truncf %v6 : tensor<64x128xf32, #L4> to tensor<64x128xbf16, #L4>
    %v9 = ttg.convert_layout %v7 : tensor<64x128xbf16, #L4> -> tensor<64x128xbf16, #L5>
    %m10 = ttg.local_alloc %v8 : (tensor<128x128xbf16, #L2>) -> !ttg.memdesc<128x128xbf16, #S1, #smem>
    %v11 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #L6>
    ttng.fence_async_shared {bCluster = false}
    %v12 = ttng.warp_group_dot %v9, %m10, %v11, %true {inputPrecision = 0 : i32} : tensor<64x128xbf16, #L5> * !ttg.memdesc<128x128xbf16, #S1, #smem> -> tensor<64x128xf32, #L6>
    %t34 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L6}>>
    %t35 = tt.expand_dims %t34 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L6}>> -> tensor<64x1xi32, #L6>
    %t36 = arith.constant dense<128> : tensor<64x1xi32, #L6>
    %t37 = arith.muli %t35, %t36 : tensor<64x1xi32, #L6>
    %t38 = tt.broadcast %t37 : tensor<64x1xi32, #L6> -> tensor<64x128xi32, #L6>
    %t39 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L6}>>
    %t40 = tt.expand_dims %t39 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L6}>> -> tensor<1x128xi32, #L6>
    %t41 = tt.broadcast %t40 : tensor<1x128xi32, #L6> -> tensor<64x128xi32, #L6>
    %t42 = arith.addi %t38, %t41 : tensor<64x128xi32, #L6>
    %t43 = tt.splat %out : !tt.ptr<f32> -> tensor<64x128x!tt.ptr<f32>, #L6>
    %t44 = tt.addptr %t43, %t42 : tensor<64x128x!tt.ptr<f32>, #L6>, tensor<64x128xi32, #L6>
    tt.store %t44, %v12 : tensor<64x128x!tt.ptr<f32>, #L6>
    tt.return
  }
}
"""

TTGIR_WORKAROUND = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#L1 = #ttg.linear<{register = [[2, 0], [4, 0], [8, 0], [1, 0], [16, 0], [0, 1]], lane = [[0, 2], [32, 0], [0, 4], [0, 8], [0, 16]], warp = [[0, 64], [0, 32]], block = []}>
#L2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [1, 0]}>
#L3 = #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>, kWidth = 2}>
#S0 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#L4 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>
#L5 = #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>, kWidth = 2}>
#S1 = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = true, elementBitWidth = 16}>
#L6 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %in1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %in2: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
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
    %t10 = tt.splat %in0 : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<64x64x!tt.ptr<f16>, #L0>, tensor<64x64xi32, #L0>
    %v1 = tt.load %t11 : tensor<64x64x!tt.ptr<f16>, #L0>
    %t12 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L1}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L1}>> -> tensor<64x1xi32, #L1>
    %t14 = arith.constant dense<128> : tensor<64x1xi32, #L1>
    %t15 = arith.muli %t13, %t14 : tensor<64x1xi32, #L1>
    %t16 = tt.broadcast %t15 : tensor<64x1xi32, #L1> -> tensor<64x128xi32, #L1>
    %t17 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L1}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L1}>> -> tensor<1x128xi32, #L1>
    %t19 = tt.broadcast %t18 : tensor<1x128xi32, #L1> -> tensor<64x128xi32, #L1>
    %t20 = arith.addi %t16, %t19 : tensor<64x128xi32, #L1>
    %t21 = tt.splat %in1 : !tt.ptr<f16> -> tensor<64x128x!tt.ptr<f16>, #L1>
    %t22 = tt.addptr %t21, %t20 : tensor<64x128x!tt.ptr<f16>, #L1>, tensor<64x128xi32, #L1>
    %v2 = tt.load %t22 : tensor<64x128x!tt.ptr<f16>, #L1>
    %t23 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #L2}>>
    %t24 = tt.expand_dims %t23 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #L2}>> -> tensor<128x1xi32, #L2>
    %t25 = arith.constant dense<128> : tensor<128x1xi32, #L2>
    %t26 = arith.muli %t24, %t25 : tensor<128x1xi32, #L2>
    %t27 = tt.broadcast %t26 : tensor<128x1xi32, #L2> -> tensor<128x128xi32, #L2>
    %t28 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L2}>>
    %t29 = tt.expand_dims %t28 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L2}>> -> tensor<1x128xi32, #L2>
    %t30 = tt.broadcast %t29 : tensor<1x128xi32, #L2> -> tensor<128x128xi32, #L2>
    %t31 = arith.addi %t27, %t30 : tensor<128x128xi32, #L2>
    %t32 = tt.splat %in2 : !tt.ptr<bf16> -> tensor<128x128x!tt.ptr<bf16>, #L2>
    %t33 = tt.addptr %t32, %t31 : tensor<128x128x!tt.ptr<bf16>, #L2>, tensor<128x128xi32, #L2>
    %v8 = tt.load %t33 : tensor<128x128x!tt.ptr<bf16>, #L2>
    %v3 = ttg.convert_layout %v1 : tensor<64x64xf16, #L0> -> tensor<64x64xf16, #L3>
    %m4 = ttg.local_alloc %v2 : (tensor<64x128xf16, #L1>) -> !ttg.memdesc<64x128xf16, #S0, #smem>
    %v5 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #L4>
    ttng.fence_async_shared {bCluster = false}
    %v6 = ttng.warp_group_dot %v3, %m4, %v5, %true {inputPrecision = 0 : i32} : tensor<64x64xf16, #L3> * !ttg.memdesc<64x128xf16, #S0, #smem> -> tensor<64x128xf32, #L4>
    %v7 = arith.truncf %v6 : tensor<64x128xf32, #L4> to tensor<64x128xbf16, #L4>
    %v9 = ttg.convert_layout %v7 : tensor<64x128xbf16, #L4> -> tensor<64x128xbf16, #L5>
    %m10 = ttg.local_alloc %v8 : (tensor<128x128xbf16, #L2>) -> !ttg.memdesc<128x128xbf16, #S1, #smem>
    %v11 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #L6>
    ttng.fence_async_shared {bCluster = false}
    %v12 = ttng.warp_group_dot %v9, %m10, %v11, %true {inputPrecision = 0 : i32} : tensor<64x128xbf16, #L5> * !ttg.memdesc<128x128xbf16, #S1, #smem> -> tensor<64x128xf32, #L6>
    ttg.local_dealloc %m4 : !ttg.memdesc<64x128xf16, #S0, #smem>
    ttg.local_dealloc %m10 : !ttg.memdesc<128x128xbf16, #S1, #smem>
    %t34 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L6}>>
    %t35 = tt.expand_dims %t34 {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #L6}>> -> tensor<64x1xi32, #L6>
    %t36 = arith.constant dense<128> : tensor<64x1xi32, #L6>
    %t37 = arith.muli %t35, %t36 : tensor<64x1xi32, #L6>
    %t38 = tt.broadcast %t37 : tensor<64x1xi32, #L6> -> tensor<64x128xi32, #L6>
    %t39 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L6}>>
    %t40 = tt.expand_dims %t39 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #L6}>> -> tensor<1x128xi32, #L6>
    %t41 = tt.broadcast %t40 : tensor<1x128xi32, #L6> -> tensor<64x128xi32, #L6>
    %t42 = arith.addi %t38, %t41 : tensor<64x128xi32, #L6>
    %t43 = tt.splat %out : !tt.ptr<f32> -> tensor<64x128x!tt.ptr<f32>, #L6>
    %t44 = tt.addptr %t43, %t42 : tensor<64x128x!tt.ptr<f32>, #L6>, tensor<64x128xi32, #L6>
    tt.store %t44, %v12 : tensor<64x128x!tt.ptr<f32>, #L6>
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
x0 = ((torch.arange(4096) + 0) % 256).to(torch.float16).reshape(64, 64)
x1 = torch.eye(64, 128).to(torch.float16)
x2 = torch.eye(128, 128).to(torch.bfloat16)

# reference: the meaning of each op
v3 = x0
m4 = x1
v5 = 0
v6 = (v3.double() @ m4.double()).to(torch.float32)
v7 = v6.to(torch.bfloat16)
v9 = v7
m10 = x2
v11 = 0
v12 = (v9.double() @ m10.double()).to(torch.float32)
expected = v12.contiguous().reshape(-1)

ins = [t.contiguous().cuda() for t in (x0, x1, x2,)]
out = torch.full((8192,), -1, dtype=torch.float32, device="cuda")
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
shape = (64, 128)
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
