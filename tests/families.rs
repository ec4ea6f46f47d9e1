//! The 3.7-3.9 families (and the stmatrix scratch store of 3.2 – 3.4)
//! against the wheels (`tests/data/compile/famil*`,
//! written by `tests/oracle/compile/families.py record`):
//!
//! - every kernel compile (`family-compiles`): where the compile reached
//!   the LLVM lowering (a TTGIR was handed to it), `scan`'s check of that
//!   TTGIR gives the recorded outcome, at a site whose message is the one
//!   printed; where it stopped in the TTGIR passes, `explain` names a site
//!   that prints the message in that release (a Python error of the
//!   kernel's own code, raised while building the TTIR, is the front end's
//!   and needs no site);
//! - every one-op module (`family-modules`): `check-ttgir` gives the
//!   outcome compiling the file gave, at the same site;
//! - each new site fails somewhere and its ops compile somewhere else.

use crate::op_level::{same_site, verdict};
use crate::recorded::{self, Kind};
use linear_layout_scan::check_module;
use linear_layout_triton::explain::explain;
use linear_layout_triton::finder::check_ttgir::check;
use linear_layout_triton::finder::{self, Stage};
use linear_layout_triton::{Entry, Release, Verdict};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The sites these records exist for.
const SITES: [&str; 13] = [
    "descriptor_rank_reduce_cta",
    "dsmem_mapa",
    "dsmem_no_scratch",
    "join_split_cga",
    "plan_cta_descriptor_gather",
    "plan_cta_rank3_dot",
    "plan_cta_reduce",
    "scaled_dot_batched_scale",
    "scaled_dot_mn_packed",
    "wgmma_operand_major",
    "ws_partition_attr",
    "ws_producer_commit",
    "ws_tma_block",
];

/// The site `explain` gives a failure printed by `release`, among its
/// candidates: the first that lists the release, from the key line alone,
/// or else with the last lines of stderr (where the pass manager's note
/// names the passes that ran).
fn explained(message: &str, tail: &str, release: Release) -> Option<&'static str> {
    [message.to_string(), format!("{message}\n{tail}")]
        .iter()
        .find_map(|log| {
            let e = explain(log);
            e.site
                .iter()
                .chain(&e.others)
                .find(|m| m.all_releases.contains(&release))
                .map(|m| m.site.id)
        })
}

#[test]
fn every_recorded_family_compile_agrees_with_its_site() {
    let files = recorded::of_kind(Kind::FamilyCompiles);
    let wheels: BTreeSet<&str> = files.iter().map(|f| f.release()).collect();
    for wheel in ["3.7.1", "3.8.0", "3.9.0"] {
        assert!(
            wheels.contains(wheel),
            "no family compiles of {wheel}: {wheels:?}"
        );
    }
    let mut failures = Vec::new();
    // (release, arch, family) → [records, failures, agreeing]
    let mut table: BTreeMap<(String, String, String), [usize; 3]> = BTreeMap::new();
    let mut failing_sites: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
    for file in &files {
        let wheel = file.release().to_string();
        let release: Release = wheel.parse().expect("a modelled release");
        for (name, rec) in file.records() {
            let cfg = &rec["config"];
            let outcome = rec["outcome"].as_str().unwrap();
            let message = rec["message"].as_str().unwrap_or_default();
            let key = (
                wheel.clone(),
                cfg["arch"].as_str().unwrap_or_default().to_string(),
                cfg["family"].as_str().unwrap_or_default().to_string(),
            );
            let row = table.entry(key).or_default();
            row[0] += 1;
            let real = verdict(outcome)
                .unwrap_or_else(|| panic!("{}: {name}: no answer ({outcome})", file.file()));
            if real != Verdict::Ok {
                row[1] += 1;
            }
            let agrees = match rec["ttgir"].as_str() {
                Some(ttgir) => {
                    let findings = check_module(ttgir, release);
                    match findings.first() {
                        None => real == Verdict::Ok,
                        Some(f) => {
                            *failing_sites
                                .entry(f.failure.site.id)
                                .or_default()
                                .entry(wheel.clone())
                                .or_default() += 1;
                            f.failure.verdict(Entry::Source) == real
                                && same_site(message, &f.failure)
                        }
                    }
                }
                // the Python front end refusing the kernel's own code
                None if rec["stage"] == "ast" => real != Verdict::Ok,
                None => {
                    let tail = rec["stderr_tail"]
                        .as_array()
                        .map(|l| {
                            l.iter()
                                .filter_map(Value::as_str)
                                .collect::<Vec<_>>()
                                .join("\n")
                        })
                        .unwrap_or_default();
                    match explained(message, &tail, release) {
                        Some(site) => {
                            *failing_sites
                                .entry(site)
                                .or_default()
                                .entry(wheel.clone())
                                .or_default() += 1;
                            true
                        }
                        None => false,
                    }
                }
            };
            if agrees {
                row[2] += 1;
            } else {
                failures.push(format!(
                    "{wheel} {name} {cfg}: recorded {outcome} ({})",
                    message.chars().take(200).collect::<String>()
                ));
            }
        }
    }
    eprintln!("| release | arch | family | compiles | fail | agree |\n|---|---|---|---|---|---|");
    for ((wheel, arch, family), [n, fail, agree]) in &table {
        eprintln!("| {wheel} | {arch} | {family} | {n} | {fail} | {agree} |");
    }
    for (site, per_release) in &failing_sites {
        eprintln!("{site}: {per_release:?}");
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    for site in SITES {
        assert!(
            failing_sites.contains_key(site),
            "no recorded kernel fails at {site}: {failing_sites:?}"
        );
    }
    // 3.7's verifier already refuses an operand split along K (the mxfp4
    // dot_scaled with 2 CTAs on sm100)
    assert!(
        failing_sites
            .get("tcgen05_cga")
            .is_some_and(|r| r.contains_key("3.7.1")),
        "no 3.7.1 kernel fails at tcgen05_cga: {failing_sites:?}"
    );
}

#[test]
fn every_recorded_family_module_agrees_with_its_site() {
    let files = recorded::of_kind(Kind::FamilyModules);
    assert!(!files.is_empty(), "no family modules");
    let mut failures = Vec::new();
    // site → outcomes seen
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // release → outcomes of the stmatrix scratch modules
    let mut stmatrix: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        for (name, row) in file.records() {
            let site = row["site"].as_str().unwrap();
            let release = row["triton"].as_str().unwrap();
            assert_eq!(release, file.short_release(), "{}: {name}", file.file());
            let outcome = row["outcome"].as_str().unwrap();
            let message = row["message"].as_str().unwrap_or_default();
            let real = verdict(outcome)
                .unwrap_or_else(|| panic!("{}: {name}: no answer ({outcome})", file.file()));
            let findings = check(row["module"].as_str().unwrap(), release.parse().unwrap())
                .unwrap_or_else(|e| panic!("{release} {name}: {e}"));
            seen.entry(site.into()).or_default().insert(outcome.into());
            if site == "stmatrix_scratch" {
                stmatrix
                    .entry(release.into())
                    .or_default()
                    .insert(outcome.into());
            }
            let agrees = match findings.first() {
                None => real == Verdict::Ok,
                Some(f) => f.verdict == real && same_site(message, &f.failure),
            };
            if !agrees {
                failures.push(format!(
                    "{release} {name} {}: real {outcome} ({}), model {:?}",
                    row["params"],
                    message.chars().take(160).collect::<String>(),
                    findings
                        .first()
                        .map(|f| (&f.verdict, f.failure.to_string())),
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    for site in [
        "wgmma_operand_major",
        "dsmem_mapa",
        "dsmem_no_scratch",
        "stmatrix_scratch",
    ] {
        let outcomes = &seen[site];
        assert!(
            outcomes.contains("ok") && outcomes.iter().any(|o| o != "ok"),
            "{site}: {outcomes:?}"
        );
    }
    // The stmatrix scratch store fails 3.2 – 3.4 on some modules and
    // compiles others; 3.5 on compile every one.
    for release in ["3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9"] {
        let outcomes = stmatrix
            .get(release)
            .unwrap_or_else(|| panic!("no stmatrix_scratch modules of {release}"));
        let fails = outcomes.iter().any(|o| o != "ok");
        let fixed = release.parse::<Release>().unwrap() >= Release::V3_5;
        assert!(
            outcomes.contains("ok") && fails != fixed,
            "{release}: {outcomes:?}"
        );
    }
}

/// Whether the `tma_rank` kernel of `cfg` loads its tile at a lower rank
/// than its descriptor's: leading unit dims reshaped away (`flat`, the
/// default) of a block whose leading dim is 1 (`lead`, 1 by default; the
/// dot's operand and the in-kernel descriptor are always reshaped).
fn rank_reducing(cfg: &Value) -> bool {
    let flag = |key: &str| cfg[key].as_u64().unwrap_or(1);
    flag("flat") == 1 && flag("lead") == 1
}

#[test]
fn rank_reducing_descriptor_loads_fail_with_ctas_where_the_site_says() {
    let site = finder::site("descriptor_rank_reduce_cta").expect("the site");
    // release → [records, failing, failing as expected, named by explain]
    let mut table: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut wrong = Vec::new();
    for file in recorded::of_kind(Kind::FamilyCompiles) {
        let wheel = file.release().to_string();
        let release: Release = wheel.parse().expect("a modelled release");
        for (name, rec) in file.records() {
            let cfg = &rec["config"];
            if cfg["family"] != "tma_rank" {
                continue;
            }
            let row = table.entry(wheel.clone()).or_default();
            row[0] += 1;
            let fails = rec["outcome"] != "ok";
            let ctas = cfg["num_ctas"].as_u64().unwrap_or(1);
            let expected = rank_reducing(cfg) && ctas > 1 && site.fails_in(release);
            row[1] += usize::from(fails);
            if fails != expected {
                wrong.push(format!("{wheel} {name} {cfg}: {}", rec["outcome"]));
                continue;
            }
            if !fails {
                continue;
            }
            row[2] += 1;
            let message = rec["message"].as_str().unwrap_or_default();
            // the key line alone (the uniquer's assertion) names the site
            match explain(message).site {
                Some(m) if m.site.id == site.id && m.releases == [release] => row[3] += 1,
                other => wrong.push(format!(
                    "{wheel} {name}: explain gives {:?}",
                    other.map(|m| (m.site.id, m.releases))
                )),
            }
        }
    }
    eprintln!("{table:?}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for wheel in ["3.4.0", "3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0"] {
        let row = table.get(wheel).copied().unwrap_or_default();
        assert!(
            row[0] > row[1],
            "{wheel}: no tma_rank kernel compiles: {row:?}"
        );
        let fixed = !site.fails_in(wheel.parse().unwrap());
        assert_eq!(row[1] == 0, fixed, "{wheel}: {row:?}");
    }
}

#[test]
fn the_new_sites_say_where_they_fail() {
    for site in SITES {
        let stage = finder::stage(site).unwrap_or_else(|| panic!("{site} declares no stage"));
        let lowering = [
            "dsmem_no_scratch",
            "scaled_dot_mn_packed",
            "wgmma_operand_major",
        ];
        // nvvm.mapa is refused by the verifier after the lowering pass
        let expected = if site == "dsmem_mapa" {
            Stage::LoweredModuleVerifier
        } else if lowering.contains(&site) {
            Stage::Lowering
        } else {
            Stage::TtgirPasses
        };
        assert_eq!(stage, expected, "{site}");
    }
}
