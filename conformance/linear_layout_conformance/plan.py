"""Launch plans: what each launch of a case's kernel reads and must write.

A case's kernel is launched several times with different inputs (see
:mod:`.data`): *exact* launches fill data inputs with digits of element ids
(and second dot operands with identity matrices), so the expected output is
known bit for bit and a wrong output element names its source; *random*
launches (only for kernels with dots or casts) fill every input with small
random integers and are checked against a float64 reference within a
tolerance.  All values travel as raw bit patterns (Python ints), so nothing
here needs numpy or torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .data import (
    BITS_DIGIT,
    EXACT_DIGIT,
    RANDOM_RANGE,
    decode_value,
    digits_needed,
    encode_id,
    encode_value,
    random_ints,
)
from .layouts import BITS
from .program import Program, interpret

RANDOM_LAUNCHES = 2
# Relative precision of the least precise type on a dot chain's path.
EPS = {
    "f16": 2.0**-10,
    "bf16": 2.0**-7,
    "f32": 2.0**-10,
    "f8e4": 2.0**-3,
    "f8e5": 2.0**-2,
    "i8": 0.0,
    "i16": 0.0,
    "i32": 0.0,
}


@dataclass
class Launch:
    """One launch: input bit patterns per input name, and the expectation."""

    kind: str  # "exact" or "random"
    inputs: dict[str, list[int]]
    expected: list[int] | list[float]  # bits (exact) or numbers (random)


@dataclass
class Plan:
    """Every launch of a case, and what is needed to decode its outputs."""

    launches: list[Launch]
    digit: int
    ndigits: int
    source: list[int]  # per output element: the element id it must hold, -1 for a constant zero
    id_owner: list[tuple[str, int]]  # per element id: (input name, row-major index)
    out_dtype: str
    tolerance: float
    numeric: bool

    @property
    def exact(self) -> list[Launch]:
        """The exact launches."""
        return [launch for launch in self.launches if launch.kind == "exact"]


def _identity(shape: list[int]) -> list[int]:
    r, c = shape
    return [1 if i == j else 0 for i in range(r) for j in range(c)]


def make_plan(prog: Program, case_id: str) -> Plan:
    """Return the launches of ``prog`` (``case_id`` seeds the random ones)."""
    vals = prog.values
    data = prog.data_inputs()
    owner: list[tuple[str, int]] = []
    ids: dict[str, list[int]] = {}
    for inp in data:
        n = vals[inp["name"]].numel
        ids[inp["name"]] = list(range(len(owner), len(owner) + n))
        owner += [(inp["name"], i) for i in range(n)]
    gindex: dict[str, list[int]] = {}
    for inp in prog.inputs:
        if inp["role"] == "gindex":
            gindex[inp["name"]] = random_ints(
                f"{case_id}-{inp['name']}", vals[inp["name"]].numel, 0, inp["bound"] - 1
            )
    dtypes = {v.dtype for v in vals.values()}
    out_dtype = vals[prog.output].dtype
    numeric = prog.mode == "numeric"
    if numeric:
        digit = min(EXACT_DIGIT[t] for t in dtypes)
    else:
        digit = min(BITS_DIGIT[vals[i["name"]].dtype] for i in data)
    ndigits = digits_needed(len(owner) - 1, digit)
    nexact = max(2, ndigits)

    # Where each output element comes from: interpret on ids (+1, so that 0
    # is a constant zero produced by a dot with an identity operand).
    sym_in: dict[str, list[Any]] = {}
    for inp in prog.inputs:
        name = inp["name"]
        if inp["role"] == "data":
            sym_in[name] = [g + 1 for g in ids[name]]
        elif inp["role"] == "gindex":
            sym_in[name] = gindex[name]
        else:
            sym_in[name] = _identity(vals[name].shape)
    sym = interpret(prog, sym_in, numeric=False)
    source = [int(s) - 1 if s else -1 for s in sym]

    launches: list[Launch] = []
    for launch in range(nexact):
        inputs: dict[str, list[int]] = {}
        for inp in prog.inputs:
            name, v = inp["name"], vals[inp["name"]]
            if inp["role"] == "data":
                digits = [encode_id(g, launch, digit, ndigits) for g in ids[name]]
                inputs[name] = [encode_value(v.dtype, x) for x in digits] if numeric else digits
            elif inp["role"] == "gindex":
                inputs[name] = gindex[name]
            else:
                inputs[name] = [encode_value(v.dtype, x) for x in _identity(v.shape)]
        if numeric:
            exp = [
                encode_value(out_dtype, encode_id(s, launch, digit, ndigits))
                if s >= 0
                else encode_value(out_dtype, 0)
                for s in source
            ]
        else:
            exp = [encode_id(s, launch, digit, ndigits) for s in source]
        launches.append(Launch("exact", inputs, exp))
    tol = 0.0
    if numeric:
        amp = min(RANDOM_RANGE[t] for t in dtypes)
        tol = max(EPS[t] for t in dtypes)
        for r in range(RANDOM_LAUNCHES):
            inputs, values = {}, {}
            for inp in prog.inputs:
                name, v = inp["name"], vals[inp["name"]]
                if inp["role"] == "gindex":
                    inputs[name] = values[name] = gindex[name]
                    continue
                xs = random_ints(f"{case_id}-{name}-r{r}", v.numel, -amp, amp)
                inputs[name] = [encode_value(v.dtype, x) for x in xs]
                values[name] = [decode_value(v.dtype, b) for b in inputs[name]]
            launches.append(Launch("random", inputs, interpret(prog, values, numeric=True)))
    return Plan(launches, digit, ndigits, source, owner, out_dtype, tol, numeric)


def decode_output(plan: Plan, launch: Launch, bits: list[int]) -> list[int | None]:
    """Return the digit each output element holds (``None`` if not a digit)."""
    if plan.numeric:
        out: list[int | None] = []
        mask = (1 << plan.digit) - 1
        for b in bits:
            x = decode_value(plan.out_dtype, b)
            out.append(int(x) if x == x and x == int(x) and 0 <= x <= mask else None)
        return out
    mask = (1 << BITS[plan.out_dtype]) - 1
    return [b & mask for b in bits]


def relative_error(plan: Plan, expected: float, bits: int) -> float:
    """``|got - expected| / (|expected| + 1)`` for an output of a random launch."""
    x = decode_value(plan.out_dtype, bits)
    if x != x:
        return float("inf")
    return abs(x - expected) / (abs(expected) + 1)


def numeric_ok(plan: Plan, expected: float, bits: int) -> bool:
    """Tell whether an output of a random launch is within tolerance.

    The tolerance is twice the precision of the least precise type on the path.
    """
    return relative_error(plan, expected, bits) <= 2 * plan.tolerance
