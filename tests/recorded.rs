//! The recorded Triton results under `tests/data/` (every `*.jsonl`, and
//! every `*.jsonl.gz`: the same format gzipped, for the large corpora), read
//! the one way every replay test reads them.
//!
//! Each file starts with a header record, `{"header": {"what", "release",
//! "count", "kind"}}` (kernel compiles also name their configuration list in
//! `configs`), followed by exactly `count` records, each with a `name`
//! unique in the file. Files are chosen by the header's `kind` (and
//! `release`), not by their names. A file without a header, with a count
//! that differs from its records (a truncated file), with a record without a
//! name or two records of one name, or with a kind not listed in [`Kind`]
//! fails every test that reads recorded data, with a message that says so.
//! `tests/oracle/data_header.py` writes and checks the same format.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// What a file holds (the header's `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Kernel configurations (`run_grid.py sample`), no release.
    Configs,
    /// Compile outcomes of kernel configurations (`run_grid.py record`).
    KernelCompiles,
    /// Compile outcomes of flash-linear-attention's kernel (`fla.py record`).
    FlaCompiles,
    /// Compiles of public kernels with their TTGIR (`kernels_corpus/record.py`).
    PublicKernelCompiles,
    /// Recorded compiles the finder is known not to model, with a reason.
    KnownDisagreements,
    /// One-op modules of `op_level.py`'s grid (`op_level.py record`).
    OpLevelModules,
    /// Random one-op modules (`op_level.py fuzz --out`).
    OpLevelFuzz,
    /// Compiles of the 3.7-3.9 family kernels with their TTGIR (`families.py record`).
    FamilyCompiles,
    /// One-op modules of the 3.7-3.9 family sites (`families.py record`).
    FamilyModules,
    /// One-op modules of later sites, per release (`op_level.py record --sites`).
    OpLevelSiteModules,
    /// Kernel compiles with the TTGIR handed to the lowering (`grid_ttgir.py record`).
    GridTtgirCompiles,
    /// `LinearLayout` requests and Triton's answers (`algebra_oracle.py record`).
    AlgebraRequests,
    /// Gluon's conversions of random attributes (`encodings_oracle.py record`).
    Conversions,
    /// Conversions restating Triton's own unit tests.
    GoldenConversions,
    /// Conversions the differential campaign found wrong, kept fixed.
    ConversionRegressions,
    /// One attribute converted by two releases' wheels.
    ConversionReleasePairs,
}

impl Kind {
    pub const ALL: [Kind; 16] = [
        Kind::Configs,
        Kind::KernelCompiles,
        Kind::FlaCompiles,
        Kind::PublicKernelCompiles,
        Kind::KnownDisagreements,
        Kind::OpLevelModules,
        Kind::OpLevelFuzz,
        Kind::FamilyCompiles,
        Kind::FamilyModules,
        Kind::OpLevelSiteModules,
        Kind::GridTtgirCompiles,
        Kind::AlgebraRequests,
        Kind::Conversions,
        Kind::GoldenConversions,
        Kind::ConversionRegressions,
        Kind::ConversionReleasePairs,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Configs => "configs",
            Kind::KernelCompiles => "kernel-compiles",
            Kind::FlaCompiles => "fla-compiles",
            Kind::PublicKernelCompiles => "public-kernel-compiles",
            Kind::KnownDisagreements => "known-disagreements",
            Kind::OpLevelModules => "op-level-modules",
            Kind::OpLevelFuzz => "op-level-fuzz",
            Kind::FamilyCompiles => "family-compiles",
            Kind::FamilyModules => "family-modules",
            Kind::OpLevelSiteModules => "op-level-site-modules",
            Kind::GridTtgirCompiles => "grid-ttgir-compiles",
            Kind::AlgebraRequests => "algebra-requests",
            Kind::Conversions => "conversions",
            Kind::GoldenConversions => "golden-conversions",
            Kind::ConversionRegressions => "conversion-regressions",
            Kind::ConversionReleasePairs => "conversion-release-pairs",
        }
    }

    fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A file's header record.
#[derive(Clone, Debug)]
pub struct Header {
    #[allow(dead_code)] // for people (and data_header.py); the harness needs only the rest
    pub what: String,
    /// The wheel's version (`3.2.0`), or `None` for a file not of one release.
    pub release: Option<String>,
    pub count: usize,
    pub kind: Kind,
    /// Kernel compiles: the configuration list (a file beside this one).
    pub configs: Option<String>,
}

/// One data file: its header and its records, checked against each other.
pub struct Recorded {
    pub path: PathBuf,
    pub header: Header,
    records: Vec<(String, Value)>,
}

impl Recorded {
    /// The file's name, for messages.
    pub fn file(&self) -> String {
        self.path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    /// The header's release; panics for a file that is not of one release.
    pub fn release(&self) -> &str {
        self.header
            .release
            .as_deref()
            .unwrap_or_else(|| panic!("{}: the header names no release", shown(&self.path)))
    }

    /// The release as the records spell it (`3.2` for `3.2.0`).
    pub fn short_release(&self) -> String {
        let r = self.release();
        r.split('.').take(2).collect::<Vec<_>>().join(".")
    }

    /// (name, record) in file order.
    pub fn records(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.records.iter().map(|(n, v)| (n.as_str(), v))
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The records in file order, without their names.
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.records.iter().map(|(_, v)| v)
    }
}

impl fmt::Debug for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({} {}, {} records)",
            self.file(),
            self.header.kind,
            self.header.release.as_deref().unwrap_or("no release"),
            self.records.len()
        )
    }
}

pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// `path` as messages show it: from the repository root.
fn shown(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Whether `path` names a data file: `*.jsonl`, or `*.jsonl.gz`.
fn is_data_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz")
}

/// A data file's text, unzipped when its name ends in `.gz`.
fn open(path: &Path) -> Box<dyn BufRead> {
    let file =
        std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    if path.extension().is_some_and(|x| x == "gz") {
        Box::new(BufReader::new(flate2::read::GzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    }
}

/// Every data file under `dir`, sorted.
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(jsonl_files(&path));
        } else if is_data_file(&path) {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Every data file's path, sorted.
pub fn all_files() -> Vec<PathBuf> {
    jsonl_files(&data_dir())
}

fn parse_header(first: &str, at: &str) -> Result<Header, String> {
    let v: Value = serde_json::from_str(first)
        .map_err(|e| format!("{at}: the first line is not JSON ({e}), so no header record"))?;
    let h = match v.as_object() {
        Some(o) if o.len() == 1 && o.get("header").is_some_and(Value::is_object) => &o["header"],
        _ => {
            return Err(format!(
                "{at}: no header record: the first line must be {{\"header\": {{\"what\", \"release\", \"count\", \"kind\"}}}}"
            ));
        }
    };
    let fields = h.as_object().unwrap();
    for key in ["what", "release", "count", "kind"] {
        if !fields.contains_key(key) {
            return Err(format!("{at}: the header has no `{key}`"));
        }
    }
    if let Some(extra) = fields
        .keys()
        .find(|k| !["what", "release", "count", "kind", "configs"].contains(&k.as_str()))
    {
        return Err(format!("{at}: the header has an unknown field `{extra}`"));
    }
    let what = h["what"]
        .as_str()
        .filter(|w| !w.trim().is_empty())
        .ok_or_else(|| format!("{at}: the header's `what` is empty"))?
        .to_string();
    let release = match &h["release"] {
        Value::Null => None,
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        other => {
            return Err(format!(
                "{at}: the header's `release` is {other}, not a version or null"
            ));
        }
    };
    let count = h["count"]
        .as_u64()
        .ok_or_else(|| format!("{at}: the header's `count` is {}, not a count", h["count"]))?
        as usize;
    let kind_text = h["kind"].as_str().unwrap_or_default();
    let kind = Kind::parse(kind_text).ok_or_else(|| {
        format!(
            "{at}: unknown kind {} (known: {})",
            h["kind"],
            Kind::ALL.map(Kind::as_str).join(", ")
        )
    })?;
    let configs = match fields.get("configs") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(format!(
                "{at}: the header's `configs` is {other}, not a file name"
            ));
        }
    };
    Ok(Header {
        what,
        release,
        count,
        kind,
        configs,
    })
}

/// Parses a data file's text (`path` names it in messages).
pub fn parse(path: &Path, text: &str) -> Result<Recorded, String> {
    let at = shown(path);
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(format!("{at}: empty, so no header record"));
    };
    let header = parse_header(first, &at)?;
    let mut records = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, line) in lines {
        let v: Value =
            serde_json::from_str(line).map_err(|e| format!("{at}:{}: not JSON: {e}", i + 1))?;
        if !v.is_object() {
            return Err(format!("{at}:{}: a record is not a JSON object", i + 1));
        }
        if v.get("header").is_some() {
            return Err(format!("{at}:{}: a second header record", i + 1));
        }
        let name = v["name"]
            .as_str()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| format!("{at}:{}: a record without a name", i + 1))?
            .to_string();
        if let Some(first_line) = seen.insert(name.clone(), i + 1) {
            return Err(format!(
                "{at}: two records named {name:?} (lines {first_line} and {})",
                i + 1
            ));
        }
        records.push((name, v));
    }
    if records.len() != header.count {
        return Err(format!(
            "{at}: the header says {} records, {} follow (truncated, or appended to without a new count?)",
            header.count,
            records.len()
        ));
    }
    Ok(Recorded {
        path: path.to_path_buf(),
        header,
        records,
    })
}

/// Reads and checks one data file; panics with the reason if it is unsound.
pub fn load(path: &Path) -> Recorded {
    let mut text = String::new();
    open(path)
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse(path, &text).unwrap_or_else(|e| panic!("{e}"))
}

/// The header of every data file, read from its first line; panics if any
/// file has none, or an unknown kind.
pub fn headers() -> Vec<(PathBuf, Header)> {
    all_files()
        .into_iter()
        .map(|path| {
            let mut first = String::new();
            let mut reader = open(&path);
            while first.trim().is_empty() {
                first.clear();
                let read = reader
                    .read_line(&mut first)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                if read == 0 {
                    break;
                }
            }
            let header = parse_header(&first, &shown(&path)).unwrap_or_else(|e| panic!("{e}"));
            (path, header)
        })
        .collect()
}

/// Every data file of `kind`, read and checked, in path order.
pub fn of_kind(kind: Kind) -> Vec<Recorded> {
    headers()
        .into_iter()
        .filter(|(_, h)| h.kind == kind)
        .map(|(path, _)| load(&path))
        .collect()
}

/// The one data file of `kind` for `release` (`None`: of no one release).
pub fn one(kind: Kind, release: Option<&str>) -> Recorded {
    let mut found: Vec<PathBuf> = headers()
        .into_iter()
        .filter(|(_, h)| h.kind == kind && h.release.as_deref() == release)
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "want exactly one {kind} file for release {}: {found:?}",
        release.unwrap_or("none")
    );
    load(&found.pop().unwrap())
}

/// The one data file of `kind`, whatever its release.
pub fn only(kind: Kind) -> Recorded {
    let mut found = of_kind(kind);
    assert_eq!(found.len(), 1, "want exactly one {kind} file: {:?}", found);
    found.pop().unwrap()
}

#[test]
fn every_data_file_has_a_header_its_count_of_records_and_unique_names() {
    let files = all_files();
    assert!(files.len() >= 80, "only {} data files", files.len());
    let mut per_kind: BTreeMap<Kind, usize> = BTreeMap::new();
    for path in &files {
        let f = load(path);
        *per_kind.entry(f.header.kind).or_default() += 1;
        if let Some(release) = &f.header.release {
            assert!(
                release.parse::<linear_layout_triton::Release>().is_ok()
                    && release.split('.').count() == 3,
                "{}: release {release:?} is not a wheel version",
                f.file()
            );
        }
        // A compile file's configuration list is a configs file beside it.
        if let Some(configs) = &f.header.configs {
            let list = load(&path.with_file_name(configs));
            assert_eq!(list.header.kind, Kind::Configs, "{}: {configs}", f.file());
        }
    }
    // Every kind the harness knows is present, so none is a dead letter.
    for kind in Kind::ALL {
        assert!(
            per_kind.contains_key(&kind),
            "no {kind} file under tests/data"
        );
    }
}

#[test]
fn unsound_files_are_refused_with_the_reason() {
    let p = Path::new("x.jsonl");
    let header = |count: usize, kind: &str| {
        format!(
            r#"{{"header": {{"what": "a test", "release": "3.2.0", "count": {count}, "kind": "{kind}"}}}}"#
        )
    };
    let a = r#"{"name": "a", "v": 1}"#;
    let b = r#"{"name": "b", "v": 2}"#;
    let good = format!("{}\n{a}\n{b}\n", header(2, "configs"));
    let f = parse(p, &good).unwrap();
    assert_eq!(f.records().map(|r| r.0).collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(f.short_release(), "3.2");
    for (text, says) in [
        (format!("{a}\n{b}\n"), "no header record"),
        (String::new(), "no header record"),
        (format!("{}\n{a}\n", header(2, "configs")), "truncated"),
        (
            format!("{}\n{a}\n{b}\n", header(1, "configs")),
            "says 1 records, 2 follow",
        ),
        (
            format!("{}\n{a}\n{a}\n", header(2, "configs")),
            "two records named \"a\"",
        ),
        (
            format!("{}\n{a}\n{{\"v\": 3}}\n", header(2, "configs")),
            "without a name",
        ),
        (
            format!("{}\n{a}\n{b}\n", header(2, "compiles")),
            "unknown kind",
        ),
        (
            format!("{}\n{a}\n{}\n", header(2, "configs"), header(0, "configs")),
            "a second header",
        ),
        (
            format!(
                "{}\n",
                r#"{"header": {"what": "", "release": null, "count": 0, "kind": "configs"}}"#
            ),
            "`what` is empty",
        ),
        (
            format!(
                "{}\n",
                r#"{"header": {"what": "w", "count": 0, "kind": "configs"}}"#
            ),
            "no `release`",
        ),
    ] {
        let e = parse(p, &text)
            .err()
            .unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(e.contains(says), "{e:?} does not say {says:?}");
    }
}
