"""Measure what the model's check costs, against full compiles (CPU, sm90).

Usage (under a release's python, e.g. ``$(bash tests/oracle/venv.sh 3.2.0)``)::

    python python/tests/llt/measure.py [--repeats 3] [--json OUT]

For every configuration of the tutorial matmul autotuning space and of the
chain-b list that compiles on the installed release:

- full: a full compile (front end, LLVM lowering, PTX, ptxas), no guard;
- guarded: the same under ``guard(contain=False)`` (the check alone; what
  containment adds is ``measure_contain.py``'s);
- check: the time inside the guard itself (printing the module, running the
  checker), measured by the guard: its overhead, without the noise of
  comparing two compiles.

Every time is measured twice: wall clock, and CPU time (this process plus
its finished children: ptxas, the checker), which a loaded machine distorts
far less. Each compile gets a fresh Triton cache and a fresh JIT function;
the full and guarded compiles alternate, ``--repeats`` times; medians are
reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import llt_import  # noqa: E402
import llt_support as lls  # noqa: E402

MATMUL = [
    lls.matmul(128, 256, 64, 8, 3),
    lls.matmul(64, 256, 32, 4, 4),
    lls.matmul(128, 128, 32, 4, 4),
    lls.matmul(128, 64, 32, 4, 4),
    lls.matmul(64, 128, 32, 4, 4),
    lls.matmul(128, 32, 32, 4, 4),
    lls.matmul(64, 32, 32, 4, 5),
    lls.matmul(32, 64, 32, 4, 5),
]


def fresh_cache() -> str:
    d = tempfile.mkdtemp(prefix="llt-measure-")
    os.environ["TRITON_CACHE_DIR"] = d
    return d


def timed(fn: Any) -> tuple[float, float]:
    """Wall and CPU seconds of fn()."""
    from linear_layout.triton._hooks import cpu_seconds

    t0, c0 = time.perf_counter(), cpu_seconds()
    fn()
    return time.perf_counter() - t0, cpu_seconds() - c0


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import shutil

    import triton

    llt = llt_import.ensure()
    from linear_layout.triton import _hooks

    lls.activate()
    jobs = MATMUL + [j for j in lls.autotune_jobs() if j.kernel == "chain_b"]
    real = lls.run_children(jobs)
    jobs = [j for j, r in zip(jobs, real) if r.outcome == "ok"]
    fresh_cache()
    lls.compile_job(jobs[0])  # the first compile of a process pays one-off set-up
    rows = []
    for job in jobs:
        m: dict[str, list[float]] = {}

        def add(key: str, wall: float, cpu: float, m: dict[str, list[float]] = m) -> None:
            m.setdefault(key, []).append(wall)
            m.setdefault(key + "_cpu", []).append(cpu)

        for r in range(args.repeats):
            order = ("full", "guarded") if r % 2 == 0 else ("guarded", "full")
            for what in order:
                cache = fresh_cache()
                if what == "full":
                    add("full", *timed(lambda job=job: lls.compile_job(job)))
                else:
                    w0, c0 = _hooks.Stats.check_seconds, _hooks.Stats.check_cpu_seconds
                    _hooks.by_key.data.clear()
                    _hooks.by_text.data.clear()
                    with llt.guard(contain=False):
                        add("guarded", *timed(lambda job=job: lls.compile_job(job)))
                    add(
                        "check",
                        _hooks.Stats.check_seconds - w0,
                        _hooks.Stats.check_cpu_seconds - c0,
                    )
                shutil.rmtree(cache, ignore_errors=True)
        row: dict[str, Any] = {
            "job": f"{job.kernel} {dict(job.config_kwargs())} w{job.num_warps} s{job.num_stages}"
        }
        row.update({k: med(v) for k, v in m.items()})
        row["check_share"] = row["check"] / row["full"]
        row["check_share_cpu"] = row["check_cpu"] / row["full_cpu"]
        row["wall_share"] = (row["guarded"] - row["full"]) / row["full"]
        rows.append(row)
        print(
            f"{row['job']:44} full {row['full']:5.2f}s cpu {row['full_cpu']:5.2f}s | "
            f"check {row['check'] * 1e3:5.1f}ms ({row['check_share']:5.1%}) "
            f"cpu {row['check_cpu'] * 1e3:5.1f}ms ({row['check_share_cpu']:5.1%}) | "
            f"guarded-full {row['wall_share']:+6.1%}",
            flush=True,
        )

    def summary(key: str) -> str:
        xs = [r[key] for r in rows]
        return f"median {med(xs):.3g}, min {min(xs):.3g}, max {max(xs):.3g}"

    print(f"triton {triton.__version__}:")
    print(f"  guard overhead (check/full), wall: {summary('check_share')}")
    print(f"  guard overhead (check/full), CPU:  {summary('check_share_cpu')}")
    print(f"  guarded - full, wall:             {summary('wall_share')}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"triton": triton.__version__, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
