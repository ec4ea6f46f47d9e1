"""Op-level modules of the Hopper MMA layouts Triton 3.1 and 3.2 lower, for
`op_level.py` (sm90, one CTA, in the `triton_gpu` spelling; every layout
attribute is given as data to the crate, `op_level.py`'s `Dialect`, which
prints it):

  hopper_dot_operand  `convert_layout` (or `local_load` of a leading-offset
               buffer) into operand A of a Hopper dot held in registers:
               3.1's first lowering pass rewrites every such conversion
               that is not a register shortcut into a store to shared
               memory, whose layout builder has no Hopper case
  mma_indices  `make_range` of a slice of a Hopper accumulator, and a
               `tt.reduce` of one: both emit their indices through the
               accumulator's linear layout (3.1 asserts on instruction N 8)
"""

import itertools

MLIR_TYPE = {"fp16": "f16", "fp32": "f32"}
BITS = {"fp16": 16, "fp32": 32}


def mma(d, warps, instr_n, bits):
    return d.attr("nvidia_mma", versionMajor=3, versionMinor=0, warpsPerCTA=list(warps),
                  instrShape=[16, instr_n, 256 // bits])


def dot_a(d, parent):
    """Operand A of the accumulator aliased `parent`. 3.1 and 3.2 write a
    Hopper operand A without kWidth."""
    return d.text({"kind": "dot_op", "opIdx": 0, "parent": {"kind": "alias", "name": parent}})


def dot(d, a, b, acc, a_ty, b_ty, acc_ty):
    """The Hopper dot of operand A in registers: `tt.dot` in 3.1,
    `warp_group_dot` from 3.2."""
    if d.short == "3.1":
        return f"    %d = tt.dot {a}, {b}, {acc}, inputPrecision = tf32 : {a_ty} * {b_ty} -> {acc_ty}\n"
    return (f"    %d = triton_nvidia_gpu.warp_group_dot {a}, {b}, {acc} {{inputPrecision = 0 : i32}} : "
            f"{a_ty} * {b_ty} -> {acc_ty}\n")


def header(d, warps):
    return (f'module attributes {{"{d.d}.num-ctas" = 1 : i32, "{d.d}.num-warps" = {warps} : i32, '
            f'{d.d}.target = "cuda:90", "{d.d}.threads-per-warp" = 32 : i32}} {{\n')


def blocked(d, warps):
    return d.attr("blocked", sizePerThread=[1, 8], threadsPerWarp=[4, 8], warpsPerCTA=[warps, 1], order=[1, 0])


# ------------------------------------------------------------ hopper_dot_operand

def hopper_dot_operand_cases():
    cases = []
    for dtype, warps, src, instr_n in itertools.product(
            ["fp16", "fp32"], [[4, 1], [8, 1], [4, 2]], ["blocked", "same_mma", "other_mma", "shared"], [16, 64]):
        cases.append({"m": 128, "n": 64, "dtype": dtype, "warps": warps, "src": src, "instr_n": instr_n})
    return cases


def hopper_dot_operand_module(p, d):
    ty, bits = MLIR_TYPE[p["dtype"]], BITS[p["dtype"]]
    m, n, warps = p["m"], p["n"], p["warps"]
    nw = warps[0] * warps[1]
    parent = mma(d, warps, p["instr_n"], bits)
    # Another accumulator: the same warps along M, all of them if N has some.
    other = mma(d, [nw, 1] if warps[1] > 1 else [warps[0] // 2 or 1, 2], p["instr_n"], bits)
    t = lambda enc: f"tensor<{m}x{n}x{ty}, {enc}>"
    lines = [f"    %p = tt.splat %arg0 : !tt.ptr<{ty}> -> tensor<{m}x{n}x!tt.ptr<{ty}>, #blocked>",
             f"    %x = tt.load %p : tensor<{m}x{n}x!tt.ptr<{ty}>, #blocked>"]
    if p["src"] == "blocked":
        lines.append(f"    %a = {d.d}.convert_layout %x : {t('#blocked')} -> {t('#dot')}")
    elif p["src"] == "shared":
        space = "" if d.short == "3.1" else f", #{d.d}.shared_memory"
        md = f"!tt.memdesc<{m}x{n}x{ty}, #shared{space}>"
        lines += [f"    %s = {d.d}.local_alloc %x : ({t('#blocked')}) -> {md}",
                  f"    %a = {d.d}.local_load %s : {md} -> {t('#dot')}"]
    else:
        src_enc = "#mma" if p["src"] == "same_mma" else "#other"
        lines += [f"    %c = {d.d}.convert_layout %x : {t('#blocked')} -> {t(src_enc)}",
                  f"    %a = {d.d}.convert_layout %c : {t(src_enc)} -> {t('#dot')}"]
    # The operand feeds a dot whose B is a square tile in shared memory.
    space = "" if d.short == "3.1" else f", #{d.d}.shared_memory"
    mb = f"!tt.memdesc<{n}x{n}x{ty}, #shared{space}>"
    acc = f"tensor<{m}x{n}xf32, #mma>"
    lines += [f"    %q = tt.splat %arg1 : !tt.ptr<{ty}> -> tensor<{n}x{n}x!tt.ptr<{ty}>, #blocked>",
              f"    %y = tt.load %q : tensor<{n}x{n}x!tt.ptr<{ty}>, #blocked>",
              f"    %sb = {d.d}.local_alloc %y : (tensor<{n}x{n}x{ty}, #blocked>) -> {mb}",
              f"    %z = arith.constant dense<0.000000e+00> : {acc}"]
    out = (dot(d, "%a", "%sb", "%z", t("#dot"), mb, acc) +
           f"    %o = {d.d}.convert_layout %d : {acc} -> tensor<{m}x{n}xf32, #blocked>\n"
           f"    %r = tt.splat %arg2 : !tt.ptr<f32> -> tensor<{m}x{n}x!tt.ptr<f32>, #blocked>\n"
           f"    tt.store %r, %o : tensor<{m}x{n}x!tt.ptr<f32>, #blocked>\n")
    # A 128-byte-swizzled NVMMA buffer: in 3.1 and 3.2 the leading-offset shared layout.
    shared = d.nvmma(128, bits)
    args = (f"%arg0: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}, %arg1: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}, "
            f"%arg2: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}")
    return (f"#blocked = {blocked(d, nw)}\n#mma = {parent}\n#other = {other}\n#dot = {dot_a(d, 'mma')}\n"
            f"#shared = {shared}\n" + header(d, nw) + f"  tt.func public @op_level({args}) {{\n" +
            "\n".join(lines) + "\n" + out + "    tt.return\n  }\n}\n")


# ------------------------------------------------------------ mma_indices

def mma_indices_cases():
    cases = []
    for op, warps, instr_n, dim in itertools.product(["make_range", "reduce"], [[4, 1], [8, 1], [4, 2]],
                                                     [8, 16, 32], [0, 1]):
        cases.append({"op": op, "m": 64 * warps[0] // 4, "n": 64, "warps": warps, "instr_n": instr_n, "dim": dim})
    return cases


def mma_indices_module(p, d):
    m, n, warps, dim = p["m"], p["n"], p["warps"], p["dim"]
    nw = warps[0] * warps[1]
    acc = mma(d, warps, p["instr_n"], 16)
    sl = d.text(d.slice(dim, "mma"))
    size = n if dim == 0 else m
    full = f"tensor<{m}x{n}xf32, #mma>"
    if p["op"] == "make_range":
        body = (f"    %r = tt.make_range {{end = {size} : i32, start = 0 : i32}} : tensor<{size}xi32, {sl}>\n"
                f"    %e = tt.expand_dims %r {{axis = {dim} : i32}} : tensor<{size}xi32, {sl}> -> "
                f"tensor<{'1x' + str(n) if dim == 0 else str(m) + 'x1'}xi32, #mma>\n"
                f"    %b = tt.broadcast %e : tensor<{'1x' + str(n) if dim == 0 else str(m) + 'x1'}xi32, #mma> -> "
                f"tensor<{m}x{n}xi32, #mma>\n"
                f"    %v = arith.sitofp %b : tensor<{m}x{n}xi32, #mma> to {full}\n")
    else:
        body = (f"    %c = {d.d}.convert_layout %x : tensor<{m}x{n}xf32, #blocked> -> {full}\n"
                f"    %s = \"tt.reduce\"(%c) <{{axis = {dim} : i32}}> ({{\n"
                f"    ^bb0(%l: f32, %r: f32):\n"
                f"      %a = arith.addf %l, %r : f32\n"
                f"      tt.reduce.return %a : f32\n"
                f"    }}) : ({full}) -> tensor<{size}xf32, {sl}>\n"
                f"    %e = tt.expand_dims %s {{axis = {dim} : i32}} : tensor<{size}xf32, {sl}> -> "
                f"tensor<{'1x' + str(n) if dim == 0 else str(m) + 'x1'}xf32, #mma>\n"
                f"    %v = tt.broadcast %e : tensor<{'1x' + str(n) if dim == 0 else str(m) + 'x1'}xf32, #mma> -> "
                f"{full}\n")
    return (f"#blocked = {blocked(d, nw)}\n#mma = {acc}\n" + header(d, nw) +
            "  tt.func public @op_level(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {\n"
            f"    %p = tt.splat %arg0 : !tt.ptr<f32> -> tensor<{m}x{n}x!tt.ptr<f32>, #blocked>\n"
            f"    %x = tt.load %p : tensor<{m}x{n}x!tt.ptr<f32>, #blocked>\n" + body +
            f"    %o = {d.d}.convert_layout %v : {full} -> tensor<{m}x{n}xf32, #blocked>\n"
            f"    tt.store %p, %o : tensor<{m}x{n}x!tt.ptr<f32>, #blocked>\n"
            "    tt.return\n  }\n}\n")


SITES = {
    "hopper_dot_operand": (hopper_dot_operand_cases, hopper_dot_operand_module),
    "mma_indices": (mma_indices_cases, mma_indices_module),
}
