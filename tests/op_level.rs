//! The site models against the real compiler at op level: every module
//! recorded by `tests/oracle/compile/op_level.py` (the `op-level-modules`
//! and `op-level-fuzz` files, read through `recorded`; one layout-sensitive op,
//! the layouts fixed by hand, compiled directly by a release) must get the
//! outcome the release gave from `check-ttgir`'s model, at the same site.

use crate::recorded::{self, Kind};
use linear_layout_triton::finder::Failure;
use linear_layout_triton::finder::Verdict;
use linear_layout_triton::finder::check_ttgir::check;
use std::collections::BTreeMap;

/// The `File.cpp:123` / `File.h:123` a recorded message starts with, or
/// that `llvm_unreachable` names ("… -- UNREACHABLE executed at
/// File.cpp:123!"), if any (assertions are recorded that way; diagnosed
/// errors are not).
fn source_line(message: &str) -> Option<&str> {
    let head = match message.split_once("UNREACHABLE executed at ") {
        Some((_, at)) => at.trim_end_matches('!'),
        None => message.split(": ").next()?,
    };
    let (file, line) = head.rsplit_once(':')?;
    let is_source = [".cpp", ".h"].iter().any(|ext| file.ends_with(ext));
    (is_source && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())).then_some(head)
}

/// Whether the model's failure is what the real compiler printed: the
/// recorded message holds Triton's text as the model gives it, and an
/// assertion recorded with its `File.cpp:123` is at the location's line.
pub(crate) fn same_site(recorded: &str, failure: &Failure) -> bool {
    let line_agrees = match (source_line(recorded), failure.location.file_and_line()) {
        (Some(at), Some(ours)) => at == ours,
        _ => true,
    };
    line_agrees && recorded.contains(&failure.triton_message)
}

pub(crate) fn verdict(outcome: &str) -> Option<Verdict> {
    match outcome {
        "ok" => Some(Verdict::Ok),
        "abort" => Some(Verdict::Abort),
        "error" => Some(Verdict::Error),
        _ => None,
    }
}

#[test]
fn site_models_agree_with_every_recorded_one_op_module() {
    let grids = recorded::of_kind(Kind::OpLevelModules);
    let releases: Vec<&str> = grids.iter().map(|f| f.release()).collect();
    assert_eq!(
        releases,
        ["3.1.0", "3.2.0", "3.3.1", "3.4.0", "3.9.0"],
        "one op-level grid per release 3.1–3.4 and 3.9: {grids:?}"
    );
    // Random conversions between two MMA accumulators (`op_level.py fuzz
    // --mma-pairs --out`), in the same form.
    let fuzz = recorded::of_kind(Kind::OpLevelFuzz);
    for release in ["3.1.0", "3.2.0"] {
        assert!(
            fuzz.iter()
                .any(|f| f.release() == release && f.values().all(|r| r["site"] == "mma_pair")),
            "no recorded MMA pairs for {release}: {fuzz:?}"
        );
    }
    // The later sites (the multi-CTA ones of 3.5 on, 3.1/3.2's Hopper
    // ones), one file per release.
    let later = recorded::of_kind(Kind::OpLevelSiteModules);
    let files: Vec<_> = grids.iter().chain(&fuzz).chain(&later).collect();
    let mut failures = Vec::new();
    // (release, site, outcome) → count, so that the grid is seen to exercise
    // both outcomes of every site somewhere.
    let mut seen: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for file in &files {
        for (name, row) in file.records() {
            let (site, release) = (
                row["site"].as_str().unwrap(),
                row["triton"].as_str().unwrap(),
            );
            assert_eq!(
                release,
                file.short_release(),
                "{}: {name} was not compiled by the header's release",
                file.file()
            );
            let outcome = row["outcome"].as_str().unwrap();
            let message = row["message"].as_str().unwrap_or_default();
            let real = verdict(outcome)
                .unwrap_or_else(|| panic!("{}: {name}: no answer ({outcome})", file.file()));
            let findings = check(row["module"].as_str().unwrap(), release.parse().unwrap())
                .unwrap_or_else(|e| panic!("{release} {name} {}: {e}", row["params"]));
            *seen
                .entry((release.into(), site.into(), outcome.into()))
                .or_default() += 1;
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
    // The ways a one-op module can fail, each seen at least once: a fatal
    // error that aborts 3.4 from a file but is caught by 3.9's crash
    // reproducer, and 3.9's type verifier refusing an NVMMA buffer.
    for (release, site, outcome) in [
        ("3.4", "shared_tile", "abort"),
        ("3.9", "shared_tile", "error"),
    ] {
        assert!(
            seen.contains_key(&(release.into(), site.into(), outcome.into())),
            "no recorded {release} {site} module with outcome {outcome}"
        );
    }
    let verifier_refusals = recorded::one(Kind::OpLevelModules, Some("3.9.0"))
        .values()
        .filter(|r| {
            r.to_string()
                .contains("is too small for the swizzle byte size")
        })
        .count();
    assert!(
        verifier_refusals > 0,
        "no 3.9 module refused by the verifier"
    );
    // Every site fails somewhere and passes somewhere, so no model is
    // vacuously right.
    for site in [
        "stmatrix",
        "cp_async",
        "local_load",
        "shared_tile",
        "pipelined_load",
        "mma_pair",
        "cta_convert",
        "cta_local",
        "wgmma_cga",
        "hopper_dot_operand",
        "mma_indices",
    ] {
        for pass in [true, false] {
            assert!(
                seen.iter()
                    .any(|((_, s, o), _)| s == site && (o == "ok") == pass),
                "{site}: no recorded module that {}",
                if pass { "compiles" } else { "fails" }
            );
        }
    }
}

/// The `pre-5905` development build cannot be installed, but its failure is
/// 3.3's own cp.async lowering of the buffers its pipeliner made. The
/// op-level `pipelined_load` modules are exactly those copies (coalesced
/// rank-3 loads into buffers with dim 0 moved last), compiled by 3.3.1; the
/// variant's kernel prediction must fail exactly when one of its two loads'
/// modules failed.
#[test]
fn the_pre_5905_variant_fails_where_3_3_rejects_its_copies() {
    use linear_layout_triton::Release;
    use linear_layout_triton::finder::{Arch, Config, Dtype, Pattern, Variant, predict};
    // (load, size, k, dtype) → failed, for the pre-5905 buffer order.
    let mut failed: BTreeMap<(String, u64, u64, String), bool> = BTreeMap::new();
    for row in recorded::one(Kind::OpLevelModules, Some("3.3.1")).values() {
        let p = &row["params"];
        if row["site"] != "pipelined_load" || p["shared_order"] != "pre-5905" {
            continue;
        }
        let key = (
            p["load"].as_str().unwrap().to_string(),
            p["size"].as_u64().unwrap(),
            p["k"].as_u64().unwrap(),
            p["dtype"].as_str().unwrap().to_string(),
        );
        failed.insert(key, row["outcome"] != "ok");
    }
    assert!(
        failed.values().any(|&f| f) && failed.values().any(|&f| !f),
        "{failed:?}"
    );
    let mut checked = 0;
    for ((load, m, k, dtype), &lhs_failed) in failed.iter().filter(|(key, _)| key.0 == "lhs") {
        for ((_, n, _, _), &rhs_failed) in failed
            .iter()
            .filter(|(key, _)| key.0 == "rhs" && key.2 == *k && key.3 == *dtype)
        {
            let cfg = Config {
                pattern: Pattern::Inductor3d,
                m: *m,
                n: *n,
                k: *k,
                x: None,
                dtype: dtype.parse::<Dtype>().unwrap(),
                num_warps: 4,
                num_stages: 2,
                arch: Arch::Sm80,
                triton: Release::V3_3,
                num_ctas: 1,
                variant: Some(Variant::Pre5905),
            };
            let p = predict(&cfg).unwrap();
            let expected = if lhs_failed || rhs_failed {
                Verdict::Error
            } else {
                Verdict::Ok
            };
            assert_eq!(
                p.verdict, expected,
                "{cfg} ({load} failed: {lhs_failed}, rhs: {rhs_failed})"
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} kernels checked");
}
