"""Loops over K whose loads the software pipeliner can stage (num_stages)."""

import triton
import triton.language as tl

from . import Case, Const, grid


@triton.jit
def matmul_loop(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # C[M, N] = A[M, K] @ B[K, N], all row-major; one BM x BN tile per program
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=(k + rk)[None, :] < K, other=0.0)
        b = tl.load(b_ptrs, mask=(k + rk)[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * N
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=mask)


@triton.jit
def rowsum_loop(x_ptr, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr):
    # out[r] = sum over columns of a BM x N row-major block, BN columns at a time
    pid = tl.program_id(0)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for start in range(0, N, BN):
        x = tl.load(x_ptr + rows[:, None] * N + (start + cols)[None, :], mask=(start + cols)[None, :] < N, other=0.0)
        acc += x
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))


@triton.jit
def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # matmul_loop through tensor descriptors (TMA on sm90); Triton >= 3.4
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


_mm_args = [("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16"), ("M", "i32"), ("N", "i32"), ("K", "i32"),
            ("BM", Const(128)), ("BN", Const(64)), ("BK", Const(32))]

CASES = [
    Case("matmul_loop", matmul_loop, _mm_args, grid(warps=(4, ), stages=(1, 2, 3)) + grid(warps=(8, ), stages=(3, )),
         div16=("M", "N", "K")),
    Case("matmul_loop_cta2", matmul_loop, _mm_args, grid(archs=(90, ), warps=(4, ), stages=(3, )), div16=("M", "N", "K"),
         ctas=2),
    Case("matmul_tma", matmul_tma, _mm_args, grid(archs=(90, ), warps=(4, ), stages=(1, 3)), div16=("M", "N", "K"),
         min_version=(3, 4)),
    Case("matmul_loop_w1", matmul_loop, _mm_args[:6] + [("BM", Const(16)), ("BN", Const(16)), ("BK", Const(32))],
         grid(archs=(80, ), warps=(1, ), stages=(2, )), div16=("M", "N", "K")),
    Case("rowsum_loop", rowsum_loop, [("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("N", "i32"), ("BM", Const(16)),
                                      ("BN", Const(128))], grid(archs=(80, ), warps=(4, ), stages=(1, 3)), div16=("N", ),
         note="loads that feed no dot: no release pipelines them, s3 == s1"),
]
