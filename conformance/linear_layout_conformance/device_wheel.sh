#!/usr/bin/env bash
# Bring another Triton release onto the GPU machine (which has one, and no network), for
# device_run.sh: reassemble a trimmed wheel (wheel_trim.sh) carried in pieces over several
# calls of a warm machine, unpack it once, and print the environment that selects it.
#
#   eval "$(bash device_wheel.sh 3.9.0 PIECE...)"      # pieces in order: split -b of the .tar.zst
#   PYTHON=python3 bash device_run.sh cases.jsonl.gz   # now runs with triton 3.9.0
#
# Pieces already copied by an earlier call stay in $WHEELS (default /tmp/wheels) on a warm
# machine; a call passes only the pieces it carries. The package lands in $WHEELS/VERSION and
# is used through PYTHONPATH (ahead of the system's triton; torch and numpy stay the system's)
# with TRITON_BACKENDS_IN_TREE=1: the trimmed tree has no dist-info, hence no entry points.
# Without a zstd binary (the H200 machines have none) it decompresses in Python with the
# `zstandard` wheel installed under $ZSTD_SITE (pip install --no-deps --target /tmp/zs ...).
set -euo pipefail
ver=$1; shift
store=${WHEELS:-/tmp/wheels}
mkdir -p "$store/pieces-$ver"
for p in "$@"; do cp "$p" "$store/pieces-$ver/"; done
if [ ! -d "$store/$ver/triton" ]; then
  if [ -n "${EXPECT_PIECES:-}" ] && [ "$(ls "$store/pieces-$ver" | wc -l)" -lt "$EXPECT_PIECES" ]; then
    echo "echo 'device_wheel: $ver: $(ls "$store/pieces-$ver" | wc -l) of $EXPECT_PIECES pieces so far' >&2"
    exit 0
  fi
  mkdir -p "$store/$ver"
  if command -v zstd >/dev/null; then
    cat "$store/pieces-$ver"/* | zstd -d -q --long=27 | tar xf - -C "$store/$ver"
  else  # the H200 machines have no zstd: the `zstandard` wheel (carried, on $ZSTD_SITE) does it
    PYTHONPATH=${ZSTD_SITE:-/tmp/zs} python3 - "$store/pieces-$ver" "$store/$ver" <<'PY'
import glob, io, sys, tarfile
import zstandard
data = b"".join(open(p, "rb").read() for p in sorted(glob.glob(sys.argv[1] + "/*")))
raw = zstandard.ZstdDecompressor(max_window_size=2**31).stream_reader(io.BytesIO(data))
tarfile.open(fileobj=raw, mode="r|").extractall(sys.argv[2])
PY
  fi
  chmod +x "$store/$ver"/triton/backends/nvidia/bin/*  # /tmp is not noexec; the bits may be lost
fi
echo "export PYTHONPATH=$store/$ver\${PYTHONPATH:+:\$PYTHONPATH} TRITON_BACKENDS_IN_TREE=1"
