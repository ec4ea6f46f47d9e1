//! The AMD backend's compile of a pattern (`hip` targets, from Triton 3.4):
//! the steps of `third_party/amd/backend/compiler.py` that the finder
//! follows, each handed to the site models as an [`Event`].
//!
//! 1. The front end (`semantic.py` with the HIP backend's options): the
//!    checks every backend shares, and the fp8 types the target takes
//!    ([`sites::amd_fp8_arch`]). The HIP backend's `min_dot_size` is
//!    `(1, 1, 1)` in every release, so no dot is too small.
//! 2. `make_ttgir`: the matrix-core choice (traced, see [`target`]), the
//!    thread-locality pass of a gather, and the stream pipeliner of the
//!    pattern's loop ([`Loop`], [`sites::amd_chained_dot`]).
//! 3. `make_llir`: `ConvertTritonAMDGPUToLLVM` first checks that it knows
//!    the target ([`sites::amd_target`]), then lowers the ops: each dot's
//!    operand casts ([`sites::amd_fp8_upcast`]), a scan's layout
//!    ([`sites::scan_layout`]).
//!
//! Every step reads the target's wave size ([`Arch::warp_size`]): the
//! coalescing pass spreads a tile over 64 lanes on CDNA.

pub(crate) mod pipeline;
pub(crate) mod target;

pub(crate) use pipeline::{Loop, LoopLoad};

use super::config::{Config, Dtype, Pattern};
use super::cta;
use super::decisions::DotShape;
use super::sites::{self, Event, Failure, FrontEnd, FrontEndDot, ScanOperand};
use super::verdict::Trace;
use crate::attr::Attr;

/// Predicts how `cfg.triton` compiles `cfg` for its AMD target (`cfg` is
/// valid and its arch is AMD's).
pub(crate) fn predict(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let release = cfg.triton;
    front_end(cfg, trace)?;
    if cfg.pattern.has_dot() {
        trace.note(|| target::matrix_core(cfg.arch, cfg.dtype, release));
    }
    if cfg.pattern == Pattern::Gather {
        let event = Event::Gather {
            rows: cfg.m,
            src: cfg.n,
            idx: cfg.k,
            num_warps: cfg.num_warps,
            lanes: cfg.arch.warp_size(),
            cga: None,
        };
        sites::run(&event, release, trace)?;
    }
    if let Some(pattern_loop) = pipeline::pattern_loop(cfg) {
        sites::run(&Event::AmdLoop(&pattern_loop), release, trace)?;
    }
    sites::run(&Event::LowerModule { arch: cfg.arch }, release, trace)?;
    for dot in dots(cfg) {
        let event = Event::AmdDot {
            dot: &dot,
            arch: cfg.arch,
        };
        sites::run(&event, release, trace)?;
    }
    if cfg.pattern == Pattern::Scan {
        scan(cfg, trace)?;
    }
    Ok(())
}

/// The pattern's dots in program order: the first and a chain's second
/// (the attention patterns take no 8-bit types, whose casts are the only
/// ones a dot's lowering is modelled for).
fn dots(cfg: &Config) -> Vec<DotShape> {
    if !cfg.pattern.has_dot() {
        return Vec::new();
    }
    let (first, second) = super::predict::pattern_dots(cfg);
    std::iter::once(first).chain(second).collect()
}

/// The front end: `semantic.py`'s checks and the target's fp8 types.
fn front_end(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let dot = cfg.pattern.has_dot().then(|| FrontEndDot {
        fp8e4nv: cfg.dtype == Dtype::Fp8e4nv,
        // AMD has no compute capability; the HIP backend's `min_dot_size`
        // asks nothing of a dot's sizes.
        capability: None,
        eight_bit: cfg.dtype.bits() == 8,
        int8: cfg.dtype == Dtype::Int8,
        min_k: cfg.k,
        int32_acc: cfg.dtype == Dtype::Int8 && cfg.pattern == Pattern::Inductor3d,
    });
    let front_end = FrontEnd {
        arch: cfg.arch,
        gather: cfg.pattern == Pattern::Gather,
        dot,
    };
    sites::run(&Event::FrontEnd(&front_end), cfg.triton, trace)
}

/// `scan`: `tl.cumsum` along dim 0 of the loaded `[M, N]` tile in the
/// coalesced layout the load was given, over the target's wave.
fn scan(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let shape = [cfg.m, cfg.n];
    let bits = cfg.dtype.bits();
    let blocked =
        super::decisions::coalesced_load_over(&shape, 1, bits, cfg.num_warps, cfg.arch.warp_size());
    let attr = Attr::Blocked(blocked);
    let what = || "the scanned tile".to_string();
    let Some(l) = sites::converted(&attr, &shape, cfg.triton, None, trace, what)? else {
        return Ok(());
    };
    trace.layout(
        || {
            format!(
                "scan operand [{}x{}]: {}",
                cfg.m,
                cfg.n,
                crate::print_attr(&attr, cfg.triton.dialect())
            )
        },
        &l,
    );
    let split = cta::initial_split(&shape, 1);
    let scanned = ScanOperand {
        layout: &l,
        shape: &shape,
        split: &split.split,
        axis: 0,
        capability: None,
    };
    sites::run(&Event::Scan(&scanned), cfg.triton, trace)
}
