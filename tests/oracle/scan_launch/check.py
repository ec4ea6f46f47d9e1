#!/usr/bin/env python3
"""Checks `linear-layout scan`'s launch spellings against the real wheels
(CI: `.ci/run`): host tensor descriptors, launch options, explicit
configuration lists, and the assembler's risks, on the kernels of
`kernels.py`, with every release installed in --venv-dir.

- descriptors: every release with `triton.tools.tensor_descriptor` compiles
  `desc_copy` through the descriptor (its TTGIR takes a `!tt.tensordesc`
  and loads with a TMA copy); every other release reports the front-end
  failure `NoDescriptors`;
- options: for each launch option of scan's table (read from scan's own
  error text, `NAME (SPAN)`), the releases in its span take it and every
  other reports `UnknownOption`; the span agrees with the wheel's
  `CUDAOptions` fields;
- configurations: `--config` lists exactly the configurations given;
- risks: 3.6 and 3.7 list `ptxas_wgmma_reuse` on `chained_dots` (sm90), the
  exit status stays 0.

Usage: check.py --binary target/release/linear-layout --venv-dir DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(binary, venvs, cache, *extra):
    cmd = [binary, "scan", *extra, "--venv-dir", venvs, "--no-install", "--cache-dir", cache, "--quiet",
           "--json", "--no-reduce"]
    if "--spec" not in extra:
        cmd += ["--arch", "sm90"]
    if "--triton" not in extra:  # every release, not scan's default (yours and the newest)
        cmd += ["--triton", "all"]
    return cmd, subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)


def scan(binary, venvs, cache, *extra):
    cmd, p = run(binary, venvs, cache, *extra)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return p.returncode, json.loads(p.stdout)


def front_end_by_release(report):
    """release -> the front-end messages of its failures."""
    out = {}
    for g in report["front_end"]:
        out.setdefault(g["release"], []).append(g["message"])
    return out



def option_table(binary):
    """(name, first, last or None) for every option, from scan's error."""
    p = subprocess.run([binary, "scan", "k.py::k", "--option", "no_such_option=1"], capture_output=True, text=True)
    assert p.returncode == 2, p
    return [(m[0], m[1], m[2] or None) for m in re.findall(r"(\w+) \((\d\.\d)(?:\+|–(\d\.\d))\)", p.stderr)]


def in_span(wheel, first, last):
    minor = tuple(int(x) for x in wheel.split(".")[:2])
    lo = tuple(int(x) for x in first.split("."))
    return minor >= lo and (last is None or minor <= tuple(int(x) for x in last.split(".")))


def cuda_fields(venvs, wheel):
    py = os.path.join(venvs, f"venv-{wheel}", "bin", "python")
    code = ("import dataclasses; from triton.backends.nvidia.compiler import CUDAOptions; "
            "print(' '.join(f.name for f in dataclasses.fields(CUDAOptions)))")
    return set(subprocess.run([py, "-c", code], capture_output=True, text=True, check=True).stdout.split())


VALUES = {"int": "128", "bool": "True", "str": '"ieee"'}
KINDS = {"default_dot_input_precision": "str", "instrumentation_mode": "str"}
BOOLS = {"enable_fp_fusion", "debug", "sanitize_overflow", "launch_cooperative_grid", "launch_pdl",
         "enable_reflect_ftz", "sched4reg", "clc"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--venv-dir", required=True)
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    venvs = os.path.abspath(a.venv_dir)
    wheels = sorted((d[5:] for d in os.listdir(venvs) if d.startswith("venv-")),
                    key=lambda w: tuple(int(x) for x in w.split(".")))
    scratch = tempfile.mkdtemp(prefix="scan-launch-")
    cache = os.path.join(scratch, "cache")
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    # descriptors
    _, r = scan(binary, venvs, cache, "kernels.py::desc_copy", "--args",
                "a_desc=desc:*bf16[BLOCK_M,BLOCK_N], b_desc=desc:*bf16[BLOCK_M,BLOCK_N]",
                "--constexpr", "BLOCK_M=64,128", "--constexpr", "BLOCK_N=64")
    fe = front_end_by_release(r)
    for wheel in wheels:
        py = os.path.join(venvs, f"venv-{wheel}", "bin", "python")
        has = subprocess.run([py, "-c", "import triton.tools.tensor_descriptor"], capture_output=True).returncode == 0
        msgs = fe.get(wheel, [])
        if has:
            check(not msgs, f"descriptors: Triton {wheel} compiles desc_copy ({msgs})")
            # the module loads through the descriptor: a TMA copy
            own = os.path.join(scratch, wheel)
            scan(binary, venvs, own, "kernels.py::desc_copy", "--triton", wheel, "--args",
                 "a_desc=desc:*bf16[64,64], b_desc=desc:*bf16[64,64]", "--constexpr", "BLOCK_M=64",
                 "--constexpr", "BLOCK_N=64")
            modules = [open(os.path.join(d, f)).read() for d, _, fs in os.walk(own) for f in fs
                       if f.endswith(".ttgir")]
            check(len(modules) == 1 and "!tt.tensordesc<" in modules[0]
                  and "ttng.async_tma_copy_global_to_local" in modules[0],
                  f"descriptors: Triton {wheel}'s module takes a !tt.tensordesc and copies by TMA")
        else:
            check(len(msgs) == 1 and msgs[0].startswith("NoDescriptors:"),
                  f"descriptors: Triton {wheel} reports NoDescriptors ({msgs})")

    # options
    table = option_table(binary)
    check(len(table) >= 10, f"options: {len(table)} options in scan's table")
    fields = {w: cuda_fields(venvs, w) for w in wheels}
    for name, first, last in table:
        for w in wheels:
            check((name in fields[w]) == in_span(w, first, last),
                  f"options: {name} ({first}–{last or ''}) in Triton {w}'s CUDAOptions: {name in fields[w]}")
        kind = KINDS.get(name, "bool" if name in BOOLS else "int")
        _, r = scan(binary, venvs, cache, "kernels.py::matmul", "--args",
                    "a=*fp16, b=*fp16, c=*fp16, M=4096, N=4096, K=4096", "--no-autotune",
                    "--constexpr", "BLOCK_M=64", "--constexpr", "BLOCK_N=64", "--constexpr", "BLOCK_K=32",
                    "--option", f"{name}={VALUES[kind]}")
        fe = front_end_by_release(r)
        for w in wheels:
            msgs = fe.get(w, [])
            unknown = any(m.startswith("UnknownOption:") and name in m for m in msgs)
            # a known option may still be refused for the target (3.9's
            # clc needs sm100): that is the release's answer, not scan's
            check(unknown != in_span(w, first, last),
                  f"options: {name}={VALUES[kind]} on Triton {w}: {msgs or 'compiles'}")

    # explicit configurations
    _, r = scan(binary, venvs, cache, "kernels.py::matmul", "--triton", wheels[-1], "--args",
                "a=*fp16, b=*fp16, c=*fp16, M=4096, N=4096, K=4096",
                "--config", "BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3",
                "--config", "BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, num_warps=4, maxnreg=168")
    texts = [c["text"] for c in r["configs"]]
    check(texts == ["BLOCK_M=128 BLOCK_N=128 BLOCK_K=64 num_warps=8 num_stages=3 sm90",
                    "BLOCK_M=64 BLOCK_N=128 BLOCK_K=64 num_warps=4 num_stages=3 maxnreg=168 sm90"],
          f"configs: --config lists exactly the two given ({texts})")
    _, r = scan(binary, venvs, cache, "kernels.py::matmul", "--triton", wheels[-1], "--args",
                "a=*fp16, b=*fp16, c=*fp16, M=4096, N=4096, K=4096")
    check(len(r["configs"]) == 2 and r["configs"][1]["num_warps"] == 8,
          f"configs: the kernel's own autotune list is the default ({len(r['configs'])})")

    _, p = run(binary, venvs, cache, "kernels.py::matmul", "--triton", wheels[-1], "--args",
               "a=*fp16, b=*fp16, c=*fp16, M=4096, N=4096, K=4096", "--config", "BLOK_M=64, num_warps=4")
    check(p.returncode == 2 and "BLOK_M" in p.stderr, f"configs: a misspelt constexpr is bad input ({p.stderr.strip()})")
    _, r = scan(binary, venvs, cache, "--spec", "scan.toml", "--triton", wheels[-1])
    texts = [c["text"] for c in r["configs"]]
    check(len(texts) == 8 and texts[0] == "BLOCK_K=64 BLOCK_M=128 BLOCK_N=128 *T=fp16 num_warps=8 num_stages=3 "
          "launch_pdl=True sm90", f"configs: scan.toml's list × dtype × launch_pdl ({texts[:2]}…)")

    # a launch through descriptors, captured
    _, r = scan(binary, venvs, cache, "--call", "launch:desc_launch", "--path", ".")
    fe = front_end_by_release(r)
    for wheel in wheels:
        has = in_span(wheel, "3.4", None)
        msgs = fe.get(wheel, [])
        check(not msgs if has else len(msgs) == 1,
              f"--call: Triton {wheel} on the captured descriptor launch: {msgs or 'compiles'}")
    check(r["configs"][0]["options"] == {"launch_pdl": True}, f"--call: the launch's option ({r['configs'][0]})")

    # risks
    rc, r = scan(binary, venvs, cache, "kernels.py::chained_dots", "--args", "a=*bf16, b=*bf16, c=*bf16, out=*fp32",
                 "--constexpr", "BLOCK=64,128")
    risky = sorted({g["release"] for g in r["risks"] if g["site"] == "ptxas_wgmma_reuse"})
    expect = [w for w in wheels if w.startswith(("3.6.", "3.7."))]
    check(risky == expect, f"risks: ptxas_wgmma_reuse listed for {risky} (expected {expect})")
    check(rc == 0 and not r["found_failure"], f"risks: exit status {rc}, found_failure {r['found_failure']}")

    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
