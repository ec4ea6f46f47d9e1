"""Kernels for scan's launch checks (`check.py`): a copy through host tensor
descriptors (Triton 3.4+, as the persistent-matmul tutorial and sglang's TMA
MoE paths pass them), and a matmul with its own autotune list."""
import triton
import triton.language as tl


@triton.jit
def desc_copy(a_desc, b_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    tile = a_desc.load([pid * BLOCK_M, 0])
    b_desc.store([pid * BLOCK_M, 0], tile)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=8, num_stages=2),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def matmul(a, b, c, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty))


@triton.jit
def chained_dots(a, b, c, out, BLOCK: tl.constexpr):
    """`tl.dot(tl.trans(tl.dot(a, b).to(bf16)), c)`: the shape whose wgmma
    operands ptxas 12.8 may miscompile (site `ptxas_wgmma_reuse`)."""
    r = tl.arange(0, BLOCK)
    x = tl.load(a + r[:, None] * BLOCK + r[None, :])
    y = tl.load(b + r[:, None] * BLOCK + r[None, :])
    z = tl.load(c + r[:, None] * BLOCK + r[None, :])
    p = tl.dot(x, y).to(tl.bfloat16)
    q = tl.dot(tl.trans(p), z)
    tl.store(out + r[:, None] * BLOCK + r[None, :], q)
