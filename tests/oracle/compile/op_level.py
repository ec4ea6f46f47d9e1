#!/usr/bin/env python3
"""Op-level compile grids: one layout-sensitive op per TTGIR module, the
layouts varied over a grid, compiled directly by each Triton release.

The kernel-level grids (run_grid.py) check the finder through the
compiler's own layout choices.  These modules fix the layouts by hand, so
they check each lowering-site model on its own, with no heuristics in
between.  Every module is written in the release's dialect spelling
(`triton_gpu` and `!tt.memdesc` up to 3.2, `ttg` and `!ttg.memdesc` after)
and compiled with `triton.compile(path, target=GPUTarget("cuda", CAP, 32))`
in a child process of its own (an assertion aborts 3.1 and 3.2).

Sites (the op each module holds):

  stmatrix    `local_alloc` of a Hopper MMA (v3) accumulator into a
              leading-offset / NVMMA buffer, sm90: instruction N, warps,
              element type and swizzle varied
  cp_async    `async_copy_global_to_local` from a blocked tensor of
              pointers into a swizzled buffer; the pointers run
              contiguously along the blocked layout's fastest dim from a
              16-byte-aligned base (as the coalescing pass arranges),
              sm80: sizePerThread, order, vec/perPhase/maxPhase and the
              element type varied
  local_load  `local_load` of a rank-2 or rank-3 buffer into a blocked
              tensor, sm80
  shared_tile `local_alloc` + `local_load` of a blocked tensor through a
              leading-offset / NVMMA buffer whose swizzle tile may be larger
              than the tensor (triton #4727), or which is not swizzled at
              all, sm90
  pipelined_load
              `async_copy_global_to_local` of triton #5882's rank-3 loads
              into a (1, 1, 1) swizzled buffer ordered like the load (PR
              #5905) or with dim 0 moved last (before it), sm80

and, recorded per release with `record --sites` (kind
`op-level-site-modules`): the multi-CTA sites of op_level_cta.py
(cta_convert, cta_local, wgmma_cga; each case names its target) and 3.1
and 3.2's Hopper sites of op_level_hopper.py (hopper_dot_operand,
mma_indices).
AMD sites (from 3.4, compiled for GPUTarget("hip", GFX, wave); recorded
per release with `record --sites amd_wmma,amd_mfma,amd_target`, sampled by
`check --amd`):

  amd_wmma    `convert_layout` of a blocked tensor to an `amd_wmma`
              accumulator and back, shapes from 2 to 32 (triton #8931:
              3.4–3.7 assert below one 16x16 instruction), versions 1
              (gfx1100) and 2 (gfx1201)
  amd_mfma    the same through an `amd_mfma` accumulator (versions 2–4 on
              gfx90a, gfx942, gfx950), instructions 16x16 and 32x32
  amd_target  a load and a store on every AMD target (3.4 and 3.5 refuse
              gfx1250)

Subcommands (the parent runs under any python3; compiles run under the
python of `tests/oracle/venv.sh VERSION`):

  record --triton VERSION --out FILE [--sites a,b]   compile the grid
  check  --triton VERSION --binary PATH --sample N --seed S
         compile a fresh random sample of the grid and compare with
         `PATH check-ttgir --json`; exit 1 on any disagreement
  fuzz   --triton VERSION --binary PATH --count N --seed S
         compile N random modules off the grid and compare with
         `PATH check-ttgir --json`; exit 1 on any disagreement. Half store
         a blocked tensor into a random swizzled or NVMMA buffer and read
         it back (rank 2 or 3, any order, dtype, warps, sm80 or sm90); half
         convert between two random blocked layouts, or between a blocked
         layout and an MMA accumulator (v2, or v3 on sm90)
  emit   --triton VERSION --dir DIR      write the grid's modules, no compile
  child  (internal) compile one module

Files (tests/oracle/data_header.py): a header line {"header": {"what",
"release", "count", "kind"}}, kind "op-level-modules" (record) or
"op-level-fuzz" (fuzz --out), then one record per line: {"name" (from the
site and params, e.g. `stmatrix-64x16-fp16-w4x1-n8-sw32`), "site",
"params", "triton" (major.minor), "module" (the exact text compiled),
"outcome", "message", "signal", "seconds", "stage", "exception" (errors
only)}, as in run_grid.py.  `cargo test` runs `check-ttgir`'s model on
every recorded module (tests/op_level.rs).
"""

import argparse
import itertools
import json
import os
import random
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_grid  # noqa: E402  (the child runner and message classification)
import data_header  # noqa: E402  (run_grid put tests/oracle on the path)
import op_level_cta  # noqa: E402  (the multi-CTA sites)
import op_level_hopper  # noqa: E402  (3.1 and 3.2's Hopper operand and index sites)
from harness import child as children  # noqa: E402
from harness.crate import Crate  # noqa: E402

MLIR_TYPE = {"fp16": "f16", "bf16": "bf16", "fp32": "f32", "int8": "i8"}
BITS = {"fp16": 16, "bf16": 16, "fp32": 32, "int8": 8}


# ------------------------------------------------------------- spelling

class Dialect:
    """How release `short` spells TTGIR: its row of the crate's release table
    (dialects, memdesc types, commit tokens); its layout attributes are
    printed by the crate (`attr`)."""

    def __init__(self, short, crate):
        self.short = short
        self.crate = crate
        self.t = crate.row(short)["ttgir"]
        self.old = self.t["legacy_shared"]
        self.d = self.t["dialect"]
        tokens = " tokens" if self.t["commit_tokens"] else ""
        self.commit = f"{self.d}.async_commit_group{tokens}"

    def attr(self, kind, **params):
        """The crate's text of a layout attribute of `kind` (TTGIR parameter names)."""
        return self.crate.print_attr({"kind": kind, **params}, self.short)

    def memdesc(self, shape, ty, mutable=False, bang=True):
        dims = "x".join(str(s) for s in shape)
        space = ""
        if self.t["memory_space"]:
            space = f", #{self.d}.shared_memory" if self.old else ", #smem"
        mut = ", mutable" if mutable else ""
        prefix = f"!{self.t['memdesc_dialect']}.memdesc" if bang else ""
        return f"{prefix}<{dims}x{ty}, #shared{space}{mut}>"

    def swizzled(self, vec, per_phase, max_phase, order):
        return self.attr("swizzled_shared", vec=vec, perPhase=per_phase, maxPhase=max_phase, order=list(order))

    def nvmma(self, swizzle, bits, transposed=False, rank=2):
        """An NVMMA buffer (up to 3.2 the leading-offset layout that stood for it)."""
        return self.attr("nvmma_shared", swizzlingByteWidth=swizzle, transposed=transposed,
                         elementBitWidth=bits, rank=rank)

    def slice(self, dim, parent):
        """`parent` (an alias name, or attribute JSON) sliced along `dim`, as JSON."""
        if isinstance(parent, str):
            parent = {"kind": "alias", "name": parent}
        return {"kind": "slice", "dim": dim, "parent": parent}

    def text(self, attr):
        return self.crate.print_attr(attr, self.short)

    def header(self, warps, cap):
        smem = "" if self.old else f"#smem = #{self.d}.shared_memory\n"
        backend, arch, lanes = target_of(cap)
        return (smem + f'module attributes {{"{self.d}.num-ctas" = 1 : i32, "{self.d}.num-warps" = {warps} : i32, '
                f'{self.d}.target = "{backend}:{arch}", "{self.d}.threads-per-warp" = {lanes} : i32}} {{\n')


def target_of(cap):
    """GPUTarget's (backend, arch, warp size) for a module's target: a compute
    capability (90), or an AMD processor ("gfx942"; 64-wide waves on gfx9)."""
    cap = str(cap)
    if cap.startswith("gfx"):
        return "hip", cap, 64 if cap.startswith("gfx9") else 32
    return "cuda", int(cap), 32


_DIALECTS = {}


def make_dialect(short, binary=None):
    """The Dialect of release `short`, asking the crate at `binary` (default:
    this checkout's target/release/linear-layout)."""
    if (short, binary) not in _DIALECTS:
        _DIALECTS[(short, binary)] = Dialect(short, Crate(binary))
    return _DIALECTS[(short, binary)]


def blocked(d, spt, tpw, wpc, order):
    return d.attr("blocked", sizePerThread=list(spt), threadsPerWarp=list(tpw), warpsPerCTA=list(wpc),
                  order=list(order))


def spread(shape, order, spt, total, fill):
    """Distribute `total` threads (or warps) over `shape` minor dim first,
    as the default blocked builder does, given what `fill` per dim already
    covers."""
    out = [1] * len(shape)
    left = total
    for dim in order:
        room = max(shape[dim] // (fill[dim] * spt[dim]), 1)
        take = min(room, left)
        out[dim] = take
        left //= take
    out[order[-1]] *= left  # whatever is left wraps on the major dim
    return out


# ------------------------------------------------------------- the sites

def stmatrix_cases():
    """Hopper MMA accumulators stored with local_alloc (sm90)."""
    cases = []
    for dtype, (m, n), warps in itertools.product(
            ["fp16", "bf16", "fp32"], [(64, 16), (64, 32), (64, 64), (128, 64), (64, 128), (128, 128)],
            [[4, 1], [8, 1], [4, 2]]):
        if warps[0] * 16 > m:
            continue
        row_bytes = n * BITS[dtype] // 8
        swizzles = [s for s in (128, 64, 32) if s <= row_bytes]
        for instr_n in (8, 16, 32, 64, 128, 256):
            if instr_n * warps[1] > n:
                continue
            for swizzle in swizzles:
                cases.append({"m": m, "n": n, "dtype": dtype, "warps": warps, "instr_n": instr_n,
                              "swizzle": swizzle})
    return cases


def stmatrix_module(p, d):
    ty, bits = MLIR_TYPE[p["dtype"]], BITS[p["dtype"]]
    m, n = p["m"], p["n"]
    warps = p["warps"][0] * p["warps"][1]
    k = 256 // bits
    mma = d.attr("nvidia_mma", versionMajor=3, versionMinor=0, warpsPerCTA=list(p["warps"]),
                 instrShape=[16, p["instr_n"], k])
    shared = d.nvmma(p["swizzle"], bits)
    blk = blocked(d, [1, 1], [4, 8], [warps, 1], [1, 0])
    md = d.memdesc([m, n], ty)
    # The buffer is read back and stored, so the local_alloc reaches the lowering.
    return (f"#blocked = {blk}\n#mma = {mma}\n#shared = {shared}\n" + d.header(warps, 90) +
            f"  tt.func public @op_level(%arg0: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}) {{\n"
            f"    %ptrs = tt.splat %arg0 : !tt.ptr<{ty}> -> tensor<{m}x{n}x!tt.ptr<{ty}>, #blocked>\n"
            f"    %in = tt.load %ptrs : tensor<{m}x{n}x!tt.ptr<{ty}>, #blocked>\n"
            f"    %acc = {d.d}.convert_layout %in : tensor<{m}x{n}x{ty}, #blocked> -> tensor<{m}x{n}x{ty}, #mma>\n"
            f"    %buf = {d.d}.local_alloc %acc : (tensor<{m}x{n}x{ty}, #mma>) -> {md}\n"
            f"    %out = {d.d}.local_load %buf : {md} -> tensor<{m}x{n}x{ty}, #blocked>\n"
            f"    tt.store %ptrs, %out : tensor<{m}x{n}x!tt.ptr<{ty}>, #blocked>\n"
            f"    tt.return\n  }}\n}}\n")


def cp_async_cases():
    """Global -> shared copies of 16-byte-aligned tensors, contiguous along
    the register layout's fastest dim (sm80)."""
    cases = []
    for dtype, (r, c), spt, order, shared_order, (vec, per_phase, max_phase) in itertools.product(
            ["fp16", "fp32", "int8"], [(32, 64), (64, 32), (16, 16)], [1, 2, 4, 8], [[1, 0], [0, 1]],
            [[1, 0], [0, 1]], [(1, 1, 1), (2, 1, 1), (4, 1, 8), (8, 1, 8), (8, 2, 4)]):
        cases.append({"rows": r, "cols": c, "dtype": dtype, "size_per_thread": spt, "order": order,
                      "shared_order": shared_order, "vec": vec, "per_phase": per_phase, "max_phase": max_phase})
    return cases


def cp_async_module(p, d):
    ty = MLIR_TYPE[p["dtype"]]
    r, c = p["rows"], p["cols"]
    shape, order, warps = [r, c], p["order"], 4
    spt = [1, 1]
    spt[order[0]] = min(p["size_per_thread"], shape[order[0]])
    tpw = spread(shape, order, spt, 32, [1, 1])
    wpc = spread(shape, order, spt, warps, tpw)
    blk = blocked(d, spt, tpw, wpc, order)
    shared = d.swizzled(p["vec"], p["per_phase"], p["max_phase"], p["shared_order"])
    s0, s1 = d.text(d.slice(0, "blocked")), d.text(d.slice(1, "blocked"))
    mut = d.memdesc(shape, ty, mutable=True)
    dst = d.memdesc(shape, ty, mutable=True, bang=False)
    t = lambda e: f"tensor<{r}x{c}x{e}, #blocked>"
    # Offsets row * C + col when dim 1 is fastest, row + col * R otherwise.
    if order[0] == 1:
        scaled, scaled_ty, unit, unit_ty, stride = "r2", f"{r}x1", "c2", f"1x{c}", c
    else:
        scaled, scaled_ty, unit, unit_ty, stride = "c2", f"1x{c}", "r2", f"{r}x1", r
    return (f"#blocked = {blk}\n#shared = {shared}\n" + d.header(warps, 80) +
            f"  tt.func public @op_level(%arg0: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}) {{\n"
            f"    %rows = tt.make_range {{end = {r} : i32, start = 0 : i32}} : tensor<{r}xi32, {s1}>\n"
            f"    %cols = tt.make_range {{end = {c} : i32, start = 0 : i32}} : tensor<{c}xi32, {s0}>\n"
            f"    %r2 = tt.expand_dims %rows {{axis = 1 : i32}} : tensor<{r}xi32, {s1}> -> tensor<{r}x1xi32, #blocked>\n"
            f"    %c2 = tt.expand_dims %cols {{axis = 0 : i32}} : tensor<{c}xi32, {s0}> -> tensor<1x{c}xi32, #blocked>\n"
            f"    %stride = arith.constant dense<{stride}> : tensor<{scaled_ty}xi32, #blocked>\n"
            f"    %scaled = arith.muli %{scaled}, %stride : tensor<{scaled_ty}xi32, #blocked>\n"
            f"    %sb = tt.broadcast %scaled : tensor<{scaled_ty}xi32, #blocked> -> {t('i32')}\n"
            f"    %ub = tt.broadcast %{unit} : tensor<{unit_ty}xi32, #blocked> -> {t('i32')}\n"
            f"    %off = arith.addi %sb, %ub : {t('i32')}\n"
            f"    %base = tt.splat %arg0 : !tt.ptr<{ty}> -> {t(f'!tt.ptr<{ty}>')}\n"
            f"    %ptrs = tt.addptr %base, %off : {t(f'!tt.ptr<{ty}>')}, {t('i32')}\n"
            f"    %buf = {d.d}.local_alloc  : () -> {mut}\n"
            f"    %tok = {d.d}.async_copy_global_to_local %ptrs, %buf : {t(f'!tt.ptr<{ty}>')} -> {dst}\n"
            f"    %grp = {d.commit} %tok\n"
            f"    %done = {d.d}.async_wait %grp {{num = 0 : i32}}\n"
            f"    %out = {d.d}.local_load %buf : {mut} -> {t(ty)}\n"
            f"    tt.store %ptrs, %out : {t(f'!tt.ptr<{ty}>')}\n"
            f"    tt.return\n  }}\n}}\n")


def shared_tile_cases():
    """Blocked tensors stored into and read back from a leading-offset /
    NVMMA buffer whose swizzle tile may be larger than the tensor (triton
    #4727), sm90."""
    cases = []
    for (r, c), dtype, swizzle in itertools.product(
            [(2, 64), (4, 64), (8, 64), (16, 64), (4, 128), (8, 32), (16, 16), (32, 32), (64, 64), (8, 16)],
            ["fp16", "fp32"], [0, 32, 64, 128]):
        cases.append({"rows": r, "cols": c, "dtype": dtype, "swizzle": swizzle})
    return cases


def shared_tile_module(p, d):
    ty, bits = MLIR_TYPE[p["dtype"]], BITS[p["dtype"]]
    shape = [p["rows"], p["cols"]]
    warps = 4
    spt = [1, min(128 // bits, shape[1])]
    tpw = spread(shape, [1, 0], spt, 32, [1, 1])
    wpc = spread(shape, [1, 0], spt, warps, tpw)
    blk = blocked(d, spt, tpw, wpc, [1, 0])
    shared = d.nvmma(p["swizzle"], bits)
    return stored_and_read_back(d, blk, shared, shape, ty, warps, 90)


def pipelined_load_cases():
    """triton #5882's rank-3 loads staged with cp.async: the lhs [1, M, K]
    (contiguous along dim 2) and the rhs [N, 1, K] (contiguous along dim 0),
    in their coalesced blocked layouts, into a (1, 1, 1) swizzled buffer
    whose order is the load's own (PR #5905) or the load's with dim 0 moved
    last (the pipeliner before it), sm80."""
    cases = []
    for which, size, k, dtype, order in itertools.product(
            ["lhs", "rhs"], [32, 128], [16, 32], ["fp16", "fp32"], ["load", "pre-5905"]):
        cases.append({"load": which, "size": size, "k": k, "dtype": dtype, "shared_order": order})
    return cases


def pipelined_load_module(p, d):
    ty, bits = MLIR_TYPE[p["dtype"]], BITS[p["dtype"]]
    size, k, warps = p["size"], p["k"], 4
    shape, contig = ([1, size, k], 2) if p["load"] == "lhs" else ([size, 1, k], 0)
    # Coalescing orders dims by contiguity (a stable sort, so ties keep
    # their index order) and gives each thread up to 16 bytes along the
    # contiguous dim.
    order = [contig] + [x for x in range(3) if x != contig]
    spt = [1, 1, 1]
    spt[contig] = min(128 // bits, shape[contig], max(shape[0] * shape[1] * shape[2] // (32 * warps), 1))
    tpw = spread(shape, order, spt, 32, [1, 1, 1])
    wpc = spread(shape, order, spt, warps, tpw)
    blk = blocked(d, spt, tpw, wpc, order)
    shared_order = order if p["shared_order"] == "load" else [x for x in order if x != 0] + [0]
    shared = d.swizzled(1, 1, 1, shared_order)
    # Row-major strides of the tensor the load reads, contiguous along `contig`.
    strides = {2: [size * k, k, 1], 0: [1, size * k, size]}[contig]
    dims = "x".join(str(x) for x in shape)
    t = lambda e: f"tensor<{dims}x{e}, #blocked>"
    lines = []
    for axis in range(3):
        # arange along `axis`, expanded to rank 3, times its stride
        sl_outer = [x for x in range(3) if x != axis]
        e1 = d.text(d.slice(sl_outer[1], "blocked"))
        e0 = d.text(d.slice(sl_outer[0], d.slice(sl_outer[1], "blocked")))
        two = [shape[x] if x == axis else 1 for x in range(3) if x != sl_outer[1]]
        one_shape = [shape[x] if x == axis else 1 for x in range(3)]
        lines += [
            f"    %r{axis} = tt.make_range {{end = {shape[axis]} : i32, start = 0 : i32}} : tensor<{shape[axis]}xi32, {e0}>",
            f"    %a{axis} = tt.expand_dims %r{axis} {{axis = {sl_outer[0]} : i32}} : tensor<{shape[axis]}xi32, {e0}> -> "
            f"tensor<{'x'.join(map(str, two))}xi32, {e1}>",
            f"    %b{axis} = tt.expand_dims %a{axis} {{axis = {sl_outer[1]} : i32}} : tensor<{'x'.join(map(str, two))}xi32, {e1}> -> "
            f"tensor<{'x'.join(map(str, one_shape))}xi32, #blocked>",
            f"    %s{axis} = arith.constant dense<{strides[axis]}> : tensor<{'x'.join(map(str, one_shape))}xi32, #blocked>",
            f"    %m{axis} = arith.muli %b{axis}, %s{axis} : tensor<{'x'.join(map(str, one_shape))}xi32, #blocked>",
            f"    %o{axis} = tt.broadcast %m{axis} : tensor<{'x'.join(map(str, one_shape))}xi32, #blocked> -> {t('i32')}",
        ]
    mut = d.memdesc(shape, ty, mutable=True)
    dst = d.memdesc(shape, ty, mutable=True, bang=False)
    lines += [
        f"    %o01 = arith.addi %o0, %o1 : {t('i32')}",
        f"    %off = arith.addi %o01, %o2 : {t('i32')}",
        f"    %base = tt.splat %arg0 : !tt.ptr<{ty}> -> {t(f'!tt.ptr<{ty}>')}",
        f"    %ptrs = tt.addptr %base, %off : {t(f'!tt.ptr<{ty}>')}, {t('i32')}",
        f"    %buf = {d.d}.local_alloc  : () -> {mut}",
        f"    %tok = {d.d}.async_copy_global_to_local %ptrs, %buf : {t(f'!tt.ptr<{ty}>')} -> {dst}",
        f"    %grp = {d.commit} %tok",
        f"    %done = {d.d}.async_wait %grp {{num = 0 : i32}}",
    ]
    return (f"#blocked = {blk}\n#shared = {shared}\n" + d.header(warps, 80) +
            f"  tt.func public @op_level(%arg0: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}) {{\n" +
            "\n".join(lines) + "\n    tt.return\n  }\n}\n")


def local_load_cases():
    cases = []
    for shape, dtype in itertools.product([[32, 64], [64, 16], [2, 16, 32], [4, 32, 32], [1, 64, 64], [2, 64, 16]],
                                          ["fp16", "fp32"]):
        cases.append({"shape": shape, "dtype": dtype})
    return cases


def local_load_module(p, d):
    ty, shape = MLIR_TYPE[p["dtype"]], p["shape"]
    rank, warps = len(shape), 4
    order = list(range(rank - 1, -1, -1))
    spt = [1] * rank
    spt[-1] = min(128 // BITS[p["dtype"]], shape[-1])
    tpw = spread(shape, order, spt, 32, [1] * rank)
    wpc = spread(shape, order, spt, warps, tpw)
    blk = blocked(d, spt, tpw, wpc, order)
    shared = d.swizzled(1, 1, 1, order)
    return stored_and_read_back(d, blk, shared, shape, ty, warps, 80)


def stored_and_read_back(d, blk, shared, shape, ty, warps, cap):
    """A module that loads a `blk` tensor, stores it into a `shared` buffer
    with local_alloc and reads it back with local_load (the buffer is used,
    so both ops reach the lowering)."""
    dims = "x".join(str(x) for x in shape)
    md = d.memdesc(shape, ty)
    t = lambda e: f"tensor<{dims}x{e}, #blocked>"
    return (f"#blocked = {blk}\n#shared = {shared}\n" + d.header(warps, cap) +
            f"  tt.func public @op_level(%arg0: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}) {{\n"
            f"    %ptrs = tt.splat %arg0 : !tt.ptr<{ty}> -> {t(f'!tt.ptr<{ty}>')}\n"
            f"    %in = tt.load %ptrs : {t(f'!tt.ptr<{ty}>')}\n"
            f"    %buf = {d.d}.local_alloc %in : ({t(ty)}) -> {md}\n"
            f"    %out = {d.d}.local_load %buf : {md} -> {t(ty)}\n"
            f"    tt.store %ptrs, %out : {t(f'!tt.ptr<{ty}>')}\n"
            f"    tt.return\n  }}\n}}\n")


# ------------------------------------------------------------- AMD sites

AMD_SIZES = (2, 8, 16, 32)


def amd_mma(d, p):
    """The `amd_wmma` / `amd_mfma` accumulator of a case, printed by the crate
    in the release's spelling. A WMMA is transposed where the release accepts
    that of every WMMA version (3.4 and 3.5 only of version 2)."""
    w = list(p["warps"])
    if p["kind"] == "wmma":
        return d.attr("amd_wmma", version=p["version"], isTranspose=d.t["wmma_v1_transposes"],
                      warpsPerCTA=w)
    instr = p["instr"]
    k = {32: 8, 16: 16}[instr] * (2 if p["version"] == 4 else 1)
    return d.attr("amd_mfma", version=p["version"], warpsPerCTA=w, instrShape=[instr, instr, k],
                  isTransposed=True)


AMD_ARCH = {("wmma", 1): "gfx1100", ("wmma", 2): "gfx1201", ("mfma", 2): "gfx90a", ("mfma", 3): "gfx942",
            ("mfma", 4): "gfx950"}


def amd_layout_cases(kind, versions, instrs):
    cases = []
    for version, instr, rows, cols, warps in itertools.product(versions, instrs, AMD_SIZES, AMD_SIZES,
                                                               [[2, 2], [4, 1]]):
        case = {"kind": kind, "version": version, "rows": rows, "cols": cols, "warps": warps}
        if instr is not None:
            case["instr"] = instr
        cases.append(case)
    return cases


def amd_wmma_cases():
    return amd_layout_cases("wmma", (1, 2), (None, ))


def amd_mfma_cases():
    return amd_layout_cases("mfma", (2, 3, 4), (16, 32))


def amd_layout_module(p, d):
    """A blocked fp32 tensor converted to the accumulator layout and back."""
    arch = AMD_ARCH[(p["kind"], p["version"])]
    warps = p["warps"][0] * p["warps"][1]
    lanes = target_of(arch)[2]
    shape = [p["rows"], p["cols"]]
    tpw = spread(shape, [1, 0], [1, 1], lanes, [1, 1])
    wpc = spread(shape, [1, 0], [1, 1], warps, tpw)
    dims = "x".join(str(x) for x in shape)
    t = lambda e, enc: f"tensor<{dims}x{e}, {enc}>"
    return (f"#blocked = {blocked(d, [1, 1], tpw, wpc, [1, 0])}\n#mma = {amd_mma(d, p)}\n" +
            d.header(warps, arch) +
            "  tt.func public @op_level(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {\n"
            f"    %ptrs = tt.splat %arg0 : !tt.ptr<f32> -> {t('!tt.ptr<f32>', '#blocked')}\n"
            f"    %in = tt.load %ptrs : {t('!tt.ptr<f32>', '#blocked')}\n"
            f"    %acc = {d.d}.convert_layout %in : {t('f32', '#blocked')} -> {t('f32', '#mma')}\n"
            f"    %out = {d.d}.convert_layout %acc : {t('f32', '#mma')} -> {t('f32', '#blocked')}\n"
            f"    tt.store %ptrs, %out : {t('!tt.ptr<f32>', '#blocked')}\n"
            "    tt.return\n  }\n}\n")


def amd_target_cases():
    return [{"arch": a} for a in ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250")]


def amd_target_module(p, d):
    """A blocked tensor loaded and stored: nothing but the target to refuse."""
    lanes = target_of(p["arch"])[2]
    blk = blocked(d, [1, 1], [lanes // 8, 8], [4, 1], [1, 0])
    t = lambda e: f"tensor<64x64x{e}, #blocked>"
    return (f"#blocked = {blk}\n" + d.header(4, p["arch"]) +
            "  tt.func public @op_level(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {\n"
            f"    %ptrs = tt.splat %arg0 : !tt.ptr<f16> -> {t('!tt.ptr<f16>')}\n"
            f"    %in = tt.load %ptrs : {t('!tt.ptr<f16>')}\n"
            f"    tt.store %ptrs, %in : {t('!tt.ptr<f16>')}\n"
            "    tt.return\n  }\n}\n")


# Each AMD site's cases, module and target (None: the case names its own;
# recorded per release with `record --sites amd_wmma,amd_mfma,amd_target`,
# every target and WMMA case and a seeded 48 of the MFMA ones).
AMD_SITES = {
    "amd_wmma": (amd_wmma_cases, amd_layout_module, None),
    "amd_mfma": (amd_mfma_cases, amd_layout_module, None),
    "amd_target": (amd_target_cases, amd_target_module, None),
}


def case_target(case):
    """The target a grid case compiles for: its site's, or the one the case
    names (a compute capability, or an AMD processor)."""
    site, p = case["site"], case["params"]
    if site == "amd_target":
        return p["arch"]
    if site in AMD_SITES:
        return AMD_ARCH[(p["kind"], p["version"])]
    return SITES[site][2] or p["cap"]


SITES = {
    "stmatrix": (stmatrix_cases, stmatrix_module, 90),
    "cp_async": (cp_async_cases, cp_async_module, 80),
    "local_load": (local_load_cases, local_load_module, 80),
    "shared_tile": (shared_tile_cases, shared_tile_module, 90),
    "pipelined_load": (pipelined_load_cases, pipelined_load_module, 80),
}
# The multi-CTA sites (op_level_cta.py): each case names its target.
SITES.update({name: (cases, module, None) for name, (cases, module) in op_level_cta.SITES.items()})
# 3.1 and 3.2's Hopper sites (op_level_hopper.py), in their spelling.
SITES.update({name: (cases, module, 90) for name, (cases, module) in op_level_hopper.SITES.items()})
# The AMD sites, from 3.4.
SITES.update(AMD_SITES)
# The sites of the recorded grid of releases 3.1-3.4 and 3.9 (`record` with
# no --sites); the multi-CTA sites are recorded on their own, per release.
SINGLE_CTA = ("stmatrix", "cp_async", "local_load", "shared_tile", "pipelined_load")

# The recorded grid: a seeded subset of the stmatrix and cp_async cases, every
# case of the other sites (the same subset for every release, so releases can
# be compared case by case).
RECORD_LIMIT = {"stmatrix": 90, "cp_async": 110, "local_load": None, "cta_local": 120, "wgmma_cga": 150,
                "amd_mfma": 48}


# ------------------------------------------------------------- off the grid

def random_module(rng, d):
    """One random store-and-read-back module: (params, text, capability)."""
    rank = rng.choice([2, 2, 2, 3])
    shape = [rng.choice([1, 2, 4, 8, 16, 32, 64, 128]) for _ in range(rank)]
    while eval("*".join(map(str, shape))) > 16384:
        shape[rng.randrange(rank)] //= 2
    dtype = rng.choice(sorted(MLIR_TYPE))
    ty, bits = MLIR_TYPE[dtype], BITS[dtype]
    warps = rng.choice([1, 2, 4, 8])
    order = rng.sample(range(rank), rank)
    spt = [1] * rank
    spt[order[0]] = min(rng.choice([1, 2, 4, 8, 16]), shape[order[0]])
    tpw = spread(shape, order, spt, 32, [1] * rank)
    wpc = spread(shape, order, spt, warps, tpw)
    cap = rng.choice([80, 90])
    if rng.random() < 0.5:
        shared = d.swizzled(rng.choice([1, 2, 4, 8, 16]), rng.choice([1, 2, 4, 8]),
                            rng.choice([1, 2, 4, 8, 16]), rng.sample(range(rank), rank))
    else:
        swizzle, transposed = rng.choice([0, 32, 64, 128]), rng.random() < 0.5
        shared = d.nvmma(swizzle, bits, transposed, rank)
    params = {"shape": shape, "dtype": dtype, "warps": warps, "order": order, "spt": spt, "cap": cap,
              "shared": shared}
    blk = blocked(d, spt, tpw, wpc, order)
    return params, stored_and_read_back(d, blk, shared, shape, ty, warps, cap), cap


def random_blocked(rng, d, shape, warps):
    """Any blocked layout of `warps` warps for a rank-2 `shape`."""
    order = rng.sample(range(2), 2)
    spt = [1, 1]
    spt[order[0]] = min(rng.choice([1, 2, 4, 8]), shape[order[0]])
    if rng.random() < 0.3:
        spt[order[1]] = min(rng.choice([1, 2, 4]), shape[order[1]])

    def split(total):
        out = [1, 1]
        while total > 1:
            out[rng.randrange(2)] *= 2
            total //= 2
        return out
    return blocked(d, spt, split(32), split(warps), order)


def random_mma(rng, d, shape, warps, cap):
    """An MMA accumulator layout: Hopper (v3, instruction N from 8) on sm90
    when the tensor has 64 rows or more, else Ampere (v2)."""
    if cap >= 90 and shape[0] >= 64 and rng.random() < 0.5:
        n = max(8, min(rng.choice([8, 16, 32, 64, 128, 256]), shape[1]))
        wpc = [warps, 1] if warps <= 4 else [4, warps // 4]
        return d.attr("nvidia_mma", versionMajor=3, versionMinor=0, warpsPerCTA=wpc, instrShape=[16, n, 16])
    w0 = rng.choice([x for x in (1, 2, 4, 8) if x <= warps])
    return d.attr("nvidia_mma", versionMajor=2, versionMinor=0, warpsPerCTA=[w0, warps // w0], instrShape=[16, 8])


def convert_module(d, shape, dtype, warps, cap, src, dst):
    """A module that loads a rank-2 tensor in layout `src`, converts it to
    `dst` and stores it: (params, text, capability)."""
    ty = MLIR_TYPE[dtype]
    dims = "x".join(map(str, shape))
    ptr = f"!tt.ptr<{ty}>"
    text = (f"#src = {src}\n#dst = {dst}\n" + d.header(warps, cap) +
            f"  tt.func public @op_level(%arg0: {ptr} {{tt.divisibility = 16 : i32}}, "
            f"%arg1: {ptr} {{tt.divisibility = 16 : i32}}) {{\n"
            f"    %p = tt.splat %arg0 : {ptr} -> tensor<{dims}x{ptr}, #src>\n"
            f"    %x = tt.load %p : tensor<{dims}x{ptr}, #src>\n"
            f"    %y = {d.d}.convert_layout %x : tensor<{dims}x{ty}, #src> -> tensor<{dims}x{ty}, #dst>\n"
            f"    %q = tt.splat %arg1 : {ptr} -> tensor<{dims}x{ptr}, #dst>\n"
            f"    tt.store %q, %y : tensor<{dims}x{ptr}, #dst>\n"
            f"    tt.return\n  }}\n}}\n")
    params = {"shape": shape, "dtype": dtype, "warps": warps, "cap": cap, "src": src, "dst": dst}
    return params, text, cap


def random_convert_module(rng, d):
    """One random `convert_layout` between blocked layouts, or between a
    blocked layout and an MMA accumulator: (params, text, capability)."""
    shape = [rng.choice([1, 2, 4, 8, 16, 32, 64, 128]) for _ in range(2)]
    dtype = rng.choice(sorted(MLIR_TYPE))
    warps = rng.choice([1, 2, 4, 8])
    cap = rng.choice([80, 90])
    kind = rng.choice(["blocked", "to_mma", "from_mma"])
    src = random_blocked(rng, d, shape, warps)
    dst = random_blocked(rng, d, shape, warps) if kind == "blocked" else random_mma(rng, d, shape, warps, cap)
    if kind == "from_mma":
        src, dst = dst, src
    return convert_module(d, shape, dtype, warps, cap, src, dst)


def random_mma_pair_module(rng, d):
    """One random `convert_layout` from one MMA accumulator to another (v2
    or v3, each on its own warps and instruction): (params, text,
    capability)."""
    shape = [rng.choice([16, 32, 64, 128, 256]), rng.choice([8, 16, 32, 64, 128])]
    dtype = rng.choice(sorted(MLIR_TYPE))
    warps = rng.choice([1, 2, 4, 8])
    cap = rng.choice([80, 90, 90])
    src = random_mma(rng, d, shape, warps, cap)
    dst = random_mma(rng, d, shape, warps, cap)
    return convert_module(d, shape, dtype, warps, cap, src, dst)


def fuzz(args):
    py = run_grid.resolve_python(args)
    short = run_grid.triton_short(args.triton)
    rng = random.Random(args.seed)
    # Half store-and-read-back modules, half layout conversions; with
    # --mma-pairs, only conversions from one MMA accumulator to another
    # (the default draws never pair two MMAs, and keep their seeds).
    if args.mma_pairs:
        cases = [random_mma_pair_module(rng, make_dialect(short, args.binary)) for _ in range(args.count)]
    else:
        cases = [(random_module if rng.random() < 0.5 else random_convert_module)(rng, make_dialect(short, args.binary))
                 for _ in range(args.count)]

    def job(work, i):
        params, text, cap = cases[i]
        path = os.path.join(work, f"case{i}.ttgir")
        with open(path, "w") as f:
            f.write(text)
        rec = run_grid.run_child(py, {"id": f"case{i}"}, work, script=os.path.abspath(__file__),
                                 extra=("--module", path, "--cap", str(cap)))
        return {"params": params, "module": text, **rec}

    records, _ = run_grid.run_pool(len(cases), job, args.jobs, short,
                                   lambda _i, rec: json.dumps(rec["params"]), prefix="op_fuzz-")
    if args.out:
        # In the recorded grid's form, so that tests/op_level.rs can replay them.
        site = "mma_pair" if args.mma_pairs else "fuzz"
        what = data_header.existing_what(args.out, "op-level-fuzz", args.triton, len(records)) or (
            f"{len(records)} random " + ("convert_layout modules from one MMA accumulator to another"
                                         if args.mma_pairs else "one-op TTGIR modules off the grid") +
            f", compiled by the triton {args.triton} wheel, in the op-level form (`{data_header.command()}`).")
        data_header.write_jsonl(args.out, {"what": what, "release": args.triton, "kind": "op-level-fuzz"},
                                [{"site": site, "triton": short, **rec} for rec in records])
    # An off-grid module has no name to find it by: print it whole.
    return compare(records, short, args.binary, lambda rec: f"{json.dumps(rec['params'])}\n{rec['module']}")


def compare(records, short, binary, describe):
    """Each compile against `binary check-ttgir`; prints the disagreements
    and a summary, returns the exit status."""
    bad, outcomes = 0, {}
    for rec in records:
        outcomes[rec["outcome"]] = outcomes.get(rec["outcome"], 0) + 1
        verdict, message = predicted(binary, short, rec["module"])
        if rec["outcome"] in ("timeout", "broken") or verdict != rec["outcome"]:
            bad += 1
            print(f"DISAGREE {short}: real {rec['outcome']} ({rec['message'][:200]}), "
                  f"predicted {verdict} ({message[:200]}): {describe(rec)}", file=sys.stderr)
    print(f"{len(records) - bad} passed, {bad} failed (real outcomes {outcomes})")
    return 1 if bad else 0


def grid(limit=RECORD_LIMIT, seed=1):
    out = []
    for site, (cases, _, _) in SITES.items():
        cs = cases()
        n = limit.get(site)
        if n is not None and n < len(cs):
            cs = random.Random(f"{seed}-{site}").sample(cs, n)
        out += [{"site": site, "params": p} for p in cs]
    return out


def module_text(case, short, binary=None):
    return SITES[case["site"]][1](case["params"], make_dialect(short, binary))


# ------------------------------------------------------------- compiling

# Every compile runs with this much address space. 3.3 builds an unswizzled
# NVMMA buffer's layout with a loop of 2^32 - 1 steps, each allocating: with
# no limit it takes the machine's memory (24 GiB in 74 s here) before the
# kernel kills it; with one it ends in seconds in std::bad_alloc. Compiles
# that work need a few hundred MiB.
ADDRESS_SPACE = 4 << 30


def child(args):
    import resource
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = ADDRESS_SPACE if hard == resource.RLIM_INFINITY else min(ADDRESS_SPACE, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        if args.status:
            run_grid.hook_stages(args.status, False)
            with open(args.status, "w") as f:
                f.write("ttgir")
    except Exception as e:
        print(run_grid.EXC_MARK + run_grid.exception_summary(e), file=sys.stderr, flush=True)
        return run_grid.SETUP_FAILED
    try:
        triton.compile(args.module, target=GPUTarget(*target_of(args.cap)))
    except Exception as e:
        import traceback
        traceback.print_exc()
        print(run_grid.EXC_MARK + run_grid.exception_summary(e), file=sys.stderr, flush=True)
        return 1
    return 0


def compile_cases(py, short, cases, jobs, label, binary=None):
    def job(work, i):
        case = cases[i]
        text = module_text(case, short, binary)
        path = os.path.join(work, f"case{i}.ttgir")
        with open(path, "w") as f:
            f.write(text)
        cap = case_target(case)
        rec = run_grid.run_child(py, {"id": f"case{i}"}, work, script=os.path.abspath(__file__),
                                 extra=("--module", path, "--cap", str(cap)))
        rec.pop("stderr_tail", None)  # the module is the reproducer; `message` has the key line
        for key in ("message", "exception"):  # no scratch paths in the record
            if key in rec:
                rec[key] = rec[key].replace(path, "m.ttgir").replace(f"case{i}.ttgir", "m.ttgir")
        return {"site": case["site"], "params": case["params"], "triton": short, "module": text, **rec}

    def describe(_i, rec):
        return f"{rec['site']} {json.dumps(rec['params'])}"

    records, _ = run_grid.run_pool(len(cases), job, jobs, label, describe, prefix="op_level-")
    return records


def record(args):
    py = run_grid.resolve_python(args)
    short = run_grid.triton_short(args.triton)
    sites = tuple(args.sites.split(",")) if args.sites else SINGLE_CTA
    cases = [c for c in grid() if c["site"] in sites]
    records = compile_cases(py, short, cases, args.jobs, short, args.binary)
    # The grid of releases 3.1-3.4 and 3.9 (`op-level-modules`), or a file of
    # later sites per release (`op-level-site-modules`).
    kind = "op-level-modules" if sites == SINGLE_CTA else "op-level-site-modules"
    what = data_header.existing_what(args.out, kind, args.triton, len(records)) or (
        f"{len(records)} one-op TTGIR modules of op_level.py's grid ({', '.join(sites)}), each compiled from "
        f"its file by the triton {args.triton} wheel, with the outcome (`{data_header.command()}`).")
    data_header.write_jsonl(args.out, {"what": what, "release": args.triton, "kind": kind}, records)
    counts = {}
    for r in records:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    print(f"triton {args.triton}: {counts} -> {args.out}", file=sys.stderr)
    return 1 if counts.get("broken") or counts.get("timeout") else 0


def predicted(binary, short, text):
    """`check-ttgir --json` on one module: (verdict, message)."""
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text)
    try:
        p = children.run([binary, "check-ttgir", f.name, "--triton", short, "--json"], timeout=600)
    finally:
        os.remove(f.name)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        raise SystemExit(f"op_level: check-ttgir failed ({p.returncode}): {p.stderr.strip()}")
    findings = json.loads(p.stdout)["findings"]
    if not findings:
        return "ok", ""
    failure = findings[0]["failure"]
    return findings[0]["verdict"], f"{failure['site']}: {failure['triton_message']}"


def check(args):
    py = run_grid.resolve_python(args)
    short = run_grid.triton_short(args.triton)
    # The multi-CTA sites are written for 3.5 and later (NVMMA buffers,
    # `warp_group_dot`, both CGA spellings).
    # 3.1 and 3.2's Hopper sites in their spelling.
    major, minor = (int(x) for x in short.split("."))
    if (major, minor) >= (3, 5):
        sites = SINGLE_CTA + tuple(op_level_cta.SITES)
    elif (major, minor) <= (3, 2):
        sites = SINGLE_CTA + tuple(op_level_hopper.SITES)
    else:
        sites = SINGLE_CTA
    if args.amd:
        sites = tuple(AMD_SITES)
    everything = [c for c in grid(limit={}) if c["site"] in sites]
    cases = random.Random(args.seed).sample(everything, min(args.sample, len(everything)))
    records = compile_cases(py, short, cases, args.jobs, short, args.binary)
    return compare(records, short, args.binary, lambda rec: f"{rec['site']} {json.dumps(rec['params'])}")


def emit(args):
    os.makedirs(args.dir, exist_ok=True)
    short = run_grid.triton_short(args.triton)
    for i, case in enumerate(grid()):
        with open(os.path.join(args.dir, f"{case['site']}-{i}.ttgir"), "w") as f:
            f.write(module_text(case, short, args.binary))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="compile the grid, write outcomes")
    r.add_argument("--triton", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--sites", help="comma-separated sites to compile (default: all)")
    r.add_argument("--binary", help="the CLI that prints the attributes (default: target/release/linear-layout)")
    for name, size, help_text in (("check", "--sample", "fresh random sample of the grid"),
                                  ("fuzz", "--count", "random modules off the grid")):
        c = sub.add_parser(name, help=help_text + " against PATH check-ttgir --json")
        c.add_argument("--triton", required=True)
        c.add_argument("--binary", required=True)
        c.add_argument(size, type=int, required=True)
        c.add_argument("--seed", type=int, required=True)
        c.add_argument("--jobs", type=int, default=2)
        if name == "check":
            c.add_argument("--amd", action="store_true", help="sample the AMD sites' grid instead (from 3.4)")
        if name == "fuzz":
            c.add_argument("--mma-pairs", action="store_true",
                           help="only conversions from one MMA accumulator to another")
            c.add_argument("--out", help="also write the compiled modules and outcomes here (JSON lines)")
    e = sub.add_parser("emit", help="write the grid's modules without compiling")
    e.add_argument("--triton", required=True)
    e.add_argument("--dir", required=True)
    e.add_argument("--binary", help="the CLI that prints the attributes (default: target/release/linear-layout)")
    ch = sub.add_parser("child", help="(internal) compile one module")
    ch.add_argument("--config")
    ch.add_argument("--status")
    ch.add_argument("--module", required=True)
    ch.add_argument("--cap", required=True, help="compute capability, or an AMD processor (gfx942)")
    args = ap.parse_args()
    return {"record": record, "check": check, "fuzz": fuzz, "emit": emit, "child": child}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
