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
# (a venv whose interpreter is gone, made by another checkout, is made again)
if ! "$venv/bin/python" -c '' 2>/dev/null || [ ! -x "$venv/bin/pytest" ] || [ ! -x "$venv/bin/ruff" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --disable-pip-version-check -q pytest "ruff==${RUFF_VERSION:-0.17.6}"
fi
(cd "$here" && "$repo/$venv/bin/ruff" format --check . && "$repo/$venv/bin/ruff" check .)
cd "$here"
exec "$repo/$venv/bin/pytest" tests -q -p no:cacheprovider "$@"
