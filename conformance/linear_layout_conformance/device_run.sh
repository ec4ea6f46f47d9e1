#!/usr/bin/env bash
# The GPU conformance campaign, run from the repository root on the GPU machine:
#
#   bash conformance/linear_layout_conformance/device_run.sh SET [extra run options]
#
# SET is one of
#   smoke    the 400 cases of campaign/cases-smoke.jsonl.gz, 120 s budget: checks that
#            compiling, launching and comparing work on this machine (about 1-2 min)
#   a, b     the 12000 cases of campaign/cases-a.jsonl.gz / cases-b.jsonl.gz, 420 s budget
#   FILE     any case file (.jsonl or .jsonl.gz)
#   shrink FAILURES [--id ID] [--max-tries N]
#            shrink one failing case (FAILURES: a NAME-failures.jsonl.gz this script wrote, or
#            a failures/ID.json) and write a reproducer; needs our CLI binary to lay out the
#            smaller cases: carry target/release/linear-layout (the path this script looks
#            at, from the repository root), or set LINEAR_LAYOUT_BIN
#
# Needs only python3 with triton (3.6.0) and torch with CUDA: the cases were generated and
# laid out by our crate beforehand. The case files are not in git (campaign/.gitignore):
# make them with `python3 conformance/linear_layout_conformance/__main__.py campaign` and carry
# conformance/linear_layout_conformance/campaign. The run writes to ${CONFORMANCE_WORK:-/tmp/conformance}/SET
# and then packs it into 4 files in $OUT (or target/conformance-device/):
# conformance-SET-results.jsonl.gz, -failures.jsonl.gz, -summary.txt, -logs.txt.gz
# ($OUT returns at most 8 files: two sets fit in one call, e.g. `... a && ... b`).
# Environment: PYTHON (default python3), JOBS (default: number of cores), MAX_SECONDS.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
py=${PYTHON:-python3}
jobs=${JOBS:-$(nproc)}
work=${CONFORMANCE_WORK:-/tmp/conformance}
dest=${OUT:-$repo/target/conformance-device}
export PYTHONUNBUFFERED=1
set_name=${1:-smoke}
[ $# -gt 0 ] && shift
mkdir -p "$work" "$dest"

"$py" - <<'PY' >&2
import sys
import triton
import torch
ok = torch.cuda.is_available()
print(f"device_run: python {sys.version.split()[0]}, triton {triton.__version__}, torch {torch.__version__}, "
      f"cuda {ok}" + (f", {torch.cuda.get_device_name()}" if ok else ""))
if not ok:
    sys.exit("device_run: no CUDA device visible to torch")
if not triton.__version__.startswith("3.6"):
    print("device_run: warning: the case files are TTGIR for Triton 3.6", file=sys.stderr)
PY

main=$here/__main__.py
# Our CLI, when carried: shrink needs it; a run uses it to name the known
# families that are the crate's miscompile sites (families.py).
if [ -z "${LINEAR_LAYOUT_BIN:-}" ] && [ -x "$repo/target/release/linear-layout" ]; then
  export LINEAR_LAYOUT_BIN=$repo/target/release/linear-layout
fi
if [ "$set_name" = shrink ]; then
  [ $# -ge 1 ] || { echo "usage: $0 shrink FAILURES [--id ID] [options]" >&2; exit 2; }
  if [ -z "${LINEAR_LAYOUT_BIN:-}" ] || ! "$LINEAR_LAYOUT_BIN" --version >/dev/null 2>&1; then
    echo "device_run: shrink needs our CLI: carry target/release/linear-layout (or set LINEAR_LAYOUT_BIN)" >&2
    exit 2
  fi
  failure=$1; shift
  sout=$work/shrink
  rm -rf "$sout"
  rc=0
  "$py" "$main" shrink "$failure" --out "$sout" --jobs "$jobs" "$@" 2>&1 | tee "$dest/shrink.log" || rc=$?
  for f in shrunk.json shrunk.ttgir repro.py; do
    [ -f "$sout/$f" ] && cp "$sout/$f" "$dest/$f"
  done
  exit $rc
fi

case $set_name in
  smoke) cases=$here/campaign/cases-smoke.jsonl.gz; budget=${MAX_SECONDS:-120} ;;
  a) cases=$here/campaign/cases-a.jsonl.gz; budget=${MAX_SECONDS:-420} ;;
  b) cases=$here/campaign/cases-b.jsonl.gz; budget=${MAX_SECONDS:-420} ;;
  *) cases=$set_name; budget=${MAX_SECONDS:-420}; set_name=$(basename "$set_name" | sed 's/\..*//') ;;
esac
[ -f "$cases" ] || {
  echo "device_run: no case file $cases: make it with \`python3 conformance/linear_layout_conformance/__main__.py campaign\` and carry conformance/linear_layout_conformance/campaign" >&2
  exit 2
}
case $set_name in
  smoke | a | b)
    # the files here must be the ones the manifest lists (replay needs the same cases)
    "$py" "$main" campaign --check --only "$(basename "$cases")" ||
      { echo "device_run: $cases is not the one campaign/MANIFEST.json lists" >&2; exit 2; } ;;
esac
out=$work/$set_name
rm -rf "$out"

start=$(date +%s)
rc=0
"$py" "$main" run --cases "$cases" --out "$out" --jobs "$jobs" --cache "$work/cache" \
  --max-seconds "$budget" "$@" || rc=$?
echo "device_run: $set_name finished in $(( $(date +%s) - start )) s (exit $rc; 1 = some case did not pass)" >&2
"$py" "$main" bundle "$out" "$dest" --prefix "conformance-$set_name"
cat "$out/summary.json" >&2 || true
exit 0
