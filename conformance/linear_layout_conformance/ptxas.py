"""Which assembler a release uses for a target: recorded with every kernel.

Triton resolves it per arch (3.9 assembles sm90 with ``ptxas-blackwell``,
CUDA 13.4; 3.6-3.8 with ``ptxas``, 12.9; see ``get_ptxas`` in
``backends/nvidia/compiler.py``), and ``TRITON_PTXAS_PATH`` /
``TRITON_PTXAS_BLACKWELL_PATH`` override it: a wrong result is blamed on a
layout only once another assembler gives the same answer.
"""

from __future__ import annotations


def ptxas_of(cap: int) -> dict[str, str]:
    """Return the assembler this process's Triton uses for ``sm{cap}``: path and version."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas

        tool = get_ptxas(cap)
        return {"path": str(tool.path), "version": str(tool.version)}
    except Exception as e:  # an old release has no get_ptxas
        return {"path": "?", "version": f"? ({type(e).__name__})"}
