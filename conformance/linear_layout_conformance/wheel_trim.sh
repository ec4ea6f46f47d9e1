#!/usr/bin/env bash
# Trim a Triton wheel to what an sm90 compile needs, so that it fits one device call's carry
# (64 MiB): the GPU machine has no network and one Triton, and a wheel is 250-290 MB.
#
#   bash wheel_trim.sh triton-3.9.0-cp312-....whl OUT.tar.zst
#
# ZSTD_LEVEL (default 19); NO_PTXAS=1 leaves both assemblers out (see below).
#
# Kept: the Python package, libtriton.so (debug symbols stripped: 477 -> 192 MB), the
# assembler the release uses for sm90 (3.9: `ptxas-blackwell`, CUDA 13.4; 3.6-3.8: `ptxas`,
# 12.9; see `get_ptxas` in backends/nvidia/compiler.py), libdevice, headers. Dropped: the AMD
# backend, CUPTI, proton, the other assembler (a symlink to the kept one, since the knobs look
# both up). On the GPU machine `device_wheel.sh` unpacks it onto PYTHONPATH with
# TRITON_BACKENDS_IN_TREE=1 (no dist-info, so no entry points).
set -euo pipefail
whl=$(realpath "$1"); out=$(realpath -m "$2")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 -m zipfile -e "$whl" .
t=triton
rm -rf $t/backends/amd $t/backends/nvidia/lib/cupti* $t/_C/libproton.so $t/instrumentation
strip --strip-unneeded $t/_C/libtriton.so
bin=$t/backends/nvidia/bin
chmod +x "$bin"/*  # zipfile extraction drops the execute bits
if grep -q "return knobs.nvidia.ptxas_blackwell$" $t/backends/nvidia/compiler.py; then
  keep=ptxas-blackwell; drop=ptxas      # 3.9: every arch >= 90 uses ptxas-blackwell
else
  keep=ptxas; drop=ptxas-blackwell
fi
rm -f "$bin/$drop"; ln -s "$keep" "$bin/$drop"
if [ -n "${NO_PTXAS:-}" ]; then
  # the assembler travels apart (one ptxas 12.9 serves 3.6-3.8, and 3.9 as its second
  # assembler): the run sets TRITON_PTXAS_PATH and TRITON_PTXAS_BLACKWELL_PATH to it
  rm -f "$bin/ptxas" "$bin/ptxas-blackwell"
fi
find $t -name __pycache__ -prune -exec rm -rf {} +
tar cf - $t | zstd -q "-${ZSTD_LEVEL:-19}" --long=27 -T2 -o "$out" -f
ls -l "$out" | awk '{print $5, $9}'
