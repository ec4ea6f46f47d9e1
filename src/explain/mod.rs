//! `explain`: a crash log in, the failure site out.
//!
//! A log (a failed assertion line, an `LLVM ERROR`, `PassManager::run
//! failed` with its MLIR diagnostic, a whole Python traceback, a TTGIR
//! dump) is matched against every site descriptor's locations: the exact
//! message each release prints there, and `file:line` where the message
//! carries one. The answer names the site, the releases whose wheels print
//! exactly that message (narrowed by what else the log says: a `file:line`,
//! the dialect spelling, a caught crash, a version), what it means for the
//! layouts (the descriptor's title, how it ends, and the model's own
//! explanation when the log holds the module), the first release that no
//! longer fails there with the changes on the way, the workaround, and, when
//! the log names a kernel or its configuration, the `scan` command to run.
//! A front-end rejection of the kernel's own code (a language feature the
//! release removed) is named as such (`front_end`). A message no site
//! prints is reported as unknown, with the nearest known sites.

mod front_end;

pub use front_end::{REJECTIONS, Rejection};

use crate::finder::{self, check_ttgir};
use crate::triton::{Entry, Location, Release, Site};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// A site whose message is in the log.
#[derive(Clone, Debug)]
pub struct SiteMatch {
    /// The site.
    pub site: &'static Site,
    /// The locations whose message matched.
    pub locations: Vec<&'static Location>,
    /// The releases whose wheels print that message at this site, narrowed
    /// by the log's other clues where that leaves any.
    pub releases: Vec<Release>,
    /// Every release printing it, before narrowing.
    pub all_releases: Vec<Release>,
    /// Whether a location's `file:line` is in the log too.
    pub line_matched: bool,
    /// How specific the match is (longer messages and a `file:line` score
    /// higher).
    pub score: usize,
}

impl SiteMatch {
    /// The first release after the matched ones where the site no longer
    /// fails at all.
    pub fn fixed_in(&self) -> Option<Release> {
        let last = *self.releases.iter().max()?;
        Release::ALL
            .into_iter()
            .find(|&r| r > last && !self.site.fails_in(r))
    }
}

/// What the log says besides the message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The kernel's name.
    pub kernel: Option<String>,
    /// The kernel's source file.
    pub file: Option<String>,
    /// Warps.
    pub num_warps: Option<u32>,
    /// Stages.
    pub num_stages: Option<u32>,
    /// CTAs.
    pub num_ctas: Option<u32>,
    /// The target (`sm90`).
    pub arch: Option<String>,
    /// Tensor shapes (`64x64xbf16`).
    pub shapes: Vec<String>,
    /// A Triton version named in the log.
    pub version: Option<String>,
    /// The dialect spelling seen (`ttg` or `triton_gpu`).
    pub dialect: Option<&'static str>,
    /// Whether the crash was caught by the pass manager (3.3 and later).
    pub caught: bool,
}

/// The answer.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The lines that look like the failure (assertions, errors).
    pub key_lines: Vec<String>,
    /// The best match, if any site prints a message in the log.
    pub site: Option<SiteMatch>,
    /// Other sites printing a message in the log (the same text at
    /// several sites, or several failures).
    pub others: Vec<SiteMatch>,
    /// For an unknown message: the nearest known sites and their messages.
    pub nearest: Vec<(&'static Site, &'static Location)>,
    /// The model's findings on a TTGIR module found in the log.
    pub findings: Vec<check_ttgir::Finding>,
    /// When no site matched but the log is a known wrapper of one (the
    /// pass manager's caught crash), what that means.
    pub generic: Option<&'static str>,
    /// When no site matched: a front-end rejection of the kernel's code
    /// whose message is in the log.
    pub front_end: Option<&'static Rejection>,
    /// What else the log says.
    pub context: Context,
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `normalize`, with every run of digits after a `:` (a line number) as
/// `:N`: an `UNREACHABLE executed at X.inc:385!` of one release matches
/// another release's `:400`.
fn masked(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut after_colon = false;
    let mut in_digits = false;
    for c in normalize(s).chars() {
        if c.is_ascii_digit() && (after_colon || in_digits) {
            if !in_digits {
                out.push('N');
            }
            in_digits = true;
            after_colon = false;
            continue;
        }
        in_digits = false;
        after_colon = c == ':';
        out.push(c);
    }
    out
}

/// Messages the recorded compiles show at a modelled site (the finder
/// predicts that site for the very configuration) that the site's
/// descriptor does not list yet: (site id, the releases that printed it,
/// the message). Each belongs in its descriptor; until it is there,
/// explain still names the site.
const ALSO_PRINTED: [(&str, &[Release], &str); 3] = [
    // 3.1 on sm120 with 4 CTAs: SIGFPE (no text) in AccelerateMatmul
    // (tests/data/compile/ctas-triton-3.1.0.jsonl)
    ("mma_version", &[Release::V3_1], "killed by signal 8"),
    // 3.2, a rank-3 shared load with 4 CTAs (ctas-triton-3.2.0.jsonl)
    (
        "local_load_rank3",
        &[Release::V3_2],
        "LinearLayout.cpp:530: mlir::triton::LinearLayout mlir::triton::LinearLayout::reshapeIns(",
    ),
    // 3.1 and 3.2 scans on Blackwell (scan-gather-triton-3.1.0/3.2.0.jsonl)
    (
        "scan_layout",
        &[Release::V3_1, Release::V3_2],
        "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32",
    ),
];

/// The lines that say what failed.
fn key_lines(log: &str) -> Vec<String> {
    const MARKS: [&str; 10] = [
        "Assertion",
        "LLVM ERROR",
        "error:",
        "UNREACHABLE",
        "Error:",
        "terminate called",
        "PassManager::run failed",
        "Segmentation fault",
        "Aborted",
        "AssertionError",
    ];
    let mut out: Vec<String> = Vec::new();
    for l in log.lines() {
        let t = l.trim();
        if MARKS.iter().any(|m| t.contains(m)) && !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    }
    out.truncate(12);
    out
}

fn number_after(log: &str, keys: &[&str]) -> Option<u32> {
    for key in keys {
        for (at, _) in log.match_indices(key) {
            let rest = log[at + key.len()..].trim_start_matches([' ', '=', ':', '"']);
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse() {
                return Some(n);
            }
        }
    }
    None
}

fn context(log: &str) -> Context {
    let mut c = Context {
        num_warps: number_after(log, &["num_warps", "num-warps\" =", "num-warps"]),
        num_stages: number_after(log, &["num_stages", "num-stages"]),
        num_ctas: number_after(log, &["num_ctas", "num-ctas\" =", "num-ctas"]),
        caught: log.contains("PassManager::run failed") || log.contains("A signal was caught"),
        ..Context::default()
    };
    if let Some(cap) = number_after(log, &["cuda:", "sm_", "capability="]).or_else(|| {
        log.match_indices("sm")
            .filter_map(|(at, _)| {
                let d: String = log[at + 2..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                (d.len() >= 2).then(|| d.parse().ok()).flatten()
            })
            .next()
    }) {
        c.arch = Some(format!("sm{cap}"));
    }
    if log.contains("\"ttg.") || log.contains(" ttg.") || log.contains("#ttg.") {
        c.dialect = Some("ttg");
    } else if log.contains("triton_gpu.") {
        c.dialect = Some("triton_gpu");
    }
    // a version: "triton 3.2.0", "triton==3.2.0", "triton-3.2.0", "v3.2.0"
    for key in ["triton==", "triton-", "triton ", "Triton ", "v3."] {
        for (at, _) in log.match_indices(key) {
            let start = at + key.len() - usize::from(key == "v3.") * 2;
            let v: String = log[start..]
                .chars()
                .take_while(|ch| ch.is_ascii_digit() || *ch == '.')
                .collect();
            if v.split('.').count() >= 2 && v.parse::<Release>().is_ok() && c.version.is_none() {
                c.version = Some(v.trim_end_matches('.').to_string());
            }
        }
    }
    // the kernel: a TTGIR function, a launch `name[grid](`, a `def name(`
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
            .collect()
    };
    for (at, _) in log.match_indices("tt.func") {
        if let Some(a) = log[at..].find('@') {
            let name = ident(&log[at + a + 1..]);
            if !name.is_empty() && name != "repro" {
                c.kernel = Some(name);
                break;
            }
        }
    }
    if c.kernel.is_none() {
        for l in log.lines() {
            let t = l.trim();
            if let Some(def) = t.strip_prefix("def ") {
                let name = ident(def);
                if !name.is_empty() {
                    c.kernel = Some(name);
                    break;
                }
            }
        }
    }
    if c.kernel.is_none() {
        for l in log.lines() {
            if let Some(at) = l.find("[grid](").or_else(|| l.find("](")) {
                let before = &l[..at];
                let open = before.rfind('[').unwrap_or(at);
                let start = l[..open]
                    .rfind(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                    .map_or(0, |i| i + 1);
                let name = &l[start..open];
                if !name.is_empty() && name.chars().next().is_some_and(|ch| !ch.is_ascii_digit()) {
                    c.kernel = Some(name.to_string());
                    break;
                }
            }
        }
    }
    // the kernel's file: an MLIR location, or a traceback frame outside triton
    for (at, _) in log.match_indices("loc(\"") {
        let rest = &log[at + 5..];
        if let Some(end) = rest.find('"') {
            let f = &rest[..end];
            if f.ends_with(".py") {
                c.file = Some(f.to_string());
                break;
            }
        }
    }
    if c.file.is_none() {
        for l in log.lines() {
            let t = l.trim();
            if let Some(rest) = t.strip_prefix("File \"") {
                let f = rest.split('"').next().unwrap_or("");
                if f.ends_with(".py") && !f.contains("/triton/") && !f.contains("site-packages") {
                    c.file = Some(f.to_string());
                }
            }
        }
    }
    // shapes
    for (at, _) in log.match_indices("tensor<") {
        let shape: String = log[at + 7..]
            .chars()
            .take_while(|ch| *ch != ',' && *ch != '>' && *ch != '!')
            .collect();
        if shape.contains('x') && !c.shapes.contains(&shape) && c.shapes.len() < 6 {
            c.shapes.push(shape);
        }
    }
    c
}

/// Every location of every site, with its site.
fn locations() -> Vec<(&'static Site, &'static Location)> {
    finder::sites()
        .into_iter()
        .flat_map(|s| s.locations.iter().map(move |l| (s, *l)))
        .collect()
}

fn narrow(releases: &[Release], c: &Context, loc: &[&'static Location]) -> Vec<Release> {
    let mut keep: Vec<Release> = releases.to_vec();
    let mut apply = |f: &dyn Fn(Release) -> bool| {
        let narrowed: Vec<Release> = keep.iter().copied().filter(|&r| f(r)).collect();
        if !narrowed.is_empty() {
            keep = narrowed;
        }
    };
    if let Some(v) = &c.version {
        if let Ok(r) = v.parse::<Release>() {
            apply(&|x| x == r);
        }
    }
    if let Some(d) = c.dialect {
        apply(&|x| x.dialect() == d);
    }
    let asserts = loc.iter().any(|l| {
        matches!(
            l.ending,
            crate::triton::Ending::Assertion | crate::triton::Ending::FatalError
        )
    });
    if c.caught && asserts {
        apply(&Release::catches_crashes);
    }
    keep
}

/// Matches `log` against every site's messages.
pub fn explain(log: &str) -> Explanation {
    let norm = normalize(log);
    let ctx = context(log);
    let norm_masked = masked(log);
    let mut matches: Vec<SiteMatch> = Vec::new();
    for (site, loc) in locations() {
        let msg = normalize(loc.message);
        let exact = !msg.is_empty() && norm.contains(&msg);
        // the same text with another line number: another release's copy
        let other_line =
            !exact && !msg.is_empty() && msg.contains(':') && norm_masked.contains(&masked(&msg));
        if !exact && !other_line {
            continue;
        }
        // a bare exception name matches only a line that is just that name
        if !msg.contains(' ')
            && !log
                .lines()
                .any(|l| l.trim() == msg || l.trim().ends_with(&format!(" {msg}")))
        {
            continue;
        }
        let line_matched = loc
            .file_and_line()
            .is_some_and(|fl| log.contains(&format!("{fl}:")) || log.contains(&format!("{fl} ")));
        let score = msg.len() + if line_matched { 1000 } else { 0 }
            - if other_line { msg.len() / 2 } else { 0 };
        match matches.iter_mut().find(|m| m.site.id == site.id) {
            Some(m) => {
                m.locations.push(loc);
                m.line_matched |= line_matched;
                m.score = m.score.max(score);
            }
            None => matches.push(SiteMatch {
                site,
                locations: vec![loc],
                releases: Vec::new(),
                all_releases: Vec::new(),
                line_matched,
                score,
            }),
        }
    }
    if matches.is_empty() {
        for (id, releases, message) in ALSO_PRINTED {
            let Some(site) = finder::site(id) else {
                continue;
            };
            if !norm.contains(&normalize(message)) {
                continue;
            }
            let locations: Vec<&'static Location> = site
                .locations
                .iter()
                .copied()
                .filter(|l| releases.iter().any(|r| l.releases.contains(*r)))
                .collect();
            matches.push(SiteMatch {
                site,
                locations,
                releases: releases.to_vec(),
                all_releases: releases.to_vec(),
                line_matched: false,
                score: message.len(),
            });
        }
        for m in &mut matches {
            m.releases = narrow(&m.all_releases, &ctx, &m.locations);
        }
    }
    for m in matches.iter_mut().filter(|m| m.all_releases.is_empty()) {
        // a location whose file:line is in the log pins its release
        let pinned: Vec<&Location> = m
            .locations
            .iter()
            .copied()
            .filter(|l| {
                l.file_and_line().is_some_and(|fl| {
                    log.contains(&format!("{fl}:")) || log.contains(&format!("{fl} "))
                })
            })
            .collect();
        let all: BTreeSet<Release> = m
            .locations
            .iter()
            .flat_map(|l| l.releases.releases())
            .collect();
        m.all_releases = all.into_iter().collect();
        let base: Vec<Release> = if pinned.is_empty() {
            m.all_releases.clone()
        } else {
            pinned
                .iter()
                .map(|l| l.releases.since)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        m.releases = narrow(&base, &ctx, &m.locations);
    }
    // the longest (most specific) message first; among equals, the one
    // whose releases agree with the log's clues
    matches.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(
                (b.releases.len() < b.all_releases.len())
                    .cmp(&(a.releases.len() < a.all_releases.len())),
            )
            .then(a.site.id.cmp(b.site.id))
    });
    let key = key_lines(log);
    let nearest = if matches.is_empty() && front_end::find(&norm).is_none() {
        nearest(&key.join(" "))
    } else {
        Vec::new()
    };
    let findings = module_in(log)
        .map(|(text, release)| check_ttgir::check(&text, release).unwrap_or_default())
        .unwrap_or_default();
    let front_end = if matches.is_empty() {
        front_end::find(&norm)
    } else {
        None
    };
    let generic =
        (matches.is_empty() && front_end.is_none() && GENERIC.iter().any(|g| log.contains(g)))
            .then_some(
                "the pass manager caught a crash (Triton 3.3 or later, which raise `RuntimeError: \
         PassManager::run failed` instead of aborting): the line that names the site (an \
         `Assertion … failed.`, an `LLVM ERROR`, an `UNREACHABLE`) is printed before this one \
         on stderr; paste the whole log",
            );
    let mut it = matches.into_iter();
    Explanation {
        key_lines: key,
        site: it.next(),
        others: it.collect(),
        nearest,
        findings,
        generic,
        front_end,
        context: ctx,
    }
}

/// What the pass manager prints around any caught crash.
const GENERIC: [&str; 3] = [
    "PassManager::run failed",
    "Failures have been detected while processing an MLIR pass pipeline",
    "A signal was caught while processing the MLIR module",
];

/// A TTGIR module pasted in the log, and the release to read it as.
fn module_in(log: &str) -> Option<(String, Release)> {
    let start = log.find("module attributes")?;
    let defs_start = log[..start]
        .rfind("\n#")
        .and_then(|_| {
            log[..start]
                .lines()
                .position(|l| l.trim_start().starts_with('#'))
                .map(|i| {
                    log[..start]
                        .lines()
                        .take(i)
                        .map(|l| l.len() + 1)
                        .sum::<usize>()
                })
        })
        .unwrap_or(start);
    let text = &log[defs_start..];
    let release = if text.contains("\"triton_gpu.num-warps\"") {
        Release::V3_2
    } else {
        Release::LATEST
    };
    Some((text.to_string(), release))
}

fn words(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.len() > 2)
        .map(str::to_lowercase)
        .collect()
}

/// The three locations whose messages share the most words with `text`.
fn nearest(text: &str) -> Vec<(&'static Site, &'static Location)> {
    let mine = words(text);
    let mut scored: Vec<(usize, &'static Site, &'static Location)> = locations()
        .into_iter()
        .filter(|(_, l)| !l.message.is_empty())
        .map(|(s, l)| {
            let theirs = words(l.message);
            let common = mine.intersection(&theirs).count() * 100 / (theirs.len().max(1));
            (common, s, l)
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(b.1.id)));
    let mut out: Vec<(&'static Site, &'static Location)> = Vec::new();
    for (_, s, l) in scored {
        if !out.iter().any(|(o, _)| o.id == s.id) {
            out.push((s, l));
        }
        if out.len() == 3 {
            break;
        }
    }
    out
}

impl Explanation {
    /// The `scan` command the log suggests, when it names a kernel.
    pub fn scan_command(&self) -> Option<String> {
        let c = &self.context;
        let kernel = c.kernel.as_ref()?;
        let file = c.file.clone().unwrap_or_else(|| "path/to/kernel.py".into());
        let mut cmd = format!("linear-layout scan {file}::{kernel} --args '…'");
        if let Some(a) = &c.arch {
            cmd += &format!(" --arch {a}");
        }
        if let Some(w) = c.num_warps {
            cmd += &format!(" --num-warps {w}");
        }
        if let Some(s) = c.num_stages {
            cmd += &format!(" --num-stages {s}");
        }
        Some(cmd)
    }

    /// Whether a known site, or a known front-end rejection, matched.
    pub fn known(&self) -> bool {
        self.site.is_some() || self.front_end.is_some()
    }

    /// As JSON.
    pub fn to_json(&self) -> Value {
        let m = |m: &SiteMatch| {
            json!({
                "site": m.site.id,
                "kind": m.site.kind,
                "title": m.site.title,
                "releases": m.releases.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                "wheels": m.releases.iter().flat_map(|r| r.info().wheels.iter().copied()).collect::<Vec<_>>(),
                "all_releases": m.all_releases.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                "line_matched": m.line_matched,
                "locations": m.locations.iter().map(|l| json!({
                    "releases": l.releases.to_string(), "function": l.function, "location": l.cite(),
                    "ending": l.ending, "message": l.message})).collect::<Vec<_>>(),
                "fixed_in": m.fixed_in().map(|r| r.to_string()),
                "changes": m.site.changes.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                "workaround": m.site.workaround,
            })
        };
        let c = &self.context;
        json!({
            "known": self.known(),
            "generic": self.generic,
            "front_end": self.front_end.map(|r| json!({"id": r.id, "message": r.message,
                "releases": r.releases().iter().map(|r| r.to_string()).collect::<Vec<_>>(),
                "location": r.location, "meaning": r.meaning, "workaround": r.workaround})),
            "key_lines": self.key_lines,
            "site": self.site.as_ref().map(m),
            "others": self.others.iter().map(m).collect::<Vec<_>>(),
            "nearest": self.nearest.iter().map(|(s, l)| json!({"site": s.id, "message": l.message,
                "releases": l.releases.to_string()})).collect::<Vec<_>>(),
            "findings": self.findings.iter().map(|f| json!({"line": f.line, "op": f.op,
                "failure": f.failure.to_json(Entry::IrFile)})).collect::<Vec<_>>(),
            "context": {"kernel": c.kernel, "file": c.file, "num_warps": c.num_warps,
                "num_stages": c.num_stages, "num_ctas": c.num_ctas, "arch": c.arch, "shapes": c.shapes,
                "version": c.version, "dialect": c.dialect, "caught": c.caught},
            "scan": self.scan_command(),
        })
    }

    /// As text.
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        match &self.site {
            None if self.front_end.is_some() => {
                if let Some(r) = self.front_end {
                    let releases: Vec<String> =
                        r.releases().iter().map(|r| r.to_string()).collect();
                    let _ = writeln!(
                        out,
                        "A front-end rejection ({}), not a compiler bug: {}",
                        r.id, r.meaning
                    );
                    let _ = writeln!(out, "  raised by:   Triton {}", releases.join(", "));
                    let _ = writeln!(out, "  where:       {} ({})", r.location, r.since.wheel());
                    let _ = writeln!(out, "  workaround:  {}", r.workaround);
                }
            }
            None if self.generic.is_some() => {
                let _ = writeln!(
                    out,
                    "No site's own message in the log: {}.",
                    self.generic.unwrap_or("")
                );
            }
            None => {
                let _ = writeln!(out, "Unknown: no modelled site prints this message.");
                if !self.key_lines.is_empty() {
                    let _ = writeln!(out, "  the log's failure lines:");
                    for l in self.key_lines.iter().take(4) {
                        let _ = writeln!(out, "    {l}");
                    }
                }
                if !self.nearest.is_empty() {
                    let _ = writeln!(out, "  nearest known sites:");
                    for (s, l) in &self.nearest {
                        let _ = writeln!(out, "    {} ({}): {}", s.id, l.releases, l.message);
                    }
                }
            }
            Some(m) => {
                let s = m.site;
                let kind = match s.kind {
                    crate::triton::SiteKind::Bug => "a compiler bug",
                    crate::triton::SiteKind::Rejection => "a front-end rejection",
                };
                let _ = writeln!(out, "Site {} ({kind}): {}", s.id, s.title);
                let wheels: Vec<&str> = m
                    .releases
                    .iter()
                    .flat_map(|r| r.info().wheels.iter().copied())
                    .collect();
                let _ = writeln!(
                    out,
                    "  printed by:  Triton {} (wheels {}){}",
                    m.releases
                        .iter()
                        .map(|r| r.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    wheels.join(", "),
                    if m.releases.len() < m.all_releases.len() {
                        format!(
                            "; the message alone: {}",
                            m.all_releases
                                .iter()
                                .map(|r| r.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    } else {
                        String::new()
                    }
                );
                for l in &m.locations {
                    let _ = writeln!(
                        out,
                        "  where:       {} at {} ({}; {})",
                        l.function,
                        l.cite(),
                        l.ending.describe(),
                        l.releases
                    );
                }
                match m.fixed_in() {
                    Some(r) => {
                        let _ = writeln!(
                            out,
                            "  fixed in:    Triton {r} (the site no longer fails there)"
                        );
                    }
                    None => {
                        let _ = writeln!(out, "  fixed in:    no modelled release yet");
                    }
                }
                for c in s.changes {
                    let _ = writeln!(out, "  change:      {c}");
                }
                let _ = writeln!(out, "  workaround:  {}", s.workaround);
                for o in &self.others {
                    let _ = writeln!(
                        out,
                        "  also prints this message: site {} ({}; Triton {})",
                        o.site.id,
                        o.site.title,
                        o.releases
                            .iter()
                            .map(|r| r.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                }
            }
        }
        for f in &self.findings {
            let _ = writeln!(
                out,
                "  the module in the log: line {} ({}) fails at {}: {}",
                f.line, f.op, f.failure.site.id, f.failure.explanation
            );
        }
        let c = &self.context;
        let mut seen = Vec::new();
        if let Some(k) = &c.kernel {
            seen.push(format!("kernel {k}"));
        }
        if let Some(f) = &c.file {
            seen.push(format!("file {f}"));
        }
        if let Some(a) = &c.arch {
            seen.push(a.clone());
        }
        if let Some(w) = c.num_warps {
            seen.push(format!("num_warps {w}"));
        }
        if let Some(s) = c.num_stages {
            seen.push(format!("num_stages {s}"));
        }
        if !c.shapes.is_empty() {
            seen.push(format!("shapes {}", c.shapes.join(", ")));
        }
        if !seen.is_empty() {
            let _ = writeln!(out, "  in the log:  {}", seen.join("; "));
        }
        if let Some(cmd) = self.scan_command() {
            let _ = writeln!(out, "  scan it:     {cmd}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assertion_line_names_its_site_and_release() {
        let log = "python: /src/lib/Tools/LinearLayout.cpp:562: mlir::triton::LinearLayout \
                   mlir::triton::LinearLayout::reshapeOuts(...) const: Assertion \
                   `getTotalOutDimSize() == std::accumulate( newOutDims.begin(), newOutDims.end(), 1, \
                   [&](int32_t acc, auto &outDim) { return acc * outDim.second; })' failed.\nAborted (core dumped)";
        let e = explain(log);
        let m = e.site.expect("known");
        assert_eq!(m.site.id, "stmatrix");
        assert!(m.line_matched);
        assert_eq!(m.releases, [Release::V3_2]);
        assert_eq!(m.fixed_in(), Some(Release::V3_4));
    }

    #[test]
    fn unknown_messages_say_so() {
        let e = explain("RuntimeError: something entirely different happened in the frobnicator");
        assert!(e.site.is_none());
        assert_eq!(e.nearest.len(), 3);
        assert!(e.to_text().starts_with("Unknown"));
    }

    #[test]
    fn the_context_gives_a_scan_command() {
        let log = "  File \"/home/me/attn.py\", line 80, in forward\n    _fwd_kernel[grid](q, k, v, num_warps=8, num_stages=2)\n\
                   RuntimeError: PassManager::run failed\n  tt.func public @_fwd_kernel(%arg0: !tt.ptr<bf16>) \
                   attributes {\"ttg.target\" = \"cuda:90\"}";
        let e = explain(log);
        assert_eq!(e.context.kernel.as_deref(), Some("_fwd_kernel"));
        assert_eq!(e.context.num_warps, Some(8));
        assert_eq!(e.context.arch.as_deref(), Some("sm90"));
        assert!(
            e.scan_command()
                .unwrap()
                .contains("/home/me/attn.py::_fwd_kernel")
        );
    }
}
