//! Reading an MMA operand from shared memory when its buffer is split among
//! CTAs differently from the dot (`num_ctas > 1`).
//!
//! `AccelerateMatmul` builds the NVMMA buffer of an operand with the CGA of
//! the value it comes from; the lowering (`DotOpMmaSmemLoader` in
//! `MMAHelpers.h`, used by wgmma and tcgen05) then addresses the buffer
//! through its linear layout with a `block` dim, one CTA's part at a time:
//!
//! - 3.5's loader (`DotOpMmaV3SmemLoader`, also used by tcgen05) handles
//!   an unswizzled buffer only as a `K × 16`-byte operand B and asserts so
//!   when a CTA's part is narrower than the instruction; a swizzled buffer
//!   is read without a check, and the kernel fails later;
//! - 3.6's generic descriptor (PRs #8321, #8378) finds no NVMMA tile that
//!   factors a CTA's part: "Failed to find a valid layout", a fatal error;
//! - 3.7 and later diagnose it ("failed to find valid wgmma layout", or
//!   tcgen05's), except that 3.8 and 3.9 assert `getReps` first in a
//!   swizzled buffer, and 3.9's `smemLoad` asserts `block == 0` when one of
//!   the instruction's K steps lies in another CTA's part (B split along K:
//!   chain-b, whose P comes from a first dot that splits M);
//! - for tcgen05 from 3.8, a part of 8 one-byte columns (less than one
//!   16-byte core matrix row) has no layout at all.
//!
//! In a TTGIR module ([`loader`]) the same walk is read off the dot op: the
//! loader of each operand held in shared memory is built over the whole
//! buffer (`toLinearLayoutWithPow2Shape(memTy).pseudoinvert()`: element
//! coordinates to `(offset, block)`), operand A's first, then B's; then
//! the loop asks for a descriptor at each instruction's origin, `(m ·
//! mmaSizeM, k · instrK)` for A and `(k · instrK, n · mmaSizeN)` for B, over
//! the dot's part per CTA and the whole K (`WGMMA.cpp` `convertDot`). A CGA
//! basis of the buffer inside one instruction's tile leaves the descriptor
//! without a layout (3.6: the fatal error; 3.7: the diagnostic, for A or B;
//! 3.8 on: `getReps` where a CTA's part holds a core matrix of 8 rows of 16
//! bytes for `getNvmmaSmemAttrs` to find, the diagnostic otherwise; 3.5:
//! only an unswizzled buffer asserts); a basis at an origin the loop visits
//! puts that instruction in another CTA's part, which `smemLoad` asserts
//! against from 3.7 (3.5 and 3.6 do not check). Measured on the 3.5.1 to
//! 3.9.0 wheels with the op-level `wgmma_cga` modules (60 per release, all
//! agreeing; `op_level.py`).
//!
//! Measured on the 3.5.1 to 3.9.0 wheels: `inductor-3d`, whose operand B is
//! the transposed load in the load's own CGA, chain-b on sm90 (3.9) and fp8
//! `dot`s on sm100 (3.8, 3.9), with 2 and 4 CTAs
//! (`tests/data/compile/ctas-*`; the CTA report's `model39.py` agrees with
//! all 150 chains of its grids). Up to 3.8 chained kernels with several CTAs
//! stop at CTA planning first. tcgen05's operand A reaches the loader too
//! where `PromoteLHSToTMem` leaves it in shared memory (8-bit types on 3.5
//! to 3.7, see `tmem_lhs_cta`): `inductor-3d`'s A keeps its load's split of
//! M, inside the `blockM`-row instruction when the dot tiles N, and 3.6 and
//! 3.7 find no layout for it (`tests/data/compile/tmem-lhs-*`, issue 35).
//!
//! 3.4 to 3.6 give a tcgen05 dot split `[2, 1]` among two CTAs, operand B
//! straight from a load, to the pair (`canUseTwoCTAs`,
//! [`crate::finder::cta::two_cta_mma`]), and split B along N between them
//! on purpose. 3.5's loader still reads B with the whole instruction's N
//! (`{mmaSizeN, mmaSizeK}`, `v3.5.1:…/DotOpToLLVM/MMAv5.cpp:463`), the
//! partner's half inside it: an unswizzled half (16 bytes: an 8-bit B with
//! N = 32) meets the assertion. 3.4's loader has no check, and 3.6 reads
//! half the instruction ([`two_cta_b_instr_n`]). Measured: `dot` on sm100
//! with 1, 2 and 4 CTAs on 3.4.0 to 3.7.1 (`tests/data/compile/two-cta-*`).

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Ending, Location, Site, SiteKind};
use linear_layout::{Dim, LinearLayout};

const HELPERS: &str = "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAHelpers.h";

static UNSWIZZLED_3_5: Location = Location {
    releases: Span::only(Release::V3_5),
    ending: Ending::Assertion,
    function: "DotOpMmaV3SmemLoader::smemLoad",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/WGMMA.cpp",
    line: Some(164),
    message: "Assertion `a == 0 && instrShape[0] * elemBits == 16 * 8 && \"Currently expect that unswizzled case only happens for \" \"rhs <Kx16> cases and the inner dimension is 16bytes.\"' failed.",
};
static NO_LAYOUT_3_6: Location = Location {
    releases: Span::only(Release::V3_6),
    ending: Ending::FatalError,
    function: "DotOpMmaSmemLoader::getDescriptor",
    file: HELPERS,
    line: None,
    message: "LLVM ERROR: Failed to find a valid layout",
};
static REPS_3_8: Location = Location {
    releases: Span::only(Release::V3_8),
    ending: Ending::Assertion,
    function: "DotOpMmaSmemLoader::getDescriptor",
    file: HELPERS,
    line: Some(261),
    message: "Assertion `getReps(ll, shmemTileInv).has_value()' failed.",
};
static BLOCK_ZERO_3_7: Location = Location {
    releases: Span::only(Release::V3_7),
    ending: Ending::Assertion,
    function: "DotOpMmaSmemLoader::smemLoad",
    file: HELPERS,
    line: Some(170),
    message: "Assertion `block == 0' failed.",
};
static BLOCK_ZERO: Location = Location {
    releases: Span::since(Release::V3_8),
    ending: Ending::Assertion,
    function: "DotOpMmaSmemLoader::smemLoad",
    file: HELPERS,
    line: Some(171),
    message: "Assertion `block == 0' failed.",
};
static REPS: Location = Location {
    releases: Span::since(Release::V3_9),
    ending: Ending::Assertion,
    function: "DotOpMmaSmemLoader::getDescriptor",
    file: HELPERS,
    line: Some(280),
    message: "Assertion `getReps(ll, shmemTileInv).has_value()' failed.",
};
static WGMMA_LAYOUT: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "convertWGMMA (DotOpMmaSmemLoader::build)",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/WGMMA.cpp",
    line: None,
    message: "error: failed to find valid wgmma layout for operand B in shared memory",
};
static WGMMA_LAYOUT_A: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "convertWGMMA (DotOpMmaSmemLoader::build)",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/WGMMA.cpp",
    line: None,
    message: "error: failed to find valid wgmma layout for operand A in shared memory",
};
static TCGEN05_LAYOUT_A: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "convertMMAv5 (DotOpMmaSmemLoader::build)",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv5.cpp",
    line: None,
    message: "error: failed to find valid tcgen05.mma layout for operand A in shared memory",
};
static TCGEN05_LAYOUT: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::Diagnostic,
    function: "convertMMAv5 (DotOpMmaSmemLoader::build)",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv5.cpp",
    line: None,
    message: "error: failed to find valid tcgen05.mma layout for operand B in shared memory",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "mma_operand_cga",
    kind: SiteKind::Bug,
    title: "an MMA operand read from a shared buffer split among CTAs differently from its dot (num_ctas > 1)",
    locations: &[
        &UNSWIZZLED_3_5,
        &NO_LAYOUT_3_6,
        &REPS_3_8,
        &BLOCK_ZERO_3_7,
        &BLOCK_ZERO,
        &REPS,
        &WGMMA_LAYOUT_A,
        &WGMMA_LAYOUT,
        &TCGEN05_LAYOUT_A,
        &TCGEN05_LAYOUT,
    ],
    changes: &[],
    workaround: "num_ctas=1, or tiles whose producer is split among CTAs as the dot is (chain-b: a first dot that keeps M whole; 3.5's two-CTA tcgen05 dot: an 8-bit N of at least 64)",
};

/// Which instruction reads the operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reader {
    /// Hopper's wgmma.
    Wgmma,
    /// Blackwell's tcgen05.
    Tcgen05,
}

/// A dot's operand B, `[K, N]`, in a buffer whose CGA `block` bases are
/// `bases` (element coordinates), read by an instruction `instr_n` wide;
/// `swizzled` when the buffer has an NVMMA swizzle.
pub(crate) fn operand_b(
    bases: &[[u64; 2]],
    n: u64,
    instr_n: u64,
    swizzled: bool,
    reader: Reader,
    release: Release,
) -> Result<(), Failure> {
    let k_split = bases.iter().any(|b| b[0] != 0);
    let per_cta_n = n >> bases.iter().filter(|b| b[1] != 0).count();
    let narrow = instr_n > per_cta_n;
    if !k_split && !narrow {
        return Ok(());
    }
    let why = if k_split {
        "operand B's buffer is split along K among CTAs: a K step of the instruction lies in another CTA's part".to_string()
    } else {
        format!(
            "operand B's buffer holds {per_cta_n} columns per CTA, the instruction reads {instr_n}"
        )
    };
    let layout = match reader {
        Reader::Wgmma => &WGMMA_LAYOUT,
        Reader::Tcgen05 => &TCGEN05_LAYOUT,
    };
    let location = match release {
        r if r < Release::V3_5 => return Ok(()),
        Release::V3_5 if swizzled => return Ok(()),
        Release::V3_5 => &UNSWIZZLED_3_5,
        Release::V3_6 => &NO_LAYOUT_3_6,
        Release::V3_7 => layout,
        Release::V3_8 if swizzled => &REPS_3_8,
        Release::V3_8 => layout,
        _ if k_split => &BLOCK_ZERO,
        _ if swizzled => &REPS,
        _ => layout,
    };
    Err(Failure::at(&SITE, location, release, why))
}

/// A tcgen05 dot's operand B with `cols_bytes` contiguous bytes per CTA.
pub(crate) fn tcgen05_operand_b(cols_bytes: u64, release: Release) -> Result<(), Failure> {
    if release < Release::V3_8 || cols_bytes >= 16 {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &TCGEN05_LAYOUT,
        release,
        format!(
            "operand B holds {cols_bytes} contiguous bytes per CTA, less than one 16-byte core matrix row"
        ),
    ))
}

/// One operand of an MMA held in shared memory, as its loader walks it: a
/// TTGIR dot's operand read off the module ([`loader`]).
#[derive(Clone, Debug)]
pub(crate) struct Operand {
    /// Operand A (`[M, K]`), else B (`[K, N]`).
    pub is_a: bool,
    /// The buffer's `block` bases: the element each CTA bit of its layout
    /// starts at, `[dim0, dim1]`.
    pub bases: Vec<[u64; 2]>,
    /// The tile one instruction reads (A: `[4 · instrM, instrK]`; B:
    /// `[instrK, instrN]`).
    pub instr: [u64; 2],
    /// Between two instructions' origins, per dim (A: `[mmaSizeM, instrK]`,
    /// B: `[instrK, mmaSizeN]`: the warps' tiles along M and N).
    pub step: [u64; 2],
    /// How far the loop walks per dim: the dot's part per CTA along M or
    /// N, the whole K.
    pub extent: [u64; 2],
    /// The buffer has an NVMMA swizzle.
    pub swizzled: bool,
    /// A CTA's part of the buffer holds at least one core matrix (8 rows
    /// of 16 bytes), so that the descriptor finds a tile to describe it.
    pub core_matrix: bool,
}

impl Operand {
    fn name(&self) -> &'static str {
        if self.is_a { "A" } else { "B" }
    }

    /// A CGA basis inside one instruction's tile: the descriptor has no
    /// layout that covers the instruction within one CTA.
    fn split_inside(&self) -> Option<[u64; 2]> {
        self.bases
            .iter()
            .copied()
            .find(|b| (0..2).any(|d| b[d] != 0 && b[d] < self.instr[d]))
    }

    /// A CGA basis at an instruction origin the loop visits: that
    /// instruction reads another CTA's part.
    fn split_visited(&self) -> Option<[u64; 2]> {
        self.bases.iter().copied().find(|b| {
            (0..2).any(|d| b[d] >= self.step[d] && b[d] < self.extent[d] && b[d] >= self.instr[d])
        })
    }
}

/// The `block` bases of a shared buffer's linear layout (offset and block
/// to the tensor's two dims): where each CTA's part starts. `None` for a
/// layout that is not a rank-2 buffer's.
pub(crate) fn buffer_block_bases(layout: &LinearLayout) -> Option<Vec<[u64; 2]>> {
    if layout.num_out_dims() != 2 {
        return None;
    }
    let bits = layout.in_dim_size_log2(Dim::BLOCK).ok()?;
    (0..bits as usize)
        .map(|i| {
            let b = layout.basis(Dim::BLOCK, i).ok()?;
            Some([*b.first()?, *b.get(1)?])
        })
        .collect()
}

/// The loaders of a dot's operands held in shared memory (`operands`, A
/// before B), built and walked as `release` lowers the dot with `reader`.
pub(crate) fn loader(
    operands: &[Operand],
    reader: Reader,
    release: Release,
) -> Result<(), Failure> {
    // Each loader is built (its descriptor found) before the loop. From
    // 3.8 a CTA's part without one core matrix has no NVMMA tile at all
    // (`getNvmmaSmemAttrs`), whatever the instruction.
    for op in operands {
        let no_tile = release >= Release::V3_8 && !op.core_matrix;
        let inside = op.split_inside();
        if inside.is_none() && !no_tile {
            continue;
        }
        let layout = match (reader, op.is_a) {
            (Reader::Wgmma, true) => &WGMMA_LAYOUT_A,
            (Reader::Wgmma, false) => &WGMMA_LAYOUT,
            (Reader::Tcgen05, true) => &TCGEN05_LAYOUT_A,
            (Reader::Tcgen05, false) => &TCGEN05_LAYOUT,
        };
        let location = match release {
            r if r < Release::V3_5 => continue,
            Release::V3_5 if op.swizzled => continue,
            Release::V3_5 => &UNSWIZZLED_3_5,
            Release::V3_6 => &NO_LAYOUT_3_6,
            Release::V3_7 => layout,
            Release::V3_8 if op.core_matrix => &REPS_3_8,
            _ if op.core_matrix => &REPS,
            _ => layout,
        };
        let why = match inside {
            Some(basis) => format!(
                "operand {}'s buffer starts another CTA's part at element {basis:?}, inside the {}x{} tile one instruction reads",
                op.name(),
                op.instr[0],
                op.instr[1]
            ),
            None => format!(
                "operand {}'s part per CTA holds less than one core matrix (8 rows of 16 bytes)",
                op.name()
            ),
        };
        return Err(Failure::at(&SITE, location, release, why));
    }
    for op in operands {
        let Some(basis) = op.split_visited() else {
            continue;
        };
        let location = match release {
            r if r < Release::V3_7 => continue,
            Release::V3_7 => &BLOCK_ZERO_3_7,
            _ => &BLOCK_ZERO,
        };
        let why = format!(
            "operand {}'s buffer starts another CTA's part at element {basis:?}, where an instruction of this CTA's loop reads (steps {:?} up to {:?})",
            op.name(),
            op.step,
            op.extent
        );
        return Err(Failure::at(&SITE, location, release, why));
    }
    Ok(())
}

/// The `block` bases of `attr`'s layout on `shape` as `release` builds it
/// (`bits`: a buffer's element width), when it has one here.
fn block_bases(
    attr: &crate::attr::Attr,
    shape: &[u64],
    release: Release,
    bits: Option<u64>,
) -> Option<Vec<[u64; 2]>> {
    match crate::to_linear_layout(attr, shape, release, bits).ok()? {
        crate::Conversion::Layout(l) => buffer_block_bases(&l),
        crate::Conversion::NoLayout(_) => None,
    }
}

/// The operands of a `warp_group_dot` held in shared memory, as its
/// lowering walks them (`A * B -> D`: the types on the op, in order).
fn wgmma_operands(op: &crate::finder::op::Op<'_>, release: Release) -> Option<Vec<Operand>> {
    use crate::attr::Attr;
    let [a, b, .., d] = &op.types[..] else {
        return None;
    };
    let Attr::NvidiaMma(mma) = op.attr(&d.2)? else {
        return None;
    };
    let (&[instr_m, instr_n, instr_k], &[warps_m, warps_n]) =
        (&mma.instr_shape[..], &mma.warps_per_cta[..])
    else {
        return None;
    };
    let [rows, cols] = d.0[..] else {
        return None;
    };
    // The dot's part per CTA: its accumulator's CGA splits M and N.
    let acc = block_bases(&Attr::NvidiaMma(mma.clone()), &d.0, release, None)?;
    let split = |dim: usize| acc.iter().filter(|b| b[dim] != 0).count();
    let (per_cta_m, per_cta_n) = (rows >> split(0), cols >> split(1));
    let mut operands = Vec::new();
    for (typed, is_a) in [(a, true), (b, false)] {
        // Operand A may be in registers.
        let Some((bases, swizzled, core_matrix)) = shared_operand(op, typed, release) else {
            continue;
        };
        let shape = &typed.0;
        operands.push(if is_a {
            Operand {
                is_a,
                bases,
                instr: [4 * instr_m, instr_k],
                step: [instr_m * warps_m, instr_k],
                extent: [per_cta_m, shape[1]],
                swizzled,
                core_matrix,
            }
        } else {
            Operand {
                is_a,
                bases,
                instr: [instr_k, instr_n],
                step: [instr_k, instr_n * warps_n],
                extent: [shape[0], per_cta_n],
                swizzled,
                core_matrix,
            }
        });
    }
    Some(operands)
}

/// An operand in shared memory (`typed`, on `op`), or `None` for one that
/// is not (operand A in tensor memory).
fn shared_operand(
    op: &crate::finder::op::Op<'_>,
    typed: &crate::finder::op::Typed,
    release: Release,
) -> Option<(Vec<[u64; 2]>, bool, bool)> {
    use crate::attr::Attr;
    let (shape, ty, enc) = typed;
    let attr = op.attr(enc)?;
    if !matches!(
        attr,
        Attr::NvmmaShared(_) | Attr::SwizzledShared(_) | Attr::SharedLinear(_)
    ) || shape.len() != 2
    {
        return None;
    }
    let bits = crate::finder::op::bits_of(ty);
    let bases = block_bases(&attr, shape, release, Some(bits))?;
    let swizzled = crate::finder::op::swizzle_of(&attr).unwrap_or(0) > 0;
    let part: Vec<u64> = (0..2)
        .map(|d| shape[d] >> bases.iter().filter(|b| b[d] != 0).count())
        .collect();
    let contiguous = match &attr {
        Attr::NvmmaShared(n) if n.transposed => 0,
        Attr::SwizzledShared(sw) => sw.order.first().copied().unwrap_or(1),
        _ => 1,
    };
    let core_matrix = holds_core_matrix([part[0], part[1]], contiguous, bits);
    Some((bases, swizzled, core_matrix))
}

/// Whether a CTA's `part` of a buffer (rows and columns, contiguous along
/// dim `contiguous`, `bits`-bit elements) holds one core matrix: 8 rows of
/// 16 bytes.
pub(crate) fn holds_core_matrix(part: [u64; 2], contiguous: usize, bits: u64) -> bool {
    part[contiguous] * bits >= 128 && part[1 - contiguous] >= 8
}

/// The operands of a `tc_gen5_mma` held in shared memory, as `convertMMAv5`
/// walks them (`MMAv5.cpp`): the instruction is `blockM × min(blockN, N)`
/// of the accumulator's tensor-memory encoding, per CTA, and `256 / bits`
/// deep; A's origins are `(m · mmaSizeM, k · mmaSizeK)`, B's `(k · mmaSizeK,
/// n · mmaSizeN)`. A pair of CTAs sharing one instruction (`two_ctas`)
/// splits B along N by design (`splitBOperand`): each CTA holds half the
/// instruction's columns, which the loader reads as such from 3.6
/// ([`two_cta_b_instr_n`]).
fn tcgen05_operands(op: &crate::finder::op::Op<'_>, release: Release) -> Option<Vec<Operand>> {
    let [a, b, d, ..] = &op.types[..] else {
        return None;
    };
    let tmem = op.module.tmem(&d.2)?;
    // 3.4 and 3.5 mark the op (`{two_ctas}`), 3.6 on also the accumulator.
    let two_ctas = tmem.two_ctas || op.line.contains("two_ctas");
    let [rows, cols] = d.0[..] else {
        return None;
    };
    let (per_cta_m, per_cta_n) = (rows / tmem.split[0].max(1), cols / tmem.split[1].max(1));
    let bits = crate::finder::op::bits_of(&a.1);
    let mma_k = 256 / bits.max(1);
    let (mma_m, mma_n) = (tmem.block_m, tmem.block_n.min(per_cta_n));
    let k = *a.0.get(1)?;
    let mut operands = Vec::new();
    if let Some((bases, swizzled, core_matrix)) = shared_operand(op, a, release) {
        operands.push(Operand {
            is_a: true,
            bases,
            instr: [mma_m, mma_k],
            step: [mma_m, mma_k],
            extent: [per_cta_m, k],
            swizzled,
            core_matrix,
        });
    }
    let (bases, swizzled, core_matrix) = shared_operand(op, b, release)?;
    let instr_n = if two_ctas {
        two_cta_b_instr_n(mma_n, release)
    } else {
        mma_n
    };
    operands.push(Operand {
        is_a: false,
        bases,
        instr: [mma_k, instr_n],
        step: [mma_k, mma_n],
        extent: [k, per_cta_n],
        swizzled,
        core_matrix,
    });
    Some(operands)
}

/// The columns of a two-CTA dot's operand B that the tcgen05 loader reads
/// as one instruction's (`mma_n`: the accumulator's `blockN`, up to the
/// dot's N per CTA): 3.4 and 3.5 the whole `mmaSizeN`, though each CTA of
/// the pair holds half of it (so 3.5's loader meets its unswizzled
/// assertion when the half is 16 bytes: an 8-bit B with N = 32); from 3.6
/// `mmaSizeN / 2` ([`Release::halves_two_cta_operand_b`]).
pub(crate) fn two_cta_b_instr_n(mma_n: u64, release: Release) -> u64 {
    if release.halves_two_cta_operand_b() {
        mma_n / 2
    } else {
        mma_n
    }
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[
            super::EventKind::MmaOperandBuffer,
            super::EventKind::Tcgen05OperandBuffer,
            super::EventKind::MmaOperandLoader,
            super::EventKind::Op,
        ]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::MmaOperandBuffer {
                bases,
                n,
                instr_n,
                swizzled,
                reader,
            } => operand_b(bases, *n, *instr_n, *swizzled, *reader, release),
            super::Event::Tcgen05OperandBuffer { cols_bytes } => {
                tcgen05_operand_b(*cols_bytes, release)
            }
            super::Event::MmaOperandLoader { operands, reader } => {
                loader(operands, *reader, release)
            }
            super::Event::Op(op) if op.name == "warp_group_dot" && op.module.num_ctas > 1 => {
                match wgmma_operands(op, release) {
                    Some(operands) => loader(&operands, Reader::Wgmma, release),
                    None => Ok(()),
                }
            }
            super::Event::Op(op) if op.name == "tc_gen5_mma" && op.module.num_ctas > 1 => {
                match tcgen05_operands(op, release) {
                    Some(operands) => loader(&operands, Reader::Tcgen05, release),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}
