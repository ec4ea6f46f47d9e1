#!/usr/bin/env bash
# One campaign over every GPU of the host: shard a case file (case i to GPU i mod N), run
# device_run.sh once per GPU (CUDA_VISIBLE_DEVICES=g, cores/N workers each), in parallel.
#
#   bash conformance/linear_layout_conformance/device_multi.sh CASES.jsonl.gz [NAME]
#
# Each GPU's run is bundled as NAME-gG-* in $OUT (4 files a GPU: two GPUs fill the 8 files a
# call returns; with more GPUs set BUNDLE=summary to keep only the summaries and results).
# Every summary records its wall time, so throughput per GPU comes straight from them.
# Environment: as device_run.sh (PYTHON, MAX_SECONDS), plus GPUS (default: all visible).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cases=$1; name=${2:-multi}
py=${PYTHON:-python3}
gpus=${GPUS:-$(nvidia-smi -L | wc -l)}
cores=$(nproc)
work=${CONFORMANCE_WORK:-/tmp/conformance}/$name
mkdir -p "$work"
"$py" - "$cases" "$gpus" "$work" "$name" <<'PY'
import gzip, sys
src, n, work, name = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
lines = [l for l in gzip.open(src, "rt") if l.strip()]
for g in range(n):
    with gzip.open(f"{work}/{name}-g{g}.jsonl.gz", "wt") as f:
        f.writelines(lines[g::n])
print(f"device_multi: {len(lines)} cases over {n} GPUs", file=sys.stderr)
PY
pids=()
for g in $(seq 0 $((gpus - 1))); do
  CUDA_VISIBLE_DEVICES=$g JOBS=$((cores / gpus)) CONFORMANCE_WORK=$work/run-g$g \
    bash "$here/device_run.sh" "$work/$name-g$g.jsonl.gz" > "$work/g$g.log" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
for g in $(seq 0 $((gpus - 1))); do echo "== GPU $g"; tail -n 25 "$work/g$g.log"; done
exit $rc
