//! `explain`: a crash log in, the failure site out.
//!
//! A log (a failed assertion line, an `LLVM ERROR`, `PassManager::run
//! failed` with its MLIR diagnostic, a whole Python traceback, a TTGIR
//! dump) is matched against every site descriptor's locations: the exact
//! message each release prints there, and `file:line` where the message
//! carries one. A site is named only when the log shows Triton printed the
//! message (its provenance: an assertion's own file must open its line, and
//! text any program may print needs the log to name Triton too); a message
//! that matches without that evidence is reported as unconfirmed, never as
//! the answer. The answer names the site, the releases whose wheels print
//! exactly that message (narrowed by what else the log says: a
//! `file:line`, the dialect spelling, a caught crash, a version), what it
//! means for the layouts (the descriptor's title, how it ends, and the
//! model's own explanation when the log holds the module), the first
//! release that no longer fails there with the changes on the way, the
//! workaround, and, when the log names a kernel or its configuration, the
//! `scan` command to run. A front-end rejection of the kernel's own code
//! (a language feature the release removed) is named as such
//! (`front_end`). A log holding several failures (aborts on different
//! lines, sites matched on different lines) says how many. A message no
//! site prints is reported as unknown, with the known sites whose messages
//! share words with it, if any.
//!
//! Every pass over the log is linear in its length (a log of hundreds of
//! thousands of distinct error lines is read in one pass per site message).
//!
//! The failures file of the Python guard (`records`: one failed compile a
//! line) is read record by record, each as a log of its own.

mod context;
mod front_end;
mod log;
mod provenance;
mod records;
mod render;

pub use context::Context;
pub use front_end::{REJECTIONS, Rejection};
pub use records::{FailureRecord, SCHEMA as FAILURES_SCHEMA, failure_records};

use crate::finder::{self, check_ttgir};
use crate::{Location, Release, Site};
use log::{Log, masked, normalize};
use std::collections::{BTreeSet, HashSet};

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
    /// The line of the log (1-based) where the message first starts.
    pub line: usize,
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
    /// The lines that look like the failure (assertions, errors): the
    /// first [`KEY_LINES`] distinct ones.
    pub key_lines: Vec<String>,
    /// How many distinct lines look like a failure (of which
    /// [`Explanation::key_lines`] holds the first few).
    pub key_line_count: usize,
    /// The best match, if any site prints a message in the log and the log
    /// shows Triton printed it.
    pub site: Option<SiteMatch>,
    /// Other sites printing a message in the log (the same text at
    /// several sites, or several failures: see [`SiteMatch::line`]).
    pub others: Vec<SiteMatch>,
    /// Sites whose message is in the log without the evidence that Triton
    /// printed it (an assertion in another program's file, LLVM's own
    /// text in a log that never names Triton): never the answer.
    pub unconfirmed: Vec<SiteMatch>,
    /// How many failures the log holds: distinct abort lines (failed
    /// assertions, `LLVM ERROR`, `UNREACHABLE`, `terminate called`) and
    /// lines of matched sites that are none of those.
    pub failures: usize,
    /// For an unknown message: the known sites whose messages share the
    /// most words with the log's failure lines (none when none shares a
    /// word).
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

/// How many failure lines an [`Explanation`] keeps.
pub const KEY_LINES: usize = 12;

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

/// Adds `loc`'s match to `matches` (a site already there gains the
/// location).
fn add(
    matches: &mut Vec<SiteMatch>,
    site: &'static Site,
    loc: &'static Location,
    line_matched: bool,
    score: usize,
    line: usize,
) {
    match matches.iter_mut().find(|m| m.site.id == site.id) {
        Some(m) => {
            m.locations.push(loc);
            m.line_matched |= line_matched;
            m.score = m.score.max(score);
            m.line = m.line.min(line);
        }
        None => matches.push(SiteMatch {
            site,
            locations: vec![loc],
            releases: Vec::new(),
            all_releases: Vec::new(),
            line_matched,
            score,
            line,
        }),
    }
}

/// The releases of each match, from its locations and the log's clues.
fn fill_releases(matches: &mut [SiteMatch], raw: &str, ctx: &Context) {
    for m in matches.iter_mut().filter(|m| m.all_releases.is_empty()) {
        // a location whose file:line is in the log pins its release
        let pinned: Vec<&Location> = m
            .locations
            .iter()
            .copied()
            .filter(|l| {
                l.file_and_line()
                    .is_some_and(|fl| names_file_line(raw, &fl))
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
        m.releases = narrow(&base, ctx, &m.locations);
    }
}

/// Whether `raw` holds `file:line` followed by `:`, a space or `!` (the end
/// of `llvm_unreachable`'s `UNREACHABLE executed at file:line!`).
fn names_file_line(raw: &str, file_and_line: &str) -> bool {
    [':', ' ', '!']
        .iter()
        .any(|end| raw.contains(&format!("{file_and_line}{end}")))
}

/// The most specific match first; among equals, the one whose releases
/// agree with the log's clues.
fn rank(matches: &mut [SiteMatch]) {
    matches.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(
                (b.releases.len() < b.all_releases.len())
                    .cmp(&(a.releases.len() < a.all_releases.len())),
            )
            .then(a.site.id.cmp(b.site.id))
    });
}

/// Matches `log` against every site's messages. The log is any text of
/// unknown origin: a site is named only when the log shows Triton printed
/// its message (see the module's documentation).
pub fn explain(log: &str) -> Explanation {
    explain_read(log, false)
}

/// [`explain`] for text known to be Triton's own output (the message a
/// Triton worker returned): every matching message is Triton's, so the
/// evidence of origin is not asked for.
pub fn explain_triton(text: &str) -> Explanation {
    explain_read(text, true)
}

fn explain_read(raw: &str, trusted: bool) -> Explanation {
    let mut log = Log::read(raw);
    log.from_triton |= trusted;
    let ctx = context::context(raw, log.from_triton);
    let mut matches: Vec<SiteMatch> = Vec::new();
    let mut unconfirmed: Vec<SiteMatch> = Vec::new();
    for (site, loc) in locations() {
        let msg = normalize(loc.message);
        if msg.is_empty() {
            continue;
        }
        let found = match log.norm.find(&msg) {
            Some((_, line)) => Some((line, false)),
            // the same text with another line number: another release's copy
            None if msg.contains(':') => log.masked.find(&masked(&msg)).map(|(_, l)| (l, true)),
            None => None,
        };
        let Some((line, other_line)) = found else {
            continue;
        };
        // a bare exception name matches only a line that is just that name
        if !msg.contains(' ') {
            let suffix = format!(" {msg}");
            if !log
                .lines
                .iter()
                .any(|l| l.trim() == msg || l.trim().ends_with(&suffix))
            {
                continue;
            }
        }
        let line_matched = loc
            .file_and_line()
            .is_some_and(|fl| names_file_line(raw, &fl));
        // text any program may print (the pass manager's wrapper of every
        // failed pass) says less than any message of Triton's own, however
        // long: a site of its own prose on another line of the log wins
        let specific = if provenance::generic(&msg) {
            0
        } else {
            msg.len()
        };
        let score = specific + if line_matched { 1000 } else { 0 }
            - if other_line { specific / 2 } else { 0 };
        let into = if trusted || provenance::placed(loc, &log, line) {
            &mut matches
        } else {
            &mut unconfirmed
        };
        add(into, site, loc, line_matched, score, line + 1);
    }
    if matches.is_empty() {
        for (id, releases, message) in ALSO_PRINTED {
            let Some(site) = finder::site(id) else {
                continue;
            };
            let Some((_, line)) = log.norm.find(&normalize(message)) else {
                continue;
            };
            let locations: Vec<&'static Location> = site
                .locations
                .iter()
                .copied()
                .filter(|l| releases.iter().any(|r| l.releases.contains(*r)))
                .collect();
            let m = SiteMatch {
                site,
                locations,
                releases: releases.to_vec(),
                all_releases: releases.to_vec(),
                line_matched: false,
                score: message.len(),
                line: line + 1,
            };
            if trusted || provenance::placed_text(message, &log) {
                matches.push(m);
            } else {
                unconfirmed.push(m);
            }
        }
        for m in matches.iter_mut().chain(unconfirmed.iter_mut()) {
            m.releases = narrow(&m.all_releases, &ctx, &m.locations);
        }
    }
    unconfirmed.retain(|u| !matches.iter().any(|m| m.site.id == u.site.id));
    fill_releases(&mut matches, raw, &ctx);
    fill_releases(&mut unconfirmed, raw, &ctx);
    rank(&mut matches);
    rank(&mut unconfirmed);
    let (key_lines, key_line_count) = context::key_lines(&log.lines);
    let failures = count_failures(&log.lines, &matches);
    let front_end = if matches.is_empty() {
        front_end::find(&log.norm.text)
    } else {
        None
    };
    let nearest = if matches.is_empty() && front_end.is_none() {
        nearest(&key_lines.join(" "))
    } else {
        Vec::new()
    };
    let findings = context::module_in(raw)
        .map(|(text, release)| check_ttgir::check(&text, release).unwrap_or_default())
        .unwrap_or_default();
    let generic =
        (matches.is_empty() && front_end.is_none() && GENERIC.iter().any(|g| raw.contains(g)))
            .then_some(
                "the pass manager caught a crash (Triton 3.3 or later, which raise `RuntimeError: \
         PassManager::run failed` instead of aborting): the line that names the site (an \
         `Assertion … failed.`, an `LLVM ERROR`, an `UNREACHABLE`) is printed before this one \
         on stderr; paste the whole log",
            );
    let mut it = matches.into_iter();
    Explanation {
        key_lines,
        key_line_count,
        site: it.next(),
        others: it.collect(),
        unconfirmed,
        failures,
        nearest,
        findings,
        generic,
        front_end,
        context: ctx,
    }
}

/// The failures in the log: each distinct line where a process died (a
/// failed assertion, `LLVM ERROR`, `UNREACHABLE`, `terminate called`; a
/// process dies once, so each is a failure of its own), and each line
/// where a matched site's message starts that is none of those (a
/// diagnosed error).
fn count_failures(lines: &[&str], matches: &[SiteMatch]) -> usize {
    let mut seen: HashSet<&str> = HashSet::new();
    for line in lines {
        let t = line.trim();
        let aborts = (t.contains("Assertion `") && t.contains("failed"))
            || t.contains("LLVM ERROR:")
            || t.contains("UNREACHABLE executed")
            || t.starts_with("terminate called");
        if aborts {
            seen.insert(t);
        }
    }
    let aborts = seen.len();
    let mut diagnosed: HashSet<&str> = HashSet::new();
    for m in matches {
        if let Some(t) = lines.get(m.line - 1).map(|l| l.trim()) {
            if !seen.contains(t) {
                diagnosed.insert(t);
            }
        }
    }
    aborts + diagnosed.len()
}

/// What the pass manager prints around any caught crash.
const GENERIC: [&str; 3] = [
    "PassManager::run failed",
    "Failures have been detected while processing an MLIR pass pipeline",
    "A signal was caught while processing the MLIR module",
];

/// Words too common in failure messages to make two of them alike.
const COMMON_WORDS: [&str; 24] = [
    "the",
    "and",
    "for",
    "not",
    "but",
    "with",
    "error",
    "failed",
    "assertion",
    "llvm",
    "mlir",
    "triton",
    "python",
    "const",
    "void",
    "int",
    "unsigned",
    "std",
    "cpp",
    "line",
    "file",
    "runtimeerror",
    "assertionerror",
    "anonymous",
];

fn words(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.len() > 2)
        .map(str::to_lowercase)
        .filter(|w| !COMMON_WORDS.contains(&w.as_str()))
        .collect()
}

/// The (at most three) locations whose messages share the most words with
/// `text`; none shares no word.
fn nearest(text: &str) -> Vec<(&'static Site, &'static Location)> {
    let mine = words(text);
    let mut scored: Vec<(usize, &'static Site, &'static Location)> = locations()
        .into_iter()
        .filter(|(_, l)| !l.message.is_empty())
        .filter_map(|(s, l)| {
            let theirs = words(l.message);
            let shared = mine.intersection(&theirs).count();
            (shared > 0).then(|| (shared * 100 / theirs.len().max(1), s, l))
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

    /// `llvm_unreachable` prints its message and the `UNREACHABLE executed
    /// at` line apart, with the build's path (3.1.0's attention kernels at
    /// 8 and 16 warps on sm90).
    #[test]
    fn an_unreachable_over_two_lines_names_its_site_and_release() {
        let log = "SharedEncodingAttr builder when the MMAEncodingAttr is Hopper has not been implemented yet\n\
                   UNREACHABLE executed at /project/python/build/cmake.linux-x86_64-cpython-3.11/include/\
                   triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.cpp.inc:347!\nAborted (core dumped)";
        let m = explain(log).site.expect("known");
        assert_eq!(m.site.id, "hopper_dot_operand");
        assert!(m.line_matched);
        assert_eq!(m.releases, [Release::V3_1]);
    }

    #[test]
    fn unknown_messages_say_so_and_list_only_sites_sharing_words() {
        let e = explain("RuntimeError: something entirely different happened in the frobnicator");
        assert!(e.site.is_none());
        assert!(e.nearest.is_empty(), "no site shares a word");
        assert!(e.to_text().starts_with("Unknown"));
        let e = explain("python: a.cpp:1: void f(): Assertion `swizzled shared layout' failed.");
        assert!(e.site.is_none());
        assert!(!e.nearest.is_empty());
        for (_, l) in &e.nearest {
            assert!(
                words(l.message)
                    .iter()
                    .any(|w| w == "shared" || w == "layout" || w == "swizzled")
            );
        }
    }

    /// The stmatrix assertion's own text, in another program's file: the
    /// message matches, the file does not, so no site is named.
    #[test]
    fn an_assertion_in_another_file_is_not_triton_s() {
        let assertion = "Assertion `getTotalOutDimSize() == std::accumulate( newOutDims.begin(), \
                         newOutDims.end(), 1, [&](int32_t acc, auto &outDim) { return acc * \
                         outDim.second; })' failed.";
        let e = explain(&format!(
            "myprog: /home/me/Shapes.cpp:88: void g(): {assertion}"
        ));
        assert!(e.site.is_none() && !e.known());
        assert_eq!(e.unconfirmed.first().map(|m| m.site.id), Some("stmatrix"));
        assert!(e.to_text().starts_with("Unknown: the log does not show"));
        let e = explain(&format!(
            "python: /src/lib/Tools/LinearLayout.cpp:562: void g(): {assertion}"
        ));
        assert_eq!(e.site.map(|m| m.site.id), Some("stmatrix"));
        assert!(e.unconfirmed.is_empty());
        // trusted text (a Triton worker's message) needs no file
        let e = explain_triton(assertion);
        assert_eq!(e.site.map(|m| m.site.id), Some("stmatrix"));
    }

    /// LLVM's own text is any LLVM program's: named only in a log that
    /// shows Triton.
    #[test]
    fn llvm_s_own_text_needs_triton_in_the_log() {
        let line = "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32";
        let e = explain(line);
        assert!(e.site.is_none());
        assert_eq!(
            e.unconfirmed.first().map(|m| m.site.id),
            Some("unknown_target")
        );
        let e = explain(&format!(
            "  File \"/venv/lib/python3.12/site-packages/triton/compiler/compiler.py\", line 1\n{line}"
        ));
        assert_eq!(e.site.map(|m| m.site.id), Some("unknown_target"));
        assert!(e.context.triton);
    }

    #[test]
    fn several_failures_are_counted_once_each() {
        let a = "python: /s/lib/Analysis/Utility.cpp:318: bool f(): Assertion `lowerHalfRow[1] == 0' failed.";
        let b = "python: /s/lib/Analysis/Allocation.cpp:47: void g(): Assertion `!(srcMmaLayout && \
                 dstMmaLayout && !srcMmaLayout.isAmpere()) && \"mma -> mma layout conversion is only \
                 supported on Ampere\"' failed.";
        let one = explain(&format!("{a}\nAborted (core dumped)\n{a}\n"));
        assert_eq!(one.failures, 1, "the same abort twice is one failure");
        let two = explain(&format!("{a}\nAborted\n{b}\nAborted\n"));
        assert_eq!(two.failures, 2);
        let named: Vec<&str> = two
            .site
            .iter()
            .chain(&two.others)
            .map(|m| m.site.id)
            .collect();
        assert!(
            named.contains(&"warp_shuffle_3_3") && named.contains(&"mma_to_mma_3_1"),
            "{named:?}"
        );
        let text = two.to_text();
        assert!(text.contains("several failures: the log holds 2"), "{text}");
        assert!(text.contains("another failure, line"), "{text}");
    }

    #[test]
    fn a_pass_without_a_diagnostic_is_named_by_the_pass_manager_s_note() {
        let log = |pass: &str| {
            format!(
                "k.py:9:0: error: Failures have been detected while processing an MLIR pass pipeline\n\
                 k.py:9:0: note: Pipeline failed while executing [`{pass}` on 'builtin.module' operation]: \
                 reproducer generated at `std::errs`\nRuntimeError: PassManager::run failed"
            )
        };
        let named = |e: &Explanation| -> Vec<&str> {
            e.site.iter().chain(&e.others).map(|m| m.site.id).collect()
        };
        let own = explain(&log("TritonNvidiaGPUPromoteLHSToTMemPass"));
        assert_eq!(named(&own), ["tmem_lhs_cta"]);
        // the same wrapper around another pass is not that site's
        let other = explain(&log("TritonNvidiaGPUOptimizeDescriptorEncodingPass"));
        assert!(named(&other).is_empty(), "{:?}", named(&other));
        assert!(other.generic.is_some());
    }

    #[test]
    fn echoed_text_has_its_controls_escaped() {
        let e = explain("\u{1b}]0;pwned\u{7}error: boom \u{1b}[2J\r\u{9b}31m");
        let text = e.to_text();
        assert!(!text.chars().any(crate::escape::is_unsafe), "{text:?}");
        assert!(text.contains("\\u001b]0;pwned"), "{text}");
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
