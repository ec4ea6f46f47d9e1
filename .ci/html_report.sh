#!/usr/bin/env bash
# The HTML reports (`search --html`, `scan --html`) as a real browser reads
# them: Debian's chromium, installed when missing, loads each page headless,
# dumps the DOM it built, and html_report_check.py compares it with the
# JSON report of the same run (table rows, site sections, an SVG per figure,
# nothing fetched from outside); a screenshot of each is taken.
#
#   .ci/html_report.sh [BINARY] [SCREENSHOT_DIR]
#
# BINARY defaults to target/release/linear-layout; SCREENSHOT_DIR to
# target/html-report (notes/img/ holds the committed ones). The scan page
# needs Triton 3.2.0's wheel (tests/oracle/venv.sh creates the venv when
# missing). Fails, never skips, when the browser cannot be installed or run.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/linear-layout}
shots=${2:-target/html-report}
out=target/html-report
mkdir -p "$out" "$shots"
shots=$(cd "$shots" && pwd)  # absolute: chromium is handed full paths
[ -x "$bin" ] || { echo "html_report: no binary at $bin (cargo build --release first)" >&2; exit 1; }

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "== installing chromium (apt-get)"
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "html_report: chromium is missing and cannot be installed here (needs root and apt-get)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
  browser=$(command -v chromium) || { echo "html_report: chromium did not install" >&2; exit 1; }
fi
"$browser" --version

# Headless, as root in a container: no sandbox, no GPU, no first-run work.
chrome() {
  "$browser" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --disable-background-networking "$@" 2>"$out/chromium.log"
}

# PAGE NAME MIN_FIGURES HEIGHT: dump the DOM, check it against NAME.json,
# screenshot the top HEIGHT CSS pixels (1000 wide) at 0.6 scale: small PNGs.
check_page() {
  local page=$1 name=$2 min_figures=$3 height=$4
  local start end
  start=$(date +%s%N)
  chrome --dump-dom "file://$PWD/$page" > "$out/$name.dom.html" \
    || { echo "html_report: chromium failed on $page:" >&2; cat "$out/chromium.log" >&2; exit 1; }
  end=$(date +%s%N)
  [ -s "$out/$name.dom.html" ] || { echo "html_report: chromium dumped nothing for $page" >&2; cat "$out/chromium.log" >&2; exit 1; }
  python3 .ci/html_report_check.py "$out/$name.dom.html" "$out/$name.json" --min-figures "$min_figures"
  chrome --screenshot="$shots/html-report-$name.png" --window-size="1000,$height" \
    --force-device-scale-factor=0.6 "file://$PWD/$page" >/dev/null \
    || { echo "html_report: no screenshot of $page:" >&2; cat "$out/chromium.log" >&2; exit 1; }
  [ -s "$shots/html-report-$name.png" ] || { echo "html_report: empty screenshot of $page" >&2; exit 1; }
  echo "$page: $(wc -c < "$page") bytes, loaded and dumped in $(( (end - start) / 1000000 )) ms; screenshot $shots/html-report-$name.png"
}

echo "== search --html: 3.2's chained dots on sm80 and sm90 (a bug and a rejection)"
set +e
"$bin" search --triton 3.2 --pattern chain-b --sizes 16,64 --dtype bf16,fp8e4nv --num-warps 4,8 \
  --num-stages 1 --arch sm80,sm90 --num-ctas 1 --quiet --json --html "$out/search.html" > "$out/search.json"
status=$?
set -e
[ "$status" -eq 1 ] || { echo "html_report: search exited with $status, expected 1 (failures found)" >&2; exit 1; }
check_page "$out/search.html" search 2 2000

echo "== scan --html: the grid's chain-b kernel at the stmatrix configuration, Triton 3.2.0 (pictures from the minimal TTGIR module)"
py=$(bash tests/oracle/venv.sh 3.2.0)
set +e
"$bin" scan tests/oracle/compile/grid_kernels.py::grid_chain_b \
  --args 'a_ptr=*bf16, b_ptr=*bf16, d_ptr=*bf16, o_ptr=*bf16, M=64, N=16, K=16, X=64' \
  --num-warps 8 --num-stages 1 --arch sm90 --triton 3.2 --python "3.2=$py" --quiet \
  --json --html "$out/scan.html" > "$out/scan.json"
status=$?
set -e
[ "$status" -eq 1 ] || { echo "html_report: scan exited with $status, expected 1 (stmatrix)" >&2; exit 1; }
check_page "$out/scan.html" scan 2 2000
echo "html_report: ok"
