"""The GPU path of the worker (buffers, guards, launches, decoding) with a fake
torch and a fake kernel that does what the module means, so that it is
exercised without a GPU."""

from __future__ import annotations

import itertools
from typing import ClassVar

from linear_layout_conformance.cases import make_cases
from linear_layout_conformance.classify import check
from linear_layout_conformance.data import decode_value, encode_value
from linear_layout_conformance.oracle import Oracle
from linear_layout_conformance.plan import make_plan
from linear_layout_conformance.program import interpret
from linear_layout_conformance.worker import GUARD, Worker, case_program


class FakeDtype:
    def __init__(self, bits):
        self.bits = bits


class FakeTensor:
    _next = itertools.count(1)
    memory: ClassVar[dict[int, FakeTensor]] = {}

    def __init__(self, values, dtype):
        self.values = list(values)
        self.dtype = dtype
        self.base = next(FakeTensor._next) << 20
        FakeTensor.memory[self.base] = self

    def cuda(self):
        return self

    def cpu(self):
        return self

    def tolist(self):
        return list(self.values)

    def data_ptr(self):
        return self.base


class FakeTorch:
    int8, int16, int32 = FakeDtype(8), FakeDtype(16), FakeDtype(32)

    class cuda:  # noqa: N801
        @staticmethod
        def synchronize():
            pass

    @staticmethod
    def full(shape, value, dtype):
        return FakeTensor([value] * shape[0], dtype)

    @staticmethod
    def tensor(values, dtype):
        lo, hi = -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1
        assert all(lo <= v <= hi for v in values), "value out of the signed range"
        return FakeTensor(values, dtype)


class FakeKernel:
    """Reads its inputs from fake memory, computes the program's meaning, writes."""

    def __init__(self, prog, swap_first_two=False):
        self.prog = prog
        self.swap = swap_first_two

    def __getitem__(self, grid):
        assert grid == (1, 1, 1)
        return self.launch

    def launch(self, *ptrs):
        prog = self.prog
        values = {}
        for inp, ptr in zip(prog.inputs, ptrs):
            t = FakeTensor.memory[ptr]
            v = prog.values[inp["name"]]
            b = t.dtype.bits
            bits = [x & ((1 << b) - 1) for x in t.values]
            if inp["role"] == "gindex":
                values[inp["name"]] = bits
            elif prog.mode == "numeric":
                values[inp["name"]] = [decode_value(v.dtype, x) for x in bits]
            else:
                values[inp["name"]] = bits
        out = interpret(prog, values, numeric=prog.mode == "numeric")
        out_v = prog.values[prog.output]
        if prog.mode == "numeric":
            out = [encode_value(out_v.dtype, x) for x in out]
        if self.swap:
            out[0], out[1] = out[1], out[0]
        # the output pointer is past the guard: find its tensor
        optr = ptrs[-1]
        base = max(b for b in FakeTensor.memory if b <= optr)
        t = FakeTensor.memory[base]
        esize = max(t.dtype.bits // 8, 1)
        off = (optr - base) // esize
        assert off == GUARD
        half = 1 << (t.dtype.bits - 1)
        for i, x in enumerate(out):
            t.values[off + i] = x - (1 << t.dtype.bits) if x >= half else x


def _worker():
    w = Worker.__new__(Worker)
    w.gpu = True
    w.torch = FakeTorch
    return w


def test_gpu_path_round_trip(binary):
    w = _worker()
    cases = make_cases(24, 9090, oracle=Oracle("3.6", binary=binary))
    for c in cases:
        prog = case_program(c)
        plan = make_plan(prog, c["id"])
        outputs, info = w.run(FakeKernel(prog)[(1, 1, 1)], prog, plan)
        assert "out_of_bounds_write" not in info
        res = check(prog, plan, outputs)
        assert res["verdict"] == "pass", (c["id"], c["params"]["family"], res)
        if len(plan.source) >= 2 and plan.source[0] != plan.source[1]:
            outputs, _ = w.run(FakeKernel(prog, swap_first_two=True)[(1, 1, 1)], prog, plan)
            assert check(prog, plan, outputs)["verdict"] == "wrong"
