"""Two chained `tl.dot`s, as attention and chunked linear attention write them.

`out = e @ (a @ b)`: the first product, cast back to the input type, is the
second product's right operand. Its autotune list is a kernel author's usual
one; some of its configurations make some Triton releases abort. Try:

    linear-layout scan examples/chained_dots.py::chained_dots \
        --args 'a_ptr=*T, b_ptr=*T, e_ptr=*T, out_ptr=*fp32' --dtype fp16,bf16 --arch sm80,sm90
"""

import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BM": 64, "BN": 64, "BK": 32, "BP": 32}, num_warps=4, num_stages=2),
        triton.Config({"BM": 64, "BN": 64, "BK": 32, "BP": 32}, num_warps=8, num_stages=2),
        triton.Config({"BM": 64, "BN": 16, "BK": 16, "BP": 64}, num_warps=8, num_stages=1),
    ],
    key=[],
)
@triton.jit
def chained_dots(a_ptr, b_ptr, e_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                 BP: tl.constexpr):
    # a is BM x BK, b is BK x BN, e is BP x BM; out is BP x BN
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    k = tl.arange(0, BK)
    p = tl.arange(0, BP)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    b = tl.load(b_ptr + k[:, None] * BN + n[None, :])
    e = tl.load(e_ptr + p[:, None] * BM + m[None, :])
    ab = tl.dot(a, b).to(a_ptr.dtype.element_ty)
    out = tl.dot(e, ab)
    tl.store(out_ptr + p[:, None] * BN + n[None, :], out)
