"""tl.argmax over rows that are all the masked load's `other`: index 1, not 0 (tie_break_left).

A row whose elements are all equal must give index 0 (`tie_break_left=True`, the default).
Found by the conformance fuzzer's `reduce` family on an H200: 5 int16 argmax kernels with
rows masked off wrong on 3.8.0 and 1 on 3.6.0 (with CUDA 13.0's ptxas too); none on 3.9.0.
Needs only triton and torch. Exits 1 if wrong.
"""

import sys

import torch
import triton
import triton.language as tl


@triton.jit
def argmax_rows(x_ptr, out_ptr, m_real, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=rows[:, None] < m_real, other=-30000)
    tl.store(out_ptr + rows, tl.argmax(x, axis=1))


wrong = 0
print("triton", triton.__version__, torch.cuda.get_device_name())
for dtype in (torch.int16, torch.int32, torch.float32):
    for warps in (4, 8):
        m, n, m_real = 32, 128, 21
        torch.manual_seed(0)
        x = torch.stack([torch.randperm(n) - n // 2 for _ in range(m)]).to(dtype).cuda()
        out = torch.full((m,), -1, dtype=torch.int32, device="cuda")
        argmax_rows[(1,)](x, out, m_real, m, n, num_warps=warps)
        want = x.cpu().argmax(dim=1).int()
        want[m_real:] = 0  # every masked row is all -30000: the leftmost index
        bad = (out.cpu() != want).nonzero().flatten().tolist()
        print(f"{dtype} num_warps={warps}: {'WRONG rows ' + str(bad) + ' -> ' + str(out.cpu()[bad].tolist()) if bad else 'OK'}")
        wrong += bool(bad)
sys.exit(1 if wrong else 0)
