"""Warp-specialized K loop, 4 warps, TMA operands, BLOCK_M >= 128: rows 64.. of the tile unwritten.

The kernel of the conformance fuzzer's `wsloop` case 3901-181, verbatim, with its launch:
on an H200 every such kernel (K a run-time argument, 4 warps, BLOCK_M 128 or 256, operands
through tl.make_tensor_descriptor) left rows 64 and up of its tile unwritten: 66 kernels on
3.9.0, 29 on 3.8.0, 67 on 3.6.0, with the bundled ptxas and with CUDA 13.0's; with 8 warps
or BLOCK_M = 64 all right. A variant with K a constexpr was right on 3.6.0 (one run), so K
stays a run-time argument here. Needs only triton and torch; exits 1 if any is wrong.
"""

import sys

import torch
import triton
import triton.language as tl

triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, m_real, K, M_TOT: tl.constexpr, N_TOT: tl.constexpr,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, WS: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M_TOT, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [N_TOT, K], [K, 1], [BN, BK])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, warp_specialize=WS):
        a = a_desc.load([pid_m * BM, k])
        b = tl.trans(b_desc.load([pid_n * BN, k]))
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N_TOT + rn[None, :], acc, mask=rm[:, None] < m_real)


def run(bm, warps, ws, bn=32, bk=16, k=64, grid_n=2):
    torch.manual_seed(0)
    n = bn * grid_n
    a = torch.randint(-2, 3, (bm, k), device="cuda").float()
    b = torch.randint(-2, 3, (n, k), device="cuda").float()  # B stored [N, K]
    c = torch.full((bm, n), float("nan"), device="cuda")
    kernel[(1, grid_n)](a, b, c, bm, k, bm, n, bm, bn, bk, ws, num_warps=warps, num_stages=3)
    want = a.double().cpu() @ b.double().cpu().T  # small integers: exact in tf32 and fp32
    bad = c.double().cpu() != want
    rows = sorted({int(r) for r in bad.nonzero()[:, 0]})
    return int(bad.sum()), rows


wrong = 0
print("triton", triton.__version__, torch.cuda.get_device_name())
for bm in (64, 128):
    for warps in (4, 8):
        for ws in (False, True):
            try:
                n, rows = run(bm, warps, ws)
            except Exception as e:  # warp_specialize with some shapes does not compile
                print(f"BM={bm} num_warps={warps} warp_specialize={ws}: {type(e).__name__}")
                continue
            span = f" (rows {rows[0]}..{rows[-1]})" if rows else ""
            print(f"BM={bm} num_warps={warps} warp_specialize={ws}: {'WRONG ' + str(n) + span if n else 'OK'}")
            wrong += n > 0
sys.exit(1 if wrong else 0)
