"""Hostile input through the Python API: what a careless or malicious
caller can hand ``explain``, ``check_ttgir`` and the layout readers, and
what must happen instead of a wrong answer or an unbounded one. Each case
states the expected behaviour; work is bounded by input size, never by the
clock. (The command line's cases are ``cli/tests/hostile.rs``, the
library's ``tests/hostile/``.)"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import linear_layout as ll

STMATRIX = (
    "python: /project/lib/Tools/LinearLayout.cpp:562: mlir::triton::LinearLayout "
    "mlir::triton::LinearLayout::reshapeOuts(...) const: Assertion `getTotalOutDimSize() == "
    "std::accumulate( newOutDims.begin(), newOutDims.end(), 1, [&](int32_t acc, auto &outDim) "
    "{ return acc * outDim.second; })' failed.\n"
)

MODULE = """#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S0 = #ttg.shared_linear<{offset = [[1, 0], [1, 3], [0, 2], [0, 4]]}, alignment = 16>
#L1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    %m2 = ttg.local_alloc %v1 : (tensor<SHAPExf16, #L0>) -> !ttg.memdesc<SHAPExf16, #S0, #smem>
    %v3 = ttg.local_load %m2 : !ttg.memdesc<SHAPExf16, #S0, #smem> -> tensor<SHAPExf16, #L1>
}
"""  # noqa: E501


# ------------------------------------------------------------------ explain


def test_explain_reads_bytes_and_lone_surrogates() -> None:
    """A log is bytes: invalid UTF-8 (and a ``str`` read with
    ``errors="surrogateescape"``) is replaced, never refused, and a known
    assertion in it is still named."""
    raw = b"\xff\xfe junk \xc3\x28\n" + STMATRIX.encode()
    for log in (raw, bytearray(raw), raw.decode("utf-8", "surrogateescape")):
        e = ll.explain(log)
        assert e.known, type(log)
        assert e.site is not None
        assert e.site.site == "stmatrix"
    with pytest.raises(TypeError, match="log"):
        ll.explain(["a", "list"])  # type: ignore[arg-type]


def test_explain_names_a_site_only_when_the_log_is_tritons() -> None:
    """The assertion's own file must open its line; LLVM's own text needs
    Triton in the log. Otherwise: not known, and the match is unconfirmed."""
    foreign = STMATRIX.replace("/project/lib/Tools/LinearLayout.cpp:562", "/srv/geom.cc:7")
    e = ll.explain(foreign)
    assert not e.known
    assert e.site is None
    assert [m.site for m in e.unconfirmed] == ["stmatrix"]
    llvm = "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32\n"
    assert not ll.explain(llvm).known
    frame = '  File "/venv/lib/python3.12/site-packages/triton/compiler/compiler.py", line 9\n'
    named = ll.explain(frame + llvm)
    assert named.known
    assert named.site is not None
    assert named.site.site == "unknown_target"
    assert named.context.triton


def test_explain_counts_failures_and_escapes_what_it_echoes() -> None:
    shuffle = (
        "python: /s/lib/Analysis/Utility.cpp:318: bool f(): "
        "Assertion `lowerHalfRow[1] == 0' failed.\n"
    )
    e = ll.explain(STMATRIX + STMATRIX + shuffle)
    assert e.failures == 2
    assert {m.site for m in [e.site, *e.others] if m is not None} >= {
        "stmatrix",
        "warp_shuffle_3_3",
    }
    hostile = ll.explain("error: \x1b]0;owned\x07 \x9b2J \u202ereversed\n")
    # JSON carries the log's text as it is; the text form never raw
    assert hostile.key_lines == ["error: \x1b]0;owned\x07 \x9b2J \u202ereversed"]


def test_explain_reads_a_large_log_in_one_pass() -> None:
    """100,000 distinct error lines: linear (a quadratic de-duplication
    compares billions of pairs); four kept, all counted."""
    n = 100_000
    e = ll.explain("".join(f"error: thing {i} broke\n" for i in range(n)))
    assert not e.known
    assert e.key_line_count == n
    assert len(e.key_lines) == 12


# -------------------------------------------------------------- check_ttgir


def test_check_ttgir_reports_ops_it_cannot_check() -> None:
    """A size past 64 bits is not "no finding": the op is listed as not
    checked, with its line and why."""
    for shape, says in (
        ("18446744073709551616x8", "is not a size MLIR reads"),
        ("3x8", "powers of two"),
    ):
        report = ll.check_ttgir(MODULE.replace("SHAPE", shape), "3.7")
        assert report.findings == []
        assert [u.line for u in report.unchecked] == [6, 7]
        assert says in report.unchecked[0].reason
        assert report.unchecked_count == 2
        assert report.checked == 0


def test_check_ttgir_checks_concatenated_modules_each_on_its_own() -> None:
    """Two modules defining the same alias differently: each is read with
    its own definitions (read as one, the later ``#S0`` would win)."""
    failing = MODULE.replace("SHAPE", "2x8")
    clean = failing.replace("[[1, 0], [1, 3], [0, 2], [0, 4]]", "[[0, 1], [0, 2], [0, 4], [1, 0]]")
    for text, lines in ((clean + failing, [15]), (failing + clean, [7])):
        report = ll.check_ttgir(text, "3.7")
        assert report.modules == 2
        assert [f.line for f in report.findings] == lines
    with pytest.raises(ll.LayoutError, match="defined again"):
        ll.check_ttgir(
            failing.replace("#smem = #ttg.shared_memory", "#smem = #ttg.shared_memory\n" * 2)
        )


# ----------------------------------------------------------------- layouts


def test_records_refuse_repeated_keys() -> None:
    with pytest.raises(ValueError, match="duplicate key 'verdict'"):
        ll.Record.from_json('{"verdict": "ok", "site": {"a": 1}, "verdict": "abort"}')
    with pytest.raises(ValueError, match="duplicate key 'a'"):
        ll.Record.from_json('{"site": {"a": 1, "a": 2}}')
    assert ll.Record.from_json('{"x": {"a": 1}, "y": {"a": 2}}').y.a == 2


def test_layout_readers_refuse_repeated_keys_and_too_many_dims() -> None:
    with pytest.raises(ll.LayoutError, match="duplicate field `bases`"):
        ll.LinearLayout.from_json('{"bases": [], "out_dims": [], "bases": []}')
    # one past the crate's bound on dims per side (`MAX_DIMS`, 256)
    many = [(f"hostile-py-{i}", []) for i in range(257)]
    with pytest.raises(ll.LayoutError) as info:
        ll.LinearLayout.from_bases(many, ["dim0"], [1], False)
    assert info.value.kind == "too_large"
    with pytest.raises(ll.LayoutError) as info:
        ll.LinearLayout.from_json(json.dumps({"bases": many, "out_dims": [["dim0", 1]]}))
    assert info.value.kind == "too_large"


# The process-wide bound on interned names, in a process of its own (the
# bound, once reached, holds for the rest of the process).
NAMES_BOUND = textwrap.dedent(
    """
    import linear_layout as ll

    l = ll.LinearLayout.identity_1d(4, "lane", "dim0")
    # a name larger than all the bytes of names the process keeps (8 MiB)
    try:
        ll.LinearLayout.identity_1d(2, "n" * ((8 << 20) + 1), "dim0")
        raise SystemExit("a name of 8 MiB was interned")
    except ll.LayoutError as e:
        assert e.kind == "too_many_names", e.kind
    # a long name within it is fine
    ll.LinearLayout.identity_1d(2, "n" * 1_000_000, "dim0")
    # queries about fresh names intern nothing
    assert not any(l.has_in_dim(f"q{i}") or l.has_out_dim(f"q{i}") for i in range(100_000))
    made, refused = 0, None
    for i in range(70_000):
        try:
            ll.LinearLayout.identity_1d(2, f"in{i}", "dim0")
            made += 1
        except ll.LayoutError as e:
            refused = e.kind
            break
    # names already known still work past the bound
    ll.LinearLayout.identity_1d(4, "lane", "dim0")
    ll.LinearLayout.identity_1d(2, "in0", "dim0")
    print(made, refused)
    """
)


def test_a_process_keeps_a_bounded_table_of_names(tmp_path: Path) -> None:
    # from an empty directory: the installed package, not a source tree
    out = subprocess.run(
        [sys.executable, "-c", NAMES_BOUND],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    made, refused = out.stdout.split()
    assert refused == "too_many_names"
    # 65,536 names in all, the 13 Triton names among them
    assert 60_000 < int(made) < 65_536
