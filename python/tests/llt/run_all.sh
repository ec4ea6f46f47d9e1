#!/usr/bin/env bash
# Usage: python/tests/llt/run_all.sh [--wheel WHEEL] [VERSION ...] [-- PYTEST_ARGS...]
#
# Runs the linear_layout.triton tests inside each release's venv
# (tests/oracle/venv.sh VERSION; the versions are `linear-layout releases
# --wheels`, or some of them: python/ci.sh passes CI's sample), installing
# pytest there when missing.
#
# Without --wheel the tests import the source tree (python/linear_layout,
# its native extension built in place). With --wheel WHEEL (or
# $LLT_WHEEL) they import that wheel instead, unpacked once into a scratch
# directory put on PYTHONPATH (the release venvs are shared and left as
# they are), with LLT_INSTALLED=1, from outside the source tree.
#
# $LLT_CONTAIN_RELEASES (default: every release given) names the releases
# that also run test_contain.py (an autotune through every kind of failure,
# a hang included: about a minute a release); the others deselect it, and
# run_all says so.
#
# Exits 1 when any release fails, or when a venv cannot be made (a missing
# wheel is a failure): nothing is skipped.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)

wheel=${LLT_WHEEL:-}
versions=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --wheel) wheel=$2; shift 2 ;;
    *) versions+=("$1"); shift ;;
  esac
done
[ "${1:-}" = "--" ] && shift
[ ${#versions[@]} -gt 0 ] || { echo "run_all: name the Triton versions to test (linear-layout releases --wheels)" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/llt-run-all.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
extra_env=()
if [ -n "$wheel" ]; then
  [ -f "$wheel" ] || { echo "run_all: no wheel at $wheel" >&2; exit 1; }
  mkdir "$scratch/site"
  python3 -m zipfile -e "$wheel" "$scratch/site" || { echo "run_all: cannot unpack $wheel" >&2; exit 1; }
  extra_env=(LLT_INSTALLED=1 "PYTHONPATH=$scratch/site")
  echo "run_all: testing the wheel $(basename "$wheel")" >&2
fi

failed=()
for v in "${versions[@]}"; do
  echo "=== triton $v" >&2
  if ! py=$(bash "$repo/tests/oracle/venv.sh" "$v"); then
    echo "run_all: no venv with triton==$v" >&2
    failed+=("$v"); continue
  fi
  if ! "$py" -c "import pytest" 2>/dev/null; then
    "$py" -m pip install --disable-pip-version-check -q pytest >&2 || { failed+=("$v"); continue; }
  fi
  # From the scratch directory: `python -m pytest` puts the working
  # directory first on sys.path, which must not be python/.
  select=()
  if [ -n "${LLT_CONTAIN_RELEASES:-}" ] && [[ " $LLT_CONTAIN_RELEASES " != *" $v "* ]]; then
    echo "run_all: triton $v without test_contain.py (LLT_CONTAIN_RELEASES=$LLT_CONTAIN_RELEASES)" >&2
    select=(--ignore "$here/test_contain.py")
  fi
  if ! (cd "$scratch" && env "${extra_env[@]}" LLT_TRITON_WHEEL="$v" \
      "$py" -m pytest -p no:cacheprovider "$here" "${select[@]}" "$@"); then
    failed+=("$v")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "run_all: failed for triton ${failed[*]}" >&2
  exit 1
fi
echo "run_all: all passed (${versions[*]})" >&2
