//! An 8-bit `convert_layout` lowered inside a warp (shuffles and byte
//! permutes, no shared memory), which Triton 3.5–3.7 get wrong: elements
//! land in the wrong bytes of the destination registers. A miscompile: the
//! kernel compiles and computes misplaced values
//! (`notes/findings/gpu-8bit-convert.md`).
//!
//! From 3.5, a conversion whose minimal form (`minimalCvtLayout`) moves
//! data across lanes and registers but not warps takes the warp-shuffle
//! path (`cvtNeedsWarpShuffle`) when its permutation of hardware index bits
//! factors with fewer than two mixed register ↔ lane transpositions. Before
//! shuffling, `transferWithinWarp` packs sub-32-bit elements into 32-bit
//! registers (`getWarpLayoutConvertDecomposition` with the element width:
//! `nPack` = 2 low register bits for 8-bit elements, triton-lang/triton
//! #7558), and folds the permutation of those low bits into byte-permute
//! (`prmt`) selectors (`getTranspositionSelectors`, #7809 / #7933 / #8155).
//! Every wrong element recorded on the H100 is explained by one low-bit
//! permutation left undone: the destination's register bits 0 and 1 (the
//! byte inside a packed register) come out swapped.
//!
//! The model replays the decomposition (`P_reg`, the mixed
//! transpositions, `nPack`) and flags an 8-bit conversion with exactly one
//! mixed transposition whose `P_reg` has a cycle of low bits alone, away
//! from the transposition's register bit (`unabsorbed_low_cycle`). That
//! last rule is not read off `getTranspositionSelectors` (its selector
//! arithmetic is not replayed): it is the property that separates the
//! conformance campaigns' wrong 8-bit conversions from the 4,487 right
//! modules of campaigns b and c (`notes/findings/gpu-8bit-convert.md`,
//! `tests/gpu_findings.rs`). 3.4 (no shuffle path for
//! these: they go through shared memory) and 3.8 (triton-lang/triton#9680,
//! "Fix warp shuffle lowering of complex convert_layouts", is the likely
//! fix) compute the right values; measured on the H100 and in `ptxemu` for
//! 3.4.0–3.9.0.

use super::Failure;
use crate::layout_cvt::within_warp;
use crate::release::Span;
use crate::{Change, Ending, Location, Release, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::utils::action_remove_broadcasted_regs;

/// Where the wrong byte permutes are emitted, 3.5–3.7.
static PACKED_SHUFFLE: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_8),
    ending: Ending::Miscompile,
    function: "transferWithinWarp, getTranspositionSelectors",
    file: "lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp",
    line: None,
    message: "",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "convert_8bit_shuffle",
    kind: SiteKind::Bug,
    title: "an 8-bit layout conversion within a warp, packed four to a register and shuffled, that misplaces bytes",
    locations: &[&PACKED_SHUFFLE],
    changes: &[Change {
        release: Release::V3_8,
        pr: None,
        what: "the warp-shuffle conversion of packed sub-32-bit elements computes the right values (likely triton-lang/triton#9680, not bisected)",
    }],
    workaround: "convert 8-bit tensors as 32-bit integers: x.to(tl.uint8, bitcast=True).to(tl.int32), convert, then .to(tl.uint8).to(x.dtype, bitcast=True)",
};

/// What converting `bits`-wide elements from `src` to `dst` computes
/// wrongly in `release`, if anything. Layouts our algebra refuses, or whose
/// permutation is not one Triton's decomposition reads (see
/// `decompose`), are no finding.
pub(crate) fn convert(
    src: &LinearLayout,
    dst: &LinearLayout,
    bits: u64,
    release: Release,
) -> Result<(), Failure> {
    if !SITE.fails_in(release) || bits != 8 {
        return Ok(());
    }
    // The shuffle path: data moves across lanes, not warps or blocks.
    if within_warp(src, dst).is_none() {
        return Ok(());
    }
    let Some(d) = decompose(src, dst) else {
        return Ok(());
    };
    if d.mixed.len() != 1 {
        // Two or more mixed transpositions go through shared memory; none
        // needs no select, and every such 8-bit conversion of the
        // campaigns (3.6 on the H100) was right.
        return Ok(());
    }
    // Four 8-bit elements to a register: the two low register bits.
    let n_pack = 2.min(d.p_reg.len().saturating_sub(d.mixed.len()));
    let Some(lost) = unabsorbed_low_cycle(&d, n_pack) else {
        return Ok(());
    };
    Err(Failure::at(
        &SITE,
        &PACKED_SHUFFLE,
        release,
        format!(
            "8-bit elements packed four to a register and shuffled within the warp; the \
             register permutation's cycle {lost:?} moves a byte inside the packed registers \
             but holds no register bit of the shuffle's transposition, so no byte permute \
             carries it out"
        ),
    ))
}

/// Triton's factorisation of a conversion within a warp (3.5–3.7's
/// `getWarpLayoutConvertDecomposition`): the permutation of (register,
/// lane) index bits as `P_mixed ∘ P_lane ∘ P_reg`.
struct Decomposition {
    /// `P_reg`: register bit `i` goes to register bit `p_reg[i]`.
    p_reg: Vec<usize>,
    /// The mixed transpositions `(register bit, lane bit)`.
    mixed: Vec<(usize, usize)>,
}

/// A hardware index bit.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Bit {
    Reg(usize),
    Lane(usize),
}

/// Each (register, lane) basis of `l` without its broadcast registers, as
/// one flat element word, padded with zeros to `regs` and `lanes` bases.
fn columns(l: &LinearLayout, regs: usize, lanes: usize) -> Option<Vec<u64>> {
    let l = action_remove_broadcasted_regs(l).ok()?.apply(l).ok()?;
    let outs: Vec<Dim> = l.out_dim_names().collect();
    let flat = l
        .sublayout(&[Dim::REGISTER, Dim::LANE], &outs)
        .ok()?
        .flatten_outs()
        .ok()?;
    let dim = |d: Dim, n: usize| -> Option<Vec<u64>> {
        let have = flat.in_dim_size_log2(d).ok()? as usize;
        if have > n {
            return None;
        }
        let mut v: Vec<u64> = (0..have)
            .map(|i| flat.basis(d, i).ok().map(|b| b[0]))
            .collect::<Option<_>>()?;
        v.resize(n, 0);
        Some(v)
    };
    let mut cols = dim(Dim::REGISTER, regs)?;
    cols.extend(dim(Dim::LANE, lanes)?);
    Some(cols)
}

/// The register and lane bases of `l` without broadcast registers.
fn sizes(l: &LinearLayout) -> Option<(usize, usize)> {
    let l = action_remove_broadcasted_regs(l).ok()?.apply(l).ok()?;
    Some((
        l.in_dim_size_log2(Dim::REGISTER).ok()? as usize,
        l.in_dim_size_log2(Dim::LANE).ok()? as usize,
    ))
}

/// The decomposition, where both layouts map each (register, lane) bit to
/// one element bit or none (Triton's "subpermutation" reading; a layout
/// whose bases XOR element bits is left alone: `None`).
fn decompose(src: &LinearLayout, dst: &LinearLayout) -> Option<Decomposition> {
    let ((sr, sl), (tr, tl)) = (sizes(src)?, sizes(dst)?);
    let (regs, lanes) = (sr.max(tr), sl.max(tl));
    let (s, t) = (columns(src, regs, lanes)?, columns(dst, regs, lanes)?);
    if s.iter().chain(&t).any(|c| c.count_ones() > 1) {
        return None;
    }
    let bit = |k: usize| {
        if k < regs {
            Bit::Reg(k)
        } else {
            Bit::Lane(k - regs)
        }
    };
    // P maps a source bit to the destination bit holding the same element
    // bit (`invertAndCompose`); bits both layouts leave at zero stay put,
    // the other zeros are paired in order, registers first.
    let mut p: Vec<Option<usize>> = s
        .iter()
        .map(|&v| (v != 0).then(|| t.iter().position(|&w| w == v)).flatten())
        .collect();
    if s.iter().zip(&p).any(|(&v, q)| v != 0 && q.is_none()) {
        return None;
    }
    let (mut src_free, mut dst_free) = (Vec::new(), Vec::new());
    for k in 0..s.len() {
        match (s[k] == 0, t[k] == 0) {
            (true, true) => p[k] = Some(k),
            (true, false) => src_free.push(k),
            (false, true) => dst_free.push(k),
            (false, false) => {}
        }
    }
    for (a, b) in src_free.into_iter().zip(dst_free) {
        p[a] = Some(b);
    }
    let p: Vec<usize> = p.into_iter().collect::<Option<_>>()?;
    let mut seen = vec![false; p.len()];
    if p.iter().any(|&q| std::mem::replace(&mut seen[q], true)) {
        return None;
    }
    // Walk the cycles, slicing each run of lane bits between two register
    // bits out as one mixed transposition, as Triton does.
    let mut p_reg: Vec<usize> = (0..regs).collect();
    let mut mixed = Vec::new();
    let mut visited = vec![false; p.len()];
    for entry in 0..p.len() {
        if visited[entry] {
            continue;
        }
        let (mut reg_start, mut lane_start) = (None, None);
        let mut curr = entry;
        loop {
            visited[curr] = true;
            let next = p[curr];
            match (bit(curr), bit(next)) {
                (Bit::Reg(a), Bit::Reg(b)) => p_reg[a] = b,
                (Bit::Lane(_), Bit::Lane(_)) => {}
                (Bit::Reg(a), Bit::Lane(l)) => {
                    reg_start = Some(a);
                    lane_start = Some(l);
                }
                (Bit::Lane(_), Bit::Reg(r)) => {
                    if let (Some(a), Some(l)) = (reg_start.take(), lane_start.take()) {
                        p_reg[a] = r;
                        mixed.push((r, l));
                    }
                }
            }
            curr = next;
            if curr == entry {
                break;
            }
        }
    }
    Some(Decomposition { p_reg, mixed })
}

/// A cycle of `P_reg` made of the `n_pack` low register bits alone (bytes
/// swapped inside each packed register) that holds no register bit of the
/// mixed transposition. `getTranspositionSelectors` folds low bits into the
/// byte permutes around the shuffle along the cycles it walks from the
/// transposition's register bit, and then sets them to fixed points of
/// `P_reg`; a cycle of low bits only, away from that walk, is what every
/// wrong conversion recorded on the H100 has (`P_reg` = (r0 r1), the
/// transposition on r2) and what none of the right ones has (their cycles
/// through low bits also hold a high bit, which `P_reg` moves as whole
/// registers).
fn unabsorbed_low_cycle(d: &Decomposition, n_pack: usize) -> Option<Vec<usize>> {
    let paired: Vec<usize> = d.mixed.iter().map(|&(r, _)| r).collect();
    (0..n_pack).find_map(|low| {
        let mut cycle = vec![low];
        let mut next = *d.p_reg.get(low)?;
        while next != low && cycle.len() <= d.p_reg.len() {
            cycle.push(next);
            next = *d.p_reg.get(next)?;
        }
        let low_only = cycle.iter().all(|&b| b < n_pack);
        (cycle.len() > 1 && low_only && !cycle.iter().any(|b| paired.contains(b))).then_some(cycle)
    })
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        // An 8-bit conversion, which 3.5–3.7 shuffle within a warp.
        let super::Event::Op(op) = event else {
            return Ok(());
        };
        if op.name != "convert_layout" {
            return Ok(());
        }
        let (Some((shape, ty, src)), Some(dst)) = (op.tensor.as_ref(), op.result.as_ref()) else {
            return Ok(());
        };
        if crate::finder::op::bits_of(ty) != 8 {
            return Ok(());
        }
        let layout = |enc: &str| {
            crate::to_linear_layout(&op.attr(enc)?, shape, release, None)
                .ok()
                .and_then(crate::Conversion::layout)
        };
        match (layout(src), layout(dst)) {
            (Some(src), Some(dst)) => convert(&src, &dst, 8, release),
            _ => Ok(()),
        }
    }
}
