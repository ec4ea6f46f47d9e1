"""3-D tensors: plain load/store, permute and reshape, a batched dot."""

import triton
import triton.language as tl

from . import Case, Config, Const


@triton.jit
def copy3d(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # y = 2 * x on an A x B x C contiguous block
    i = tl.arange(0, A)[:, None, None]
    j = tl.arange(0, B)[None, :, None]
    k = tl.arange(0, C)[None, None, :]
    offs = i * (B * C) + j * C + k
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x * 2)


@triton.jit
def permute_reshape3d(x_ptr, y_ptr, z_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # y = x.permute(2, 0, 1) (stored contiguously as C x A x B);
    # z = x.reshape(A * B, C) summed over its rows, a C-vector
    i = tl.arange(0, A)[:, None, None]
    j = tl.arange(0, B)[None, :, None]
    k = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + i * (B * C) + j * C + k)
    y = tl.permute(x, (2, 0, 1))
    ci = tl.arange(0, C)[:, None, None]
    ai = tl.arange(0, A)[None, :, None]
    bi = tl.arange(0, B)[None, None, :]
    tl.store(y_ptr + ci * (A * B) + ai * B + bi, y)
    z = tl.sum(tl.reshape(x, (A * B, C)), axis=0)
    tl.store(z_ptr + tl.arange(0, C), z)


@triton.jit
def join_split(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # out = interleave(x, y) as an M x N x 2 block; then read out back,
    # split it, and store the difference of the halves in y
    m = tl.arange(0, M)[:, None]
    n = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + m * N + n)
    y = tl.load(y_ptr + m * N + n)
    offs3 = (m * N + n)[:, :, None] * 2 + tl.arange(0, 2)[None, None, :]
    tl.store(out_ptr + offs3, tl.join(x, y))
    a, b = tl.split(tl.load(out_ptr + offs3))
    tl.store(y_ptr + m * N + n, a - b)


@triton.jit
def batched_dot(a_ptr, b_ptr, c_ptr, NB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # c[i] = a[i] @ b[i] for i < NB
    bi = tl.arange(0, NB)[:, None, None]
    m = tl.arange(0, BM)[None, :, None]
    n = tl.arange(0, BN)[None, None, :]
    ka = tl.arange(0, BK)[None, None, :]
    kb = tl.arange(0, BK)[None, :, None]
    a = tl.load(a_ptr + bi * (BM * BK) + m * BK + ka)
    b = tl.load(b_ptr + bi * (BK * BN) + kb * BN + n)
    c = tl.dot(a, b)
    tl.store(c_ptr + bi * (BM * BN) + m * BN + n, c)


_cfgs = [Config(80, 4, 1), Config(90, 8, 1)]

CASES = [
    Case("copy3d", copy3d, [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("A", Const(4)), ("B", Const(8)),
                            ("C", Const(32))], _cfgs + [Config(80, 1, 1)]),
    Case("permute3d", permute_reshape3d, [("x_ptr", "*fp16"), ("y_ptr", "*fp16"), ("z_ptr", "*fp32"),
                                          ("A", Const(4)), ("B", Const(16)), ("C", Const(32))], _cfgs),
    Case("join_split", join_split, [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("M", Const(32)),
                                    ("N", Const(64))], _cfgs),
    Case("bdot", batched_dot, [("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp32"), ("NB", Const(2)),
                               ("BM", Const(32)), ("BN", Const(32)), ("BK", Const(32))], _cfgs + [Config(90, 4, 1)]),
]
