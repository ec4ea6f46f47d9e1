//! What a scan found: each configuration's outcome per release, grouped
//! as `search` groups them (compiler failures by release and site first,
//! front-end failures apart), with the minimal failing configuration per
//! site, the release that fixes it and the descriptor's change, the
//! regressions, the confirmations, and per site a reproducer and a minimal
//! TTGIR module.

use super::cache::{Cache, Entry};
use super::python::{Interpreter, Interpreters};
use super::space::{Inspection, ScanConfig};
use super::{ScanRequest, check_module, reduce, reproducer};
use linear_layout_triton::finder::check_ttgir::{self, Finding};
use linear_layout_triton::{Entry as From, Release, Site, SiteKind, Verdict};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What one release makes of one configuration.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The front end gave a module the model passes.
    Passes,
    /// The model fails the module: the lowering would fail (first finding
    /// first).
    Fails {
        /// The findings, in module order.
        findings: Vec<Finding>,
    },
    /// The front end itself failed (or timed out).
    FrontEnd {
        /// `error`, `abort` or `timeout`.
        status: String,
        /// Its key line.
        message: String,
        /// The Python exception, for an error.
        exception: Option<String>,
        /// The stage that was running.
        stage: Option<String>,
        /// The known site whose message it is, if any.
        site: Option<&'static Site>,
    },
}

impl Outcome {
    /// The verdict of a compile from source.
    pub fn verdict(&self) -> Verdict {
        match self {
            Outcome::Passes => Verdict::Ok,
            Outcome::Fails { findings } => findings
                .first()
                .map_or(Verdict::Ok, |f| f.failure.verdict(From::Source)),
            Outcome::FrontEnd { status, .. } => {
                if status == "abort" {
                    Verdict::Abort
                } else {
                    Verdict::Error
                }
            }
        }
    }

    /// Whether it fails in any way.
    pub fn fails(&self) -> bool {
        !matches!(self, Outcome::Passes)
    }

    /// What fails, in one line.
    pub fn summary(&self) -> String {
        match self {
            Outcome::Passes => "ok".into(),
            Outcome::Fails { findings } => findings.first().map_or_else(String::new, |f| {
                format!(
                    "{} at {} (TTGIR line {}, {})",
                    f.failure.verdict(From::Source),
                    f.failure.site.id,
                    f.line,
                    f.op
                )
            }),
            Outcome::FrontEnd {
                status, message, ..
            } => format!("front end {status}: {message}"),
        }
    }

    pub(super) fn json(&self) -> Value {
        match self {
            Outcome::Passes => json!({"outcome": "ok"}),
            Outcome::Fails { findings } => json!({
                "outcome": "fails",
                "verdict": self.verdict(),
                "findings": findings.iter().map(|f| json!({"line": f.line, "op": f.op,
                    "failure": f.failure.to_json(From::Source)})).collect::<Vec<_>>(),
            }),
            Outcome::FrontEnd {
                status,
                message,
                exception,
                stage,
                site,
            } => json!({
                "outcome": "front_end",
                "status": status,
                "message": message,
                "exception": exception,
                "stage": stage,
                "site": site.map(|s| s.id),
            }),
        }
    }
}

/// The outcome of every (release, configuration) entry, checked by the
/// model (identical modules are checked once per release).
pub fn outcomes(
    interps: &[Interpreter],
    configs: &[ScanConfig],
    entries: &BTreeMap<(usize, usize), Entry>,
) -> Vec<Vec<Outcome>> {
    use rayon::prelude::*;
    interps
        .iter()
        .enumerate()
        .map(|(r, interp)| {
            (0..configs.len())
                .into_par_iter()
                .map(|c| match entries.get(&(r, c)) {
                    None => Outcome::FrontEnd {
                        status: "error".into(),
                        message: "no result".into(),
                        exception: None,
                        stage: None,
                        site: None,
                    },
                    Some(e) => match (&e.ttgir, e.status.as_str()) {
                        (Some(text), "ttgir" | "ok") => {
                            let findings = check_module(text, interp.release);
                            if findings.is_empty() {
                                Outcome::Passes
                            } else {
                                Outcome::Fails { findings }
                            }
                        }
                        _ => front_end_outcome(e),
                    },
                })
                .collect()
        })
        .collect()
}

fn front_end_outcome(e: &Entry) -> Outcome {
    let site = linear_layout_triton::explain::explain(&format!(
        "{}\n{}",
        e.message,
        e.exception.clone().unwrap_or_default()
    ))
    .site
    .map(|m| m.site);
    Outcome::FrontEnd {
        status: if e.status == "ttgir" {
            "error".into()
        } else {
            e.status.clone()
        },
        message: e.message.clone(),
        exception: e.exception.clone(),
        stage: e.stage.clone(),
        site,
    }
}

/// A scanned release.
#[derive(Clone, Debug)]
pub struct Scanned {
    /// The wheel (`3.5.1`).
    pub wheel: String,
    /// The model that checks it.
    pub release: Release,
    /// Its interpreter.
    pub python: PathBuf,
}

/// The failures at one site in one release.
#[derive(Clone, Debug)]
pub struct SiteGroup {
    /// Index into [`ScanReport::releases`].
    pub release: usize,
    /// The site.
    pub site: &'static Site,
    /// How the compile ends there (from source).
    pub verdict: Verdict,
    /// The failing configurations, smallest first.
    pub configs: Vec<usize>,
    /// The minimal one's first finding.
    pub finding: Finding,
    /// `(first later release that compiles them, how many)`.
    pub fixes: Vec<(Option<usize>, usize)>,
    /// The descriptor's change for the commonest fix.
    pub change: Option<String>,
    /// The reproducer script, once written.
    pub reproducer: Option<PathBuf>,
    /// What running it printed (with `--confirm`).
    pub reproduced: Option<String>,
    /// The minimal module.
    pub minimal: Option<MinimalModule>,
}

/// A reduced module.
#[derive(Clone, Debug)]
pub struct MinimalModule {
    /// Where it was written.
    pub path: PathBuf,
    /// Ops before reduction.
    pub ops_before: usize,
    /// Ops after.
    pub ops_after: usize,
    /// What the model predicts for compiling the file.
    pub expected: Verdict,
    /// What the release did with it, where installed: `ok`, `error`,
    /// `abort`, with its key line.
    pub compiled: Option<(String, String)>,
    /// Whether that is the predicted failure: the same outcome, and a
    /// message `explain` gives to the site (another failure that ends the
    /// same way, which a reduction step can cause, does not confirm it).
    pub confirmed: Option<bool>,
}

/// Whether a real compile's `status` and key line `message` are the
/// failure `site` predicts with `verdict`: the same outcome, and (for a
/// failure) a message that `explain` names the site for. A `wrong`
/// verdict is confirmed by a compile that succeeds.
pub fn confirms(verdict: Verdict, site: Option<&Site>, status: &str, message: &str) -> bool {
    let real = if status == "ttgir" { "ok" } else { status };
    // A miscompile compiles: on CPU only that much can be confirmed.
    if verdict == Verdict::Wrong {
        return real == "ok";
    }
    if verdict.to_string() != real {
        return false;
    }
    match site {
        Some(site) if verdict != Verdict::Ok => {
            let e = linear_layout_triton::explain::explain(message);
            e.site.iter().chain(&e.others).any(|m| m.site.id == site.id)
        }
        _ => true,
    }
}

/// Front-end failures with one message in one release.
#[derive(Clone, Debug)]
pub struct FrontEndGroup {
    /// Index into [`ScanReport::releases`].
    pub release: usize,
    /// `error`, `abort` or `timeout`.
    pub status: String,
    /// The key line.
    pub message: String,
    /// The known site whose message it is.
    pub site: Option<&'static Site>,
    /// The configurations, smallest first.
    pub configs: Vec<usize>,
}

/// Configurations that one release compiles and the next scanned one
/// fails.
#[derive(Clone, Debug)]
pub struct Regression {
    /// The release that passes.
    pub passes_in: usize,
    /// The next, which fails.
    pub fails_in: usize,
    /// What fails there: a site, or the front end's message.
    pub what: String,
    /// The configurations, smallest first.
    pub configs: Vec<usize>,
}

/// A prediction checked against a full compile.
#[derive(Clone, Debug)]
pub struct Confirmation {
    /// Index into releases.
    pub release: usize,
    /// Index into configs.
    pub config: usize,
    /// The scan's verdict.
    pub predicted: Verdict,
    /// The real compile's outcome (`ok`, `error`, `abort`, `timeout`).
    pub real: String,
    /// Its key line.
    pub message: String,
    /// Whether they agree.
    pub confirmed: bool,
}

/// Seconds spent, and how much came from the cache.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// The whole scan.
    pub total_s: f64,
    /// Interpreters and inspection.
    pub inspect_s: f64,
    /// Front ends run.
    pub front_end_s: f64,
    /// The model over every module.
    pub check_s: f64,
    /// Front ends found in the cache.
    pub cached: usize,
    /// Front ends run.
    pub ran: usize,
}

/// What a scan found.
#[derive(Clone, Debug)]
pub struct ScanReport {
    /// The kernel as named.
    pub kernel: String,
    /// The JIT function's name.
    pub name: String,
    /// How it was imported, and whether torch was a stand-in.
    pub import: String,
    /// `torch` or `stand-in`.
    pub torch: String,
    /// Releases scanned, oldest first.
    pub releases: Vec<Scanned>,
    /// `(wheel, why)` of releases not scanned.
    pub missing: Vec<(String, String)>,
    /// The configurations.
    pub configs: Vec<ScanConfig>,
    /// `outcomes[release][config]`.
    pub outcomes: Vec<Vec<Outcome>>,
    /// Model failures by release and site: compiler bugs first.
    pub groups: Vec<SiteGroup>,
    /// Front-end failures by release and message.
    pub front_end: Vec<FrontEndGroup>,
    /// Regressions.
    pub regressions: Vec<Regression>,
    /// Modules that compile but that the release's bundled assembler may
    /// miscompile, by release and site (`check_ttgir::risks`).
    pub risks: Vec<RiskGroup>,
    /// Confirmations (`--confirm`).
    pub confirmations: Vec<Confirmation>,
    /// Timing.
    pub timing: Timing,
    /// Where artefacts were written.
    pub out_dir: PathBuf,
}

/// The configurations of one release whose modules compile but carry one
/// risk (a [`linear_layout_triton::Ending::Risk`] site).
#[derive(Clone, Debug)]
pub struct RiskGroup {
    /// Index into [`ScanReport::releases`].
    pub release: usize,
    /// The site.
    pub site: &'static Site,
    /// The configurations, smallest first.
    pub configs: Vec<usize>,
    /// The smallest one's finding.
    pub finding: Finding,
}

/// The risks of every module that compiles, grouped by release and site.
fn risk_groups(
    releases: &[Scanned],
    configs: &[ScanConfig],
    outcomes: &[Vec<Outcome>],
    entries: &BTreeMap<(usize, usize), Entry>,
) -> Vec<RiskGroup> {
    let mut by_site: BTreeMap<(usize, &'static str), Vec<(usize, Finding)>> = BTreeMap::new();
    for (r, row) in outcomes.iter().enumerate() {
        for (c, outcome) in row.iter().enumerate() {
            let (Outcome::Passes, Some(text)) =
                (outcome, entries.get(&(r, c)).and_then(|e| e.ttgir.as_ref()))
            else {
                continue;
            };
            let found = check_ttgir::risks(text, releases[r].release).unwrap_or_default();
            if let Some(f) = found.into_iter().next() {
                by_site
                    .entry((r, f.failure.site.id))
                    .or_default()
                    .push((c, f));
            }
        }
    }
    by_site
        .into_iter()
        .filter_map(|((r, _), found)| {
            let cs = smallest(configs, found.iter().map(|(c, _)| *c).collect());
            let finding = found.into_iter().find(|(c, _)| *c == cs[0])?.1;
            Some(RiskGroup {
                release: r,
                site: finding.failure.site,
                configs: cs,
                finding,
            })
        })
        .collect()
}

fn smallest(configs: &[ScanConfig], mut idx: Vec<usize>) -> Vec<usize> {
    idx.sort_by_key(|&c| (configs[c].rank(), c));
    idx
}

impl ScanReport {
    /// Groups the outcomes.
    pub fn build(
        req: &ScanRequest,
        interps: &Interpreters,
        insp: &Inspection,
        configs: &[ScanConfig],
        outcomes: Vec<Vec<Outcome>>,
        entries: &BTreeMap<(usize, usize), Entry>,
    ) -> ScanReport {
        let releases: Vec<Scanned> = interps
            .found
            .iter()
            .map(|i| Scanned {
                wheel: i.wheel.clone(),
                release: i.release,
                python: i.python.clone(),
            })
            .collect();
        let mut by_site: BTreeMap<(usize, &'static str), Vec<usize>> = BTreeMap::new();
        let mut by_msg: BTreeMap<(usize, String, String), Vec<usize>> = BTreeMap::new();
        for (r, row) in outcomes.iter().enumerate() {
            for (c, o) in row.iter().enumerate() {
                match o {
                    Outcome::Passes => {}
                    Outcome::Fails { findings } => {
                        if let Some(f) = findings.first() {
                            by_site.entry((r, f.failure.site.id)).or_default().push(c);
                        }
                    }
                    Outcome::FrontEnd {
                        status, message, ..
                    } => by_msg
                        .entry((r, status.clone(), message.clone()))
                        .or_default()
                        .push(c),
                }
            }
        }
        let mut groups: Vec<SiteGroup> = by_site
            .into_iter()
            .filter_map(|((r, _), cs)| {
                let cs = smallest(configs, cs);
                let Outcome::Fails { findings } = &outcomes[r][cs[0]] else {
                    return None;
                };
                let finding = findings.first()?.clone();
                let site = finding.failure.site;
                let mut fixes: BTreeMap<Option<usize>, usize> = BTreeMap::new();
                for &c in &cs {
                    let fixed = (r + 1..releases.len()).find(|&l| !outcomes[l][c].fails());
                    *fixes.entry(fixed).or_default() += 1;
                }
                let mut fixes: Vec<(Option<usize>, usize)> = fixes.into_iter().collect();
                fixes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let change = fixes.first().and_then(|(fixed, _)| {
                    let fixed = (*fixed)?;
                    let (from, to) = (releases[r].release, releases[fixed].release);
                    Some(match site.change_between(from, to) {
                        Some(ch) => ch.to_string(),
                        None if from == to => format!(
                            "the front end of {} gives a different module (both are read with \
                             the {to} model)",
                            releases[fixed].wheel
                        ),
                        None => format!(
                            "site {} no longer fails (no change recorded in its descriptor)",
                            site.id
                        ),
                    })
                });
                Some(SiteGroup {
                    release: r,
                    site,
                    verdict: finding.failure.verdict(From::Source),
                    configs: cs,
                    finding,
                    fixes,
                    change,
                    reproducer: None,
                    reproduced: None,
                    minimal: None,
                })
            })
            .collect();
        groups.sort_by_key(|g| (g.site.kind, g.release, g.site.id));
        let front_end = by_msg
            .into_iter()
            .map(|((r, status, message), cs)| {
                let site = match &outcomes[r][cs[0]] {
                    Outcome::FrontEnd { site, .. } => *site,
                    _ => None,
                };
                FrontEndGroup {
                    release: r,
                    status,
                    message,
                    site,
                    configs: smallest(configs, cs),
                }
            })
            .collect();
        let mut reg: BTreeMap<(usize, usize, String), Vec<usize>> = BTreeMap::new();
        for r in 0..releases.len().saturating_sub(1) {
            for (c, (a, b)) in outcomes[r].iter().zip(&outcomes[r + 1]).enumerate() {
                if a.fails() || !b.fails() {
                    continue;
                }
                let what = match b {
                    Outcome::Fails { findings } => findings
                        .first()
                        .map_or_else(String::new, |f| format!("site {}", f.failure.site.id)),
                    Outcome::FrontEnd { message, site, .. } => match site {
                        Some(s) => format!("front end, site {}", s.id),
                        None => format!("front end: {message}"),
                    },
                    Outcome::Passes => continue,
                };
                reg.entry((r, r + 1, what)).or_default().push(c);
            }
        }
        let regressions = reg
            .into_iter()
            .map(|((p, f, what), cs)| Regression {
                passes_in: p,
                fails_in: f,
                what,
                configs: smallest(configs, cs),
            })
            .collect();
        let risks = risk_groups(&releases, configs, &outcomes, entries);
        ScanReport {
            kernel: req.kernel.clone(),
            name: insp.name.clone(),
            import: insp.import.clone(),
            torch: insp.torch.clone(),
            releases,
            missing: interps.missing.clone(),
            configs: configs.to_vec(),
            outcomes,
            groups,
            front_end,
            regressions,
            risks,
            confirmations: Vec::new(),
            timing: Timing::default(),
            out_dir: req.out_dir.clone(),
        }
    }

    /// Records a full compile of (release, config).
    pub fn confirm(&mut self, r: usize, c: usize, e: &Entry) {
        let predicted = self.outcomes[r][c].verdict();
        let site = match &self.outcomes[r][c] {
            Outcome::Fails { findings } => findings.first().map(|f| f.failure.site),
            _ => None,
        };
        let real = if e.status == "ttgir" {
            "ok".to_string()
        } else {
            e.status.clone()
        };
        self.confirmations.push(Confirmation {
            release: r,
            config: c,
            predicted,
            confirmed: confirms(predicted, site, &real, &e.message),
            real,
            message: e.message.clone(),
        });
        self.confirmations.sort_by_key(|x| (x.release, x.config));
    }

    /// Whether a compiler failure (or an internal front-end failure) was
    /// found: the exit status's question.
    pub fn found_failure(&self) -> bool {
        self.groups.iter().any(|g| g.site.kind == SiteKind::Bug)
            || self.front_end.iter().any(|g| {
                g.site.is_some_and(|s| s.kind == SiteKind::Bug)
                    || (g.site.is_none() && g.status != "error")
            })
    }

    /// Writes, per site group, the reproducer and the minimal module (and
    /// confirms the module with its release; with `--confirm`, runs the
    /// reproducer too).
    #[allow(clippy::too_many_arguments)]
    pub fn write_artifacts(
        &mut self,
        req: &ScanRequest,
        cache: &Cache,
        script: &std::path::Path,
        interps: &[Interpreter],
        inspections: &BTreeMap<linear_layout_triton::finder::Arch, Inspection>,
        entries: &BTreeMap<(usize, usize), Entry>,
        say: super::Progress,
    ) -> Result<(), String> {
        if self.groups.is_empty() {
            return Ok(());
        }
        std::fs::create_dir_all(&req.out_dir)
            .map_err(|e| format!("cannot create {}: {e}", req.out_dir.display()))?;
        for g in &mut self.groups {
            let c = g.configs[0];
            let cfg = &self.configs[c];
            let r = &self.releases[g.release];
            let Some(entry) = entries.get(&(g.release, c)) else {
                continue;
            };
            let insp = &inspections[&cfg.arch];
            let stem = format!("{}-{}-{}", self.name, r.wheel, g.site.id);
            // the reproducer
            let args = super::args::to_worker(&req.args, cfg.dtype.as_deref());
            let mut kwargs = cfg.kwargs_json();
            kwargs.extend(entry.heuristics.clone());
            let expect = format!(
                "{} at {}: {}",
                g.verdict, g.site.id, g.finding.failure.triton_message
            );
            let text = reproducer::script(&reproducer::Reproducer {
                kernel: &req.kernel,
                name: &insp.name,
                source: &insp.source,
                args: &args,
                kwargs: &kwargs,
                options: &cfg.options(),
                capability: cfg.arch.capability(),
                wheel: &r.wheel,
                config: &cfg.to_string(),
                expect: &expect,
            });
            let path = req.out_dir.join(format!("repro-{stem}.py"));
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            if req.confirm {
                say(&format!("running {}", path.display()));
                let out = std::process::Command::new(&r.python)
                    .arg(&path)
                    .env("PYTHONDONTWRITEBYTECODE", "1")
                    .output();
                g.reproduced = out.ok().map(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_string()
                });
            }
            g.reproducer = Some(path);
            // the minimal module
            if !req.reduce {
                continue;
            }
            let Some(ttgir) = &entry.ttgir else { continue };
            let red_key = super::hash::hex(
                json!({"reduce": reduce::VERSION, "text": ttgir, "release": r.release.to_string(), "site": g.site.id,
                       "line": g.finding.line})
                .to_string()
                .as_bytes(),
            );
            let red = match cache.get_json("reduce", &red_key) {
                Some(v) => v
                    .get("text")
                    .and_then(Value::as_str)
                    .map(|t| reduce::Reduced {
                        text: t.to_string(),
                        ops_before: v["ops_before"].as_u64().unwrap_or(0) as usize,
                        ops_after: v["ops_after"].as_u64().unwrap_or(0) as usize,
                        line: v["line"].as_u64().unwrap_or(0) as usize,
                    }),
                None => {
                    say(&format!("reducing the {} module of {}", r.wheel, g.site.id));
                    let red = reduce::reduce(ttgir, r.release, g.site, g.finding.line);
                    if let Some(red) = &red {
                        let _ = cache.put_json(
                            "reduce",
                            &red_key,
                            &json!({"text": red.text, "ops_before": red.ops_before,
                                    "ops_after": red.ops_after, "line": red.line}),
                        );
                    }
                    red
                }
            };
            let Some(red) = red else {
                continue;
            };
            let expected = linear_layout_triton::finder::check_ttgir::check(&red.text, r.release)
                .ok()
                .and_then(|fs| fs.into_iter().find(|f| f.failure.site.id == g.site.id))
                .map_or(g.verdict, |f| f.failure.verdict(From::IrFile));
            let path = req.out_dir.join(format!("min-{stem}.ttgir"));
            std::fs::write(&path, &red.text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let compiled = interps.get(g.release).and_then(|interp| {
                say(&format!(
                    "compiling {} with Triton {}",
                    path.display(),
                    r.wheel
                ));
                super::compile_module(
                    cache,
                    script,
                    interp,
                    cfg.arch.capability(),
                    &red.text,
                    req.timeout,
                )
                .ok()
                .map(|e| (e.status.clone(), e.message.clone()))
            });
            let confirmed = compiled
                .as_ref()
                .map(|(status, message)| confirms(expected, Some(g.site), status, message));
            g.minimal = Some(MinimalModule {
                path,
                ops_before: red.ops_before,
                ops_after: red.ops_after,
                expected,
                compiled,
                confirmed,
            });
        }
        Ok(())
    }
}
