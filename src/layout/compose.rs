//! Composition and solving: `compose`, `invert_and_compose`, `invert`,
//! `pseudoinvert`.

use super::{Cols, DimBits, LinearLayout, queries::xor_columns};
use crate::bits::SpanBasis;
use crate::dim::Dim;
use crate::error::{DimList, LayoutError, Result, Side};
use smallvec::SmallVec;

impl LinearLayout {
    /// `self.compose(outer)` is `outer ∘ self`: apply `self`, then `outer`.
    ///
    /// `self`'s out-dims must be `outer`'s in-dims (as sets), each no larger.
    /// The result has `self`'s in-dims and `outer`'s out-dims and sizes.
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        const OP: &str = "compose";
        same_dim_set(
            OP,
            "the first layout's out-dims and the second layout's in-dims",
            self.out_dim_names(),
            outer.in_dim_names(),
        )?;
        // Output bit `b` of `self` feeds input bit `map[b]` of `outer`.
        let mut map: SmallVec<[u64; 64]> = SmallVec::new();
        for &(d, bits) in self.outs_raw() {
            let k = outer.require_in(d, OP)?;
            let outer_bits = outer.ins_raw()[k].1;
            if bits > outer_bits {
                return Err(LayoutError::ComposeSize {
                    op: OP,
                    dim: d,
                    inner: 1u64 << bits,
                    outer: 1u64 << outer_bits,
                });
            }
            map.extend_from_slice(&outer.in_cols(k)[..bits as usize]);
        }
        let cols: Cols = self
            .cols_raw()
            .iter()
            .map(|&c| xor_columns(&map, c))
            .collect();
        LinearLayout::from_parts(
            OP,
            self.ins_raw().clone(),
            cols,
            outer.outs_raw().clone(),
            false,
        )
    }

    /// Solves `outer(C(x)) = self(x)` for `C` (Triton's `invertAndCompose`).
    ///
    /// `C` has `self`'s in-dims and, as out-dims, `outer`'s in-dims with
    /// `outer`'s in sizes. Among all solutions, Triton's is returned:
    /// - an in-dim present in both layouts with identical bases (and equal
    ///   out sizes) maps to itself;
    /// - every other input bit maps to the unique combination of `outer`'s
    ///   *pivot* columns (those independent of the columns before them, in
    ///   `outer`'s in-dim order) — free variables are set to zero, which
    ///   prefers broadcasting and earlier dims.
    ///
    /// Errors when the out-dim sets differ, when `outer` has a smaller
    /// out-dim, or when the image of `self` is not inside the image of
    /// `outer` (Triton asserts all three).
    pub fn invert_and_compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        const OP: &str = "invert_and_compose";
        same_dim_set(
            OP,
            "the two layouts' out-dims",
            self.out_dim_names(),
            outer.out_dim_names(),
        )?;
        // Re-pack `outer`'s columns into `self`'s out-dim order, so that the
        // two layouts' columns can be compared and combined directly.
        let mut widened_outs = self.outs_raw().clone();
        for (k, &(d, bits)) in self.outs_raw().iter().enumerate() {
            let outer_bits = outer.outs_raw()[outer.require_out(d, OP)?].1;
            if outer_bits < bits {
                return Err(LayoutError::InvertSize {
                    op: OP,
                    dim: d,
                    this: 1u64 << bits,
                    outer: 1u64 << outer_bits,
                });
            }
            widened_outs[k].1 = outer_bits;
        }
        // Both layouts' columns in the packing of `widened_outs`.
        let self_plan: SmallVec<[Option<u32>; 4]> = (0..self.num_out_dims())
            .map(|k| Some(super::out_shift(&widened_outs, k)))
            .collect();
        let outer_plan: SmallVec<[Option<u32>; 4]> = outer
            .outs_raw()
            .iter()
            .map(|&(d, _)| {
                let k = self.out_index(d).unwrap_or(0);
                Some(super::out_shift(&widened_outs, k))
            })
            .collect();
        let self_cols = |k: usize| -> SmallVec<[u64; 16]> {
            self.in_cols(k)
                .iter()
                .map(|&c| super::repack(c, self.outs_raw(), &self_plan))
                .collect()
        };
        let outer_cols = |k: usize| -> SmallVec<[u64; 16]> {
            outer
                .in_cols(k)
                .iter()
                .map(|&c| super::repack(c, outer.outs_raw(), &outer_plan))
                .collect()
        };

        // In-dims that both layouts share with identical bases and identical
        // out sizes (Triton compares the two one-dim sub-layouts with `==`,
        // which includes the out sizes) map to themselves.
        let same_sizes = self
            .outs_raw()
            .iter()
            .all(|&(d, bits)| outer.outs_raw().iter().any(|&(e, b)| e == d && b == bits));
        let is_identity_dim = |d: Dim| -> bool {
            if !same_sizes {
                return false;
            }
            match (self.in_index(d), outer.in_index(d)) {
                (Some(ks), Some(ko)) => {
                    self.ins_raw()[ks].1 == outer.ins_raw()[ko].1 && self_cols(ks) == outer_cols(ko)
                }
                _ => false,
            }
        };
        let identity: SmallVec<[Dim; 4]> = outer
            .in_dim_names()
            .filter(|&d| is_identity_dim(d))
            .collect();
        let self_rest: SmallVec<[usize; 4]> = (0..self.num_in_dims())
            .filter(|&k| !identity.contains(&self.ins_raw()[k].0))
            .collect();
        let outer_rest: SmallVec<[usize; 4]> = (0..outer.num_in_dims())
            .filter(|&k| !identity.contains(&outer.ins_raw()[k].0))
            .collect();
        if self_rest.is_empty() != outer_rest.is_empty() {
            return Err(LayoutError::IdentityDimsUnbalanced { op: OP });
        }
        let rest_bits = |l: &LinearLayout, ks: &[usize]| -> u32 {
            ks.iter().map(|&k| l.ins_raw()[k].1 as u32).sum()
        };
        let solve_bits = rest_bits(self, &self_rest) + rest_bits(outer, &outer_rest);
        if solve_bits > super::MAX_BITS {
            // Triton packs [outer | self] columns into one 64-bit word per row.
            return Err(LayoutError::TooManyBits {
                op: OP,
                side: Side::In,
                bits: solve_bits,
                max: super::MAX_BITS,
            });
        }

        // The result's out-dims: outer's in-dims, in outer's order. Bit `c` of
        // a combination over outer's remaining columns lands at `place[c]`.
        let result_outs: DimBits = outer.ins_raw().clone();
        let mut place: SmallVec<[u32; 64]> = SmallVec::new();
        let mut span = SpanBasis::new();
        for &k in &outer_rest {
            let start = outer.in_start(k) as u32;
            for (i, c) in outer_cols(k).into_iter().enumerate() {
                span.insert(c);
                place.push(start + i as u32);
            }
        }

        let mut cols = Cols::new();
        for (k, &(d, _)) in self.ins_raw().iter().enumerate() {
            if identity.contains(&d) {
                let start = outer.in_start(outer.in_index(d).unwrap_or(0));
                cols.extend((0..self.ins_raw()[k].1 as usize).map(|i| 1u64 << (start + i)));
                continue;
            }
            for c in self_cols(k) {
                let (residue, combo) = span.reduce(c);
                if residue != 0 {
                    return Err(LayoutError::ImageNotContained { op: OP });
                }
                let mut packed = 0u64;
                let mut rest = combo;
                while rest != 0 {
                    let j = rest.trailing_zeros() as usize;
                    packed |= 1u64 << place[j];
                    rest &= rest - 1;
                }
                cols.push(packed);
            }
        }
        LinearLayout::from_parts(OP, self.ins_raw().clone(), cols, result_outs, false)
    }

    /// The inverse of a bijective layout: in-dims and out-dims swap roles.
    pub fn invert(&self) -> Result<LinearLayout> {
        if !self.is_invertible() {
            return Err(LayoutError::NotInvertible {
                op: "invert",
                in_bits: self.total_in_bits(),
                out_bits: self.total_out_bits(),
                rank: self.rank(),
            });
        }
        self.pseudoinvert_as("invert")
    }

    /// A right inverse `P` of a surjective layout: `self(P(y)) = y`, built
    /// from `self`'s pivot columns only (Triton: the identity on the out-dims,
    /// `invert_and_compose`d with `self`).
    pub fn pseudoinvert(&self) -> Result<LinearLayout> {
        self.pseudoinvert_as("pseudoinvert")
    }

    fn pseudoinvert_as(&self, op: &'static str) -> Result<LinearLayout> {
        if !self.is_surjective() {
            return Err(self.not_surjective(op));
        }
        let mut identity = LinearLayout::empty();
        for (d, size) in self.out_dims() {
            identity = identity.product(&LinearLayout::identity_1d(size, d, d)?)?;
        }
        identity.invert_and_compose(self)
    }
}

/// Errors unless the two lists hold the same names (order ignored).
pub(crate) fn same_dim_set(
    op: &'static str,
    what: &'static str,
    a: impl Iterator<Item = Dim>,
    b: impl Iterator<Item = Dim>,
) -> Result<()> {
    let a: SmallVec<[Dim; 4]> = a.collect();
    let b: SmallVec<[Dim; 4]> = b.collect();
    if a.len() != b.len() || a.iter().any(|d| !b.contains(d)) {
        return Err(LayoutError::DimSetMismatch {
            op,
            what,
            left: DimList(a.to_vec()),
            right: DimList(b.to_vec()),
        });
    }
    Ok(())
}
