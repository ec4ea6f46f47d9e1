"""A kernel module whose import never ends (a busy loop in Python)."""

import triton
import triton.language as tl

while True:
    pass


@triton.jit
def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))
