# shellcheck shell=bash
# The Triton releases CI checks, read from the crate's release table: source
# this file, then `load_releases JSON` with the text of
# `linear-layout releases --json` (or of linear_layout.releases()). It sets
#
#   wheels           every modelled release's wheel, oldest first
#   newest           the newest one
#   multi_cta        the wheels of the releases whose several-CTA lowering is modelled
#   gluon            the wheels whose Gluon is the oracle of the attribute conversions
#   aborts           the wheels whose failed assertions kill the process (no crash
#                    reproducer catches them)
#   every_run        what every run checks: the releases up to the first that
#                    models several CTAs, and the newest
#   rotating         the others: each run checks one of them, chosen by its seed
#   amd              the wheels whose AMD targets are modelled
#
# and `wheel_of NAME` prints the wheel of the release named NAME ("3.2").
#
# The last two are CI's sampling choice (one rule, here); which releases exist,
# their wheels and what each models come from the table only.
load_releases() {
  release_json=$1
  local lines
  lines=$(python3 -c '
import json, sys
rows = json.loads(sys.argv[1])["releases"]
first_multi = next(i for i, r in enumerate(rows) if r["models_multi_cta"])
every = rows[: first_multi + 1] + [r for r in rows[first_multi + 1 :] if r["latest"]]
print(" ".join(r["wheel"] for r in rows))
print(" ".join(r["wheel"] for r in rows if r["models_multi_cta"]))
print(" ".join(r["wheel"] for r in rows if r["gluon_oracle"]))
print(" ".join(r["wheel"] for r in rows if not r["catches_crashes"]))
print(" ".join(r["wheel"] for r in every))
print(" ".join(r["wheel"] for r in rows if r not in every))
print(" ".join(r["wheel"] for r in rows if r["models_amd"]))
' "$1") || { echo "load_releases: cannot read the release table" >&2; return 1; }
  local w m g a e r d
  { read -r w; read -r m; read -r g; read -r a; read -r e; read -r r; read -r d; } <<<"$lines"
  read -r -a wheels <<<"$w"
  read -r -a multi_cta <<<"$m"
  read -r -a gluon <<<"$g"
  read -r -a aborts <<<"$a"
  read -r -a every_run <<<"$e"
  read -r -a rotating <<<"$r"
  read -r -a amd <<<"$d"
  newest=${wheels[${#wheels[@]}-1]}
  [ ${#wheels[@]} -gt 0 ] && [ ${#every_run[@]} -gt 0 ]
}

wheel_of() {
  python3 -c '
import json, sys
print(next(r["wheel"] for r in json.loads(sys.argv[1])["releases"] if r["name"] == sys.argv[2]))
' "$release_json" "$1"
}
