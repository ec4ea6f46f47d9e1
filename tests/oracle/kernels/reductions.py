"""Reductions over one axis of a 2-D tile, broadcast back (slice layouts)."""

import triton
import triton.language as tl

from . import Case, Config, Const, grid


@triton.jit
def center_rows(x_ptr, y_ptr, s_ptr, BM: tl.constexpr, BN: tl.constexpr):
    # y = x - rowsum(x)[:, None]; s = rowsum(x)
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    x = tl.load(x_ptr + m[:, None] * BN + n[None, :])
    s = tl.sum(x, axis=1)
    tl.store(y_ptr + m[:, None] * BN + n[None, :], x - s[:, None])
    tl.store(s_ptr + m, s)


@triton.jit
def center_cols(x_ptr, y_ptr, s_ptr, BM: tl.constexpr, BN: tl.constexpr):
    # y = x - colsum(x)[None, :]; s = colsum(x)
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    x = tl.load(x_ptr + m[:, None] * BN + n[None, :])
    s = tl.sum(x, axis=0)
    tl.store(y_ptr + m[:, None] * BN + n[None, :], x - s[None, :])
    tl.store(s_ptr + n, s)


@triton.jit
def dot_rowsum(a_ptr, b_ptr, c_ptr, s_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # reduce the MMA accumulator: slices of the mma layout
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    k = tl.arange(0, BK)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    b = tl.load(b_ptr + k[:, None] * BN + n[None, :])
    c = tl.dot(a, b)
    s = tl.sum(c, axis=1)
    tl.store(c_ptr + m[:, None] * BN + n[None, :], c / s[:, None])
    tl.store(s_ptr + m, s)


@triton.jit
def dot_reshape_sum(a_ptr, b_ptr, s_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # s = (a @ b) viewed as BM x 2 x (BN / 2), summed over the middle axis,
    # then transposed: reshapes and permutes of an MMA result
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    k = tl.arange(0, BK)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    b = tl.load(b_ptr + k[:, None] * BN + n[None, :])
    c = tl.dot(a, b)
    s = tl.sum(tl.reshape(c, (BM, 2, BN // 2)), axis=1)
    h = tl.arange(0, BN // 2)
    tl.store(s_ptr + h[:, None] * BM + m[None, :], tl.trans(s))


def _xys(bm, bn):
    return [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("s_ptr", "*fp32"), ("BM", Const(bm)), ("BN", Const(bn))]


_cfgs = grid(archs=(80, ), warps=(1, 4, 8)) + [Config(90, 4, 1)]

CASES = [
    Case("sum_rows", center_rows, _xys(64, 128), _cfgs),
    Case("sum_cols", center_cols, _xys(32, 256), _cfgs),
    Case("sum_rows_f16", center_rows, [("x_ptr", "*fp16"), ("y_ptr", "*fp16"), ("s_ptr", "*fp16"), ("BM", Const(16)),
                                       ("BN", Const(64))], grid(archs=(80, ), warps=(1, ))),
    Case("dot_rowsum", dot_rowsum, [("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp32"), ("s_ptr", "*fp32"),
                                    ("BM", Const(64)), ("BN", Const(64)), ("BK", Const(32))], grid(warps=(4, ))),
    Case("dot_reshape", dot_reshape_sum, [("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("s_ptr", "*fp32"), ("BM", Const(64)),
                                          ("BN", Const(64)), ("BK", Const(32))], grid(warps=(4, ))),
]
