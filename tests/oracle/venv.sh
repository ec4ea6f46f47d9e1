#!/usr/bin/env bash
# Usage: tests/oracle/venv.sh VERSION
# Makes (once) a Python venv with triton==VERSION for the oracle scripts and
# prints the path of its python on stdout.  The venv lives in
# $ORACLE_VENV_DIR/venv-VERSION, or target/oracle/venv-VERSION by default.
set -euo pipefail

die() { echo "venv.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: $0 VERSION   (e.g. $0 3.9.0)"
version=$1
case $version in
  *[!0-9A-Za-z.+-]*) die "odd version string: $version" ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
parent=${ORACLE_VENV_DIR:-$repo/target/oracle}
venv=$parent/venv-$version
py=$venv/bin/python
stamp=$venv/.oracle-ready

probe() {
  "$py" - "$version" <<'PY' >/dev/null 2>&1
import sys
import triton
from triton.compiler import ASTSource  # noqa: F401  (every release compiles on CPU)
sys.exit(0 if triton.__version__ == sys.argv[1] else 1)
PY
}

# Reuse: quiet, just the path.
if [ -f "$stamp" ] && [ -x "$py" ] && probe; then
  echo "$py"
  exit 0
fi

command -v python3 >/dev/null || die "python3 not found"
mkdir -p "$parent" || die "cannot create $parent"
if [ ! -x "$py" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2 || die "python3 -m venv $venv failed"
fi
rm -f "$stamp"

log=$venv/pip-install.log
echo "venv.sh: installing triton==$version into $venv ..." >&2
if ! "$py" -m pip install --disable-pip-version-check "triton==$version" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  die "pip install triton==$version failed (full log: $log)"
fi
probe || die "triton $version installed but does not import (see $log)"
touch "$stamp"
echo "$py"
