//! The assembler's risks ([`RiskGroup`]s), as text and JSON: after the
//! front end's failures, before the confirmations. A risk never changes a
//! verdict, so the section says so.

use super::configurations;
use crate::report::{Configuration, Report, RiskGroup};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The text section (nothing when no module meets a risk).
pub(super) fn text<C: Configuration>(out: &mut String, report: &Report<C>) {
    if report.risks.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "== Risks (the bundled assembler may miscompile these modules; not failures, \
         the verdicts and exit status stand)\n"
    );
    for g in &report.risks {
        let example = report
            .first(&g.configs)
            .map(C::to_string)
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "Triton {} — risk {} at {} in {}, e.g. {}:\n    {}\n    why: {}\n    workaround: {}",
            report.builds[g.build],
            g.site.id,
            g.op,
            configurations(g.configs.len() as u64),
            example,
            g.site.title,
            g.explanation,
            g.site.workaround,
        );
    }
    let _ = writeln!(out);
}

/// The JSON list (empty when no module meets a risk).
pub(super) fn json<C: Configuration>(report: &Report<C>) -> Value {
    report.risks.iter().map(|g| group(report, g)).collect()
}

fn group<C: Configuration>(report: &Report<C>, g: &RiskGroup) -> Value {
    json!({
        "release": report.builds[g.build].name,
        "site": g.site.id,
        "title": g.site.title,
        "op": g.op,
        "explanation": g.explanation,
        "workaround": g.site.workaround,
        "count": g.configs.len(),
        "configs": g.configs,
        "minimal": report.first(&g.configs).map(C::to_json),
    })
}
