# ruff: noqa: N803  (Triton constexpr arguments are upper case by convention)
"""A Gluon test kernel (Triton 3.4 and later), undecorated.

``nvmma_rows`` stages an ``[R, C]`` fp32 tile through an NVMMA shared buffer
with a 64-byte swizzle, whose tile is 8 rows: fewer rows reach "Illegal
shared layout" (``report_fatal_error``) when the buffer is lowered.
"""

from triton.experimental.gluon import language as gl


def nvmma_rows(ptr, R: gl.constexpr, C: gl.constexpr, W: gl.constexpr):
    regs: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [W, 1], [1, 0])
    rows = gl.arange(0, R, layout=gl.SliceLayout(1, regs))
    cols = gl.arange(0, C, layout=gl.SliceLayout(0, regs))
    offsets = rows[:, None] * C + cols[None, :]
    x = gl.load(ptr + offsets)
    nvmma: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=32, rank=2)
    buffer = gl.allocate_shared_memory(gl.float32, [R, C], nvmma, x)
    gl.store(ptr + offsets, buffer.load(regs))
