"""A single tile-by-tile tl.dot, in several element types."""

import triton
import triton.language as tl

from . import Case, Const, grid


@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # a is BM x BK, b is BK x BN, both row-major; c is BM x BN fp32
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    ks = tl.arange(0, BK)
    a = tl.load(a_ptr + rows[:, None] * BK + ks[None, :])
    b = tl.load(b_ptr + ks[:, None] * BN + cols[None, :])
    acc = tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc)


@triton.jit
def dot_tile_bt(a_ptr, bt_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # like dot_tile, but b is stored transposed (BN x BK, row-major), so the
    # kernel transposes it in registers: the K-major operand fp8 MMAs want
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    ks = tl.arange(0, BK)
    a = tl.load(a_ptr + rows[:, None] * BK + ks[None, :])
    bt = tl.load(bt_ptr + cols[:, None] * BK + ks[None, :])
    acc = tl.dot(a, tl.trans(bt))
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc)


def _args(elem, bm=64, bn=64, bk=32, b_name="b_ptr"):
    return [("a_ptr", f"*{elem}"), (b_name, f"*{elem}"), ("c_ptr", "*fp32"), ("BM", Const(bm)), ("BN", Const(bn)),
            ("BK", Const(bk))]


CASES = [
    Case("dot_f16", dot_tile, _args("fp16"), grid(warps=(1, 4, 8))),
    Case("dot_bf16", dot_tile, _args("bf16"), grid(warps=(4, ))),
    Case("dot_f32", dot_tile, _args("fp32"), grid(warps=(4, ))),  # tf32 by default
    Case("dot_fp8e4nv", dot_tile, _args("fp8e4nv"), grid(warps=(4, ))),
    Case("dot_fp8e4nv_bt", dot_tile_bt, _args("fp8e4nv", bk=64, b_name="bt_ptr"), grid(archs=(90, ), warps=(4, ))),
    Case("dot_fp8e5", dot_tile, _args("fp8e5"), grid(archs=(80, ), warps=(4, ))),
    Case("dot_f16_cta2", dot_tile, _args("fp16", bm=128, bn=128, bk=32), grid(archs=(90, ), warps=(4, )), ctas=2),
    Case("dot_f16_128", dot_tile, _args("fp16", bm=128, bn=128, bk=32), grid(archs=(90, ), warps=(8, ))),
]
