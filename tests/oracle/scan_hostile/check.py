#!/usr/bin/env python3
"""Checks that a kernel's module cannot derail `linear-layout scan`'s workers
(CI: `.ci/run`), with the newest release in --venv-dir:

- noisy.py prints a dict, a line of JSON shaped like a worker's reply and
  bytes written to file descriptor 1 at import, and reads stdin: the scan
  answers as for a quiet module (every configuration compiles), and nothing
  forged reaches the report;
- slow.py never finishes importing: with --timeout 5 the scan stops with
  a clear error (exit 2, "took more than 5 s") within a bounded time.

Usage: check.py --binary target/release/linear-layout --venv-dir DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def newest(binary):
    table = json.loads(subprocess.run([binary, "releases", "--json"], capture_output=True, text=True,
                                      check=True).stdout)
    return table["releases"][-1]["wheel"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--venv-dir", required=True)
    args = ap.parse_args()
    wheel = newest(args.binary)
    cache = tempfile.mkdtemp(prefix="ll-scan-hostile-")
    failures = []
    try:
        base = [args.binary, "scan", "--args", "x_ptr=*fp16, y_ptr=*fp16", "--constexpr", "BLOCK=64",
                "--triton", wheel, "--venv-dir", args.venv_dir, "--no-install", "--cache-dir", cache, "--quiet"]
        p = subprocess.run([*base, os.path.join(HERE, "noisy.py") + "::copy", "--json"], capture_output=True,
                           text=True, timeout=600)
        if p.returncode != 0:
            failures.append(f"noisy: exit {p.returncode}: {p.stderr.strip()[-500:]}")
        else:
            report = json.loads(p.stdout)
            outcomes = [c["outcome"] for r in report["outcomes"] for c in r["configs"]]
            if not outcomes or set(outcomes) != {"ok"}:
                failures.append(f"noisy: outcomes {outcomes}, expected every one ok")
            if "forged" in p.stdout:
                failures.append("noisy: a forged message reached the report")
            print(f"noisy.py: {len(outcomes)} configuration(s) ok; nothing forged in the report")
        t0 = time.time()
        p = subprocess.run([*base, os.path.join(HERE, "slow.py") + "::copy", "--timeout", "5"],
                           capture_output=True, text=True, timeout=120)
        secs = time.time() - t0
        if p.returncode != 2 or "took more than 5 s" not in p.stderr:
            failures.append(f"slow: exit {p.returncode}, stderr {p.stderr.strip()[-500:]!r}")
        elif secs > 30:
            failures.append(f"slow: stopped after {secs:.0f} s, expected about 5")
        else:
            print(f"slow.py: stopped in {secs:.1f} s: {p.stderr.strip()}")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print(f"{2 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
