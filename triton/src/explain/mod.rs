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
//!
//! The failures file of the Python guard (`records`: one failed compile a
//! line) is read record by record, each as a log of its own.

mod context;
mod front_end;
mod records;
mod render;

pub use context::Context;
pub use front_end::{REJECTIONS, Rejection};
pub use records::{FailureRecord, SCHEMA as FAILURES_SCHEMA, failure_records};

use crate::finder::{self, check_ttgir};
use crate::{Location, Release, Site};
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
const ALSO_PRINTED: [(&str, &[Release], &str); 2] = [
    // 3.1 on sm120 with 4 CTAs: SIGFPE (no text) in AccelerateMatmul
    // (tests/data/compile/ctas-triton-3.1.0.jsonl)
    ("mma_version", &[Release::V3_1], "killed by signal 8"),
    // 3.2, a rank-3 shared load with 4 CTAs (ctas-triton-3.2.0.jsonl)
    (
        "local_load_rank3",
        &[Release::V3_2],
        "LinearLayout.cpp:530: mlir::triton::LinearLayout mlir::triton::LinearLayout::reshapeIns(",
    ),
];

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
            crate::Ending::Assertion | crate::Ending::FatalError
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
    let ctx = context::context(log);
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
    let key = context::key_lines(log);
    let nearest = if matches.is_empty() && front_end::find(&norm).is_none() {
        nearest(&key.join(" "))
    } else {
        Vec::new()
    };
    let findings = context::module_in(log)
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
