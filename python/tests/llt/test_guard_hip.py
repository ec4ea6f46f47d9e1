"""guard() on AMD (``hip``) targets: checked from 3.4, passed through before.

``triton.compile`` for ``GPUTarget("hip", ...)`` runs on the CPU; without
ROCm the code object is not linked (the ``hsaco`` stage is replaced) and the
backend's cache key is its target (3.4 asks ROCm's linker for it), as the
oracle does (tests/oracle/compile/run_grid.py).
"""

from __future__ import annotations

from typing import Any

import llt_support as lls
import pytest

pytestmark = pytest.mark.triton

WAVE = {"gfx942": 64, "gfx1100": 32, "gfx1250": 32}


def chain_b_source() -> Any:
    """An ASTSource of ``llt_kernels.chain_b`` (fp16, M 64, K 32, X 64, BN 64)."""
    import llt_kernels
    import triton
    from triton.compiler import ASTSource

    fn = triton.jit(llt_kernels.chain_b)
    pointers = {name: "*fp16" for name in ("a_ptr", "b_ptr", "d_ptr", "o_ptr")}
    values = {"M": 64, "K": 32, "X": 64, "BN": 64, "TAG": 0}
    if lls.triton_version() < (3, 3):
        # 3.1 and 3.2: constexpr values by name, outside the signature.
        return ASTSource(fn, signature=pointers, constants=values)
    names = list(fn.arg_names)
    signature = {n: pointers.get(n, "constexpr") for n in names}
    constexprs = {(names.index(n),): v for n, v in values.items()}
    return ASTSource(fn, signature=signature, constexprs=constexprs)


def compile_hip(arch: str) -> Any:
    """Compile chain-b for ``arch`` with the installed release, unlinked."""
    import triton
    import triton.compiler.compiler as cc
    from triton.backends.compiler import GPUTarget

    make_backend = cc.make_backend

    def unlinked(target: Any) -> Any:
        backend = make_backend(target)
        backend.hash = lambda: str(target)
        add_stages = backend.add_stages

        def stages(s: dict[str, Any], *rest: Any, **kw: Any) -> None:
            add_stages(s, *rest, **kw)
            s["hsaco"] = lambda src, metadata: b""

        backend.add_stages = stages
        return backend

    cc.make_backend = unlinked
    try:
        target = GPUTarget("hip", arch, WAVE[arch])
        return triton.compile(
            chain_b_source(), target=target, options={"num_warps": 4, "num_stages": 2}
        )
    finally:
        cc.make_backend = make_backend


def test_amd_kernels_that_compile_pass_the_guard(llt: Any) -> None:
    for arch in ("gfx942", "gfx1100"):
        with llt.guard(contain=False):
            kernel = compile_hip(arch)
        assert kernel.asm["amdgcn"], arch


def test_a_target_the_release_does_not_know_is_stopped_from_3_4(llt: Any) -> None:
    version = lls.triton_version()
    if version < (3, 4):
        # No AMD model: the guard lets the compile go on into the failure.
        with llt.guard(contain=False), pytest.raises(RuntimeError) as plain:
            compile_hip("gfx1250")
        assert not isinstance(plain.value, llt.LayoutCompileError)
    elif version < (3, 6):
        with llt.guard(contain=False), pytest.raises(llt.SkippableLayoutCompileError) as info:
            compile_hip("gfx1250")
        assert info.value.site == "amd_target"
        assert "unsupported target: 'gfx1250'" in info.value.triton_message
    else:
        with llt.guard(contain=False):
            kernel = compile_hip("gfx1250")
        assert kernel.asm["amdgcn"]
