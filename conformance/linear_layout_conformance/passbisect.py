"""The guilty pass, on the CPU: a release's pipeline cut after every pass and each cut run.

Run a compile with ``MLIR_ENABLE_DUMP=1``: Triton prints the module before every pass.
:func:`split_dumps` cuts that log into ``(pass, module)`` pairs; the modules from
``convert-triton-to-tritongpu`` on are TTGIR, which ``triton.compile`` accepts as a
``.ttgir`` file and lowers with the rest of the pipeline (``make_llir`` on). :func:`bisect`
compiles each such module, runs its PTX through :mod:`.ptxemu` (straight-line kernels:
reductions, conversions, shared round trips) and says which are right. If the module
before pass P computes right and the one after it wrong, P is guilty; if every TTGIR module
computes wrong, the fault came before (the front end, or the TTIR passes); if every one is
right but the final cubin is wrong, the lowering to LLVM and PTX is (``make_llir``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

DUMP = re.compile(r"^// -----// IR Dump Before (\S+?):? .*?//----- //$", re.M)


def split_dumps(log: str) -> list[tuple[str, str]]:
    """Return ``(pass, module before it)`` for every dump in an ``MLIR_ENABLE_DUMP`` log."""
    marks = list(DUMP.finditer(log))
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(log)
        # attribute aliases come first, location aliases after the module: keep them all
        body = log[m.end() : end].strip()
        if "module" in body:
            out.append((m.group(1), body + "\n"))
    return out


def ttgir_stages(dumps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Return the dumps that are TTGIR modules (layouts assigned, not yet LLVM)."""
    return [(p, t) for p, t in dumps if "#ttg." in t and "llvm.func" not in t]


def dump_log(script: str, python: str = sys.executable, env: dict[str, str] | None = None) -> str:
    """Return the stderr of ``python -c script`` run with ``MLIR_ENABLE_DUMP=1``."""
    # a cached kernel runs no pass: always compile
    e = dict(os.environ, **(env or {}), MLIR_ENABLE_DUMP="1", TRITON_ALWAYS_COMPILE="1")
    p = subprocess.run(
        [python, "-c", script], capture_output=True, text=True, env=e, timeout=600, check=False
    )
    return p.stderr


def bisect(
    stages: list[tuple[str, str]],
    cap: int,
    run_ptx_of: Callable[[str], bool],
    python: str = sys.executable,
) -> list[dict[str, Any]]:
    """Compile every stage as TTGIR and judge its PTX; one ``{pass, verdict}`` per stage.

    ``run_ptx_of(ptx)`` says whether the PTX computes right (on :mod:`.ptxemu`).
    The verdict is ``right``, ``wrong`` or ``error: ...`` (the stage did not compile or
    the emulator refused it). Stage ``i`` is the module *before* pass ``stages[i][0]``.
    """
    out = []
    for name, text in stages:
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = os.path.join(tmp, "stage.ttgir"), os.path.join(tmp, "stage.ptx")
            with open(src, "w") as f:
                f.write(text)
            # each stage in a child: a module cut mid-pipeline can crash the compiler
            code = (
                "import sys, triton; from triton.backends.compiler import GPUTarget; "
                f"k = triton.compile(sys.argv[1], target=GPUTarget('cuda', {cap}, 32)); "
                "open(sys.argv[2], 'w').write(k.asm['ptx'])"
            )
            p = subprocess.run(
                [python, "-c", code, src, dst],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            if p.returncode != 0 or not os.path.exists(dst):
                last = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
                verdict = f"error: {last[:160]}"
            else:
                with open(dst) as f:
                    ptx = f.read()
                try:
                    verdict = "right" if run_ptx_of(ptx) else "wrong"
                except Exception as e:  # the emulator refuses an instruction
                    verdict = f"error: {type(e).__name__}: {e}"[:170]
        out.append({"before": name, "verdict": verdict})
    return out


def guilty(results: list[dict[str, Any]], final_right: bool) -> str:
    """Return the verdict of a bisection in words: the first pass whose output is wrong."""
    judged = [r for r in results if r["verdict"] in ("right", "wrong")]
    if not judged:
        return "undecided: no stage could be compiled and run"
    for a, b in zip(judged, judged[1:]):
        if a["verdict"] == "right" and b["verdict"] == "wrong":
            # stage i is the module before pass i: the pass named by ``a`` took right to wrong
            return f"{a['before']} (the module before it computes right, the one after it wrong)"
    if all(r["verdict"] == "wrong" for r in judged):
        return "before the first TTGIR stage: the front end or the TTIR passes"
    if not final_right and all(r["verdict"] == "right" for r in judged):
        return "after the last TTGIR stage: the lowering to LLVM and PTX (make_llir)"
    return "no fault found"
