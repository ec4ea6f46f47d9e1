//! `scan` without a Triton install:
//!
//! - the public-kernel corpus (`tests/data/kernels/triton-*.jsonl.gz`: real
//!   kernels from pinned pip packages, each configuration compiled in full by
//!   a real release, with the TTGIR its front end produced) replayed through
//!   the checks `scan` runs on each module: the verdict must be the recorded
//!   outcome, except the disagreements listed with their reason in
//!   `tests/data/kernels/disagreements.json`, which must all still occur;
//! - the whole pipeline (inspection, workers, cache, checks, report,
//!   reproducer, minimal module) driven against a stand-in worker that
//!   answers with recorded TTGIR, and a second scan served from the cache.

use crate::recorded::{self, Kind};
use linear_layout_scan::{Axes, PythonOptions, ScanRequest, check_module, parse_args, scan};
use linear_layout_triton::Release;
use linear_layout_triton::finder::Arch;
use linear_layout_triton::report::render::{self, TextOptions};
use linear_layout_triton::report::{ConfigOutcome, Reproducer, RunStatus, Subject};
use linear_layout_triton::{Entry, Verdict};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn disagreements() -> BTreeMap<String, String> {
    let path = recorded::data_dir()
        .join("kernels")
        .join("disagreements.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text).expect("disagreements.json is JSON");
    v["disagreements"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|d| {
            (
                format!(
                    "{}@{}",
                    d["name"].as_str().unwrap(),
                    d["release"].as_str().unwrap()
                ),
                d["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn scan_agrees_with_every_recorded_public_kernel_compile() {
    let files = recorded::of_kind(Kind::PublicKernelCompiles);
    let listed = disagreements();
    let mut seen_disagreements = BTreeSet::new();
    let (mut records, mut agree, mut front_end) = (0, 0, 0);
    let mut releases = BTreeSet::new();
    let mut archs = BTreeSet::new();
    let mut unexplained = Vec::new();
    // (release, arch) -> [records, real failures in the lowering, front-end
    // failures, agreeing]: the agreement table of notes/scan.md
    let mut table: BTreeMap<(String, String), [usize; 4]> = BTreeMap::new();
    for file in &files {
        let wheel = file.release().to_string();
        let release: Release = wheel.parse().expect("a modelled release");
        for (name, rec) in file.records() {
            records += 1;
            releases.insert(wheel.clone());
            let arch = rec["arch"].as_str().unwrap_or("").to_string();
            archs.insert(arch.clone());
            let row = table.entry((wheel.clone(), arch)).or_default();
            row[0] += 1;
            let outcome = rec["outcome"].as_str().unwrap();
            let Some(ttgir) = rec["ttgir"].as_str() else {
                // the front end failed: scan reports Triton's own failure
                front_end += 1;
                agree += 1;
                row[2] += 1;
                row[3] += 1;
                continue;
            };
            if outcome != "ok" {
                row[1] += 1;
            }
            let findings = check_module(ttgir, release);
            let predicted = findings
                .first()
                .map_or(Verdict::Ok, |f| f.failure.verdict(Entry::Source));
            if predicted.to_string() == outcome {
                agree += 1;
                row[3] += 1;
                continue;
            }
            let key = format!("{name}@{wheel}");
            if listed.contains_key(&key) {
                seen_disagreements.insert(key);
            } else {
                unexplained.push(format!(
                    "{key}: recorded {outcome} ({}), scan predicts {predicted} {:?}",
                    rec["message"].as_str().unwrap_or(""),
                    findings.first().map(|f| f.failure.site.id)
                ));
            }
        }
    }
    eprintln!(
        "| release | arch | configurations | fail in the compiler | front-end failures | agree |"
    );
    eprintln!("|---|---|---|---|---|---|");
    for ((wheel, arch), [n, fail, front, agreed]) in &table {
        eprintln!("| {wheel} | {arch} | {n} | {fail} | {front} | {agreed} |");
    }
    assert!(records >= 600, "{records} records");
    assert!(releases.len() >= 5, "{releases:?}");
    assert!(
        archs.contains("sm80") && archs.contains("sm90"),
        "{archs:?}"
    );
    assert!(front_end < records, "every record is a front-end failure");
    assert!(
        unexplained.is_empty(),
        "{} disagreements not in tests/data/kernels/disagreements.json:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    let stale: Vec<&String> = listed
        .keys()
        .filter(|k| !seen_disagreements.contains(*k))
        .collect();
    assert!(
        stale.is_empty(),
        "listed disagreements that no longer occur: {stale:?}"
    );
    assert_eq!(agree + seen_disagreements.len(), records);
}

/// A stand-in for the worker: answers `inspect` for a two-parameter kernel
/// and `serve` with recorded TTGIR of flash-linear-attention's kernel on
/// 3.2.0 (8 warps: the stmatrix failure; otherwise the 4-warp module).
const FAKE: &str = r##"#!/usr/bin/env python3
import json, os, sys
cmd = sys.argv[2]
DATA = os.environ["FAKE_TTGIR_DIR"]
if cmd == "inspect":
    print(json.dumps({"worker": 0, "kernel": "fake_kernel", "module": "fake", "import": "import", "torch": "torch",
        "triton": "3.2.0", "params": [{"name": "x", "constexpr": False, "has_default": False},
        {"name": "BV", "constexpr": True, "has_default": False}, {"name": "UNUSED", "constexpr": True,
        "has_default": True, "default": 0}],
        "autotune": [{"kwargs": {"BV": 64}, "num_warps": 4, "num_stages": 2}],
        "heuristics": [], "digest": "d1", "used": ["x", "BV"], "files": [], "source": "# the kernel\n"}))
    sys.exit(0)
print(json.dumps({"hello": 0, "triton": "3.2.0", "error": None, "torch": "torch"}), flush=True)
with open(os.environ["FAKE_LOG"], "a") as log:
    for line in sys.stdin:
        job = json.loads(line)
        log.write(line)
        if job["op"] == "compile_ir":
            print(json.dumps({"id": job["id"], "status": "abort", "message": "LinearLayout.cpp:562: Assertion",
                              "seconds": 0.1}), flush=True)
            continue
        w = job["options"]["num_warps"]
        ttgir = open(os.path.join(DATA, "fla-3.2.0-w%d.ttgir" % (8 if w == 8 else 4))).read()
        print(json.dumps({"id": job["id"], "status": "ttgir", "ttgir": ttgir, "seconds": 0.1, "heuristics": {}}),
              flush=True)
"##;

#[test]
fn the_pipeline_runs_against_a_stand_in_worker_and_then_from_the_cache() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("no python3: skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("ll-scan-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fake = dir.join("fake_python");
    let script = dir.join("fake.py");
    std::fs::write(&script, FAKE).unwrap();
    std::fs::write(
        &fake,
        format!("#!/bin/sh\nexec python3 {} \"$@\"\n", script.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let log = dir.join("jobs.log");
    // SAFETY of the test: only this test sets these variables.
    unsafe {
        std::env::set_var("FAKE_TTGIR_DIR", recorded::data_dir().join("compile"));
        std::env::set_var("FAKE_LOG", &log);
    }
    let req = ScanRequest {
        kernel: "fake.py::fake_kernel".into(),
        paths: Vec::new(),
        args: parse_args("x=*bf16").unwrap(),
        axes: Axes {
            num_warps: vec![4, 8],
            archs: vec![Arch::Sm90],
            autotune: true,
            constexprs: vec![(
                "UNUSED".into(),
                parse_args("a=1, b=2")
                    .unwrap()
                    .into_iter()
                    .map(|(_, v)| v)
                    .collect(),
            )],
            ..Axes::default()
        },
        python: PythonOptions {
            venv_dir: dir.join("venvs"),
            named: vec![("3.2".into(), PathBuf::from(&fake))],
            install: false,
            only: vec!["3.2".into()],
            base_python: "python3".into(),
        },
        cache_dir: dir.join("cache"),
        out_dir: dir.join("out"),
        jobs: 2,
        timeout: 60,
        confirm: false,
        confirm_passing: 0,
        reduce: true,
        call: None,
    };
    let report = scan(&req, &|_| {}).expect("the scan runs");
    // 2 warps x 2 values of a constexpr the code never reads = 4
    // configurations, but only 2 distinct front ends
    assert_eq!(report.configs.len(), 4);
    assert_eq!(report.builds.len(), 1);
    let jobs = std::fs::read_to_string(&log).unwrap();
    let fronts = jobs.lines().filter(|l| l.contains("front_end")).count();
    assert_eq!(fronts, 2, "{jobs}");
    let fails: Vec<usize> = (0..4)
        .filter(|&c| matches!(report.outcomes[0][c], ConfigOutcome::Fails { .. }))
        .collect();
    assert_eq!(fails.len(), 2);
    assert!(fails.iter().all(|&c| report.configs[c].num_warps == 8));
    let g = &report.groups[0];
    assert_eq!(g.site.id, "stmatrix");
    assert_eq!(g.configs.len(), 2);
    let Some(Reproducer::Script { path, ran: None }) = &g.reproducer else {
        panic!("a reproducer script, not run: {:?}", g.reproducer);
    };
    let repro = std::fs::read_to_string(path).unwrap();
    assert!(repro.contains("KERNEL = fake_kernel"), "{repro}");
    let minimal = g.minimal_module.as_ref().expect("a minimal module");
    assert!(minimal.ops_after < minimal.ops_before);
    assert_eq!(
        minimal.compiled.as_ref().map(|c| c.status),
        Some(RunStatus::Abort)
    );
    assert!(report.found_failure());
    let text = render::text(&report, &TextOptions::default());
    assert!(text.contains("site stmatrix"), "{text}");
    assert!(render::json(&report)["groups"][0]["site"] == "stmatrix");
    // JUnit: a case per configuration and release; the two failing ones
    // carry the site and the reproducer script
    let junit = render::junit(&report);
    assert_eq!(junit.matches("<testcase ").count(), 4, "{junit}");
    assert_eq!(junit.matches("<failure ").count(), 2, "{junit}");
    assert_eq!(junit.matches("site: stmatrix").count(), 2, "{junit}");
    assert!(
        junit.contains(&format!("reproduce: {}", path.display())),
        "{junit}"
    );

    // The same scan again: every front end from the cache, no job sent.
    let before = std::fs::read_to_string(&log).unwrap().lines().count();
    let again = scan(&req, &|_| {}).expect("the cached scan runs");
    let Subject::Kernel(kernel) = &again.subject else {
        panic!("a scan reports a kernel");
    };
    assert_eq!(kernel.timing.ran, 0);
    assert_eq!(kernel.timing.cached, 4);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().lines().count(),
        before
    );
    assert_eq!(again.groups.len(), report.groups.len());
    let _ = std::fs::remove_dir_all(&dir);
}
