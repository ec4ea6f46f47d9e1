//! The product `inner * outer`: a copy of `inner` at every point of `outer`.

use super::{DimBits, LinearLayout, Repack, collect_small};
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
    pub fn product(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        const OP: &str = "product";
        let inner = self;
        // Sizes add up; each factor's are at most 63 bits, so the sums fit.
        let ins = merge_dims(OP, Side::In, inner.ins_raw(), outer.ins_raw())?;
        let outs = merge_dims(OP, Side::Out, inner.outs_raw(), outer.outs_raw())?;
        if let Some(&(d, bits)) = outs.iter().find(|x| x.1 > 63) {
            return Err(LayoutError::TooLarge {
                op: OP,
                what: format!("log2 size of out-dim {d} in the product"),
                value: bits as u64,
                limit: 63,
            });
        }
        let total_in: u32 = ins.iter().map(|x| x.1 as u32).sum();
        let total_out: u32 = outs.iter().map(|x| x.1 as u32).sum();
        let in_dim_too_large = ins.iter().any(|x| x.1 as u32 > super::MAX_DIM_BITS);
        if total_in > super::MAX_BITS || total_out > super::MAX_BITS || in_dim_too_large {
            // Report through the common limit checks.
            return LinearLayout::from_parts(
                OP,
                ins,
                smallvec::smallvec![0; total_in.min(64) as usize],
                outs,
                false,
            );
        }

        // Where each factor's out-dims land in the product's packing: the
        // outer factor sits above the inner one on every shared out-dim.
        let inner_outs = inner.outs_raw().as_slice();
        let inner_moves = Repack::from_fn(inner_outs, |_, d| Some(dest_shift(&outs, d)));
        let outer_moves = Repack::from_fn(outer.outs_raw(), |_, d| {
            Some(dest_shift(&outs, d) + log2_in(inner_outs, d))
        });

        // Each in-dim takes the inner factor's bases, then the outer one's.
        // The merged order keeps each factor's in-dims as a subsequence, so
        // one cursor per factor walks its dims and columns in order.
        let cols = super::cols_from_fn(total_in as usize, |slots| {
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
            for &(d, _) in &ins {
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
            Ok(())
        })?;
        // The factors' images land on disjoint output bits (the outer one
        // shifted above the inner one on every shared out-dim): a direct sum,
        // whose rank is the sum of the ranks. The dims are `supremum`s of
        // distinct lists, hence distinct, and were checked against the limits.
        let rank = inner.rank() + outer.rank();
        Ok(LinearLayout::from_valid_parts(ins, cols, outs, rank))
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
fn merge_dims(op: &'static str, side: Side, a: &[(Dim, u8)], b: &[(Dim, u8)]) -> Result<DimBits> {
    if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0) {
        // The common case, factors of the same shape: merging changes nothing.
        return Ok(collect_small(
            a.iter().zip(b).map(|(&(d, x), &(_, y))| (d, x + y)),
        ));
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
    Ok(supremum(&a_names, &b_names)
        .into_iter()
        .map(|d| (d, (log2_in(a, d) + log2_in(b, d)) as u8))
        .collect())
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
