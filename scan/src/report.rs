//! What a scan found, in the report `search` gives too
//! ([`linear_layout_triton::report`]): each configuration's outcome per
//! release, the model's failures grouped by release and site (the smallest
//! configuration in the user's space first, with each one's fix read from
//! the later releases scanned), the front end's own failures by message,
//! the regressions, and the confirmations by real compiles.

use super::ScanReport;
use super::cache::JobResult;
use super::python::{Interpreter, Interpreters};
use super::space::{Inspection, ScanConfig};
use super::{ScanRequest, check_module};
use linear_layout_triton::Entry as From;
use linear_layout_triton::Site;
use linear_layout_triton::finder::check_ttgir;
use linear_layout_triton::finder::search::{Attempt, Fix, Scope};
use linear_layout_triton::report::{
    Build, Cause, ConfigOutcome, Confirmation, FrontEndFailure, FrontEndGroup, Kernel, Regression,
    Report, RiskGroup, RunStatus, SiteGroup, Subject, Timing, TtgirOp, confirms,
};
use std::collections::BTreeMap;

/// The outcome of every (release, configuration) entry, checked by the
/// model (identical modules are checked once per release).
pub(crate) fn outcomes(
    interps: &[Interpreter],
    configs: &[ScanConfig],
    entries: &BTreeMap<(usize, usize), JobResult>,
) -> Vec<Vec<ConfigOutcome>> {
    use super::cache::JobStatus;
    use rayon::prelude::*;
    interps
        .iter()
        .enumerate()
        .map(|(r, interp)| {
            (0..configs.len())
                .into_par_iter()
                .map(|c| match entries.get(&(r, c)) {
                    None => ConfigOutcome::FrontEnd(FrontEndFailure {
                        status: RunStatus::Error,
                        message: "no result".into(),
                        exception: None,
                        stage: None,
                        site: None,
                    }),
                    Some(e) => match (&e.ttgir, e.status) {
                        (Some(text), JobStatus::Ttgir | JobStatus::Ok) => {
                            let findings = check_module(text, interp.release);
                            if findings.is_empty() {
                                ConfigOutcome::Passes
                            } else {
                                ConfigOutcome::Fails { findings }
                            }
                        }
                        _ => front_end_outcome(e),
                    },
                })
                .collect()
        })
        .collect()
}

/// The assembler's risks in every module the front ends gave, by release
/// and site, the smallest configuration first (beside the verdicts, which
/// they never change).
pub(crate) fn risk_groups(
    interps: &[Interpreter],
    configs: &[ScanConfig],
    entries: &BTreeMap<(usize, usize), JobResult>,
) -> Vec<RiskGroup> {
    use rayon::prelude::*;
    let found: Vec<(
        (usize, usize),
        Vec<linear_layout_triton::finder::check_ttgir::Finding>,
    )> = entries
        .par_iter()
        .filter_map(|(&(r, c), e)| {
            let text = e.ttgir.as_deref()?;
            let risks = check_ttgir::risks(text, interps.get(r)?.release).ok()?;
            (!risks.is_empty()).then_some(((r, c), risks))
        })
        .collect();
    // per (release, site): the site, and each configuration's op and why
    type Hits = (&'static Site, Vec<(usize, String, String)>);
    let mut by_site: BTreeMap<(usize, &'static str), Hits> = BTreeMap::new();
    for ((r, c), risks) in found {
        let mut seen = Vec::new();
        for f in risks {
            let site = f.failure.site;
            if seen.contains(&site.id) {
                continue;
            }
            seen.push(site.id);
            by_site
                .entry((r, site.id))
                .or_insert_with(|| (site, Vec::new()))
                .1
                .push((c, f.op, f.failure.explanation));
        }
    }
    by_site
        .into_iter()
        .filter_map(|((build, _), (site, mut hits))| {
            hits.sort_by_key(|(c, _, _)| (configs.get(*c).map(ScanConfig::rank), *c));
            let (_, op, explanation) = hits.first()?.clone();
            Some(RiskGroup {
                build,
                site,
                op,
                explanation,
                configs: hits.into_iter().map(|h| h.0).collect(),
            })
        })
        .collect()
}

/// A front end that gave no module: its own failure, with the site whose
/// message it printed where `explain` knows it (its last lines of stderr
/// too: a pass that fails without a diagnostic of its own is named only
/// by the pass manager's note after the key line).
fn front_end_outcome(e: &JobResult) -> ConfigOutcome {
    let site = linear_layout_triton::explain::explain(&format!(
        "{}\n{}\n{}",
        e.message,
        e.exception.clone().unwrap_or_default(),
        e.stderr_tail.join("\n")
    ))
    .site
    .map(|m| m.site);
    ConfigOutcome::FrontEnd(FrontEndFailure {
        // a front end that finished without writing its module failed
        status: match e.status.ended() {
            RunStatus::Ok => RunStatus::Error,
            other => other,
        },
        message: e.message.clone(),
        exception: e.exception.clone(),
        stage: e.stage.clone(),
        site,
    })
}

/// The configurations `idx`, smallest first.
fn smallest(configs: &[ScanConfig], mut idx: Vec<usize>) -> Vec<usize> {
    idx.sort_by_key(|&c| (configs[c].rank(), c));
    idx
}

/// The report of the outcomes, before confirmations and artefacts.
pub(crate) fn build(
    req: &ScanRequest,
    interps: &Interpreters,
    insp: &Inspection,
    configs: &[ScanConfig],
    outcomes: Vec<Vec<ConfigOutcome>>,
    timing: Timing,
) -> ScanReport {
    let builds: Vec<Build> = interps
        .found
        .iter()
        .map(|i| Build {
            name: i.wheel.clone(),
            release: i.release,
            variant: None,
            python: Some(i.python.clone()),
        })
        .collect();
    let groups = site_groups(&builds, configs, &outcomes);
    let front_end = front_end_groups(configs, &outcomes);
    let regressions = regressions(&builds, configs, &outcomes);
    let failing = outcomes.iter().flatten().filter(|o| o.fails()).count();
    Report {
        subject: Subject::Kernel(Kernel {
            kernel: req.kernel.clone(),
            name: insp.name.clone(),
            import: insp.import.clone(),
            torch: insp.torch.clone(),
            not_scanned: interps.missing.clone(),
            timing,
        }),
        total: (builds.len() * configs.len()) as u64,
        failing: failing as u64,
        builds,
        configs: configs.to_vec(),
        outcomes,
        groups,
        front_end,
        regressions,
        confirmations: Vec::new(),
        risks: Vec::new(),
        seconds: 0.0,
    }
}

/// The model's failures by release and site: compiler bugs first.
fn site_groups(
    builds: &[Build],
    configs: &[ScanConfig],
    outcomes: &[Vec<ConfigOutcome>],
) -> Vec<SiteGroup> {
    let mut by_site: BTreeMap<(usize, &'static str), Vec<usize>> = BTreeMap::new();
    for (r, row) in outcomes.iter().enumerate() {
        for (c, o) in row.iter().enumerate() {
            if let ConfigOutcome::Fails { findings } = o {
                if let Some(f) = findings.first() {
                    by_site.entry((r, f.failure.site.id)).or_default().push(c);
                }
            }
        }
    }
    let mut groups: Vec<SiteGroup> = by_site
        .into_iter()
        .filter_map(|((r, _), cs)| {
            let cs = smallest(configs, cs);
            let ConfigOutcome::Fails { findings } = &outcomes[r][cs[0]] else {
                return None;
            };
            let finding = findings.first()?;
            let mut fixes: BTreeMap<Fix, u64> = BTreeMap::new();
            for &c in &cs {
                let later: Vec<Attempt> = (r..builds.len())
                    .map(|l| Attempt {
                        release: builds[l].release,
                        development: false,
                        compiles: !outcomes[l][c].fails(),
                        site: outcomes[l][c].site(),
                    })
                    .collect();
                *fixes.entry(Fix::find(&later, Scope::Scanned)).or_default() += 1;
            }
            let mut fixes: Vec<(Fix, u64)> = fixes.into_iter().collect();
            fixes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            Some(SiteGroup {
                build: r,
                site: finding.failure.site,
                verdict: finding.failure.verdict(From::Source),
                count: cs.len() as u64,
                configs: cs,
                failure: finding.failure.clone(),
                op: Some(TtgirOp {
                    line: finding.line,
                    op: finding.op.clone(),
                }),
                places: Vec::new(),
                fixes,
                reproducer: None,
                minimal_module: None,
            })
        })
        .collect();
    groups.sort_by_key(|g| (g.site.kind, g.build, g.site.id));
    groups
}

/// The front end's own failures by release and message.
fn front_end_groups(configs: &[ScanConfig], outcomes: &[Vec<ConfigOutcome>]) -> Vec<FrontEndGroup> {
    // keyed by the status's name: groups of one release in that order
    let mut by_msg: BTreeMap<(usize, String, &str), (RunStatus, Vec<usize>)> = BTreeMap::new();
    for (r, row) in outcomes.iter().enumerate() {
        for (c, o) in row.iter().enumerate() {
            if let ConfigOutcome::FrontEnd(f) = o {
                by_msg
                    .entry((r, f.status.to_string(), f.message.as_str()))
                    .or_insert((f.status, Vec::new()))
                    .1
                    .push(c);
            }
        }
    }
    by_msg
        .into_iter()
        .map(|((r, _, message), (status, cs))| {
            let cs = smallest(configs, cs);
            FrontEndGroup {
                build: r,
                status,
                message: message.to_string(),
                // the smallest configuration's, as `explain` read its message
                site: outcomes[r][cs[0]].site(),
                configs: cs,
            }
        })
        .collect()
}

/// Configurations that one release compiles and the next scanned one
/// fails, by what fails there.
fn regressions(
    builds: &[Build],
    configs: &[ScanConfig],
    outcomes: &[Vec<ConfigOutcome>],
) -> Vec<Regression> {
    let mut reg: BTreeMap<(usize, usize, String), (Cause, Vec<usize>)> = BTreeMap::new();
    for r in 0..builds.len().saturating_sub(1) {
        for (c, (a, b)) in outcomes[r].iter().zip(&outcomes[r + 1]).enumerate() {
            if a.fails() {
                continue;
            }
            let cause = match b {
                ConfigOutcome::Passes => continue,
                ConfigOutcome::Fails { findings } => match findings.first() {
                    Some(f) => Cause::Site(f.failure.site),
                    None => continue,
                },
                ConfigOutcome::FrontEnd(f) => Cause::FrontEnd {
                    site: f.site,
                    message: f.message.clone(),
                },
            };
            // front-end failures at one site are one regression, whatever
            // their messages
            reg.entry((r, r + 1, cause.to_string()))
                .or_insert((cause, Vec::new()))
                .1
                .push(c);
        }
    }
    reg.into_iter()
        .map(|((p, f, _), (cause, cs))| Regression {
            passes_in: builds[p].release,
            fails_in: builds[f].release,
            cause,
            count: cs.len() as u64,
            configs: smallest(configs, cs),
        })
        .collect()
}

/// Records a full compile of (release `r`, configuration `c`) against the
/// scan's verdict.
pub(crate) fn confirm(rep: &mut ScanReport, r: usize, c: usize, e: &JobResult) {
    let outcome = &rep.outcomes[r][c];
    let predicted = outcome.verdict();
    let site = match outcome {
        ConfigOutcome::Fails { .. } => outcome.site(),
        _ => None,
    };
    let real = e.status.ended();
    rep.confirmations.push(Confirmation {
        build: r,
        config: c,
        predicted,
        real,
        message: e.message.clone(),
        confirmed: confirms(predicted, site, real, &e.message),
    });
    rep.confirmations.sort_by_key(|x| (x.build, x.config));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::JobStatus;
    use linear_layout_triton::Release;

    /// Triton 3.6.0's module of `tl.dot(tl.trans(tl.dot(a, b).to(bf16)),
    /// c)` on sm90 (`tests/oracle/scan_launch/kernels.py::chained_dots`,
    /// BLOCK = 64, 4 warps): its two wgmma dots are a risk where the
    /// release assembles with ptxas 12.8 (3.6), not with 12.9 (3.8).
    #[test]
    fn risks_are_grouped_by_release_and_site_and_leave_the_verdicts() {
        let text = include_str!("../../tests/data/compile/chained-dots-3.6.0-sm90.ttgir");
        let interp = |wheel: &str, release| Interpreter {
            wheel: wheel.into(),
            release,
            python: "python3".into(),
            id: wheel.into(),
        };
        let interps = [
            interp("3.6.0", Release::V3_6),
            interp("3.8.0", Release::V3_8),
        ];
        let cfg = |n: i64| ScanConfig {
            arch: "sm90".parse().unwrap(),
            dtype: None,
            kwargs: vec![(
                "BLOCK".into(),
                crate::ArgValue::parse(&n.to_string()).unwrap(),
            )],
            num_warps: 4,
            num_stages: 3,
            num_ctas: 1,
            maxnreg: None,
            options: Vec::new(),
            autotune: None,
        };
        let configs = [cfg(128), cfg(64)];
        let entry = JobResult {
            ttgir: Some(text.to_string()),
            ..JobResult::ended(JobStatus::Ttgir, String::new())
        };
        let mut entries = BTreeMap::new();
        for r in 0..2 {
            for c in 0..2 {
                entries.insert((r, c), entry.clone());
            }
        }
        let risks = risk_groups(&interps, &configs, &entries);
        assert_eq!(risks.len(), 1);
        let g = &risks[0];
        assert_eq!(
            (g.build, g.site.id, g.op.as_str()),
            (0, "ptxas_wgmma_reuse", "warp_group_dot")
        );
        // the smallest configuration first
        assert_eq!(g.configs, vec![1, 0]);
        assert!(g.explanation.contains("ptxas 12.8"), "{}", g.explanation);
        let outcomes = outcomes(&interps, &configs, &entries);
        assert!(
            outcomes
                .iter()
                .flatten()
                .all(|o| matches!(o, ConfigOutcome::Passes))
        );
    }
}
