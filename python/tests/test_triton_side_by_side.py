"""This package and Triton 3.9.0's binding, side by side on a fresh random batch.

Needs ``triton==3.9.0`` importable: without it the test FAILS (it is the
check that the two agree, not an optional extra). Deselect it explicitly
with ``-m "not triton"``; ``python/ci.sh`` runs it in the oracle venv that
``tests/oracle/venv.sh 3.9.0`` makes.

The batch is drawn afresh on every run: requests from the oracle's own
generator (``tests/oracle/algebra_oracle.py``) plus the binding's views and
queries, which the recordings lack. Set ``LINEAR_LAYOUT_SEED`` to replay a
batch (a failure prints its seed) and ``LINEAR_LAYOUT_SIDE_BY_SIDE_COUNT``
for its size.

Each request runs on Triton first in a forked child, since Triton aborts the
process on a failed assertion. Where the child survives, the request runs
again on Triton in this process and the live results are compared with
ours, types included (lists, tuples, dicts, bools): equal layouts, text,
views and values. Where Triton raised a Python exception we must raise one
of the same class or a subclass; where it aborted we must raise
``LayoutError``.
"""

from __future__ import annotations

import collections
import faulthandler
import importlib.util
import json
import os
import random
import resource
import sys
from typing import Any

import pytest
from layout_requests import inputs, layout_json, run
from repo_data import REPO

from linear_layout import LayoutError, LinearLayout

pytestmark = pytest.mark.triton

SEED = int(os.environ.get("LINEAR_LAYOUT_SEED") or random.SystemRandom().randrange(2**31))
COUNT = int(os.environ.get("LINEAR_LAYOUT_SIDE_BY_SIDE_COUNT", "800"))
TRITON_VERSION = "3.9.0"


def triton_layout_class() -> Any:
    """Triton's ``LinearLayout``; without it the test fails (it does not skip)."""
    try:
        import triton
        from triton._C.libtriton.linear_layout import LinearLayout as TritonLayout
    except ImportError as e:
        pytest.fail(
            f"triton=={TRITON_VERSION} is not importable ({e}); run this test in the "
            "venv of tests/oracle/venv.sh (python/ci.sh does), or deselect it with "
            "-m 'not triton'",
            pytrace=False,
        )

    assert triton.__version__ == TRITON_VERSION, (
        f"the side-by-side test is for triton {TRITON_VERSION}, found {triton.__version__}"
    )
    return TritonLayout


def oracle_generator() -> Any:
    """``tests/oracle/algebra_oracle.py``, the generator of the recordings."""
    path = REPO / "tests" / "oracle" / "algebra_oracle.py"
    spec = importlib.util.spec_from_file_location("algebra_oracle", path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------
# Requests the oracle's generator does not make: views, equality, dims
# ---------------------------------------------------------------------------

DISTRIBUTED = ["register", "lane", "warp", "block"]
SHARED = ["offset", "block"]


def random_layout(rng: random.Random, in_names: list[str], in_bits: int, out_bits: int) -> dict:
    """Random bases over the given in-dims, onto 0-3 out-dims ``dim0..``."""
    counts = [0] * len(in_names)
    for _ in range(in_bits):
        if in_names:
            counts[rng.randrange(len(in_names))] += 1
    n_out = rng.choice([1, 1, 2, 2, 3]) if rng.random() > 0.04 else 0
    out_log2 = [0] * n_out
    for _ in range(out_bits if n_out else 0):
        out_log2[rng.randrange(n_out)] += 1
    sizes = [1 << b for b in out_log2]
    style = rng.random()
    bases = []
    for name, count in zip(in_names, counts):
        vectors = []
        for _ in range(count):
            if style < 0.4:  # unit vectors and zeros, like real layouts
                vec = [0] * n_out
                if n_out and rng.random() > 0.15:
                    k = rng.randrange(n_out)
                    vec[k] = 1 << rng.randrange(out_log2[k]) if out_log2[k] else 0
            else:
                vec = [rng.randrange(s) for s in sizes]
            vectors.append(vec)
        bases.append([name, vectors])
    return {"bases": bases, "out_dims": [[f"dim{k}", s] for k, s in enumerate(sizes)]}


def dims_for(rng: random.Random, names: list[str]) -> list[str]:
    """Usually exactly ``names`` (shuffled); sometimes one missing or one extra."""
    names = list(names)
    rng.shuffle(names)
    r = rng.random()
    if r < 0.08:
        names.pop(rng.randrange(len(names)))
    elif r < 0.14:
        names.insert(rng.randrange(len(names) + 1), rng.choice(["in1", "offset", "lane"]))
        names = list(dict.fromkeys(names))
    return names


def view_requests(rng: random.Random, gen: Any, count: int) -> list[dict]:
    """Views, equality and dim queries on random layouts."""
    out: list[dict] = []
    while len(out) < count:
        kind = rng.choice(
            ["distributed", "distributed", "shared", "shared", "matrix", "eq", "dims"]
        )
        hw = rng.random() < 0.5
        if kind == "distributed":
            a = random_layout(rng, dims_for(rng, DISTRIBUTED), rng.randint(0, 9), rng.randint(0, 7))
            out.append({"op": "get_distributed_view", "a": a, "hw": hw})
        elif kind == "shared":
            a = random_layout(rng, dims_for(rng, SHARED), rng.randint(0, 9), rng.randint(0, 7))
            out.append({"op": "get_shared_view", "a": a, "hw": hw})
        elif kind == "matrix":
            out.append({"op": "get_matrix_view", "a": gen.any_layout()})
        elif kind == "dims":
            out.append({"op": "dims", "a": gen.any_layout()})
        else:
            a = gen.any_layout()
            b = json.loads(json.dumps(a))
            if rng.random() < 0.6 and b["out_dims"]:
                k = rng.randrange(len(b["out_dims"]))
                b["out_dims"][k][1] *= 2
            out.append({"op": "eq", "a": a, "b": b})
    return out


def batch() -> list[dict]:
    oracle = oracle_generator()
    rng = random.Random(SEED)
    algebra = []
    for req in oracle.generate(SEED):
        if len(algebra) >= COUNT:
            break
        algebra.append(req)
    views = view_requests(rng, oracle.Gen(SEED + 1), COUNT // 3)
    return algebra + views


# ---------------------------------------------------------------------------
# Triton in a forked child
# ---------------------------------------------------------------------------


def jsonable(value: Any) -> Any:
    if hasattr(value, "bases") and hasattr(value, "out_dims"):
        return layout_json(value)
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def triton_in_child(triton: Any, req: dict) -> tuple[str, str]:
    """``("ok" | "exception" | "abort" | "skip", detail)`` of ``req`` on Triton.

    "skip": Triton cannot even build the request's input layouts, as in the
    oracle (``algebra_oracle.py`` leaves those requests out).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            faulthandler.disable()  # an abort is an expected outcome here
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            try:
                a, b = inputs(triton, req)
            except Exception as e:
                os.write(write, f"S{type(e).__name__}: {e}".encode())
                os._exit(0)
            os.write(write, b"B")
            try:
                value = run(triton, req, a, b)
                os.write(write, b"O" + json.dumps(jsonable(value)).encode())
            except Exception as e:
                os.write(write, f"E{type(e).__name__}: {e}".encode())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    data = b"".join(chunks).decode("utf-8", "replace")
    if data.startswith("S") or not data.startswith("B"):
        return "skip", data[1:] or f"died building the inputs (status {status})"
    if data.startswith("BO"):
        return "ok", data[2:]
    if data.startswith("BE"):
        return "exception", data[2:]
    return "abort", f"wait status {status}"


# ---------------------------------------------------------------------------
# Comparing live results
# ---------------------------------------------------------------------------


def same_value(ours: Any, theirs: Any) -> bool:
    """Equal, with the same Python types all the way down."""
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, dict):
        return list(ours) == list(theirs) and all(same_value(ours[k], theirs[k]) for k in ours)
    if isinstance(ours, (list, tuple)):
        return len(ours) == len(theirs) and all(same_value(p, q) for p, q in zip(ours, theirs))
    return ours == theirs


def layout_difference(ours: Any, theirs: Any) -> str | None:
    """The first way two layout objects differ, or None."""
    for what, get in [
        ("bases", lambda x: x.bases),
        ("out_dims", lambda x: x.out_dims),
        ("num_in_dims", lambda x: x.num_in_dims),
        ("num_out_dims", lambda x: x.num_out_dims),
        ("get_in_dim_names()", lambda x: x.get_in_dim_names()),
        ("get_out_dim_names()", lambda x: x.get_out_dim_names()),
        ("str()", str),
        ("repr()", repr),
        ("get_matrix_view()", lambda x: x.get_matrix_view()),
        ("is_surjective()", lambda x: x.is_surjective()),
        ("is_injective()", lambda x: x.is_injective()),
        ("is_invertible()", lambda x: x.is_invertible()),
    ]:
        x, y = get(ours), get(theirs)
        if not same_value(x, y):
            return f"{what}: ours {x!r}, Triton {y!r}"
    return None


def compare(triton: Any, req: dict, tally: collections.Counter) -> str | None:
    """Why we disagree with Triton on ``req``, or None."""
    outcome, _ = triton_in_child(triton, req)
    tally[outcome] += 1
    if outcome == "skip":
        return None
    try:
        a, b = inputs(LinearLayout, req)
        ours: Any = run(LinearLayout, req, a, b)
        our_error: Exception | None = None
    except Exception as e:
        ours, our_error = None, e
    if outcome == "abort":
        if isinstance(our_error, LayoutError):
            return None
        return f"Triton aborts; we {describe(ours, our_error)}"
    # Triton survives this request: run it here, on live objects.
    ta, tb = inputs(triton, req)
    try:
        theirs = run(triton, req, ta, tb)
    except Exception as e:
        if our_error is not None and isinstance(our_error, type(e)):
            return None
        return f"Triton raises {type(e).__name__}({e}); we {describe(ours, our_error)}"
    if our_error is not None:
        return f"Triton answers {jsonable(theirs)!r}; we raise {describe(ours, our_error)}"
    if hasattr(theirs, "bases"):
        if not isinstance(ours, LinearLayout):
            return f"Triton answers a layout; we answer {ours!r}"
        return layout_difference(ours, theirs)
    if not same_value(ours, theirs):
        return f"ours {ours!r}, Triton {theirs!r}"
    return None


def describe(ours: Any, error: Exception | None) -> str:
    if error is not None:
        kind = f" [{error.kind}]" if isinstance(error, LayoutError) else ""
        return f"raise {type(error).__name__}{kind}: {error}"
    return f"answer {jsonable(ours)!r}"


def test_side_by_side_with_triton_3_9() -> None:
    triton = triton_layout_class()
    requests = batch()
    failures = []
    tally: collections.Counter = collections.Counter()
    for req in requests:
        why = compare(triton, req, tally)
        if why is not None:
            failures.append(f"{json.dumps(req)}\n    {why}")
    ops = collections.Counter(req["op"] for req in requests)
    print(f"seed {SEED}: {len(requests)} requests; Triton: {dict(tally)}; per op: {dict(ops)}")
    assert tally["ok"] > len(requests) // 2, tally
    assert not failures, (
        f"LINEAR_LAYOUT_SEED={SEED}: {len(failures)} of {len(requests)} requests disagree:\n"
        + "\n".join(failures[:15])
    )


# ---------------------------------------------------------------------------
# The binding's names and signatures
# ---------------------------------------------------------------------------

# Triton's binding changes the object in place on `*=`; layouts here are
# immutable values, so `a *= b` falls back to `a = a * b`.
NOT_MIRRORED = {"__imul__"}


def binding_parameters(doc: str) -> list[tuple[str, str | None, bool]]:
    """``(name, default, positional_only)`` from a nanobind signature line."""
    head = doc.strip().splitlines()[0]
    inner = head[head.index("(") + 1 : head.rindex(")")]
    parts, depth, current = [], 0, ""
    for ch in inner:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    positional_only = "/" in parts
    params = []
    for part in parts:
        if part == "/":
            continue
        name = part.split(":")[0].split("=")[0].strip()
        default = part.split("=", 1)[1].strip() if "=" in part else None
        params.append((name, default, positional_only))
    return [p for p in params if p[0] != "self"]


def test_every_name_of_the_binding_is_here() -> None:
    triton = triton_layout_class()
    theirs = {n for n in dir(triton) if not n.startswith("__")}
    theirs |= {"__mul__", "__eq__", "__ne__", "__repr__", "__str__", "__hash__", "__init__"}
    assert {n for n in dir(triton) if n.startswith("__")} >= NOT_MIRRORED
    missing = sorted(theirs - set(dir(LinearLayout)))
    assert not missing, f"names of Triton's binding missing here: {missing}"


def test_signatures_match_the_binding() -> None:
    import inspect

    triton = triton_layout_class()
    problems = []
    for name in sorted(n for n in dir(triton) if not n.startswith("_")):
        theirs = getattr(triton, name)
        ours = getattr(LinearLayout, name)
        if isinstance(theirs, property):
            static = inspect.getattr_static(LinearLayout, name)
            if not isinstance(static, property) and type(static).__name__ != "getset_descriptor":
                problems.append(f"{name}: a property in Triton's binding")
            continue
        expected = binding_parameters(theirs.__doc__)
        params = [p for p in inspect.signature(ours).parameters.values() if p.name != "self"]
        if len(params) != len(expected):
            problems.append(f"{name}: {len(params)} parameters, Triton {len(expected)}")
            continue
        for p, (t_name, t_default, t_positional) in zip(params, expected):
            if t_positional:
                if p.kind is not p.POSITIONAL_ONLY:
                    problems.append(f"{name}({p.name}): positional-only in Triton")
                continue
            if p.name != t_name:
                problems.append(f"{name}: parameter {p.name!r}, Triton {t_name!r}")
            ours_default = None if p.default is p.empty else repr(p.default)
            if ours_default != t_default:
                problems.append(f"{name}({p.name}): default {ours_default}, Triton {t_default}")
    assert not problems, "\n".join(problems)
