//! Taking layouts apart and putting them side by side: sub-layouts,
//! quotients, concatenation, squeezing, resizing and renaming.

use super::{Cols, DimBits, LinearLayout, Repack, check_distinct, log2_exact};
use crate::bits;
use crate::dim::Dim;
use crate::error::{LayoutError, Result, Side};
use smallvec::SmallVec;

impl LinearLayout {
    /// The layout restricted to the given in-dims and out-dims, kept in the
    /// layout's own order (not the arguments'). Out sizes are kept and the
    /// result need not be surjective.
    pub fn sublayout(&self, ins: &[Dim], outs: &[Dim]) -> Result<LinearLayout> {
        const OP: &str = "sublayout";
        for &d in ins {
            self.require_in(d, OP)?;
        }
        for &d in outs {
            self.require_out(d, OP)?;
        }
        let mut new_outs = DimBits::new();
        let mut plan: SmallVec<[Option<u32>; 4]> = SmallVec::new();
        let mut shift = 0u32;
        for &(d, b) in self.outs_raw() {
            if outs.contains(&d) {
                plan.push(Some(shift));
                shift += b as u32;
                new_outs.push((d, b));
            } else {
                plan.push(None);
            }
        }
        let repack = Repack::new(self.outs_raw(), &plan);
        let mut new_ins = DimBits::new();
        let mut cols = Cols::new();
        for (k, &(d, b)) in self.ins_raw().iter().enumerate() {
            if ins.contains(&d) {
                new_ins.push((d, b));
                cols.extend(self.in_cols(k).iter().map(|&c| repack.apply(c)));
            }
        }
        LinearLayout::from_parts(OP, new_ins, cols, new_outs, false)
    }

    /// Peels off `dims` when the layout is trivial over them (see
    /// [`is_trivial_over`](Self::is_trivial_over)): the sub-layout on the
    /// remaining dims. `None` when some dim is not an in-dim or the layout
    /// is not trivial over `dims`.
    pub fn quotient(&self, dims: &[Dim]) -> Result<Option<LinearLayout>> {
        if dims.iter().any(|&d| !self.has_in_dim(d)) {
            return Ok(None);
        }
        if !self.is_trivial_over(dims)? {
            return Ok(None);
        }
        let ins: SmallVec<[Dim; 4]> = self.in_dim_names().filter(|d| !dims.contains(d)).collect();
        let outs: SmallVec<[Dim; 4]> = self.out_dim_names().filter(|d| !dims.contains(d)).collect();
        self.sublayout(&ins, &outs).map(Some)
    }

    /// This layout's in-dims followed by `other`'s. Both must have identical
    /// out-dims (names in order, and sizes). As in Triton, an in-dim already
    /// present keeps this layout's bases.
    pub fn concat_ins(&self, other: &LinearLayout) -> Result<LinearLayout> {
        const OP: &str = "concat_ins";
        if self.outs_raw() != other.outs_raw() {
            return Err(LayoutError::DimsNotIdentical {
                op: OP,
                what: "the two layouts' out-dims",
                left: self.out_dim_sizes(),
                right: other.out_dim_sizes(),
            });
        }
        let mut ins = self.ins_owned();
        let mut cols: Cols = self.cols_raw().into();
        for (k, &(d, b)) in other.ins_raw().iter().enumerate() {
            if !self.has_in_dim(d) {
                ins.push((d, b));
                cols.extend_from_slice(other.in_cols(k));
            }
        }
        LinearLayout::from_parts(OP, ins, cols, self.outs_owned(), false)
    }

    /// Each basis is this layout's components followed by `other`'s; the
    /// out-dims are this layout's followed by `other`'s. Both must have
    /// identical in-dims (names in order, and sizes).
    pub fn concat_outs(&self, other: &LinearLayout) -> Result<LinearLayout> {
        const OP: &str = "concat_outs";
        if self.ins_raw() != other.ins_raw() {
            return Err(LayoutError::DimsNotIdentical {
                op: OP,
                what: "the two layouts' in-dims",
                left: self.in_dim_sizes(),
                right: other.in_dim_sizes(),
            });
        }
        let mut outs = self.outs_owned();
        outs.extend(other.outs_raw().iter().copied());
        check_distinct(OP, Side::Out, &outs, |x| x.0)?;
        let total: u32 = outs.iter().map(|x| x.1 as u32).sum();
        if total > super::MAX_BITS {
            return Err(LayoutError::TooManyBits {
                op: OP,
                side: Side::Out,
                bits: total,
                max: super::MAX_BITS,
            });
        }
        let shift = self.total_out_bits();
        let cols = self
            .cols_raw()
            .iter()
            .zip(other.cols_raw())
            .map(|(&a, &b)| if b == 0 { a } else { a | (b << shift) })
            .collect();
        LinearLayout::from_parts(OP, self.ins_owned(), cols, outs, false)
    }

    /// Drops the all-zero bases of in-dim `d` (broadcast bits), keeping the
    /// out sizes. A layout without `d` is returned unchanged.
    pub fn remove_zero_bases_along_dim(&self, d: Dim) -> Result<LinearLayout> {
        let Some(k) = self.in_index(d) else {
            return Ok(self.clone());
        };
        let mut ins = self.ins_owned();
        let mut cols = Cols::new();
        for (j, &(_, _)) in self.ins_raw().iter().enumerate() {
            if j == k {
                let kept: Cols = self
                    .in_cols(j)
                    .iter()
                    .copied()
                    .filter(|&c| c != 0)
                    .collect();
                ins[j].1 = kept.len() as u8;
                cols.extend(kept);
            } else {
                cols.extend_from_slice(self.in_cols(j));
            }
        }
        LinearLayout::from_parts(
            "remove_zero_bases_along_dim",
            ins,
            cols,
            self.outs_owned(),
            false,
        )
    }

    /// Removes in-dim `d`, which must have size 1.
    pub fn squeeze_ins(&self, d: Dim) -> Result<LinearLayout> {
        const OP: &str = "squeeze_ins";
        let k = self.require_in(d, OP)?;
        if self.ins_raw()[k].1 != 0 {
            return Err(LayoutError::NotSizeOne {
                op: OP,
                side: Side::In,
                dim: d,
                size: 1 << self.ins_raw()[k].1,
            });
        }
        let new: Vec<(Dim, u64)> = self.in_dims().filter(|x| x.0 != d).collect();
        self.reshape_ins(&new)
    }

    /// Removes out-dim `d`, which must have size 1.
    pub fn squeeze_outs(&self, d: Dim) -> Result<LinearLayout> {
        const OP: &str = "squeeze_outs";
        let k = self.require_out(d, OP)?;
        if self.outs_raw()[k].1 != 0 {
            return Err(LayoutError::NotSizeOne {
                op: OP,
                side: Side::Out,
                dim: d,
                size: 1 << self.outs_raw()[k].1,
            });
        }
        let new: Vec<(Dim, u64)> = self.out_dims().filter(|x| x.0 != d).collect();
        self.reshape_outs(&new)
    }

    /// Keeps the first `log2 size` bases of in-dim `d`; `size` must be a
    /// power of two no larger than the current size.
    pub fn resize_in_dim(&self, d: Dim, size: u64) -> Result<LinearLayout> {
        const OP: &str = "resize_in_dim";
        let k = self.require_in(d, OP)?;
        let bits = log2_exact(OP, || format!("new size of in-dim {d}"), size)?;
        let current = self.ins_raw()[k].1 as u32;
        if bits > current {
            return Err(LayoutError::TooLarge {
                op: OP,
                what: format!("new size of in-dim {d}"),
                value: size,
                limit: 1 << current,
            });
        }
        let start = self.in_start(k);
        let mut cols: Cols = self.cols_raw().into();
        cols.drain(start + bits as usize..start + current as usize);
        let mut ins = self.ins_owned();
        ins[k].1 = bits as u8;
        LinearLayout::from_parts(OP, ins, cols, self.outs_owned(), false)
    }

    /// Shrinks out-dim `d` to `size`, zeroing every component that does not
    /// fit; `size` must be a power of two no larger than the current size.
    pub fn resize_out_dim(&self, d: Dim, size: u64) -> Result<LinearLayout> {
        const OP: &str = "resize_out_dim";
        let k = self.require_out(d, OP)?;
        let bits = log2_exact(OP, || format!("new size of out-dim {d}"), size)?;
        let current = self.outs_raw()[k].1 as u32;
        if bits > current {
            return Err(LayoutError::TooLarge {
                op: OP,
                what: format!("new size of out-dim {d}"),
                value: size,
                limit: 1 << current,
            });
        }
        let mut log2: SmallVec<[u8; 4]> = self.outs_raw().iter().map(|o| o.1).collect();
        log2[k] = bits as u8;
        self.clip_outs(OP, &log2, None)
    }

    /// Shrinks every out-dim `k` to `log2[k]` bits (each at most its current
    /// size), zeroing every component that does not fit: a component too
    /// large is zeroed whole, not truncated. With `drop_zeroed = Some(d)`,
    /// the bases of in-dim `d` that were nonzero and become zero are removed
    /// instead of kept (Triton's `ensureLayoutNotLargerThan` without
    /// register broadcasting).
    pub(crate) fn clip_outs(
        &self,
        op: &'static str,
        log2: &[u8],
        drop_zeroed: Option<Dim>,
    ) -> Result<LinearLayout> {
        debug_assert!(
            log2.len() == self.num_out_dims()
                && log2.iter().zip(self.outs_raw()).all(|(&new, o)| new <= o.1),
            "clip_outs only shrinks"
        );
        let mut outs = self.outs_owned();
        for (o, &bits) in outs.iter_mut().zip(log2) {
            o.1 = bits;
        }
        // Per out-dim, its field in the old packing and the part of that
        // field a fitting component leaves zero.
        let masks: SmallVec<[(u64, u64); 4]> = self
            .outs_raw()
            .iter()
            .zip(log2)
            .enumerate()
            .map(|(k, (&(_, old), &new))| {
                let shift = self.out_shift(k);
                let field = bits::shl(bits::low_mask(old as u32), shift);
                (field, field & !bits::shl(bits::low_mask(new as u32), shift))
            })
            .collect();
        let repack = Repack::new(self.outs_raw(), &shrink_plan(self.outs_raw(), &outs));
        let clip = |c: u64| {
            let fitting = masks.iter().fold(
                c,
                |c, &(field, high)| {
                    if c & high != 0 { c & !field } else { c }
                },
            );
            repack.apply(fitting)
        };
        let mut ins = DimBits::new();
        let mut cols = Cols::with_capacity(self.cols_raw().len());
        for (k, &(d, _)) in self.ins_raw().iter().enumerate() {
            let before = cols.len();
            for &c in self.in_cols(k) {
                let clipped = clip(c);
                if drop_zeroed == Some(d) && c != 0 && clipped == 0 {
                    continue;
                }
                cols.push(clipped);
            }
            ins.push((d, (cols.len() - before) as u8));
        }
        LinearLayout::from_parts(op, ins, cols, outs, false)
    }

    /// Grows out-dim `k` by `growth[k]` bits, each new bit reached by a new
    /// basis of in-dim `d`, appended after its own in out-dim order: the
    /// product of `self` with `identity_1d(2^growth[k], d, out_k)` for every
    /// `k` in turn, built in one pass (Triton's `ensureLayoutNotSmallerThan`).
    pub(crate) fn grow_outs(
        &self,
        op: &'static str,
        d: Dim,
        growth: &[u8],
    ) -> Result<LinearLayout> {
        debug_assert_eq!(growth.len(), self.num_out_dims());
        let target = self.require_in(d, op)?;
        let total: u32 = growth.iter().map(|&g| g as u32).sum();
        super::check_bit_limits(
            op,
            (self.total_in_bits() + total) as usize,
            self.total_out_bits() + total,
        )?;
        // Within 64 bits in all, so no single dim overflows a `u8`.
        let mut outs = self.outs_owned();
        for (o, &g) in outs.iter_mut().zip(growth) {
            o.1 += g;
        }
        // Every field moves up by the growth of the out-dims below it; a
        // field's own new bits sit above its old ones.
        let repack = Repack::from_fn(self.outs_raw(), |k, _| Some(super::out_shift(&outs, k)));
        let mut ins = DimBits::new();
        let mut cols = Cols::with_capacity(self.cols_raw().len() + total as usize);
        for (k, &(name, bits)) in self.ins_raw().iter().enumerate() {
            cols.extend(self.in_cols(k).iter().map(|&c| repack.apply(c)));
            let mut added = 0u8;
            if k == target {
                for (j, (&(_, old), &g)) in self.outs_raw().iter().zip(growth).enumerate() {
                    let base = super::out_shift(&outs, j) + old as u32;
                    cols.extend((0..g as u32).map(|i| 1u64 << (base + i)));
                    added += g;
                }
            }
            ins.push((name, bits + added));
        }
        LinearLayout::from_parts(op, ins, cols, outs, false)
    }

    /// Renames in-dim `old` to `new`, moving it to the end of the in-dims.
    ///
    /// As in Triton (erase, then a map insert that never overwrites), when
    /// `new` is already another in-dim, `old` and its bases are dropped and
    /// `new` keeps its own bases and place; the result must then still be
    /// surjective if the layout was.
    pub fn rename_in_dim(&self, old: Dim, new: Dim) -> Result<LinearLayout> {
        const OP: &str = "rename_in_dim";
        let k = self.require_in(old, OP)?;
        let mut ins = DimBits::new();
        let mut cols = Cols::new();
        for (j, &x) in self.ins_raw().iter().enumerate() {
            if j != k {
                ins.push(x);
                cols.extend_from_slice(self.in_cols(j));
            }
        }
        let clash = new != old && self.has_in_dim(new);
        if !clash {
            ins.push((new, self.ins_raw()[k].1));
            cols.extend_from_slice(self.in_cols(k));
        }
        LinearLayout::from_parts(
            OP,
            ins,
            cols,
            self.outs_owned(),
            clash && self.is_surjective(),
        )
    }
}

/// A plan that keeps every out-dim in place in a packing whose sizes may have
/// shrunk (components must already fit).
pub(crate) fn shrink_plan(old: &DimBits, new: &DimBits) -> SmallVec<[Option<u32>; 4]> {
    (0..old.len())
        .map(|k| Some(super::out_shift(new, k)))
        .collect()
}
