"""Compiling an autotune's configurations up front, contained, and dropping the failures.

For each configuration the kernel's own JIT path runs exactly as the
autotuner's benchmark would (same binder, specialisation, options, current
target and cache key), with ``warmup=True`` so nothing launches. Each
compile that Triton's cache does not already hold starts in its own forked
child (``_contain``), up to ``workers`` at a time, with the layout check in
force: the children run in parallel while the autotuner would have compiled
one configuration after the other. A configuration whose compile fails (a
predicted layout failure, Triton's own error, a crash, a hang) is dropped,
with the reason logged and the failure recorded; the others are now in
Triton's cache, so the autotuner's own compiles of them are cache loads.
The front end runs once per configuration, not twice: pruning costs what
the compiles cost, less what runs in parallel.
"""

from __future__ import annotations

import logging
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any

from . import _contain, _hooks, _worker
from ._check import CheckerError
from ._errors import Finding, LayoutCompileError, LayoutWarning, error_class
from ._failure import ContainedCompileError
from ._release import UnsupportedTritonError

logger = logging.getLogger("linear_layout.triton")

#: What prune() does when every configuration is predicted to fail.
ON_ALL_FAILING = ("raise", "keep")

PruneFn = Callable[..., list[Any]]


@dataclass
class Verdict:
    """How one configuration's compile ended."""

    config: Any
    error: BaseException | None = None  # the failure (LayoutCompileError, ContainedCompileError)
    unchecked: str | None = None  # why nothing could be said (kept)
    seconds: float = 0.0
    pending: tuple[Any, Any] | None = None  # (request, child) still compiling

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The predicted layout failure's findings, if that is how it failed."""
        return self.error.findings if isinstance(self.error, LayoutCompileError) else ()

    @property
    def fails(self) -> bool:
        """Whether the configuration's compile failed."""
        return self.error is not None

    def reason(self) -> str:
        """One line saying why the configuration fails."""
        if self.findings:
            f = self.findings[0]
            fix = f"; fixed in Triton {f.fixed_in}" if f.fixed_in else ""
            more = f" (+{len(self.findings) - 1} more ops)" if len(self.findings) > 1 else ""
            return f"{f.op} at TTGIR line {f.line}: {f.message}{fix}{more}"
        if isinstance(self.error, ContainedCompileError):
            fl = self.error.failure
            where = f" in stage {fl.stage}" if fl.stage else ""
            return f"{fl.ending}{where}: {fl.message}"
        if self.error is not None:
            return _summary(self.error)
        return "compiles"


def _summary(e: BaseException) -> str:
    while e.__cause__ is not None:
        e = e.__cause__
    lines = [ln.strip() for ln in str(e).splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("^")]
    return f"{type(e).__name__}: {lines[-1] if lines else ''}"


def _is_compile_failure(e: BaseException) -> bool:
    """Triton's own failure to compile (kept out of the benchmark), not a misuse."""
    from triton.compiler.errors import CompilationError

    if isinstance(e, (LayoutCompileError, ContainedCompileError, CompilationError)):
        return True
    if isinstance(e, error_class()):
        return True
    return isinstance(e, RuntimeError) and "PassManager::run failed" in str(e)


def _async_mode() -> Any:
    """3.5+: the JIT's async-compile mode variable (None before 3.5)."""
    try:
        from triton.runtime import _async_compile
    except ImportError:
        return None
    return getattr(_async_compile, "active_mode", None)


def start(fn: Any, args: Sequence[Any], kwargs: dict[str, Any], config: Any) -> Verdict:
    """Start one configuration's compile through ``fn``'s JIT path (in a batch: in a child).

    Args:
        fn: what the autotuner calls: a ``JITFunction`` or a ``Heuristics``.
        args: the positional arguments of the call.
        kwargs: the call's keyword arguments (without the config's).
        config: a ``triton.Config``.

    """
    kw = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
    kw.update(config.all_kwargs())
    verdict = Verdict(config)
    t0 = time.perf_counter()
    # an async compile mode would move the compile to another thread, out of
    # the batch: prune's compiles are started here
    mode = _async_mode()
    token = mode.set(None) if mode is not None else None
    try:
        fn.run(*args, grid=(1, 1, 1), warmup=True, **kw)
    except _contain.Deferred:
        verdict.pending = _contain.current_batch_last()
    except Exception as e:
        if _is_compile_failure(e):
            verdict.error = e
        else:
            verdict.unchecked = _summary(e)
    finally:
        if token is not None:
            mode.reset(token)
    verdict.seconds = time.perf_counter() - t0
    return verdict


def _prune(
    fn: Any,
    configs: Sequence[Any],
    named_args: dict[str, Any],
    kwargs: dict[str, Any],
    on_all_failing: str,
) -> list[Any]:
    configs = list(configs)
    if not configs:
        return configs
    args = list(named_args.values())
    name = getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None), "__name__", "kernel")
    try:
        _hooks.acquire()
    except (UnsupportedTritonError, CheckerError, RuntimeError) as e:
        # a pruner must not break a kernel that works: say so, prune nothing
        warnings.warn(
            f"linear_layout.triton.prune: nothing pruned: {e}", LayoutWarning, stacklevel=3
        )
        return configs
    token = _hooks.PRUNING.set(True)
    try:
        if _worker.available():
            with _contain.batch() as b:
                verdicts = [start(fn, args, kwargs, c) for c in configs]
                t0 = time.perf_counter()
                b.wait()
                waited = time.perf_counter() - t0
            for v in verdicts:
                if v.pending is not None:
                    v.error = _contain.settle(*v.pending)
                    v.seconds += waited
        else:  # no fork: the compiles run here, one after the other
            verdicts = [start(fn, args, kwargs, c) for c in configs]
    finally:
        _hooks.PRUNING.reset(token)
        _hooks.release_hooks()
    for v in verdicts:
        if v.unchecked is not None:
            logger.warning(
                "linear_layout.triton.prune: %s with %s: kept unchecked (%s)",
                name,
                v.config,
                v.unchecked,
            )
        logger.debug("linear_layout.triton.prune: %s with %s: %.3f s", name, v.config, v.seconds)
    kept = [v.config for v in verdicts if not v.fails]
    if kept:
        for v in verdicts:
            if v.fails:
                logger.warning(
                    "linear_layout.triton.prune: dropped %s with %s: %s", name, v.config, v.reason()
                )
        return kept
    # every configuration fails
    listing = "\n".join(f"  {v.config}: {v.reason()}" for v in verdicts)
    text = (
        f"linear_layout.triton.prune: every configuration of {name} is predicted to fail "
        f"on Triton {_hooks.triton_version()}:\n{listing}"
    )
    logger.error("%s", text)
    if on_all_failing == "keep":
        warnings.warn(
            text + "\nkeeping them all (on_all_failing='keep')", LayoutWarning, stacklevel=3
        )
        sys.stderr.flush()
        return configs
    layout = [v for v in verdicts if v.findings]
    # a predicted failure says most (site, fix, workaround); else the first failure
    first = (layout or verdicts)[0].error
    assert first is not None
    raise first


def _calling_autotuner(named_args: dict[str, Any]) -> Any:
    """Find the ``Autotuner`` whose ``prune_configs`` called the pruner, on the stack."""
    from triton.runtime.autotuner import Autotuner

    frame: FrameType | None = sys._getframe(2)
    fallback = None
    for _ in range(6):
        if frame is None:
            break
        obj = frame.f_locals.get("self")
        if isinstance(obj, Autotuner):
            if getattr(obj, "nargs", None) is named_args:
                return obj
            if fallback is None and frame.f_code.co_name == "prune_configs":
                fallback = obj
        frame = frame.f_back
    return fallback


def prune(configs: Sequence[Any], named_args: dict[str, Any], **kwargs: Any) -> list[Any]:
    """Drop the configurations the installed Triton is predicted to fail on.

    Use it as ``triton.autotune(..., prune_configs_by={"early_config_prune":
    linear_layout.triton.prune})``. Every release (3.1 to 3.9) calls it from
    ``Autotuner.prune_configs`` as ``early_config_prune(configs, nargs,
    **kwargs)``, without the kernel; the pruner finds its autotuner on the
    call stack. Where that is not possible (another caller, a wrapper that
    copies the arguments), use :func:`prune_for`.

    Each configuration is compiled for the current target, in parallel
    forked children (contained: see :func:`guard`), with the layout check in
    force; a configuration whose compile fails (a predicted layout failure,
    Triton's own error, a crash, a hang) is dropped, with a logged reason
    (logger ``linear_layout.triton``, level WARNING) and the failure
    recorded (:func:`failures`). The kept ones are in Triton's cache: the
    autotuner's compiles of them are cache loads.

    If every configuration would be dropped, the kernel cannot compile on
    this release at all: prune logs an error listing each configuration and
    its reason, and raises the first predicted failure
    (``SkippableLayoutCompileError``, with its site, fixing release and
    workaround), else the first failure. It never returns an empty list.
    ``prune_for(kernel, on_all_failing="keep")`` returns them all instead,
    with a warning.

    Args:
        configs: the autotuner's configurations.
        named_args: the call's positional arguments by name.
        **kwargs: the call's keyword arguments.

    Returns:
        The configurations predicted to compile, in their order.

    """
    tuner = _calling_autotuner(named_args)
    if tuner is None:
        warnings.warn(
            "linear_layout.triton.prune was not called by triton's Autotuner, so it cannot "
            "see the kernel; nothing was pruned. Use linear_layout.triton.prune_for(kernel).",
            LayoutWarning,
            stacklevel=2,
        )
        return list(configs)
    return _prune(tuner.fn, configs, named_args, kwargs, "raise")


def prune_for(kernel: Any, *, on_all_failing: str = "raise") -> PruneFn:
    """Make a pruner bound to ``kernel``: :func:`prune` without the stack search.

    Args:
        kernel: the ``Autotuner`` that ``@triton.autotune`` returns, or the
            ``JITFunction`` (or ``Heuristics``) it wraps.
        on_all_failing: ``"raise"`` (default, see :func:`prune`) or
            ``"keep"``: when every configuration would be dropped, keep them
            all and warn.

    Returns:
        A callable ``(configs, named_args, **kwargs) -> configs``. Set it
        after decorating: ``kernel.early_config_prune = prune_for(kernel)``
        (``Autotuner.early_config_prune`` is what ``prune_configs`` calls in
        every release).

    """
    if on_all_failing not in ON_ALL_FAILING:
        raise ValueError(f"on_all_failing must be one of {ON_ALL_FAILING}, not {on_all_failing!r}")
    from triton.runtime.autotuner import Autotuner

    fn = kernel.fn if isinstance(kernel, Autotuner) else kernel
    if not hasattr(fn, "run"):
        raise TypeError(
            f"prune_for needs a Triton kernel (JITFunction or Autotuner), not {kernel!r}"
        )

    def bound_prune(configs: Sequence[Any], named_args: dict[str, Any], **kwargs: Any) -> list[Any]:
        return _prune(fn, configs, named_args, kwargs, on_all_failing)

    return bound_prune
