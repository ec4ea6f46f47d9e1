"""The bug finder from Python: predict, fix_for, check_ttgir, sites, releases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from repo_data import REPO

import linear_layout as ll

FLA_W8 = REPO / "tests" / "data" / "compile" / "fla-3.2.0-w8.ttgir"
FLA_W4 = REPO / "tests" / "data" / "compile" / "fla-3.2.0-w4.ttgir"
NAMES = [r.name for r in ll.releases()]


def cli_json(value: object) -> str:
    """JSON as the CLI prints it: compact, keys sorted (serde_json's map)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


# ------------------------------------------------------------------ predict


def test_predict_over_every_release_leaves_out_those_that_do_not_model_it() -> None:
    # Several CTAs are modelled from 3.4: asked for every release, the others are
    # left out (the CLI prints them as "not modelled"); named, they are an error.
    cfg = {"x": 128, "dtype": "bf16", "num_warps": 8, "arch": "sm90", "num_ctas": 2}
    ps = ll.predict("chain-b", 128, 128, 64, **cfg)
    assert [p.release for p in ps] == NAMES[NAMES.index("3.4") :]
    assert all(p.config["num_ctas"] == 2 for p in ps)
    assert ps == ll.predict("chain-b", 128, 128, 64, release="all", **cfg)
    with pytest.raises(ValueError, match=r"modelled from Triton 3\.4"):
        ll.predict("chain-b", 128, 128, 64, release="3.2", **cfg)
    with pytest.raises(ValueError, match="power of two"):
        ll.predict("chain-b", 100, 128, 64, **cfg)


def test_predict_answers_for_every_release_in_table_order() -> None:
    ps = ll.predict("chain-b", 64, 64, 64, num_warps=8)
    assert [p.release for p in ps] == NAMES
    assert all(isinstance(p, ll.Prediction) for p in ps)
    by = {p.release: p for p in ps}
    assert by["3.2"].verdict == "abort"
    assert by["3.2"].fails
    f = by["3.2"].failure
    assert isinstance(f, ll.Failure)
    assert f.site == "stmatrix"
    assert f.release == "3.2"
    assert f.location == "v3.2.0:lib/Tools/LinearLayout.cpp:562"
    assert f.triton_message.startswith("Assertion `")
    assert f.explanation
    assert by[NAMES[-1]].verdict == "ok"
    assert by[NAMES[-1]].failure is None
    assert by["3.2"].steps
    assert by["3.2"].steps[0].what


def test_predict_gives_the_clis_json_lines() -> None:
    for p in ll.predict("chain-b", 64, 64, 64, num_warps=8):
        text = p.to_json()
        data = json.loads(text)
        assert text == cli_json(data)  # compact, sorted, as the CLI prints
        assert set(data) >= {"verdict", "steps", "release", "config"}
        assert data["config"] == {
            "pattern": "chain-b",
            "m": 64,
            "n": 64,
            "k": 64,
            "x": 64,
            "dtype": "bf16",
            "num_warps": 8,
            "num_stages": 2,
            "arch": "sm90",
            "triton": p.release,
        }
        assert ll.Prediction.from_json(text) == p


def test_predict_defaults_are_the_clis() -> None:
    [p] = ll.predict("chain-b", 64, 64, 64, release="3.2")
    c = p.config
    assert (c.x, c.dtype, c.num_warps, c.num_stages, c.arch) == (64, "bf16", 8, 2, "sm90")
    [d] = ll.predict("dot", 64, 64, 64, release="3.2")
    assert d.config.x is None


def test_a_config_mapping_a_record_or_a_prediction_is_a_configuration() -> None:
    [p] = ll.predict("chain-b", 64, 64, 64, num_warps=8, release="3.2")
    assert ll.predict(p.config.to_dict()) == [p]
    assert ll.predict(p.config) == [p]
    assert ll.predict(p) == [p]
    # without `triton`, the release argument decides
    config = {k: v for k, v in p.config.to_dict().items() if k != "triton"}
    assert ll.predict(config, release="3.2") == [p]
    assert len(ll.predict(config)) == len(NAMES)
    # `release` is the key's other spelling
    assert ll.predict({**config, "release": "3.2"}) == [p]


@pytest.mark.parametrize(
    ("release", "want"),
    [
        ("3.2", ["3.2"]),
        ("3.2.0", ["3.2"]),
        ("3.2, 3.3", ["3.2", "3.3"]),
        (["3.3.1", "3.2", "3.3"], ["3.3", "3.2"]),
        (("newest",), [NAMES[-1]]),
        ("all", NAMES),
        (["3.2", "all"], NAMES),
    ],
)
def test_releases_are_named_as_the_cli_takes_them(release: object, want: list[str]) -> None:
    assert [p.release for p in ll.predict("dot", 64, 64, 64, release=release)] == want


def test_num_ctas_is_part_of_the_configuration() -> None:
    [one] = ll.predict("chain-b", 64, 64, 64, release="3.9")
    assert "num_ctas" not in one.config  # 1, the default, is left out (as the CLI does)
    [two] = ll.predict("chain-b", 64, 64, 64, num_ctas=2, release="3.9")
    assert two.config.num_ctas == 2
    assert ll.predict(two.config) == [two]
    with pytest.raises(ValueError, match="num_ctas = 3"):
        ll.predict("chain-b", 64, 64, 64, num_ctas=3)


def test_a_development_build_is_predicted_on_its_release() -> None:
    [p] = ll.predict("inductor-3d", 64, 64, 64, variant="pre-5905")
    assert p.config.variant == "pre-5905"
    assert p.release == p.config.triton


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((3, 64, 64, 64), {}, TypeError, "pattern name"),
        (("dot", "64", 64, 64), {}, TypeError, "m must be an int"),
        (("dot", 64, 64), {}, TypeError, "needs k"),
        (("dot", 64, 64, 64), {"dtype": 16}, TypeError, "dtype must be a str"),
        (("dot", 64, 64, 64), {"release": 3.2}, TypeError, "release"),
        (("dot", 64, 64, 64), {"release": [3]}, TypeError, "release name"),
        (("dit", 64, 64, 64), {}, ValueError, "unknown pattern `dit`"),
        (("dot", 64, 64, 64), {"dtype": "fp64"}, ValueError, "unknown dtype"),
        (("dot", 64, 64, 64), {"arch": "sm70"}, ValueError, "unknown arch"),
        (("dot", 64, 64, 64), {"release": "2.0"}, ValueError, "unknown Triton release `2.0`"),
        (("dot", 64, 64, 64), {"release": []}, ValueError, "no release"),
        (("dot", 48, 64, 64), {}, ValueError, "invalid configuration: m = 48"),
        (("dot", -64, 64, 64), {}, ValueError, "invalid configuration: m = -64"),
        (("dot", 2**70, 64, 64), {}, ValueError, "invalid configuration"),
        (("dot", 64, 64, 64), {"x": 64}, ValueError, "takes no x"),
        (("dot", 64, 64, 64), {"num_warps": 3}, ValueError, "num_warps = 3"),
        (("dot", 64, 64, 64), {"variant": "pre-5905", "release": "3.2"}, ValueError, "variant"),
        (({"pattern": "dot", "m": 64},), {"n": 64}, TypeError, "not both"),
        (({"pattern": "dot", "m": 64, "n": 64, "k": 64, "q": 1},), {}, ValueError, "field `q`"),
        (({"m": 64},), {}, ValueError, "no `pattern`"),
        (
            ({"pattern": "dot", "m": 64, "n": 64, "k": 64, "triton": "3.2"},),
            {"release": "3.3"},
            TypeError,
            "names its release",
        ),
        (([("pattern", "dot")],), {}, TypeError, "configuration mapping"),
    ],
)
def test_bad_arguments_are_type_and_value_errors(
    args: tuple, kwargs: dict, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        ll.predict(*args, **kwargs)


# ------------------------------------------------------------------ fix_for


def test_fix_for_names_the_first_fixing_release_and_change() -> None:
    fix = ll.fix_for("chain-b", 64, 64, 64, num_warps=8, release="3.2")
    assert isinstance(fix, ll.Fix)
    assert (fix.fixed_in, fix.pr, fix.blocker) == ("3.4", "#6609", "stmatrix")
    assert fix.change.startswith("PR #6609: ")
    assert fix.release == "3.2"
    assert fix.config.triton == "3.2"
    assert fix.broken_again is None
    # a prediction (or its config) is a configuration too
    [p] = ll.predict("chain-b", 64, 64, 64, num_warps=8, release="3.2")
    assert ll.fix_for(p) == fix
    assert ll.fix_for(p.config) == fix


def test_a_configuration_that_compiles_is_fixed_in_its_own_release() -> None:
    fix = ll.fix_for("chain-b", 64, 64, 64, num_warps=4, release="3.2")
    assert fix.fixed_in == "3.2"


def test_fix_for_needs_one_release() -> None:
    with pytest.raises(TypeError, match="needs the release"):
        ll.fix_for("chain-b", 64, 64, 64)
    with pytest.raises(ValueError, match="unknown Triton release"):
        ll.fix_for("chain-b", 64, 64, 64, release="all")
    with pytest.raises(ValueError, match="invalid configuration"):
        ll.fix_for("chain-b", 48, 64, 64, release="3.2")


# -------------------------------------------------------------- check_ttgir


def test_check_ttgir_finds_flas_failing_stores() -> None:
    text = FLA_W8.read_text(encoding="utf-8")
    report = ll.check_ttgir(text, "3.2", file="fla.ttgir")
    assert isinstance(report, ll.CheckReport)
    assert report.file == "fla.ttgir"
    assert report.triton == "3.2"
    assert report.warnings == []
    assert report.findings
    for f in report.findings:
        assert isinstance(f, ll.TtgirFinding)
        assert f.op == "local_alloc"
        assert ".local_alloc" in text.splitlines()[f.line - 1]
        assert (f.verdict, f.verdict_from_source) == ("abort", "abort")
        assert f.failure.site == "stmatrix"
    data = json.loads(report.to_json())
    assert report.to_json() == cli_json(data)
    assert set(data) == {
        "file",
        "triton",
        "warnings",
        "findings",
        "unchecked",
        "unchecked_count",
        "modules",
        "checked",
    }
    assert (report.unchecked, report.modules) == ([], 1)


def test_check_ttgir_passes_what_compiles_and_warns_about_dialects() -> None:
    text = FLA_W4.read_text(encoding="utf-8")
    assert ll.check_ttgir(text, "3.2").findings == []
    newest = ll.check_ttgir(text)  # read as the newest release, which spells `ttg.`
    assert newest.triton == NAMES[-1]
    assert newest.file == "<string>"
    assert any("triton_gpu" in w for w in newest.warnings)


def test_check_ttgir_errors() -> None:
    with pytest.raises(ValueError, match="no TTGIR module"):
        ll.check_ttgir("hello", file="x.ttgir")
    with pytest.raises(TypeError, match="text must be TTGIR text"):
        ll.check_ttgir(b"module")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown Triton release"):
        ll.check_ttgir(FLA_W4.read_text(encoding="utf-8"), "2.9")
    bad = (
        'module attributes {"ttg.num-warps" = 4 : i32} {}\n'
        "#a = #ttg.blocked<{sizePerThread = [1}>\n"
    )
    with pytest.raises(ll.LayoutError) as info:
        ll.check_ttgir(bad)
    assert info.value.kind == "parse"


HOSTILE = textwrap.dedent(
    """
    import linear_layout as ll

    class Index:
        def __index__(self):
            raise RuntimeError("no")

    class Items(dict):
        def items(self):
            raise RuntimeError("no items")

    head = 'module attributes {"ttg.num-warps" = 4 : i32} {\\n'
    texts = [
        "#a = " + "[" * 1_000_000 + "\\n",
        "#a = #ttg.blocked<" * 100_000 + "\\n",
        "#a = #ttg.slice<{dim = 0, parent = " * 100_000 + "\\n",
        "  %0 = ttg.local_alloc %x : (tensor<64x64xbf16, #nope>)"
        " -> !ttg.memdesc<64x64xbf16, #x>\\n",
        "  %0 = ttg.convert_layout %x : tensor<99999999999999999999999x64xf32, #a>"
        " -> tensor<>\\n",
        "  %0 = ttg.local_load %x : !ttg.memdesc<" + "1x" * 100_000 + "f32, #a>"
        " -> tensor<1xf32>\\n",
        "\\x00" * 100_000,
    ]
    calls = [lambda t=t: ll.check_ttgir(head + t + "}\\n") for t in texts]
    calls += [
        lambda: ll.check_ttgir("\\udcff"),
        lambda: ll.predict("dot", Index(), 64, 64),
        lambda: ll.predict("dot", 2**200, 64, 64),
        lambda: ll.predict(Items(pattern="dot")),
        lambda: ll.predict({1: 2}),
        lambda: ll.predict("dot", 64, 64, 64, release=iter(["3.2"] * 1_000_000)),
        lambda: ll.fix_for("inductor-3d", 1024, 1024, 1024, num_warps=32, release="3.1"),
    ]
    for i, call in enumerate(calls):
        try:
            call()
            print(i, "ok")
        except (ValueError, TypeError, RuntimeError) as e:
            print(i, type(e).__name__)
    print("survived")
    """
)


def test_hostile_input_never_kills_the_interpreter(tmp_path: Path) -> None:
    # In a child (a crash fails this test, not the run), importing the
    # package this test imported.
    env = dict(os.environ, PYTHONPATH=str(Path(ll.__file__).parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", HOSTILE],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "survived", done.stdout


def test_check_ttgir_releases_the_interpreter() -> None:
    text = FLA_W8.read_text(encoding="utf-8")
    out: list[int] = []
    threads = [
        threading.Thread(target=lambda: out.append(len(ll.check_ttgir(text, "3.2").findings)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [5, 5, 5, 5]


# ------------------------------------------------------------ sites, releases


def test_sites_are_the_descriptors() -> None:
    sites = ll.sites()
    ids = [s.id for s in sites]
    assert ids == sorted(set(ids))
    by = {s.id: s for s in sites}
    st = by["stmatrix"]
    assert isinstance(st, ll.Site)
    assert st.kind == "bug"
    assert st.title
    assert st.workaround
    assert any("3.2" in loc.releases for loc in st.locations)
    assert any(c.pr == "#6609" for c in st.changes)
    loc = st.locations[0]
    assert loc.location.startswith("v3.")
    assert {v.release for v in loc.verdicts} == set(loc.releases)
    # every failure predicted is at a described site
    for p in ll.predict("chain-b", 64, 16, 64, num_warps=8):
        if p.failure is not None:
            assert p.failure.site in by


def test_releases_are_the_table() -> None:
    rels = ll.releases()
    assert all(isinstance(r, ll.ReleaseInfo) for r in rels)
    assert len(NAMES) == len(set(NAMES))
    for r in rels:
        assert r.name in r.minors or r.wheel.startswith(r.minors[0])
        assert r.wheel in r.wheels
        assert r.tag.startswith("v")
        assert r.dialect in ("ttg", "triton_gpu")
        assert r.ttgir.dialect == r.dialect
        assert isinstance(r.ttgir, ll.TtgirSpelling)
        # each wheel's version reads as its release
        for wheel in r.wheels:
            assert ll.predict("dot", 64, 64, 64, release=wheel)[0].release == r.name
    assert [r.latest for r in rels] == [False] * (len(rels) - 1) + [True]
    # several CTAs are predicted exactly for the releases that model them
    multi = [r.name for r in rels if r.models_multi_cta]
    assert 0 < len(multi) < len(rels)
    predicted = ll.predict("chain-b", 128, 128, 64, num_ctas=2, num_warps=8, arch="sm90")
    assert [p.release for p in predicted] == multi


# ------------------------------------------------------------------ explain


# A frame of Triton's package, as the log of any compile Triton ran holds.
TRITON_FRAME = '  File "/venv/lib/python3.12/site-packages/triton/compiler/compiler.py", line 300'


def as_printed(location: ll.SiteLocation) -> str:
    """The location's message as Triton prints it: a failed assertion opens
    with its ``file:line:`` (glibc's format), in a log showing Triton."""
    message = location.message
    if "Assertion `" in message:
        message = f"python: /src/{location.file}:{location.line or 1}: void f(): {message}"
    return f"{TRITON_FRAME}\nsome output\n{message}\nmore output"


def test_explain_names_the_site_of_every_modelled_message() -> None:
    checked = 0
    for site in ll.sites():
        for location in site.locations:
            if not location.message:
                # Triton's text there depends on the layouts (an assertion on
                # computed values): nothing fixed to recognise.
                assert location.line is None, (site.id, location.location)
                continue
            checked += 1
            e = ll.explain(as_printed(location))
            assert isinstance(e, ll.Explanation)
            assert e.known, location.message
            matched = [e.site, *e.others]
            assert any(location.message in [loc.message for loc in m.locations] for m in matched), (
                site.id,
                location.message,
            )
    assert checked > 50


def test_explain_reads_the_context_and_says_when_it_does_not_know() -> None:
    log = f"{TRITON_FRAME}\nLLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32\n"
    e = ll.explain(log)
    assert (e.site.site, e.site.releases, e.site.fixed_in) == (
        "unknown_target",
        ["3.1", "3.2"],
        "3.3",
    )
    assert e.site.workaround
    unknown = ll.explain("RuntimeError: the shared layout is made of cheese")
    assert not unknown.known
    assert unknown.site is None
    assert len(unknown.nearest) > 0
    assert not ll.explain("RuntimeError: the moon is made of cheese").nearest, "no word shared"
    with pytest.raises(TypeError, match="log"):
        ll.explain(12)  # type: ignore[arg-type]
