# ruff: noqa: N803  (Triton constexpr arguments are upper case by convention)
"""The test kernels, undecorated (``llt_support.make_kernel`` makes fresh JIT functions).

``chain_b`` is flash-linear-attention's shape: ``P = A[M,K] @ B[K,BN]`` cast
to the input type, then ``O = D[X,M] @ P`` (the first product is operand B of
the second: ``chain-b`` of tests/oracle/compile). ``TAG`` is a constexpr the
code ignores.
"""

import triton.language as tl


def chain_b(
    a_ptr,
    b_ptr,
    d_ptr,
    o_ptr,
    M: tl.constexpr,
    K: tl.constexpr,
    X: tl.constexpr,
    BN: tl.constexpr,
    TAG: tl.constexpr,
):
    rows = tl.arange(0, M)
    cols = tl.arange(0, BN)
    ks = tl.arange(0, K)
    xs = tl.arange(0, X)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])
    b = tl.load(b_ptr + ks[:, None] * BN + cols[None, :])
    p = tl.dot(a, b).to(a_ptr.dtype.element_ty)
    d = tl.load(d_ptr + xs[:, None] * M + rows[None, :])
    o = tl.dot(d, p)
    tl.store(o_ptr + xs[:, None] * BN + cols[None, :], o.to(o_ptr.dtype.element_ty))


def matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """C[M,N] = A[M,K] @ B[K,N] in fp16 with fp32 accumulation, one [BM, BN] tile per program."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=ks[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=ks[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))
