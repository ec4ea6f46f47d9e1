//! The finder against the real compiler: every recorded compile of the
//! pattern kernels (the `kernel-compiles` files under `tests/data/compile/`,
//! read through `recorded`) and of flash-linear-attention's kernel, and
//! `check-ttgir` on the TTGIR 3.2.0 emits for that kernel.

use crate::recorded::{self, Kind};
use linear_layout_triton::Release;
use linear_layout_triton::finder::check_ttgir::check;
use linear_layout_triton::finder::search::shrink;
use linear_layout_triton::finder::{Config, Failure, Verdict, predict};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/compile")
        .join(name)
}

fn outcome(v: &Value) -> Verdict {
    match v.as_str() {
        Some("ok") => Verdict::Ok,
        Some("abort") => Verdict::Abort,
        _ => Verdict::Error,
    }
}

/// Whether a recorded message is what the model says Triton prints: it
/// holds the model's `triton_message`, and an assertion recorded as
/// `File.cpp:123: …` is at the location's line. A site whose text is the
/// pass manager's note naming the pass (`Pipeline failed while executing
/// [...]`) is read in the record's last lines of stderr: the key line is
/// then the wrapper every failed pass prints.
fn prints_the_same(row: &Value, f: &Failure) -> bool {
    let recorded = row["message"].as_str().unwrap_or_default();
    let in_tail = || {
        row["stderr_tail"].as_array().is_some_and(|t| {
            t.iter()
                .any(|l| l.as_str().is_some_and(|l| l.contains(&f.triton_message)))
        })
    };
    let head = recorded.split(": ").next().unwrap_or_default();
    let line_agrees = match (head.rsplit_once(':'), f.location.file_and_line()) {
        (Some((file, line)), Some(ours))
            if (file.ends_with(".cpp") || file.ends_with(".h"))
                && line.bytes().all(|b| b.is_ascii_digit()) =>
        {
            head == ours
        }
        _ => true,
    };
    line_agrees && (recorded.contains(&f.triton_message) || in_tail())
}

/// The nine configuration keys of a record, without its name or release.
fn config_keys(v: &Value) -> Value {
    let mut c = v.clone();
    if let Some(o) = c.as_object_mut() {
        o.remove("name");
        o.remove("triton");
    }
    c
}

#[test]
fn predict_agrees_with_every_recorded_compile() {
    let files = recorded::of_kind(Kind::KernelCompiles);
    let main_grids: Vec<&str> = files
        .iter()
        .filter(|f| f.header.configs.as_deref() == Some("configs.jsonl"))
        .map(|f| f.release())
        .collect();
    for want in ["3.1.0", "3.2.0", "3.3.1", "3.4.0", "3.9.0"] {
        assert!(
            main_grids.contains(&want),
            "no recorded grid of configs.jsonl for {want} (kernel-compiles files: {files:?})"
        );
    }
    // Disagreements that are understood and not modelled, each with a reason;
    // every listed case must still disagree (so the list cannot go stale).
    let known_file = recorded::only(Kind::KnownDisagreements);
    let known: Vec<(String, Config)> = known_file
        .records()
        .map(|(name, v)| {
            assert!(
                v["why"].as_str().is_some_and(|w| !w.is_empty()),
                "known disagreement {name} needs a reason"
            );
            (
                name.to_string(),
                serde_json::from_value(v["config"].clone()).unwrap(),
            )
        })
        .collect();
    let mut explained = 0;
    let (mut total, mut failures) = (0, Vec::new());
    for file in &files {
        // Each file holds exactly the configurations of the list it names,
        // in its order: a file cut short (or a list grown since) fails.
        let list_name = file.header.configs.as_deref().unwrap_or_else(|| {
            panic!(
                "{}: the header names no configuration list (`configs`)",
                file.file()
            )
        });
        let list = recorded::load(&file.path.with_file_name(list_name));
        assert_eq!(
            list.header.kind,
            Kind::Configs,
            "{}: {list_name}",
            file.file()
        );
        assert_eq!(
            file.len(),
            list.len(),
            "{}: {} configurations, {list_name} has {}",
            file.file(),
            file.len(),
            list.len()
        );
        for ((name, row), (listed_name, listed)) in file.records().zip(list.records()) {
            assert_eq!(
                config_keys(&row["config"]),
                config_keys(listed),
                "{}: {name} is not {list_name}'s {listed_name}",
                file.file()
            );
            assert_eq!(
                row["config"]["triton"].as_str(),
                Some(file.short_release().as_str()),
                "{}: {name} was not compiled by the header's release",
                file.file()
            );
        }
        for (name, row) in file.records() {
            let cfg: Config = serde_json::from_value(row["config"].clone()).unwrap();
            let p = predict(&cfg).unwrap_or_else(|e| panic!("{} {name}: {e}", file.file()));
            total += 1;
            let at = format!("{} {name}", file.file());
            if p.verdict != outcome(&row["outcome"]) && known.iter().any(|(_, k)| *k == cfg) {
                explained += 1;
            } else if let Some(f) = p
                .failure
                .as_ref()
                .filter(|_| p.verdict == outcome(&row["outcome"]))
            {
                // The same failure: Triton's text as recorded, at the
                // recorded line.
                let recorded = row["message"].as_str().unwrap_or_default();
                if !prints_the_same(row, f) {
                    failures.push(format!("{at}: real message {recorded:?}, predicted {f}"));
                }
            } else if p.verdict != outcome(&row["outcome"]) {
                failures.push(format!(
                    "{at}: real {} ({}), predicted {} ({})",
                    row["outcome"],
                    row["message"]
                        .as_str()
                        .unwrap_or("")
                        .chars()
                        .take(160)
                        .collect::<String>(),
                    p.verdict,
                    p.site_id().unwrap_or_default()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        explained,
        known.len(),
        "a listed known disagreement no longer disagrees (or was not recorded): {:?}",
        known.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
}

#[test]
fn fla_kernel_outcomes_follow_its_chained_products() {
    let fla = recorded::only(Kind::FlaCompiles);
    let mut failures = Vec::new();
    let mut count = 0;
    for (name, row) in fla.records() {
        let c = &row["config"];
        // Each chunk: b_h[K=64, BV] += k^T[64, BT=64] · v[BT, BV], cast to bf16,
        // then the operand B of w[BT, 64] · b_h: the chain-b pattern.
        let cfg = Config {
            pattern: linear_layout_triton::finder::Pattern::ChainB,
            m: 64,
            n: c["bv"].as_u64().unwrap(),
            k: 64,
            x: Some(64),
            dtype: linear_layout_triton::finder::Dtype::Bf16,
            num_warps: c["num_warps"].as_u64().unwrap(),
            num_stages: c["num_stages"].as_u64().unwrap_or(2),
            arch: c["arch"].as_str().unwrap().parse().unwrap(),
            triton: c["triton"].as_str().unwrap().parse().unwrap(),
            num_ctas: 1,
            variant: None,
        };
        let p = predict(&cfg).unwrap();
        count += 1;
        if p.verdict != outcome(&row["outcome"]) {
            failures.push(format!(
                "{name} ({cfg}): real {}, predicted {}",
                row["outcome"], p.verdict
            ));
        }
    }
    assert!(count >= 48, "only {count} FLA compiles");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn check_ttgir_finds_the_failing_op_in_fla_at_8_warps_only() {
    let w8 = std::fs::read_to_string(data("fla-3.2.0-w8.ttgir")).unwrap();
    let findings = check(&w8, Release::V3_2).unwrap();
    assert!(!findings.is_empty());
    for f in &findings {
        assert_eq!(f.op, "local_alloc");
        assert!(w8.lines().nth(f.line - 1).unwrap().contains("local_alloc"));
        assert_eq!(f.failure.site.id, "stmatrix");
        assert!(
            f.failure.location.function.contains("reshapeOuts"),
            "{}",
            f.failure
        );
    }
    let w4 = std::fs::read_to_string(data("fla-3.2.0-w4.ttgir")).unwrap();
    assert_eq!(check(&w4, Release::V3_2).unwrap(), vec![]);
    // The same 8-warp module lowers fine in 3.4 (the stmatrix guard).
    assert_eq!(check(&w8, Release::V3_4).unwrap(), vec![]);
}

/// `check` on the recorded dump `name` finds exactly one failure: an abort
/// at a conversion to operand A. Returns the dump.
fn aborts_at_one_operand_a_conversion(name: &str, release: Release) -> String {
    let text = std::fs::read_to_string(data(name)).unwrap();
    let findings = check(&text, release).unwrap();
    assert_eq!(findings.len(), 1, "{name}: {findings:?}");
    let line = text.lines().nth(findings[0].line - 1).unwrap();
    assert!(
        line.contains("convert_layout") && line.contains("dot_op<{opIdx = 0"),
        "{name}: {line}"
    );
    assert_eq!(findings[0].verdict, Verdict::Abort, "{name}");
    text
}

/// `check` finds nothing in the recorded dump `name`.
fn passes(name: &str, release: Release) {
    let text = std::fs::read_to_string(data(name)).unwrap();
    assert_eq!(check(&text, release).unwrap(), vec![], "{name}");
}

#[test]
fn check_ttgir_finds_the_accumulator_kept_in_registers_for_an_mma_v2_operand() {
    // 3.2's TTGIR for chain-a 128x16x64, X = 32, fp8, 16 warps (compiling
    // it crashes), and the same module with the v2 MMA's warps along N
    // instead (it compiles): only the first takes the register shortcut.
    aborts_at_one_operand_a_conversion("fp8-chain-a-3.2.0-w16.ttgir", Release::V3_2);
    passes(
        "fp8-chain-a-3.2.0-w16-v2-warps-along-n.ttgir",
        Release::V3_2,
    );
}

#[test]
fn check_ttgir_finds_3_1s_partial_group_of_8_bit_words() {
    // 3.1's TTGIR for chain-a on sm89 (fp8 stays 8-bit there): P [32x16]
    // on 2 warps is 2 words per thread, and compiling the file aborts; P
    // [256x16] on 8 warps is 4 words, and it compiles.
    let abort =
        aborts_at_one_operand_a_conversion("sm89-chain-a-3.1.0-m32-w2.ttgir", Release::V3_1);
    // The operand's parent is the source MMA itself: the shortcut's case.
    assert!(abort.contains("dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>"));
    // 3.2 lowers the same conversion without the reorder.
    passes("sm89-chain-a-3.1.0-m32-w2.ttgir", Release::V3_2);
    passes("sm89-chain-a-3.1.0-m256-w8.ttgir", Release::V3_1);
}

#[test]
fn shrink_keeps_the_site_and_does_not_grow() {
    let cfg: Config = serde_json::from_str(
        r#"{"pattern": "chain-b", "m": 128, "n": 64, "k": 128, "x": 128, "dtype": "bf16", "num_warps": 16, "num_stages": 3, "arch": "sm90", "triton": "3.2"}"#,
    )
    .unwrap();
    let before = predict(&cfg).unwrap();
    assert_ne!(before.verdict, Verdict::Ok);
    let (small, p) = shrink(&cfg).unwrap();
    assert_eq!(p.site_id(), before.site_id());
    assert!(small.elements() <= cfg.elements() && small.num_warps <= cfg.num_warps);
    // Nothing smaller in any single parameter still fails there.
    assert!(small.elements() < cfg.elements());
}

#[test]
fn fp8_dots_with_k_below_32_fail_where_3_1_and_3_2_keep_the_promotion_on_the_operand() {
    let run = |pattern: &str, m: u64, n: u64, k: u64, x: Option<u64>, warps: u64, triton: &str| {
        let cfg: Config = serde_json::from_value(serde_json::json!({
            "pattern": pattern, "m": m, "n": n, "k": k, "x": x, "dtype": "fp8e4nv",
            "num_warps": warps, "num_stages": 1, "arch": "sm90", "triton": triton,
        }))
        .unwrap();
        predict(&cfg).unwrap()
    };
    // Operand A [16x16] has 256 elements: a cheap load from 16 warps on
    // (512 threads), so its promotion stays on the dot operand.
    for triton in ["3.1", "3.2"] {
        assert_eq!(run("dot", 16, 32, 16, None, 8, triton).verdict, Verdict::Ok);
        let p = run("dot", 16, 32, 16, None, 16, triton);
        assert_eq!(p.verdict, Verdict::Abort, "{triton}");
        let f = p.failure.unwrap();
        assert_eq!(f.site.id, "fp8_promotion");
        assert!(f.location.function.contains("packLLElements"));
        assert!(f.explanation.contains("expected 4 but got 8"));
    }
    // K = 32 is one whole 8-bit instruction: nothing to miscount.
    assert_eq!(run("dot", 16, 32, 32, None, 16, "3.2").verdict, Verdict::Ok);
    // 3.3 rejects K < 32 before any layout exists.
    assert_eq!(
        run("dot", 16, 32, 16, None, 16, "3.3").verdict,
        Verdict::Error
    );
    // An fp8 P from a wgmma accumulator into an MMA v2 operand crashes 3.2
    // at any warp count.
    for warps in [4, 32] {
        let p = run("chain-a", 64, 16, 32, Some(64), warps, "3.2");
        assert_eq!(p.verdict, Verdict::Abort);
        assert_eq!(p.site_id(), Some("accumulator_to_v2"));
    }
}

#[test]
fn inductor_fp8_dots_keep_the_promotion_behind_the_reshape() {
    let run = |pattern: &str, mn: u64, k: u64, triton: &str| {
        let cfg: Config = serde_json::from_value(serde_json::json!({
            "pattern": pattern, "m": mn, "n": mn, "k": k, "x": null, "dtype": "fp8e4nv",
            "num_warps": 4, "num_stages": 1, "arch": "sm90", "triton": triton,
        }))
        .unwrap();
        predict(&cfg).unwrap()
    };
    // The same MMA v2 dot with costly loads (32x16 elements, 128 threads):
    // straight from the loads, the promotion moves onto them; behind
    // `tt.reshape` it stays on the dot operand and K = 16 miscounts.
    assert_eq!(run("dot", 32, 16, "3.2").verdict, Verdict::Ok);
    let p = run("inductor-3d", 32, 16, "3.2");
    assert_eq!(p.verdict, Verdict::Abort);
    assert_eq!(p.site_id(), Some("fp8_promotion"));
    // K = 32 is one whole 8-bit instruction (and Hopper takes it on wgmma).
    assert_eq!(run("inductor-3d", 32, 32, "3.2").verdict, Verdict::Ok);
    // 3.1 puts a 64-row dot on wgmma, whose K-contiguous fp8 operand (16
    // bytes) has no NVMMA swizzle.
    let p = run("inductor-3d", 64, 16, "3.1");
    assert_eq!(p.verdict, Verdict::Abort);
    assert_eq!(p.site_id(), Some("operand_shared"));
}

#[test]
fn eight_bit_tcgen05_lhs_is_promoted_by_3_4_and_read_from_shared_memory_by_3_5_to_3_7() {
    // Issue 35's kernel: 4 CTAs tile the 64 x 64 dot along N, while its
    // operand A keeps the load's split of M in 4. 3.4 promotes A to tensor
    // memory whatever its width; 3.5 to 3.7 only 16- and 32-bit A, and
    // read an 8-bit one from its buffer, whose CTA parts (16 rows) lie
    // inside one 64-row instruction: 3.5's loader does not look (the
    // buffer is swizzled), 3.6 and 3.7 find no layout.
    let recorded = recorded::of_kind(Kind::KernelCompiles);
    let run = |dtype: &str, triton: &str| {
        let json = serde_json::json!({
            "pattern": "inductor-3d", "m": 64, "n": 64, "k": 32, "x": null, "dtype": dtype,
            "num_warps": 8, "num_stages": 2, "arch": "sm100", "num_ctas": 4, "triton": triton,
        });
        let name = format!("inductor-3d-64x64x32-{dtype}-w8-s2-sm100-c4");
        let real = recorded
            .iter()
            .filter(|f| f.file().starts_with("tmem-lhs-") && f.short_release() == triton)
            .flat_map(|f| f.records())
            .find(|(n, _)| *n == name)
            .map(|(_, v)| outcome(&v["outcome"]))
            .unwrap_or_else(|| panic!("{name} is not recorded for {triton}"));
        let p = predict(&serde_json::from_value(json).unwrap()).unwrap();
        assert_eq!(p.verdict, real, "{name} on {triton}");
        p.site_id().map(str::to_string)
    };
    let site = |s: &str| Some(s.to_string());
    assert_eq!(run("fp8e4nv", "3.4"), site("tmem_lhs_cta"));
    assert_eq!(run("fp8e4nv", "3.5"), None);
    assert_eq!(run("fp8e4nv", "3.6"), site("mma_operand_cga"));
    assert_eq!(run("fp8e4nv", "3.7"), site("mma_operand_cga"));
    // A 16-bit A is promoted, and its allocation shape fails, on all four.
    for triton in ["3.4", "3.5", "3.6", "3.7"] {
        assert_eq!(run("bf16", triton), site("tmem_lhs_cta"), "{triton}");
    }
}

#[test]
fn two_cta_tcgen05_dots_fail_on_3_5_only_where_each_cta_holds_16_bytes_of_b() {
    // 3.4 to 3.6 give a dot tiled 2 x 1 over two CTAs, B loaded, to the
    // pair, and split B along N between them. 3.5's loader reads B with the
    // whole instruction's N and asserts on an unswizzled half: 16 columns
    // of an 8-bit type. 3.4 does not check, 3.6 reads half the
    // instruction, 3.7 no longer chooses the mode.
    let recorded = recorded::of_kind(Kind::KernelCompiles);
    let run = |name: &str, triton: &str| {
        let (cfg, real) = recorded
            .iter()
            .filter(|f| f.file().starts_with("two-cta-") && f.short_release() == triton)
            .flat_map(|f| f.records())
            .find(|(n, _)| *n == name)
            .map(|(_, v)| {
                let cfg: Config = serde_json::from_value(v["config"].clone()).unwrap();
                (cfg, outcome(&v["outcome"]))
            })
            .unwrap_or_else(|| panic!("{name} is not recorded for {triton}"));
        let p = predict(&cfg).unwrap();
        assert_eq!(p.verdict, real, "{name} on {triton}");
        p.site_id().map(str::to_string)
    };
    let eight_bit = [
        "dot-128x32x128-fp8e4nv-w8-s3-sm100-c2",
        "dot-128x32x256-fp8e5-w8-s3-sm100-c2",
    ];
    for name in eight_bit {
        assert_eq!(run(name, "3.5"), Some("mma_operand_cga".to_string()));
        for triton in ["3.4", "3.6", "3.7"] {
            assert_eq!(run(name, triton), None, "{name} on {triton}");
        }
    }
    // A 32-byte half is swizzled (8-bit N = 64, 16-bit N = 32).
    for name in [
        "dot-128x64x256-fp8e4nv-w4-s3-sm100-c2",
        "dot-128x32x64-fp16-w4-s3-sm100-c2",
    ] {
        assert_eq!(run(name, "3.5"), None, "{name}");
    }
}

#[test]
fn impossible_parameters_are_clear_errors() {
    for (json, needle) in [
        (
            r#"{"pattern": "dot", "m": 48, "n": 64, "k": 64, "dtype": "fp16", "num_warps": 4, "num_stages": 2, "arch": "sm90", "triton": "3.2"}"#,
            "power of two",
        ),
        (
            r#"{"pattern": "dot", "m": 64, "n": 64, "k": 64, "dtype": "fp16", "num_warps": 0, "num_stages": 2, "arch": "sm90", "triton": "3.2"}"#,
            "num_warps",
        ),
        (
            r#"{"pattern": "chain-b", "m": 64, "n": 64, "k": 64, "dtype": "fp16", "num_warps": 4, "num_stages": 2, "arch": "sm90", "triton": "3.2"}"#,
            "needs x",
        ),
    ] {
        let cfg: Config = serde_json::from_str(json).unwrap();
        let e = predict(&cfg).unwrap_err();
        assert!(e.to_string().contains(needle), "{e}");
    }
    for json in [
        r#"{"pattern": "dot", "m": 64, "n": 64, "k": 64, "dtype": "fp64", "num_warps": 4, "num_stages": 2, "arch": "sm90", "triton": "3.2"}"#,
        r#"{"pattern": "dot", "m": 64, "n": 64, "k": 64, "dtype": "fp16", "num_warps": 4, "num_stages": 2, "arch": "sm90", "triton": "2.9"}"#,
    ] {
        assert!(serde_json::from_str::<Config>(json).is_err());
    }
}

#[test]
fn the_pre_5905_build_reproduces_triton_5882_and_3_3_fixes_it() {
    use linear_layout_triton::finder::search::fix_for;
    // triton #5882 as reported: fp16, 128/128/32, 4 warps, 2 stages, sm80.
    let cfg: Config = serde_json::from_str(
        r#"{"pattern": "inductor-3d", "m": 128, "n": 128, "k": 32, "x": null, "dtype": "fp16", "num_warps": 4, "num_stages": 2, "arch": "sm80", "triton": "3.3", "variant": "pre-5905"}"#,
    )
    .unwrap();
    let p = predict(&cfg).unwrap();
    assert_eq!(p.verdict, Verdict::Error);
    assert_eq!(
        p.failure.map(|f| f.triton_message).as_deref(),
        Some(
            "cp.async does not support transfers smaller than 4 bytes; calculated this as 2 bytes"
        )
    );
    let fix = fix_for(&cfg);
    assert_eq!(fix.fixed_in, Some(Release::V3_3));
    assert!(fix.describe().contains("#5905"), "{}", fix.describe());
    // One stage stages nothing; fp32 copies are 4 bytes even one at a time.
    for other in [
        Config {
            num_stages: 1,
            ..cfg.clone()
        },
        Config {
            dtype: linear_layout_triton::finder::Dtype::Fp32,
            ..cfg.clone()
        },
    ] {
        assert_eq!(predict(&other).unwrap().verdict, Verdict::Ok, "{other}");
    }
    // The variant is modelled on 3.3 and names no other release.
    let wrong = Config {
        triton: Release::V3_2,
        ..cfg
    };
    let err = predict(&wrong).unwrap_err();
    assert!(err.to_string().contains("modelled on triton 3.3"), "{err}");
    assert!(err.to_string().contains("(got 3.2)"), "{err}");
}

/// Each release-specific failure names the change that removes it, not
/// another site's note (the accumulator check once got the fp8e4nv note).
#[test]
fn fixes_name_their_own_change() {
    use linear_layout_triton::finder::search::fix_for;
    let cases = [
        (
            r#"{"pattern": "inductor-3d", "m": 64, "n": 64, "k": 32, "x": null, "dtype": "int8", "num_warps": 4, "num_stages": 2, "arch": "sm80", "triton": "3.7"}"#,
            Release::V3_8,
            "out_dtype",
        ),
        (
            r#"{"pattern": "chain-a", "m": 32, "n": 16, "k": 128, "x": 16, "dtype": "fp8e5", "num_warps": 2, "num_stages": 3, "arch": "sm89", "triton": "3.1"}"#,
            Release::V3_2,
            "groups of four",
        ),
        (
            r#"{"pattern": "dot", "m": 64, "n": 64, "k": 64, "x": null, "dtype": "fp16", "num_warps": 4, "num_stages": 2, "arch": "sm120", "triton": "3.1"}"#,
            Release::V3_3,
            "Blackwell",
        ),
        (
            r#"{"pattern": "chain-a", "m": 128, "n": 128, "k": 64, "x": 16, "dtype": "fp8e4nv", "num_warps": 4, "num_stages": 3, "arch": "sm100", "triton": "3.3"}"#,
            Release::V3_4,
            "MMA v5 operand",
        ),
    ];
    for (json, fixed_in, says) in cases {
        let cfg: Config = serde_json::from_str(json).unwrap();
        let p = predict(&cfg).unwrap();
        assert_ne!(p.verdict, Verdict::Ok, "{cfg}");
        let fix = fix_for(&cfg);
        assert_eq!(fix.fixed_in, Some(fixed_in), "{cfg}");
        assert!(fix.describe().contains(says), "{cfg}: {}", fix.describe());
    }
}

/// The AMD grids (`amd-configs.jsonl`, drawn over every pattern and AMD
/// target; `amd-loops-configs.jsonl`, written around the pipeliner's
/// families) are recorded with every release that models AMD, and the
/// families the finder reports on AMD each show in them: the gfx1250
/// target refused by 3.4 and 3.5, 3.4's fp8e4nv refusal, triton #9815's
/// chained-dot erase in 3.5 and 3.6, 3.7's descriptor pipeliner, and
/// compiles on every target (`predict_agrees_with_every_recorded_compile`
/// checks each record).
#[test]
fn amd_grids_cover_every_release_and_family() {
    let files = recorded::of_kind(Kind::KernelCompiles);
    let mut sites = std::collections::BTreeSet::new();
    let mut ok_targets = std::collections::BTreeSet::new();
    for list in ["amd-configs.jsonl", "amd-loops-configs.jsonl"] {
        let grids: Vec<_> = files
            .iter()
            .filter(|f| f.header.configs.as_deref() == Some(list))
            .collect();
        let releases: Vec<&str> = grids.iter().map(|f| f.release()).collect();
        assert_eq!(
            releases,
            ["3.4.0", "3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0"],
            "{list}"
        );
        for file in grids {
            for (name, row) in file.records() {
                let cfg: Config = serde_json::from_value(row["config"].clone()).unwrap();
                assert!(cfg.arch.is_amd(), "{} {name}", file.file());
                match predict(&cfg).unwrap().failure {
                    Some(f) => {
                        sites.insert((f.site.id, file.short_release()));
                    }
                    None => {
                        ok_targets.insert(cfg.arch.name());
                    }
                }
            }
        }
    }
    for (site, release) in [
        ("amd_target", "3.4"),
        ("amd_target", "3.5"),
        ("amd_fp8_arch", "3.4"),
        ("amd_chained_dot", "3.5"),
        ("amd_chained_dot", "3.6"),
        ("amd_tdm_pipeline", "3.7"),
    ] {
        assert!(
            sites.contains(&(site, release.to_string())),
            "no recorded {release} compile at {site}: {sites:?}"
        );
    }
    assert_eq!(ok_targets.len(), 6, "{ok_targets:?}");
}
