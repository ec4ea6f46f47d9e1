"""Requests of the oracle protocol, run against any ``LinearLayout`` class.

A request is the JSON object ``tests/oracle/algebra_oracle.py`` generates and
``tests/data/algebra/*.jsonl`` records: ``{"op": ..., "a": LAYOUT, ...}``
with layouts in the binding's JSON shape. ``run`` answers one with the live
result of the same calls on either this package's ``LinearLayout`` or
Triton's binding (their names are the same); ``recorded_form`` turns a
result into the JSON form the recordings hold.

Besides the recorded ops, ``run`` knows the views and queries the recordings
lack (``get_matrix_view``, ``get_distributed_view``, ``get_shared_view``,
``eq``, ``dims``), which the side-by-side test generates itself.
"""

from __future__ import annotations

from typing import Any


def build(ll: Any, lay: dict[str, Any]) -> Any:
    """The layout ``lay`` (binding JSON shape), with its sizes as given."""
    return ll.from_bases(
        [(name, bases) for name, bases in lay["bases"]],
        [name for name, _ in lay["out_dims"]],
        [size for _, size in lay["out_dims"]],
        require_surjective=False,
    )


def layout_json(layout: Any) -> dict[str, Any]:
    """A layout object in the binding's JSON shape."""
    return {
        "bases": [[name, [list(v) for v in bases]] for name, bases in layout.bases],
        "out_dims": [[name, size] for name, size in layout.out_dims],
    }


def inputs(ll: Any, req: dict[str, Any]) -> tuple[Any, Any]:
    """The request's input layouts ``a`` and ``b`` (``None`` when absent)."""
    a = build(ll, req["a"]) if "a" in req else None
    b = build(ll, req["b"]) if "b" in req else None
    return a, b


def run(ll: Any, req: dict[str, Any], a: Any = None, b: Any = None) -> Any:
    """The live result of ``req`` on the class ``ll`` (inputs already built)."""
    op = req["op"]
    if op == "from_bases":
        kwargs = {}
        if "out_dim_sizes" in req:
            kwargs["out_dim_sizes"] = req["out_dim_sizes"]
        if "require_surjective" in req:
            kwargs["require_surjective"] = req["require_surjective"]
        bases = [(name, vectors) for name, vectors in req["bases"]]
        return ll.from_bases(bases, req["out_dim_names"], **kwargs)
    if op == "identity_1d":
        return ll.identity_1d(req["size"], req["in_dim"], req["out_dim"])
    if op == "strided_1d":
        return ll.strided_1d(req["size"], req["stride"], req["in_dim"], req["out_dim"])
    if op == "zeros_1d":
        if "out_dim_size" in req:
            return ll.zeros_1d(req["size"], req["in_dim"], req["out_dim"], req["out_dim_size"])
        return ll.zeros_1d(req["size"], req["in_dim"], req["out_dim"])
    simple = {
        "product": lambda: a * b,
        "compose": lambda: a.compose(b),
        "invert_and_compose": lambda: a.invert_and_compose(b),
        "invert": lambda: a.invert(),
        "pseudoinvert": lambda: a.pseudoinvert(),
        "apply": lambda: a.apply({name: value for name, value in req["input"]}),
        "is_surjective": lambda: a.is_surjective(),
        "is_injective": lambda: a.is_injective(),
        "is_invertible": lambda: a.is_invertible(),
        "to_string": lambda: str(a),
        "get_matrix_view": lambda: a.get_matrix_view(),
        "get_distributed_view": lambda: a.get_distributed_view(req["hw"]),
        "get_shared_view": lambda: a.get_shared_view(req["hw"]),
        "eq": lambda: (a == b, a != b),
        "dims": lambda: (
            a.get_in_dim_names(),
            a.get_out_dim_names(),
            a.num_in_dims,
            a.num_out_dims,
            a.out_dims,
            a.bases,
            repr(a),
        ),
    }
    if op not in simple:
        raise ValueError(f"unknown op {op!r}")
    return simple[op]()


def recorded_form(req: dict[str, Any], value: Any) -> Any:
    """A result in the JSON form ``algebra_oracle.py`` records."""
    if req["op"] == "apply":
        return [[name, v] for name, v in value.items()]
    if hasattr(value, "bases") and hasattr(value, "out_dims"):
        return layout_json(value)
    return value


def json_same(x: Any, y: Any) -> bool:
    """Equality as JSON values: ``True`` is not ``1``, tuples are lists."""
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if isinstance(x, dict) or isinstance(y, dict):
        return (
            isinstance(x, dict)
            and isinstance(y, dict)
            and list(x) == list(y)
            and all(json_same(x[k], y[k]) for k in x)
        )
    if isinstance(x, (list, tuple)) or isinstance(y, (list, tuple)):
        return (
            isinstance(x, (list, tuple))
            and isinstance(y, (list, tuple))
            and len(x) == len(y)
            and all(json_same(p, q) for p, q in zip(x, y))
        )
    return type(x) is type(y) and x == y
