"""release(): which modelled release a Triton version is, from the crate's table."""

from __future__ import annotations

from typing import Any

import pytest

import linear_layout

pytestmark = pytest.mark.triton


def table_cases() -> list[tuple[str, str]]:
    """Every wheel of the release table, with and without a local suffix, and its release."""
    cases = []
    for info in linear_layout.releases():
        for wheel in info.wheels:
            cases.append((wheel, info.name))
        cases.append((f"{info.wheel}+cf34004b8a", info.name))
        for minor in info.minors:
            cases.append((f"{minor}.7", info.name))
    return cases


@pytest.mark.parametrize(("version", "modelled"), table_cases())
def test_versions_map_to_modelled_releases(llt: Any, version: str, modelled: str) -> None:
    assert llt.release(version) == modelled


def test_the_table_is_the_crates() -> None:
    names = [info.name for info in linear_layout.releases()]
    assert len(names) == len(set(names)) >= 2
    for name in names:
        # every name is one the finder takes
        assert linear_layout.predict("dot", 64, 64, 64, release=name)[0].release == name


@pytest.mark.parametrize("version", ["2.3.1", "99.0.0", "3.99.0", "nightly"])
def test_unmodelled_versions_are_refused(llt: Any, version: str) -> None:
    with pytest.raises(llt.UnsupportedTritonError, match=r"not|cannot"):
        llt.release(version)


def test_the_refusal_lists_what_is_modelled(llt: Any) -> None:
    with pytest.raises(llt.UnsupportedTritonError) as info:
        llt.release("99.0.0")
    for release in linear_layout.releases():
        for minor in release.minors:
            assert minor in str(info.value)


def test_installed_release(llt: Any, triton_version: str) -> None:
    assert llt.release() == llt.release(triton_version)


def test_release_names_are_the_checkers(llt: Any, triton_version: str) -> None:
    # the checker accepts the name: an empty module in the release's dialect has no findings
    [info] = [r for r in linear_layout.releases() if r.name == llt.release()]
    module = f'module attributes {{"{info.dialect}.num-warps" = 4 : i32}} {{\n}}\n'
    assert llt.check_ttgir(module) == []
