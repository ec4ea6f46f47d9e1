//! How a release splits a kernel's tensors among the CTAs of a cluster
//! (`num_ctas > 1`): the default CGA every tensor gets, the tiling CTA
//! planning gives a dot, and the layouts that follow. Derived in
//! `notes/finder-lowering.md` §8 from `BlockedEncodingAttr`'s `numCTAs`
//! builder (`TritonGPUAttrDefs.td`), `PlanCTA.cpp` (3.1–3.8) and 3.9's
//! `AssignCGALayouts`.

use super::decisions::coalesced_load;
use crate::Release;
use crate::attr::{Blocked, Cga};

/// A CGA in the three-list form every release's builder computes
/// (`CTAsPerCGA`, `CTASplitNum`, `CTAOrder`); 3.6 and later store the same
/// split as bases, which the conversions read alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtaSplit {
    /// CTAs along each dim (more than `split` where CTAs repeat a tile).
    pub ctas_per_cga: Vec<u64>,
    /// Distinct tiles along each dim.
    pub split: Vec<u64>,
    /// The order CTAs are numbered in, fastest dim first.
    pub order: Vec<usize>,
}

impl CtaSplit {
    /// The CGA attribute, or `None` for a single CTA (the attribute's
    /// default).
    pub fn cga(&self) -> Option<Cga> {
        (self.ctas_per_cga.iter().product::<u64>() > 1).then(|| Cga::Split {
            ctas_per_cga: self.ctas_per_cga.clone(),
            cta_split_num: self.split.clone(),
            cta_order: self.order.clone(),
        })
    }

    /// The shape each CTA holds.
    pub fn per_cta(&self, shape: &[u64]) -> Vec<u64> {
        shape
            .iter()
            .zip(&self.split)
            .map(|(&s, &k)| (s / k.max(1)).max(1))
            .collect()
    }
}

/// The CTA part of `BlockedEncodingAttr::get(shape, sizePerThread, order,
/// numWarps, threadsPerWarp, numCTAs)`: from the most strided dim to the
/// fastest, each dim takes as many of the remaining CTAs as it has
/// `sizePerThread` chunks (at least one); whatever is left repeats along
/// the literal last dim (`rank - 1`), holding copies.
pub fn default_split(
    shape: &[u64],
    size_per_thread: &[u64],
    order: &[usize],
    num_ctas: u64,
) -> CtaSplit {
    let rank = shape.len();
    let mut ctas = vec![1u64; rank];
    let mut remaining = num_ctas.max(1);
    for &d in order.iter().rev() {
        let room = (shape[d] / size_per_thread[d].max(1)).max(1);
        ctas[d] = remaining.clamp(1, room);
        remaining /= ctas[d];
    }
    let split = ctas.clone();
    if let Some(last) = ctas.last_mut() {
        *last *= remaining;
    }
    CtaSplit {
        ctas_per_cga: ctas,
        split,
        order: order.to_vec(),
    }
}

/// The CGA a tensor of `shape` gets when it is first given a layout
/// (`ConvertTritonToTritonGPU`: one element per thread, row-major), which
/// the coalescing pass keeps.
pub fn initial_split(shape: &[u64], num_ctas: u64) -> CtaSplit {
    let rank = shape.len();
    let order: Vec<usize> = (0..rank).rev().collect();
    default_split(shape, &vec![1; rank], &order, num_ctas)
}

/// The coalesced layout of a load or store of `shape` contiguous along
/// `contig` ([`coalesced_load`]), with its CTAs: the CGA the tensor was
/// first given ([`initial_split`]), and threads and warps spread over the
/// shape each CTA holds (`buildCoalescedEncoding` is handed the shape per
/// CTA).
pub fn coalesced_with_ctas(
    shape: &[u64],
    contig: usize,
    bits: u64,
    num_warps: u64,
    num_ctas: u64,
) -> Blocked {
    let split = initial_split(shape, num_ctas);
    let mut blocked = coalesced_load(&split.per_cta(shape), contig, bits, num_warps);
    blocked.cga = split.cga();
    blocked
}

/// The CGA's `block` bases in element coordinates of a tensor of `shape`:
/// dims in CTA order, each first split (a basis per bit of its split, one
/// CTA tile apart), then repeated (zero bases), as `fromSplitParams` and
/// the three-list CGA build them.
pub fn split_bases(split: &CtaSplit, shape: &[u64]) -> Vec<Vec<u64>> {
    let rank = shape.len();
    let mut bases = Vec::new();
    for &d in &split.order {
        let parts = split.split[d].max(1);
        let mut step = 1;
        while step < parts {
            let mut b = vec![0; rank];
            b[d] = shape[d] / parts * step;
            bases.push(b);
            step *= 2;
        }
        let mut copies = split.ctas_per_cga[d] / parts;
        while copies > 1 {
            bases.push(vec![0; rank]);
            copies /= 2;
        }
    }
    bases
}

/// The CTA tiling a dot's `M × N` result gets (`getCTATiling` in
/// `PlanCTA.cpp`, 3.1–3.8; the same rule on the last two dims in 3.9's
/// `getDotCGASplit`): the largest chunk of 128 or 64 rows whose split
/// leaves at least 64 columns per CTA, M first; when no chunk does, the
/// split of the last chunk tried (64) stands.
pub fn dot_tiling(m: u64, n: u64, num_ctas: u64) -> [u64; 2] {
    let num_ctas = num_ctas.max(1);
    let mut tiling = [1, num_ctas];
    let mut chunk = 128;
    while chunk >= 64 {
        let split_m = (m / chunk).clamp(1, num_ctas);
        let split_n = num_ctas / split_m;
        tiling = [split_m, split_n];
        if n / split_n >= 64 {
            break;
        }
        chunk /= 2;
    }
    tiling
}

/// Whether `release` gives a tcgen05 dot to a pair of CTAs, one
/// instruction `2 · blockM` rows tall over both (`canUseTwoCTAs` in
/// AccelerateMatmul, 3.4 to 3.6, [`Release::chooses_two_cta_mma`]): the
/// result's CTA split is exactly `[2, 1]` (two CTAs along M, whatever the
/// cluster: 4 CTAs never qualify), each CTA holds at least 64 rows and 32
/// columns of it, and operand B comes straight from a load (`tt.load` or a
/// descriptor load, through `convert_layout`s only: a `tt.trans` or a
/// dot's result does not qualify). `splitBOperand` then remakes that load
/// with the CTA split `[1, 2]`: each CTA of the pair holds half of B's N.
pub fn two_cta_mma(
    tiling: [u64; 2],
    per_cta: [u64; 2],
    b_from_load: bool,
    release: Release,
) -> bool {
    release.chooses_two_cta_mma()
        && tiling == [2, 1]
        && per_cta[0] >= 64
        && per_cta[1] >= 32
        && b_from_load
}

/// A dot result's CGA as `fromSplitParams([splitM, splitN], …, [1, 0])`
/// builds it, as element strides per `block` basis: N's bits first, then
/// M's; each basis moves one CTA tile.
pub fn dot_block_bases(m: u64, n: u64, tiling: [u64; 2]) -> Vec<[u64; 2]> {
    let [sm, sn] = tiling;
    let mut bases = Vec::new();
    let mut step = 1;
    while step < sn {
        bases.push([0, n / sn * step]);
        step *= 2;
    }
    step = 1;
    while step < sm {
        bases.push([m / sm * step, 0]);
        step *= 2;
    }
    bases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_split_m_by_128_row_chunks_while_n_keeps_64_columns() {
        // The tilings read off the TTGIR of recorded compiles (the report's
        // `check_split.py`).
        assert_eq!(dot_tiling(128, 128, 4), [2, 2]);
        assert_eq!(dot_tiling(128, 32, 2), [2, 1]);
        assert_eq!(dot_tiling(64, 64, 2), [1, 2]);
        assert_eq!(dot_tiling(256, 16, 2), [2, 1]);
        assert_eq!(dot_tiling(128, 16, 4), [2, 2]);
        assert_eq!(dot_tiling(64, 32, 4), [1, 4]);
        assert_eq!(dot_tiling(128, 256, 2), [1, 2]);
    }

    #[test]
    fn the_default_cga_splits_rows_first_and_repeats_leftovers() {
        let s = initial_split(&[64, 32], 4);
        assert_eq!(
            (s.ctas_per_cga.as_slice(), s.split.as_slice()),
            (&[4, 1][..], &[4, 1][..])
        );
        let s = initial_split(&[1, 64], 2);
        assert_eq!(
            (s.ctas_per_cga.as_slice(), s.split.as_slice()),
            (&[1, 2][..], &[1, 2][..])
        );
        let s = initial_split(&[2, 1], 4);
        assert_eq!(
            (s.ctas_per_cga.as_slice(), s.split.as_slice()),
            (&[2, 2][..], &[2, 1][..])
        );
        assert_eq!(initial_split(&[8, 8], 1).cga(), None);
    }

    #[test]
    fn two_cta_mode_needs_two_ctas_along_m_and_a_loaded_b() {
        let r = Release::V3_5;
        assert!(two_cta_mma([2, 1], [64, 32], true, r));
        assert!(!two_cta_mma([2, 1], [64, 16], true, r));
        assert!(!two_cta_mma([2, 1], [32, 64], true, r));
        assert!(!two_cta_mma([1, 2], [128, 32], true, r));
        assert!(!two_cta_mma([2, 2], [64, 32], true, r));
        assert!(!two_cta_mma([2, 1], [64, 32], false, r));
        assert!(two_cta_mma([2, 1], [64, 32], true, Release::V3_4));
        assert!(two_cta_mma([2, 1], [64, 32], true, Release::V3_6));
        assert!(!two_cta_mma([2, 1], [64, 32], true, Release::V3_7));
        assert!(!two_cta_mma([2, 1], [64, 32], true, Release::V3_9));
    }

    #[test]
    fn block_bases_move_n_then_m() {
        assert_eq!(dot_block_bases(128, 128, [2, 2]), vec![[0, 64], [64, 0]]);
        assert_eq!(dot_block_bases(128, 32, [2, 1]), vec![[64, 0]]);
    }
}
