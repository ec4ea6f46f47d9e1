"""One test per bug class found by the first GPU smoke run (README, "Triage of the first
GPU run"): each was the fuzzer's, not Triton's, or a known Triton bug the generator now
avoids.

* wgmma read shared memory written without ``fence.proxy.async`` (17 wrong dot chains);
* padded shared layouts whose padding misaligns Triton's vector accesses (7 misaligned
  addresses, reported as ``device_assert``);
* ``memdesc_trans`` of an unswizzled NVMMA layout (Triton 3.6 bug #10453; 2 wrong);
* cases handed to a worker that was exiting after a CUDA error (7 ``crash`` with no message).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess

import pytest
from cfhelpers import PKG_DIR, venv_python

from linear_layout_conformance.bundle import bundle
from linear_layout_conformance.cases import make_cases
from linear_layout_conformance.generate import generate
from linear_layout_conformance.layouts import BITS, Dialect, draw_shared
from linear_layout_conformance.manifest import MANIFEST, file_sha256, make_file, read_manifest
from linear_layout_conformance.oracle import Oracle, build_with
from linear_layout_conformance.program import InvalidCaseError, build, padded_min_padding
from linear_layout_conformance.runner import run_cases, write_cases
from linear_layout_conformance.worker import cuda_error_kind

# Compiles TTGIR modules (JSON list on stdin) for sm90; prints per module the number of
# wgmma instructions and of those issued after a shared memory store with no
# fence.proxy.async in between.
PTX_PROBE = r"""
import json, os, sys, tempfile, triton
from triton.backends.compiler import GPUTarget
out = []
for text in json.load(sys.stdin):
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text)
    k = triton.compile(f.name, target=GPUTarget("cuda", 90, 32))
    os.remove(f.name)
    dirty, n, bad = False, 0, 0
    for line in k.asm["ptx"].splitlines():
        t = line.strip()
        if t.startswith(("st.shared", "stmatrix")):
            dirty = True
        elif t.startswith("fence.proxy.async"):
            dirty = False
        elif t.startswith("wgmma.mma_async"):
            n += 1
            bad += dirty
    out.append([n, bad])
print(json.dumps(out))
"""

# smoke case 100-55: misaligned address (padding of 1 f16 after every 4, vectors of 2)
PADDED_55 = {
    "warps": 8,
    "input": {
        "shape": [4, 2],
        "dtype": "f16",
        "layout": {
            "kind": "dot_op",
            "idx": 0,
            "parent": {"kind": "mma", "version": 2, "wpc": [8, 1], "instr": [16, 8]},
            "k_width": 2,
        },
    },
    "steps": [
        {
            "op": "shared",
            "layout": {
                "kind": "padded",
                "intervals": [[4, 1], [8, 2]],
                "order": [1, 0],
                "shape": [4, 2],
            },
            "dst": {
                "kind": "blocked",
                "spt": [1, 2],
                "tpw": [32, 1],
                "wpc": [8, 1],
                "order": [1, 0],
            },
            "mode": "alloc",
        }
    ],
    "family": "shared",
    "triton": "3.6",
    "cap": 90,
    "seed": [100, 55, 0],
}

# smoke case 100-329: memdesc_trans of an unswizzled, transposed NVMMA buffer
TRANS_329 = {
    "warps": 4,
    "input": {
        "shape": [8, 64],
        "dtype": "f16",
        "layout": {"kind": "mma", "version": 2, "wpc": [2, 2], "instr": [16, 8]},
    },
    "steps": [
        {
            "op": "shared",
            "layout": {"kind": "nvmma", "swizzle": 0, "transposed": True, "bits": 16, "rank": 2},
            "dst": {
                "kind": "blocked",
                "spt": [16, 1],
                "tpw": [4, 8],
                "wpc": [1, 4],
                "order": [0, 1],
            },
            "mode": "alloc",
            "trans": [1, 0],
        }
    ],
    "family": "shared",
    "triton": "3.6",
    "cap": 90,
    "seed": [100, 329, 0],
}

# what torch raised in the smoke run (the hint line once made it a device_assert)
TORCH_MISALIGNED = (
    "CUDA error: misaligned address\n"
    "Search for `cudaErrorMisalignedAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
    "group__CUDART__TYPES.html for more information.\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
)


def _build(params, oracle):
    return build_with(oracle, build, params, oracle)


def _v3_dot_cases(binary, release, cap, want, seed=515):
    oracle = Oracle(release, binary=binary)
    out = []
    start = 0
    while len(out) < want and start < 400:
        for c in make_cases(40, seed, release, cap, families=["dot"], oracle=oracle, start=start):
            if "warp_group_dot" in c["ttgir"]:
                out.append(c)
        start += 40
    return out[:want]


# ------------------------------------------------------------ wgmma fence


def test_every_wgmma_is_fenced_in_the_text(binary):
    cases = _v3_dot_cases(binary, "3.6", 90, 12)
    assert cases, "no wgmma case drawn"
    for c in cases:
        lines = c["ttgir"].splitlines()
        for i, line in enumerate(lines):
            if "warp_group_dot" in line:
                assert "ttng.fence_async_shared {bCluster = false}" in lines[i - 1], c["id"]


@pytest.mark.parametrize(
    ("release", "wheel"), [("3.6", "3.6.0"), ("3.9", "3.9.0"), ("3.2", "3.2.0")]
)
def test_wgmma_reads_no_unfenced_shared_memory(binary, release, wheel):
    """In the PTX, no wgmma follows a shared store without a proxy fence.

    One process a module: 3.2 aborts on some wgmma cases (its own bugs, see
    test_compile); there the modules that compile must be fenced.
    """
    cases = _v3_dot_cases(binary, release, 90, 6)
    assert cases, "no wgmma case drawn"
    compiled = 0
    for c in cases:
        p = subprocess.run(
            [venv_python(wheel), "-c", PTX_PROBE],
            input=json.dumps([c["ttgir"]]),
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode != 0 and release == "3.2":
            continue
        assert p.returncode == 0, (c["id"], p.stderr[-3000:])
        [(n, bad)] = json.loads(p.stdout.strip().splitlines()[-1])
        assert n > 0, c["id"]
        assert bad == 0, (c["id"], n, bad)
        compiled += 1
    assert compiled >= 2, f"only {compiled} of {len(cases)} wgmma cases compiled"


# ------------------------------------------------------------ padded alignment


def test_padded_paddings_under_the_vector_are_not_built(binary):
    oracle = Oracle("3.6", binary=binary)
    with pytest.raises(InvalidCaseError, match="misaligns"):
        _build(PADDED_55, oracle)
    ok = json.loads(json.dumps(PADDED_55))
    ok["steps"][0]["layout"]["intervals"] = [[4, 4], [8, 4]]  # min(4, 128/16) = 4
    _build(ok, oracle)  # valid


def test_drawn_padded_layouts_keep_vectors_aligned(binary):
    import random

    rng = random.Random(3)
    d = Dialect(Oracle("3.6", binary=binary))
    seen = 0
    for _ in range(3000):
        bits = rng.choice([8, 16, 32])
        shape = [1 << rng.randint(0, 6), 1 << rng.randint(0, 6)]
        spec = draw_shared(rng, shape, bits, d, kinds=["padded"])
        lo = padded_min_padding(spec, bits)
        assert all(pad >= lo for _, pad in spec["intervals"]), (spec, bits)
        seen += 1
    assert seen


def test_generated_cases_have_aligned_paddings(binary):
    for g in generate(300, 606, oracle=Oracle("3.6", binary=binary), families=["shared"]):
        for v in g.prog.values.values():
            if v.shared is not None and v.shared["kind"] == "padded":
                lo = padded_min_padding(v.shared, BITS[v.dtype])
                assert all(pad >= lo for _, pad in v.shared["intervals"]), g.params


# ------------------------------------------------------------ memdesc_trans view


def test_memdesc_trans_of_unswizzled_nvmma_is_known_bug_on_36(binary):
    with pytest.raises(InvalidCaseError, match="known Triton bug"):
        _build(TRANS_329, Oracle("3.6", binary=binary))
    fixed = dict(TRANS_329, triton="3.9")
    _build(fixed, Oracle("3.9", binary=binary))  # #10453 fixed: a valid case


def test_generated_memdesc_trans_views_match(binary):
    """The layout of every generated memdesc_trans result is the transposed source buffer."""
    oracle = Oracle("3.6", binary=binary)
    d = Dialect(oracle)
    found = 0
    for g in generate(300, 707, oracle=oracle, families=["shared"]):
        for op in g.prog.ops:
            if op["op"] == "memdesc_trans":
                src, dst = g.prog.values[op["args"][0]], g.prog.values[op["out"]]
                if src.ll is None:
                    continue
                inferred = oracle.lookup(d.layout(dst.shared), dst.shape, BITS[dst.dtype])
                assert inferred.bases == src.ll.transpose(op["order"]).bases, g.params
                found += 1
    assert found


# ------------------------------------------------------------ runner: CUDA errors, crashes


def test_cuda_error_kind():
    assert cuda_error_kind(TORCH_MISALIGNED) == "misaligned_address"
    assert (
        cuda_error_kind(
            "CUDA error: an illegal memory access was encountered\n"
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
        )
        == "illegal_access"
    )
    assert cuda_error_kind("CUDA error: device-side assert triggered\n") == "device_assert"
    assert cuda_error_kind("some python error") == "launch_error"


def _cases(binary, n, seed=4711):
    return make_cases(n, seed, oracle=Oracle("3.6", binary=binary))


def test_fatal_cuda_error_loses_no_case(binary, tmp_path):
    """The worker exits after a CUDA error: the case handed to it next must still run."""
    cases = _cases(binary, 10)
    bad = [cases[1]["id"], cases[4]["id"]]
    fault = json.dumps({"cuda_error": TORCH_MISALIGNED, "when": {"id": bad}})
    records = run_cases(
        cases, str(tmp_path), jobs=1, python=venv_python("3.6.0"), simulate=fault, quiet=True
    )
    by_id = {r["id"]: r for r in records}
    assert len(records) == len(cases)
    for c in cases:
        r = by_id[c["id"]]
        if c["id"] in bad:
            assert r["verdict"] == "misaligned_address", r
            assert r["fatal"]
        else:
            assert r["verdict"] == "pass", r
    with open(tmp_path / "summary.json") as f:
        summary = json.load(f)
    assert summary["worker_restarts"] == 2
    assert summary["environment"].get("triton") == "3.6.0"


def test_crash_says_why(binary, tmp_path):
    cases = _cases(binary, 4)
    fault = json.dumps({"die": "SIGSEGV", "when": {"id": cases[2]["id"]}})
    records = run_cases(
        cases, str(tmp_path), jobs=1, python=venv_python("3.6.0"), simulate=fault, quiet=True
    )
    by_id = {r["id"]: r for r in records}
    r = by_id[cases[2]["id"]]
    assert r["verdict"] == "crash", r
    assert r["signal_name"] == "SIGSEGV"
    assert "SIGSEGV" in r["message"]
    assert "Segmentation fault" in r["stderr_tail"]  # faulthandler's report
    assert all(by_id[c["id"]]["verdict"] == "pass" for i, c in enumerate(cases) if i != 2)


# ------------------------------------------------------------ the device's files


def test_bundle_puts_wrong_cases_first_and_shrinks_from_it(binary, tmp_path):
    """A failures bundle line is all the shrinker needs (here with a simulated fault)."""
    fault = json.dumps(
        {"swap": [["register", 0], ["lane", 1]], "when": {"op": "convert", "min_numel": 64}}
    )
    cases = make_cases(10, 2024, families=["convert"], oracle=Oracle("3.6", binary=binary))
    out = tmp_path / "run"
    out.mkdir()
    write_cases(str(out / "cases.jsonl.gz"), cases)
    run_cases(cases, str(out), jobs=2, python=venv_python("3.6.0"), simulate=fault, quiet=True)
    # a compile failure, which must come after the wrong ones
    with open(out / "failures" / "000-compile.json", "w") as f:
        json.dump({"case": cases[0], "record": {"id": "000", "verdict": "compile_error"}}, f)
    files = bundle(str(out), str(tmp_path / "back"), "conformance-t")
    fails = next(f for f in files if f.endswith("-failures.jsonl.gz"))
    with gzip.open(fails, "rt") as f:
        lines = [json.loads(x) for x in f]
    verdicts = [o["record"]["verdict"] for o in lines]
    assert "wrong" in verdicts, verdicts
    assert verdicts[-1] == "compile_error"
    first = next(o for o in lines if o["record"]["verdict"] == "wrong")
    assert {"params", "table", "ttgir"} <= set(first["case"])
    p = subprocess.run(
        [
            venv_python("3.6.0"),
            os.path.join(PKG_DIR, "__main__.py"),
            "shrink",
            fails,
            "--id",
            first["case"]["id"],
            "--out",
            str(tmp_path / "shrunk"),
            "--simulate",
            fault,
            "--max-tries",
            "12",
            "--jobs",
            "2",
            "--binary",
            binary,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert os.path.exists(tmp_path / "shrunk" / "repro.py")
    with open(tmp_path / "shrunk" / "shrunk.json") as f:
        shrunk = json.load(f)
    assert shrunk["record"]["verdict"] == "wrong"


def test_case_files_are_byte_reproducible(binary, tmp_path):
    cases = _cases(binary, 6, seed=99)
    a, b = str(tmp_path / "a.jsonl.gz"), str(tmp_path / "b.jsonl.gz")
    write_cases(a, cases)
    write_cases(b, make_cases(6, 99, oracle=Oracle("3.6", binary=binary)))
    assert file_sha256(a) == file_sha256(b)


def test_campaign_manifest_matches_the_generator(binary, tmp_path):
    """The smoke file the manifest lists is what the generator makes now.

    A change of the generator must come with ``campaign --update`` (and new device runs).
    """
    man = read_manifest(MANIFEST)
    entry = man["files"]["cases-smoke.jsonl.gz"]
    path = make_file("cases-smoke.jsonl.gz", entry, str(tmp_path), binary)
    assert file_sha256(path) == entry["sha256"]
