"""Child process of the tests: compile jobs for real, one JSON line each.

Reads a JSON list of ``llt_support.Job`` objects on stdin and compiles them
in order through the JIT (stand-in driver, ``warmup=True``). Prints
``{"outcome": "ok"}`` or ``{"outcome": "error", "detail": "Type: message"}``
per job as it finishes; a compile that aborts ends the process (the parent
sees the signal). ``--guard MODE`` compiles under ``linear_layout.triton``'s
guard, uncontained (the warn-mode test: the compile must end this child).
"""

from __future__ import annotations

import argparse
import json
import sys


def summary(e: BaseException) -> str:
    while e.__cause__ is not None:
        e = e.__cause__
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[-1] if lines else ''}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--guard", choices=("raise", "warn"))
    args = ap.parse_args()
    import llt_support

    jobs = [llt_support.Job.from_json(d) for d in json.load(sys.stdin)]
    llt_support.activate()
    if args.guard:
        import llt_import

        llt_import.ensure().install(args.guard, contain=False)
    for job in jobs:
        try:
            llt_support.compile_job(job)
            out = {"outcome": "ok"}
        except Exception as e:
            out = {"outcome": "error", "detail": summary(e)}
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
