#!/usr/bin/env bash
# Runs the README's shell examples as a newcomer would type them, from the repository root,
# after CI has built and installed the `linear-layout` command (and made the Triton venvs).
#
#   bash .ci/readme.sh [README.md]
#
# Every ```sh block runs as one script, command by command (a `\` continuation joins lines), unless the
# line right above its fence says `<!-- ci: not run (WHY) -->`: those are listed with why,
# never passed over in silence. A command passes when it exits 0, or 1 where it reports a
# failure found (the exit status every command documents); anything else fails the run with
# the command's output. `scan` finds its Triton releases in the oracle's venvs
# (ORACLE_VENV_DIR, else target/oracle) through LINEAR_LAYOUT_CACHE, so nothing is
# downloaded twice; what the examples write in the checkout is removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
readme=${1:-README.md}
scratch=target/readme
rm -rf "$scratch"
mkdir -p "$scratch/cache"
venvs=$(realpath -m "${ORACLE_VENV_DIR:-target/oracle}")
ln -s "$venvs" "$scratch/cache/venvs"
export LINEAR_LAYOUT_CACHE=$PWD/$scratch/cache
command -v linear-layout >/dev/null || { echo "readme: linear-layout is not on PATH (install it first)"; exit 1; }

python3 - "$readme" "$scratch/commands" <<'PY'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read().splitlines()
blocks, i = [], 0
while i < len(text):
    if text[i].strip() == "```sh":
        above = text[i - 1].strip() if i else ""
        m = re.fullmatch(r"<!-- ci: not run \((.+)\) -->", above)
        j = i + 1
        while text[j].strip() != "```":
            j += 1
        lines, commands = text[i + 1:j], []
        for line in lines:
            if commands and commands[-1].endswith("\\"):
                commands[-1] = commands[-1][:-1] + " " + line.strip()
            elif line.strip() and not line.lstrip().startswith("#"):
                commands.append(line.strip())
        blocks.append({"line": i + 1, "skip": m.group(1) if m else None, "commands": commands})
        i = j
    i += 1
json.dump(blocks, open(sys.argv[2], "w"))
PY

before=$(git status --porcelain --untracked-files=all | sort)
# Each block runs as one script (a block's commands share its variables: `PY=$(...)`), each
# command followed by a check of its status, written to fd 3.
python3 - "$scratch/commands" "$scratch" <<'PY'
import json, shlex, sys
blocks = json.load(open(sys.argv[1]))
for n, b in enumerate(blocks):
    if b["skip"]:
        continue
    with open(f"{sys.argv[2]}/block-{n}.sh", "w") as f:
        f.write("set -o pipefail\n")
        for i, c in enumerate(b["commands"]):
            f.write(f"__t=$SECONDS; {{ {c}\n}}; __s=$?; echo \"{i} $__s $((SECONDS - __t))\" >&3; "
                    "[ $__s -le 1 ] || exit $__s\n")
PY
ran=0 skipped=0 failed=0
n=0
while read -r block; do
  line=$(python3 -c 'import json,sys; b=json.loads(sys.argv[1]); print(b["line"])' "$block")
  skip=$(python3 -c 'import json,sys; b=json.loads(sys.argv[1]); print(b["skip"] or "")' "$block")
  mapfile -t commands < <(python3 -c 'import json,sys; [print(c) for c in json.loads(sys.argv[1])["commands"]]' "$block")
  if [ -n "$skip" ]; then
    echo "readme:$line: not run ($skip):"
    printf '    %s\n' "${commands[@]}"
    skipped=$((skipped + ${#commands[@]}))
    n=$((n + 1))
    continue
  fi
  set +e
  timeout 1800 bash "$scratch/block-$n.sh" > "$scratch/out" 2>&1 3> "$scratch/status"
  status=$?
  set -e
  done_count=0
  while read -r i s t; do
    echo "readme:$line: exit $s in $t s: ${commands[$i]}"
    ran=$((ran + 1))
    done_count=$((i + 1))
  done < "$scratch/status"
  if [ "$status" -gt 1 ]; then
    echo "readme:$line: FAILED (exit $status) at: ${commands[$done_count - 1]:-${commands[0]}}"
    tail -n 30 "$scratch/out" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
  n=$((n + 1))
done < <(python3 -c 'import json,sys; [print(json.dumps(b)) for b in json.load(open(sys.argv[1]))]' "$scratch/commands")

# what the examples wrote into the checkout (`--out repro/`, `scan.xml`, ...)
after=$(git status --porcelain --untracked-files=all | sort)
comm -13 <(echo "$before") <(echo "$after") | sed -n 's/^?? //p' | while read -r path; do
  echo "readme: removing what an example wrote: $path"
  rm -f -- "$path"
done
find repro -type d -empty -delete 2>/dev/null || true
echo "readme: $ran command(s) run, $failed block(s) failed; $skipped not run (listed above)"
[ "$failed" -eq 0 ]
