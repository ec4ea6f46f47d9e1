#!/usr/bin/env bash
# CPU tests of the GPU conformance fuzzer (no GPU needed), for CI: about 2-4 minutes on 2 cores.
#
#   bash python/tests/conformance/run_cpu.sh [pytest options]
#
# Builds our CLI if missing (the layout oracle), installs numpy (the lang/ families), makes the triton 3.6.0, 3.9.0, 3.4.0, 3.2.0, 3.7.1 and 3.8.0
# venvs through tests/oracle/venv.sh (once), and runs pytest from a small venv of its own
# (target/conformance/pytest-venv). A missing wheel fails the tests; it does not skip them.
# CONFORMANCE_SEED repeats a run's fresh sample; CONFORMANCE_SAMPLE sets its size (default 24
# per release and target); CONFORMANCE_JOBS the compile processes (default 2).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$repo"
[ -x target/release/linear-layout ] || cargo build --release
for v in 3.6.0 3.9.0 3.4.0 3.2.0 3.7.1 3.8.0; do
  bash tests/oracle/venv.sh "$v" >/dev/null
done
venv=target/conformance/pytest-venv
if [ ! -x "$venv/bin/pytest" ] || ! "$venv/bin/python" -c "import numpy" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --disable-pip-version-check -q pytest numpy
fi
# numpy for the workers of the Python-language families (the wheel venvs have none)
deps=target/conformance/pydeps
if ! PYTHONPATH=$deps "$(bash tests/oracle/venv.sh 3.9.0)" -c "import numpy" 2>/dev/null; then
  "$venv/bin/pip" install --disable-pip-version-check -q --target "$deps" numpy
fi
# only the lang workers get it (test_lang.py): with numpy importable, the TTGIR self-check's
# matmul takes numpy's path, which its symbolic values do not survive
export CONFORMANCE_LANG_PYDEPS=$repo/$deps
exec "$venv/bin/pytest" python/tests/conformance -q -p no:cacheprovider "$@"
