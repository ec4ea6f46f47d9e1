#!/usr/bin/env bash
# Usage: python/ci.sh
#
# CI for the Python package, from a clean clone (needs python3 >= 3.9, a Rust
# toolchain, and PyPI and crates.io; the Triton venvs of tests/oracle/venv.sh
# are made on first use). Every step fails the run when what it needs is
# missing: nothing is skipped.
#
#   1. the wheel: `pip wheel ./python` (the PEP 517 build `pip install
#      ./python` runs); its contents (the package, py.typed, the native
#      extension; not the conformance fuzzer, a package of its own) and the
#      sdist's (the workspace's sources; no campaign data);
#   2. a fresh venv with the wheel, pytest, ruff and mypy (pinned); the
#      package imports there without numpy, torch or triton;
#   3. ruff: format check and lint, over python/;
#   4. mypy --strict on the public modules (linear_layout, its records and
#      finder, linear_layout.triton), and stubtest: the stubs
#      (linear_layout/_native.pyi) against the built extension;
#   5. pytest python/tests/test_*.py, all but the tests marked `triton`,
#      against the installed wheel (README examples and docstrings included);
#   6. the side-by-side test against the newest release's wheel (the
#      release table's: linear_layout.releases() of the wheel built), in a
#      throwaway venv that sees the oracle venv's site-packages through a
#      .pth file (the oracle venvs are shared and left untouched);
#   7. the linear_layout.triton suite (guard, containment, prune, release,
#      README's autotune example) with the wheel, under each Triton release
#      of $LLT_RELEASES (default: CI's every-run sample of the release
#      table, .ci/releases.sh): python/tests/llt/run_all.sh --wheel. The
#      containment suite's autotune through every kind of failure
#      (test_contain.py, about a minute a release) runs under two of them
#      drawn by $LINEAR_LAYOUT_SEED: one whose failed assertions abort the
#      process and one whose raise (the table's `catches_crashes`); every
#      release runs the guard and prune tests, contained.
#
# The conformance fuzzer (conformance/) has its own runner, conformance/run_cpu.sh.
#
# Environment: PYTHON (default python3) makes the venvs; LINEAR_LAYOUT_SEED
# replays a side-by-side batch and the draw of step 7's containment releases
# (or name them: LLT_CONTAIN_RELEASES); RUFF_PATHS (default: all of python/)
# limits the ruff checks; LLT_RELEASES the Triton wheels of step 7; KEEP_CI_VENVS=1
# keeps the scratch directory (its path is printed). The step times are
# printed as the run goes, and the total at the end.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/linear-layout-ci.XXXXXX")
if [ "${KEEP_CI_VENVS:-0}" = 1 ]; then
  echo "ci: scratch directory kept: $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi

start=$SECONDS
step() { echo "=== ci: $* ($((SECONDS - start))s)" >&2; }
fail() { echo "ci: FAILED: $*" >&2; exit 1; }
quiet_pip() { "$@" --disable-pip-version-check -q; }

step "venv with pytest, ruff, mypy"
"$python" -m venv "$work/venv"
venv_py=$work/venv/bin/python
quiet_pip "$venv_py" -m pip install --upgrade pip
# ruff, mypy and maturin pinned: their verdicts change between releases.
quiet_pip "$venv_py" -m pip install pytest "ruff==${RUFF_VERSION:-0.17.6}" \
  "mypy==${MYPY_VERSION:-2.4.1}" "maturin==${MATURIN_VERSION:-1.16.0}"

step "the wheel (pip wheel ./python: the build pip install ./python runs)"
quiet_pip "$venv_py" -m pip wheel --no-deps -w "$work/wheels" "$repo/python"
wheels=("$work"/wheels/linear_layout-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel, got: ${wheels[*]}"
wheel=${wheels[0]}
echo "ci: $(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB" >&2

step "wheel and sdist contents"
(cd "$here" && "$work/venv/bin/maturin" sdist -o "$work/sdist" >/dev/null)
sdists=("$work"/sdist/linear_layout-*.tar.gz)
[ -f "${sdists[0]}" ] || fail "maturin sdist made no sdist"
"$venv_py" - "$wheel" "${sdists[0]}" <<'EOF'
import sys, tarfile, zipfile

wheel = zipfile.ZipFile(sys.argv[1]).namelist()
sdist = tarfile.open(sys.argv[2]).getnames()
fuzzer = [f for f in wheel if "conformance" in f]
if fuzzer:
    sys.exit(f"ci: the wheel holds the conformance fuzzer (a package of its own): {fuzzer[:3]}")
for name, files in (("wheel", wheel), ("sdist", sdist)):
    campaign = [f for f in files if "/campaign/cases-" in f]
    if campaign:
        sys.exit(f"ci: the {name} holds conformance campaign data: {campaign[:3]}")
    for needed in ("linear_layout/__init__.py", "linear_layout/_finder.py",
                   "linear_layout/triton/__init__.py", "linear_layout/py.typed"):
        if not any(f.endswith(needed) for f in files):
            sys.exit(f"ci: the {name} lacks {needed}")
if not any(f.startswith("linear_layout/_native") for f in wheel):
    sys.exit("ci: the wheel has no native extension")
print(f"ci: wheel {len(wheel)} files (no conformance fuzzer), sdist {len(sdist)} files: no campaign data")
EOF

step "install the wheel; import without numpy, torch, triton"
quiet_pip "$venv_py" -m pip install "$wheel"
(cd "$work" && "$venv_py" - <<'EOF'
import importlib.util, sys

present = [m for m in ("numpy", "torch", "triton") if importlib.util.find_spec(m)]
if present:
    sys.exit(f"ci: the fresh venv has {present}: the import check would prove nothing")
import linear_layout, linear_layout.triton  # noqa: E401

assert "site-packages" in linear_layout.__file__, linear_layout.__file__
print("ci: imports without optional deps:", linear_layout.__version__)
EOF
)

step "ruff format --check, ruff check"
read -r -a ruff_paths <<<"${RUFF_PATHS:-.}"
(cd "$here" && "$work/venv/bin/ruff" format --check "${ruff_paths[@]}" \
  && "$work/venv/bin/ruff" check "${ruff_paths[@]}")

step "mypy (public modules), stubtest"
(cd "$here" && "$work/venv/bin/mypy" -m linear_layout -m linear_layout._records \
  -m linear_layout._finder -m linear_layout.triton)
# From the scratch directory: the installed package, not the source tree.
(cd "$work" && "$venv_py" -m mypy.stubtest linear_layout._native)

step "pytest tests/test_*.py (-m 'not triton')"
# The pytest script, not `python -m pytest`: that would put python/ first on
# sys.path and import the source tree's linear_layout, not the installed one.
(cd "$here" && "$work/venv/bin/pytest" -p no:cacheprovider -q -m "not triton" tests/test_*.py)

# The release table of the wheel built.
# shellcheck source=../.ci/releases.sh
source "$repo/.ci/releases.sh"
table=$(cd "$work" && "$venv_py" -c 'import json, linear_layout as ll
print(json.dumps({"releases": [r.to_dict() for r in ll.releases()]}))') || fail "no release table"
load_releases "$table" || fail "cannot read the release table"

step "triton $newest oracle environment"
oracle_py=$(bash "$repo/tests/oracle/venv.sh" "$newest") || fail "no triton==$newest venv"
oracle_site=$("$oracle_py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$oracle_py" -m venv "$work/triton"
triton_py=$work/triton/bin/python
overlay_site=$("$triton_py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$oracle_site" >"$overlay_site/triton-$newest-oracle.pth"
quiet_pip "$triton_py" -m pip install --no-deps "$wheel"
quiet_pip "$triton_py" -m pip install pytest
(cd "$work" && "$triton_py" -c 'import triton, linear_layout; print("ci: triton", triton.__version__, "with linear_layout", linear_layout.__version__)')

step "side-by-side test against triton $newest"
# `python -m pytest` from the scratch directory, so that the source tree is
# not on sys.path.
(cd "$work" && "$triton_py" -m pytest -p no:cacheprovider -q "$here/tests/test_triton_side_by_side.py")

read -r -a llt_releases <<<"${LLT_RELEASES:-${every_run[*]}}"
if [ -z "${LLT_CONTAIN_RELEASES:-}" ]; then
  seed=${LINEAR_LAYOUT_SEED:-$((RANDOM * 32768 + RANDOM))}
  aborting=() raising=()
  for v in "${llt_releases[@]}"; do
    if [[ " ${aborts[*]} " == *" $v "* ]]; then aborting+=("$v"); else raising+=("$v"); fi
  done
  LLT_CONTAIN_RELEASES=""
  [ ${#aborting[@]} -gt 0 ] && LLT_CONTAIN_RELEASES+="${aborting[$((seed % ${#aborting[@]}))]} "
  [ ${#raising[@]} -gt 0 ] && LLT_CONTAIN_RELEASES+="${raising[$((seed / 7 % ${#raising[@]}))]}"
  echo "ci: containment suite under triton $LLT_CONTAIN_RELEASES (LINEAR_LAYOUT_SEED=$seed)" >&2
fi
export LLT_CONTAIN_RELEASES
step "linear_layout.triton with the wheel under triton ${llt_releases[*]}"
bash "$here/tests/llt/run_all.sh" --wheel "$wheel" "${llt_releases[@]}" -- -q

step "done in $((SECONDS - start))s"
