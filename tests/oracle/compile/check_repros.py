"""Runs the reproducer of every minimal failing configuration that
`linear-layout search` reports with the release it fails in, and checks that
the real compiler ends the same way (abort / error). Where `repro` also
writes a one-op TTGIR module, compiling that file must fail too.

    python3 tests/oracle/compile/check_repros.py --binary target/release/linear-layout

Each release's venv comes from tests/oracle/venv.sh. Prints `N passed, M failed`
and exits 1 on any failure.
"""

import argparse
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import child as children, venvs  # noqa: E402
from harness.crate import Crate  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    args = ap.parse_args()
    WHEELS = {r["name"]: r["wheel"] for r in Crate(args.binary).releases()}
    # Exit status 1 means failures were found, which is what this reads.
    search = children.run([args.binary, "search", "--quiet", "--json"], timeout=3600)
    if search.returncode not in (0, 1):
        sys.exit(f"search failed ({search.returncode}): {search.stderr.strip()}")
    groups = json.loads(search.stdout)["groups"]
    passed = failed = 0
    for g in groups:
        c = g["minimal"]
        flags = ["--pattern", c["pattern"], "--m", str(c["m"]), "--n", str(c["n"]),
                 "--dtype", c["dtype"], "--num-warps", str(c["num_warps"]), "--num-stages", str(c["num_stages"]),
                 "--arch", c["arch"], "--triton", c["triton"]]
        # A scan takes no K; several CTAs are written only when asked for.
        if c.get("k") is not None:
            flags += ["--k", str(c["k"])]
        if c.get("x") is not None:
            flags += ["--x", str(c["x"])]
        if c.get("num_ctas", 1) != 1:
            flags += ["--num-ctas", str(c["num_ctas"])]
        module_fails = None
        with tempfile.TemporaryDirectory() as d:
            # `repro` exits 1 when it predicts a failure, as every configuration here does
            made = children.run([args.binary, "repro", *flags, "--out", d], timeout=600)
            if made.returncode not in (0, 1):
                sys.exit(f"repro {' '.join(flags)} failed ({made.returncode}): {made.stderr.strip()[-1000:]}")
            py = venvs.python(WHEELS[c["triton"]])
            run = children.run([py, os.path.join(d, "repro.py")], timeout=600)
            module = os.path.join(d, "repro.ttgir")
            if os.path.exists(module):
                cap = int(c["arch"][2:])
                compile_module = ("import sys, triton; from triton.backends.compiler import GPUTarget; "
                                  f"triton.compile(sys.argv[1], target=GPUTarget('cuda', {cap}, 32))")
                ran = children.run([py, "-c", compile_module, module], timeout=600, cwd=d)
                module_fails = ran.returncode != 0
        m = re.search(r"-> (ok|abort|error)", run.stdout)
        got = m.group(1) if m else "?"
        if module_fails is not None:
            got += ", module " + ("fails" if module_fails else "compiles")
        ok = got.split(",")[0] == g["verdict"] and module_fails is not False
        passed += ok
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} triton {c['triton']}: {g['site'][:70]}: predicted {g['verdict']}, real {got}",
              file=sys.stderr)
        if not ok:
            print(run.stdout[-800:], file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
