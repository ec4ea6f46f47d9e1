#!/usr/bin/env python3
"""Differential oracle: Triton's LinearLayout (Python binding) vs our `eval` binary.

Subcommands:
  record --seed S --count N --out FILE     write N cases answered by Triton
  check  --seed S --count N --binary PATH  fresh cases, Triton vs PATH eval
  replay --in FILE --binary PATH           recorded cases vs PATH eval
  worker                                   internal: the Triton-side evaluator

Run it with the python of the venv made by tests/oracle/venv.sh.  See
tests/oracle/README.md for the request protocol.  Recorded files have a
header line and named cases (tests/oracle/data_header.py, kind
"algebra-requests").
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data_header  # noqa: E402  (the data files' header and record names)
from harness import child as children  # noqa: E402

# ---------------------------------------------------------------------------
# Small GF(2) helpers over our JSON layout form
#   {"bases": [[in_name, [[c0, c1, ...], ...]], ...],
#    "out_dims": [[out_name, size], ...]}
# A vector of components is packed into one int: the components of the out
# dims, first out dim in the lowest bits.
# ---------------------------------------------------------------------------


def log2(n: int) -> int:
    assert n >= 1 and n & (n - 1) == 0, n
    return n.bit_length() - 1


def is_pow2(n) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1 and n & (n - 1) == 0


def out_widths(out_dims):
    return [log2(size) for _, size in out_dims]


def pack(widths, comps) -> int:
    x, shift = 0, 0
    for w, c in zip(widths, comps):
        x |= c << shift
        shift += w
    return x


def unpack(widths, x: int):
    comps = []
    for w in widths:
        comps.append(x & ((1 << w) - 1))
        x >>= w
    return comps


def make_layout(in_spec, out_dims, vectors):
    """in_spec: [(name, nbits)], out_dims: [(name, size)], vectors: packed ints
    (sum of nbits of them), handed out to the in dims in order."""
    widths = out_widths(out_dims)
    assert len(vectors) == sum(n for _, n in in_spec)
    bases, i = [], 0
    for name, nbits in in_spec:
        bases.append([name, [unpack(widths, v) for v in vectors[i:i + nbits]]])
        i += nbits
    return {"bases": bases, "out_dims": [[n, s] for n, s in out_dims]}


def in_bits(lay) -> int:
    return sum(len(b) for _, b in lay["bases"])


def out_bits(lay) -> int:
    return sum(log2(s) for _, s in lay["out_dims"])


def packed_bases(lay):
    widths = out_widths(lay["out_dims"])
    return [pack(widths, v) for _, bs in lay["bases"] for v in bs]


def apply_layout(lay, inputs: dict) -> dict:
    """inputs: in_name -> int (< 2**nbits); returns out_name -> int."""
    widths = out_widths(lay["out_dims"])
    acc = 0
    for name, bs in lay["bases"]:
        x = inputs.get(name, 0)
        for j, v in enumerate(bs):
            if x >> j & 1:
                acc ^= pack(widths, v)
    return {n: c for (n, _), c in zip(lay["out_dims"], unpack(widths, acc))}


def rank(vectors) -> int:
    pivots = {}
    r = 0
    for v in vectors:
        while v:
            top = v.bit_length() - 1
            if top in pivots:
                v ^= pivots[top]
            else:
                pivots[top] = v
                r += 1
                break
    return r


def valid_layout(lay) -> bool:
    try:
        names = [n for n, _ in lay["out_dims"]]
        if len(set(names)) != len(names):
            return False
        if len(set(n for n, _ in lay["bases"])) != len(lay["bases"]):
            return False
        for _, s in lay["out_dims"]:
            if not is_pow2(s):
                return False
        for _, bs in lay["bases"]:
            for v in bs:
                if len(v) != len(lay["out_dims"]):
                    return False
                for c, (_, s) in zip(v, lay["out_dims"]):
                    if not (isinstance(c, int) and 0 <= c < s):
                        return False
        return True
    except Exception:
        return False


# ---------------------------------------------------------------------------
# Random request generation (deterministic given the seed)
# ---------------------------------------------------------------------------

IN_POOL = ["register", "lane", "warp", "block", "offset", "in1", "in2"]
OUT_POOL = ["dim0", "dim1", "dim2", "dim3", "row", "col", "offset"]

MAX_BITS = 16


class Gen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    # -- shapes -----------------------------------------------------------

    def names(self, pool, lo, hi, exclude=()):
        cands = [n for n in pool if n not in exclude]
        k = self.rng.randint(lo, min(hi, len(cands)))
        return self.rng.sample(cands, k)

    def split_bits(self, names, total):
        """Randomly distribute `total` bits over `names` (some may get none)."""
        if not names:
            return []
        counts = [0] * len(names)
        for _ in range(total):
            counts[self.rng.randrange(len(names))] += 1
        return list(zip(names, counts))

    def in_spec(self, total, lo=1, hi=3, names=None):
        if names is None:
            names = self.names(IN_POOL, lo, hi)
        if not names:
            return []
        return self.split_bits(names, total)

    def out_spec(self, total, lo=1, hi=3, names=None):
        if names is None:
            names = self.names(OUT_POOL, lo, hi)
        if not names:
            return []
        return [(n, 1 << b) for n, b in self.split_bits(names, total)]

    def small(self, hi=MAX_BITS):
        """A bit count, mostly small."""
        r = self.rng.random()
        if r < 0.15:
            return self.rng.randint(0, 2)
        if r < 0.85:
            return self.rng.randint(2, min(7, hi))
        return self.rng.randint(min(7, hi), hi)

    # -- vector families on n packed bits ----------------------------------

    def rand_vec(self, n):
        return self.rng.getrandbits(n) if n else 0

    def unit_or_zero(self, n, p_zero=0.2):
        if n == 0 or self.rng.random() < p_zero:
            return 0
        return 1 << self.rng.randrange(n)

    def invertible(self, n):
        vs = [1 << i for i in range(n)]
        self.rng.shuffle(vs)
        if n >= 2 and self.rng.random() < 0.6:
            for _ in range(self.rng.randint(1, 2 * n)):
                i, j = self.rng.sample(range(n), 2)
                vs[i] ^= vs[j]
        return vs

    def surjective(self, n, k):
        """k >= n vectors spanning n bits, with zeros / duplicates / sums."""
        vs = self.invertible(n)
        while len(vs) < k:
            r = self.rng.random()
            if r < 0.35 or not vs:
                extra = 0
            elif r < 0.7:
                extra = self.rng.choice(vs)
            else:
                extra = self.rng.choice(vs) ^ self.rng.choice(vs)
            vs.insert(self.rng.randint(0, len(vs)), extra)
        return vs

    def injective(self, n, k):
        """k <= n independent vectors in n bits."""
        assert k <= n
        while True:
            if self.rng.random() < 0.5:
                vs = self.rng.sample([1 << i for i in range(n)], k)
            else:
                vs = [self.rand_vec(n) for _ in range(k)]
            if rank(vs) == k:
                return vs

    def vectors(self, n, k, kind=None):
        kinds = ["random", "sparse", "identity", "invertible", "surjective",
                 "injective", "lowrank"]
        kind = kind or self.rng.choice(kinds)
        if kind == "random":
            return [self.rand_vec(n) for _ in range(k)]
        if kind == "sparse":
            return [self.unit_or_zero(n) for _ in range(k)]
        if kind == "identity":
            # like a product of identities: bits in order, then broadcasts
            vs = [1 << i for i in range(min(n, k))] + [0] * max(0, k - n)
            return vs
        if kind == "invertible" and n == k:
            return self.invertible(n)
        if kind in ("invertible", "surjective") and k >= n:
            return self.surjective(n, k)
        if kind in ("invertible", "surjective", "injective") and k <= n:
            return self.injective(n, k)
        # low rank: vectors from a random small subspace
        r = self.rng.randint(0, max(0, min(n, k) - 1))
        span = self.injective(n, r) if r else []
        out = []
        for _ in range(k):
            v = 0
            for s in span:
                if self.rng.random() < 0.5:
                    v ^= s
            out.append(v)
        return out

    # -- layouts ----------------------------------------------------------

    def layout(self, in_total=None, out_total=None, kind=None, in_names=None,
               out_names=None, lo=0, hi=3):
        if self.rng.random() < 0.03 and in_names is None and out_names is None:
            return {"bases": [], "out_dims": []}
        if out_total is None:
            out_total = self.small()
        if in_total is None:
            r = self.rng.random()
            if r < 0.4:
                in_total = out_total
            else:
                in_total = self.small()
        ins = self.in_spec(in_total, lo=max(lo, 1 if in_total else 0), hi=hi,
                           names=in_names)
        outs = self.out_spec(out_total, lo=max(lo, 1 if out_total else 0), hi=hi,
                             names=out_names)
        if not ins:
            in_total = 0
        if not outs:
            out_total = 0
        n = out_total
        k = in_total
        vs = self.vectors(n, k, kind)
        lay = make_layout(ins, outs, vs)
        assert valid_layout(lay), lay
        return lay

    def any_layout(self):
        r = self.rng.random()
        if r < 0.25:
            n = self.small(10)
            return self.layout(n, n, kind=self.rng.choice(["identity", "invertible"]))
        if r < 0.45:
            n = self.small(10)
            return self.layout(n + self.rng.randint(0, 4), n, kind="surjective")
        if r < 0.6:
            n = self.small(12)
            return self.layout(self.rng.randint(0, n), n,
                               kind=self.rng.choice(["injective", "lowrank", "sparse"]))
        return self.layout()

    # -- requests ---------------------------------------------------------

    def req_from_bases(self):
        rng = self.rng
        mode = rng.random()
        if mode < 0.35:
            # surjective, sizes inferred (or explicit exact)
            n = self.small(12)
            lay = self.layout(n + rng.randint(0, 3), n, kind="surjective")
            req = {"op": "from_bases", "bases": lay["bases"],
                   "out_dim_names": [d for d, _ in lay["out_dims"]]}
            if rng.random() < 0.4:
                req["out_dim_sizes"] = [s for _, s in lay["out_dims"]]
            if rng.random() < 0.3:
                req["require_surjective"] = True
            return req
        if mode < 0.7:
            lay = self.any_layout()
            req = {"op": "from_bases", "bases": lay["bases"],
                   "out_dim_names": [d for d, _ in lay["out_dims"]],
                   "out_dim_sizes": [s for _, s in lay["out_dims"]]}
            req["require_surjective"] = rng.random() < 0.4
            if rng.random() < 0.15:
                del req["out_dim_sizes"]  # inferred sizes on maybe non-surjective
            return req
        # invalid-ish variants
        lay = self.layout(out_total=self.small(8))
        while not lay["out_dims"] or not in_bits(lay):
            lay = self.layout(out_total=rng.randint(1, 8), in_total=rng.randint(1, 8))
        bases = json.loads(json.dumps(lay["bases"]))
        names = [d for d, _ in lay["out_dims"]]
        sizes = [s for _, s in lay["out_dims"]]
        req = {"op": "from_bases", "bases": bases, "out_dim_names": names,
               "out_dim_sizes": sizes, "require_surjective": rng.random() < 0.5}
        flavour = rng.choice(["too_big", "non_pow2", "wrong_len", "negative",
                              "zero_size", "sizes_len", "non_surj_required"])
        vecs = [v for _, bs in bases for v in bs]
        v = rng.choice(vecs)
        j = rng.randrange(len(v))
        if flavour == "too_big":
            v[j] = sizes[j] + rng.choice([0, 1, sizes[j]])
        elif flavour == "non_pow2":
            sizes[j] = rng.choice([3, 5, 6, 12, 24]) if sizes[j] < 3 else sizes[j] + rng.choice([1, sizes[j] // 2 or 1])
            if is_pow2(sizes[j]):
                sizes[j] += 1
        elif flavour == "wrong_len":
            if rng.random() < 0.5 or len(v) == 1:
                v.append(0)
            else:
                v.pop()
        elif flavour == "negative":
            v[j] = -rng.choice([1, 2, 4])
        elif flavour == "zero_size":
            sizes[j] = 0
            for w in vecs:
                w[j] = 0
        elif flavour == "sizes_len":
            if rng.random() < 0.5:
                sizes.append(2)
            else:
                sizes.pop()
        else:
            # make it non-surjective: scale up an out size without new bases
            sizes[j] *= 2
            req["require_surjective"] = True
        return req

    def one_d_size(self):
        r = self.rng.random()
        if r < 0.07:
            return 0
        if r < 0.15:
            return self.rng.choice([3, 5, 6, 12, 24, 48])
        return 1 << self.rng.randint(0, 10)

    def dim_pair(self):
        a = self.rng.choice(IN_POOL)
        b = a if self.rng.random() < 0.1 else self.rng.choice(OUT_POOL)
        return a, b

    def req_identity_1d(self):
        a, b = self.dim_pair()
        return {"op": "identity_1d", "size": self.one_d_size(), "in_dim": a, "out_dim": b}

    def req_strided_1d(self):
        a, b = self.dim_pair()
        size = self.one_d_size()
        r = self.rng.random()
        if r < 0.05:
            stride = 0
        elif r < 0.12:
            stride = self.rng.choice([3, 6, 12])
        else:
            stride = 1 << self.rng.randint(0, 5)
        while size * stride >= 1 << 20:
            stride = max(1, stride // 2)
            size = max(1, size // 2) if size > 1 << 12 else size
        return {"op": "strided_1d", "size": size, "stride": stride, "in_dim": a, "out_dim": b}

    def req_zeros_1d(self):
        a, b = self.dim_pair()
        req = {"op": "zeros_1d", "size": self.one_d_size(), "in_dim": a, "out_dim": b}
        r = self.rng.random()
        if r < 0.6:
            req["out_dim_size"] = 1 << self.rng.randint(0, 6) if self.rng.random() < 0.9 \
                else self.rng.choice([0, 3, 6])
        return req

    def consistent_orders(self, pool, na, nb, shared):
        """Two name lists drawn from one common random order, so names they
        share come in the same relative order in both."""
        k = na + nb - shared
        union = self.rng.sample(pool, min(k, len(pool)))
        shared = min(shared, na, nb, len(union))
        sh = set(self.rng.sample(union, shared))
        rest = [n for n in union if n not in sh]
        a_only = set(rest[:na - shared])
        b_only = set(rest[na - shared:na - shared + nb - shared])
        a = [n for n in union if n in sh or n in a_only]
        b = [n for n in union if n in sh or n in b_only]
        return a, b

    def req_product(self):
        rng = self.rng
        na, nb = rng.randint(0, 3), rng.randint(0, 3)
        ia, ib = self.consistent_orders(IN_POOL, na, nb, rng.randint(0, min(na, nb)))
        ma, mb = rng.randint(0, 3), rng.randint(0, 3)
        oa, ob = self.consistent_orders(OUT_POOL, ma, mb, rng.randint(0, min(ma, mb)))
        budget_in = rng.choice([4, 8, 12, 16])
        budget_out = rng.choice([4, 8, 12, 16])
        ina = rng.randint(0, budget_in) if ia else 0
        inb = rng.randint(0, budget_in - ina) if ib else 0
        outa = rng.randint(0, budget_out) if oa else 0
        outb = rng.randint(0, budget_out - outa) if ob else 0
        a = self.layout(ina, outa, in_names=ia, out_names=oa)
        b = self.layout(inb, outb, in_names=ib, out_names=ob)
        return {"op": "product", "a": a, "b": b}

    def req_compose(self):
        rng = self.rng
        a = self.layout(out_total=self.small(10), in_total=self.small(10))
        # b: in dims = a's out dims (as a set), any order, in size >= a's out size
        bin_names = [d for d, _ in a["out_dims"]]
        if rng.random() < 0.5:
            rng.shuffle(bin_names)
        bin_spec = []
        for d in bin_names:
            size = dict(a["out_dims"])[d]
            extra = rng.choice([0, 0, 0, 1, 2])
            bin_spec.append((d, log2(size) + extra))
        invalid = rng.random() < 0.15
        if invalid:
            flavour = rng.choice(["smaller", "missing", "extra", "renamed"])
            a_sizes = dict(a["out_dims"])
            shrinkable = [i for i, (d, _) in enumerate(bin_spec) if a_sizes[d] > 1]
            if flavour == "smaller" and shrinkable:
                i = rng.choice(shrinkable)
                d, _ = bin_spec[i]
                bin_spec[i] = (d, rng.randint(0, log2(a_sizes[d]) - 1))
            elif flavour == "missing" and bin_spec:
                bin_spec.pop(rng.randrange(len(bin_spec)))
            elif flavour == "renamed" and bin_spec:
                i = rng.randrange(len(bin_spec))
                others = [n for n in IN_POOL + OUT_POOL if n not in [d for d, _ in bin_spec]]
                bin_spec[i] = (rng.choice(others), bin_spec[i][1])
            else:
                others = [n for n in IN_POOL if n not in [d for d, _ in bin_spec]]
                bin_spec.insert(rng.randint(0, len(bin_spec)), (rng.choice(others), rng.randint(0, 2)))
        k = sum(n for _, n in bin_spec)
        out_total = self.small(12)
        if rng.random() < 0.3:
            out_total = min(k, 12)
        outs = self.out_spec(out_total)
        n = sum(log2(s) for _, s in outs)
        vs = self.vectors(n, k)
        b = make_layout(bin_spec, outs, vs)
        return {"op": "compose", "a": a, "b": b}

    def req_invert_and_compose(self):
        while True:
            req = self._req_invert_and_compose()
            if in_bits(req["a"]) <= MAX_BITS and in_bits(req["b"]) <= MAX_BITS:
                return req

    def _req_invert_and_compose(self):
        rng = self.rng
        # b: the layout to invert (dims -> something), any rank.
        b = None
        while b is None or in_bits(b) > MAX_BITS:
            n = self.small(10)
            kind = rng.choice(["invertible", "surjective", "surjective", "injective",
                               "lowrank", "sparse", "random", "identity"])
            if kind == "surjective":
                k = n + rng.randint(0, 4)
            elif kind in ("injective", "lowrank"):
                k = rng.randint(0, n)
            else:
                k = n if rng.random() < 0.6 else rng.randint(0, n + 3)
            b = self.layout(k, n, kind=kind, lo=1)
        b_in = [(d, len(bs)) for d, bs in b["bases"]]
        b_out = b["out_dims"]
        widths = out_widths(b_out)
        bvecs = packed_bases(b)
        # c: a's in dims -> b's in dims.  Shared identical dims: c is the
        # identity from an in dim of b onto itself.
        kk = rng.randint(0, 3)
        shared = []
        if b_in and rng.random() < 0.35:
            shared = rng.sample([d for d, _ in b_in], rng.randint(1, min(2, len(b_in))))
        others = [n for n in IN_POOL if n not in [d for d, _ in b_in]]
        if rng.random() < 0.3:
            # reuse b's in-dim names but with different bases
            others = [n for n in IN_POOL if n not in shared]
        a_names = shared + rng.sample(others, min(kk, len(others)))
        rng.shuffle(a_names)
        a_spec = []
        for d in a_names:
            if d in shared:
                a_spec.append((d, dict(b_in)[d]))
            else:
                a_spec.append((d, rng.randint(0, 6)))
        b_bits_off = {}
        off = 0
        for d, nb in b_in:
            b_bits_off[d] = off
            off += nb
        total_b_in = off
        cvecs = []  # packed over b's in bits
        for d, nb in a_spec:
            if d in shared:
                cvecs += [1 << (b_bits_off[d] + j) for j in range(nb)]
            else:
                for _ in range(nb):
                    r = rng.random()
                    if r < 0.5:
                        cvecs.append(self.unit_or_zero(total_b_in, 0.15))
                    else:
                        cvecs.append(self.rand_vec(total_b_in))
        avecs = []
        for cv in cvecs:
            acc = 0
            for j in range(total_b_in):
                if cv >> j & 1:
                    acc ^= bvecs[j]
            avecs.append(acc)
        # a's out dims: same set as b's, maybe smaller sizes, maybe reordered
        a_out = [[d, s] for d, s in b_out]
        if rng.random() < 0.35:
            for i, (d, s) in enumerate(a_out):
                need = max([unpack(widths, v)[i] for v in avecs] + [0])
                lo = need.bit_length()
                a_out[i][1] = 1 << rng.randint(lo, log2(s))
        flavour = None
        if rng.random() < 0.15:
            flavour = rng.choice(["not_in_image", "not_in_image", "extra_out",
                                  "missing_out", "renamed_out", "bigger_out"])
        comps = [unpack(widths, v) for v in avecs]
        if flavour == "not_in_image" and avecs and sum(widths) > 0:
            i = rng.randrange(len(avecs))
            comps[i] = unpack(widths, self.rand_vec(sum(widths)))
            a_out = [[d, s] for d, s in b_out]
        elif flavour == "missing_out" and a_out:
            i = rng.randrange(len(a_out))
            a_out.pop(i)
            comps = [c[:i] + c[i + 1:] for c in comps]
        elif flavour == "extra_out":
            names = [n for n in OUT_POOL if n not in [d for d, _ in a_out]]
            i = rng.randint(0, len(a_out))
            size = 1 << rng.randint(0, 3)
            a_out.insert(i, [rng.choice(names), size])
            comps = [c[:i] + [rng.randrange(size)] + c[i:] for c in comps]
        elif flavour == "bigger_out" and a_out:
            # a's out size exceeds b's (even though the image still fits)
            a_out = [[d, s] for d, s in b_out]
            a_out[rng.randrange(len(a_out))][1] *= 2
        elif flavour == "renamed_out" and a_out:
            names = [n for n in OUT_POOL if n not in [d for d, _ in a_out]]
            a_out[rng.randrange(len(a_out))][0] = rng.choice(names)
        if rng.random() < 0.3 and len(a_out) > 1:
            perm = list(range(len(a_out)))
            rng.shuffle(perm)
            a_out = [a_out[p] for p in perm]
            comps = [[c[p] for p in perm] for c in comps]
        bases, i = [], 0
        for d, nb in a_spec:
            bases.append([d, comps[i:i + nb]])
            i += nb
        a = {"bases": bases, "out_dims": a_out}
        return {"op": "invert_and_compose", "a": a, "b": b}

    def req_invert(self):
        rng = self.rng
        r = rng.random()
        n = self.small(10)
        if r < 0.65:
            a = self.layout(n, n, kind=rng.choice(["invertible", "invertible", "identity"]))
        elif r < 0.8:
            a = self.layout(n + rng.randint(1, 3), n, kind="surjective")
        else:
            a = self.layout(kind=rng.choice(["lowrank", "random", "injective"]))
        return {"op": "invert", "a": a}

    def req_pseudoinvert(self):
        rng = self.rng
        r = rng.random()
        n = self.small(10)
        if r < 0.3:
            a = self.layout(n, n, kind=rng.choice(["invertible", "identity"]))
        elif r < 0.8:
            a = self.layout(n + rng.randint(0, 4), n, kind="surjective")
        else:
            a = self.layout(kind=rng.choice(["lowrank", "random", "injective", "sparse"]))
        return {"op": "pseudoinvert", "a": a}

    def req_apply(self):
        rng = self.rng
        a = self.any_layout()
        inp = [[d, rng.randrange(1 << len(bs))] for d, bs in a["bases"]]
        if rng.random() < 0.3:
            rng.shuffle(inp)
        return {"op": "apply", "a": a, "input": inp}

    def req_pred(self, op):
        return {"op": op, "a": self.any_layout()}

    def req_to_string(self):
        return {"op": "to_string", "a": self.any_layout()}

    WEIGHTS = [
        ("from_bases", 2.0), ("identity_1d", 0.6), ("strided_1d", 0.6),
        ("zeros_1d", 0.6), ("product", 2.0), ("compose", 2.0),
        ("invert_and_compose", 2.5), ("invert", 1.3), ("pseudoinvert", 1.3),
        ("apply", 1.5), ("is_surjective", 0.8), ("is_injective", 0.8),
        ("is_invertible", 0.8), ("to_string", 1.0),
    ]

    def request(self):
        ops, weights = zip(*self.WEIGHTS)
        op = self.rng.choices(ops, weights)[0]
        if op in ("is_surjective", "is_injective", "is_invertible"):
            return self.req_pred(op)
        return getattr(self, "req_" + op)()


def request_is_wellformed(req) -> bool:
    """Inputs carried as layouts must be valid layouts, and within budget."""
    for k in ("a", "b"):
        if k in req:
            lay = req[k]
            if not valid_layout(lay):
                return False
            if in_bits(lay) > 32 or out_bits(lay) > 30:
                return False
    if req["op"] == "invert_and_compose":
        if in_bits(req["a"]) + in_bits(req["b"]) > 64:
            return False
    return True


def generate(seed: int):
    g = Gen(seed)
    while True:
        req = g.request()
        if request_is_wellformed(req):
            yield req


# ---------------------------------------------------------------------------
# The Triton side: a worker process, and its supervisor
# ---------------------------------------------------------------------------


def worker_main():
    try:
        import triton
        from triton._C.libtriton.linear_layout import LinearLayout as LL
    except Exception as e:  # reported to the parent via the hello line
        sys.stdout.write(json.dumps({"hello": None, "error": f"{type(e).__name__}: {e}"}) + "\n")
        sys.stdout.flush()
        sys.exit(3)

    def emit(obj):
        sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    def build(lay):
        return LL.from_bases([(n, bs) for n, bs in lay["bases"]],
                             [n for n, _ in lay["out_dims"]],
                             [s for _, s in lay["out_dims"]],
                             require_surjective=False)

    def to_json(lay):
        return {"bases": [[n, [list(v) for v in bs]] for n, bs in lay.bases],
                "out_dims": [[n, s] for n, s in lay.out_dims]}

    def run(req, a, b):
        op = req["op"]
        if op == "from_bases":
            kwargs = {}
            if "out_dim_sizes" in req:
                kwargs["out_dim_sizes"] = req["out_dim_sizes"]
            if "require_surjective" in req:
                kwargs["require_surjective"] = req["require_surjective"]
            return to_json(LL.from_bases([(n, bs) for n, bs in req["bases"]],
                                         req["out_dim_names"], **kwargs))
        if op == "identity_1d":
            return to_json(LL.identity_1d(req["size"], req["in_dim"], req["out_dim"]))
        if op == "strided_1d":
            return to_json(LL.strided_1d(req["size"], req["stride"], req["in_dim"],
                                         req["out_dim"]))
        if op == "zeros_1d":
            if "out_dim_size" in req:
                return to_json(LL.zeros_1d(req["size"], req["in_dim"], req["out_dim"],
                                           req["out_dim_size"]))
            return to_json(LL.zeros_1d(req["size"], req["in_dim"], req["out_dim"]))
        if op == "product":
            return to_json(a * b)
        if op == "compose":
            return to_json(a.compose(b))
        if op == "invert_and_compose":
            return to_json(a.invert_and_compose(b))
        if op == "invert":
            return to_json(a.invert())
        if op == "pseudoinvert":
            return to_json(a.pseudoinvert())
        if op == "apply":
            res = a.apply({n: v for n, v in req["input"]})
            return [[n, res[n]] for n in a.get_out_dim_names()]
        if op == "is_surjective":
            return a.is_surjective()
        if op == "is_injective":
            return a.is_injective()
        if op == "is_invertible":
            return a.is_invertible()
        if op == "to_string":
            return str(a)
        raise ValueError(f"unknown op {op!r}")

    emit({"hello": triton.__version__})
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            a = build(req["a"]) if "a" in req else None
            b = build(req["b"]) if "b" in req else None
        except Exception as e:
            emit({"skip": f"{type(e).__name__}: {e}"})
            continue
        emit({"built": True})
        try:
            emit({"ok": run(req, a, b)})
        except Exception as e:
            msg = str(e).strip().splitlines()
            msg = msg[0] if msg else ""
            emit({"error": {"triton": "exception",
                            "message": f"{type(e).__name__}: {msg}"[:300]}})


class OracleError(Exception):
    pass


ABORT_MARKERS = ("LLVM ERROR", "Assertion", "terminate called", "what()", "Aborted",
                 "Fatal Python error", "Segmentation fault")


class Worker(children.Worker):
    """A worker (`algebra_oracle.py worker`) in the Triton venv's python."""

    TIMEOUT = 120.0

    def __init__(self):
        super().__init__([sys.executable, os.path.abspath(__file__), "worker"])
        self.version = None

    def readline(self):
        """One line from the worker, or None on EOF."""
        try:
            return self.receive(self.TIMEOUT)
        except children.WorkerTimeout:
            self.kill()
            raise OracleError("Triton worker timed out")
        except json.JSONDecodeError as e:
            self.kill()
            raise OracleError(f"Triton worker wrote a non-JSON line: {e.doc[:200]!r}")

    def handshake(self):
        hello = self.readline()
        if hello is None or hello.get("hello") is None:
            detail = (hello or {}).get("error") or self.stderr_tail()
            raise OracleError(f"Triton worker could not start (import triton failed?): {detail}")
        self.version = hello["hello"]

    def abort_message(self, start):
        self.proc.wait()
        text = self.stderr_since(start)
        lines = [l.strip() for l in text.splitlines() if l.strip()]
        pick = None
        for l in lines:
            if any(m in l for m in ABORT_MARKERS):
                pick = l
        if pick is None and lines:
            pick = lines[-1]
        rc = self.proc.returncode
        if pick is None:
            pick = f"worker died (exit status {rc})"
        return pick[:300]

    def close(self):
        super().close(timeout=10)


class Triton:
    """Evaluates requests in a long-lived worker; restarts it after aborts
    (from a spare started ahead of time, so a restart costs nothing)."""

    def __init__(self):
        self.workers = children.WithSpare(Worker, Worker.handshake)
        self.version = self.workers.current.version

    def evaluate(self, req):
        """Returns ("case", expect) or ("skip", reason)."""
        w = self.workers.current
        start = w.err_pos()
        sent = w.send(req)
        first = w.readline() if sent else None
        if first is None:
            # died while building the input layouts (or before): not a case
            msg = w.abort_message(start)
            self.workers.replace()
            return "skip", f"input layout rejected: {msg}"
        if "skip" in first:
            return "skip", first["skip"]
        if first.get("built") is not True:
            raise OracleError(f"unexpected worker reply {first!r}")
        ans = w.readline()
        if ans is None:
            msg = w.abort_message(start)
            self.workers.replace()
            return "case", {"error": {"triton": "abort", "message": msg}}
        return "case", ans

    def close(self):
        self.workers.close()


def outcome(expect) -> str:
    if "ok" in expect:
        return "ok"
    return expect["error"].get("triton") or "error"


def summarize(cases, title, out=sys.stderr):
    per = collections.defaultdict(collections.Counter)
    for c in cases:
        per[c["request"]["op"]][outcome(c["expect"])] += 1
    kinds = ["ok", "exception", "abort"]
    print(f"{title}: {len(cases)} cases", file=out)
    print(f"  {'op':<20}" + "".join(f"{k:>10}" for k in kinds) + f"{'total':>8}", file=out)
    tot = collections.Counter()
    for op in sorted(per):
        tot.update(per[op])
        print(f"  {op:<20}" + "".join(f"{per[op][k]:>10}" for k in kinds)
              + f"{sum(per[op].values()):>8}", file=out)
    print(f"  {'(all)':<20}" + "".join(f"{tot[k]:>10}" for k in kinds)
          + f"{sum(tot.values()):>8}", file=out)


def record_cases(seed: int, count: int, progress=True):
    t = Triton()
    cases, skipped = [], collections.Counter()
    try:
        for req in generate(seed):
            if len(cases) >= count:
                break
            kind, val = t.evaluate(req)
            if kind == "skip":
                skipped[req["op"]] += 1
                continue
            cases.append({"request": req, "expect": val})
            if progress and len(cases) % 500 == 0:
                print(f"  ... {len(cases)}/{count}", file=sys.stderr)
    finally:
        t.close()
    if skipped:
        print(f"note: skipped {sum(skipped.values())} requests whose input layouts "
              f"Triton rejected: {dict(skipped)}", file=sys.stderr)
    return cases, t.version


# ---------------------------------------------------------------------------
# Comparison against our binary
# ---------------------------------------------------------------------------


def json_same(x, y) -> bool:
    """Equality as JSON values (true is not 1, unlike Python's ==)."""
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return x == y
    if type(x) is not type(y):
        if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            pass
        else:
            return False
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(json_same(x[k], y[k]) for k in x)
    if isinstance(x, (list, tuple)):
        return len(x) == len(y) and all(json_same(a, b) for a, b in zip(x, y))
    return x == y


def require_binary(binary):
    if not os.path.isfile(binary) or not os.access(binary, os.X_OK):
        raise OracleError(f"binary not found or not executable: {binary}")


def run_binary(binary, requests):
    require_binary(binary)
    payload = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in requests)
    p = children.run([binary, "eval"], input=payload, timeout=1800)
    if p.timed_out:
        raise OracleError(f"{binary} eval timed out")
    lines = p.stdout.splitlines()
    if p.returncode != 0:
        tail = p.stderr.strip().splitlines()[-5:]
        raise OracleError(f"{binary} eval exited with status {p.returncode} after "
                          f"{len(lines)} answers; stderr: {' | '.join(tail)}")
    if len(lines) != len(requests):
        raise OracleError(f"{binary} eval answered {len(lines)} lines for "
                          f"{len(requests)} requests")
    answers = []
    for l in lines:
        try:
            answers.append(json.loads(l))
        except json.JSONDecodeError:
            answers.append({"unparsable": l})
    return answers


def agrees(expect, ours) -> bool:
    if not isinstance(ours, dict):
        return False
    if "ok" in expect:
        return set(ours) == {"ok"} and json_same(expect["ok"], ours["ok"])
    # any error from Triton (abort or exception) must be matched by an error
    return "error" in ours and "ok" not in ours


def compare(cases, binary) -> int:
    answers = run_binary(binary, [c["request"] for c in cases])
    failed = 0
    per_fail = collections.Counter()
    for c, ours in zip(cases, answers):
        if agrees(c["expect"], ours):
            continue
        failed += 1
        per_fail[c["request"]["op"]] += 1
        print("DISAGREEMENT" + (f" {c['name']}" if c.get("name") else ""), file=sys.stderr)
        print("  request: " + json.dumps(c["request"], separators=(",", ":")), file=sys.stderr)
        print("  triton:  " + json.dumps(c["expect"], separators=(",", ":")), file=sys.stderr)
        print("  ours:    " + json.dumps(ours, separators=(",", ":")), file=sys.stderr)
    if per_fail:
        print(f"failures per op: {dict(sorted(per_fail.items()))}", file=sys.stderr)
    passed = len(cases) - failed
    print(f"{passed} passed, {failed} failed")
    return failed


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def cmd_record(args):
    t0 = time.monotonic()
    cases, version = record_cases(args.seed, args.count)
    what = data_header.existing_what(args.out, "algebra-requests", version, len(cases)) or (
        f"{len(cases)} generated LinearLayout requests with the answers of the triton {version} wheel's binding "
        f"(triton._C.libtriton.linear_layout): a value, a Python exception or an abort (`{data_header.command()}`).")
    data_header.write_jsonl(args.out, {"what": what, "release": version, "kind": "algebra-requests"}, cases,
                            compact=True)
    summarize(cases, f"recorded with triton {version} (seed {args.seed}) -> {args.out}")
    print(f"took {time.monotonic() - t0:.1f}s", file=sys.stderr)
    return 0


def cmd_check(args):
    require_binary(args.binary)
    t0 = time.monotonic()
    cases, version = record_cases(args.seed, args.count, progress=False)
    if len(cases) != args.count:
        raise OracleError(f"only {len(cases)} of {args.count} cases could be made")
    summarize(cases, f"triton {version}, seed {args.seed}")
    failed = compare(cases, args.binary)
    print(f"took {time.monotonic() - t0:.1f}s", file=sys.stderr)
    return 1 if failed else 0


def cmd_replay(args):
    require_binary(args.binary)
    try:
        header, cases = data_header.read_jsonl(args.infile)
    except (OSError, ValueError, data_header.DataError) as e:
        raise OracleError(f"cannot read {args.infile}: {e}")
    if header["kind"] != "algebra-requests":
        raise OracleError(f"{args.infile}: a {header['kind']} file, not algebra-requests")
    for c in cases:
        try:
            c["request"]["op"], c["expect"]
        except Exception as e:
            raise OracleError(f"{args.infile}: bad case {c.get('name')} ({e!r})")
    if not cases:
        raise OracleError(f"{args.infile}: no cases")
    summarize(cases, f"replaying {args.infile}")
    failed = compare(cases, args.binary)
    return 1 if failed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="record Triton's answers to generated requests")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--count", type=int, required=True)
    r.add_argument("--out", required=True)
    c = sub.add_parser("check", help="fresh requests: Triton vs BINARY eval")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--count", type=int, required=True)
    c.add_argument("--binary", required=True)
    p = sub.add_parser("replay", help="recorded requests: FILE vs BINARY eval")
    p.add_argument("--in", dest="infile", required=True)
    p.add_argument("--binary", required=True)
    sub.add_parser("worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.cmd == "worker":
        worker_main()
        return 0
    try:
        return {"record": cmd_record, "check": cmd_check, "replay": cmd_replay}[args.cmd](args)
    except OracleError as e:
        print(f"algebra_oracle: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
