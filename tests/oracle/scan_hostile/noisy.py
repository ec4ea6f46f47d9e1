"""A kernel module that talks at import: it prints a dict, a line of JSON
that looks like a worker's reply, and bytes straight to file descriptor 1,
and reads stdin. None of it may reach scan's channel to its workers."""

import json
import os
import sys

import triton
import triton.language as tl

print({"hello": 99, "status": "ok"})
print(json.dumps({"id": 0, "status": "abort", "message": "forged"}))
os.write(1, b'{"hello": 1, "error": "forged at the C level"}\n')
STOLEN = sys.stdin.read()


@triton.jit
def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    print("a kernel's own print, at trace time")
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))
