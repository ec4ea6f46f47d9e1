//! The compiler decisions that pick layouts for a `tl.dot`, per release
//! (`AccelerateMatmul.cpp`, `Utility.cpp`): MMA version, warps, instruction
//! shape, and the shared encoding of an operand. See
//! `notes/finder-lowering.md` for the sources.

use super::config::{Arch, Config, Dtype};
use crate::Release;
use crate::attr::{Attr, Blocked, NvidiaMma};
use crate::print_attr;

/// A dot's shape and element type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DotShape {
    /// Rows of the result.
    pub m: u64,
    /// Columns of the result.
    pub n: u64,
    /// The reduction size.
    pub k: u64,
    /// Operand element type.
    pub dtype: Dtype,
    /// Whether the result feeds another dot (a chained dot).
    pub chained: bool,
}

/// The MMA a dot is lowered to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mma {
    /// 2 (`mma.sync`) or 3 (`wgmma`).
    pub version: u64,
    /// Warps per CTA, `[M, N]`.
    pub warps: [u64; 2],
    /// `[16, 8]` for v2, `[16, N, K]` for v3.
    pub instr: Vec<u64>,
}

/// The largest warp count or instruction size [`Mma::from_hopper_attr`]
/// accepts: far beyond any GPU, small enough that products of a few of them
/// cannot overflow.
pub const MAX_ENTRY: u64 = 1 << 16;

impl Mma {
    /// The instruction's N.
    pub fn instr_n(&self) -> u64 {
        self.instr[1]
    }

    /// The finder's view of a parsed Hopper MMA attribute: `None` unless it
    /// is a well-formed v3 one (two warp dims, a three-entry instruction
    /// shape, every entry a power of two no larger than [`MAX_ENTRY`]), so
    /// that a malformed dump cannot reach the site models, whose arithmetic
    /// assumes hardware-sized numbers.
    pub fn from_hopper_attr(m: &NvidiaMma) -> Option<Mma> {
        let sane = |v: &u64| v.is_power_of_two() && *v <= MAX_ENTRY;
        match (m.version_major, &m.warps_per_cta[..], m.instr_shape.len()) {
            (3, &[w0, w1], 3) if [w0, w1].iter().chain(&m.instr_shape).all(sane) => Some(Mma {
                version: 3,
                warps: [w0, w1],
                instr: m.instr_shape.clone(),
            }),
            _ => None,
        }
    }

    /// The finder's view of a parsed Ampere (v2) MMA attribute: `None`
    /// unless it has two warp dims, each a power of two no larger than
    /// [`MAX_ENTRY`], and the `[16, 8]` instruction shape.
    pub fn from_ampere_attr(m: &NvidiaMma) -> Option<Mma> {
        let sane = |v: &u64| v.is_power_of_two() && *v <= MAX_ENTRY;
        match (m.version_major, &m.warps_per_cta[..], &m.instr_shape[..]) {
            (2, &[w0, w1], &[16, 8]) if sane(&w0) && sane(&w1) => Some(Mma {
                version: 2,
                warps: [w0, w1],
                instr: vec![16, 8],
            }),
            _ => None,
        }
    }

    /// The attribute, with no CGA.
    pub fn attr(&self) -> NvidiaMma {
        NvidiaMma {
            version_major: self.version,
            version_minor: 0,
            warps_per_cta: self.warps.to_vec(),
            cga: None,
            instr_shape: self.instr.clone(),
        }
    }

    /// The TTGIR attribute (in the release's spelling).
    pub fn attr_text(&self, version: Release) -> String {
        print_attr(&Attr::NvidiaMma(self.attr()), version.dialect())
    }
}

/// Whether `wgmma` (MMA v3) takes this dot: Hopper, a multiple of 64 rows,
/// of 8 columns, whole warp groups, and (3.2+) K of at least 256 bits.
pub fn uses_mma_v3(cfg: &Config, dot: &DotShape) -> bool {
    // From 3.2 `supportMMA` also asks for K ≥ 256 bits of the operand type.
    let k_ok = !cfg.triton.v3_needs_wide_k() || dot.k >= 256 / dot.dtype.bits();
    cfg.arch == Arch::Sm90 && dot.m % 64 == 0 && dot.n % 8 == 0 && cfg.num_warps % 4 == 0 && k_ok
}

/// `mmaVersionToInstrShape` for v3: K is 256 bits of the operand type; N is
/// the largest candidate dividing the result's N that leaves each warp group
/// not needed along M its share of N (the warps are assumed M-first).
pub fn v3_instr_shape(dot: &DotShape, num_warps: u64) -> Vec<u64> {
    let k = 256 / dot.dtype.bits();
    let m_warps = (dot.m / 16).max(1);
    let n_warps = (num_warps / m_warps).max(1);
    let max_n = (dot.n / n_warps).max(8);
    let n = (1..=32u64)
        .rev()
        .map(|i| i * 8)
        .find(|&c| dot.n % c == 0 && c <= max_n)
        .unwrap_or(8);
    vec![16, n, k]
}

/// `warpsPerTile` for v3: chained dots put every warp along M (PR #5277, in
/// 3.2 via #5441); otherwise warp groups go along M while M has rows for
/// them, then along N.
pub fn v3_warps(dot: &DotShape, num_warps: u64) -> [u64; 2] {
    if dot.chained {
        return [num_warps, 1];
    }
    let mut w = [4u64, 1];
    while w[0] * w[1] < num_warps {
        if dot.m > 16 * w[0] {
            w[0] *= 2;
        } else {
            w[1] *= 2;
        }
    }
    w
}

/// `warpsPerTileV2` when the dot's slice holds another `tt.dot` that has no
/// MMA layout yet (the same in every release): every warp along the longer
/// side of the result, M on a tie.
pub fn v2_warps_beside_dot(dot: &DotShape, num_warps: u64) -> [u64; 2] {
    if dot.m >= dot.n {
        [num_warps, 1]
    } else {
        [1, num_warps]
    }
}

/// `warpsPerTileV2` for a dot with no other `tt.dot` in its slice, per
/// release.
pub fn v2_warps(dot: &DotShape, num_warps: u64, version: Release) -> [u64; 2] {
    let mut w = [1u64, 1];
    if version.splits_v2_warps_by_tiles() {
        while w[0] * w[1] < num_warps {
            if dot.m / 16 / w[0] >= dot.n / 16 / w[1] && w[0] < dot.m / 16 {
                w[0] *= 2;
            } else {
                w[1] *= 2;
            }
        }
    } else {
        let mut reps = [dot.m.div_ceil(16), dot.n.div_ceil(8)];
        while w[0] * w[1] < num_warps {
            if reps[0] >= reps[1] {
                w[0] *= 2;
                if reps[0] != 1 {
                    reps[0] /= 2;
                }
            } else {
                w[1] *= 2;
                reps[1] /= 2;
            }
        }
    }
    w
}

/// The MMA a release picks for a dot with no other dot in its slice (its
/// v3 warps still follow `dot.chained`).
pub fn choose_mma(cfg: &Config, dot: &DotShape) -> Mma {
    choose_mma_with(cfg, dot, v2_warps(dot, cfg.num_warps, cfg.triton))
}

/// The MMA for `dot`, with `v2_warps` if it is not v3.
fn choose_mma_with(cfg: &Config, dot: &DotShape, v2_warps: [u64; 2]) -> Mma {
    if uses_mma_v3(cfg, dot) {
        Mma {
            version: 3,
            warps: v3_warps(dot, cfg.num_warps),
            instr: v3_instr_shape(dot, cfg.num_warps),
        }
    } else {
        Mma {
            version: 2,
            warps: v2_warps,
            instr: vec![16, 8],
        }
    }
}

/// The MMAs of two chained dots, `first`'s result feeding `second`
/// (`first.chained` set, `second.chained` not).
///
/// `AccelerateMatmul` rewrites dots with MLIR's greedy driver, which visits
/// ops bottom-up, so `second` goes first. A v2 `second` finds `first` in
/// its slice still a plain `tt.dot` and puts every warp along its own
/// longer side. A v2 `first` then finds `second` an MMA `tt.dot` and copies
/// its warps, unless `second` became a `warp_group_dot` (v3), which that
/// search does not look for: then `first` takes the plain rule. v3 warps
/// look only at the forward slice, for any dot-like op (`v3_warps`).
/// Measured on 3.2.0 (chain-a, fp8, M = 128, N = 16): dot 2 gets `[1, 8]`
/// for X = 256 at 8 warps and `[16, 1]` for X = 32 at 16 warps, where the
/// plain rule would spread the warps over both dims.
pub fn choose_chain_mmas(cfg: &Config, first: &DotShape, second: &DotShape) -> (Mma, Mma) {
    let second_mma = choose_mma_with(cfg, second, v2_warps_beside_dot(second, cfg.num_warps));
    let first_v2_warps = if second_mma.version == 2 {
        second_mma.warps
    } else {
        v2_warps(first, cfg.num_warps, cfg.triton)
    };
    (choose_mma_with(cfg, first, first_v2_warps), second_mma)
}

/// Whether `RemoveLayoutConversions` loads a tensor again in the layout a
/// user wants instead of converting it (`isExpensiveLoadOrStore`,
/// `lib/Analysis/Utility.cpp`): a load of fewer elements than the CTA has
/// threads is cheap (its data presumed in cache), any other load of a
/// tensor of pointers is not.
pub fn cheap_to_reload(elements: u64, num_warps: u64, warp_size: u64) -> bool {
    elements < num_warps.saturating_mul(warp_size)
}

/// The NVMMA swizzle (bytes) a Hopper operand of `rows × cols` (contiguous
/// `cols`) gets: 128, 64 or 32 when the contiguous bytes are a multiple of
/// it, else none.
pub fn nvmma_swizzle(contiguous: u64, bits: u64) -> Option<u64> {
    let bytes = contiguous * bits / 8;
    [128, 64, 32]
        .into_iter()
        .find(|&s| bytes >= s && bytes % s == 0)
}

/// The blocked layout the coalescing pass gives a load of `shape` whose
/// pointers are contiguous along `contig` (16-byte aligned): dims ordered by
/// contiguity (a stable sort, so the others keep their index order), each
/// thread up to 16 bytes along `contig` (no more than its share of the
/// tile), then threads and warps spread fastest dim first by the default
/// builder, whatever is left over wrapping on the slowest dim.
pub fn coalesced_load(shape: &[u64], contig: usize, bits: u64, num_warps: u64) -> Blocked {
    coalesced_load_over(shape, contig, bits, num_warps, 32)
}

/// [`coalesced_load`] for warps of `lanes` threads (64 on AMD's CDNA: the
/// coalescing pass is common code and reads the module's threads per warp).
pub fn coalesced_load_over(
    shape: &[u64],
    contig: usize,
    bits: u64,
    num_warps: u64,
    lanes: u64,
) -> Blocked {
    let rank = shape.len();
    let lanes = lanes.max(1);
    // Out-of-range arguments are clamped rather than trusted: no panic.
    let contig = contig.min(rank.saturating_sub(1));
    let num_warps = num_warps.max(1);
    if rank == 0 {
        return Blocked {
            size_per_thread: vec![],
            threads_per_warp: vec![],
            warps_per_cta: vec![],
            order: vec![],
            cga: None,
        };
    }
    let order: Vec<usize> = std::iter::once(contig)
        .chain((0..rank).filter(|&d| d != contig))
        .collect();
    let elements = shape.iter().fold(1u64, |a, &b| a.saturating_mul(b));
    let mut size_per_thread = vec![1; rank];
    size_per_thread[contig] = (128 / bits.max(1))
        .min(shape[contig])
        .min((elements / num_warps.saturating_mul(lanes)).max(1));
    let threads_per_warp = spread(shape, &order, &size_per_thread, lanes);
    let covered: Vec<u64> = size_per_thread
        .iter()
        .zip(&threads_per_warp)
        .map(|(s, t)| s.saturating_mul(*t))
        .collect();
    let warps_per_cta = spread(shape, &order, &covered, num_warps);
    Blocked {
        size_per_thread,
        threads_per_warp,
        warps_per_cta,
        order,
        cga: None,
    }
}

/// `total` threads (or warps) over the dims in `order`, each dim taking what
/// its remaining extent (`shape / covered`) holds.
fn spread(shape: &[u64], order: &[usize], covered: &[u64], total: u64) -> Vec<u64> {
    let mut out = vec![1; shape.len()];
    let mut left = total.max(1);
    for &d in order {
        let room = (shape[d] / covered[d].max(1)).max(1);
        out[d] = room.min(left);
        left /= out[d];
    }
    if let Some(&slowest) = order.last() {
        out[slowest] = out[slowest].saturating_mul(left);
    }
    out
}

/// The order of the shared buffer the pipeliner before PR #5905 staged a
/// load in, for a load laid out in `order`: a rank-3 load's order with dim 0
/// moved last (from #5905 on the buffer keeps the load's own order).
pub fn staged_order_before_5905(order: &[usize]) -> Vec<usize> {
    if order.len() == 3 {
        order
            .iter()
            .copied()
            .filter(|&d| d != 0)
            .chain([0])
            .collect()
    } else {
        order.to_vec()
    }
}
