//! Kernels through `scan`'s checks: every grid configuration recorded by
//! `tests/oracle/compile/grid_ttgir.py` (kind `grid-ttgir-compiles`: the
//! real compile's outcome and the TTGIR its front end handed to the
//! lowering) must get its recorded outcome, at the recorded site, from the
//! checks `scan` runs on that module. A compile that ended before the
//! lowering (CTA planning, the front end) left no module: it is Triton's
//! own failure to `scan`, and agrees by construction.

use crate::recorded::{self, Kind};
use linear_layout_scan::check_module;
use linear_layout_triton::{Entry, Release, Verdict};
use std::collections::BTreeMap;

#[test]
fn scan_gives_every_recorded_grid_kernel_its_outcome() {
    let files = recorded::of_kind(Kind::GridTtgirCompiles);
    let releases: Vec<&str> = files.iter().map(|f| f.release()).collect();
    for wheel in ["3.7.1", "3.8.0", "3.9.0"] {
        assert!(
            releases.contains(&wheel),
            "no grid TTGIR for {wheel}: {releases:?}"
        );
    }
    let mut failures = Vec::new();
    // (release, arch, num_ctas) → [modules, failing in the lowering, agreeing]
    let mut table: BTreeMap<(String, String, u64), [usize; 3]> = BTreeMap::new();
    let mut failing_checked = 0;
    for file in &files {
        let release: Release = file.release().parse().expect("a modelled release");
        for (name, rec) in file.records() {
            let Some(ttgir) = rec["ttgir"].as_str() else {
                continue;
            };
            let config = &rec["config"];
            let key = (
                file.release().to_string(),
                config["arch"].as_str().unwrap_or("").to_string(),
                config["num_ctas"].as_u64().unwrap_or(1),
            );
            let row = table.entry(key).or_default();
            row[0] += 1;
            let outcome = rec["outcome"].as_str().unwrap();
            let message = rec["message"].as_str().unwrap_or("");
            let findings = check_module(ttgir, release);
            let first = findings.first();
            let predicted = first.map_or(Verdict::Ok, |f| f.failure.verdict(Entry::Source));
            let same_site = first.is_none_or(|f| message.contains(&f.failure.triton_message));
            if outcome != "ok" {
                row[1] += 1;
                failing_checked += 1;
            }
            if predicted.to_string() == outcome && same_site {
                row[2] += 1;
            } else {
                failures.push(format!(
                    "{name}@{}: recorded {outcome} ({}), scan's checks {predicted} {:?}",
                    file.release(),
                    message.chars().take(160).collect::<String>(),
                    first.map(|f| f.failure.to_string())
                ));
            }
        }
    }
    eprintln!("| release | arch | CTAs | modules | fail in the lowering | agree |");
    eprintln!("|---|---|---|---|---|---|");
    for ((wheel, arch, ctas), [n, fail, agree]) in &table {
        eprintln!("| {wheel} | {arch} | {ctas} | {n} | {fail} | {agree} |");
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        failing_checked > 0,
        "no recorded module fails in the lowering"
    );
}
