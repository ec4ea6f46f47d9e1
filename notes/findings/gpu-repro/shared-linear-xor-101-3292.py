"""Conformance case 101-3292-min (shared): Triton 3.6, sm90, num_warps=1.

Observed: wrong: misplaced+garbage: 4/16 wrong; not an affine map of the index bits; where register bit 0=1, register bit 1=1

Loads each input in its layout, runs the ops below (layouts fixed in the TTGIR),
stores the result; compares with the same ops in torch. Needs only triton and torch.

With --workaround: the same module rewritten by 'swizzled-shared', which
must print OK.
"""

import sys
import tempfile

import torch
import triton
from triton.backends.compiler import GPUTarget

TTGIR = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S0 = #ttg.shared_linear<{offset = [[1, 0], [1, 3], [0, 2], [0, 4]]}, alignment = 16>
#L1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %t1 = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<2x1xi32, #L0>
    %t3 = arith.constant dense<8> : tensor<2x1xi32, #L0>
    %t4 = arith.muli %t2, %t3 : tensor<2x1xi32, #L0>
    %t5 = tt.broadcast %t4 : tensor<2x1xi32, #L0> -> tensor<2x8xi32, #L0>
    %t6 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L0}>>
    %t7 = tt.expand_dims %t6 {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L0}>> -> tensor<1x8xi32, #L0>
    %t8 = tt.broadcast %t7 : tensor<1x8xi32, #L0> -> tensor<2x8xi32, #L0>
    %t9 = arith.addi %t5, %t8 : tensor<2x8xi32, #L0>
    %t10 = tt.splat %in0 : !tt.ptr<f16> -> tensor<2x8x!tt.ptr<f16>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<2x8x!tt.ptr<f16>, #L0>, tensor<2x8xi32, #L0>
    %v1 = tt.load %t11 : tensor<2x8x!tt.ptr<f16>, #L0>
    %m2 = ttg.local_alloc %v1 : (tensor<2x8xf16, #L0>) -> !ttg.memdesc<2x8xf16, #S0, #smem>
    %v3 = ttg.local_load %m2 : !ttg.memdesc<2x8xf16, #S0, #smem> -> tensor<2x8xf16, #L1>
    %t12 = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #L1}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #L1}>> -> tensor<2x1xi32, #L1>
    %t14 = arith.constant dense<8> : tensor<2x1xi32, #L1>
    %t15 = arith.muli %t13, %t14 : tensor<2x1xi32, #L1>
    %t16 = tt.broadcast %t15 : tensor<2x1xi32, #L1> -> tensor<2x8xi32, #L1>
    %t17 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L1}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L1}>> -> tensor<1x8xi32, #L1>
    %t19 = tt.broadcast %t18 : tensor<1x8xi32, #L1> -> tensor<2x8xi32, #L1>
    %t20 = arith.addi %t16, %t19 : tensor<2x8xi32, #L1>
    %t21 = tt.splat %out : !tt.ptr<f16> -> tensor<2x8x!tt.ptr<f16>, #L1>
    %t22 = tt.addptr %t21, %t20 : tensor<2x8x!tt.ptr<f16>, #L1>, tensor<2x8xi32, #L1>
    tt.store %t22, %v3 : tensor<2x8x!tt.ptr<f16>, #L1>
    tt.return
  }
}
"""

TTGIR_WORKAROUND = r"""
#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S0 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#L1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @conformance(%in0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {
    %t1 = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #L0}>>
    %t2 = tt.expand_dims %t1 {axis = 1 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #L0}>> -> tensor<2x1xi32, #L0>
    %t3 = arith.constant dense<8> : tensor<2x1xi32, #L0>
    %t4 = arith.muli %t2, %t3 : tensor<2x1xi32, #L0>
    %t5 = tt.broadcast %t4 : tensor<2x1xi32, #L0> -> tensor<2x8xi32, #L0>
    %t6 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L0}>>
    %t7 = tt.expand_dims %t6 {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L0}>> -> tensor<1x8xi32, #L0>
    %t8 = tt.broadcast %t7 : tensor<1x8xi32, #L0> -> tensor<2x8xi32, #L0>
    %t9 = arith.addi %t5, %t8 : tensor<2x8xi32, #L0>
    %t10 = tt.splat %in0 : !tt.ptr<f16> -> tensor<2x8x!tt.ptr<f16>, #L0>
    %t11 = tt.addptr %t10, %t9 : tensor<2x8x!tt.ptr<f16>, #L0>, tensor<2x8xi32, #L0>
    %v1 = tt.load %t11 : tensor<2x8x!tt.ptr<f16>, #L0>
    %m2 = ttg.local_alloc %v1 : (tensor<2x8xf16, #L0>) -> !ttg.memdesc<2x8xf16, #S0, #smem>
    %v3 = ttg.local_load %m2 : !ttg.memdesc<2x8xf16, #S0, #smem> -> tensor<2x8xf16, #L1>
    %t12 = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #L1}>>
    %t13 = tt.expand_dims %t12 {axis = 1 : i32} : tensor<2xi32, #ttg.slice<{dim = 1, parent = #L1}>> -> tensor<2x1xi32, #L1>
    %t14 = arith.constant dense<8> : tensor<2x1xi32, #L1>
    %t15 = arith.muli %t13, %t14 : tensor<2x1xi32, #L1>
    %t16 = tt.broadcast %t15 : tensor<2x1xi32, #L1> -> tensor<2x8xi32, #L1>
    %t17 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L1}>>
    %t18 = tt.expand_dims %t17 {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = #L1}>> -> tensor<1x8xi32, #L1>
    %t19 = tt.broadcast %t18 : tensor<1x8xi32, #L1> -> tensor<2x8xi32, #L1>
    %t20 = arith.addi %t16, %t19 : tensor<2x8xi32, #L1>
    %t21 = tt.splat %out : !tt.ptr<f16> -> tensor<2x8x!tt.ptr<f16>, #L1>
    %t22 = tt.addptr %t21, %t20 : tensor<2x8x!tt.ptr<f16>, #L1>, tensor<2x8xi32, #L1>
    tt.store %t22, %v3 : tensor<2x8x!tt.ptr<f16>, #L1>
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
x0 = ((torch.arange(16) + 0) % 16384).to(torch.int16).reshape(2, 8)  # element ids (bit patterns)

# reference: the meaning of each op
m2 = x0
v3 = m2
expected = v3.contiguous().reshape(-1)

ins = [t.contiguous().cuda() for t in (x0,)]
out = torch.full((16,), -1, dtype=torch.int16, device="cuda")
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
shape = (2, 8)
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
