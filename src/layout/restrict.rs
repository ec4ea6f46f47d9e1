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
        // A component >= size is zeroed whole (not truncated).
        let mut outs = self.outs_owned();
        outs[k].1 = bits as u8;
        let plan = shrink_plan(self.outs_raw(), &outs);
        let shift = self.out_shift(k);
        let field = bits::shl(bits::low_mask(current), shift);
        let repack = Repack::new(self.outs_raw(), &plan);
        let cols = self
            .cols_raw()
            .iter()
            .map(|&c| {
                let c = if bits::shr(c & field, shift) >= size {
                    c & !field
                } else {
                    c
                };
                repack.apply(c)
            })
            .collect();
        LinearLayout::from_parts(OP, self.ins_owned(), cols, outs, false)
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
