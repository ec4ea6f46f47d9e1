//! The report as JSON: everything the text shows. Builds are named as the
//! text names them (`3.2`, or a scan's wheel `3.2.0`); configurations are
//! listed once (`configs`) and referred to by index, each group also
//! giving its own in full (`minimal`, `examples`).

use crate::Entry;
use crate::finder::search::Fix;
use crate::report::{
    ConfigOutcome, Configuration, Confirmation, FrontEndGroup, Kernel, Regression, Report,
    Reproducer, SiteGroup, Subject,
};
use serde_json::{Map, Value, json};

/// The report as JSON.
pub fn json<C: Configuration>(report: &Report<C>) -> Value {
    let mut v = json!({
        "total": report.total,
        "failing": report.failing,
        "configs": report.configs.iter().map(C::to_json).collect::<Vec<_>>(),
        "groups": report.groups.iter().map(|g| group(report, g)).collect::<Vec<_>>(),
        "regressions": report.regressions.iter().map(|r| regression(report, r)).collect::<Vec<_>>(),
        "front_end": report.front_end.iter().map(|g| front_end(report, g)).collect::<Vec<_>>(),
        "confirmations": report.confirmations.iter().map(|x| confirmation(report, x)).collect::<Vec<_>>(),
        "risks": super::risks::json(report),
        "found_failure": report.found_failure(),
    });
    let subject = match &report.subject {
        Subject::Space { skipped } => json!({ "skipped": skipped }),
        Subject::Kernel(k) => kernel(report, k),
    };
    if let (Some(all), Value::Object(more)) = (v.as_object_mut(), subject) {
        all.extend(more);
    }
    v
}

/// A fix as `search --json` and `fix_for` give it (without its count),
/// each release by its name.
pub fn fix_json(fix: &Fix) -> Value {
    fix_named(fix, &|r| r.to_string())
}

fn fix_named(fix: &Fix, name: &dyn Fn(crate::Release) -> String) -> Value {
    json!({
        "fixed_in": fix.fixed_in.map(name),
        "change": fix.describe(),
        "pr": fix.change.and_then(|c| c.0.pr),
        "blocker": fix.blocker.map(|s| s.id),
        "broken_again": fix.broken_again.map(|(r, s)| json!({"release": name(r), "site": s.id})),
    })
}

fn configs<C: Configuration>(report: &Report<C>, configs: &[usize]) -> Vec<Value> {
    configs
        .iter()
        .filter_map(|&c| report.configs.get(c).map(C::to_json))
        .collect()
}

fn minimal<C: Configuration>(report: &Report<C>, configs: &[usize]) -> Value {
    report.first(configs).map_or(Value::Null, C::to_json)
}

fn group<C: Configuration>(report: &Report<C>, g: &SiteGroup) -> Value {
    let f = &g.failure;
    let build = &report.builds[g.build];
    let name = |r| report.name_of(r);
    let places: Map<String, Value> = g
        .places
        .iter()
        .map(|(place, n)| (place.clone(), json!(n)))
        .collect();
    let fixes: Vec<Value> = g
        .fixes
        .iter()
        .map(|(fix, n)| {
            let mut v = fix_named(fix, &name);
            v["count"] = json!(n);
            v
        })
        .collect();
    let (reproducer, reproduced) = match &g.reproducer {
        Some(Reproducer::Command(command)) => (json!(command), Value::Null),
        Some(Reproducer::Script { path, ran }) => (json!(path), json!(ran)),
        None => (Value::Null, Value::Null),
    };
    json!({
        "release": build.name,
        "model": build.release.to_string(),
        "site": g.site.id,
        "kind": g.site.kind,
        "title": g.site.title,
        "verdict": g.verdict,
        "count": g.count,
        "configs": g.configs,
        "minimal": minimal(report, &g.configs),
        "examples": configs(report, &g.configs),
        "failure": f.to_json(Entry::Source),
        "function": f.location.function,
        "location": f.cite(),
        "ending": f.ending(),
        "verdict_from_file": f.verdict(Entry::IrFile),
        "triton_message": f.triton_message,
        "explanation": f.explanation,
        "line": g.op.as_ref().map(|op| op.line),
        "op": g.op.as_ref().map(|op| &op.op),
        "where": places,
        "fixes": fixes,
        "change": commonest_change(g),
        "workaround": g.site.workaround,
        "reproducer": reproducer,
        "reproduced": reproduced,
        "minimal_ttgir": g.minimal_module.as_ref().map(|m| json!({
            "path": m.path, "ops_before": m.ops_before, "ops_after": m.ops_after,
            "expected": m.expected,
            "compiled": m.compiled.as_ref().map(|c| json!({"outcome": c.status, "message": c.message})),
            "confirmed": m.confirmed,
        })),
    })
}

/// The change behind a group's commonest fix as the site's descriptor
/// records it (`PR #6609 (3.4): …`), when the commonest is a fix at all.
fn commonest_change(g: &SiteGroup) -> Option<String> {
    let (fix, _) = g.fixes.first()?;
    fix.fixed_in?;
    Some(
        fix.change
            .map_or_else(|| fix.describe(), |c| c.0.to_string()),
    )
}

fn regression<C: Configuration>(report: &Report<C>, r: &Regression) -> Value {
    let site = r.cause.site();
    json!({
        "passes_in": report.name_of(r.passes_in),
        "fails_in": report.name_of(r.fails_in),
        "site": site.map(|s| s.id),
        "kind": site.map(|s| s.kind),
        "what": r.cause.to_string(),
        "count": r.count,
        "configs": r.configs,
        "minimal": minimal(report, &r.configs),
    })
}

fn front_end<C: Configuration>(report: &Report<C>, g: &FrontEndGroup) -> Value {
    json!({
        "release": report.builds[g.build].name,
        "status": g.status,
        "message": g.message,
        "site": g.site.map(|s| s.id),
        "count": g.configs.len(),
        "configs": g.configs,
        "minimal": minimal(report, &g.configs),
    })
}

fn confirmation<C>(report: &Report<C>, x: &Confirmation) -> Value {
    json!({
        "release": report.builds[x.build].name,
        "config": x.config,
        "predicted": x.predicted,
        "real": x.real,
        "message": x.message,
        "confirmed": x.confirmed,
    })
}

fn outcome(o: &ConfigOutcome) -> Value {
    match o {
        ConfigOutcome::Passes => json!({"outcome": "ok"}),
        ConfigOutcome::Fails { findings } => json!({
            "outcome": "fails",
            "verdict": o.verdict(),
            "findings": findings.iter().map(|f| json!({"line": f.line, "op": f.op,
                "failure": f.failure.to_json(Entry::Source)})).collect::<Vec<_>>(),
        }),
        ConfigOutcome::FrontEnd(f) => json!({
            "outcome": "front_end",
            "status": f.status,
            "message": f.message,
            "exception": f.exception,
            "stage": f.stage,
            "site": f.site.map(|s| s.id),
        }),
    }
}

fn kernel<C>(report: &Report<C>, k: &Kernel) -> Value {
    json!({
        "kernel": k.kernel,
        "name": k.name,
        "import": k.import,
        "torch": k.torch,
        "releases": report.builds.iter().map(|b| json!({"wheel": b.name,
            "model": b.release.to_string(), "python": b.python})).collect::<Vec<_>>(),
        "not_scanned": k.not_scanned.iter().map(|(w, why)| json!({"wheel": w, "why": why})).collect::<Vec<_>>(),
        "outcomes": report.builds.iter().zip(&report.outcomes).map(|(b, row)| json!({
            "wheel": b.name,
            "configs": row.iter().map(outcome).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "timing": {"total_s": report.seconds, "inspect_s": k.timing.inspect_s,
                   "front_end_s": k.timing.front_end_s, "check_s": k.timing.check_s,
                   "cached": k.timing.cached, "ran": k.timing.ran},
    })
}
