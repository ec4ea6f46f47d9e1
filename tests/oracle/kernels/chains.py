"""Two tl.dot calls in a row: the first one's result feeds the second."""

import triton
import triton.language as tl

from . import Case, Const, grid


@triton.jit
def chain_as_a(a_ptr, b_ptr, d_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               BP: tl.constexpr):
    # out = (a @ b) @ d : a is BM x BK, b is BK x BN, d is BN x BP
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    k = tl.arange(0, BK)
    p = tl.arange(0, BP)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    b = tl.load(b_ptr + k[:, None] * BN + n[None, :])
    d = tl.load(d_ptr + n[:, None] * BP + p[None, :])
    ab = tl.dot(a, b).to(tl.float16)
    out = tl.dot(ab, d)
    tl.store(out_ptr + m[:, None] * BP + p[None, :], out)


@triton.jit
def chain_as_b(a_ptr, b_ptr, e_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               BP: tl.constexpr):
    # out = e @ (a @ b) : a is BM x BK, b is BK x BN, e is BP x BM
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    k = tl.arange(0, BK)
    p = tl.arange(0, BP)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    b = tl.load(b_ptr + k[:, None] * BN + n[None, :])
    e = tl.load(e_ptr + p[:, None] * BM + m[None, :])
    ab = tl.dot(a, b).to(tl.float16)
    out = tl.dot(e, ab)
    tl.store(out_ptr + p[:, None] * BN + n[None, :], out)


@triton.jit
def attention_tile(q_ptr, k_ptr, v_ptr, o_ptr, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    # one tile of softmax(q @ k^T) @ v: a dot, a row max/sum, a second dot
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + m[:, None] * D + d[None, :])
    kt = tl.load(k_ptr + d[:, None] + n[None, :] * D)
    v = tl.load(v_ptr + n[:, None] * D + d[None, :])
    s = tl.dot(q, kt)
    s = s - tl.max(s, axis=1)[:, None]
    p = tl.exp(s)
    p = p / tl.sum(p, axis=1)[:, None]
    o = tl.dot(p.to(tl.float16), v)
    tl.store(o_ptr + m[:, None] * D + d[None, :], o)


def _args(third):
    return [("a_ptr", "*fp16"), ("b_ptr", "*fp16"), (third, "*fp16"), ("out_ptr", "*fp32"), ("BM", Const(64)),
            ("BN", Const(64)), ("BK", Const(32)), ("BP", Const(32))]


CASES = [
    Case("chain_a", chain_as_a, _args("d_ptr"), grid(warps=(4, 8))),
    Case("chain_b", chain_as_b, _args("e_ptr"), grid(warps=(4, 8))),
    Case("attention", attention_tile, [("q_ptr", "*fp16"), ("k_ptr", "*fp16"), ("v_ptr", "*fp16"),
                                       ("o_ptr", "*fp32"), ("BM", Const(64)), ("BN", Const(64)), ("D", Const(64))],
         grid(warps=(4, ))),
]
