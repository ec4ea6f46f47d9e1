#!/usr/bin/env python3
"""Differential oracle: Gluon/Triton layout attribute -> LinearLayout conversion.

Triton (through Gluon's `GluonOpBuilder.to_linear_layout`) converts random
TritonGPU layout attributes (blocked, slice, nvidia_mma, dot_op, amd_mfma,
amd_wmma, linear, generic_linear, swizzled_shared, nvmma_shared, shared_linear,
padded_shared, partitioned_shared, tensor memory, gluon auto/coalesced) for
random shapes; our binary must give the same linear layout for the same
TTGIR attribute text and shape.

Subcommands:
  record --seed S --count N --out FILE     write N cases answered by Triton
  check  --seed S --count N --binary PATH  fresh cases: Triton vs `PATH convert --batch`
  replay --in FILE --binary PATH           recorded cases vs `PATH convert --batch`
  _worker                                  internal: the Triton-side evaluator

Run with the python of the Triton venv:
  "$(bash tests/oracle/venv.sh 3.9.0)" tests/oracle/encodings_oracle.py record \\
      --seed 1 --count 4000 --out tests/data/encodings/gluon-3.9.0.jsonl
`record` and `check` need triton; `replay` does not.  Recorded files have a
header line and named cases (tests/oracle/data_header.py, kind
"conversions").  See tests/oracle/encodings_README.md and
notes/gluon-oracle.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data_header  # noqa: E402  (the data files' header and record names)
from harness import child as children  # noqa: E402
from harness.crate import Crate  # noqa: E402

# The kinds of file `replay` reads: every recorded conversion.
CONVERSION_KINDS = ("conversions", "golden-conversions", "conversion-regressions", "conversion-release-pairs")

def _installed_release():
    """The installed wheel's `major.minor`, the release our binary is asked
    to model (3.9 for the recorded data); 3.9 when triton is not installed
    (replay needs no wheel)."""
    try:
        from importlib.metadata import version
        return ".".join(version("triton").split(".")[:2])
    except Exception:
        return "3.9"


TRITON_TAG = _installed_release()


class OracleError(Exception):
    pass


# ===========================================================================
# Layout specs.  A spec is a plain dict {"kind": ..., params...}; the same
# dict drives the Gluon constructor call (in the worker) and our own TTGIR
# printer (used for the request text when Triton cannot print it, and checked
# against Triton's printer otherwise).
# ===========================================================================

SHARED_KINDS = {"swizzled_shared", "nvmma_shared", "shared_linear", "padded_shared",
                "partitioned_shared"}
TMEM_KINDS = {"tmem", "tmem_scales"}


def category(spec):
    k = spec["kind"]
    if k in SHARED_KINDS:
        return "shared"
    if k in TMEM_KINDS:
        return "tmem"
    return "distributed"


def spec_rank(spec):
    k = spec["kind"]
    if k == "blocked":
        return len(spec["order"])
    if k == "slice":
        return spec_rank(spec["parent"]) - 1
    if k == "dot_op":
        return spec_rank(spec["parent"])
    if k in ("nvidia_mma", "amd_mfma"):
        return len(spec["warps"])
    if k == "amd_wmma":
        return spec["rank"]
    if k in ("linear", "generic_linear", "padded_shared"):
        return len(spec["shape"])
    if k == "swizzled_shared":
        return len(spec["order"])
    if k == "nvmma_shared":
        return spec["rank"]
    if k == "shared_linear":
        return len(spec["offset"][0])
    if k == "partitioned_shared":
        return spec_rank(spec["inner"])
    if k in TMEM_KINDS:
        return 2
    return 2  # auto / coalesced have no rank of their own


def kind_label(spec):
    k = spec["kind"]
    if k == "slice":
        return f"slice<{base_label(spec['parent'])}>"
    if k == "dot_op":
        return f"dot_op<{base_label(spec['parent'])}>"
    if k == "partitioned_shared":
        return f"partitioned_shared<{spec['inner']['kind']}>"
    return base_label(spec)


def base_label(spec):
    k = spec["kind"]
    if k == "nvidia_mma":
        return f"nvidia_mma_v{spec['version'][0]}"
    if k == "amd_wmma":
        return f"amd_wmma_v{spec['version']}"
    return k


# ---------------------------------------------------------------------------
# The spec as the crate's attribute JSON (its TTGIR kind and parameter names);
# the crate prints it (`linear-layout print-attr`), as the release spells it
# ---------------------------------------------------------------------------


def _with_cga(out, spec):
    if spec.get("cga"):
        out["CGALayout"] = spec["cga"]
    return out


def crate_attr(spec):
    k = spec["kind"]
    if k == "blocked":
        return _with_cga({"kind": "blocked", "sizePerThread": spec["spt"], "threadsPerWarp": spec["tpw"],
                          "warpsPerCTA": spec["wpc"], "order": spec["order"]}, spec)
    if k == "slice":
        return {"kind": "slice", "dim": spec["dim"], "parent": crate_attr(spec["parent"])}
    if k == "dot_op":
        return {"kind": "dot_op", "opIdx": spec["op_idx"], "parent": crate_attr(spec["parent"]),
                "kWidth": spec["k_width"]}
    if k == "nvidia_mma":
        v = spec["version"]
        return _with_cga({"kind": "nvidia_mma", "versionMajor": v[0], "versionMinor": v[1],
                          "warpsPerCTA": spec["warps"], "instrShape": spec["instr"]}, spec)
    if k == "amd_mfma":
        return _with_cga({"kind": "amd_mfma", "version": spec["version"], "warpsPerCTA": spec["warps"],
                          "instrShape": spec["instr"], "isTransposed": spec["transposed"],
                          "tilesPerWarp": spec["tiles"], "elementBitWidth": spec["elem_bits"]}, spec)
    if k == "amd_wmma":
        cta = {"register": spec["reg_bases"]}
        if spec["warp_bases"] or spec.get("explicit_warp"):
            cta["warp"] = spec["warp_bases"]
        out = _with_cga({"kind": "amd_wmma", "version": spec["version"], "isTranspose": spec["transposed"],
                         "ctaLayout": cta, "instrShape": spec["instr"]}, spec)
        if spec.get("explicit_rank"):
            out["rank"] = spec["rank"]
        return out
    if k in ("linear", "generic_linear"):
        return {"kind": k, "register": spec["reg"], "lane": spec["lane"], "warp": spec["warp"],
                "block": spec["block"]}
    if k == "swizzled_shared":
        return _with_cga({"kind": "swizzled_shared", "vec": spec["vec"], "perPhase": spec["per_phase"],
                          "maxPhase": spec["max_phase"], "order": spec["order"]}, spec)
    if k == "nvmma_shared":
        return _with_cga({"kind": "nvmma_shared", "swizzlingByteWidth": spec["swizzle"],
                          "transposed": spec["transposed"], "elementBitWidth": spec["elem_bits"],
                          "fp4Padded": spec["fp4_padded"], "rank": spec["rank"]}, spec)
    if k == "shared_linear":
        return {"kind": "shared_linear", "offset": spec["offset"], "block": spec["block"],
                "alignment": spec["alignment"]}
    if k == "padded_shared":
        return {"kind": "padded_shared", "intervals": spec["pairs"], "offset": spec["offset"],
                "block": spec["block"], "shape": spec["shape"]}
    if k == "partitioned_shared":
        return {"kind": "partitioned_shared", "numPartitions": spec["num_partitions"],
                "numGroups": spec["num_groups"], "partitionDim": spec["partition_dim"],
                "partitionLayout": crate_attr(spec["inner"])}
    if k == "tmem":
        return _with_cga({"kind": "tensor_memory_encoding", "blockM": spec["block"][0], "blockN": spec["block"][1],
                          "colStride": spec["col_stride"], "twoCTAs": spec["two_ctas"],
                          "fp4Padded": spec["fp4_padded"]}, spec)
    if k == "tmem_scales":
        out = _with_cga({"kind": "tensor_memory_scales_encoding"}, spec)
        if "block_rep_order" in spec:
            out["blockRepOrder"] = spec["block_rep_order"]
        return out
    if k == "auto":
        return {"kind": "auto_encoding"}
    if k == "coalesced":
        return {"kind": "coalesced_encoding"}
    raise ValueError(k)


CRATE = Crate()


def fmt(spec):
    """The crate's text of `spec` in the installed release's spelling."""
    return CRATE.print_attr(crate_attr(spec), TRITON_TAG)


def spec_explicit(spec):
    """Does our text deliberately differ from Triton's printout (see amd_wmma)?"""
    if spec.get("explicit_rank") or spec.get("explicit_warp"):
        return True
    return any(spec_explicit(spec[k]) for k in ("parent", "inner") if k in spec)


class Gen:
    MAX_LOG2_ELEMS = 14

    def __init__(self, seed):
        self.r = random.Random(seed)

    # -- small helpers ------------------------------------------------------
    def chance(self, p):
        return self.r.random() < p

    def pick(self, items, weights=None):
        return self.r.choices(items, weights=weights)[0]

    def split_bits(self, total, rank):
        """Random split of `total` bits over `rank` dims (list of exponents)."""
        e = [0] * rank
        for _ in range(total):
            e[self.r.randrange(rank)] += 1
        return e

    def perm(self, rank, p_reverse=0.6):
        if self.chance(p_reverse):
            return list(range(rank - 1, -1, -1))
        p = list(range(rank))
        self.r.shuffle(p)
        return p

    def nwarps_log2(self, lo=0, hi=4, weights=None):
        return self.pick(list(range(lo, hi + 1)), weights)

    def cga(self, rank, p_none=0.65, max_bits=3):
        """CGA bases: per-dim CTA splits in a random dim order, sometimes a
        broadcast (zero) basis, rarely a non-unit basis."""
        if self.chance(p_none):
            return []
        n = self.pick([1, 2, 3][:max_bits], [5, 3, 2][:max_bits])
        per = self.split_bits(n, rank)
        dims = list(range(rank))
        self.r.shuffle(dims)
        bases = []
        for d in dims:
            for j in range(per[d]):
                v = [0] * rank
                v[d] = 1 << j
                bases.append(v)
        if self.chance(0.15):
            bases[self.r.randrange(len(bases))] = [0] * rank
        elif self.chance(0.05) and rank >= 2:
            v = [self.r.choice([0, 1, 2]) for _ in range(rank)]
            bases[self.r.randrange(len(bases))] = v
        return bases

    @staticmethod
    def cga_split(cga, rank):
        """Number of CTA tiles along each dim implied by the CGA bases."""
        mx = [0] * rank
        for b in cga:
            for d in range(rank):
                mx[d] = max(mx[d], b[d])
        return [2 * m if m else 1 for m in mx]

    def shape_for(self, tile, cap=None, modes=(40, 20, 12, 16, 12)):
        """Power-of-two shape around a per-dim tile: some dims smaller, equal
        or larger than the tile; total elements capped."""
        rank = len(tile)
        if cap is None:
            cap = self.MAX_LOG2_ELEMS if not self.chance(0.04) else 16
        mode = self.pick(["around", "equal", "small", "large", "random"], list(modes))
        e = []
        for t in tile:
            lt = max(0, int(t).bit_length() - 1)
            if mode == "equal":
                d = 0
            elif mode == "small":
                d = -self.r.randint(1, 3)
            elif mode == "large":
                d = self.r.randint(1, 3)
            elif mode == "random":
                e.append(self.r.randint(0, 9))
                continue
            else:
                d = self.pick([-2, -1, 0, 0, 1, 1, 2])
            e.append(max(0, lt + d))
        while sum(e) > cap:
            i = max(range(rank), key=lambda j: e[j])
            e[i] -= 1
        return [1 << x for x in e]

    # -- distributed layouts ------------------------------------------------
    def blocked(self, rank=None, allow_invalid=True):
        r = self
        if rank is None:
            rank = r.pick([1, 2, 3, 4], [15, 55, 22, 8])
        tpw_bits = r.pick([5, 6, 4], [80, 17, 3]) if allow_invalid else r.pick([5, 6], [80, 20])
        tpw = [1 << x for x in r.split_bits(tpw_bits, rank)]
        wpc = [1 << x for x in r.split_bits(r.nwarps_log2(0, 4, [15, 20, 35, 22, 8]), rank)]
        spt = [1 << r.pick([0, 1, 2, 3], [45, 25, 22, 8]) for _ in range(rank)]
        order = r.perm(rank)
        if allow_invalid and r.chance(0.02) and rank >= 2:
            order[0] = order[1]  # not a permutation
        if allow_invalid and r.chance(0.015):
            spt[r.randrange(rank)] = 3  # not a power of two
        return {"kind": "blocked", "spt": spt, "tpw": tpw, "wpc": wpc, "order": order,
                "cga": r.cga(rank)}

    def randrange(self, n):
        return self.r.randrange(n)

    def nvidia_mma(self, version=None, rank=None, allow_invalid=True):
        r = self
        if version is None:
            version = r.pick([2, 3], [50, 50])
        minor = 0 if not (allow_invalid and r.chance(0.03)) else 1
        if version == 2:
            if rank is None:
                rank = r.pick([2, 3], [80, 20])
            wpc = [1 << x for x in r.split_bits(r.nwarps_log2(0, 4, [10, 20, 35, 25, 10]), rank)]
            instr = [16, 8] if rank == 2 else [1, 16, 8]
        else:
            if rank is None:
                rank = r.pick([2, 3], [96, 4])
            nw = r.nwarps_log2(2, 4, [55, 35, 10])
            rest = r.split_bits(nw - 2, rank)
            wpc = [1 << x for x in rest]
            wpc[rank - 2] *= 4
            n = r.pick([8, 16, 24, 32, 48, 64, 96, 128, 192, 256], [6, 10, 1, 12, 1, 15, 1, 14, 1, 10])
            kk = r.pick([8, 16, 32], [25, 55, 20])
            # rank 3 with a 3-entry instrShape: Triton 3.9 aborts converting it
            # (nvidiaMmaTile asserts); kept rare on purpose
            instr = [16, n, kk] if rank == 2 else [1, 16, n]
        if allow_invalid and r.chance(0.03):
            version = r.pick([1, 4, 5])
        return {"kind": "nvidia_mma", "version": [version, minor], "warps": wpc, "instr": instr,
                "cga": r.cga(rank, p_none=0.7)}

    def amd_mfma(self, rank=None, allow_invalid=True):
        r = self
        if rank is None:
            rank = r.pick([2, 3], [85, 15])
        version = r.pick([1, 2, 3, 4], [10, 15, 40, 35])
        if allow_invalid and r.chance(0.02):
            version = r.pick([0, 5])
        mn = r.pick([(32, 32), (16, 16), (64, 4), (4, 64)], [40, 40, 10, 10])
        if allow_invalid and r.chance(0.03):
            mn = (32, 16)
        if mn == (32, 32):
            kk = r.pick([1, 2, 4, 8, 16, 64], [5, 10, 10, 40, 30, 5])
        elif mn == (16, 16):
            kk = r.pick([1, 4, 8, 16, 32, 128], [5, 10, 10, 30, 35, 10])
        else:
            kk = r.pick([4, 16], [80, 20])
        wpc = [1 << x for x in r.split_bits(r.nwarps_log2(0, 4, [10, 20, 40, 20, 10]), rank)]
        tiles = [1] * rank
        if r.chance(0.25):
            tiles = [1 << r.pick([0, 1, 2], [50, 35, 15]) for _ in range(rank)]
        ebits = 32 if not r.chance(0.2) else 64
        if allow_invalid and r.chance(0.02):
            ebits = 16
        return {"kind": "amd_mfma", "version": version, "instr": [mn[0], mn[1], kk],
                "transposed": r.chance(0.5), "warps": wpc, "elem_bits": ebits, "tiles": tiles,
                "cga": r.cga(rank, p_none=0.75)}

    def amd_wmma(self, version=None, rank=None, allow_invalid=True):
        r = self
        if version is None:
            version = r.pick([1, 2, 3], [25, 35, 40])
        if rank is None:
            rank = r.pick([2, 3], [85, 15])
        instr = {1: [[16, 16, 16]], 2: [[16, 16, 16], [16, 16, 32]],
                 3: [[16, 16, 4], [16, 16, 32], [16, 16, 64], [16, 16, 128]]}[version]
        instr = list(r.pick(instr))
        if allow_invalid and r.chance(0.03):
            instr = r.pick([[16, 16, 8], [32, 32, 8], [16, 16, 16]])
        # warp bases: each is a tile-step along one dim (in units of the instr tile
        # is *not* how Triton counts: bases are in tensor elements of the CTA tile
        # built from 16x16 instruction tiles); Triton decides validity.
        nw = r.nwarps_log2(0, 4, [4, 20, 40, 26, 10])
        nr = r.pick([0, 1, 2, 3], [45, 30, 17, 8])
        steps = [0] * rank
        warp_bases, reg_bases = [], []
        for which, n in (("w", nw), ("r", nr)):
            for _ in range(n):
                d = r.pick(list(range(rank)), [1] * (rank - 2) + [5, 5] if rank > 2 else [5, 5])
                v = [0] * rank
                if r.chance(0.03):
                    pass  # broadcast basis
                else:
                    v[d] = 1 << steps[d]
                    steps[d] += 1
                (warp_bases if which == "w" else reg_bases).append(v)
        if r.chance(0.35):
            r.r.shuffle(warp_bases)
        spec = {"kind": "amd_wmma", "version": version, "transposed": r.chance(0.5),
                "warp_bases": warp_bases, "reg_bases": reg_bases, "instr": instr,
                "cga": r.cga(rank, p_none=0.8), "rank": rank}
        # Triton 3.9 prints neither `rank` nor an empty `warp` list, and its
        # parser then rejects (or aborts on) the printed text.  Mostly use the
        # explicit, parseable spelling (our text, not Triton's printout).
        if (rank != 2 or not (warp_bases or reg_bases)) and r.chance(0.8):
            spec["explicit_rank"] = True
        elif rank == 2 and r.chance(0.05):
            spec["explicit_rank"] = True
        if not warp_bases and r.chance(0.75):
            spec["explicit_warp"] = True
        return spec

    def linear(self):
        return self.linear_units(p_xor=(85, 10, 5))

    def linear_units(self, p_xor=(100, 0, 0)):
        r = self
        rank = r.pick([1, 2, 3], [20, 60, 20])
        total = r.randint(3, 12)
        e = r.split_bits(total, rank)
        shape = [1 << x for x in e]
        units = []
        for d in range(rank):
            for j in range(e[d]):
                v = [0] * rank
                v[d] = 1 << j
                units.append(v)
        r.r.shuffle(units)
        if r.chance(0.5):
            units.sort(key=lambda v: (-next(i for i, x in enumerate(v) if x), max(v)))
        # a few xor-combinations keep the span (surjectivity) but are not
        # permutation layouts, which #ttg.linear rejects
        for _ in range(r.pick([0, 1, 2], list(p_xor))):
            if len(units) >= 2:
                i, j = r.r.sample(range(len(units)), 2)
                if j > i:
                    units[i] = [a ^ b for a, b in zip(units[i], units[j])]
        n_lane = r.pick([5, 6, 4], [70, 20, 10])
        n_warp = r.pick([0, 1, 2, 3], [20, 30, 35, 15])
        n_block = r.pick([0, 1, 2], [75, 15, 10])
        it = iter(units)

        def take(n):
            out = []
            for _ in range(n):
                v = next(it, None)
                out.append(v if v is not None else [0] * rank)
            return out

        lane = take(n_lane)
        warp = take(n_warp)
        block = take(n_block)
        reg = list(it)
        if r.chance(0.1):
            reg.insert(r.randint(0, len(reg)), [0] * rank)
        # lanes/warps may be listed in any order
        return {"kind": "linear", "reg": reg, "lane": lane, "warp": warp, "block": block,
                "shape": shape}

    def randint(self, a, b):
        return self.r.randint(a, b)

    def generic_linear(self):
        """#ttg.generic_linear: like #ttg.linear, but warp bases may be swizzled
        (xor of several dims); register/lane/block bases must stay single-dim."""
        r = self
        while True:
            s = self.linear_units()
            rank = len(s["shape"])
            if rank < 2 or not any(any(v) for v in s["warp"]):
                continue
            others = [v for v in s["reg"] + s["lane"] + s["block"] if any(v)]
            swizzled = 0
            for _ in range(r.pick([1, 2], [70, 30])):
                i = r.randrange(len(s["warp"]))
                w = s["warp"][i]
                # xor with a basis along another dim: moves in two dims
                cand = [v for v in others if any(v[d] and not w[d] for d in range(rank))]
                if cand and any(w):
                    v = r.pick(cand)
                    s["warp"][i] = [a ^ b for a, b in zip(w, v)]
                    swizzled += 1
            if swizzled:
                break
        if r.chance(0.08) and len(s["reg"]) >= 1 and s["warp"] and any(s["warp"][0]):
            s["reg"][0] = [a ^ b for a, b in zip(s["reg"][0], s["warp"][0])]  # invalid
        s["kind"] = "generic_linear"
        return s

    def distributed_parent(self, want):
        if want == "blocked":
            return self.blocked(rank=self.pick([2, 3], [75, 25]))
        if want == "nvidia_mma_v2":
            return self.nvidia_mma(version=2, allow_invalid=False)
        if want == "nvidia_mma_v3":
            return self.nvidia_mma(version=3, allow_invalid=False)
        if want == "amd_mfma":
            return self.amd_mfma(allow_invalid=False)
        if want == "amd_wmma":
            return self.amd_wmma(allow_invalid=False)
        if want == "linear":
            s = self.linear()
            while len(s["shape"]) < 2:
                s = self.linear()
            return s
        raise ValueError(want)

    def slice(self):
        r = self
        which = r.pick(["blocked", "nvidia_mma_v2", "nvidia_mma_v3", "amd_mfma", "amd_wmma",
                        "linear", "dot_op", "slice"], [30, 14, 12, 12, 10, 7, 10, 5])
        if which == "dot_op":
            parent = self.dot_op(allow_invalid=False)
        elif which == "slice":
            parent = self.blocked(rank=3, allow_invalid=False)
            parent = {"kind": "slice", "dim": r.randrange(3), "parent": parent}
        else:
            parent = self.distributed_parent(which)
        prank = spec_rank(parent)
        dim = r.randrange(prank)
        if r.chance(0.01):
            dim = prank  # out of range
        return {"kind": "slice", "dim": dim, "parent": parent}

    def dot_op(self, allow_invalid=True):
        r = self
        which = r.pick(["nvidia_mma_v2", "nvidia_mma_v3", "amd_mfma", "amd_wmma", "blocked"],
                       [26, 20, 22, 20, 12])
        parent = self.distributed_parent(which)
        op_idx = r.pick([0, 1])
        if which == "nvidia_mma_v2":
            kw = r.pick([1, 2, 4, 8, 16], [8, 35, 30, 20, 7])
        elif which == "nvidia_mma_v3":
            op_idx = 0 if not (allow_invalid and r.chance(0.08)) else 1
            kw = r.pick([1, 2, 4, 8], [15, 45, 30, 10])
        elif which == "amd_mfma":
            kw = r.pick([1, 2, 4, 8, 16, 32], [5, 10, 30, 35, 15, 5])
        elif which == "amd_wmma":
            kw = {1: r.pick([8, 16, 4], [40, 50, 10]), 2: r.pick([4, 8, 16, 2], [30, 35, 30, 5]),
                  3: r.pick([2, 4, 8, 16, 32], [15, 25, 30, 25, 5])}[parent["version"]]
        else:
            kw = 0
        if allow_invalid and r.chance(0.04):
            kw = r.pick([0, 3, 2])
        if allow_invalid and r.chance(0.01):
            op_idx = 2
        return {"kind": "dot_op", "op_idx": op_idx, "parent": parent, "k_width": kw}

    # -- shared layouts -----------------------------------------------------
    def swizzled_shared(self, rank=None, allow_invalid=True):
        r = self
        if rank is None:
            rank = r.pick([1, 2, 3], [10, 70, 20])
        vec = 1 << r.pick([0, 1, 2, 3, 4], [20, 15, 25, 30, 10])
        per_phase = 1 << r.pick([0, 1, 2, 3], [50, 25, 15, 10])
        max_phase = 1 << r.pick([0, 1, 2, 3, 4], [20, 15, 25, 30, 10])
        if allow_invalid and r.chance(0.02):
            vec = 3
        order = r.perm(rank)
        if allow_invalid and r.chance(0.02) and rank >= 2:
            order[-1] = order[0]
        return {"kind": "swizzled_shared", "vec": vec, "per_phase": per_phase,
                "max_phase": max_phase, "order": order, "cga": r.cga(rank, p_none=0.75)}

    def nvmma_shared(self, rank=None, allow_invalid=True):
        r = self
        if rank is None:
            rank = r.pick([2, 3, 1], [78, 17, 5])
        swz = r.pick([0, 32, 64, 128], [15, 20, 25, 40])
        bits = r.pick([8, 16, 32, 64], [28, 40, 27, 5])
        fp4 = False
        if swz == 128 and bits == 8 and r.chance(0.3):
            fp4 = True
        if allow_invalid and r.chance(0.02):
            swz = 16
        if allow_invalid and r.chance(0.02):
            fp4 = True
        return {"kind": "nvmma_shared", "swizzle": swz, "elem_bits": bits, "rank": rank,
                "transposed": r.chance(0.35), "fp4_padded": fp4, "cga": r.cga(rank, p_none=0.75)}

    def shared_linear(self):
        r = self
        rank = r.pick([1, 2, 3], [15, 65, 20])
        e = r.split_bits(r.randint(2, 12), rank)
        if r.chance(0.5):
            e = [max(1, x) for x in e]
        units = []
        for d in range(rank):
            for j in range(e[d]):
                v = [0] * rank
                v[d] = 1 << j
                units.append(v)
        if r.chance(0.5):
            r.r.shuffle(units)
        for _ in range(r.pick([0, 1, 2, 3], [40, 25, 20, 15])):
            if len(units) >= 2:
                i, j = r.r.sample(range(len(units)), 2)
                units[i] = [a ^ b for a, b in zip(units[i], units[j])]
        nb = r.pick([0, 1, 2], [70, 20, 10])
        nb = min(nb, max(0, len(units) - 1))
        block = units[len(units) - nb:] if nb else []
        offset = units[:len(units) - nb]
        if r.chance(0.08):
            offset.insert(r.randint(0, len(offset)), [0] * rank)
        if not offset:
            offset = [[0] * rank]
        return {"kind": "shared_linear", "offset": offset, "block": block,
                "alignment": r.pick([1, 4, 16, 128, 1024], [5, 10, 50, 20, 15])}

    def padded_shared(self):
        r = self
        rank = r.pick([1, 2, 3], [20, 65, 15])
        e = r.split_bits(r.randint(3, 12), rank)
        shape = [1 << x for x in e]
        order = r.perm(rank)
        offset = []
        for d in order:
            for j in range(e[d]):
                v = [0] * rank
                v[d] = 1 << j
                offset.append(v)
        if r.chance(0.3) and len(offset) >= 2:
            i, j = r.r.sample(range(len(offset)), 2)
            offset[i], offset[j] = offset[j], offset[i]
        pairs = sorted({(1 << r.randint(2, 8), 1 << r.randint(0, 3))
                        for _ in range(r.pick([1, 2], [75, 25]))})
        seen, uniq = set(), []
        for i, p in pairs:
            if i not in seen:
                seen.add(i)
                uniq.append([i, p])
        return {"kind": "padded_shared", "pairs": uniq, "offset": offset, "block": [],
                "shape": shape}

    def partitioned_shared(self):
        r = self
        inner_kind = r.pick(["swizzled_shared", "nvmma_shared", "shared_linear", "padded_shared"],
                            [45, 30, 15, 10])
        if inner_kind == "swizzled_shared":
            inner = self.swizzled_shared(rank=r.pick([2, 3], [80, 20]), allow_invalid=False)
            inner["cga"] = []
        elif inner_kind == "nvmma_shared":
            inner = self.nvmma_shared(rank=2, allow_invalid=False)
            inner["cga"] = []
        elif inner_kind == "shared_linear":
            inner = self.shared_linear()
        else:
            inner = self.padded_shared()
        rank = spec_rank(inner)
        return {"kind": "partitioned_shared", "num_partitions": 1 << r.pick([0, 1, 2], [15, 60, 25]),
                "num_groups": 1 << r.pick([0, 1, 2], [50, 35, 15]),
                "partition_dim": r.randrange(rank), "inner": inner}

    def tmem(self):
        r = self
        bm = r.pick([64, 128], [40, 60])
        bn = 1 << r.randint(3, 8)
        bits = r.pick([32, 16, 8], [50, 35, 15])
        cs = 1 if (bits == 32 or r.chance(0.5)) else 32 // bits
        return {"kind": "tmem", "block": [bm, bn], "col_stride": cs, "cga": [],
                "two_ctas": False, "fp4_padded": False, "elem_bits": bits}

    # -- cases ---------------------------------------------------------------
    KINDS = [
        ("blocked", 12), ("slice", 12), ("nvidia_mma", 9), ("dot_op", 20), ("amd_mfma", 9),
        ("amd_wmma", 8), ("linear", 4), ("generic_linear", 2), ("swizzled_shared", 7), ("nvmma_shared", 9),
        ("shared_linear", 3), ("padded_shared", 1), ("partitioned_shared", 2.5),
        ("tmem", 2), ("tmem_scales", 0.6), ("auto", 0.2), ("coalesced", 0.2),
    ]

    def spec(self):
        kind = self.pick([k for k, _ in self.KINDS], [w for _, w in self.KINDS])
        if kind in ("tmem_scales",):
            spec = {"kind": "tmem_scales", "cga": []}
            if self.chance(0.3):
                spec["block_rep_order"] = self.pick(["kThenMn", "mnThenK"], [70, 30])
            return spec
        if kind in ("auto", "coalesced"):
            return {"kind": kind}
        return getattr(self, kind)()

    def tile(self, spec):
        """Rough per-dim extent of one layout tile (for choosing shapes)."""
        k = spec["kind"]
        rank = spec_rank(spec)
        if k == "blocked":
            cs = self.cga_split(spec["cga"], rank)
            return [a * b * c * d for a, b, c, d in zip(spec["spt"], spec["tpw"], spec["wpc"], cs)]
        if k == "slice":
            t = self.tile(spec["parent"])
            return t[:spec["dim"]] + t[spec["dim"] + 1:]
        if k == "dot_op":
            t = list(self.tile(spec["parent"]))
            kd = rank - 1 if spec["op_idx"] == 0 else rank - 2
            t[kd] = max(1, spec["k_width"]) * self.pick([4, 8, 16])
            return t
        if k == "nvidia_mma":
            ins = spec["instr"]
            base = [1] * (rank - 2) + [16, ins[-2] if spec["version"][0] == 3 else 8]
            cs = self.cga_split(spec["cga"], rank)
            return [b * w * c for b, w, c in zip(base, spec["warps"], cs)]
        if k == "amd_mfma":
            base = [1] * (rank - 2) + spec["instr"][:2]
            cs = self.cga_split(spec["cga"], rank)
            return [b * w * t * c for b, w, t, c in zip(base, spec["warps"], spec["tiles"], cs)]
        if k == "amd_wmma":
            t = [1] * (rank - 2) + [16, 16]
            for v in spec["warp_bases"] + spec["reg_bases"]:
                for d in range(rank):
                    if v[d]:
                        t[d] = max(t[d], v[d] * 2 * (16 if d >= rank - 2 else 1))
            cs = self.cga_split(spec["cga"], rank)
            return [a * c for a, c in zip(t, cs)]
        if k in ("linear", "generic_linear"):
            return spec["shape"]
        if k == "swizzled_shared":
            return [max(spec["vec"], 1) * (8 if i == spec["order"][0] else spec["max_phase"] *
                                           spec["per_phase"]) for i in range(rank)]
        if k == "nvmma_shared":
            t = [8] * rank
            inner = max(spec["swizzle"], 16) * 8 // spec["elem_bits"]
            t[rank - 2 if spec["transposed"] and rank >= 2 else rank - 1] = inner
            return t
        if k == "shared_linear":
            mx = [0] * rank
            for v in spec["offset"] + spec["block"]:
                for d in range(rank):
                    mx[d] |= v[d]
            return [1 << m.bit_length() for m in mx]
        if k == "padded_shared":
            return spec["shape"]
        if k == "partitioned_shared":
            t = list(self.tile(spec["inner"]))
            t[spec["partition_dim"]] *= spec["num_partitions"] * spec["num_groups"]
            return t
        if k == "tmem":
            return spec["block"]
        if k == "tmem_scales":
            return [128, 4]
        return [4] * rank

    def shape(self, spec):
        k = spec["kind"]
        tile = self.tile(spec)
        if k in ("linear", "generic_linear", "shared_linear", "padded_shared") and \
                self.chance(0.7):
            return list(tile)
        if k == "partitioned_shared" and spec["inner"]["kind"] in ("shared_linear",
                                                                    "padded_shared"):
            if self.chance(0.7):
                return list(tile)
        if k == "tmem":
            return self._tmem_shape(spec)
        if k == "tmem_scales":
            return [1 << self.pick([5, 6, 7, 7, 8]), 1 << self.pick([0, 1, 2, 2, 3, 4])]
        if k == "nvmma_shared" or (k == "partitioned_shared"
                                   and spec["inner"]["kind"] == "nvmma_shared"):
            # smaller than one swizzle row aborts in Triton; keep that a minority
            return self.shape_for(tile, modes=(35, 25, 5, 30, 5))
        return self.shape_for(tile)

    def _tmem_shape(self, spec):
        m = spec["block"][0] << self.pick([0, 0, 1, 1, 2]) >> self.pick([0, 0, 0, 1])
        n = spec["block"][1] << self.pick([0, 0, 1, 2]) >> self.pick([0, 0, 0, 1])
        while m * n > (1 << 16):
            n //= 2
        return [max(m, 1), max(n, 1)]


def generate(seed):
    """Endless stream of (spec, shape)."""
    g = Gen(seed)
    while True:
        spec = g.spec()
        yield spec, g.shape(spec)


# ===========================================================================
# Worker (runs inside the Triton venv)
# ===========================================================================


class _Unchecked(Exception):
    pass


def _worker_main():
    # C++ diagnostics go to fd 2; the parent hands us a file for it so it can
    # read the messages of verifier errors and of aborts.
    out = sys.stdout
    try:
        from triton._C.libtriton import ir, gluon_ir, nvidia, amd
        import triton
        import triton.experimental.gluon.language as ttgl
        from triton.experimental.gluon.language.amd import AMDMFMALayout, AMDWMMALayout
        from triton.experimental.gluon.language.nvidia.blackwell import (
            TensorMemoryLayout, TensorMemoryScalesLayout)
    except Exception as e:  # pragma: no cover - reported to the parent
        out.write(json.dumps({"error": f"import failed: {e!r}"}) + "\n")
        out.flush()
        return 1
    # Two wrappers that 3.7's Gluon lacks (3.8 has both): without them those
    # kinds are skipped, and the parent counts every skip in its summary.
    missing = []
    try:
        from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout
    except ImportError:
        PartitionedSharedLayout = None
        missing.append("partitioned_shared")
    try:
        from triton.experimental.gluon.language.nvidia.rubin import (
            TensorMemoryScalesLayout as RubinTensorMemoryScalesLayout)
    except ImportError:
        RubinTensorMemoryScalesLayout = None
        missing.append("tmem_scales with block_rep_order")

    # Gluon's SharedLinearLayout wrapper asserts on empty offset bases, which
    # Triton's C++ conversion legitimately returns for one-element shapes.  Let
    # the wrapper hold them so the C++ result can be recorded.
    wrapper_notes = []
    orig_post_init = ttgl.SharedLinearLayout.__post_init__

    def lenient_post_init(self):
        if len(self.offset_bases) == 0:
            wrapper_notes.append("empty offset bases (Gluon's SharedLinearLayout would assert)")
            object.__setattr__(self, "offset_bases", [])
            object.__setattr__(self, "block_bases", [list(v) for v in self.block_bases])
            return
        orig_post_init(self)

    ttgl.SharedLinearLayout.__post_init__ = lenient_post_init

    ctx = ir.context()
    ir.load_dialects(ctx)
    nvidia.load_dialects(ctx)
    amd.load_dialects(ctx)
    try:
        b = gluon_ir.GluonOpBuilder(ctx, "sm100")
    except TypeError:  # 3.7's builder takes no target
        b = gluon_ir.GluonOpBuilder(ctx)
    tmpdir = tempfile.mkdtemp(prefix="enc_oracle_")
    mlir_path = os.path.join(tmpdir, "case.mlir")

    def emit(obj):
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        out.flush()

    def err_pos():
        sys.stderr.flush()
        try:
            return os.lseek(2, 0, os.SEEK_END)
        except OSError:
            return 0

    def err_since(pos):
        try:
            with open("/proc/self/fd/2", "rb") as f:
                f.seek(pos)
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def diag_message(text):
        msgs = re.findall(r"error: (.*)", text)
        return "\n".join(m.strip() for m in msgs) if msgs else text.strip()

    # -- Gluon objects from specs ------------------------------------------
    def gluon(spec):
        k = spec["kind"]
        if k == "blocked":
            return ttgl.BlockedLayout(spec["spt"], spec["tpw"], spec["wpc"], spec["order"],
                                      cga_layout=spec["cga"])
        if k == "slice":
            return ttgl.SliceLayout(spec["dim"], gluon(spec["parent"]))
        if k == "dot_op":
            return ttgl.DotOperandLayout(spec["op_idx"], gluon(spec["parent"]), spec["k_width"])
        if k == "nvidia_mma":
            return ttgl.NVMMADistributedLayout(spec["version"], spec["warps"], spec["instr"],
                                               cga_layout=spec["cga"])
        if k == "amd_mfma":
            return AMDMFMALayout(spec["version"], spec["instr"], spec["transposed"], spec["warps"],
                                 element_bitwidth=spec["elem_bits"], tiles_per_warp=spec["tiles"],
                                 cga_layout=spec["cga"])
        if k == "amd_wmma":
            return AMDWMMALayout(spec["version"], spec["transposed"], spec["warp_bases"],
                                 reg_bases=spec["reg_bases"], instr_shape=spec["instr"],
                                 cga_layout=spec["cga"], rank=spec["rank"])
        if k in ("linear", "generic_linear"):
            return ttgl.DistributedLinearLayout(spec["reg"], spec["lane"], spec["warp"],
                                                spec["block"], spec["shape"])
        if k == "swizzled_shared":
            return ttgl.SwizzledSharedLayout(spec["vec"], spec["per_phase"], spec["max_phase"],
                                             spec["order"], cga_layout=spec["cga"])
        if k == "nvmma_shared":
            return ttgl.NVMMASharedLayout(spec["swizzle"], spec["elem_bits"], rank=spec["rank"],
                                          transposed=spec["transposed"],
                                          fp4_padded=spec["fp4_padded"], cga_layout=spec["cga"])
        if k == "shared_linear":
            return ttgl.SharedLinearLayout(spec["offset"], spec["block"], spec["alignment"])
        if k == "padded_shared":
            return ttgl.PaddedSharedLayout(spec["pairs"], spec["offset"], spec["block"],
                                           spec["shape"])
        if k == "partitioned_shared":
            return PartitionedSharedLayout(spec["num_partitions"], spec["num_groups"],
                                           spec["partition_dim"], gluon(spec["inner"]))
        if k == "tmem":
            return TensorMemoryLayout(tuple(spec["block"]), spec["col_stride"],
                                      cga_layout=spec["cga"], two_ctas=spec["two_ctas"],
                                      fp4_padded=spec["fp4_padded"])
        if k == "tmem_scales":
            if "block_rep_order" in spec:
                return RubinTensorMemoryScalesLayout(cga_layout=spec["cga"],
                                                     block_rep_order=spec["block_rep_order"])
            return TensorMemoryScalesLayout(cga_layout=spec["cga"])
        if k == "auto":
            return ttgl.AutoLayout()
        if k == "coalesced":
            return ttgl.CoalescedLayout()
        raise ValueError(k)

    # Direct builder calls, the same arguments the Gluon classes pass; used
    # when a Gluon-side Python assert refuses a spec the C++ side may accept.
    def raw(spec):
        k = spec["kind"]
        if k == "blocked":
            return b.get_blocked_layout(spec["spt"], spec["tpw"], spec["wpc"], spec["order"],
                                        spec["cga"])
        if k == "slice":
            return b.get_slice_layout(spec["dim"], raw(spec["parent"]))
        if k == "dot_op":
            return b.get_dot_operand_layout(spec["op_idx"], raw(spec["parent"]), spec["k_width"])
        if k == "nvidia_mma":
            return b.get_mma_layout(spec["version"], spec["warps"], spec["cga"], spec["instr"])
        if k == "amd_mfma":
            return b.get_amd_mfma_layout(spec["version"], spec["warps"], spec["instr"],
                                         spec["transposed"], spec["cga"], spec["tiles"],
                                         spec["elem_bits"])
        if k == "amd_wmma":
            return b.get_amd_wmma_layout(spec["version"], spec["transposed"], spec["warp_bases"],
                                         spec["reg_bases"], spec["cga"], spec["instr"],
                                         spec["rank"])
        if k == "swizzled_shared":
            return b.get_swizzled_shared_layout(spec["vec"], spec["per_phase"], spec["max_phase"],
                                                spec["order"], spec["cga"])
        if k == "nvmma_shared":
            return b.get_nvmma_shared_layout(spec["swizzle"], spec["elem_bits"],
                                             spec["transposed"], spec["fp4_padded"], spec["cga"],
                                             spec["rank"])
        if k == "partitioned_shared":
            return b.get_partitioned_shared_layout(spec["num_partitions"], spec["num_groups"],
                                                   spec["partition_dim"], raw(spec["inner"]))
        return gluon(spec)._to_ir(b)

    def elem_type(spec, bits=None):
        if bits is None:
            k = spec["kind"]
            if k == "nvmma_shared":
                bits = spec["elem_bits"]
            elif k == "partitioned_shared" and spec["inner"]["kind"] == "nvmma_shared":
                bits = spec["inner"]["elem_bits"]
            elif k == "tmem":
                bits = spec["elem_bits"]
            elif k == "tmem_scales":
                bits = 8
            else:
                bits = 16
        return {8: b.get_int8_ty, 16: b.get_half_ty, 32: b.get_float_ty,
                64: b.get_double_ty}[bits]()

    def make_type(spec, attr, shape):
        cat = category(spec)
        et = elem_type(spec)
        if cat == "shared":
            return b.get_shared_mem_desc_ty(et, shape, attr, shape)
        if cat == "tmem":
            return b.get_tensor_mem_desc_ty(et, shape, attr, shape)
        return b.get_distributed_ty(et, shape, attr)

    def attr_text_of_type(ty_text):
        i = ty_text.index("#")
        j = i + 1
        while j < len(ty_text) and (ty_text[j].isalnum() or ty_text[j] in "._"):
            j += 1
        if j < len(ty_text) and ty_text[j] == "<":
            depth = 0
            while True:
                c = ty_text[j]
                if c == "<":
                    depth += 1
                elif c == ">":
                    depth -= 1
                    if depth == 0:
                        j += 1
                        break
                j += 1
        return ty_text[i:j]

    def parse_file(text):
        with open(mlir_path, "w") as f:
            f.write(text)
        pos = err_pos()
        try:
            return ir.parse_mlir_module(mlir_path, ctx), None
        except Exception as e:
            msg = diag_message(err_since(pos)) or str(e)
            return None, msg

    def layout_of_arg(spec, module_or_fn_arg):
        if category(spec) == "distributed":
            return b.get_gluon_layout_from_tensor(module_or_fn_arg)
        return b.get_gluon_layout_from_memdesc(module_or_fn_arg)

    def ll_json(spec, res, shape):
        name = type(res).__name__
        if name == "DistributedLinearLayout":
            bases = [["register", res.reg_bases], ["lane", res.lane_bases],
                     ["warp", res.warp_bases], ["block", res.block_bases]]
            dims = res.shape
            extra = {}
        elif name == "SharedLinearLayout":
            bases = [["offset", res.offset_bases], ["block", res.block_bases]]
            dims = None
            extra = {"alignment": res.alignment}
            if wrapper_notes:
                extra["gluon_wrapper"] = wrapper_notes.pop()
        elif name == "_TensorMemoryLinearLayout":
            bases = [["row", res.rows], ["col", res.cols]]
            dims = res.shape
            extra = {}
        else:
            raise TypeError(f"unexpected result type {name}")
        if dims is None:
            # SharedLinearLayout has no explicit shape; Triton's out dims are the
            # requested shape (its `.shape` property re-derives it from bases).
            dims = list(shape)
        bases = [[n, [list(map(int, v)) for v in vs]] for n, vs in bases]
        return {"bases": bases, "out_dims": [[f"dim{i}", int(s)] for i, s in enumerate(dims)]}, extra

    def ll_from_view(obj, shape):
        """Read the layout back from Gluon's hardware view (a table of tensor
        coordinates per block / warp / register / lane).  Used for
        #ttg.generic_linear, which to_linear_layout cannot return (it wraps
        every distributed result in #ttg.linear), and as a cross-check."""
        text = gluon_ir.get_layout_view(obj, [int(x) for x in shape], True)
        blocks = []
        for line in text.splitlines():
            line = line.strip()
            if not line:
                continue
            if re.fullmatch(r"Block\d+:", line):
                blocks.append([])
            elif re.fullmatch(r"Warp\d+:", line):
                if not blocks:
                    blocks.append([])
                blocks[-1].append([])
            else:
                row = [[int(x) for x in t.split(",")]
                       for t in re.findall(r"\(([-\d,\s]+)\)", line)]
                blocks[-1][-1].append(row)

        def bases(n, at):
            assert n & (n - 1) == 0, "in-dim size is not a power of two"
            return [at(1 << i) for i in range(n.bit_length() - 1)]

        nb, nw = len(blocks), len(blocks[0])
        nr, nl = len(blocks[0][0]), len(blocks[0][0][0])
        ll = {"bases": [["register", bases(nr, lambda i: blocks[0][0][i][0])],
                        ["lane", bases(nl, lambda i: blocks[0][0][0][i])],
                        ["warp", bases(nw, lambda i: blocks[0][i][0][0])],
                        ["block", bases(nb, lambda i: blocks[i][0][0][0])]],
              "out_dims": [[f"dim{i}", int(s)] for i, s in enumerate(shape)]}
        return ll

    emit({"hello": triton.__version__, "missing": missing})
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        spec, shape, text0 = req["spec"], req["shape"], req["text"]
        res = {"id": req["id"]}

        # 1. Does Triton's parser (with the attribute verifiers) accept the text?
        emit({"stage": "parse"})
        mod, perr = parse_file(f"#a = {text0}\nmodule {{\n}}\n")
        if perr is not None:
            res.update(outcome="exception", stage="parse", message=perr, attr=text0)
            emit({"done": res})
            continue
        del mod

        # 2. Build it the Gluon way (Python class -> builder), falling back to
        #    the builder call if a Gluon-side Python assert refuses it.
        emit({"stage": "build"})
        attr = obj = None
        try:
            obj = gluon(spec)
            attr = obj._to_ir(b)
        except AssertionError as e:
            res["gluon_assert"] = str(e) or "AssertionError"
        except Exception as e:
            res["build_error"] = f"{type(e).__name__}: {e}".strip()
        if attr is None:
            try:
                attr = raw(spec)
            except Exception as e:
                res.update(outcome="exception", stage="build", message=str(e).strip(),
                           attr=text0)
                emit({"done": res})
                continue

        # 3. Print it (through a tensor / memdesc type).
        printed = None
        ty = None
        if not req.get("skip_type"):
            emit({"stage": "type"})
            pos = err_pos()
            try:
                ty = make_type(spec, attr, shape)
                printed = attr_text_of_type(str(ty))
            except Exception as e:
                res["type_error"] = (str(e).strip() or diag_message(err_since(pos)))[:400]
        explicit = spec_explicit(spec)
        res["attr"] = text0 if (explicit or printed is None) else printed
        res["printed"] = printed is not None
        if printed is not None and printed != text0:
            if explicit:
                res["triton_prints"] = printed
            else:
                res["format_mismatch"] = text0
        emit({"stage": "attr", "attr": res["attr"], "type_error": res.get("type_error")})

        # 4. Convert.
        if spec["kind"] == "generic_linear":
            emit({"stage": "convert"})
            try:
                if obj is None:
                    raise RuntimeError("no Gluon layout object to view")
                res["ll"] = ll_from_view(obj, shape)
                res["outcome"] = "ok"
                res["via"] = "layout_view"
            except Exception as e:
                res.update(outcome="exception", stage="convert",
                           message=f"{str(e).strip()}" or type(e).__name__)
        else:
            emit({"stage": "convert"})
            try:
                wrapper_notes.clear()
                ll = b.to_linear_layout(attr, shape)
                res["outcome"] = "ok"
                res["ll"], extra = ll_json(spec, ll, shape)
                res.update(extra)
            except Exception as e:
                res.update(outcome="exception", stage="convert",
                           message=f"{str(e).strip()}" or type(e).__name__)
            # cross-check against the hardware view (distributed layouts)
            if (res.get("outcome") == "ok" and category(spec) == "distributed"
                    and "gluon_assert" not in res and "build_error" not in res
                    and req.get("view_check") and not req.get("skip_view")):
                emit({"stage": "view"})
                try:
                    view = ll_from_view(obj, shape)
                    if view != res["ll"]:
                        res["view_mismatch"] = view
                except Exception as e:
                    res["view_mismatch"] = f"{type(e).__name__}: {e}"

        # 5. Round trip: the printed type text parses back to the same layout.
        if ty is not None and not req.get("skip_roundtrip"):
            emit({"stage": "roundtrip"})
            try:
                m1 = b.create_module()
                fn = b.get_or_insert_function(m1, "f", b.get_function_ty([ty], []), "public",
                                              False)
                fn.add_entry_block()
                try:
                    mine = repr(layout_of_arg(spec, fn.args(0)))
                except AssertionError as e:
                    # Gluon's Python wrapper refuses what C++ accepted (see
                    # gluon_assert); the layouts cannot be compared this way.
                    raise _Unchecked(str(e))
                ty_text = str(ty)
                if printed is not None and res["attr"] != printed:
                    ty_text = ty_text.replace(printed, res["attr"], 1)
                mod, perr = parse_file("module {\n  tt.func @f(%a: " + ty_text +
                                       ") {\n    tt.return\n  }\n}\n")
                if perr is not None:
                    res["roundtrip"] = "parse error: " + perr
                else:
                    parsed = layout_of_arg(spec, mod.get_function("f").args(0))
                    theirs = repr(parsed)
                    if theirs == mine:
                        res["roundtrip"] = "ok"
                    else:
                        # The text denotes a (slightly) different attribute than
                        # the one built.  Convert that one too: the request is
                        # the text, so its conversion is what counts.
                        emit({"stage": "roundtrip-convert"})
                        try:
                            ll2, _ = ll_json(spec, b.to_linear_layout(parsed._to_ir(b), shape),
                                             shape)
                            same = res.get("outcome") == "ok" and ll2 == res.get("ll")
                        except Exception:
                            same = res.get("outcome") == "exception"
                        res["roundtrip"] = ("equivalent" if same else "differs") + \
                            f": built {mine} / parsed {theirs}"
            except _Unchecked as e:
                res["roundtrip"] = f"unchecked: {e}"
            except Exception as e:
                res["roundtrip"] = f"error: {type(e).__name__}: {e}"
        emit({"done": res})
    return 0


# ===========================================================================
# Parent side: worker management
# ===========================================================================

ABORT_HINTS = ("LLVM ERROR", "Assertion", "terminate called", "what()", "UNREACHABLE",
               "Fatal Python error", "Segmentation fault")


class Worker(children.Worker):
    """A worker (`encodings_oracle.py _worker`) in the Triton venv's python."""

    TIMEOUT = 120.0

    def __init__(self):
        super().__init__([sys.executable, os.path.abspath(__file__), "_worker"])
        self.version = None

    def readline(self, timeout=None):
        try:
            return self.receive(timeout or self.TIMEOUT)
        except children.WorkerTimeout:
            return "timeout"

    def start(self):
        hello = self.readline(timeout=300)
        if not isinstance(hello, dict) or "hello" not in hello:
            raise OracleError("Triton worker did not start: "
                              f"{(hello or {}) if isinstance(hello, dict) else hello} "
                              f"{self.stderr_tail()}")
        self.version = hello["hello"]
        self.missing = set(hello.get("missing", []))

    def death_message(self, pos):
        self.wait(timeout=30)
        lines = [l.strip() for l in self.stderr_since(pos).splitlines() if l.strip()]
        lines = [l for l in lines if "nanobind" not in l and not l.startswith("- ")]
        # MLIR diagnostics emitted just before the abort (parser errors)
        diags = [re.sub(r"^loc\(.*?\):\s*", "", l) for l in lines if "error: " in l]
        diags = [d[d.index("error: "):] for d in diags]
        pick = [l for l in lines if any(h in l for h in ABORT_HINTS)]
        parts = []
        if diags:
            parts.append(diags[0])
        if pick:
            msg = re.sub(r"^python: ", "", pick[0])
            # an LLVM ERROR is often followed by detail lines; keep a few
            if msg.startswith("LLVM ERROR"):
                i = lines.index(pick[0])
                tail = [l for l in lines[i + 1:i + 4] if not l.startswith("Stack dump")
                        and not l.startswith("#") and not l.startswith("0.")]
                msg = "\n".join([msg] + tail)
            parts.append(msg)
        elif not diags and lines:
            parts.append(lines[-1])
        if not parts:
            parts.append(f"worker died (exit status {self.proc.returncode})")
        return "\n".join(parts)[:600]


class Triton:
    def __init__(self, view_check=False):
        self.view_check = view_check
        self.workers = children.WithSpare(Worker, Worker.start)
        self.version = self.workers.current.version
        self.missing = self.workers.current.missing

    @property
    def restarts(self):
        return self.workers.restarts

    def _replace(self, kill=False):
        self.workers.replace(kill)

    def run(self, spec, shape, cid, skip_type=False, skip_roundtrip=False, skip_view=False):
        """Returns the worker's result dict, or a synthesized one on death."""
        w = self.workers.current
        pos = w.err_pos()
        req = {"id": cid, "spec": spec, "shape": shape, "text": fmt(spec),
               "skip_type": skip_type, "skip_roundtrip": skip_roundtrip, "skip_view": skip_view,
               "view_check": self.view_check}
        stage, attr, type_error = None, req["text"], None
        if not w.send(req):
            msg = w.death_message(pos)
            self._replace()
            raise OracleError(f"Triton worker is gone before case {cid}: {msg}")
        while True:
            msg = w.readline()
            if msg == "timeout":
                self._replace(kill=True)
                return {"outcome": "timeout", "stage": stage, "attr": attr}
            if msg is None:
                text = w.death_message(pos)
                self._replace()
                if stage == "type":
                    # an abort while making the tensor/memdesc type (to print the
                    # attribute): redo without that step
                    return self.run(spec, shape, cid, skip_type=True, skip_roundtrip=True,
                                    skip_view=skip_view) | {"type_abort": text}
                if stage == "view":
                    return self.run(spec, shape, cid, skip_type=skip_type,
                                    skip_roundtrip=skip_roundtrip, skip_view=True)
                if stage in ("roundtrip", "roundtrip-convert"):
                    return {"outcome": "skip", "stage": stage, "attr": attr,
                            "message": f"abort while re-parsing the printed text: {text}"}
                return {"outcome": "abort", "stage": stage, "message": text, "attr": attr,
                        "type_error": type_error}
            if "stage" in msg:
                stage = msg["stage"]
                if "attr" in msg:
                    attr = msg["attr"]
                    type_error = msg.get("type_error")
                continue
            if "done" in msg:
                return msg["done"]
            raise OracleError(f"unexpected worker message {msg!r}")

    def close(self):
        self.workers.close()
        CRATE.close()


# ===========================================================================
# Cases
# ===========================================================================


def make_case(spec, shape, res):
    req = {"attr": res["attr"], "shape": list(shape), "triton": TRITON_TAG}
    if res["outcome"] == "ok":
        expect = {"ok": res["ll"]}
    else:
        expect = {"error": {"triton": "abort" if res["outcome"] == "abort" else "exception",
                            "message": res.get("message", "")}}
    case = {"kind": kind_label(spec), "request": req, "expect": expect}
    info = {}
    if res["outcome"] != "ok":
        info["stage"] = res.get("stage")
    for k in ("alignment", "type_error", "gluon_assert", "build_error", "type_abort",
              "gluon_wrapper", "triton_prints", "via"):
        if res.get(k):
            info[k] = res[k]
    if info:
        case["info"] = info
    return case


class Stats:
    def __init__(self):
        self.skipped = collections.Counter()
        self.anomalies = collections.Counter()
        self.examples = collections.defaultdict(list)

    def note(self, what, example):
        self.anomalies[what] += 1
        if len(self.examples[what]) < 3:
            self.examples[what].append(example)


def missing_wrapper(spec):
    """The worker's name for the optional Gluon wrapper `spec` needs, if any."""
    if spec["kind"] == "partitioned_shared":
        return "partitioned_shared"
    if spec["kind"] == "tmem_scales" and "block_rep_order" in spec:
        return "tmem_scales with block_rep_order"
    return None


def evaluate_batch(seed, count, progress=True, view_check=False):
    t = Triton(view_check)
    stats = Stats()
    cases = []
    attempts = 0
    try:
        for spec, shape in generate(seed):
            if len(cases) >= count:
                break
            attempts += 1
            if attempts > 3 * count + 100:
                raise OracleError(f"too many skipped cases ({attempts} attempts "
                                  f"for {len(cases)} cases)")
            label = kind_label(spec)
            absent = missing_wrapper(spec)
            if absent in t.missing:
                stats.skipped[f"{label}: no {absent} wrapper in Triton {t.version}'s Gluon"] += 1
                continue
            res = t.run(spec, shape, attempts)
            if res["outcome"] == "timeout":
                stats.skipped[f"{label}: timeout"] += 1
                continue
            if res["outcome"] == "skip":
                stats.note("skip", f"{label} {res.get('attr')}: {res.get('message')}")
                stats.skipped[f"{label}: {res['stage']} abort"] += 1
                continue
            rt = res.get("roundtrip")
            if rt is not None and rt != "ok":
                if rt.startswith("unchecked"):
                    stats.note("roundtrip-unchecked (Gluon wrapper assert)",
                               f"{label} {res.get('attr')}: {rt}")
                elif rt.startswith("equivalent"):
                    # printed text parses to a different attribute with the same
                    # conversion: keep the case
                    stats.note("roundtrip-equivalent", f"{label} {res.get('attr')}: {rt}")
                else:
                    # the printed text does not denote the layout we converted
                    stats.note("roundtrip", f"{label} {res.get('attr')}: {rt}")
                    stats.skipped[f"{label}: text does not round-trip"] += 1
                    continue
            if spec["kind"] == "partitioned_shared" and res["outcome"] == "ok":
                # Triton's layout has in-dims offset, partition (, block); the
                # Gluon binding only reads "offset" and "block", so the answer
                # we can see is incomplete.  Only failures are recordable.
                stats.skipped[f"{label}: ok but 'partition' in-dim not observable"] += 1
                continue
            if res.get("view_mismatch"):
                stats.note("view_mismatch", f"{label} {res.get('attr')} {shape}: "
                           f"to_linear_layout {json.dumps(res.get('ll'))} / view "
                           f"{json.dumps(res['view_mismatch'])}")
            if res.get("format_mismatch"):
                stats.note("format_mismatch",
                           f"ours {res['format_mismatch']} / triton {res['attr']}")
            if res.get("outcome") == "exception" and res.get("stage") == "build":
                stats.note("parse_ok_build_failed", f"{res.get('attr')}: {res.get('message')}")
            case = make_case(spec, shape, res)
            cases.append(case)
            if progress and len(cases) % 500 == 0:
                print(f"  ... {len(cases)}/{count} ({t.restarts} worker restarts)",
                      file=sys.stderr)
    finally:
        t.close()
    return cases, t.version, stats, t.restarts


def outcome_of(expect):
    return "ok" if "ok" in expect else expect["error"]["triton"]


def print_summary(title, cases, stats=None, out=sys.stderr):
    per = collections.defaultdict(collections.Counter)
    for c in cases:
        per[c.get("kind", "?")][outcome_of(c["expect"])] += 1
    cols = ["ok", "exception", "abort"]
    print(f"{title}: {len(cases)} cases", file=out)
    print(f"  {'kind':<44}" + "".join(f"{c:>10}" for c in cols) + f"{'total':>8}", file=out)
    tot = collections.Counter()
    for k in sorted(per):
        tot.update(per[k])
        print(f"  {k:<44}" + "".join(f"{per[k][c]:>10}" for c in cols)
              + f"{sum(per[k].values()):>8}", file=out)
    print(f"  {'(all)':<44}" + "".join(f"{tot[c]:>10}" for c in cols)
          + f"{sum(tot.values()):>8}", file=out)
    if stats is not None:
        if stats.skipped:
            print(f"  skipped (not recorded): {dict(sorted(stats.skipped.items()))}", file=out)
        for what, n in sorted(stats.anomalies.items()):
            print(f"  note: {n} x {what}, e.g.", file=out)
            for ex in stats.examples[what]:
                print(f"      {ex[:400]}", file=out)


# ===========================================================================
# Comparison with our binary
# ===========================================================================


def json_equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def run_binary(binary, requests, timeout=1800):
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise OracleError(f"binary not found or not executable: {binary}")
    payload = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in requests)
    p = children.run([binary, "convert", "--batch"], input=payload, timeout=timeout)
    if p.timed_out:
        raise OracleError(f"{binary} convert --batch timed out after {timeout}s")
    lines = [l for l in p.stdout.split("\n") if l.strip()]
    if p.returncode != 0:
        tail = " | ".join(p.stderr.strip().splitlines()[-5:])
        raise OracleError(f"{binary} convert --batch exited with status {p.returncode} after "
                          f"{len(lines)} answers: {tail}")
    if len(lines) != len(requests):
        raise OracleError(f"{binary} convert --batch gave {len(lines)} answers for "
                          f"{len(requests)} requests")
    answers = []
    for l in lines:
        try:
            answers.append(json.loads(l))
        except json.JSONDecodeError:
            answers.append({"unparsable": l[:200]})
    return answers


# Kinds outside linear-layout's scope (Blackwell tensor memory): our answer
# must be an error saying there is no recipe; counted apart, never as agreement.
OUT_OF_SCOPE = {"tmem", "tmem_scales"}


def judge(expect, ours, allow_none, kind=None):
    """'pass', 'fail', 'skip' or 'out-of-scope'."""
    if not isinstance(ours, dict) or len(ours) != 1:
        return "fail"
    if kind in OUT_OF_SCOPE:
        return "out-of-scope" if "error" in ours else "fail"
    (key, val), = ours.items()
    if key == "none":
        return "skip" if allow_none else "fail"
    if "ok" in expect:
        return "pass" if key == "ok" and json_equal(expect["ok"], val) else "fail"
    return "pass" if key == "error" else "fail"


def describe_diff(expect, ours):
    if "ok" in expect and isinstance(ours, dict) and "ok" in ours:
        e, o = expect["ok"], ours["ok"]
        if not isinstance(o, dict):
            return "answer is not a layout object"
        if e.get("out_dims") != o.get("out_dims"):
            return f"out_dims differ: triton {e.get('out_dims')} ours {o.get('out_dims')}"
        en = [n for n, _ in e["bases"]]
        on = [n for n, _ in o.get("bases", [])] if isinstance(o.get("bases"), list) else None
        if en != on:
            return f"in-dim names/order differ: triton {en} ours {on}"
        for (n, eb), (_, ob) in zip(e["bases"], o["bases"]):
            if eb != ob:
                return f"bases of {n!r} differ: triton {eb} ours {ob}"
        return "differs (key set?)"
    return ""


def compare(cases, binary, allow_none=False, max_report=60):
    answers = run_binary(binary, [c["request"] for c in cases])
    passed = failed = skipped = 0
    fail_kinds = collections.Counter()
    skip_kinds = collections.Counter()
    out_of_scope = collections.Counter()
    for c, ours in zip(cases, answers):
        v = judge(c["expect"], ours, allow_none, c.get("kind"))
        if v == "pass":
            passed += 1
            continue
        if v == "out-of-scope":
            out_of_scope[c.get("kind", "?")] += 1
            continue
        if v == "skip":
            skipped += 1
            skip_kinds[c.get("kind", "?")] += 1
            continue
        failed += 1
        fail_kinds[c.get("kind", "?")] += 1
        if failed <= max_report:
            print(f"DISAGREEMENT [{c.get('kind', '?')}]" + (f" {c['name']}" if c.get("name") else ""),
                  file=sys.stderr)
            print("  request: " + json.dumps(c["request"], separators=(",", ":")), file=sys.stderr)
            print("  triton:  " + json.dumps(c["expect"], separators=(",", ":")), file=sys.stderr)
            print("  ours:    " + json.dumps(ours, separators=(",", ":"))[:2000], file=sys.stderr)
            d = describe_diff(c["expect"], ours)
            if d:
                print("  diff:    " + d, file=sys.stderr)
    if failed > max_report:
        print(f"({failed - max_report} more disagreements not shown)", file=sys.stderr)
    if fail_kinds:
        print(f"failures per kind: {dict(sorted(fail_kinds.items()))}", file=sys.stderr)
    if out_of_scope:
        print(f"out of scope (answered with an error, not counted): {dict(sorted(out_of_scope.items()))}",
              file=sys.stderr)
    if skipped:
        print(f"skipped ({{'none'}} answers, --allow-none): {skipped}: "
              f"{dict(sorted(skip_kinds.items()))}", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return passed, failed


def load_cases(path):
    try:
        header, cases = data_header.read_jsonl(path)
    except (OSError, ValueError, data_header.DataError) as e:
        raise OracleError(f"cannot read {path}: {e}")
    if header["kind"] not in CONVERSION_KINDS:
        raise OracleError(f"{path}: a {header['kind']} file, not recorded conversions")
    for c in cases:
        try:
            c["request"]["attr"], c["request"]["shape"], c["expect"]
        except Exception as e:
            raise OracleError(f"{path}: bad case {c.get('name')} ({e!r})")
    if not cases:
        raise OracleError(f"{path}: no cases")
    return cases


# ===========================================================================
# Commands
# ===========================================================================


def cmd_record(args):
    t0 = time.monotonic()
    cases, version, stats, restarts = evaluate_batch(args.seed, args.count,
                                                     view_check=not args.no_view_check)
    what = data_header.existing_what(args.out, "conversions", version, len(cases)) or (
        f"{len(cases)} random layout attributes converted by Gluon's to_linear_layout in the triton {version} wheel "
        f"(a layout, or Triton's abort or exception) (`{data_header.command()}`).")
    data_header.write_jsonl(args.out, {"what": what, "release": version, "kind": "conversions"}, cases,
                            compact=True)
    print_summary(f"recorded with triton {version} (seed {args.seed}) -> {args.out}", cases,
                  stats)
    print(f"{os.path.getsize(args.out)} bytes, {restarts} worker restarts, "
          f"{time.monotonic() - t0:.1f}s", file=sys.stderr)
    if len(cases) != args.count:
        raise OracleError(f"only {len(cases)} of {args.count} cases were made")
    return 0


def cmd_check(args):
    t0 = time.monotonic()
    cases, version, stats, restarts = evaluate_batch(args.seed, args.count, progress=False)
    print_summary(f"triton {version}, seed {args.seed}", cases, stats)
    if len(cases) != args.count:
        raise OracleError(f"only {len(cases)} of {args.count} cases were made")
    t1 = time.monotonic()
    passed, failed = compare(cases, args.binary, args.allow_none)
    print(f"triton {t1 - t0:.1f}s ({restarts} worker restarts), binary "
          f"{time.monotonic() - t1:.1f}s", file=sys.stderr)
    return 1 if failed or passed == 0 else 0


def cmd_replay(args):
    cases = load_cases(args.infile)
    print_summary(f"replaying {args.infile}", cases)
    passed, failed = compare(cases, args.binary, args.allow_none)
    return 1 if failed or passed == 0 else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="record Triton's conversions of random layouts")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--count", type=int, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--no-view-check", action="store_true",
                   help="skip cross-checking distributed results against Gluon's "
                        "hardware layout view")
    for name, hlp in (("check", "fresh cases: Triton vs BINARY convert --batch"),
                      ("replay", "recorded cases vs BINARY convert --batch")):
        p = sub.add_parser(name, help=hlp)
        if name == "check":
            p.add_argument("--seed", type=int, required=True)
            p.add_argument("--count", type=int, required=True)
        else:
            p.add_argument("--in", dest="infile", required=True)
        p.add_argument("--binary", required=True)
        p.add_argument("--allow-none", action="store_true",
                       help="count {\"none\": ...} answers as skipped instead of failed "
                            "(the run still fails if nothing passed)")
    sub.add_parser("_worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.cmd == "_worker":
        return _worker_main()
    try:
        return {"record": cmd_record, "check": cmd_check, "replay": cmd_replay}[args.cmd](args)
    except OracleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2 if args.cmd == "record" else 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
