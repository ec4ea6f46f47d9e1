"""A dot's result fed to a second dot over three key blocks of 16 with a head dim of 16: wrong.

`s = q @ k_j^T` (K = 16) cast and multiplied by `v_j`, accumulated over `j < 3`. Found by the
conformance fuzzer's `chain` family on an H200: the only such kernel of each campaign was
wrong on 3.9.0, 3.8.0 and 3.6.0, with the bundled ptxas and with CUDA 13.0's; every other
chain (head dims 32 and 64, fewer blocks) right. Needs only triton and torch. Exits 1 if wrong.
"""

import sys

import torch
import triton
import triton.language as tl


@triton.jit
def attn(q_ptr, k_ptr, v_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, D: tl.constexpr,
         E: tl.constexpr, BLOCKS: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rd = tl.arange(0, D)
    re = tl.arange(0, E)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((M, E), dtype=tl.float32)
    for j in tl.range(0, BLOCKS):
        k = tl.load(k_ptr + (j * N + rn)[:, None] * D + rd[None, :])
        v = tl.load(v_ptr + (j * N + rn)[:, None] * E + re[None, :])
        s = tl.dot(q, tl.trans(k))
        acc = tl.dot(s.to(tl.bfloat16), v.to(tl.bfloat16), acc)
    tl.store(o_ptr + rm[:, None] * E + re[None, :], acc)


def run(m, n, d, e, blocks, warps, stages):
    torch.manual_seed(0)
    q = torch.randint(-1, 2, (m, d), device="cuda").half()
    k = torch.randint(-1, 2, (blocks * n, d), device="cuda").half()
    v = torch.randint(-1, 2, (blocks * n, e), device="cuda").half()
    o = torch.full((m, e), float("nan"), device="cuda")
    attn[(1,)](q, k, v, o, m, n, d, e, blocks, num_warps=warps, num_stages=stages)
    want = (q.double().cpu() @ k.double().cpu().T) @ v.double().cpu()  # exact: |s| <= 16
    return int((o.double().cpu() != want).sum())


wrong = 0
print("triton", triton.__version__, torch.cuda.get_device_name())
for blocks in (1, 2, 3, 4):
    for d in (16, 32):
        n = run(128, 16, d, 32, blocks, 4, 1)
        print(f"M=128 N=16 D={d} E=32 blocks={blocks} num_warps=4 num_stages=1: {'WRONG ' + str(n) if n else 'OK'}")
        wrong += n > 0
sys.exit(1 if wrong else 0)
