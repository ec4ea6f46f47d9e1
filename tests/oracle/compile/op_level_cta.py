"""Op-level modules with several CTAs (thread-block clusters, sm90 and
later): one op whose operands and result are split among the CTAs by CGA
layouts, for `op_level.py`. Every layout attribute is given as data to the
crate (`op_level.py`'s `Dialect`), which prints it in the release's
spelling.

Sites:

  cta_convert  `convert_layout` from a blocked tensor to a dot-operand
               tensor, each with its own CGA (3.4-3.7 lower a conversion
               that moves data between CTAs only between blocked, MMA and
               slice layouts, through distributed shared memory; any other
               fails to legalize), or to another blocked order in the same
               CGA
  cta_dsmem    `convert_layout` between blocked layouts of two CGAs (the
               distributed-shared-memory path of 3.5-3.7, whose `nvvm.mapa`
               their MLIR refuses)
  cta_dsmem_first
               a `cta_dsmem` conversion, then a `cta_convert` one to a dot
               operand (sglang's fp8 MoE GEMM with `swap_ab`: its token ids
               take the DSMEM path before its accumulator's conversion
               fails): the verifier refuses `nvvm.mapa` only after the
               lowering pass, so a legalize failure later in the module is
               what 3.5-3.7 report
  cta_local    `local_alloc` of a blocked tensor into a buffer, and
               `local_load` back, one of them across CTAs (3.5-3.7 do not
               lower a transfer whose block dim is not the identity)
  wgmma_cga    `warp_group_dot` (sm90) of two NVMMA buffers, each in its own
               CGA, into an accumulator in the dot's CGA (the operand
               loader's block and descriptor checks, 3.5-3.9)
  tcgen05_cga  `tc_gen5_mma` (sm100) of two NVMMA buffers into tensor
               memory, each in its own CGA (3.8's verifier; the operand
               loader, 3.5-3.9)

A CGA is written as its `block` bases in CTA coordinates (`[[1, 0]]`: two
CTAs along dim 0; `[[0, 0]]`: two CTAs holding the same data), given to the
crate as those bases (`CGALayout`) or as the three lists `CTAsPerCGA`,
`CTASplitNum`, `CTAOrder`, as the release table's `ttgir.cga` says.
"""

import itertools

MLIR_TYPE = {"fp16": "f16", "bf16": "bf16", "fp32": "f32", "fp8e4nv": "f8E4M3FN", "int8": "i8"}
BITS = {"fp16": 16, "bf16": 16, "fp32": 32, "fp8e4nv": 8, "int8": 8}

# The CGAs drawn per CTA count: split along dim 0, along dim 1, both, or
# broadcast (every CTA holds the whole tensor).
CGAS = {
    1: [[]],
    2: [[[1, 0]], [[0, 1]], [[0, 0]]],
    4: [[[1, 0], [2, 0]], [[0, 1], [0, 2]], [[1, 0], [0, 1]], [[0, 0], [0, 0]], [[1, 0], [0, 0]]],
}


def cga(d, bases, rank=2):
    """The CGA fields (attribute JSON) of a layout attribute, in the form of
    `d`'s release table row (`ttgir.cga`): the bases, or the three lists;
    none for one CTA."""
    if not bases:
        return {}
    if d.t["cga"] == "bases":
        return {"CGALayout": [list(b) for b in bases]}
    # The three lists: CTAs and splits per dim, the dim of the first basis
    # fastest; a broadcast basis adds CTAs to dim 0 without splitting it.
    per_cga, split, order = [1] * rank, [1] * rank, []
    for b in bases:
        dims = [i for i, x in enumerate(b) if x]
        dim = dims[0] if dims else 0
        per_cga[dim] *= 2
        if dims:
            split[dim] *= 2
        if dim not in order:
            order.append(dim)
    order += [i for i in reversed(range(rank)) if i not in order]
    return {"CTAsPerCGA": per_cga, "CTASplitNum": split, "CTAOrder": order}


def per_cta(shape, bases):
    out = list(shape)
    for b in bases:
        for i, x in enumerate(b):
            if x:
                out[i] //= 2
    return out


def blocked(d, shape, bits, warps, bases, order=(1, 0)):
    """A coalesced blocked layout of the CTA's part of `shape`: 16 bytes a
    thread along the fastest dim, lanes then warps along it first."""
    part = per_cta(shape, bases)
    fast = order[0]
    spt = [1, 1]
    spt[fast] = max(1, min(128 // bits, part[fast]))
    tpw, left = [1, 1], 32
    for dim in order:
        take = max(1, min(left, part[dim] // spt[dim]))
        tpw[dim], left = take, left // take
    tpw[order[-1]] *= left
    wpc, left = [1, 1], warps
    for dim in order:
        take = max(1, min(left, part[dim] // (spt[dim] * tpw[dim])))
        wpc[dim], left = take, left // take
    wpc[order[-1]] *= left
    return d.attr("blocked", sizePerThread=spt, threadsPerWarp=tpw, warpsPerCTA=wpc, order=list(order),
                  **cga(d, bases))


def header(d, warps, cap, ctas):
    return ("#smem = #ttg.shared_memory\n" +
            f'module attributes {{"{d.d}.num-ctas" = {ctas} : i32, "{d.d}.num-warps" = {warps} : i32, '
            f'{d.d}.target = "cuda:{cap}", "{d.d}.threads-per-warp" = 32 : i32}} {{\n')


def nvmma(d, swizzle, transposed, bits, bases):
    return d.attr("nvmma_shared", swizzlingByteWidth=swizzle, transposed=transposed, elementBitWidth=bits,
                  **cga(d, bases))


def swizzle_for(cols, rows, bits):
    """`NVMMASharedEncodingAttr::get`'s swizzle for a CTA's part: the widest
    of 128, 64, 32 bytes dividing the contiguous row, none below 8 rows."""
    row = cols * bits // 8
    if rows < 8:
        return 0
    for s in (128, 64, 32):
        if row % s == 0:
            return s
    return 0


def load(d, name, ptr, shape, ty, layout):
    dims = "x".join(map(str, shape))
    return (f"    %{name}p = tt.splat %{ptr} : !tt.ptr<{ty}> -> tensor<{dims}x!tt.ptr<{ty}>, #{layout}>\n"
            f"    %{name} = tt.load %{name}p : tensor<{dims}x!tt.ptr<{ty}>, #{layout}>\n")


def store(d, name, ptr, shape, ty, layout):
    dims = "x".join(map(str, shape))
    return (f"    %{name}q = tt.splat %{ptr} : !tt.ptr<{ty}> -> tensor<{dims}x!tt.ptr<{ty}>, #{layout}>\n"
            f"    tt.store %{name}q, %{name} : tensor<{dims}x!tt.ptr<{ty}>, #{layout}>\n")


def func(*types):
    """The function, one pointer argument per element type."""
    args = ", ".join(f"%arg{i}: !tt.ptr<{ty}> {{tt.divisibility = 16 : i32}}" for i, ty in enumerate(types))
    return f"  tt.func public @op_level({args}) {{\n"


# ------------------------------------------------------------ cta_convert

def cta_convert_cases():
    cases = []
    for cap, ctas in itertools.product([90, 100, 120], [1, 2, 4]):
        for src, dst, kind in itertools.product(CGAS[ctas], CGAS[ctas], ["blocked", "dot_a", "dot_b"]):
            if kind == "blocked" and src != dst:
                # Between blocked layouts of two CGAs: `cta_dsmem`.
                continue
            cases.append({"cap": cap, "ctas": ctas, "shape": [64, 64], "dtype": "fp16", "warps": 4,
                          "src": src, "dst": dst, "kind": kind})
    return cases


def cta_convert_module(p, d):
    ty, bits, shape, warps = MLIR_TYPE[p["dtype"]], BITS[p["dtype"]], p["shape"], p["warps"]
    src = blocked(d, shape, bits, warps, p["src"])
    if p["kind"] == "blocked":
        dst = blocked(d, shape, bits, warps, p["dst"], order=(0, 1))
    else:
        # An Ampere MMA's operand: the dot's CGA with K broadcast.
        parent = {"kind": "nvidia_mma", "versionMajor": 2, "versionMinor": 0, "warpsPerCTA": [warps, 1],
                  "instrShape": [16, 8], **cga(d, p["dst"])}
        dst = d.text({"kind": "dot_op", "opIdx": 0 if p["kind"] == "dot_a" else 1, "parent": parent, "kWidth": 2})
    dims = "x".join(map(str, shape))
    return (f"#src = {src}\n#dst = {dst}\n" + header(d, warps, p["cap"], p["ctas"]) + func(ty, ty) +
            load(d, "x", "arg0", shape, ty, "src") +
            f"    %y = {d.d}.convert_layout %x : tensor<{dims}x{ty}, #src> -> tensor<{dims}x{ty}, #dst>\n" +
            store(d, "y", "arg1", shape, ty, "dst") + "    tt.return\n  }\n}\n")


# ------------------------------------------------------------ cta_dsmem

def cta_dsmem_cases():
    """Between blocked layouts of two CGAs 3.5-3.7 take the distributed-shared-memory path,
    whose `nvvm.mapa` their MLIR refuses (site `dsmem_mapa`); 3.8 goes through shared memory."""
    cases = []
    for cap, ctas in itertools.product([90, 100, 120], [2, 4]):
        for src, dst in itertools.product(CGAS[ctas], CGAS[ctas]):
            if src != dst:
                cases.append({"cap": cap, "ctas": ctas, "shape": [64, 64], "dtype": "fp16", "warps": 4,
                              "src": src, "dst": dst, "kind": "blocked"})
    return cases


# ------------------------------------------------------------ cta_dsmem_first

def cta_dsmem_first_cases():
    """A conversion between blocked layouts of two CGAs (`dsmem_mapa` on 3.5-3.7), then one
    from a blocked tensor to an operand of a dot in another CGA (`cross_cta` where it moves
    data between CTAs), sm90, 2 CTAs."""
    cases = []
    for first_src, first_dst in itertools.product(CGAS[2], CGAS[2]):
        if first_src == first_dst:
            continue
        for dst, kind in itertools.product(CGAS[2], ["dot_a", "dot_b"]):
            cases.append({"cap": 90, "ctas": 2, "shape": [64, 64], "dtype": "fp16", "warps": 4,
                          "first_src": first_src, "first_dst": first_dst, "src": first_src, "dst": dst,
                          "kind": kind})
    return cases


def cta_dsmem_first_module(p, d):
    ty, bits, shape, warps = MLIR_TYPE[p["dtype"]], BITS[p["dtype"]], p["shape"], p["warps"]
    mid = blocked(d, shape, bits, warps, p["first_dst"], order=(0, 1))
    # the second conversion alone is cta_convert's module; the first goes before it
    second = cta_convert_module(p, d)
    dims = "x".join(map(str, shape))
    first = (load(d, "w", "arg0", shape, ty, "src") +
             f"    %v = {d.d}.convert_layout %w : tensor<{dims}x{ty}, #src> -> tensor<{dims}x{ty}, #mid>\n" +
             store(d, "v", "arg1", shape, ty, "mid"))
    head, body = second.split("  tt.func", 1)
    body_head, body_rest = body.split("\n", 1)
    return f"#mid = {mid}\n" + head + "  tt.func" + body_head + "\n" + first + body_rest


# ------------------------------------------------------------ cta_local

def cta_local_cases():
    cases = []
    for cap, ctas in itertools.product([90, 100, 120], [1, 2, 4]):
        for shared in ["swizzled", "nvmma"]:
            # The store crosses CTAs (read back in the stored layout), or
            # the store stays within each CTA and the read crosses.
            pairs = [(regs, buf, regs) for regs, buf in itertools.product(CGAS[ctas], CGAS[ctas])]
            pairs += [(buf, buf, back) for buf, back in itertools.product(CGAS[ctas], CGAS[ctas]) if back != buf]
            for regs, buf, back in pairs:
                cases.append({"cap": cap, "ctas": ctas, "shape": [64, 64], "dtype": "fp16", "warps": 4,
                              "regs": regs, "buffer": buf, "back": back, "shared": shared})
    return cases


def cta_local_module(p, d):
    """A tensor in the `regs` CGA stored into a buffer in the `buffer` CGA
    and read back into the `back` CGA: the first of the two transfers whose
    CGAs differ crosses CTAs."""
    ty, bits, shape, warps = MLIR_TYPE[p["dtype"]], BITS[p["dtype"]], p["shape"], p["warps"]
    regs = blocked(d, shape, bits, warps, p["regs"])
    back = blocked(d, shape, bits, warps, p["back"], order=(0, 1))
    if p["shared"] == "swizzled":
        shared = d.attr("swizzled_shared", vec=8, perPhase=1, maxPhase=8, order=[1, 0], **cga(d, p["buffer"]))
    else:
        part = per_cta(shape, p["buffer"])
        shared = nvmma(d, swizzle_for(part[1], part[0], bits), False, bits, p["buffer"])
    dims = "x".join(map(str, shape))
    md = f"!{d.d}.memdesc<{dims}x{ty}, #shared, #smem>"
    return (f"#regs = {regs}\n#back = {back}\n#shared = {shared}\n" + header(d, warps, p["cap"], p["ctas"]) +
            func(ty, ty) + load(d, "x", "arg0", shape, ty, "regs") +
            f"    %buf = {d.d}.local_alloc %x : (tensor<{dims}x{ty}, #regs>) -> {md}\n"
            f"    %y = {d.d}.local_load %buf : {md} -> tensor<{dims}x{ty}, #back>\n" +
            store(d, "y", "arg1", shape, ty, "back") + "    tt.return\n  }\n}\n")


# ------------------------------------------------------------ wgmma_cga

def operand_cgas(acc):
    """Operand CGAs for an accumulator CGA: the dot's own (K broadcast),
    and every CGA of the same CTA count."""
    ctas = 1 << len(acc)
    a_own = [[b[0], 0] for b in acc]
    b_own = [[0, b[1]] for b in acc]
    out = [(a_own, b_own)]
    for other in CGAS[ctas]:
        out.append((a_own, other))
        out.append((other, b_own))
    seen, unique = set(), []
    for pair in out:
        key = repr(pair)
        if key not in seen:
            seen.add(key)
            unique.append(pair)
    return unique


def wgmma_cga_cases():
    cases = []
    for ctas, (m, n, k), dtype, (warps, instr_n) in itertools.product(
            [1, 2, 4], [(128, 64, 64), (128, 128, 128), (64, 32, 64), (128, 16, 64)], ["fp16", "fp32"],
            [((4, 1), 0), ((8, 1), 0), ((4, 2), 0), ((4, 1), 8)]):
        for acc in CGAS[ctas]:
            part = per_cta([m, n], acc)
            if part[0] < 16 * warps[0] * (4 // warps[0] if warps[0] < 4 else 1) or part[0] < 64:
                continue
            width = instr_n or min(256, part[1] // warps[1])
            if width < 8 or width * warps[1] > part[1]:
                continue
            for a_cga, b_cga in operand_cgas(acc):
                cases.append({"cap": 90, "ctas": ctas, "m": m, "n": n, "k": k, "dtype": dtype,
                              "warps": list(warps), "instr_n": width, "acc": acc, "a": a_cga, "b": b_cga})
    return cases


def wgmma_cga_module(p, d):
    ty, bits = MLIR_TYPE[p["dtype"]], BITS[p["dtype"]]
    m, n, k = p["m"], p["n"], p["k"]
    warps = p["warps"][0] * p["warps"][1]
    instr_k = 256 // bits
    mma = d.attr("nvidia_mma", versionMajor=3, versionMinor=0, warpsPerCTA=list(p["warps"]),
                 instrShape=[16, p["instr_n"], instr_k], **cga(d, p["acc"]))
    a_part, b_part = per_cta([m, k], p["a"]), per_cta([k, n], p["b"])
    # wgmma reads A K-major; B N-major for 16-bit types, else K-major.
    b_trans = bits != 16
    sa = nvmma(d, swizzle_for(a_part[1], a_part[0], bits), False, bits, p["a"])
    sb = nvmma(d, swizzle_for(b_part[0], b_part[1], bits) if b_trans else swizzle_for(b_part[1], b_part[0], bits),
               b_trans, bits, p["b"])
    la = blocked(d, [m, k], bits, warps, p["a"])
    lb = blocked(d, [k, n], bits, warps, p["b"])
    lo = blocked(d, [m, n], 32, warps, p["acc"])
    ma = f"!{d.d}.memdesc<{m}x{k}x{ty}, #sa, #smem>"
    mb = f"!{d.d}.memdesc<{k}x{n}x{ty}, #sb, #smem>"
    acc = f"tensor<{m}x{n}xf32, #mma>"
    return (f"#la = {la}\n#lb = {lb}\n#lo = {lo}\n#mma = {mma}\n#sa = {sa}\n#sb = {sb}\n" +
            header(d, warps, 90, p["ctas"]) + func(ty, ty, "f32") +
            load(d, "a", "arg0", [m, k], ty, "la") + load(d, "b", "arg1", [k, n], ty, "lb") +
            f"    %sa = {d.d}.local_alloc %a : (tensor<{m}x{k}x{ty}, #la>) -> {ma}\n"
            f"    %sb = {d.d}.local_alloc %b : (tensor<{k}x{n}x{ty}, #lb>) -> {mb}\n"
            f"    %c = arith.constant dense<0.000000e+00> : {acc}\n"
            f"    ttng.fence_async_shared {{bCluster = false}}\n"
            f"    %d = ttng.warp_group_dot %sa, %sb, %c {{inputPrecision = 0 : i32}} : {ma} * {mb} -> {acc}\n"
            f"    %o = {d.d}.convert_layout %d : {acc} -> tensor<{m}x{n}xf32, #lo>\n" +
            store(d, "o", "arg2", [m, n], "f32", "lo") + "    tt.return\n  }\n}\n")


SITES = {
    "cta_convert": (cta_convert_cases, cta_convert_module),
    "cta_dsmem": (cta_dsmem_cases, cta_convert_module),
    "cta_dsmem_first": (cta_dsmem_first_cases, cta_dsmem_first_module),
    "cta_local": (cta_local_cases, cta_local_module),
    "wgmma_cga": (wgmma_cga_cases, wgmma_cga_module),
}
