"""guard() / install(): failing compiles stopped, passing ones untouched."""

from __future__ import annotations

import math
import signal
import warnings
from typing import Any

import llt_support as lls
import pytest

pytestmark = pytest.mark.triton


def autotune_skips() -> tuple[type[BaseException], ...]:
    """What the installed release's ``Autotuner._bench`` catches to skip a config."""
    from triton.compiler.errors import CompileTimeAssertionFailure
    from triton.runtime.errors import OutOfResources

    if lls.triton_version() < (3, 3):
        return (OutOfResources, CompileTimeAssertionFailure)
    from triton.runtime.errors import PTXASError

    return (OutOfResources, CompileTimeAssertionFailure, PTXASError)


def inductor_skips() -> tuple[type[BaseException], ...]:
    """What Inductor's ``precompile`` skips a config on (no PTXASError before 3.3)."""
    from triton.runtime import errors

    return tuple(getattr(errors, n) for n in ("OutOfResources", "PTXASError") if hasattr(errors, n))


def core(message: str) -> str:
    """The telling start of a Triton message (without "Assertion `" and "(...)" tails)."""
    m = message.replace("Assertion `", "").replace("LLVM ERROR: ", "")
    return m.split("(")[0].split("'")[0].strip()[:24]


def test_failing_config_raises_the_skipped_exception_and_the_process_lives(llt: Any) -> None:
    job = lls.failing_job()
    with llt.guard(), pytest.raises(llt.SkippableLayoutCompileError) as info:
        lls.compile_job(job)
    err = info.value
    assert isinstance(err, llt.LayoutCompileError)
    assert isinstance(err, autotune_skips())
    assert isinstance(err, inductor_skips())
    assert err.release == llt.release()
    assert err.site
    assert err.triton_message
    assert err.findings[0].op in ("local_alloc", "local_load", "convert_layout")
    assert "linear_layout" in str(err)
    assert err.site in str(err)
    # the process lives on and compiles the next kernel
    with llt.guard():
        kernel = lls.compile_job(lls.passing_job())
    assert kernel.asm["cubin"]


def test_without_the_guard_the_real_compile_fails(llt: Any) -> None:
    job = lls.failing_job()
    [real] = lls.run_children([job])
    if lls.triton_version() < (3, 3):
        assert real.outcome == "abort", real
        assert real.detail == f"signal {int(signal.SIGABRT)}"
    else:
        assert real.outcome == "error", real
        assert "PassManager::run failed" in real.detail
    # and the guard names what the compiler says
    with llt.guard(), pytest.raises(llt.LayoutCompileError) as info:
        lls.compile_job(job)
    if real.stderr:
        assert core(info.value.triton_message) in real.stderr


def test_autotuner_skips_the_failing_config(llt: Any) -> None:
    import triton

    bad, good = lls.failing_job(), lls.passing_job()
    configs = [
        triton.Config(j.config_kwargs(), num_warps=j.num_warps, num_stages=j.num_stages)
        for j in (bad, good)
    ]
    kernel = triton.autotune(configs=configs, key=bad.tuning_key())(lls.make_kernel(bad.kernel))
    with llt.guard():
        kernel[(1,)](*bad.args(), **bad.call_kwargs())
    timings = {str(c): t for c, t in kernel.configs_timings.items()}
    first = lambda t: t[0] if isinstance(t, list) else t  # noqa: E731
    assert math.isinf(first(timings[str(configs[0])]))
    assert first(timings[str(configs[1])]) == 1.0
    assert str(kernel.best_config) == str(configs[1])


def test_warn_mode_warns_and_lets_the_compile_go_on(llt: Any) -> None:
    # uncontained (contain=False), as Triton itself compiles; test_contain.py
    # has the same compile contained
    job = lls.failing_job()
    if lls.triton_version() < (3, 3):
        # the compile goes on into the assertion: the warning comes first
        [real] = lls.run_children([job], guard="warn")
        assert real.outcome == "abort", real
        assert "LayoutWarning" in real.stderr
        assert "linear_layout" in real.stderr
    else:
        with (
            llt.guard("warn", contain=False),
            pytest.warns(llt.LayoutWarning),
            pytest.raises(RuntimeError) as info,
        ):
            lls.compile_job(job)
        assert not isinstance(info.value, llt.LayoutCompileError)
        assert "PassManager::run failed" in str(info.value)


def test_a_failing_key_is_checked_once(llt: Any) -> None:
    from linear_layout.triton import _contain, _hooks

    job = lls.failing_job()
    with llt.guard():
        for _ in range(2):
            with pytest.raises(llt.LayoutCompileError):
                lls.compile_job(job)  # a fresh JIT function: Triton compiles again, same key
    assert _hooks.Stats.checks == 1  # in the first compile's child, reported back
    assert _contain.Stats.forks == 1
    assert _contain.Stats.memo_hits == 1  # the second stopped before any compile
    # uncontained, the check's own cache stops the second before its front end
    with llt.guard(contain=False):
        for _ in range(2):
            with pytest.raises(llt.LayoutCompileError):
                lls.compile_job(job)
    assert _hooks.Stats.checks == 1
    assert _hooks.Stats.key_hits == 2


def test_a_constant_the_code_ignores_shares_the_check(llt: Any) -> None:
    from linear_layout.triton import _hooks

    with llt.guard():
        k0 = lls.compile_job(lls.chain_b(64, 4, tag=0))
        k1 = lls.compile_job(lls.chain_b(64, 4, tag=1))
    assert k0.hash != k1.hash  # Triton's key includes every constexpr
    assert k0.asm["ttgir"] == k1.asm["ttgir"]
    assert _hooks.Stats.checks == 1
    assert _hooks.Stats.text_hits == 1


def test_passing_config_is_untouched(
    llt: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from linear_layout.triton import _hooks

    job = lls.passing_job()
    # The first compile of a process writes a shorter LLVM datalayout (3.2:
    # the NVPTX target is set up during it), so compile once before comparing.
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "warm-up"))
    lls.compile_job(job)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "without"))
    plain = lls.compile_job(job)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "with"))
    with llt.guard():
        guarded = lls.compile_job(job)
    assert _hooks.Stats.checks == 1  # it was looked at
    for ir in ("ttgir", "llir", "ptx", "cubin"):
        assert guarded.asm[ir] == plain.asm[ir], ir
    assert plain.asm["cubin"]
    if lls.triton_version() < (3, 7):
        assert guarded.hash == plain.hash  # the same Triton cache key
    else:
        # From 3.7 the JIT appends ("custom_pipeline", ...) to its
        # specialisation whenever an inspection hook is set, which also
        # reaches the source's attributes: a different key for the same code.
        assert guarded.hash != plain.hash

    # triton.compile() of the same source: the guard adds nothing to the key
    import triton

    options = {"num_warps": job.num_warps, "num_stages": job.num_stages}
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "compile-without"))
    base = triton.compile(plain.src, target=lls.StandInDriver().target, options=options)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "compile-with"))
    with llt.guard():
        direct = triton.compile(plain.src, target=lls.StandInDriver().target, options=options)
    assert direct.hash == base.hash
    assert direct.asm["cubin"] == base.asm["cubin"]


def test_hooks_are_undone(llt: Any) -> None:
    if lls.triton_version() >= (3, 6):
        from triton import knobs

        assert knobs.runtime.add_stages_inspection_hook is None
        with llt.guard():
            assert knobs.runtime.add_stages_inspection_hook is not None
        assert knobs.runtime.add_stages_inspection_hook is None
    else:
        from triton.backends import backends

        cls = backends["nvidia"].compiler
        original = cls.__dict__["add_stages"]
        llt.install()
        assert llt.installed()
        assert cls.__dict__["add_stages"] is not original
        llt.install("warn")  # a second install changes the mode only
        llt.uninstall()
        assert not llt.installed()
        assert cls.__dict__["add_stages"] is original


def test_an_existing_inspection_hook_is_chained(llt: Any) -> None:
    if lls.triton_version() < (3, 6):
        # no such hook before 3.6: why add_stages is wrapped there (3.1-3.3 have no knobs)
        import triton

        knobs = getattr(triton, "knobs", None)
        assert not hasattr(getattr(knobs, "runtime", None), "add_stages_inspection_hook")
        return
    from triton import knobs

    seen = []

    def theirs(*args: Any) -> Any:
        if not args:  # 3.7+: the (key, hash) question
            return ("theirs", "theirs-hash")
        seen.append(sorted(args[1]))
        return None

    knobs.runtime.add_stages_inspection_hook = theirs
    try:
        # uncontained: a contained compile would call the hooks in its child
        with llt.guard(contain=False):
            assert knobs.runtime.add_stages_inspection_hook() == ("theirs", "theirs-hash")
            with pytest.raises(llt.LayoutCompileError):
                lls.compile_job(lls.failing_job())
        assert seen, "the existing hook was not called"
        assert knobs.runtime.add_stages_inspection_hook is theirs
    finally:
        knobs.runtime.add_stages_inspection_hook = None


def test_errors_pickle(llt: Any) -> None:
    import pickle

    with llt.guard(), pytest.raises(llt.LayoutCompileError) as info:
        lls.compile_job(lls.failing_job())
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is type(info.value)
    assert again.findings == info.value.findings
    assert str(again) == str(info.value)


def test_mode_is_checked(llt: Any) -> None:
    with pytest.raises(ValueError, match="mode"), llt.guard("ignore"):
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with llt.guard("warn"):
            lls.compile_job(lls.passing_job())  # nothing to warn about


def test_the_error_says_where_why_and_what_to_do(llt: Any) -> None:
    import linear_layout
    from linear_layout.triton import _release

    job = lls.failing_job()
    with llt.guard(), pytest.raises(llt.LayoutCompileError) as info:
        lls.compile_job(job)
    err = info.value
    [site] = [s for s in linear_layout.sites() if s.id == err.site]
    assert err.location
    assert err.location in str(err)
    assert err.explanation
    assert err.explanation in str(err)
    assert err.workaround == site.workaround
    assert err.findings[0].title == site.title
    failing = {r for loc in site.locations for r in loc.releases}
    assert err.release in failing
    if err.fixed_in is not None:
        # the first later release without a failing location of the site
        assert _release.order(err.fixed_in) > _release.order(err.release)
        assert err.fixed_in not in failing
        assert f"fixed in: Triton {err.fixed_in}" in str(err)
    if job.kernel == "chain_b":
        # the finder's fix for the whole configuration agrees where it is this site's
        kw = dict(job.constexprs)
        fix = linear_layout.fix_for(
            "chain-b",
            kw["M"],
            kw["BN"],
            kw["K"],
            x=kw["X"],
            num_warps=job.num_warps,
            num_stages=job.num_stages,
            release=err.release,
        )
        if fix.blocker == err.site:
            assert fix.fixed_in == err.fixed_in
            assert fix.pr is not None
            assert fix.pr in (err.fix or "")
