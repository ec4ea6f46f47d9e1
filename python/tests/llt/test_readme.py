"""The README's autotuning example, run for real under the installed release."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import llt_support as lls
import pytest

pytestmark = pytest.mark.triton

README = Path(lls.PYTHON_DIR) / "README.md"


def autotune_block() -> str:
    blocks = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
    [block] = [b for b in blocks if "llt.install()" in b and "early_config_prune" in b]
    return block


def test_the_readme_protects_an_autotuned_kernel(llt: Any, tmp_path: Path) -> None:
    path = tmp_path / "readme_autotune.py"
    path.write_text(autotune_block(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("readme_autotune", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # @triton.jit reads the source from the file
    assert llt.installed()
    kernel = module.double
    assert kernel.early_config_prune is llt.prune
    x, y = lls.FakeTensor("float32"), lls.FakeTensor("float32")
    kernel[(1,)](x, y, 4096)
    assert kernel.best_config in kernel.configs
    timings = kernel.configs_timings
    assert timings is not None
    assert len(timings) == len(kernel.configs)
