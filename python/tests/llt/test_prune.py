"""prune(): autotuning configurations dropped exactly when their real compile fails."""

from __future__ import annotations

import logging
from typing import Any

import llt_support as lls
import pytest

pytestmark = pytest.mark.triton


def families() -> dict[str, list[lls.Job]]:
    out: dict[str, list[lls.Job]] = {}
    for job in lls.autotune_jobs():
        out.setdefault(job.kernel, []).append(job)
    return out


def autotuned(jobs: list[lls.Job], prune: Any) -> Any:
    import triton

    return triton.autotune(
        configs=[j.config() for j in jobs],
        key=jobs[0].tuning_key(),
        prune_configs_by={"early_config_prune": prune} if prune is not None else None,
    )(lls.make_kernel(jobs[0].kernel))


def benchmarked(kernel: Any) -> list[str]:
    """The configurations the autotuner benchmarked (those the pruner kept)."""
    return [str(c) for c in kernel.configs_timings]


@pytest.mark.parametrize("family", ["chain_b", "nvmma_rows"])
def test_prune_drops_exactly_the_configs_that_fail(
    llt: Any, family: str, caplog: pytest.LogCaptureFixture
) -> None:
    if family == "nvmma_rows" and lls.triton_version() < (3, 4):
        # no Gluon before 3.4: the chain-b family is this release's case
        assert family not in families()
        return
    jobs = families()[family]
    real = lls.run_children(jobs)
    failing = {str(j.config()) for j, r in zip(jobs, real) if r.outcome != "ok"}
    passing = [str(j.config()) for j, r in zip(jobs, real) if r.outcome == "ok"]
    assert passing, "the list needs a configuration that compiles"

    kernel = autotuned(jobs, llt.prune)
    first = jobs[0]
    with caplog.at_level(logging.WARNING, logger="linear_layout.triton"):
        kernel[(1,)](*first.args(), **first.call_kwargs())
    assert len(passing) > 1  # so the autotuner benchmarks every kept one
    kept = benchmarked(kernel)
    assert kept == passing, {"real failures": sorted(failing)}
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == len(failing)
    from linear_layout.triton import _hooks

    assert not _hooks.hooked()  # prune took its hooks away again


def test_prune_for_binds_the_kernel(llt: Any) -> None:
    bad, good = lls.failing_job(), lls.passing_job()
    kernel = autotuned(
        [bad, good, lls.Job(good.kernel, good.constexprs, good.num_warps, 3, good.dtype)], None
    )
    kernel.early_config_prune = llt.prune_for(kernel)
    kernel[(1,)](*bad.args(), **bad.call_kwargs())
    assert str(bad.config()) not in benchmarked(kernel)
    assert len(benchmarked(kernel)) == 2


def test_when_every_config_fails_prune_raises(llt: Any, caplog: pytest.LogCaptureFixture) -> None:
    bad = lls.failing_job()
    other = lls.Job(
        bad.kernel, bad.constexprs, bad.num_warps, 1 if bad.num_stages != 1 else 3, bad.dtype
    )
    kernel = autotuned([bad, other], llt.prune)
    with (
        caplog.at_level(logging.ERROR, logger="linear_layout.triton"),
        pytest.raises(llt.SkippableLayoutCompileError) as info,
    ):
        kernel[(1,)](*bad.args(), **bad.call_kwargs())
    assert "every configuration" in caplog.text
    assert info.value.site


def test_when_every_config_fails_keep_warns_and_keeps_them(llt: Any) -> None:
    bad = lls.failing_job()
    other = lls.Job(
        bad.kernel, bad.constexprs, bad.num_warps, 1 if bad.num_stages != 1 else 3, bad.dtype
    )
    kernel = autotuned([bad, other], None)
    kernel.early_config_prune = llt.prune_for(kernel, on_all_failing="keep")
    # the guard turns the kept configurations' failures into skipped ones,
    # and the final launch of the "best" one raises
    with (
        llt.guard(),
        pytest.warns(llt.LayoutWarning, match="every configuration"),
        pytest.raises(llt.SkippableLayoutCompileError),
    ):
        kernel[(1,)](*bad.args(), **bad.call_kwargs())
    assert len(kernel.configs_timings) == 2


def test_prune_outside_an_autotuner_warns_and_keeps_everything(llt: Any) -> None:
    configs = [lls.failing_job().config(), lls.passing_job().config()]
    with pytest.warns(llt.LayoutWarning, match="prune_for"):
        assert llt.prune(configs, {}) == configs


def test_prune_answers_feed_the_guard(llt: Any) -> None:
    from linear_layout.triton import _hooks

    jobs = [lls.failing_job(), lls.passing_job()]
    kernel = autotuned(jobs, llt.prune)
    first = jobs[0]
    kernel[(1,)](*first.args(), **first.call_kwargs())  # prune checks both
    checks = _hooks.Stats.checks
    assert checks == 2
    with llt.guard():
        lls.compile_job(lls.passing_job())  # compiled by the autotuner already: Triton's cache
        with pytest.raises(llt.LayoutCompileError):
            lls.compile_job(lls.failing_job())  # known failing key: no new check
    assert _hooks.Stats.checks == checks


def test_prune_through_heuristics(llt: Any) -> None:
    import triton

    # BN comes from @triton.heuristics; only warps and stages are tuned
    bad, good = lls.chain_b(64, 8), lls.chain_b(64, 4)
    if lls.triton_version() < (3, 2):
        bad, good = lls.chain_b(16, 8), lls.chain_b(16, 4)
    bn = dict(bad.constexprs)["BN"]
    configs = [
        triton.Config({}, num_warps=j.num_warps, num_stages=s) for j in (bad, good) for s in (1, 2)
    ]
    kernel = triton.autotune(
        configs=configs, key=["M"], prune_configs_by={"early_config_prune": llt.prune}
    )(triton.heuristics({"BN": lambda args: bn})(lls.make_kernel("chain_b")))
    real = lls.run_children(
        [lls.Job("chain_b", bad.constexprs, c.num_warps, c.num_stages) for c in configs]
    )
    kernel[(1,)](*bad.args(), **bad.call_kwargs())
    assert benchmarked(kernel) == [str(c) for c, r in zip(configs, real) if r.outcome == "ok"]
