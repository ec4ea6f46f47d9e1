"""Measure what containment costs per compile, against the ways it could have been done (CPU).

Usage (under a release's python, e.g. ``$(bash tests/oracle/venv.sh 3.9.0)``)::

    python python/tests/llt/measure_contain.py [--repeats 2] [--json OUT]

For each configuration (chain-b and the tutorial matmul, sm90 target,
stand-in driver), alternately, with a fresh Triton cache each time:

- ``in_process``: the compile in this process (what Triton does);
- ``forked``: the compile under ``guard()``: a forked child compiles and
  fills Triton's cache, this process loads the kernel from it (the design);
- ``cached``: the same compile again under ``guard()`` with the cache
  filled: the probe finds it, no child;

and, once: ``fork``, a bare fork + exit + wait of this process; ``spawn``, a
fresh interpreter that imports Triton (what a compile in a new process
would pay before compiling anything: the other way to isolate a compile
whose kernel the child has to see). Wall clock and CPU time (this process
and its finished children) are both reported; on a loaded machine the CPU
column is the one to read. Medians over configurations.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import llt_import  # noqa: E402
import llt_support as lls  # noqa: E402

JOBS = [
    lls.chain_b(64, 4, 2),
    lls.chain_b(32, 4, 1),
    lls.chain_b(128, 8, 2),
    lls.matmul(64, 64, 32, 4, 3),
    lls.matmul(128, 64, 32, 4, 4),
    lls.matmul(64, 128, 32, 4, 4),
]


def timed(fn: Any) -> tuple[float, float]:
    """Wall seconds of ``fn()``, and CPU seconds once its children are reaped."""
    from linear_layout.triton import _worker
    from linear_layout.triton._hooks import cpu_seconds

    t0, c0 = time.perf_counter(), cpu_seconds()
    fn()
    wall = time.perf_counter() - t0
    # a child that answered is reaped later; its CPU time counts once it is
    for pid in list(_worker._zombies):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    _worker._zombies.clear()
    return wall, cpu_seconds() - c0


def fork_cost(n: int = 20) -> tuple[float, float]:
    def forks() -> None:
        for _ in range(n):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)

    wall, cpu = timed(forks)
    return wall / n, cpu / n


def spawn_cost(n: int = 3) -> tuple[float, float]:
    def spawns() -> None:
        for _ in range(n):
            subprocess.run([sys.executable, "-c", "import triton"], check=True)

    wall, cpu = timed(spawns)
    return wall / n, cpu / n


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--json")
    args = ap.parse_args()
    llt = llt_import.ensure()
    import triton

    lls.activate()
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    # warm this process (LLVM set-up, the first compile's one-off costs)
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="llt-contain-")
    lls.compile_job(JOBS[0])
    rows = []
    for job in JOBS:

        def compile_it(job: lls.Job = job) -> Any:
            return lls.compile_job(job)

        m: dict[str, list[tuple[float, float]]] = {"in_process": [], "forked": [], "cached": []}
        for r in range(args.repeats):
            for way in ("in_process", "forked") if r % 2 == 0 else ("forked", "in_process"):
                cache = tempfile.mkdtemp(prefix="llt-contain-")
                os.environ["TRITON_CACHE_DIR"] = cache
                if way == "in_process":
                    m[way].append(timed(compile_it))
                else:
                    with llt.guard():
                        m[way].append(timed(compile_it))
                        m["cached"].append(timed(compile_it))
                shutil.rmtree(cache, ignore_errors=True)
        row: dict[str, Any] = {"job": f"{job.kernel} {dict(job.constexprs)} w{job.num_warps}"}
        for way, values in m.items():
            row[way] = [statistics.median(v[i] for v in values) for i in (0, 1)]
        row["forked_over_in_process"] = [row["forked"][i] - row["in_process"][i] for i in (0, 1)]
        rows.append(row)
        print(
            f"{row['job']}: in-process {row['in_process'][0]:.3f}s "
            f"(cpu {row['in_process'][1]:.3f}), "
            f"forked {row['forked'][0]:.3f}s (cpu {row['forked'][1]:.3f}), "
            f"cached {row['cached'][0] * 1e3:.1f}ms",
            file=sys.stderr,
            flush=True,
        )
    summary = {
        "triton": triton.__version__,
        "jobs": rows,
        "fork": fork_cost(),
        "spawn_import_triton": spawn_cost(),
        "median_forked_over_in_process": [
            statistics.median(r["forked_over_in_process"][i] for r in rows) for i in (0, 1)
        ],
        "median_in_process": [statistics.median(r["in_process"][i] for r in rows) for i in (0, 1)],
        "median_cached": [statistics.median(r["cached"][i] for r in rows) for i in (0, 1)],
    }
    text = json.dumps(summary, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
