#!/usr/bin/env bash
# Before a layout is blamed: run every case that did not pass again, assembled by another
# ptxas (the machine's CUDA toolkit, or another wheel's), through device_run.sh.
#
#   bash device_second_ptxas.sh FAILURES.jsonl.gz NAME PTXAS
#
# FAILURES is a bundle's NAME-failures.jsonl.gz ({case, record} lines); PTXAS replaces the
# release's assembler for every arch (TRITON_PTXAS_PATH and TRITON_PTXAS_BLACKWELL_PATH: 3.9
# assembles sm90 with ptxas-blackwell, 3.6-3.8 with ptxas). Each record names the ptxas it used.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
failures=$1 name=$2 ptxas=$3
py=${PYTHON:-python3}
work=${CONFORMANCE_WORK:-/tmp/conformance}
mkdir -p "$work"
"$py" - "$failures" "$work/$name.jsonl.gz" <<'PY'
import gzip, json, sys
src, out = sys.argv[1], sys.argv[2]
cases = [json.loads(l)["case"] for l in gzip.open(src, "rt") if l.strip()]
with gzip.open(out, "wt") as f:
    f.writelines(json.dumps(c) + "\n" for c in cases)
print(f"device_second_ptxas: {len(cases)} cases again", file=sys.stderr)
PY
TRITON_PTXAS_PATH=$ptxas TRITON_PTXAS_BLACKWELL_PATH=$ptxas bash "$here/device_run.sh" "$work/$name.jsonl.gz"
