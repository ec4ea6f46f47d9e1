"""Workarounds of the Triton bug families the GPU campaign found, as TTGIR rewrites.

A reproducer (:func:`.shrink.reproducer`) carries the failing module and the
same module with its family's workaround applied; ``repro.py`` runs the first
and ``repro.py --workaround`` the second, each in a fresh process, so a
finding states both that the bug reproduces and that the documented way
around it computes the right numbers.

Each rewrite keeps the meaning of the module (the same values reach the
store), only the route through the layouts changes:

``widen-8bit-convert``
    every ``convert_layout`` of 8-bit elements is done on 32-bit integers
    (bitcast fp8 to i8, zero-extend, convert, truncate, bitcast back), which
    Triton lowers with whole-register moves instead of byte permutes.
``swizzled-shared``
    every ``#ttg.shared_linear`` buffer becomes a plain row-major
    ``#ttg.swizzled_shared`` one, whose lowering has no XOR bases to mishandle.
``keep-wgmma-operands``
    every buffer allocated before the last ``warp_group_dot`` is freed
    (``local_dealloc``) only after it, so no later buffer reuses the memory a
    wgmma read: what Triton's own pipeline gets by allocating every dot
    operand up front.
``fence-after-wgmma``
    a ``fence_async_shared`` right after every ``warp_group_dot`` (an
    experiment: orders the generic-proxy stores that follow with the
    async-proxy reads of the wgmma).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .oracle import print_attr


def _split_convert(line: str) -> dict[str, str] | None:
    """Parse ``%o = D.convert_layout %s : tensor<SxT, A> -> tensor<SxT, B>`` of an 8-bit type."""
    m = re.match(
        r"^(\s*)(%[\w.$]+) = (\w+)\.convert_layout (%[\w.$]+) : (.*)$",
        line,
    )
    if not m:
        return None
    ind, out, dialect, src, types = m.groups()
    parts = types.split(" -> ")
    if len(parts) != 2:
        return None
    tm = [re.match(r"^tensor<((?:\d+x)+)(i8|f8E4M3FN|f8E5M2), (.*)>$", p) for p in parts]
    if not all(tm) or tm[0].group(1) != tm[1].group(1) or tm[0].group(2) != tm[1].group(2):  # type: ignore[union-attr]
        return None
    return {
        "ind": ind,
        "out": out,
        "dialect": dialect,
        "src": src,
        "shape": tm[0].group(1),  # type: ignore[union-attr]
        "ty": tm[0].group(2),  # type: ignore[union-attr]
        "a": tm[0].group(3),  # type: ignore[union-attr]
        "b": tm[1].group(3),  # type: ignore[union-attr]
    }


def widen_8bit_convert(text: str) -> str:
    """Do every 8-bit ``convert_layout`` of ``text`` on i32 instead."""
    out = []
    for line in text.split("\n"):
        c = _split_convert(line)
        if c is None:
            out.append(line)
            continue
        ind, o, s, sh, ty, a, b = (c[k] for k in ("ind", "out", "src", "shape", "ty", "a", "b"))
        base = o[1:]

        def t(elem: str, enc: str, sh: str = sh) -> str:
            return f"tensor<{sh}{elem}, {enc}>"

        cur = s
        if ty != "i8":
            out.append(f"{ind}%{base}_wa0 = tt.bitcast {cur} : {t(ty, a)} -> {t('i8', a)}")
            cur = f"%{base}_wa0"
        out.append(f"{ind}%{base}_wa1 = arith.extui {cur} : {t('i8', a)} to {t('i32', a)}")
        out.append(
            f"{ind}%{base}_wa2 = {c['dialect']}.convert_layout %{base}_wa1 : "
            f"{t('i32', a)} -> {t('i32', b)}"
        )
        if ty == "i8":
            out.append(f"{ind}{o} = arith.trunci %{base}_wa2 : {t('i32', b)} to {t('i8', b)}")
        else:
            out.append(
                f"{ind}%{base}_wa3 = arith.trunci %{base}_wa2 : {t('i32', b)} to {t('i8', b)}"
            )
            out.append(f"{ind}{o} = tt.bitcast %{base}_wa3 : {t('i8', b)} -> {t(ty, b)}")
    return "\n".join(out)


def swizzled_shared(text: str, release: str) -> str:
    """Replace every ``shared_linear`` attribute alias of ``text`` with a row-major swizzled one.

    The new attributes are printed by our crate in ``release``'s spelling.
    """
    pattern = r"^(#\w+) = #\w+\.shared_linear<\{offset = (\[.*?\])\}, alignment = \d+>$"
    orders: dict[str, list[int]] = {}
    for m in re.finditer(pattern, text, flags=re.M):
        first = re.match(r"\s*\[\s*\[([^\]]*)\]", m.group(2))
        assert first is not None
        orders[m.group(1)] = list(reversed(range(len(first.group(1).split(",")))))
    # a memdesc_trans result has the source's order permuted (what the verifier infers)
    for m in re.finditer(
        r"\.memdesc_trans %[\w.$]+ \{order = array<i32: ([\d, ]+)>\} : "
        r"!\w+\.memdesc<[^,]+, (#\w+)[^>]*> -> !\w+\.memdesc<[^,]+, (#\w+)[^>]*>",
        text,
    ):
        perm = [int(x) for x in m.group(1).split(",")]
        src, dst = m.group(2), m.group(3)
        if src in orders and dst in orders and src != dst:
            # dim d of the result is dim perm[d] of the source
            orders[dst] = [perm.index(o) for o in orders[src]]

    def repl(m: re.Match[str]) -> str:
        attr = {"kind": "swizzled_shared", "vec": 1, "perPhase": 1, "maxPhase": 1}
        return f"{m.group(1)} = {print_attr({**attr, 'order': orders[m.group(1)]}, release)}"

    return re.sub(pattern, repl, text, flags=re.M)


def keep_wgmma_operands(text: str) -> str:
    """Free every buffer allocated before the last ``warp_group_dot`` right after it."""
    lines = text.split("\n")
    dots = [i for i, ln in enumerate(lines) if re.search(r"= \w+\.warp_group_dot ", ln)]
    if not dots:
        return text
    last = dots[-1]
    allocs = []
    for ln in lines[:last]:
        m = re.match(r"\s*(%[\w.$]+) = (\w+)\.local_alloc .*-> (!\w+\.memdesc<.*>)$", ln)
        if m:
            allocs.append(m.groups())
    ind = re.match(r"(\s*)", lines[last]).group(1)  # type: ignore[union-attr]
    frees = [f"{ind}{d}.local_dealloc {v} : {ty}" for v, d, ty in allocs]
    return "\n".join(lines[: last + 1] + frees + lines[last + 1 :])


def fence_after_wgmma(text: str) -> str:
    """Put a ``fence_async_shared`` after every ``warp_group_dot``."""
    return re.sub(
        r"^(\s*)(%[\w.$]+ = (\w+)\.warp_group_dot .*)$",
        r"\1\2\n\1\3.fence_async_shared {bCluster = false}",
        text,
        flags=re.M,
    )


#: name -> rewrite of (module text, the case's Triton release).
WORKAROUNDS: dict[str, Callable[[str, str], str]] = {
    "widen-8bit-convert": lambda text, _release: widen_8bit_convert(text),
    "swizzled-shared": swizzled_shared,
    "keep-wgmma-operands": lambda text, _release: keep_wgmma_operands(text),
    "fence-after-wgmma": lambda text, _release: fence_after_wgmma(text),
}
