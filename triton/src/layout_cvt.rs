//! What moving a tensor between two distributed layouts costs, decided the
//! way Triton's `lib/Analysis/Utility.cpp` decides it (3.2 on).
//!
//! The conversion is the map from the source's hardware indices to the
//! destination's: `dst.invert_and_compose(src)`. Triton then peels off the
//! in-dims it is the identity on, outermost first (block, warp, lane,
//! register), stopping at the first it is not. What is left says where data
//! has to travel: nothing or only registers means each thread already holds
//! what it needs; lanes mean warp shuffles; warps or blocks mean shared
//! memory.
//!
//! ```
//! use linear_layout_triton::layout_cvt::reorders_registers;
//! use linear_layout::{Dim, LinearLayout};
//!
//! // Eight elements: two register bits, then one lane bit, of one warp in
//! // one block (Triton's layouts always have all four hardware dims).
//! let dim0 = Dim::new("dim0");
//! let layout = |registers: [u64; 2], lane: u64| {
//!     LinearLayout::from_bases(
//!         &[
//!             (Dim::REGISTER, registers.iter().map(|&r| vec![r]).collect()),
//!             (Dim::LANE, vec![vec![lane]]),
//!             (Dim::WARP, vec![]),
//!             (Dim::BLOCK, vec![]),
//!         ],
//!         &[dim0],
//!     )
//! };
//! let a = layout([1, 2], 4)?;
//! // Each lane keeps its four elements, in another register order.
//! assert!(reorders_registers(&a, &layout([2, 1], 4)?)?);
//! // Lane 0 holds elements {0, 1, 4, 5} here, {0, 1, 2, 3} in `a`.
//! assert!(!reorders_registers(&a, &layout([1, 4], 2)?)?);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::Result;

/// Triton's `minimalCvtLayout`: the conversion from `src` to `dst` with the
/// outer in-dims it is the identity on removed, block first, then warp,
/// lane and register, until one is not trivial.
///
/// Errors where `invertAndCompose` asserts in Triton: the two layouts'
/// out-dims differ, or `src` reaches elements `dst` does not hold.
pub fn minimal_cvt_layout(src: &LinearLayout, dst: &LinearLayout) -> Result<LinearLayout> {
    peel(dst.invert_and_compose(src)?)
}

/// The conversion `cvt` with the outer in-dims it is the identity on
/// removed, block first, then warp, lane and register.
fn peel(mut cvt: LinearLayout) -> Result<LinearLayout> {
    for dim in [Dim::BLOCK, Dim::WARP, Dim::LANE, Dim::REGISTER] {
        match cvt.quotient(&[dim])? {
            Some(rest) => cvt = rest,
            None => break,
        }
    }
    Ok(cvt)
}

/// 3.2's `minimalCvtLayout`, whose `invertAndCompose` chooses among the
/// sources of a broadcast element differently (`release/3.2.x:lib/Tools/
/// LinearLayout.cpp:843–956`): it makes both layouts injective by giving
/// the k-th zero basis of each (in-dims in order, bits in order) the
/// fresh value k (`getInjectiveMat`), so a zero basis of the destination
/// is matched with the source's zero basis of the same rank, wherever it
/// sits, not with one of the same hardware dim. The destination's zero
/// bases past the source's count are solved from rows the source leaves
/// empty: they map to zero. `None` where our algebra refuses a step.
pub fn minimal_cvt_layout_3_2(src: &LinearLayout, dst: &LinearLayout) -> Option<LinearLayout> {
    let mut fresh_bits = 0u32;
    for d in src.in_dim_names() {
        for i in 0..src.in_dim_size_log2(d).ok()? as usize {
            fresh_bits += u32::from(src.basis(d, i).ok()?.iter().all(|&x| x == 0));
        }
    }
    if fresh_bits >= 63 {
        return None;
    }
    let injective = |l: &LinearLayout| -> Option<LinearLayout> {
        let fresh = Dim::new("injective");
        let mut next = 0u32;
        let mut bases = Vec::new();
        for d in l.in_dim_names() {
            let mut rows = Vec::new();
            for i in 0..l.in_dim_size_log2(d).ok()? as usize {
                let mut row: Vec<u64> = l.basis(d, i).ok()?.to_vec();
                if row.iter().all(|&x| x == 0) && next < fresh_bits {
                    row.push(1 << next);
                    next += 1;
                } else {
                    row.push(0);
                }
                rows.push(row);
            }
            bases.push((d, rows));
        }
        let mut outs: Vec<(Dim, u64)> = l
            .out_dim_names()
            .map(|d| l.out_dim_size(d).map(|s| (d, s)))
            .collect::<Result<_>>()
            .ok()?;
        outs.push((fresh, 1 << fresh_bits));
        LinearLayout::from_bases_with_sizes(&bases, &outs, false).ok()
    };
    let cvt = injective(dst)?.invert_and_compose(&injective(src)?).ok()?;
    peel(cvt).ok()
}

/// The minimal conversion from `src` to `dst` when it moves data across
/// registers and lanes and nothing else: the conversions Triton lowers
/// within a warp, with shuffles (`transferWithinWarp`). `None` for any
/// other conversion, and where `minimal_cvt_layout` errs.
pub fn within_warp(src: &LinearLayout, dst: &LinearLayout) -> Option<LinearLayout> {
    let cvt = minimal_cvt_layout(src, dst).ok()?;
    let outs: Vec<Dim> = cvt.out_dim_names().collect();
    (outs == [Dim::REGISTER, Dim::LANE]).then_some(cvt)
}

/// Triton's `cvtReordersRegisters`: converting from `src` to `dst` only
/// permutes each thread's registers (no data crosses threads).
pub fn reorders_registers(src: &LinearLayout, dst: &LinearLayout) -> Result<bool> {
    let cvt = minimal_cvt_layout(src, dst)?;
    let mut outs = cvt.out_dim_names();
    Ok(match (outs.next(), outs.next()) {
        (None, _) => true,
        (Some(only), None) => only == Dim::REGISTER,
        _ => false,
    })
}

/// Whether 3.4's `getWarpLayoutConvertDecomposition` finds a shuffle plan
/// for the within-warp conversion `cvt` (`lib/Analysis/Utility.cpp`,
/// `release/3.4.x` lines 231–330): none when a lane of the destination
/// broadcasts, or when the lane rows that move registers outnumber the
/// register rows that move lanes. `None` where Triton asserts instead (a
/// row moving both), or our algebra refuses a step.
pub(crate) fn shuffle_plan_3_4(cvt: &LinearLayout) -> Option<bool> {
    let (reg, lane) = (Dim::REGISTER, Dim::LANE);
    let c = cvt.sublayout(&[lane, reg], &[lane, reg]).ok()?;
    // components are (register, lane), the conversion's out-dim order
    let rows = |dim: Dim| -> Option<Vec<Vec<u64>>> {
        (0..c.in_dim_size_log2(dim).ok()? as usize)
            .map(|i| c.basis(dim, i).ok().map(|b| b.to_vec()))
            .collect()
    };
    let mut missing = 0;
    for row in rows(lane)? {
        match (row.first()?, row.get(1)?) {
            (0, 0) => return Some(false),
            (0, _) => {}
            (_, 0) => missing += 1,
            _ => return None,
        }
    }
    let mut filling = 0;
    for row in rows(reg)? {
        match (row.first()?, row.get(1)?) {
            (_, 0) => {}
            (0, _) => filling += 1,
            _ => return None,
        }
    }
    Some(filling >= missing)
}
