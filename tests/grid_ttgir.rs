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

/// flash-linear-attention's `chunk_fwd_kernel_o` (fla-core 0.6.0) as 3.9.0's
/// front end writes it for sm90 with 8 warps and 2 CTAs
/// (`tests/data/compile/fla060-chunk_o-3.9.0-w8-c2-sm90.ttgir`, locations
/// stripped): its first dot reads q from a buffer split along M while the
/// dot splits N. Compiled as a file (`dump_ttgir.py file … 90`), 3.9.0
/// stops at `MMAHelpers.h:280`, 3.8.0 at `:261` (both `getReps`), and 3.7.1
/// with the operand-A diagnostic on line 217, the first `warp_group_dot`;
/// `check-ttgir` must say the same, on the same line.
#[test]
fn check_ttgir_finds_the_wgmma_operand_split_of_a_public_kernel() {
    use linear_layout_triton::finder::check_ttgir::check;
    let path = recorded::data_dir()
        .join("compile")
        .join("fla060-chunk_o-3.9.0-w8-c2-sm90.ttgir");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for (release, at) in [
        (Release::V3_9, "MMAHelpers.h:280"),
        (Release::V3_8, "MMAHelpers.h:261"),
        (
            Release::V3_7,
            "failed to find valid wgmma layout for operand A",
        ),
    ] {
        let findings = check(&text, release).unwrap();
        let first = findings
            .first()
            .unwrap_or_else(|| panic!("{release}: nothing found"));
        assert_eq!(
            (first.line, first.op.as_str()),
            (217, "warp_group_dot"),
            "{release}"
        );
        assert_eq!(first.failure.site.id, "mma_operand_cga", "{release}");
        let said = format!(
            "{} {}",
            first.failure.location.file_and_line().unwrap_or_default(),
            first.failure.triton_message
        );
        assert!(said.contains(at), "{release}: {said}");
    }
}

/// sglang's fp8 MoE GEMM (`fused_moe_kernel`, sglang 0.5.23, TMA
/// descriptors, `swap_ab`) as 3.6.0's front end writes it for sm90 with 4
/// warps and 2 CTAs, reduced to its two conversions between CTAs
/// (`tests/data/compile/sglang-moe-swap-ab-3.6.0-w4-c2-sm90.ttgir`): line
/// 12 converts the token ids between blocked layouts of other CGAs (the
/// distributed-shared-memory path, whose `nvvm.mapa` the verifier refuses
/// after the pass), line 23 the transposed accumulator from `#linear` to
/// the store's `#blocked` (no pattern takes it). Compiled as a file
/// (`dump_ttgir.py file … 90`), 3.6.0 and 3.7.1 report "failed to legalize
/// operation 'ttg.convert_layout'" on line 23, each conversion alone fails
/// as its own site, and 3.8.0 and 3.9.0 compile it; 3.5.1 cannot read the
/// `CGALayout` spelling.
#[test]
fn check_ttgir_puts_the_moe_store_conversion_before_the_mapa_refusal() {
    use linear_layout_triton::finder::check_ttgir::check;
    let path = recorded::data_dir()
        .join("compile")
        .join("sglang-moe-swap-ab-3.6.0-w4-c2-sm90.ttgir");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for release in [Release::V3_6, Release::V3_7] {
        let findings = check(&text, release).unwrap();
        let seen: Vec<_> = findings
            .iter()
            .map(|f| (f.line, f.op.as_str(), f.failure.site.id))
            .collect();
        assert_eq!(
            seen,
            [
                (23, "convert_layout", "cross_cta"),
                (12, "convert_layout", "dsmem_mapa")
            ],
            "{release}"
        );
        assert!(
            findings[0]
                .failure
                .triton_message
                .contains("failed to legalize operation 'ttg."),
            "{release}: {}",
            findings[0].failure.triton_message
        );
    }
    for release in [Release::V3_8, Release::V3_9] {
        assert_eq!(check(&text, release).unwrap(), [], "{release}");
    }
    let refused = check(&text, Release::V3_5).unwrap();
    assert_eq!(
        refused
            .iter()
            .map(|f| f.failure.site.id)
            .collect::<Vec<_>>(),
        ["cga_spelling"]
    );
}

/// Flash attention on sm90 (`attention-sm90-ttgir-*`: fp16 and bf16, 4, 8
/// and 16 warps, 64 – 128 rows and columns): where 3.1.0 aborts, it is in
/// the first lowering pass, on P's conversion into operand A of the second
/// dot (`hopper_dot_operand`), although the module also converts one
/// Hopper accumulator into another, which 3.1's allocation analysis would
/// refuse next (`mma_to_mma_3_1`): the decomposition runs first. 3.2 – 3.4
/// compile every one.
#[test]
fn attention_on_hopper_aborts_3_1_in_the_decomposition_first() {
    let files: Vec<_> = recorded::of_kind(Kind::GridTtgirCompiles)
        .into_iter()
        .filter(|f| f.file().contains("attention-sm90-ttgir-"))
        .collect();
    assert_eq!(files.len(), 4, "3.1.0, 3.2.0, 3.3.1 and 3.4.0");
    let mut aborts_3_1 = 0;
    for file in &files {
        let release: Release = file.release().parse().expect("a modelled release");
        for (name, rec) in file.records() {
            let outcome = rec["outcome"].as_str().unwrap();
            let findings = check_module(rec["ttgir"].as_str().expect("a module"), release);
            let sites: Vec<&str> = findings.iter().map(|f| f.failure.site.id).collect();
            if release != Release::V3_1 {
                assert_eq!((outcome, sites.len()), ("ok", 0), "{name}@{release}");
                continue;
            }
            if outcome == "ok" {
                assert!(sites.is_empty(), "{name}: {sites:?}");
                continue;
            }
            aborts_3_1 += 1;
            assert_eq!(sites.first(), Some(&"hopper_dot_operand"), "{name}");
            assert!(sites.contains(&"mma_to_mma_3_1"), "{name}: {sites:?}");
        }
    }
    assert!(aborts_3_1 > 0, "no attention kernel aborts 3.1.0");
}
