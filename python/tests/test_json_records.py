"""``Record``: the plain-object form of the CLI's JSON results."""

from __future__ import annotations

import pickle

import pytest

from linear_layout import Record

TEXT = (
    '{"verdict":"abort","site":{"release":"3.2","line":12},'
    '"steps":[{"op":"a"},{"op":"b"}],"fix-in":null}'
)


class Site(Record):
    release: str
    line: int


class Prediction(Record):
    _field_types = {"site": Site}  # noqa: RUF012  (a ClassVar on Record)
    verdict: str
    site: Site


def test_fields_read_like_attributes() -> None:
    r = Record.from_json(TEXT)
    assert r.verdict == "abort"
    assert r.site.line == 12
    assert [s.op for s in r.steps] == ["a", "b"]
    assert r["fix-in"] is None
    assert "verdict" in r
    assert list(r) == ["verdict", "site", "steps", "fix-in"]
    assert len(r) == 4
    with pytest.raises(AttributeError, match="no field 'nope'"):
        _ = r.nope


def test_the_json_comes_back_unchanged() -> None:
    r = Record.from_json(TEXT)
    assert r.to_json() == TEXT
    assert Record.from_json(r.to_json()) == r
    assert r.to_dict()["site"] == {"release": "3.2", "line": 12}
    assert '\n  "verdict"' in r.to_json(indent=2)


def test_typed_subrecords() -> None:
    p = Prediction.from_json(TEXT)
    assert type(p.site) is Site
    assert type(p.steps[0]) is Record
    assert repr(p.site) == "Site(release='3.2', line=12)"
    assert p != Record.from_json(TEXT)  # another class


def test_records_are_read_only_values() -> None:
    r = Record.from_json(TEXT)
    with pytest.raises(AttributeError):
        r.verdict = "ok"
    d = r.to_dict()
    d["verdict"] = "ok"
    assert r.verdict == "abort"
    assert pickle.loads(pickle.dumps(r)) == r
    with pytest.raises(TypeError):
        hash(r)
    assert "verdict" in dir(r)


def test_json_lines_and_bad_input() -> None:
    rs = Record.from_json_lines('{"a": 1}\n\n{"a": 2}\n')
    assert [r.a for r in rs] == [1, 2]
    with pytest.raises(TypeError):
        Record.from_json("[1, 2]")
    assert Record(a=1) == Record({"a": 1})
