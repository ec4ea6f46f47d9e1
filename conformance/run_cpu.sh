#!/usr/bin/env bash
# CPU tests of the GPU conformance fuzzer (no GPU needed), for CI: a few minutes on 2 cores.
#
#   bash conformance/run_cpu.sh [pytest options]
#
# Builds our CLI if missing (the layout oracle: the tests run the package as the GPU
# machine does, without the linear_layout extension), makes a small venv of its own
# (target/conformance/pytest-venv: pytest and ruff, pinned), checks the package with ruff
# and runs its tests. The tests make the venv of each Triton wheel they compile with
# (tests/oracle/venv.sh, once; the wheels are the release table's); a missing wheel fails
# them, it does not skip them.
# CONFORMANCE_SEED repeats a run's fresh sample; CONFORMANCE_SAMPLE sets its size (default
# 24 per release and target); CONFORMANCE_JOBS the compile processes (default 2).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cd "$repo"
[ -x target/release/linear-layout ] || cargo build --release
venv=target/conformance/pytest-venv
# (a venv whose interpreter is gone, made by another checkout, is made again; numpy serves
# the expected values of the Python-language families)
if ! "$venv/bin/python" -c 'import numpy' 2>/dev/null || [ ! -x "$venv/bin/pytest" ] || [ ! -x "$venv/bin/ruff" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --disable-pip-version-check -q pytest numpy "ruff==${RUFF_VERSION:-0.17.6}"
fi
# numpy for the workers of the Python-language families (the wheel venvs have none), installed
# for the newest wheel's interpreter
# shellcheck source=.ci/releases.sh
source .ci/releases.sh
load_releases "$(target/release/linear-layout releases --json)"
deps=target/conformance/pydeps
if ! PYTHONPATH=$deps "$(bash tests/oracle/venv.sh "$newest")" -c "import numpy" 2>/dev/null; then
  "$venv/bin/pip" install --disable-pip-version-check -q --target "$deps" numpy
fi
# only the lang workers get it (test_lang.py): with numpy importable, the TTGIR self-check's
# matmul takes numpy's path, which its symbolic values do not survive
export CONFORMANCE_LANG_PYDEPS=$repo/$deps
(cd "$here" && "$repo/$venv/bin/ruff" format --check . && "$repo/$venv/bin/ruff" check .)
cd "$here"
exec "$repo/$venv/bin/pytest" tests -q -p no:cacheprovider "$@"
