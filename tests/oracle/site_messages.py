"""Checks every failure site's messages against the real wheels.

Each site descriptor (`linear-layout sites --json`) says what Triton prints
where it fails, per span of releases. For every location and every modelled
release in its span, this script looks for the message in that release's
wheel (the one the release table names first):

- an assertion (`Assertion `EXPR' failed.`): EXPR is a string in
  `libtriton.so` (glibc's `__assert_fail` prints it verbatim);
- a fatal error (`LLVM ERROR: TEXT`) or an unreachable (`TEXT -- UNREACHABLE
  executed at …`): TEXT is a string in `libtriton.so`;
- a diagnostic: its text (the part before any value) is a string in
  `libtriton.so`, or text of the wheel's Python sources, where an f-string
  matches it with any values in its `{…}` fields (a Python exception's
  type, `AssertionError: `, is not part of the text).

A message that is not in the binary or the sources (a Python f-string, say)
counts as checked when a compile recorded with that wheel under
`tests/data/compile/` printed it (as its key line or in the last lines of
stderr kept with it). Anything else is a failure: the script
prints what it could not find and exits 1.

    python3 tests/oracle/site_messages.py --binary target/release/linear-layout

The wheels come from tests/oracle/venv.sh.
"""

import argparse
import glob
import gzip
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import venvs  # noqa: E402


def wheel_texts(version):
    """(strings of libtriton.so, the text of the wheel's Python sources)."""
    py = venvs.python(version)
    root = subprocess.run([py, "-c", "import os, triton; print(os.path.dirname(triton.__file__))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    libs = glob.glob(os.path.join(root, "_C", "libtriton*.so"))
    if not libs:
        sys.exit(f"triton {version}: no libtriton.so under {root}/_C")
    strings = subprocess.run(["strings", "-n", "4", libs[0]], capture_output=True, text=True,
                             check=True).stdout
    sources = []
    for path in glob.glob(os.path.join(root, "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8", errors="replace") as f:
            sources.append(f.read())
    return strings, "\n".join(sources)


def fstring_patterns(sources):
    """Regexes of the f-strings in `sources`: literal text, `{…}` as any."""
    pats = []
    for m in re.finditer(r"""\bf(['"])(.*?)(?<!\\)\1""", sources):
        body = m.group(2)
        if "{" not in body:
            continue
        parts = re.split(r"\{[^{}]*\}", body)
        if sum(len(p) for p in parts) < 15:
            continue
        pats.append(re.compile(".*?".join(re.escape(p) for p in parts)))
    return pats


def in_python(text, sources, patterns):
    """Whether the wheel's Python can print `text`."""
    text = re.sub(r"^[A-Za-z]+Error: ", "", text)
    if len(text) >= 8 and text in sources:
        return True
    return any(p.search(text) for p in patterns)


def recorded_messages(version):
    """Every message recorded from the wheel `version` under tests/data/compile,
    with the last lines of stderr recorded beside it."""
    short = ".".join(version.split(".")[:2])
    out = []
    paths = glob.glob(os.path.join(REPO, "tests/data/compile/*.jsonl"))
    paths += glob.glob(os.path.join(REPO, "tests/data/compile/*.jsonl.gz"))
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                rec = json.loads(line)
                if "header" in rec or "message" not in rec:
                    continue
                triton = rec.get("config", {}).get("triton", rec.get("triton"))
                if triton in (short, version) and rec.get("message"):
                    out.append(rec["message"])
                    # the lines printed after it (a pass manager's note naming its pass)
                    out.extend(rec.get("stderr_tail") or [])
    return out


def core(message):
    """The text Triton has in its binary or sources for a printed message."""
    m = re.fullmatch(r"Assertion `(.*)' failed\.", message, re.S)
    if m:
        return m.group(1)
    if message.startswith("LLVM ERROR: "):
        return message[len("LLVM ERROR: "):]
    if " -- UNREACHABLE executed at " in message:
        return message.split(" -- UNREACHABLE executed at ")[0]
    if message.startswith("error: "):
        return message[len("error: "):]
    return message


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True, help="the linear-layout binary")
    args = ap.parse_args()
    table = json.loads(subprocess.run([args.binary, "sites", "--json"], capture_output=True,
                                      text=True, check=True).stdout)
    wheel_of = {r["name"]: r["wheel"] for r in table["releases"]}
    texts, recorded = {}, {}
    checked = unverified = miscompiles = 0
    problems = []
    for site in table["sites"]:
        for loc in site["locations"]:
            message = loc["message"]
            if loc["ending"] == "miscompile":
                # Triton compiles these and prints nothing: the evidence is a
                # GPU run (notes/findings/), not a message in the wheel.
                if message:
                    problems.append(f"{site['id']} at {loc['location']}: a miscompile claims "
                                    f"Triton text {message[:80]!r}")
                miscompiles += len(loc["releases"])
                continue
            if not message:
                # The model claims no Triton text here (our algebra refusing a
                # step); nothing to check, and the notes say so.
                continue
            text = core(message).strip()
            for release in loc["releases"]:
                version = wheel_of[release]
                if version not in texts:
                    strings, sources = wheel_texts(version)
                    texts[version] = (strings, sources, fstring_patterns(sources))
                    recorded[version] = recorded_messages(version)
                strings, sources, patterns = texts[version]
                if loc["file"].endswith(".py"):
                    found = in_python(text, sources, patterns)
                else:
                    found = text in strings
                how = "wheel"
                if not found and any(message in r or text in r for r in recorded[version]):
                    found, how = True, "recorded"
                checked += 1
                if not found:
                    unverified += 1
                    problems.append(f"{site['id']} {release} ({version}) at {loc['location']}: "
                                    f"{text[:120]!r} is neither in the wheel nor recorded from it")
                elif os.environ.get("VERBOSE"):
                    print(f"ok ({how}) {site['id']} {release}: {text[:80]}")
    for p in problems:
        print("FAIL", p, file=sys.stderr)
    print(f"{checked - unverified} of {checked} (site, release) messages found in their wheel "
          f"or its recorded compiles; {miscompiles} (site, release) miscompiles skipped: "
          f"Triton prints nothing there")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
