#!/usr/bin/env python3
"""The recorded-data file format: a header record, then named records.

Every JSON Lines file under `tests/data/` starts with one header line

    {"header": {"what": "<what the file is and the command that made it>",
                "release": "3.2.0" | null, "count": N, "kind": "<kind>"}}

(`release` is the wheel the answers come from, null when the file is not for
one release; `count` is the number of records after the header; kernel
compiles also name the configuration list they were recorded from, in
`configs`), followed by exactly `count` records, each an object with a
`name` that is unique within the file and derived from the record's content
by the kind's rule below, so that re-recording gives the same names.
`tests/recorded.rs` reads the same format for `cargo test`. A file named
`*.jsonl.gz` is the same format gzipped (the large corpora: the public-kernel
compiles under tests/data/kernels); `write_jsonl` gzips when the name says so,
reproducibly (no name or time in the gzip header).

Used by the writers and readers under tests/oracle/ (`write_jsonl`,
`read_jsonl`), and from the command line:

    python3 tests/oracle/data_header.py check [FILE ...]

checks every data file (default: all of tests/data/**/*.jsonl): a header
with the four fields and a known kind, a count equal to the records present,
and names that are unique and equal to the kind's rule. Exit status 1 on any
problem. Needs no Triton.

    python3 tests/oracle/data_header.py fix FILE ...

after a hand edit of a file that has a header (a case added to
known-disagreements.jsonl, say): names every record by the kind's rule and
sets the header's count, keeping every other field and the file's JSON
spacing.
"""

import gzip
import hashlib
import json
import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, "tests", "data")

# kind -> what its records are
KINDS = {
    "configs": "kernel configurations (run_grid.py's config objects, no release)",
    "kernel-compiles": "compile outcomes of kernel configurations (run_grid.py record)",
    "fla-compiles": "compile outcomes of flash-linear-attention's kernel (fla.py record)",
    "public-kernel-compiles": "compiles of public kernels with their TTGIR (kernels_corpus/record.py record)",
    "known-disagreements": "recorded compiles the finder is known not to model, with a reason",
    "op-level-modules": "one-op TTGIR modules of op_level.py's grid and their outcomes (op_level.py record)",
    "op-level-fuzz": "random one-op TTGIR modules and their outcomes (op_level.py fuzz --out)",
    "family-compiles": "compiles of the 3.7-3.9 family kernels with their TTGIR (families.py record)",
    "family-modules": "one-op TTGIR modules of the 3.7-3.9 family sites and their outcomes (families.py record)",
    "op-level-site-modules": "one-op TTGIR modules of op_level.py's later sites, one file per release "
                             "(op_level.py record --sites)",
    "grid-ttgir-compiles": "compile outcomes of kernel configurations with the TTGIR handed to the lowering "
                           "(grid_ttgir.py record)",
    "algebra-requests": "LinearLayout requests and Triton's answers (algebra_oracle.py record)",
    "conversions": "layout attribute conversions by Gluon's to_linear_layout (encodings_oracle.py record)",
    "golden-conversions": "conversions restating Triton's own unit tests, transcribed by hand",
    "conversion-regressions": "conversions the differential campaign found wrong, fixed and kept",
    "conversion-release-pairs": "conversions of the same attribute by two releases' wheels",
}
HEADER_FIELDS = ("what", "release", "count", "kind")
OPTIONAL_HEADER_FIELDS = ("configs",)


class DataError(Exception):
    pass


# ------------------------------------------------------------------ names


def digest(obj, n=8):
    """A short, stable hash of a JSON value (canonical form: sorted keys,
    no spaces)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def config_name(c):
    """`chain-b-64x64x64-x64-bf16-w8-s2-sm90` (`-c2` for 2 CTAs, `-pre-5905`
    for a variant; `64x32` for a pattern without K)."""
    sizes = f"{c['m']}x{c['n']}" + (f"x{c['k']}" if c.get("k") is not None else "")
    parts = [c["pattern"], sizes]
    if c.get("x") is not None:
        parts.append(f"x{c['x']}")
    parts += [c["dtype"], f"w{c['num_warps']}", f"s{c['num_stages']}", c["arch"]]
    if c.get("num_ctas") not in (None, 1):
        parts.append(f"c{c['num_ctas']}")
    if c.get("variant"):
        parts.append(c["variant"])
    return "-".join(parts)


def fla_name(c):
    return f"{c['pattern']}-bv{c['bv']}-w{c['num_warps']}-s{c['num_stages']}-{c['arch']}-triton{c['triton']}"


def _dims(xs):
    return "x".join(str(x) for x in xs)


def op_name(site, p):
    """`stmatrix-64x16-fp16-w4x1-n8-sw32`, ...; modules off the grid carry a
    hash of their parameters."""
    try:
        if site == "stmatrix":
            return f"stmatrix-{p['m']}x{p['n']}-{p['dtype']}-w{_dims(p['warps'])}-n{p['instr_n']}-sw{p['swizzle']}"
        if site == "cp_async":
            return (f"cp_async-{p['rows']}x{p['cols']}-{p['dtype']}-spt{p['size_per_thread']}"
                    f"-o{''.join(map(str, p['order']))}-so{''.join(map(str, p['shared_order']))}"
                    f"-v{p['vec']}p{p['per_phase']}m{p['max_phase']}")
        if site == "local_load":
            return f"local_load-{_dims(p['shape'])}-{p['dtype']}"
        if site == "shared_tile":
            return f"shared_tile-{p['rows']}x{p['cols']}-{p['dtype']}-sw{p['swizzle']}"
        if site == "pipelined_load":
            return f"pipelined_load-{p['load']}-{p['size']}-k{p['k']}-{p['dtype']}-{p['shared_order']}"
        if site in ("cta_convert", "cta_local", "wgmma_cga"):
            return f"{site}-sm{p['cap']}-c{p['ctas']}-{digest(p)}"
        if site == "mma_pair":
            return f"mma_pair-{_dims(p['shape'])}-{p['dtype']}-w{p['warps']}-sm{p['cap']}-{digest(p)}"
    except (KeyError, TypeError):
        pass
    return f"{site}-{digest(p)}"


def family_name(c):
    """`ws_matmul-sm90-w4-c1-3f2a9b10`: the family, target, warps, CTAs and a hash of the
    configuration without its release."""
    body = {k: v for k, v in c.items() if k != "triton"}
    return f"{c['family']}-{c['arch']}-w{c['num_warps']}-c{c.get('num_ctas') or 1}-{digest(body)}"


def _label(kind):
    """A generator label such as `dot_op<amd_wmma_v2>` as `dot_op-amd_wmma_v2`."""
    return kind.replace("<", "-").replace(">", "")


def base_name(kind, rec):
    """The name the kind's rule gives a record (before duplicates within a
    file get `-2`, `-3`, ... in file order)."""
    if kind == "configs":
        return config_name(rec)
    if kind in ("kernel-compiles", "grid-ttgir-compiles"):
        return config_name(rec["config"])
    if kind == "fla-compiles":
        return fla_name(rec["config"])
    if kind == "public-kernel-compiles":
        return f"{rec['case']}-{rec['label']}-{rec['arch']}"
    if kind == "known-disagreements":
        return f"{config_name(rec['config'])}-triton{rec['config']['triton']}"
    if kind in ("op-level-modules", "op-level-fuzz", "family-modules", "op-level-site-modules"):
        return op_name(rec["site"], rec["params"])
    if kind == "family-compiles":
        return family_name(rec["config"])
    if kind == "algebra-requests":
        return f"{rec['request']['op']}-{digest(rec['request'])}"
    if kind == "conversions":
        return f"{_label(rec['kind'])}-{digest(rec['request'])}"
    if kind == "golden-conversions":
        if not rec.get("name"):
            raise DataError("a golden conversion needs its test's name")
        return rec["name"]
    if kind == "conversion-regressions":
        source = os.path.basename(rec.get("source") or "")
        if source.endswith(".md"):
            return source[:-3]
        return f"{_label(rec['kind'])}-{digest(rec['request'])}"
    if kind == "conversion-release-pairs":
        return f"{_label(rec['kind'])}-{rec['request']['triton']}-{digest(rec['request'])}"
    raise DataError(f"unknown kind {kind!r} (known: {', '.join(KINDS)})")


def names(kind, records):
    """Every record's name, in order: the kind's rule, and `-2`, `-3`, ...
    for a name already taken (the same request recorded twice)."""
    out, taken = [], set()
    for rec in records:
        body = rec if kind == "golden-conversions" else {k: v for k, v in rec.items() if k != "name"}
        base = name = base_name(kind, body)
        n = 1
        while name in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name)
        out.append(name)
    return out


def named(kind, records):
    """The records with `name` first (replacing any name they had, except
    golden conversions, whose name is the test's)."""
    out = []
    for rec, name in zip(records, names(kind, records)):
        out.append({"name": name, **{k: v for k, v in rec.items() if k != "name"}})
    return out


# ------------------------------------------------------------------ reading and writing


def command():
    """The command line that is running, as one would type it from the
    repository root (for a header's `what`)."""
    script = os.path.relpath(os.path.abspath(sys.argv[0]), REPO)
    python = "python3"
    venv = re.search(r"venv-(\d+\.\d+\.\d+)/bin/python[\d.]*$", sys.executable or "")
    if venv:  # the python of a wheel's venv (tests/oracle/venv.sh)
        python = f'"$(bash tests/oracle/venv.sh {venv.group(1)})"'
    return " ".join([python] + [shlex.quote(a) for a in [script, *sys.argv[1:]]])


def existing_what(path, kind, release, count):
    """The `what` of the header already at `path` if that file is the same
    recording (the same kind, release and count), so that re-recording a
    file keeps its description; else None."""
    try:
        header, _ = read_jsonl(path)
    except (OSError, DataError, ValueError):
        return None
    same = (header["kind"], header["release"], header["count"]) == (kind, release, count)
    return header["what"] if same else None


def write_jsonl(path, header_fields, records, compact=False):
    """Write a header (`header_fields`: what, release, kind and optionally
    configs; the count is the records') and the records, each named by the
    kind's rule. `compact` writes JSON without spaces (the algebra and
    Gluon files). Atomic: a temporary file is renamed over `path`."""
    kind = header_fields.get("kind")
    if kind not in KINDS:
        raise DataError(f"unknown kind {kind!r} (known: {', '.join(KINDS)})")
    if not header_fields.get("what"):
        raise DataError("a header needs a `what`")
    header = {"what": header_fields["what"], "release": header_fields.get("release"), "count": len(records),
              "kind": kind}
    for k in OPTIONAL_HEADER_FIELDS:
        if header_fields.get(k) is not None:
            header[k] = header_fields[k]
    extra = set(header_fields) - set(HEADER_FIELDS) - set(OPTIONAL_HEADER_FIELDS)
    if extra:
        raise DataError(f"unknown header fields {sorted(extra)}")
    sep = {"separators": (",", ":")} if compact else {}
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    lines = [json.dumps({"header": header}, **sep)] + [json.dumps(rec, **sep) for rec in named(kind, records)]
    text = "".join(line + "\n" for line in lines).encode()
    if path.endswith(".gz"):
        # a fixed gzip header (no file name, time 0): the same records give the same bytes
        text = gzip.compress(text, compresslevel=9, mtime=0)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(text)
    os.replace(tmp, path)
    return header


def _open_read(path):
    """A data file's text, unzipped when its name ends in `.gz`."""
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def parse_header(obj, where):
    if not (isinstance(obj, dict) and list(obj) == ["header"] and isinstance(obj["header"], dict)):
        raise DataError(f"{where}: the first line is not a header record {{\"header\": {{...}}}}")
    h = obj["header"]
    missing = [k for k in HEADER_FIELDS if k not in h]
    if missing:
        raise DataError(f"{where}: the header lacks {', '.join(missing)}")
    extra = set(h) - set(HEADER_FIELDS) - set(OPTIONAL_HEADER_FIELDS)
    if extra:
        raise DataError(f"{where}: unknown header fields {sorted(extra)}")
    if not (isinstance(h["what"], str) and h["what"].strip()):
        raise DataError(f"{where}: the header's `what` is empty")
    if h["release"] is not None and not isinstance(h["release"], str):
        raise DataError(f"{where}: the header's `release` is neither a version string nor null")
    if not (isinstance(h["count"], int) and not isinstance(h["count"], bool) and h["count"] >= 0):
        raise DataError(f"{where}: the header's `count` is not a count")
    if h["kind"] not in KINDS:
        raise DataError(f"{where}: unknown kind {h['kind']!r} (known: {', '.join(KINDS)})")
    return h


def read_jsonl(path, require_header=True):
    """(header, records) of a data file. Raises DataError when the header is
    missing or malformed, the count differs from the records present, a
    record is not an object, or names are missing or repeated. With
    `require_header=False` a file without a header (a hand-written list of
    configurations) gives (None, records) instead."""
    with _open_read(path) as f:
        lines = [(i, l) for i, l in enumerate(f, 1) if l.strip()]
    header = None
    if lines:
        first = json.loads(lines[0][1])
        if isinstance(first, dict) and "header" in first:
            header = parse_header(first, f"{path}:{lines[0][0]}")
            lines = lines[1:]
    if header is None and require_header:
        raise DataError(f"{path}: no header record on its first line")
    records = []
    for i, l in lines:
        rec = json.loads(l)
        if not isinstance(rec, dict):
            raise DataError(f"{path}:{i}: a record is not a JSON object")
        if "header" in rec:
            raise DataError(f"{path}:{i}: a second header record")
        records.append(rec)
    if header is None:
        return None, records
    if header["count"] != len(records):
        raise DataError(f"{path}: the header says {header['count']} records, {len(records)} follow "
                        "(truncated or appended to?)")
    seen = {}
    for n, rec in enumerate(records, 1):
        name = rec.get("name")
        if not (isinstance(name, str) and name):
            raise DataError(f"{path}: record {n} has no name")
        if name in seen:
            raise DataError(f"{path}: records {seen[name]} and {n} are both named {name!r}")
        seen[name] = n
    return header, records


def data_files(root=DATA):
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.join(d, f) for f in files if f.endswith((".jsonl", ".jsonl.gz"))]
    return sorted(out)


def check_file(path):
    """Problems with one data file (an empty list when it is sound)."""
    try:
        header, records = read_jsonl(path)
    except (DataError, ValueError) as e:
        return [str(e)]
    problems = []
    try:
        want = names(header["kind"], records)
    except (DataError, KeyError, TypeError) as e:
        return [f"{path}: cannot name its records by the {header['kind']} rule: {e!r}"]
    for n, (rec, name) in enumerate(zip(records, want), 1):
        if rec["name"] != name:
            problems.append(f"{path}: record {n} is named {rec['name']!r}, the {header['kind']} rule gives {name!r}")
            if len(problems) >= 5:
                problems.append(f"{path}: ...")
                break
    if header["kind"] in ("kernel-compiles", "grid-ttgir-compiles") and "configs" in header:
        configs = os.path.join(os.path.dirname(path), header["configs"])
        if not os.path.exists(configs):
            problems.append(f"{path}: its configuration list {header['configs']} is missing")
    return problems


def fix(path):
    """Rewrite `path` with its records named by the rule and its count set."""
    with _open_read(path) as f:
        lines = [l for l in f if l.strip()]
    if not lines:
        raise DataError(f"{path}: empty, so no header record")
    header = parse_header(json.loads(lines[0]), path)
    records = [json.loads(l) for l in lines[1:]]
    compact = not lines[0].startswith('{"header": ')
    fields = {k: v for k, v in header.items() if k != "count"}
    write_jsonl(path, fields, records, compact=compact)
    return len(records)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["fix"] and len(argv) > 1:
        for path in argv[1:]:
            print(f"{path}: {fix(path)} records", file=sys.stderr)
        return 0
    if not argv or argv[0] != "check":
        print(__doc__, file=sys.stderr)
        return 2
    paths = argv[1:] or data_files()
    problems, records = [], 0
    for path in paths:
        p = check_file(path)
        problems += p
        if not p:
            records += read_jsonl(path)[0]["count"]
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(paths)} files, {records} records; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
