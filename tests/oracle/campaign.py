"""A differential campaign: Triton 3.9's LinearLayout binding and Gluon's
to_linear_layout against linear-layout's `eval` and `convert --batch`.

Run with the 3.9.0 venv's python (`bash tests/oracle/venv.sh 3.9.0`):

    campaign.py --binary target/release/linear-layout --minutes 60 [--max-cases N] [--seed S]

It loops over fresh random batches (each case evaluated by Triton in a child
process, since Triton aborts), until the time or case budget is spent, and
classifies every case:

- agree: same answer (or both refuse);
- disagree: different answers;
- triton-aborts-on-valid-input: Triton died on an input we accept (a
  precondition the header does not state, or a Triton bug);
- triton-breaks-a-law: Triton answered, but the answer breaks a law the header
  promises (checked in plain Python GF(2) arithmetic): `invert_and_compose`
  must satisfy b(c(x)) = a(x), `pseudoinvert` must be a right inverse, `invert`
  a two-sided one.

Every case that is not `agree` is shrunk (bases dropped one at a time while the
class persists) and written to `notes/findings/` with a Python reproducer.
The counts table is printed and written to `target/campaign/seed-SEED.md`, to be
copied into `notes/findings/README.md`, which holds the current totals.
"""

import argparse
import collections
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import algebra_oracle as ao  # noqa: E402
import encodings_oracle as eo  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gf2_apply(lay, x):
    """Apply a JSON layout to {in_dim: value} with XOR, in plain Python."""
    out = [0] * len(lay["out_dims"])
    for name, vectors in lay["bases"]:
        v = x.get(name, 0)
        for i, basis in enumerate(vectors):
            if v >> i & 1:
                out = [a ^ b for a, b in zip(out, basis)]
    return {n: c for (n, _), c in zip(lay["out_dims"], out)}


def inputs(lay, limit=256):
    """Every input (or the first `limit`) as {in_dim: value} dicts."""
    sizes = [(n, 1 << len(v)) for n, v in lay["bases"]]
    total = 1
    for _, s in sizes:
        total *= s
    for flat in range(min(total, limit)):
        x, rest = {}, flat
        for n, s in sizes:
            x[n] = rest % s
            rest //= s
        yield x


def breaks_law(req, answer):
    """Does Triton's answer break a promised law? Returns a description or None."""
    op = req["op"]
    if op == "invert_and_compose":
        a, b, c = req["a"], req["b"], answer
        for x in inputs(a):
            if gf2_apply(b, gf2_apply(c, x)) != gf2_apply(a, x):
                return f"b(c(x)) != a(x) at x = {x}"
    if op in ("pseudoinvert", "invert"):
        lay, p = req["a"], answer
        for y in inputs(p):
            if gf2_apply(lay, gf2_apply(p, y)) != y:
                return f"a(p(y)) != y at y = {y}"
    return None


def classify_algebra(case, ours):
    expect = case["expect"]
    if "ok" in expect:
        law = breaks_law(case["request"], expect["ok"])
        if law:
            return "triton-breaks-a-law", law
    if ao.agrees(expect, ours):
        return "agree", None
    if "error" in expect and "ok" in ours and expect["error"].get("triton") == "abort":
        return "triton-aborts-on-valid-input", expect["error"].get("message")
    return "disagree", None


def shrink_algebra(case, binary, klass):
    """Drop bases one at a time while the classification stays the same."""
    req = json.loads(json.dumps(case["request"]))
    t = ao.Triton()
    try:
        changed = True
        while changed:
            changed = False
            for key in ("a", "b"):
                lay = req.get(key)
                if not isinstance(lay, dict):
                    continue
                for d, (name, vectors) in enumerate(lay["bases"]):
                    for i in range(len(vectors)):
                        trial = json.loads(json.dumps(req))
                        del trial[key]["bases"][d][1][i]
                        kind, val = t.evaluate(trial)
                        if kind == "skip":
                            continue
                        ours = ao.run_binary(binary, [trial])[0]
                        if classify_algebra({"request": trial, "expect": val}, ours)[0] == klass:
                            req, changed = trial, True
                            break
                    if changed:
                        break
                if changed:
                    break
        kind, val = t.evaluate(req)
    finally:
        t.close()
    return {"request": req, "expect": val}


def python_repro(req):
    return (
        "from triton._C.libtriton.linear_layout import LinearLayout as L\n"
        "def build(j):\n"
        "    return L.from_bases(j['bases'], [n for n, _ in j['out_dims']], [s for _, s in j['out_dims']], False)\n"
        f"req = {json.dumps(req)}\n"
        "a = build(req['a']) if 'a' in req else None\n"
        "b = build(req['b']) if 'b' in req else None\n"
        "op = req['op']\n"
        "r = {'product': lambda: a * b, 'compose': lambda: a.compose(b),\n"
        "     'invert_and_compose': lambda: a.invert_and_compose(b), 'invert': lambda: a.invert(),\n"
        "     'pseudoinvert': lambda: a.pseudoinvert()}.get(op, lambda: None)()\n"
        "print(r)\n"
    )


def write_finding(kind, n, case, ours, detail):
    os.makedirs(os.path.join(REPO, "notes", "findings"), exist_ok=True)
    path = os.path.join(REPO, "notes", "findings", f"{kind}-{n}.md")
    with open(path, "w") as f:
        f.write(f"# {kind} #{n}\n\n")
        if detail:
            f.write(f"{detail}\n\n")
        f.write("Request (our `eval` format):\n\n```json\n" + json.dumps(case["request"]) + "\n```\n\n")
        f.write("Triton 3.9.0:\n\n```json\n" + json.dumps(case["expect"]) + "\n```\n\n")
        f.write("linear-layout:\n\n```json\n" + json.dumps(ours) + "\n```\n\n")
        if "attr" not in case["request"]:
            f.write("Python reproducer (run with the 3.9.0 wheel):\n\n```python\n" + python_repro(case["request"]) + "```\n")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--max-cases", type=int, default=10**9)
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--batch", type=int, default=400)
    args = ap.parse_args()
    deadline = time.monotonic() + args.minutes * 60
    counts = collections.Counter()
    findings = []
    seed, total = args.seed, 0
    started = time.monotonic()
    while time.monotonic() < deadline and total < args.max_cases:
        cases, _ = ao.record_cases(seed, args.batch, progress=False)
        answers = ao.run_binary(args.binary, [c["request"] for c in cases])
        for c, ours in zip(cases, answers):
            klass, detail = classify_algebra(c, ours)
            counts[("algebra", klass)] += 1
            if klass != "agree":
                shrunk = shrink_algebra(c, args.binary, klass)
                ours2 = ao.run_binary(args.binary, [shrunk["request"]])[0]
                findings.append(write_finding(klass, len(findings) + 1, shrunk, ours2, detail))
        total += len(cases)
        if time.monotonic() >= deadline:
            break
        enc, _, _, _ = eo.evaluate_batch(seed, args.batch // 2, progress=False)
        answers = eo.run_binary(args.binary, [c["request"] for c in enc])
        for c, ours in zip(enc, answers):
            verdict = eo.judge(c["expect"], ours, False, c.get("kind"))
            if verdict in ("pass", "out-of-scope"):
                counts[("encodings", "agree" if verdict == "pass" else "out-of-scope")] += 1
                continue
            klass = "disagree"
            if "error" in c["expect"] and "ok" in ours and c["expect"]["error"].get("triton") == "abort":
                klass = "triton-aborts-on-valid-input"
            counts[("encodings", klass)] += 1
            findings.append(write_finding(klass, len(findings) + 1, c, ours, c.get("kind")))
        total += len(enc)
        seed += 1
        elapsed = time.monotonic() - started
        print(f"[{elapsed / 60:.1f} min] {total} cases, {dict(counts)}", file=sys.stderr, flush=True)
    elapsed = time.monotonic() - started
    os.makedirs(os.path.join(REPO, "target", "campaign"), exist_ok=True)
    report = os.path.join(REPO, "target", "campaign", f"seed-{args.seed}.md")
    lines = [f"## Run from seed {args.seed}: {total} cases in {elapsed / 60:.1f} minutes", "",
             "| side | class | cases |", "|---|---|---|"]
    lines += [f"| {side} | {klass} | {n} |" for (side, klass), n in sorted(counts.items())]
    lines += ["", f"Findings: {len(findings)}"] + [f"- `{os.path.relpath(p, REPO)}`" for p in findings]
    with open(report, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"(written to {os.path.relpath(report, REPO)})", file=sys.stderr)
    disagreements = sum(n for (side, k), n in counts.items() if k == "disagree")
    print(f"{total - disagreements} passed, {disagreements} failed")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
