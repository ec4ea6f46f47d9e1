//! One configuration → the verdict the real compiler gives.

use super::config::{Arch, Config, ConfigError, Dtype, Pattern, Variant};
use super::cta;
use super::decisions::{
    DotShape, Mma, cheap_to_reload, choose_chain_mmas, choose_mma, coalesced_load, nvmma_swizzle,
    staged_order_before_5905,
};
use super::sites::{self, Event, Failure, FrontEnd, FrontEndDot, ScanOperand};
use super::verdict::{Prediction, Trace};
use crate::Release;
use crate::attr::{Attr, SwizzledShared};

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
    if cfg.arch.is_amd() {
        return Ok(match super::amd::predict(cfg, &mut t) {
            Ok(()) => Prediction::ok(t.into_steps()),
            Err(f) => Prediction::fail(f, t.into_steps()),
        });
    }
    let planned = frontend(cfg, &mut t).and_then(|()| plan_ctas(cfg, &mut t));
    let outcome = match planned.and_then(|()| {
        if cfg.pattern.has_dot() {
            // AMD targets took their own pipeline above.
            let capability = cfg.arch.capability().unwrap_or_default();
            sites::run(&Event::ChooseMma { capability }, cfg.triton, &mut t)
        } else {
            Ok(())
        }
    }) {
        Err(f) => Err(f),
        Ok(()) if cfg.pattern == Pattern::Scan => scan(cfg, &mut t),
        Ok(()) if cfg.pattern == Pattern::Gather => gather(cfg, &mut t),
        // 3.3 on: tcgen05 where `supportMMA(dot, 5)` holds, MMA v2 below
        // that. Only 3.3's operand buffer is modelled.
        Ok(()) if cfg.arch == Arch::Sm100 => {
            t.note(|| {
                "sm100: MMA v5 (tcgen05, tensor memory) or v2; their layouts are not modelled beyond 3.3's operand B buffer".to_string()
            });
            tcgen05_dots(cfg, &mut t)
        }
        Ok(()) => match cfg.pattern {
            Pattern::Inductor3d => inductor(cfg, &mut t),
            _ => dots(cfg, &mut t),
        },
    };
    Ok(match outcome {
        Ok(()) => Prediction::ok(t.into_steps()),
        Err(f) => Prediction::fail(f, t.into_steps()),
    })
}

/// The pattern's dots on sm100, through 3.3's buffer for each loaded
/// operand B (a chain's second dot takes its loaded operand, or P, with N
/// fastest all the same).
fn tcgen05_dots(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let (d1, d2) = per_cta_dots(cfg);
    if cfg.num_ctas > 1 {
        chain_operand_cgas(cfg, trace)?;
        if cfg.pattern == Pattern::Inductor3d {
            inductor_ctas(cfg, trace)?;
        }
    }
    for dot in std::iter::once(d1).chain(d2) {
        let event = Event::Tcgen05OperandB {
            dot: &dot,
            num_warps: cfg.num_warps,
        };
        sites::run(&event, cfg.triton, trace)?;
    }
    if cfg.num_ctas > 1
        && cfg.pattern == Pattern::Dot
        && sites::tcgen05_operand_3_3::takes_v5_in(&d1, cfg.num_warps, cfg.triton)
    {
        let tiling = cta::dot_tiling(cfg.m, cfg.n, cfg.num_ctas);
        sites::run(&Event::TmemAccumulator { tiling }, cfg.triton, trace)?;
    }
    if cfg.num_ctas > 1 {
        two_cta_dot(cfg, &d1, trace)?;
    }
    if cfg.num_ctas > 1 {
        // A loaded operand B keeps N fastest; its CTA's part of N is the
        // dot's own (the load is remade in the dot's CGA).
        for dot in std::iter::once(d1).chain(d2) {
            let p_is_b = cfg.pattern == Pattern::ChainB && !dot.chained;
            if !p_is_b && sites::tcgen05_operand_3_3::takes_v5_in(&dot, cfg.num_warps, cfg.triton) {
                let cols_bytes = dot.n * dot.dtype.bits() / 8;
                sites::run(
                    &Event::Tcgen05OperandBuffer { cols_bytes },
                    cfg.triton,
                    trace,
                )?;
            }
        }
    }
    Ok(())
}

/// The first dot given to a pair of CTAs ([`cta::two_cta_mma`], 3.4 to
/// 3.6), and its operand B, split along N between the pair, read by the
/// tcgen05 loader ([`sites::mma_operand_cga`]). Its operand B is a load
/// in `dot` and the chains (whose several CTAs stop at CTA planning first
/// in those releases); `inductor-3d`'s comes through `tt.trans`. A chain's
/// second dot never qualifies for the same reason as the chains.
fn two_cta_dot(cfg: &Config, dot: &DotShape, trace: &mut Trace) -> Result<(), Failure> {
    let tiling = cta::dot_tiling(cfg.m, cfg.n, cfg.num_ctas);
    let b_from_load = cfg.pattern != Pattern::Inductor3d;
    if !sites::tcgen05_operand_3_3::takes_v5_in(dot, cfg.num_warps, cfg.triton)
        || !cta::two_cta_mma(tiling, [dot.m, dot.n], b_from_load, cfg.triton)
    {
        return Ok(());
    }
    let operand = two_cta_operand_b(dot, cfg.triton);
    trace.note(|| {
        format!(
            "two-CTA tcgen05 mode: the pair shares {}-row instructions; operand B [{}x{}] is split along N, {} columns per CTA ({}swizzled), read {} columns per instruction",
            2 * dot.m.min(128),
            dot.k,
            dot.n,
            dot.n / 2,
            if operand.swizzled { "" } else { "un" },
            operand.instr[1]
        )
    });
    let event = Event::MmaOperandLoader {
        operands: std::slice::from_ref(&operand),
        reader: sites::mma_operand_cga::Reader::Tcgen05,
    };
    sites::run(&event, cfg.triton, trace)
}

/// A two-CTA dot's operand B (`dot`: its shape per CTA, `[K, N]`), as the
/// tcgen05 loader walks it: `splitBOperand` gives the load the CTA split
/// `[1, 2]`, so each CTA's NVMMA buffer holds `[K, N / 2]`, N fastest (K
/// for tf32, which AccelerateMatmul does not transpose) and swizzled for
/// that part; instructions are the accumulator's `blockN` (`min(N, 256)`)
/// apart, each reading [`sites::mma_operand_cga::two_cta_b_instr_n`]
/// columns, over the whole K.
fn two_cta_operand_b(dot: &DotShape, release: Release) -> sites::mma_operand_cga::Operand {
    let bits = dot.dtype.bits();
    let part = [dot.k, dot.n / 2];
    let contiguous = if bits == 32 { 0 } else { 1 };
    let swizzled = buffer_swizzle(part[contiguous], part[1 - contiguous], bits).is_some();
    let mma_k = 256 / bits.max(1);
    let mma_n = dot.n.min(256);
    sites::mma_operand_cga::Operand {
        is_a: false,
        bases: vec![[0, part[1]]],
        instr: [
            mma_k,
            sites::mma_operand_cga::two_cta_b_instr_n(mma_n, release),
        ],
        step: [mma_k, mma_n],
        extent: [dot.k, dot.n],
        swizzled,
        core_matrix: sites::mma_operand_cga::holds_core_matrix(part, contiguous, bits),
    }
}

/// The pattern's dots as each CTA holds them: the dot's result tiled over
/// the CTAs ([`cta::dot_tiling`]), K whole.
pub(super) fn per_cta_dots(cfg: &Config) -> (DotShape, Option<DotShape>) {
    let (d1, d2) = pattern_dots(cfg);
    let per_cta = |d: DotShape| {
        let [sm, sn] = cta::dot_tiling(d.m, d.n, cfg.num_ctas);
        DotShape {
            m: d.m / sm,
            n: d.n / sn,
            ..d
        }
    };
    if cfg.num_ctas == 1 {
        (d1, d2)
    } else {
        (per_cta(d1), d2.map(per_cta))
    }
}

/// With several CTAs, a chain's P keeps the first dot's CTA split when it
/// becomes an operand of the second (3.9; earlier releases stop at CTA
/// planning): tcgen05's verifier on sm100, the wgmma operand loader on
/// sm90 ([`sites::tcgen05_cga`], [`sites::mma_operand_cga`]).
fn chain_operand_cgas(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let (Some(x), true) = (cfg.x, cfg.pattern.is_chain()) else {
        return Ok(());
    };
    let (c1, c2) = per_cta_dots(cfg);
    let Some(c2) = c2 else {
        return Ok(());
    };
    let n = cfg.num_ctas;
    let p = cta::dot_block_bases(cfg.m, cfg.n, cta::dot_tiling(cfg.m, cfg.n, n));
    // The second dot's result and its loaded operand, remade in its CGA.
    let (m2, n2) = match cfg.pattern {
        Pattern::ChainA => (cfg.m, x),
        _ => (x, cfg.n),
    };
    let d = cta::dot_block_bases(m2, n2, cta::dot_tiling(m2, n2, n));
    let loaded_a: Vec<[u64; 2]> = d.iter().map(|b| [b[0], 0]).collect();
    let loaded_b: Vec<[u64; 2]> = d.iter().map(|b| [0, b[1]]).collect();
    let (a, b) = match cfg.pattern {
        Pattern::ChainA => (p.clone(), loaded_b),
        _ => (loaded_a, p.clone()),
    };
    trace.note(|| {
        format!("P keeps the first dot's CTA split (block bases {p:?}); the second dot's result has {d:?}")
    });
    match cfg.arch {
        Arch::Sm100 if sites::tcgen05_operand_3_3::takes_v5_in(&c2, cfg.num_warps, cfg.triton) => {
            let ops = sites::tcgen05_cga::Operands {
                a: &a,
                b: &b,
                d: &d,
            };
            sites::run(&Event::Tcgen05Verify(&ops), cfg.triton, trace)
        }
        Arch::Sm90 if cfg.pattern == Pattern::ChainB => {
            let (_, mma2) = choose_chain_mmas(cfg, &c1, &c2);
            if mma2.version != 3 {
                return Ok(());
            }
            let bits = cfg.dtype.bits();
            // wgmma reads a 16-bit B N-major, others K-major; the buffer's
            // part per CTA decides its swizzle.
            let per_cta = [
                cfg.m >> p.iter().filter(|b| b[0] != 0).count(),
                cfg.n >> p.iter().filter(|b| b[1] != 0).count(),
            ];
            let (cols, rows) = if bits == 16 {
                (per_cta[1], per_cta[0])
            } else {
                (per_cta[0], per_cta[1])
            };
            let swizzled = buffer_swizzle(cols, rows, bits).is_some();
            if !cfg.triton.plans_ctas_of_every_dot() {
                // Up to 3.8 a chain stops at CTA planning first.
                return Ok(());
            }
            let event = Event::MmaOperandBuffer {
                bases: &p,
                n: cfg.n,
                instr_n: mma2.instr_n(),
                swizzled,
                reader: sites::mma_operand_cga::Reader::Wgmma,
            };
            sites::run(&event, cfg.triton, trace)
        }
        _ => Ok(()),
    }
}

/// The pattern's dots: the first, and a chain's second, O[M,X] = P[M,N] ·
/// C[N,X] (chain-a: P is operand A) or O[X,N] = D[X,M] · P[M,N] (chain-b:
/// P is operand B).
pub(super) fn pattern_dots(cfg: &Config) -> (DotShape, Option<DotShape>) {
    let dot = |m, n, k, chained| DotShape {
        m,
        n,
        k,
        dtype: cfg.dtype,
        chained,
    };
    let first = dot(cfg.m, cfg.n, cfg.k, cfg.pattern.is_chain());
    // `validate` guarantees a chain's x.
    let x = cfg.x.unwrap_or(0);
    let second = match cfg.pattern {
        Pattern::ChainA => Some(dot(cfg.m, x, cfg.n, false)),
        Pattern::ChainB => Some(dot(x, cfg.n, cfg.m, false)),
        _ => None,
    };
    (first, second)
}

/// Checks made before any layout exists (`semantic.py`): fp8e4nv needs
/// compute capability 89 or more, 8-bit dots need K ≥ 32 (3.1: int8 only;
/// 3.2: none), and 3.5 to 3.7 refuse an int32 accumulator with the default
/// `out_dtype`; `tl.gather` exists from 3.3.
fn frontend(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let dot = cfg.pattern.has_dot().then(|| {
        let (d1, d2) = pattern_dots(cfg);
        FrontEndDot {
            fp8e4nv: cfg.dtype == Dtype::Fp8e4nv,
            capability: cfg.arch.capability(),
            eight_bit: cfg.dtype.bits() == 8,
            int8: cfg.dtype == Dtype::Int8,
            min_k: d2.map_or(d1.k, |d2| d1.k.min(d2.k)),
            // After the size check, as in `dot`: the inductor kernel hands
            // `tl.dot` its accumulator, int32 for int8, and leaves
            // `out_dtype` at its default, float32.
            int32_acc: cfg.dtype == Dtype::Int8 && cfg.pattern == Pattern::Inductor3d,
        }
    });
    let front_end = FrontEnd {
        arch: cfg.arch,
        gather: cfg.pattern == Pattern::Gather,
        dot,
    };
    sites::run(&Event::FrontEnd(&front_end), cfg.triton, trace)
}

/// CTA planning, right after coalescing (`PlanCTA` up to 3.8,
/// `AssignCGALayouts` in 3.9): with more than one CTA, every dot is tiled
/// over the CTAs, and up to 3.8 a second dot fails.
fn plan_ctas(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    if cfg.num_ctas == 1 {
        return Ok(());
    }
    let (d1, d2) = pattern_dots(cfg);
    if cfg.pattern.has_dot() {
        trace.note(|| {
            let t = |d: &DotShape| {
                let [sm, sn] = cta::dot_tiling(d.m, d.n, cfg.num_ctas);
                format!(
                    "[{}x{}] tiled {sm}x{sn} over {} CTAs",
                    d.m, d.n, cfg.num_ctas
                )
            };
            match &d2 {
                Some(d2) => format!("CTA planning: dot 1 {}, dot 2 {}", t(&d1), t(d2)),
                None => format!("CTA planning: dot {}", t(&d1)),
            }
        });
    }
    let event = Event::PlanCtas {
        dots: cfg.pattern.dots(),
        num_ctas: cfg.num_ctas,
    };
    sites::run(&event, cfg.triton, trace)
}

/// `scan`: `tl.cumsum` along dim 0 of the loaded `[M, N]` tile, which
/// keeps the load's coalesced layout and the CGA the tile was first given.
fn scan(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let shape = [cfg.m, cfg.n];
    let bits = cfg.dtype.bits();
    let split = cta::initial_split(&shape, cfg.num_ctas);
    let blocked = cta::coalesced_with_ctas(&shape, 1, bits, cfg.num_warps, cfg.num_ctas);
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
    let scanned = ScanOperand {
        layout: &l,
        shape: &shape,
        split: &split.split,
        axis: 0,
        capability: cfg.arch.capability(),
    };
    sites::run(&Event::Scan(&scanned), cfg.triton, trace)
}

/// `gather`: `tl.gather` along dim 1 of the loaded `[M, N]` source by an
/// `[M, K]` index tensor; the thread-locality pass gives both one layout
/// with the source's CGA.
fn gather(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let cga = cta::initial_split(&[cfg.m, cfg.n], cfg.num_ctas).cga();
    let event = Event::Gather {
        rows: cfg.m,
        src: cfg.n,
        idx: cfg.k,
        num_warps: cfg.num_warps,
        lanes: cfg.arch.warp_size(),
        cga,
    };
    sites::run(&event, cfg.triton, trace)
}

fn describe(name: &str, dot: &DotShape, mma: &Mma, release: Release) -> String {
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

/// The contiguous extent of a wgmma operand held in shared memory: A is
/// K-contiguous; B is N-contiguous for 16-bit types, and is transposed to
/// K-contiguous otherwise (wgmma transposes only 16-bit operands).
fn contiguous(operand_b: bool, dot: &DotShape) -> u64 {
    if operand_b && dot.dtype.bits() == 16 {
        dot.n
    } else {
        dot.k
    }
}

/// The shared encodings of a v3 dot's operands that come from memory.
fn v3_operands(
    dot: &DotShape,
    a_from_shared: bool,
    cfg: &Config,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let bits = dot.dtype.bits();
    if a_from_shared {
        let event = Event::SharedOperand {
            name: "operand A",
            contiguous: contiguous(false, dot),
            bits,
        };
        sites::run(&event, cfg.triton, trace)?;
    }
    let event = Event::SharedOperand {
        name: "operand B",
        contiguous: contiguous(true, dot),
        bits,
    };
    sites::run(&event, cfg.triton, trace)
}

/// `dot`, `chain-a` and `chain-b`.
fn dots(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let release = cfg.triton;
    let (d1, d2) = per_cta_dots(cfg);
    let (mma1, mma2) = match &d2 {
        Some(d2) => {
            let (mma1, mma2) = choose_chain_mmas(cfg, &d1, d2);
            (mma1, Some(mma2))
        }
        None => (choose_mma(cfg, &d1), None),
    };
    trace.note(|| describe("dot 1", &d1, &mma1, release));
    let second = d2.zip(mma2);
    if let Some((d2, mma2)) = &second {
        trace.note(|| describe("dot 2", d2, mma2, release));
    }
    // AccelerateMatmul gives every wgmma dot's operands their shared
    // encodings before any lowering runs, so those checks come first.
    let in_registers = match &second {
        Some((_, mma2)) if cfg.pattern == Pattern::ChainA => a_stays_in_registers(&mma1, mma2, cfg),
        _ => false,
    };
    if mma1.version == 3 {
        v3_operands(&d1, true, cfg, trace)?;
    }
    if let Some((d2, mma2)) = &second {
        if mma2.version == 3 {
            v3_operands(d2, !in_registers, cfg, trace)?;
        }
    }
    // Then the lowering, in program order.
    v2_fp8_operands(&d1, &mma1, [true, true], false, cfg, trace)?;
    let Some((d2, mma2)) = second else {
        return Ok(());
    };
    match cfg.pattern {
        Pattern::ChainA => {
            v2_fp8_operands(&d2, &mma2, [false, true], false, cfg, trace)?;
            if mma1.version == 3 && !in_registers {
                store_p(cfg, &mma1, cfg.m, cfg.n, trace)?;
            } else {
                trace.note(|| "P reaches operand A through a convert_layout".to_string());
                // A v2 dot promotes fp8 operands to fp16 unless the target
                // has an fp8 `mma.sync` (`decomposeMixedModeDotOp`).
                let bits = if mma2.version == 2 && cfg.promoted_on_v2() {
                    16
                } else {
                    cfg.dtype.bits()
                };
                let p = sites::accumulator_to_v2::PConversion {
                    bits,
                    producer: &mma1,
                    consumer: &mma2,
                    rows: cfg.m,
                    cols: cfg.n,
                };
                let event = Event::AccumulatorToOperand {
                    p: &p,
                    same_attr: true,
                };
                sites::run(&event, cfg.triton, trace)?;
            }
        }
        Pattern::ChainB => {
            v2_fp8_operands(&d2, &mma2, [true, false], false, cfg, trace)?;
            if mma2.version == 3 {
                store_p(cfg, &mma1, cfg.m, cfg.n, trace)?;
            } else {
                trace.note(|| "P goes to dot 2 through a swizzled shared buffer (MMA v2 operand: no stmatrix)".to_string());
            }
        }
        _ => {}
    }
    if cfg.num_ctas > 1 {
        chain_operand_cgas(cfg, trace)?;
    }
    Ok(())
}

/// The fp8 → fp16 promotion of an MMA v2 dot's operands that come straight
/// from a load (`loaded` = [A, B]); an operand computed by the first dot is
/// promoted where it is produced, on the accumulator's layout. With
/// `reshaped`, the loaded operands reach the dot through `tt.reshape`.
fn v2_fp8_operands(
    dot: &DotShape,
    mma: &Mma,
    loaded: [bool; 2],
    reshaped: bool,
    cfg: &Config,
    trace: &mut Trace,
) -> Result<(), Failure> {
    if mma.version != 2 || !cfg.promoted_on_v2() {
        return Ok(());
    }
    let operands = [
        ("operand A", true, dot.m, dot.k),
        ("operand B", false, dot.k, dot.n),
    ];
    for ((name, is_a, rows, cols), from_load) in operands.into_iter().zip(loaded) {
        if !from_load {
            continue;
        }
        let op = sites::fp8_promotion::Operand {
            name,
            is_a,
            rows,
            cols,
            k: dot.k,
            warps: mma.warps,
            num_warps: cfg.num_warps,
            reachable_from_load: !reshaped,
        };
        sites::run(&Event::Fp8Promotion(&op), cfg.triton, trace)?;
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
    if cfg.triton.keeps_v3_operand_a_by_pattern() {
        mma1.warps[1] == 1 && matches!(cfg.dtype.bits(), 8 | 16)
    } else {
        true
    }
}

/// `local_alloc` of P (the first dot's accumulator, cast to the dtype) into
/// the NVMMA shared layout of a Hopper operand. Lowering it asks for the
/// accumulator's linear layout, which is where 3.1's Hopper conversion
/// asserts on instruction N = 8.
fn store_p(
    cfg: &Config,
    mma1: &Mma,
    rows: u64,
    cols: u64,
    trace: &mut Trace,
) -> Result<(), Failure> {
    if !cfg.triton.lowers_with_linear_layouts() && mma1.version == 3 {
        // 3.1 asks for the accumulator's linear layout to address it.
        sites::mma_layout(&mma1.attr(), [rows, cols], cfg.triton, trace)?;
    }
    let bits = cfg.dtype.bits();
    let swizzle = nvmma_swizzle(cols, bits).unwrap_or(0);
    trace.note(|| {
        format!("local_alloc P [{rows}x{cols}] {} into an NVMMA shared buffer with a {swizzle}-byte swizzle", cfg.dtype.name())
    });
    let store = sites::stmatrix::Store {
        mma: mma1,
        rows,
        cols,
        bits,
        swizzle,
    };
    sites::run(&Event::AccumulatorStore(&store), cfg.triton, trace)
}

/// triton #5882's pattern: rank-3 loads pipelined into shared memory and
/// read back for the dot.
///
/// Up to 3.2 the pipeliner stages the rank-3 lhs load with a generic shared
/// layout when it feeds an MMA v2 dot (wgmma loads are not staged that way)
/// and the load is at least 32 bits wide per thread; reading it back is a
/// rank-3 `local_load` (the rhs, with a size-1 dim, is never staged). The
/// `pre-5905` development build stages both loads with cp.async into
/// buffers reordered the old way ([`staged_copy`]).
///
/// The dot's own sites are those of `dot`, with one difference: its fp8
/// operands reach it through `tt.reshape`, so on MMA v2 their promotion
/// stays on the dot operand whatever the loads cost (see
/// [`sites::fp8_promotion`]).
fn inductor(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    inductor_ctas(cfg, trace)?;
    let (d, _) = pattern_dots(cfg);
    let mma = choose_mma(cfg, &d);
    trace.note(|| describe("dot", &d, &mma, cfg.triton));
    if mma.version == 3 {
        // Both operands are loaded and go through shared memory, laid out
        // as in `dot` (see `contiguous`).
        v3_operands(&d, true, cfg, trace)?;
    }
    // Contiguous elements per thread of the coalesced lhs load [1, M, K].
    let bits = cfg.dtype.bits();
    let per_thread = coalesced_load(&[1, cfg.m, cfg.k], 2, bits, cfg.num_warps).size_per_thread[2];
    let wide = per_thread * bits >= 32;
    trace.note(|| {
        format!(
            "lhs load: {per_thread} contiguous element(s) per thread ({} bits)",
            per_thread * bits
        )
    });
    if cfg.num_stages >= 2 && mma.version != 3 && wide {
        trace.note(|| {
            "the pipeliner stages the rank-3 lhs load in shared memory with a generic layout and reads it back with a rank-3 local_load"
                .to_string()
        });
        let event = Event::LocalLoad {
            rank: 3,
            into_dot_operand: false,
        };
        sites::run(&event, cfg.triton, trace)?;
    }
    // Both operands come from 3-D loads through `tt.reshape`.
    v2_fp8_operands(&d, &mma, [true, true], true, cfg, trace)?;
    if cfg.variant == Some(Variant::Pre5905) && cfg.num_stages >= 2 && mma.version != 3 {
        staged_copy("lhs", &[1, cfg.m, cfg.k], 2, cfg, trace)?;
        staged_copy("rhs", &[cfg.n, 1, cfg.k], 0, cfg, trace)?;
    }
    Ok(())
}

/// The swizzle `NVMMASharedEncodingAttr::get` gives a CTA's part of an
/// operand buffer with `cols` contiguous elements and `rows` rows (3.4 on):
/// none below 8 rows, else the widest of 128, 64 and 32 bytes that the
/// row's bytes are a multiple of.
fn buffer_swizzle(cols: u64, rows: u64, bits: u64) -> Option<u64> {
    if rows < 8 {
        None
    } else {
        nvmma_swizzle(cols, bits)
    }
}

/// `inductor-3d` with several CTAs. CTA planning tiles the dot and its
/// operands over the CTAs, and leaves the rest alone: the loads keep the
/// CGA they were first given ([`cta::initial_split`], rows of their first
/// dim first), and so do the reshaped and transposed operands built from
/// them and the store. Up to 3.7 a value moved between two CGAs is not
/// lowered; from 3.6 (3.5 on sm100) an MMA's operand B is stored to shared
/// memory in its producer's CGA and read from there; 3.8 verifies a
/// tcgen05 op's CGAs; 3.9 reloads loaded operands in the dot's CGA.
fn inductor_ctas(cfg: &Config, trace: &mut Trace) -> Result<(), Failure> {
    let release = cfg.triton;
    if cfg.num_ctas == 1 || !release.models_multi_cta() || release.plans_ctas_of_every_dot() {
        return Ok(());
    }
    let (m, n, k, c) = (cfg.m, cfg.n, cfg.k, cfg.num_ctas);
    let tiling = cta::dot_tiling(m, n, c);
    let [sm, sn] = tiling;
    let pair = |v: Vec<u64>, i: usize, j: usize| [v[i], v[j]];
    let acc: Vec<[u64; 2]> = cta::dot_block_bases(m, n, tiling);
    let lhs_split = cta::initial_split(&[1, m, k], c);
    let a_src: Vec<[u64; 2]> = cta::split_bases(&lhs_split, &[1, m, k])
        .into_iter()
        .map(|b| pair(b, 1, 2))
        .collect();
    let rhs_split = cta::initial_split(&[n, 1, k], c);
    let b_src: Vec<[u64; 2]> = cta::split_bases(&rhs_split, &[n, 1, k])
        .into_iter()
        .map(|b| pair(b, 2, 0))
        .collect();
    // The dot's operands: its CGA with K broadcast.
    let a_dot: Vec<[u64; 2]> = acc.iter().map(|b| [b[0], 0]).collect();
    let b_dot: Vec<[u64; 2]> = acc.iter().map(|b| [0, b[1]]).collect();
    let (d, _) = per_cta_dots(cfg);
    let bits = cfg.dtype.bits();
    trace.note(|| {
        format!(
            "CTA planning tiles the dot {sm}x{sn}; the reshaped lhs keeps block bases {a_src:?}, the transposed rhs {b_src:?}"
        )
    });
    let mma = choose_mma(cfg, &d);
    let v5 = cfg.arch == Arch::Sm100
        && sites::tcgen05_operand_3_3::takes_v5_in(&d, cfg.num_warps, release);
    let v3 = !v5 && mma.version == 3;
    // Operand B in shared memory, in its producer's CGA: contiguous along N
    // for 16-bit types (and for tcgen05 where the transpose keeps its
    // order), along K otherwise.
    let per_cta_b = [k / rhs_split.split[2].max(1), n / rhs_split.split[0].max(1)];
    let (b_cols, b_rows) = if bits == 16 || (v5 && release.fused_transpose_keeps_order()) {
        (per_cta_b[1], per_cta_b[0])
    } else {
        (per_cta_b[0], per_cta_b[1])
    };
    let swizzled = buffer_swizzle(b_cols, b_rows, bits).is_some();
    let instr_n = if v5 { d.n.min(256) } else { mma.instr_n() };
    let reader = if v5 {
        sites::mma_operand_cga::Reader::Tcgen05
    } else {
        sites::mma_operand_cga::Reader::Wgmma
    };
    if release == Release::V3_8 {
        if v5 {
            let ops = sites::tcgen05_cga::Operands {
                a: &a_src,
                b: &b_src,
                d: &acc,
            };
            sites::run(&Event::Tcgen05Verify(&ops), release, trace)?;
        }
        if v3 {
            let event = Event::MmaOperandBuffer {
                bases: &b_src,
                n,
                instr_n,
                swizzled,
                reader,
            };
            sites::run(&event, release, trace)?;
        }
        return Ok(());
    }
    // 3.4 to 3.7: first the passes, then the lowering in program order.
    // A load the pipeliner stages (two stages or more, 4 bytes a thread)
    // reaches the dot through a `local_load` of its buffer, in the load's
    // CGA; the others through a `convert_layout`.
    let staged = |shape: &[u64; 3], contig: usize| {
        let l = cta::coalesced_with_ctas(shape, contig, bits, cfg.num_warps, c);
        cfg.num_stages >= 2 && l.size_per_thread[contig] * bits >= 32
    };
    let (a_staged, b_staged) = (staged(&[1, m, k], 2), staged(&[n, 1, k], 0));
    let block_m = d.m.min(128);
    let promoted = sites::tmem_lhs_cta::promotes(bits, release);
    if v5 && promoted {
        let split = [lhs_split.split[1], lhs_split.split[2]];
        let event = Event::TmemLhs {
            rows: m,
            k,
            split,
            block_m,
        };
        sites::run(&event, release, trace)?;
    }
    // A load cheap enough to load again is rematerialized by
    // RemoveLayoutConversions in the layout the register operand asks for,
    // back through `tt.reshape`: A then starts in the dot's CGA and nothing
    // moves it between CTAs. A staged load is still read from its buffer
    // in the CGA it was first given.
    let a_elements = m.saturating_mul(k);
    let a_reloaded =
        !v5 && !a_staged && cheap_to_reload(a_elements, cfg.num_warps, cfg.arch.warp_size());
    if a_reloaded {
        trace.note(|| {
            format!(
                "operand A: the lhs load ({a_elements} elements, fewer than the CTA's threads) is loaded again in the dot operand's layout, block bases {a_dot:?}"
            )
        });
    } else if !v5 {
        let event = Event::CrossCta {
            what: "operand A (the reshaped lhs load)",
            from: &a_src,
            to: &a_dot,
            from_shared: a_staged,
        };
        sites::run(&event, release, trace)?;
    }
    if v5 {
        // The accumulator's zero is stored to tensor memory before the loop
        // (`tmem_store`), ahead of everything the loop lowers.
        sites::run(&Event::TmemAccumulator { tiling }, release, trace)?;
    }
    // A tcgen05 operand A left in shared memory (8-bit from 3.5) is read
    // from its buffer in its producer's CGA, A's loader built before B's.
    let a_in_buffer = v5 && !promoted && (a_staged || release.stores_operand_b_in_producer_cga(v5));
    if a_in_buffer {
        let operand = tcgen05_operand_a(&a_src, [m, k], block_m, m / sm, bits);
        let event = Event::MmaOperandLoader {
            operands: std::slice::from_ref(&operand),
            reader,
        };
        sites::run(&event, release, trace)?;
    }
    // An MMA reads a staged operand B straight from its buffer; from 3.6
    // (3.5 for tcgen05) AccelerateMatmul also stores an unstaged one in its
    // producer's CGA.
    let b_in_buffer = (v5 || v3) && (b_staged || release.stores_operand_b_in_producer_cga(v5));
    if b_in_buffer {
        let event = Event::MmaOperandBuffer {
            bases: &b_src,
            n,
            instr_n,
            swizzled,
            reader,
        };
        sites::run(&event, release, trace)?;
    } else {
        let event = Event::CrossCta {
            what: "operand B (the transposed rhs load)",
            from: &b_src,
            to: &b_dot,
            from_shared: b_staged,
        };
        sites::run(&event, release, trace)?;
    }
    // The result, transposed, to the store's CGA (its first dim, N, split).
    let store_split = cta::initial_split(&[n, m, 1], c);
    let store: Vec<[u64; 2]> = cta::split_bases(&store_split, &[n, m, 1])
        .into_iter()
        .map(|b| pair(b, 0, 1))
        .collect();
    let result: Vec<[u64; 2]> = acc.iter().map(|b| [b[1], b[0]]).collect();
    let event = Event::CrossCta {
        what: "the transposed result",
        from: &result,
        to: &store,
        from_shared: false,
    };
    sites::run(&event, release, trace)
}

/// A tcgen05 dot's operand A (`shape`: `[M, K]`, contiguous along K) in a
/// buffer whose CGA `block` bases are `bases`, as `convertMMAv5` walks it:
/// instructions `block_m` rows by 256 bits deep, over the dot's `per_cta_m`
/// rows and the whole K.
fn tcgen05_operand_a(
    bases: &[[u64; 2]],
    shape: [u64; 2],
    block_m: u64,
    per_cta_m: u64,
    bits: u64,
) -> sites::mma_operand_cga::Operand {
    let split = |d: usize| bases.iter().filter(|b| b[d] != 0).count();
    let part = [shape[0] >> split(0), shape[1] >> split(1)];
    let mma_k = 256 / bits.max(1);
    sites::mma_operand_cga::Operand {
        is_a: true,
        bases: bases.to_vec(),
        instr: [block_m, mma_k],
        step: [block_m, mma_k],
        extent: [per_cta_m, shape[1]],
        swizzled: buffer_swizzle(part[1], part[0], bits).is_some(),
        core_matrix: sites::mma_operand_cga::holds_core_matrix(part, 1, bits),
    }
}

/// The `pre-5905` build's copy of one rank-3 load into its pipeline buffer:
/// the load's coalesced blocked layout (contiguous along `contig`), a
/// `(1, 1, 1)` swizzled buffer whose order moves dim 0 last, and 3.3's
/// cp.async lowering of the two. A load narrower than 32 bits per thread is
/// not pipelined (the width filter the pipeliner had since 3.1).
fn staged_copy(
    name: &str,
    shape: &[u64; 3],
    contig: usize,
    cfg: &Config,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let bits = cfg.dtype.bits();
    let blocked = coalesced_load(shape, contig, bits, cfg.num_warps);
    let per_thread = blocked.size_per_thread[contig];
    if per_thread * bits < 32 {
        trace.note(|| format!("{name} load: {per_thread} × {bits} bits per thread, not pipelined"));
        return Ok(());
    }
    let order = staged_order_before_5905(&blocked.order);
    let swizzled = SwizzledShared {
        vec: 1,
        per_phase: 1,
        max_phase: 1,
        order,
        cga: None,
        has_leading_offset: None,
    };
    let shared = Attr::SwizzledShared(swizzled.clone());
    // The layouts are valid by construction: a refusal is our converter's,
    // traced, and nothing is claimed about Triton.
    let blocked_attr = Attr::Blocked(blocked.clone());
    let what = || format!("{name} load (pipelined copy not modelled)");
    let Some(regs) = sites::converted(&blocked_attr, shape, cfg.triton, None, trace, what)? else {
        return Ok(());
    };
    let Some(smem) = sites::converted(&shared, shape, cfg.triton, Some(bits), trace, what)? else {
        return Ok(());
    };
    trace.layout(
        || {
            format!(
                "{name} load {shape:?}: coalesced blocked layout, order {:?}",
                blocked.order
            )
        },
        &regs,
    );
    let order = &swizzled.order;
    trace.note(|| format!("{name} staged in shared memory with order {order:?} (dim 0 moved last, before PR #5905)"));
    let copy =
        sites::cp_async::AsyncCopy::coalesced(&regs, Some(&smem), shape, contig, &swizzled, bits);
    sites::run(&Event::AsyncCopy(&copy), cfg.triton, trace)
}
