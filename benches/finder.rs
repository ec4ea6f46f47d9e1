//! Benchmarks for the attribute conversions (one per attribute kind) and for
//! the finder's `predict`.
//!
//! ```sh
//! cargo bench --bench finder                       # 1 s warm-up, 2 s measurement
//! FINDER_BENCH_DUMP=1 cargo bench --bench finder   # the attributes and our layouts as JSON
//! ```
//!
//! `tests/oracle/bench_triton.py --gluon` reads the dump, converts the same
//! attribute texts with Gluon's `to_linear_layout` (Triton 3.9), checks the
//! layouts are equal and prints the time ratios.

use criterion::Criterion;
use linear_layout_triton::finder::{Config, predict};
use linear_layout_triton::{
    Conversion, ConversionCache, Defs, Release, parse_attr, to_linear_layout,
};
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
            b.iter(|| to_linear_layout(black_box(&attr), black_box(shape), Release::V3_9, None))
        });
    }
    g.finish();
    // The same conversions answered from a cache, as Triton's dialect answers
    // `toLinearLayout` after the first call.
    let mut g = c.benchmark_group("convert_cached");
    let cache = ConversionCache::new();
    for &(name, text, shape) in ATTRS {
        let attr = parse_attr(text, &Defs::new()).expect("benchmark attribute parses");
        g.bench_function(name, |b| {
            b.iter(|| cache.convert(black_box(&attr), black_box(shape), Release::V3_9, None))
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
        triton: Release::V3_4,
        ..cfg
    };
    c.bench_function("predict/chain-b-3.4-ok", |b| {
        b.iter(|| predict(black_box(&ok)))
    });
}

/// `FINDER_BENCH_DUMP=1`: each conversion's attribute, shape and result as
/// one JSON array.
fn dump() {
    let cases: Vec<serde_json::Value> = ATTRS
        .iter()
        .map(|&(name, text, shape)| {
            let layout = parse_attr(text, &Defs::new())
                .map_err(linear_layout_triton::ConvertError::from)
                .and_then(|attr| to_linear_layout(&attr, shape, Release::LATEST, None));
            let layout = match layout {
                Ok(Conversion::Layout(l)) => serde_json::to_value(&l).expect("serialize"),
                Ok(Conversion::NoLayout(why)) => serde_json::json!({ "error": why }),
                Err(e) => serde_json::json!({ "error": e.to_string() }),
            };
            serde_json::json!({"name": name, "attr": text, "shape": shape, "layout": layout})
        })
        .collect();
    println!("{}", serde_json::Value::Array(cases));
}

fn main() {
    if std::env::var_os("FINDER_BENCH_DUMP").is_some_and(|v| !v.is_empty() && v != "0") {
        dump();
        return;
    }
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    conversions(&mut c);
    finder(&mut c);
    c.final_summary();
}
