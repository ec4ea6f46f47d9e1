#!/usr/bin/env python3
"""`linear-layout scan` end to end on a fresh sample of the public-kernel
corpus, against real compiles: for each sampled (case, configuration), scan
the kernel with `--confirm` (every configuration predicted to fail, and the
passing ones, compiled in full by the same release) and require every
prediction to be confirmed. Failures are rare in the corpus (21 of 1300
recorded compiles), so besides `--sample` configurations drawn uniformly,
`--failing` more are drawn from those that failed in a recorded compile
(tests/data/kernels): their scan must predict the failure and the real
compile confirm it, message included. Prints `N passed, M failed`; exit
status 1 on any unconfirmed prediction or scan that could not run.

    python3 tests/oracle/kernels_corpus/ci.py --scratch DIR --binary target/release/linear-layout \
        --seed S --sample 6 --failing 2 --triton WHEEL,WHEEL,... [--venv-dir target/oracle]

(the wheels: some of `linear-layout releases --wheels`).

`--scratch` is where `record.py fetch` put the packages (fetched if missing).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import cases  # noqa: E402
import data_header  # noqa: E402
from harness import child as children  # noqa: E402


def recorded_failures():
    """(case, label, arch) of every configuration a recorded release
    failed to compile after its front end."""
    out = set()
    for path in data_header.data_files(os.path.join(REPO, "tests", "data", "kernels")):
        _, records = data_header.read_jsonl(path)
        out |= {(r["case"], r["label"], r["arch"]) for r in records if r["outcome"] != "ok" and r.get("ttgir")}
    return sorted(out)


def arg_text(v):
    """A worker argument as `--args` writes it."""
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v + '"'
    if "ptr" in v:
        return "*" + v["ptr"] + ("" if v.get("aligned", True) else ":unaligned")
    if "int" in v:
        return v["int"]
    if "float" in v:
        return "fp32"
    if "tl" in v:
        return "tl." + v["tl"]
    raise ValueError(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--sample", type=int, default=6)
    ap.add_argument("--failing", type=int, default=2)
    ap.add_argument("--triton", required=True, help="the wheels to scan with, comma-separated")
    ap.add_argument(
        "--venv-dir",
        default=os.environ.get("ORACLE_VENV_DIR", os.path.join(REPO, "target", "oracle")),
        help="where the release venvs are (default: $ORACLE_VENV_DIR, as tests/oracle/venv.sh, else target/oracle)",
    )
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.scratch, "deps")):
        subprocess.run([sys.executable, os.path.join(HERE, "record.py"), "fetch", "--scratch", args.scratch],
                       check=True)
    rng = random.Random(args.seed)
    pool = [(c, cfg) for c in cases.CASES for cfg in cases.configs(c)]
    picked = rng.sample(pool, args.sample)
    failing = set(rng.sample(recorded_failures(), args.failing))
    picked += [(c, cfg) for c, cfg in pool if (c["name"], cfg[0], cfg[4]) in failing]
    predicted_failures = 0
    passed = failed = 0
    cache = tempfile.mkdtemp(prefix="ci-scan-")
    for c, (label, a, kw, opts, arch) in picked:
        pkg = os.path.join(args.scratch, cases.PACKAGES[c["package"]][1])
        cmd = [args.binary, "scan", c["kernel"], "--path", pkg, "--path", os.path.join(args.scratch, "deps"),
               "--args", ", ".join(f"{k}={arg_text(v)}" for k, v in a.items()), "--no-autotune",
               "--num-warps", str(opts["num_warps"]), "--num-stages", str(opts.get("num_stages", 3)),
               "--arch", arch, "--triton", args.triton, "--venv-dir", args.venv_dir, "--no-install",
               "--cache-dir", cache, "--confirm", "--confirm-passing", "1", "--json", "--quiet"]
        for k, v in kw.items():
            cmd += ["--constexpr", f"{k}={arg_text(v)}"]
        p = children.run(cmd, timeout=3600)
        name = f"{c['name']} {label} {arch}"
        if p.returncode not in (0, 1):
            failed += 1
            print(f"FAILED {name}: scan exited {p.returncode}: {p.stderr.strip()[-500:]}", file=sys.stderr)
            continue
        report = json.loads(p.stdout)
        bad = [x for x in report["confirmations"] if not x["confirmed"]]
        front = {r["wheel"]: r["configs"][0]["outcome"] for r in report["outcomes"]}
        for x in report["confirmations"]:
            if x["confirmed"]:
                passed += 1
                predicted_failures += x["predicted"] != "ok"
        for x in bad:
            failed += 1
            print(f"NOT CONFIRMED {name} on {x['release']}: predicted {x['predicted']}, compiled {x['real']}: "
                  f"{x['message']}", file=sys.stderr)
        # a front-end failure is the release's own: it counts as agreeing
        passed += sum(1 for o in front.values() if o == "front_end")
        print(f"{name}: {front}", file=sys.stderr)
    if failing and predicted_failures == 0:
        failed += 1
        print("FAILED: no recorded failure was predicted and confirmed", file=sys.stderr)
    print(f"{passed} passed ({predicted_failures} predicted failures confirmed), {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
