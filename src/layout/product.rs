//! The product `inner * outer`: a copy of `inner` at every point of `outer`.

use super::{DimBits, LinearLayout, Repack};
use super::{MAX_BITS, MAX_DIM_BITS};
use crate::bits;
use crate::dim::Dim;
use crate::error::{DimList, LayoutError, Result, Side};
use smallvec::SmallVec;

impl LinearLayout {
    /// Triton's `inner * outer`: the direct sum, with `self` as the inner
    /// (minor) factor.
    ///
    /// Per dim, `log2` sizes add up (a dim missing from one factor counts as
    /// size 1 there). In-dim `d` keeps the inner bases first, then the outer
    /// ones with each out-dim component shifted above the inner size on that
    /// out-dim. The dim order of the result is Triton's `supremum` of the two
    /// orders.
    ///
    /// The dims the factors share must appear in the same relative order in
    /// both (Triton's header requires it; 3.9's code no longer checks, and its
    /// merge then silently picks an order): that is an error here.
    ///
    /// ```
    /// use linear_layout::{LinearLayout, dim};
    /// let (i, o) = (dim("in"), dim("out"));
    /// let a = LinearLayout::identity_1d(4, i, o)?;
    /// let b = LinearLayout::identity_1d(2, i, o)?;
    /// assert_eq!(a.product(&b)?, LinearLayout::identity_1d(8, i, o)?);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    #[inline]
    pub fn product(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        super::in_place(|out| self.product_into(outer, out))
    }

    fn product_into(&self, outer: &LinearLayout, out: &mut LinearLayout) -> Result<()> {
        const OP: &str = "product";
        let inner = self;
        if inner.product_same_dims(outer, out) {
            return Ok(());
        }
        // Sizes add up; each factor's are at most 63 bits, so the sums fit.
        merge_dims(OP, Side::In, inner.ins_raw(), outer.ins_raw(), &mut out.ins)?;
        merge_dims(
            OP,
            Side::Out,
            inner.outs_raw(),
            outer.outs_raw(),
            &mut out.outs,
        )?;
        if let Some(&(d, bits)) = out.outs.iter().find(|x| x.1 > 63) {
            return Err(LayoutError::TooLarge {
                op: OP,
                what: format!("log2 size of out-dim {d} in the product"),
                value: bits as u64,
                limit: 63,
            });
        }
        let total_in: u32 = out.ins.iter().map(|x| x.1 as u32).sum();
        let total_out: u32 = out.outs.iter().map(|x| x.1 as u32).sum();
        let in_dim_too_large = out.ins.iter().any(|x| x.1 as u32 > super::MAX_DIM_BITS);
        if total_in > super::MAX_BITS || total_out > super::MAX_BITS || in_dim_too_large {
            // Report through the common limit checks.
            let cols = smallvec::smallvec![0; total_in.min(64) as usize];
            let (ins, outs) = (std::mem::take(&mut out.ins), std::mem::take(&mut out.outs));
            return LinearLayout::from_parts(OP, ins, cols, outs, false).map(|_| ());
        }

        // Where each factor's out-dims land in the product's packing: the
        // outer factor sits above the inner one on every shared out-dim.
        let outs = &out.outs;
        let inner_outs = inner.outs_raw().as_slice();
        let (mut inner_moves, mut outer_moves) = (Repack::default(), Repack::default());
        inner_moves.plan(inner_outs, |_, d| Some(dest_shift(outs, d)));
        outer_moves.plan(outer.outs_raw(), |_, d| {
            Some(dest_shift(outs, d) + log2_in(inner_outs, d))
        });

        // Each in-dim takes the inner factor's bases, then the outer one's.
        // The merged order keeps each factor's in-dims as a subsequence, so
        // one cursor per factor walks its dims and columns in order.
        let mut next = 0;
        let mut cursors = [
            (
                inner.ins_raw().as_slice(),
                inner.cols_raw(),
                &inner_moves,
                0,
                0,
            ),
            (
                outer.ins_raw().as_slice(),
                outer.cols_raw(),
                &outer_moves,
                0,
                0,
            ),
        ];
        out.cols.resize(total_in as usize, 0);
        let slots = out.cols.as_mut_slice();
        for &(d, _) in out.ins.iter() {
            for (dims, factor_cols, moves, k, first) in &mut cursors {
                if *k < dims.len() && dims[*k].0 == d {
                    let n = dims[*k].1 as usize;
                    for j in 0..n {
                        slots[next + j] = moves.apply(factor_cols[*first + j]);
                    }
                    (next, *first, *k) = (next + n, *first + n, *k + 1);
                }
            }
        }
        debug_assert!(next == slots.len());
        // The factors' images land on disjoint output bits (the outer one
        // shifted above the inner one on every shared out-dim): a direct sum,
        // whose rank is the sum of the ranks. The dims are `supremum`s of
        // distinct lists, hence distinct, and were checked against the limits.
        out.rank = (inner.rank() + outer.rank()) as u8;
        debug_assert!(out.invariants_hold(), "invalid product: {out:?}");
        Ok(())
    }
}

/// The most out-dims [`LinearLayout::product_same_dims`] handles.
const SAME_DIMS_MAX_OUTS: usize = 8;

impl LinearLayout {
    /// The product of two factors over the same dim lists (the common case:
    /// a tile times its repetitions), where no merging is needed and each
    /// factor's out-dim fields move by one rotation each. Writes the result
    /// and returns `true`, or leaves `out` empty and returns `false` for the
    /// general path (which also reports every error).
    fn product_same_dims(&self, outer: &LinearLayout, out: &mut LinearLayout) -> bool {
        let (inner, n_outs) = (self, self.outs.len());
        let same = |a: &DimBits, b: &DimBits| {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.0 == y.0)
        };
        if n_outs > SAME_DIMS_MAX_OUTS
            || !same(&inner.ins, &outer.ins)
            || !same(&inner.outs, &outer.outs)
        {
            return false;
        }
        // Out-dim k: the inner field moves from `shift_i` to `dest`, the outer
        // one from `shift_o` to `dest + width_i`.
        let mut moves = [(0u64, 0u32, 0u64, 0u32); SAME_DIMS_MAX_OUTS];
        let (mut shift_i, mut shift_o, mut dest) = (0u32, 0u32, 0u32);
        for (m, (&(_, wi), &(_, wo))) in moves
            .iter_mut()
            .zip(inner.outs.iter().zip(outer.outs.iter()))
        {
            let (wi, wo) = (wi as u32, wo as u32);
            if wi + wo > MAX_DIM_BITS {
                return false;
            }
            *m = (
                bits::shl(bits::low_mask(wi), shift_i),
                dest.wrapping_sub(shift_i) & 63,
                bits::shl(bits::low_mask(wo), shift_o),
                (dest + wi).wrapping_sub(shift_o) & 63,
            );
            (shift_i, shift_o, dest) = (shift_i + wi, shift_o + wo, dest + wi + wo);
        }
        let total_in = inner.cols.len() + outer.cols.len();
        let in_dim_too_large = inner
            .ins
            .iter()
            .zip(outer.ins.iter())
            .any(|(a, b)| (a.1 + b.1) as u32 > MAX_DIM_BITS);
        if dest > MAX_BITS || total_in > MAX_BITS as usize || in_dim_too_large {
            return false;
        }
        let moves = &moves[..n_outs];
        let repack = |col: u64, outer: bool| {
            moves.iter().fold(0, |acc, &(mi, ri, mo, ro)| {
                acc | if outer {
                    (col & mo).rotate_left(ro)
                } else {
                    (col & mi).rotate_left(ri)
                }
            })
        };
        for (&(d, a), &(_, b)) in inner.ins.iter().zip(outer.ins.iter()) {
            out.ins.push((d, a + b));
        }
        for (&(d, a), &(_, b)) in inner.outs.iter().zip(outer.outs.iter()) {
            out.outs.push((d, a + b));
        }
        out.cols.resize(total_in, 0);
        let (mut next, mut first_i, mut first_o) = (0, 0, 0);
        for (&(_, bi), &(_, bo)) in inner.ins.iter().zip(outer.ins.iter()) {
            let (bi, bo) = (bi as usize, bo as usize);
            for j in 0..bi {
                out.cols[next + j] = repack(inner.cols[first_i + j], false);
            }
            for j in 0..bo {
                out.cols[next + bi + j] = repack(outer.cols[first_o + j], true);
            }
            (next, first_i, first_o) = (next + bi + bo, first_i + bi, first_o + bo);
        }
        out.rank = inner.rank + outer.rank;
        debug_assert!(out.invariants_hold(), "invalid product: {out:?}");
        true
    }
}

fn dest_shift(outs: &DimBits, d: Dim) -> u32 {
    let k = outs.iter().position(|x| x.0 == d).unwrap_or(outs.len());
    super::out_shift(outs, k)
}

/// `log2` of dim `d`'s size in `dims`: 0 when absent.
fn log2_in(dims: &[(Dim, u8)], d: Dim) -> u32 {
    dims.iter().find(|x| x.0 == d).map_or(0, |x| x.1 as u32)
}

/// The dims of a product with their summed `log2` sizes. The common dims must
/// agree in relative order; Triton's `supremum` then merges the two lists.
fn merge_dims(
    op: &'static str,
    side: Side,
    a: &[(Dim, u8)],
    b: &[(Dim, u8)],
    out: &mut DimBits,
) -> Result<()> {
    if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0) {
        // The common case, factors of the same shape: merging changes nothing.
        out.extend(a.iter().zip(b).map(|(&(d, x), &(_, y))| (d, x + y)));
        return Ok(());
    }
    let a_names: SmallVec<[Dim; 4]> = a.iter().map(|x| x.0).collect();
    let b_names: SmallVec<[Dim; 4]> = b.iter().map(|x| x.0).collect();
    let common_a = a_names.iter().filter(|d| b_names.contains(d));
    let common_b = b_names.iter().filter(|d| a_names.contains(d));
    if !common_a.eq(common_b) {
        return Err(LayoutError::InconsistentDimOrder {
            op,
            side,
            left: DimList(a_names.to_vec()),
            right: DimList(b_names.to_vec()),
        });
    }
    out.extend(
        supremum(&a_names, &b_names)
            .into_iter()
            .map(|d| (d, (log2_in(a, d) + log2_in(b, d)) as u8)),
    );
    Ok(())
}

/// Triton's `supremum(x, y)`: a merge of two dim orders in which each list
/// stays a subsequence when the two are consistent. Two cursors walk the
/// lists, skipping names already emitted; equal heads are emitted once; else
/// a head the other list lacks goes first (x's before y's); else the head
/// sitting earlier in the other list goes first, x winning ties.
pub fn supremum(x: &[Dim], y: &[Dim]) -> SmallVec<[Dim; 4]> {
    let mut out: SmallVec<[Dim; 4]> = SmallVec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        while i < x.len() && out.contains(&x[i]) {
            i += 1;
        }
        while j < y.len() && out.contains(&y[j]) {
            j += 1;
        }
        let next = match (x.get(i), y.get(j)) {
            (None, None) => break,
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (Some(&a), Some(&b)) if a == b => a,
            (Some(&a), Some(&b)) => {
                let a_in_y = y.iter().position(|&d| d == a);
                let b_in_x = x.iter().position(|&d| d == b);
                match (a_in_y, b_in_x) {
                    (None, _) => a,
                    (_, None) => b,
                    (Some(pa), Some(pb)) => {
                        if pa <= pb {
                            a
                        } else {
                            b
                        }
                    }
                }
            }
        };
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dim::dim;

    fn names(s: &str) -> Vec<Dim> {
        s.split(',').filter(|x| !x.is_empty()).map(dim).collect()
    }

    #[test]
    fn an_in_dim_of_64_bits_is_an_error() {
        let (a, x, y) = (dim("a"), dim("x"), dim("y"));
        let half = |out| LinearLayout::identity_1d(1 << 32, a, out);
        let err = half(x).unwrap().product(&half(y).unwrap()).unwrap_err();
        assert!(
            matches!(err, LayoutError::TooLarge { value: 64, .. }),
            "{err}"
        );
    }

    #[test]
    fn supremum_examples_from_triton_3_9() {
        assert_eq!(
            supremum(&names("a,b"), &names("c,b")).to_vec(),
            names("a,c,b")
        );
        assert_eq!(
            supremum(&names("a,b"), &names("b,a")).to_vec(),
            names("a,b")
        );
        assert_eq!(
            supremum(&names("a,b"), &names("c,b,a")).to_vec(),
            names("c,b,a")
        );
        assert_eq!(supremum(&names(""), &names("a")).to_vec(), names("a"));
        assert_eq!(
            supremum(&names("a,b,c"), &names("a,b,c")).to_vec(),
            names("a,b,c")
        );
    }
}
