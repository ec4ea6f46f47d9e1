//! `check-ttgir` on the TTGIR of the `scan` and `gather` grid kernels
//! (`tests/data/compile/{scan,gather}-*.ttgir`, dumped by
//! `tests/oracle/compile/dump_ttgir.py`): its verdict equals the outcome
//! recorded for the kernel the file was dumped from, which compiling the
//! file itself reproduces (measured with the same script's `--file`).

use crate::recorded::{self, Kind};
use linear_layout_triton::Release;
use linear_layout_triton::finder::Verdict;
use linear_layout_triton::finder::check_ttgir::check;
use std::path::Path;

fn read(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/compile")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The recorded outcome of the kernel `name` in the compile file `grid`.
fn recorded_outcome(grid: &str, name: &str) -> Verdict {
    let file = recorded::load(&recorded::data_dir().join("compile").join(grid));
    assert_eq!(file.header.kind, Kind::KernelCompiles, "{grid}");
    let (_, row) = file
        .records()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{grid}: no record {name}"));
    match row["outcome"].as_str() {
        Some("ok") => Verdict::Ok,
        Some("abort") => Verdict::Abort,
        _ => Verdict::Error,
    }
}

/// How compiling `text` as `release` ends per `check-ttgir`, and the site
/// of the finding; a failing scan is the only finding, on the scan's line.
fn verdict(text: &str, release: Release) -> (Verdict, Option<&'static str>) {
    let findings = check(text, release).unwrap();
    assert!(findings.len() <= 1, "{findings:?}");
    match findings.first() {
        None => (Verdict::Ok, None),
        Some(f) => {
            assert_eq!(f.op, "scan");
            assert!(
                text.lines()
                    .nth(f.line - 1)
                    .unwrap()
                    .contains("\"tt.scan\"(")
            );
            (f.verdict, Some(f.failure.site.id))
        }
    }
}

#[test]
fn check_ttgir_gives_scans_the_recorded_outcome() {
    // (dump, release read as, recorded grid, kernel, site when it fails)
    let cases = [
        // 3.1's LLVM has no sm_100: 4 warps along the scanned rows shuffle.
        (
            "scan-3.1.0-4x256-fp16-w4-sm100.ttgir",
            Release::V3_1,
            "scan-isel-triton-3.1.0.jsonl",
            "scan-4x256-fp16-w4-s1-sm100",
            "unknown_target",
        ),
        // 3.2's does.
        (
            "scan-3.1.0-4x256-fp16-w4-sm100.ttgir",
            Release::V3_2,
            "scan-isel-triton-3.2.0.jsonl",
            "scan-4x256-fp16-w4-s1-sm100",
            "",
        ),
        // Lanes and warps along the columns: no shuffle along dim 0.
        (
            "scan-3.1.0-2x256-fp32-w2-sm120.ttgir",
            Release::V3_1,
            "scan-isel-triton-3.1.0.jsonl",
            "scan-2x256-fp32-w2-s1-sm120",
            "",
        ),
        // The CGA splits the scanned rows: 3.9 refuses, 3.8 miscounts.
        (
            "scan-3.9.0-8x128-fp32-w4-sm100-c4.ttgir",
            Release::V3_9,
            "scan-gather-triton-3.9.0.jsonl",
            "scan-8x128-fp32-w4-s2-sm100-c4",
            "scan_layout",
        ),
        (
            "scan-3.9.0-8x128-fp32-w4-sm100-c4.ttgir",
            Release::V3_8,
            "scan-gather-triton-3.8.0.jsonl",
            "scan-8x128-fp32-w4-s2-sm100-c4",
            "scan_layout",
        ),
        // Split along the columns only.
        (
            "scan-3.9.0-1x256-fp32-w8-sm100-c4.ttgir",
            Release::V3_9,
            "scan-gather-triton-3.9.0.jsonl",
            "scan-1x256-fp32-w8-s1-sm100-c4",
            "",
        ),
        (
            "scan-3.9.0-1x256-fp32-w8-sm100-c4.ttgir",
            Release::V3_8,
            "scan-gather-triton-3.8.0.jsonl",
            "scan-1x256-fp32-w8-s1-sm100-c4",
            "",
        ),
        // One warp, 16 lanes along rows split between 2 CTAs.
        (
            "scan-3.8.0-256x16-fp16-w1-sm90-c2.ttgir",
            Release::V3_8,
            "scan-gather-triton-3.8.0.jsonl",
            "scan-256x16-fp16-w1-s4-sm90-c2",
            "scan_layout",
        ),
    ];
    let mut failing = 0;
    for (file, release, grid, kernel, site) in cases {
        let real = recorded_outcome(grid, kernel);
        let (got, got_site) = verdict(&read(file), release);
        assert_eq!(got, real, "{file} as {release}");
        assert_eq!(got_site.unwrap_or(""), site, "{file} as {release}");
        failing += usize::from(real != Verdict::Ok);
    }
    assert!(failing >= 4 && failing < cases.len());
}

#[test]
fn check_ttgir_leaves_gathers_to_the_pass_a_file_skips() {
    // 3.9's TTGIR of a gather whose kernel 3.8 fails in the thread-locality
    // pass: compiling the file with 3.8.0 starts after that pass and
    // compiles (measured), so nothing is found.
    let text = read("gather-3.9.0-4x1x32-fp16-w16-sm90.ttgir");
    assert!(text.contains("tt.gather"));
    assert_eq!(
        recorded_outcome(
            "scan-gather-triton-3.8.0.jsonl",
            "gather-4x1x32-fp16-w16-s1-sm90"
        ),
        Verdict::Error
    );
    assert_eq!(
        recorded_outcome(
            "scan-gather-triton-3.9.0.jsonl",
            "gather-4x1x32-fp16-w16-s1-sm90"
        ),
        Verdict::Ok
    );
    assert_eq!(verdict(&text, Release::V3_8), (Verdict::Ok, None));
    assert_eq!(verdict(&text, Release::V3_9), (Verdict::Ok, None));
}
