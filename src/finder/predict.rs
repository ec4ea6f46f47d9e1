//! One configuration → the verdict the real compiler gives.

use super::config::{Arch, Config, ConfigError, Dtype, Pattern};
use super::decisions::{DotShape, Mma, choose_mma, nvmma_swizzle};
use super::sites::{self, Failure};
use super::verdict::{Prediction, Trace, Verdict};
use crate::triton::TritonVersion;

/// Predicts how `cfg.triton` compiles `cfg`, with the steps that lead
/// there.
pub fn predict(cfg: &Config) -> Result<Prediction, ConfigError> {
    predict_traced(cfg, true)
}

/// [`predict`], recording the steps only when `trace` is set (searches
/// render only what they report).
pub fn predict_traced(cfg: &Config, trace: bool) -> Result<Prediction, ConfigError> {
    cfg.validate()?;
    let mut t = Trace::new(trace);
    let outcome = match frontend(cfg) {
        Err(f) => Err(f),
        Ok(()) => match cfg.pattern {
            Pattern::Inductor3d => inductor(cfg, &mut t),
            _ => dots(cfg, &mut t),
        },
    };
    Ok(match outcome {
        Ok(()) => Prediction::ok(t.into_steps()),
        Err(f) => f.into_prediction(t.into_steps()),
    })
}

/// Checks made before any layout exists.
fn frontend(cfg: &Config) -> Result<(), Failure> {
    if cfg.dtype == Dtype::Fp8e4nv && cfg.arch != Arch::Sm90 {
        return Err(Failure {
            verdict: Verdict::Error,
            site: "semantic analysis (triton/language/semantic.py)".into(),
            message: "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')"
                .into(),
        });
    }
    Ok(())
}

fn describe(name: &str, dot: &DotShape, mma: &Mma, release: TritonVersion) -> String {
    format!(
        "{name} [{}x{}] = [{}x{}]·[{}x{}] → {}",
        dot.m,
        dot.n,
        dot.m,
        dot.k,
        dot.k,
        dot.n,
        mma.attr_text(release)
    )
}

/// `dot`, `chain-a` and `chain-b`.
fn dots(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let release = cfg.triton;
    let d1 = DotShape {
        m: cfg.m,
        n: cfg.n,
        k: cfg.k,
        dtype: cfg.dtype,
        chained: cfg.pattern.is_chain(),
    };
    let mma1 = choose_mma(cfg, &d1);
    trace.note(|| describe("dot 1", &d1, &mma1, release));
    let x = cfg.x.unwrap_or(0);
    match cfg.pattern {
        Pattern::ChainA => {
            // O[M,X] = P[M,N] · C[N,X]: P is operand A.
            let d2 = DotShape {
                m: cfg.m,
                n: x,
                k: cfg.n,
                dtype: cfg.dtype,
                chained: false,
            };
            let mma2 = choose_mma(cfg, &d2);
            trace.note(|| describe("dot 2", &d2, &mma2, release));
            if release == TritonVersion::V3_1 {
                sites::hopper_mma_3_1::mma_layout(&mma1, [cfg.m, cfg.n], release, trace)?;
            }
            if mma1.version == 3 && !a_stays_in_registers(&mma1, &mma2, cfg) {
                store_p(cfg, &mma1, cfg.m, cfg.n, trace)?;
            } else {
                trace.note(|| {
                    "P stays in registers as wgmma/mma operand A (convert_layout)".to_string()
                });
            }
        }
        Pattern::ChainB => {
            // O[X,N] = D[X,M] · P[M,N]: P is operand B.
            let d2 = DotShape {
                m: x,
                n: cfg.n,
                k: cfg.m,
                dtype: cfg.dtype,
                chained: false,
            };
            let mma2 = choose_mma(cfg, &d2);
            trace.note(|| describe("dot 2", &d2, &mma2, release));
            if release == TritonVersion::V3_1 {
                sites::hopper_mma_3_1::mma_layout(&mma1, [cfg.m, cfg.n], release, trace)?;
            }
            if mma2.version == 3 {
                store_p(cfg, &mma1, cfg.m, cfg.n, trace)?;
            } else {
                trace.note(|| "P goes to dot 2 through a swizzled shared buffer (no stmatrix: MMA v2 operand)".to_string());
            }
        }
        _ => {}
    }
    Ok(())
}

/// Whether operand A (the first dot's result) of a Hopper dot stays in
/// registers. 3.2 keeps it there only through `OptimizeDotOperands`'
/// `MMAV3UseRegOperand`: the producing MMA has one warp along N and the
/// element type is 16 or 8 bits; later releases decide in AccelerateMatmul
/// and keep any operand A that does not come from a load.
fn a_stays_in_registers(mma1: &Mma, mma2: &Mma, cfg: &Config) -> bool {
    if mma2.version != 3 {
        return true;
    }
    if cfg.triton <= TritonVersion::V3_2 {
        mma1.warps[1] == 1 && matches!(cfg.dtype.bits(), 8 | 16)
    } else {
        true
    }
}

/// `local_alloc` of P (the first dot's accumulator, cast to the dtype) into
/// the NVMMA shared layout of a Hopper operand.
fn store_p(
    cfg: &Config,
    mma1: &Mma,
    rows: u64,
    cols: u64,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let bits = cfg.dtype.bits();
    let swizzle = nvmma_swizzle(cols, bits).unwrap_or(0);
    trace.note(|| format!(
        "local_alloc P [{rows}x{cols}] {} into an NVMMA shared buffer with a {swizzle}-byte swizzle",
        cfg.dtype.name()
    ));
    let store = sites::stmatrix::Store {
        mma: mma1,
        rows,
        cols,
        bits,
        swizzle,
    };
    sites::stmatrix::store(&store, cfg.triton, trace)
}

/// triton #5882's pattern: rank-3 loads pipelined into shared memory and
/// read back for the dot.
fn inductor(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    if cfg.num_stages >= 2 {
        trace.note(|| "the pipeliner stages the rank-3 loads through shared memory (local_alloc / async copies)".to_string());
        sites::local_load_rank3::local_load(3, false, cfg.triton)?;
    }
    let d = DotShape {
        m: cfg.m,
        n: cfg.n,
        k: cfg.k,
        dtype: cfg.dtype,
        chained: false,
    };
    let mma = choose_mma(cfg, &d);
    trace.note(|| describe("dot", &d, &mma, cfg.triton));
    Ok(())
}
