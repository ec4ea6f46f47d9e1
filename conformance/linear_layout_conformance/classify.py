"""Comparing a kernel's outputs with the plan, and naming what went wrong.

:func:`check` gives a verdict for the outputs of every launch of a case:
``pass``, or ``wrong`` with counts of elements holding another element
(``misplaced``), the untouched sentinel (``unwritten``) or a value that is
no element at all (``garbage``), plus, for dot chains, ``arith`` (exact
launches right, random launches out of tolerance).

For misplaced elements it fits the map "expected source -> observed source"
as an affine map over GF(2) of index bits, in three spaces: the input
tensor's coordinate bits, the input layout's hardware bits (register, lane,
warp) and the output layout's hardware bits, and names the simplest, e.g.
``"register bit 1 <-> register bit 2"`` (two register bits swapped) or
``"lane bit 4 flipped"``.  It also says which output hardware bits are
constant over the wrong elements (``where``), e.g. only warp 1 is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .data import decode_ids, sentinel
from .ll import Layout, log2, unflat_index
from .plan import Plan, decode_output, numeric_ok, relative_error
from .program import Program

MAX_EXAMPLES = 8


# ------------------------------------------------------------ GF(2) fits


class AffineFit:
    """Fits ``y = A x + c`` over GF(2) from pairs of bit vectors (ints)."""

    def __init__(self, nbits: int) -> None:
        self.nbits = nbits
        self.one = 1 << nbits  # the augmented constant bit
        self.basis: dict[int, tuple[int, int]] = {}  # pivot bit -> (x, y), x reduced
        self.consistent = True
        self.pairs = 0

    def add(self, x: int, y: int) -> None:
        """Add one pair; marks the fit inconsistent if no affine map fits."""
        self.pairs += 1
        x |= self.one
        while x:
            low = x & -x
            b = self.basis.get(low)
            if b is None:
                self.basis[low] = (x, y)
                return
            x ^= b[0]
            y ^= b[1]
        if y:
            self.consistent = False

    def image(self, x: int) -> int | None:
        """Return ``A x`` (linear part) if determined by the pairs, else ``None``."""
        return self._reduce(x)

    def _reduce(self, x: int) -> int | None:
        y = 0
        while x:
            low = x & -x
            b = self.basis.get(low)
            if b is None:
                return None
            x ^= b[0]
            y ^= b[1]
        return y

    def solve(self) -> tuple[list[int | None], int | None]:
        """Return the images of the unit vectors and of the constant."""
        c = self._reduce(self.one)
        cols: list[int | None] = []
        for i in range(self.nbits):
            v = self._reduce(self.one | (1 << i))
            cols.append(None if v is None or c is None else v ^ c)
        return cols, c


def describe_map(cols: Sequence[int | None], c: int | None, names: Sequence[str]) -> dict[str, Any]:
    """Name an affine map given by the images of unit vectors and constant."""
    n = len(names)
    moves: list[str] = []
    undetermined = [names[i] for i in range(n) if cols[i] is None]
    # permutation part: unit-vector images
    perm: dict[int, int] = {}
    other: list[int] = []
    for i in range(n):
        v = cols[i]
        if v is None:
            continue
        if v and v & (v - 1) == 0:
            perm[i] = v.bit_length() - 1
        elif v != 1 << i:
            other.append(i)
    seen: set[int] = set()
    for i in sorted(perm):
        if i in seen or perm[i] == i:
            continue
        cyc = [i]
        j = perm[i]
        while j != i and j in perm and j not in cyc:
            cyc.append(j)
            j = perm[j]
        seen.update(cyc)
        if len(cyc) == 2 and j == i:
            moves.append(f"{names[cyc[0]]} <-> {names[cyc[1]]}")
        else:
            moves.append(
                " -> ".join(names[k] for k in cyc) + (" -> " + names[j] if j != i else " (cycle)")
            )
    for i in other:
        v = cols[i] or 0
        terms = [names[k] for k in range(n) if v >> k & 1]
        moves.append(f"{names[i]} goes to " + (" ^ ".join(terms) if terms else "nothing (dropped)"))
    if c:
        flips = [names[k] for k in range(n) if c >> k & 1]
        moves.append(" and ".join(flips) + " flipped")
    return {"moves": moves, "undetermined": undetermined, "size": len(moves)}


def fit_pairs(pairs: Sequence[tuple[int, int]], names: Sequence[str]) -> dict[str, Any]:
    """Fit and name the affine map behind ``pairs`` (``x -> y``)."""
    fit = AffineFit(len(names))
    for x, y in pairs:
        fit.add(x, y)
        if not fit.consistent:
            return {"affine": False}
    cols, c = fit.solve()
    out = describe_map(cols, c, names)
    out["affine"] = True
    return out


# ------------------------------------------------------------ spaces


def coord_bit_names(shape: Sequence[int]) -> list[str]:
    """Names of the bits of a row-major index (lowest first)."""
    names = []
    for d in range(len(shape) - 1, -1, -1):
        names += [f"dim{d} bit {k}" for k in range(log2(shape[d]))]
    return names


def hw_bit_names(lay: Layout) -> list[str]:
    """Names of a layout's input bits, in :meth:`Layout.in_bits` order."""
    return [f"{k} bit {i}" for k, i in lay.in_bits()]


def _where(positions: Sequence[int], lay: Layout | None) -> dict[str, int]:
    """Return the hardware bits constant over ``positions`` (output indices).

    Only bits that vary over the whole layout count.
    """
    if lay is None or not positions:
        return {}
    holder = lay.holder_of()
    hws = [holder.get(p) for p in positions]
    hws = [h for h in hws if h is not None]
    if not hws:
        return {}
    names = hw_bit_names(lay)
    allset = set(holder.values())
    out = {}
    for i, name in enumerate(names):
        vals = {h >> i & 1 for h in hws}
        if len(vals) == 1 and len({h >> i & 1 for h in allset}) == 2:
            out[name] = vals.pop()
    return out


def analyse_map(prog: Program, plan: Plan, observed: Sequence[int | None]) -> dict[str, Any]:
    """Fit the misplacement map in the three spaces and name the simplest."""
    vals = prog.values
    data = prog.data_inputs()
    pairs: list[tuple[int, int]] = []
    out_pairs: list[tuple[int, int]] = []
    for p, (exp, obs) in enumerate(zip(plan.source, observed)):
        if exp >= 0 and obs is not None and obs < len(plan.id_owner):
            pairs.append((exp, obs))
            out_pairs.append((p, obs))
    results: dict[str, Any] = {}
    if not pairs:
        return {"fits": {}, "name": "no element decodes"}
    # 1. input coordinates (plus an input-select bit when there are several)
    first = vals[data[0]["name"]]
    same_shape = all(vals[i["name"]].shape == first.shape for i in data)
    if same_shape:
        nbits = log2(first.numel)
        names = coord_bit_names(first.shape)
        sel = max(len(data) - 1, 0).bit_length()
        names += [f"input bit {k}" for k in range(sel)]
        results["input coordinates"] = fit_pairs(pairs, names)
        del nbits
    # 2. the (single) data input's layout hardware bits
    if len(data) == 1 and first.ll is not None:
        holder = first.ll.holder_of()
        hp = [(holder[e], holder[o]) for e, o in pairs if e in holder and o in holder]
        if len(hp) == len(pairs):
            results["input layout"] = fit_pairs(hp, hw_bit_names(first.ll))
    # 3. output layout hardware bits: where the observed element should have been
    out_v = vals[prog.output]
    inverse: dict[int, int] = {}
    injective = True
    for p, s in enumerate(plan.source):
        if s >= 0:
            if s in inverse:
                injective = False
                break
            inverse[s] = p
    if injective and out_v.ll is not None:
        holder = out_v.ll.holder_of()
        op = []
        for p, o in out_pairs:
            q = inverse.get(o)
            if q is None or p not in holder or q not in holder:
                op = []
                break
            op.append((holder[q], holder[p]))
        if op:
            results["output layout"] = fit_pairs(op, hw_bit_names(out_v.ll))
    best = None
    # on ties, hardware bits name a layout bug best: output layout, then input layout
    for space in ("output layout", "input layout", "input coordinates"):
        r = results.get(space)
        if r and r.get("affine") and (best is None or r["size"] < results[best]["size"]):
            best = space
    if best is None:
        name = "not an affine map of the index bits"
    else:
        r = results[best]
        name = f"{best}: " + ("; ".join(r["moves"]) if r["moves"] else "identity")
    return {"fits": results, "name": name}


def check(prog: Program, plan: Plan, outputs: Sequence[Sequence[int]]) -> dict[str, Any]:
    """Return the verdict on ``outputs`` (one list of output bit patterns per launch)."""
    n = len(plan.source)
    sent = sentinel(plan.out_dtype)
    bad_exact: set[int] = set()
    bad_random: set[int] = set()
    max_err = 0.0
    for launch, got in zip(plan.launches, outputs):
        if len(got) != n:
            return {"verdict": "wrong", "kind": "bad_output_size", "message": f"{len(got)} != {n}"}
        if launch.kind == "exact":
            for i, (e, g) in enumerate(zip(launch.expected, got)):
                if e != g:
                    bad_exact.add(i)
        else:
            for i, (e, g) in enumerate(zip(launch.expected, got)):
                if not numeric_ok(plan, float(e), g):
                    bad_random.add(i)
                else:
                    max_err = max(max_err, relative_error(plan, float(e), g))
    if not bad_exact and not bad_random:
        return {"verdict": "pass", "max_err": max_err} if plan.numeric else {"verdict": "pass"}
    exact_out = [o for launch, o in zip(plan.launches, outputs) if launch.kind == "exact"]
    exact_pl = plan.exact
    digits = [decode_output(plan, launch, list(o)) for launch, o in zip(exact_pl, exact_out)]
    observed = decode_ids(digits, plan.digit, plan.ndigits)
    unwritten = [i for i in range(n) if all(o[i] == sent for o in exact_out)]
    unwritten_set = set(unwritten)
    misplaced = [i for i in sorted(bad_exact) if i not in unwritten_set and observed[i] is not None]
    garbage = [i for i in sorted(bad_exact) if i not in unwritten_set and observed[i] is None]
    out_v = prog.values[prog.output]
    res: dict[str, Any] = {
        "verdict": "wrong",
        "wrong": len(bad_exact | bad_random),
        "elements": n,
        "misplaced": len(misplaced),
        "unwritten": len(unwritten),
        "garbage": len(garbage),
        "arith": len(bad_random - bad_exact),
    }
    if bad_exact:
        kinds = [k for k in ("misplaced", "unwritten", "garbage") if res[k]]
        res["kind"] = "+".join(kinds) or "wrong_bits"
    else:
        res["kind"] = "arith"
    examples = []
    for i in sorted(bad_exact | bad_random)[:MAX_EXAMPLES]:
        ex: dict[str, Any] = {"at": list(unflat_index(i, out_v.shape))}
        s = plan.source[i]
        ex["expected"] = _name_id(plan, prog, s)
        ex["got"] = (
            "unwritten"
            if i in unwritten_set
            else _name_id(plan, prog, observed[i])
            if observed[i] is not None
            else "garbage"
        )
        ex["bits"] = [hex(o[i]) for o in outputs]
        examples.append(ex)
    res["examples"] = examples
    if misplaced:
        res["map"] = analyse_map(prog, plan, observed)
    wrong_pos = sorted(bad_exact | bad_random)
    res["where"] = _where(wrong_pos, out_v.ll)
    return res


def _name_id(plan: Plan, prog: Program, gid: int | None) -> Any:
    if gid is None:
        return None
    if gid < 0:
        return "zero"
    if gid >= len(plan.id_owner):
        return f"id {gid}?"
    name, idx = plan.id_owner[gid]
    k = [i["name"] for i in prog.data_inputs()].index(name)
    return {"input": k, "at": list(unflat_index(idx, prog.values[name].shape))}


def summary_line(res: dict[str, Any]) -> str:
    """One line naming a verdict (for tables and logs)."""
    if res.get("verdict") != "wrong":
        return res.get("verdict", "?")
    parts = [f"{res.get('kind')}: {res.get('wrong')}/{res.get('elements')} wrong"]
    if "map" in res:
        parts.append(res["map"]["name"])
    if res.get("where"):
        parts.append("where " + ", ".join(f"{k}={v}" for k, v in res["where"].items()))
    return "; ".join(parts)
