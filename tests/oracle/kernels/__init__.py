"""Small Triton kernels that the TTGIR corpus is compiled from.

Each module in this package defines some ``@triton.jit`` kernels and a list
``CASES`` of :class:`Case` objects.  A case names one kernel specialization
(argument types and constexpr values) and the (arch, num_warps, num_stages)
configurations to compile it for.  ``emit_ttgir.py`` turns a case into the
``ASTSource`` form that the installed Triton release expects.

The modules import only ``triton`` and ``triton.language`` and use only
language features present from Triton 3.2 on.
"""

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

# An argument is (name, spec).  spec is a type string ("*fp16", "i32", ...)
# for a runtime argument, or Const(value) for a tl.constexpr argument.


@dataclass(frozen=True)
class Const:
    value: object


@dataclass(frozen=True)
class Config:
    arch: int  # 80 or 90
    warps: int
    stages: int

    def tag(self) -> str:
        return f"sm{self.arch}-w{self.warps}-s{self.stages}"


@dataclass
class Case:
    name: str  # file stem prefix; unique across the package
    fn: object  # the triton.jit function
    args: List[Tuple[str, object]]
    configs: List[Config]
    # runtime integer arguments that the launcher would see as multiples of
    # 16 (pointers are always marked 16-byte aligned)
    div16: Tuple[str, ...] = ()
    note: str = ""
    ctas: int = 1  # num_ctas: > 1 gives CTA/CGA fields on sm90
    min_version: Optional[Tuple[int, int]] = None

    def check_args(self):
        names = list(self.fn.arg_names)
        if names != [a for a, _ in self.args]:
            raise ValueError(f"{self.name}: args {[a for a, _ in self.args]} do not match kernel {names}")


def grid(archs=(80, 90), warps=(4, ), stages=(1, )) -> List[Config]:
    return [Config(a, w, s) for a in archs for w in warps for s in stages]


def all_cases() -> List[Case]:
    from . import dots, chains, reductions, threed, pipelined
    cases: List[Case] = []
    for mod in (dots, chains, reductions, threed, pipelined):
        cases.extend(mod.CASES)
    seen = set()
    for c in cases:
        c.check_args()
        if c.name in seen:
            raise ValueError(f"duplicate case name {c.name}")
        seen.add(c.name)
    return cases
