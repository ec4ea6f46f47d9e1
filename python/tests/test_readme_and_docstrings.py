"""The examples of ``python/README.md`` and of every docstring, run as doctests."""

from __future__ import annotations

import doctest
import inspect
import re
from pathlib import Path

import pytest

import linear_layout
from linear_layout import LinearLayout

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```pycon\n(.*?)^```", re.MULTILINE | re.DOTALL)


def run_examples(text: str, name: str, globs: dict) -> None:
    test = doctest.DocTestParser().get_doctest(text, globs, name, str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    runner.run(test, out=out.append, clear_globs=False)
    globs.update(test.globs)  # (a DocTest runs in a copy of its globals)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(out)


def readme_blocks() -> list[str]:
    return FENCE.findall(README.read_text(encoding="utf-8"))


def test_the_readme_has_examples() -> None:
    assert len(readme_blocks()) >= 6


def test_readme_examples() -> None:
    # One namespace for the whole README: later blocks use earlier names.
    globs: dict = {}
    for i, block in enumerate(readme_blocks()):
        run_examples(block, f"README block {i}", globs)


def documented() -> list[tuple[str, str]]:
    out = [("linear_layout", linear_layout.__doc__ or "")]
    # every public function and class: to_linear_layout, the finder, Record...
    for name in linear_layout.__all__:
        out.append((name, getattr(getattr(linear_layout, name), "__doc__", None) or ""))
    for name, member in inspect.getmembers(LinearLayout):
        doc = getattr(member, "__doc__", None) or ""
        if ">>>" in doc and not name.startswith("__"):
            out.append((f"LinearLayout.{name}", doc))
    return [d for d in out if ">>>" in d[1]]


@pytest.mark.parametrize(("name", "doc"), documented(), ids=[n for n, _ in documented()])
def test_docstring_examples(name: str, doc: str) -> None:
    globs = {n: getattr(linear_layout, n) for n in linear_layout.__all__}
    run_examples(doc, name, globs)


PYTHON_FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
TOP_README = README.parents[1] / "README.md"


def test_the_top_readme_shows_the_autotune_example_that_is_run() -> None:
    # The repository's README shows the autotuning example of python/README.md,
    # which tests/llt/test_readme.py runs under every supported Triton release:
    # the two must stay the same text.
    def autotune(path: Path) -> list[str]:
        blocks = PYTHON_FENCE.findall(path.read_text(encoding="utf-8"))
        return [b for b in blocks if "llt.install()" in b and "early_config_prune" in b]

    [ours] = autotune(README)
    assert autotune(TOP_README) == [ours]
