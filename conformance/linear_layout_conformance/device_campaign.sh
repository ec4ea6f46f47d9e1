#!/usr/bin/env bash
# A campaign made on the GPU machine itself: its 16 cores generate the TTGIR cases (our CLI
# lays them out: carry a release binary and set LINEAR_LAYOUT_BIN), merge them with
# Python-language cases (lang/, made anywhere: no crate needed), and run them all through
# device_run.sh with whichever Triton PYTHONPATH selects (device_wheel.sh).
#
#   bash device_campaign.sh NAME RELEASE SEED COUNT [LANG_CASES.jsonl.gz]
#
# RELEASE is the TTGIR dialect (3.9, 3.8, 3.6); COUNT TTGIR cases of SEED, made by
# $GEN_JOBS processes (default 8; case i depends only on SEED and i). The merged file,
# ordered by case index so that a time limit cuts both kinds alike, is copied to
# $OUT/NAME-cases.jsonl.gz for replay; then device_run.sh NAME (MAX_SECONDS) bundles the run,
# or, with GPUS=N > 1, device_multi.sh spreads it over N GPUs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
name=$1 release=$2 seed=$3 count=$4 lang=${5:-}
py=${PYTHON:-python3}
gen_jobs=${GEN_JOBS:-8}
work=${CONFORMANCE_WORK:-/tmp/conformance}/gen-$name
dest=${OUT:-/tmp/out}
mkdir -p "$work" "$dest"
t0=$(date +%s)
per=$(( (count + gen_jobs - 1) / gen_jobs ))
pids=()
for j in $(seq 0 $((gen_jobs - 1))); do
  n=$(( count - j * per < per ? count - j * per : per ))
  [ "$n" -gt 0 ] || continue
  "$py" "$here/__main__.py" generate --count "$n" --start $((j * per)) --seed "$seed" \
    --triton "$release" --out "$work/part-$j.jsonl.gz" > "$work/gen-$j.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "device_campaign: $count TTGIR cases generated in $(( $(date +%s) - t0 )) s with $gen_jobs processes" >&2
"$py" - "$work" "$dest/$name-cases.jsonl.gz" "$lang" <<'PY'
import glob, gzip, json, sys
work, out, lang = sys.argv[1], sys.argv[2], sys.argv[3]
cases = []
for p in sorted(glob.glob(f"{work}/part-*.jsonl.gz")):
    cases += [json.loads(l) for l in gzip.open(p, "rt") if l.strip()]
if lang:
    for c in (json.loads(l) for l in gzip.open(lang, "rt") if l.strip()):
        c["id"] = "L" + c["id"]  # apart from the TTGIR ids of the same seed
        cases.append(c)
cases.sort(key=lambda c: c["params"]["seed"][1])
with gzip.open(out, "wt") as f:
    f.writelines(json.dumps(c, separators=(",", ":")) + "\n" for c in cases)
print(f"device_campaign: {len(cases)} cases -> {out}", file=sys.stderr)
PY
cp "$dest/$name-cases.jsonl.gz" "$work/$name.jsonl.gz"
if [ "${GPUS:-1}" -gt 1 ]; then  # every GPU of the host, one shard each
  bash "$here/device_multi.sh" "$work/$name.jsonl.gz" "$name"
else
  bash "$here/device_run.sh" "$work/$name.jsonl.gz"
fi
