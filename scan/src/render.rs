//! A scan's report as text (as `search` prints it) and as JSON (everything
//! the text shows, and every configuration's outcome per release).

use super::report::{Outcome, ScanReport, SiteGroup};
use super::space::ScanConfig;
use linear_layout_triton::{Entry as From, SiteKind};
use serde_json::{Value, json};
use std::fmt::Write as _;

impl ScanReport {
    fn wheel(&self, r: usize) -> &str {
        &self.releases[r].wheel
    }

    fn cfg(&self, c: usize) -> String {
        self.configs[c].to_string()
    }

    /// The report as JSON: everything the text shows.
    pub fn to_json(&self) -> Value {
        let rel = |r: usize| json!(self.wheel(r));
        json!({
            "kernel": self.kernel,
            "name": self.name,
            "import": self.import,
            "torch": self.torch,
            "releases": self.releases.iter().map(|r| json!({"wheel": r.wheel, "model": r.release.to_string(),
                "python": r.python})).collect::<Vec<_>>(),
            "not_scanned": self.missing.iter().map(|(w, why)| json!({"wheel": w, "why": why})).collect::<Vec<_>>(),
            "configs": self.configs.iter().map(ScanConfig::to_json).collect::<Vec<_>>(),
            "outcomes": self.releases.iter().enumerate().map(|(r, rel)| json!({
                "wheel": rel.wheel,
                "configs": self.outcomes[r].iter().map(Outcome::json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "groups": self.groups.iter().map(|g| json!({
                "release": rel(g.release),
                "model": self.releases[g.release].release.to_string(),
                "site": g.site.id,
                "kind": g.site.kind,
                "title": g.site.title,
                "verdict": g.verdict,
                "count": g.configs.len(),
                "configs": g.configs,
                "minimal": self.configs[g.configs[0]].to_json(),
                "failure": g.finding.failure.to_json(From::Source),
                "line": g.finding.line,
                "op": g.finding.op,
                "fixes": g.fixes.iter().map(|(f, n)| json!({"fixed_in": f.map(rel), "count": n})).collect::<Vec<_>>(),
                "change": g.change,
                "workaround": g.site.workaround,
                "reproducer": g.reproducer,
                "reproduced": g.reproduced,
                "minimal_ttgir": g.minimal.as_ref().map(|m| json!({
                    "path": m.path, "ops_before": m.ops_before, "ops_after": m.ops_after,
                    "expected": m.expected,
                    "compiled": m.compiled.as_ref().map(|(s, msg)| json!({"outcome": s, "message": msg})),
                    "confirmed": m.confirmed,
                })),
            })).collect::<Vec<_>>(),
            "front_end": self.front_end.iter().map(|g| json!({
                "release": rel(g.release), "status": g.status, "message": g.message,
                "site": g.site.map(|s| s.id), "count": g.configs.len(), "configs": g.configs,
                "minimal": self.configs[g.configs[0]].to_json(),
            })).collect::<Vec<_>>(),
            "regressions": self.regressions.iter().map(|x| json!({
                "passes_in": rel(x.passes_in), "fails_in": rel(x.fails_in), "what": x.what,
                "count": x.configs.len(), "minimal": self.configs[x.configs[0]].to_json(),
            })).collect::<Vec<_>>(),
            "risks": self.risks.iter().map(|g| json!({
                "release": rel(g.release),
                "site": g.site.id,
                "title": g.site.title,
                "verdict": g.finding.failure.verdict(From::Source),
                "count": g.configs.len(),
                "configs": g.configs,
                "minimal": self.configs[g.configs[0]].to_json(),
                "failure": g.finding.failure.to_json(From::Source),
                "line": g.finding.line,
                "op": g.finding.op,
                "workaround": g.site.workaround,
            })).collect::<Vec<_>>(),
            "confirmations": self.confirmations.iter().map(|x| json!({
                "release": rel(x.release), "config": x.config, "predicted": x.predicted,
                "real": x.real, "message": x.message, "confirmed": x.confirmed,
            })).collect::<Vec<_>>(),
            "timing": {"total_s": self.timing.total_s, "inspect_s": self.timing.inspect_s,
                       "front_end_s": self.timing.front_end_s, "check_s": self.timing.check_s,
                       "cached": self.timing.cached, "ran": self.timing.ran},
            "found_failure": self.found_failure(),
        })
    }

    /// The report as text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let n = self.configs.len();
        let _ = writeln!(
            out,
            "{} ({}): {} configuration(s) × {} release(s) in {:.2} s ({} front ends run, {} cached).",
            self.kernel,
            self.name,
            n,
            self.releases.len(),
            self.timing.total_s,
            self.timing.ran,
            self.timing.cached
        );
        let scanned: Vec<String> = self
            .releases
            .iter()
            .map(|r| {
                if r.release.info().wheels.len() > 1 || r.release.info().wheel != r.wheel {
                    format!("{} ({} model)", r.wheel, r.release)
                } else {
                    r.wheel.clone()
                }
            })
            .collect();
        let _ = writeln!(out, "Scanned: Triton {}.", scanned.join(", "));
        if !self.missing.is_empty() {
            for (w, why) in &self.missing {
                let _ = writeln!(out, "Not scanned: Triton {w}: {why}");
            }
        }
        if self.torch == "stand-in" {
            let _ = writeln!(
                out,
                "(torch is not installed with these releases: a stand-in module answered the \
                 kernel module's imports.)"
            );
        }
        // the table: one row per release
        let _ = writeln!(out);
        for (r, rel) in self.releases.iter().enumerate() {
            let row = &self.outcomes[r];
            let fails = row
                .iter()
                .filter(|o| matches!(o, Outcome::Fails { .. }))
                .count();
            let front = row
                .iter()
                .filter(|o| matches!(o, Outcome::FrontEnd { .. }))
                .count();
            let _ = writeln!(
                out,
                "  Triton {:<6} {:>4} ok, {:>4} fail in the lowering (predicted), {:>4} fail in the front end",
                rel.wheel,
                n - fails - front,
                fails,
                front
            );
        }
        let _ = writeln!(out);
        let (bugs, rejections): (Vec<&SiteGroup>, Vec<&SiteGroup>) = self
            .groups
            .iter()
            .partition(|g| g.site.kind == SiteKind::Bug);
        if bugs.is_empty() {
            let _ = writeln!(out, "== No compiler failure predicted in this space.\n");
        } else {
            let _ = writeln!(
                out,
                "== Compiler failures by release and site (minimal configuration, fix, reproducer)\n"
            );
        }
        for g in bugs.iter().chain(rejections.iter()) {
            self.group_text(&mut out, g);
        }
        if !self.regressions.is_empty() {
            let _ = writeln!(
                out,
                "== Regressions: compiles in one release, fails in the next\n"
            );
            for x in &self.regressions {
                let _ = writeln!(
                    out,
                    "{} → {}, {}: {} configuration(s), e.g. {}",
                    self.wheel(x.passes_in),
                    self.wheel(x.fails_in),
                    x.what,
                    x.configs.len(),
                    self.cfg(x.configs[0])
                );
            }
            let _ = writeln!(out);
        }
        if !self.risks.is_empty() {
            let _ = writeln!(
                out,
                "== Risks: the kernel compiles, but the assembler the release bundles may miscompile it\n"
            );
            for g in &self.risks {
                let _ = writeln!(
                    out,
                    "Triton {} — {} in {} configuration(s), e.g. {}:\n    {}\n    workaround: {}",
                    self.wheel(g.release),
                    g.site.id,
                    g.configs.len(),
                    self.cfg(g.configs[0]),
                    g.finding.failure.explanation,
                    g.site.workaround
                );
            }
            let _ = writeln!(out);
        }
        if !self.front_end.is_empty() {
            let _ = writeln!(
                out,
                "== Front-end failures (Triton's own messages, before any layout is lowered)\n"
            );
            for g in &self.front_end {
                let site = g
                    .site
                    .map(|s| format!(" [site {}: {}]", s.id, s.title))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "Triton {} — {} in {} configuration(s), e.g. {}:\n    {}{site}",
                    self.wheel(g.release),
                    g.status,
                    g.configs.len(),
                    self.cfg(g.configs[0]),
                    g.message
                );
            }
            let _ = writeln!(out);
        }
        if !self.confirmations.is_empty() {
            let agree = self.confirmations.iter().filter(|x| x.confirmed).count();
            let _ = writeln!(
                out,
                "== Confirmed by full compiles: {agree} of {} predictions\n",
                self.confirmations.len()
            );
            for x in self.confirmations.iter().filter(|x| !x.confirmed) {
                let _ = writeln!(
                    out,
                    "NOT CONFIRMED: Triton {} {}: predicted {}, the compile gave {}: {}",
                    self.wheel(x.release),
                    self.cfg(x.config),
                    x.predicted,
                    x.real,
                    x.message
                );
            }
            let _ = writeln!(out);
        }
        out
    }

    fn group_text(&self, out: &mut String, g: &SiteGroup) {
        let f = &g.finding.failure;
        let r = &self.releases[g.release];
        let _ = writeln!(
            out,
            "Triton {} — site {}: {} configuration(s), verdict {}{}",
            r.wheel,
            g.site.id,
            g.configs.len(),
            g.verdict,
            if g.site.kind == SiteKind::Rejection {
                " (a front-end rejection)"
            } else {
                ""
            }
        );
        let _ = writeln!(out, "  what:      {}", g.site.title);
        let _ = writeln!(out, "  where:     {} at {}", f.location.function, f.cite());
        let _ = writeln!(
            out,
            "  op:        TTGIR line {} ({}) of the minimal configuration",
            g.finding.line, g.finding.op
        );
        let _ = writeln!(out, "  minimal:   {}", self.cfg(g.configs[0]));
        for &c in g.configs.iter().skip(1).take(3) {
            let _ = writeln!(out, "             {}", self.cfg(c));
        }
        if g.configs.len() > 4 {
            let _ = writeln!(out, "             … {} more", g.configs.len() - 4);
        }
        let _ = writeln!(out, "  message:   {}", f.triton_message);
        let _ = writeln!(out, "  why:       {}", f.explanation);
        for (fixed, count) in &g.fixes {
            match fixed {
                Some(l) => {
                    let _ = writeln!(
                        out,
                        "  fixed:     {count} pass from Triton {}",
                        self.wheel(*l)
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "  fixed:     {count} fail in every later release scanned"
                    );
                }
            }
        }
        if let Some(ch) = &g.change {
            let _ = writeln!(out, "  change:    {ch}");
        }
        let _ = writeln!(out, "  workaround: {}", g.site.workaround);
        if let Some(p) = &g.reproducer {
            let _ = writeln!(out, "  reproduce: {} {}", r.python.display(), p.display());
        }
        if let Some(line) = &g.reproduced {
            let _ = writeln!(out, "             ran it: {line}");
        }
        if let Some(m) = &g.minimal {
            let compiled = match &m.compiled {
                Some((s, msg)) => {
                    let ok = m.confirmed == Some(true);
                    format!(
                        "; Triton {} gives {s}{} ({})",
                        r.wheel,
                        if msg.is_empty() {
                            String::new()
                        } else {
                            format!(": {msg}")
                        },
                        if ok { "confirmed" } else { "NOT confirmed" }
                    )
                }
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  minimal TTGIR: {} ({} of {} ops; predicted {}{compiled})",
                m.path.display(),
                m.ops_after,
                m.ops_before,
                m.expected
            );
        }
        let _ = writeln!(out);
    }
}
