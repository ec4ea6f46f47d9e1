//! The answer as text and as JSON, and the `scan` command it suggests.

use super::{Explanation, SiteMatch};
use crate::Entry;
use serde_json::{Value, json};

impl Explanation {
    /// The `scan` command the log suggests, when it names a kernel; the
    /// kernel's path, read from the log, is quoted as one shell word.
    pub fn scan_command(&self) -> Option<String> {
        let c = &self.context;
        let kernel = c.kernel.as_ref()?;
        let file = c.file.clone().unwrap_or_else(|| "path/to/kernel.py".into());
        // the path is the log's: one shell word, whatever it holds
        let target = crate::escape::shell_word(&format!("{file}::{kernel}")).into_owned();
        let mut cmd = format!("linear-layout scan {target} --args '…'");
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
                "line": m.line,
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
            "key_line_count": self.key_line_count,
            "failures": self.failures,
            "site": self.site.as_ref().map(m),
            "others": self.others.iter().map(m).collect::<Vec<_>>(),
            "unconfirmed": self.unconfirmed.iter().map(m).collect::<Vec<_>>(),
            "nearest": self.nearest.iter().map(|(s, l)| json!({"site": s.id, "message": l.message,
                "releases": l.releases.to_string()})).collect::<Vec<_>>(),
            "findings": self.findings.iter().map(|f| json!({"line": f.line, "op": f.op,
                "failure": f.failure.to_json(Entry::IrFile)})).collect::<Vec<_>>(),
            "context": {"kernel": c.kernel, "file": c.file, "num_warps": c.num_warps,
                "num_stages": c.num_stages, "num_ctas": c.num_ctas, "arch": c.arch, "shapes": c.shapes,
                "version": c.version, "dialect": c.dialect, "caught": c.caught,
                "triton": c.triton},
            "scan": self.scan_command(),
        })
    }

    /// As text, safe to print on a terminal: whatever the log holds is
    /// echoed with its control characters escaped
    /// ([`crate::escape::controls`]).
    pub fn to_text(&self) -> String {
        crate::escape::controls(&self.text()).into_owned()
    }

    fn text(&self) -> String {
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
                if self.unconfirmed.is_empty() {
                    let _ = writeln!(out, "Unknown: no modelled site prints this message.");
                } else {
                    let _ = writeln!(
                        out,
                        "Unknown: the log does not show that Triton printed it."
                    );
                }
                for u in &self.unconfirmed {
                    let files: Vec<&str> = u.locations.iter().map(|l| l.file).collect();
                    let _ = writeln!(
                        out,
                        "  site {} prints this text (line {} of the log), but {}",
                        u.site.id,
                        u.line,
                        if u.locations
                            .iter()
                            .any(|l| l.message.contains("Assertion `"))
                        {
                            format!(
                                "its assertion is in {}, and the log's line names another file",
                                files.join(", ")
                            )
                        } else {
                            "any program may print it, and the log never names Triton (paste the \
                             whole log: the traceback or command that ran Triton)"
                                .to_string()
                        }
                    );
                }
                if !self.key_lines.is_empty() {
                    let _ = writeln!(out, "  the log's failure lines:");
                    for l in self.key_lines.iter().take(4) {
                        let _ = writeln!(out, "    {l}");
                    }
                    if self.key_line_count > 4 {
                        let _ = writeln!(
                            out,
                            "    … {} distinct failure lines in all",
                            self.key_line_count
                        );
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
                    crate::SiteKind::Bug => "a compiler bug",
                    crate::SiteKind::Rejection => "a front-end rejection",
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
                    let releases = o
                        .releases
                        .iter()
                        .map(|r| r.to_string())
                        .collect::<Vec<_>>()
                        .join(", ");
                    if o.line == m.line {
                        let _ = writeln!(
                            out,
                            "  also prints this message: site {} ({}; Triton {releases})",
                            o.site.id, o.site.title
                        );
                    } else {
                        let _ = writeln!(
                            out,
                            "  another failure, line {} of the log: site {} ({}; Triton {releases})",
                            o.line, o.site.id, o.site.title
                        );
                    }
                }
            }
        }
        if self.failures > 1 {
            let _ = writeln!(
                out,
                "  several failures: the log holds {} (distinct aborts and diagnosed errors); \
                 this names the most specific match{}",
                self.failures,
                match &self.site {
                    Some(m) => format!(", at line {} of the log", m.line),
                    None => String::new(),
                }
            );
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
