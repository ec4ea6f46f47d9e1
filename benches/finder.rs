//! Benchmarks for the attribute conversions (one per attribute kind) and for
//! the finder's `predict`.

use criterion::{Criterion, criterion_group, criterion_main};
use linear_layout::finder::{Config, predict};
use linear_layout::triton::{Defs, TritonVersion, parse_attr, to_linear_layout};
use std::hint::black_box;
use std::time::Duration;

const ATTRS: &[(&str, &str, &[u64])] = &[
    (
        "blocked",
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>",
        &[64, 256],
    ),
    (
        "slice",
        "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>}>",
        &[256],
    ),
    (
        "nvidia_mma_v2",
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 8]}>",
        &[64, 64],
    ),
    (
        "nvidia_mma_v3",
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
        &[128, 128],
    ),
    (
        "dot_op",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 8]}>, kWidth = 8}>",
        &[64, 64],
    ),
    (
        "amd_mfma",
        "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>",
        &[64, 64],
    ),
    (
        "amd_wmma",
        "#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[0, 1], [1, 0]]}}>",
        &[32, 32],
    ),
    (
        "linear",
        "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0]], warp = [[2, 0], [4, 0]], block = []}>",
        &[16, 64],
    ),
    (
        "swizzled_shared",
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
        &[16, 64],
    ),
    (
        "nvmma_shared",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
        &[64, 64],
    ),
];

fn conversions(c: &mut Criterion) {
    let mut g = c.benchmark_group("convert");
    for &(name, text, shape) in ATTRS {
        let attr = parse_attr(text, &Defs::new()).expect("benchmark attribute parses");
        g.bench_function(name, |b| {
            b.iter(|| {
                to_linear_layout(
                    black_box(&attr),
                    black_box(shape),
                    TritonVersion::Newest,
                    None,
                )
            })
        });
    }
    g.finish();
}

fn finder(c: &mut Criterion) {
    let cfg: Config = serde_json::from_str(
        r#"{"pattern": "chain-b", "m": 64, "n": 64, "k": 64, "x": 64, "dtype": "bf16", "num_warps": 8, "num_stages": 2, "arch": "sm90", "triton": "3.2"}"#,
    )
    .expect("benchmark configuration");
    c.bench_function("predict/chain-b-3.2-abort", |b| {
        b.iter(|| predict(black_box(&cfg)))
    });
    let ok = Config {
        triton: TritonVersion::V3_4,
        ..cfg
    };
    c.bench_function("predict/chain-b-3.4-ok", |b| {
        b.iter(|| predict(black_box(&ok)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2));
    targets = conversions, finder
}
criterion_main!(benches);
