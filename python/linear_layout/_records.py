"""Plain Python objects for the JSON results of the command line tool.

The bug finder (``predict``, ``check-ttgir``, ...) answers with JSON objects;
the Python functions that expose it return the same data as :class:`Record`
objects, built from exactly the JSON the CLI prints. A record reads like a
frozen dataclass (``r.verdict``, ``r.site.message``), compares by value, and
gives its JSON back with :meth:`Record.to_json`, so nothing is lost or
renamed between the CLI and Python.

A result type is a subclass that names its fields for type checkers and,
where a field holds nested objects of a known shape, the record class to read
them as::

    class Site(Record):
        name: str
        message: str

    class Prediction(Record):
        _field_types = {"site": Site}
        verdict: str
        site: Site | None

Fields are read from the JSON whether or not they are declared, so a newer
CLI that adds a field never breaks an older binding.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # (annotations only: no runtime dependency)
    from typing_extensions import Self


def _object_once_each_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a JSON object from its pairs, refusing a key given twice."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r} in a JSON object")
        out[key] = value
    return out


class Record:
    """A read-only view of one JSON object, with its keys as attributes.

    Nested objects are records too (of the class named in ``_field_types``,
    else plain :class:`Record`), arrays are lists, and everything else is the
    JSON value itself. Keys that are not identifiers are reached with
    ``record["some-key"]``.

    >>> r = Record.from_json('{"verdict": "abort", "site": {"line": 12}}')
    >>> r.verdict, r.site.line
    ('abort', 12)
    >>> r
    Record(verdict='abort', site=Record(line=12))
    >>> r.to_json()
    '{"verdict":"abort","site":{"line":12}}'
    """

    __slots__ = ("_data",)

    #: Record classes for fields holding objects (or arrays of objects).
    _field_types: ClassVar[Mapping[str, type[Record]]] = {}

    _data: dict[str, Any]

    def __init__(self, data: Mapping[str, Any] | None = None, /, **fields: Any) -> None:
        merged = dict(data or {})
        merged.update(fields)
        for key in merged:
            if not isinstance(key, str):
                raise TypeError(f"record keys must be str, not {type(key).__name__}")
        object.__setattr__(self, "_data", merged)

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> Self:
        """Build a record from JSON text (or from an already parsed JSON object).

        A key given twice in one object of the text is a ``ValueError``
        naming it (``json.loads`` alone would keep the last one silently).
        """
        if isinstance(data, (str, bytes, bytearray)):
            value = json.loads(data, object_pairs_hook=_object_once_each_key)
        else:
            value = data
        if not isinstance(value, Mapping):
            raise TypeError(f"a record is a JSON object, not {type(value).__name__}")
        return cls(value)

    @classmethod
    def from_json_lines(cls, text: str) -> list[Self]:
        """Build one record per non-blank line of JSON Lines text (``--batch`` output)."""
        return [cls.from_json(line) for line in text.splitlines() if line.strip()]

    def to_json(self, *, indent: int | None = None) -> str:
        """Return the record as JSON text: compact, as the CLI prints it, unless ``indent``."""
        if indent is None:
            return json.dumps(self._data, separators=(",", ":"), ensure_ascii=False)
        return json.dumps(self._data, indent=indent, ensure_ascii=False)

    def to_dict(self) -> dict[str, Any]:
        """Return a deep copy of the record's data as plain dicts and lists."""
        copy: dict[str, Any] = json.loads(json.dumps(self._data))
        return copy

    def _wrap(self, key: str, value: Any) -> Any:
        kind = self._field_types.get(key, Record)
        return _wrap(value, kind)

    def __getattr__(self, name: str) -> Any:
        data = object.__getattribute__(self, "_data")
        try:
            value = data[name]
        except KeyError:
            fields = ", ".join(data) or "none"
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r} (fields: {fields})"
            ) from None
        return self._wrap(name, value)

    def __getitem__(self, key: str) -> Any:
        return self._wrap(key, self._data[key])

    def get(self, key: str, default: Any = None) -> Any:
        """Return ``record[key]`` when the record has the key, else ``default``."""
        return self._wrap(key, self._data[key]) if key in self._data else default

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return type(self) is type(other) and self._data == other._data

    __hash__ = None  # type: ignore[assignment]  # compared by value, like a dict

    def __repr__(self) -> str:
        parts = []
        for key in self._data:
            value = self[key]
            parts.append(f"{key}={value!r}" if key.isidentifier() else f"{key!r}: {value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def __dir__(self) -> list[str]:
        names = [k for k in self._data if k.isidentifier()]
        return sorted(set(names) | set(super().__dir__()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._data,))


def _wrap(value: Any, kind: type[Record]) -> Any:
    if isinstance(value, Mapping):
        return kind(value)
    if isinstance(value, list):
        return [_wrap(v, kind) for v in value]
    return value
