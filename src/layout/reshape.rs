//! Reshapes, flattens and transposes. The first dim of a list holds the
//! least significant bits when dims are flattened together.

use super::{Cols, DimBits, LinearLayout, check_distinct, log2_exact};
use crate::dim::Dim;
use crate::error::{DimSizes, LayoutError, Result, Side};
use smallvec::SmallVec;

impl LinearLayout {
    /// Re-cuts the in-dims: all bases, in in-dim order, are dealt out to the
    /// new dims in list order, `log2 size` each. The total size must match.
    pub fn reshape_ins(&self, new_ins: &[(Dim, u64)]) -> Result<LinearLayout> {
        const OP: &str = "reshape_ins";
        let ins = self.new_dims(OP, Side::In, new_ins)?;
        Ok(LinearLayout::from_valid_parts(
            ins,
            self.cols_raw().into(),
            self.outs_owned(),
            self.rank(),
        ))
    }

    /// Re-cuts the out-dims: each basis is flattened (the first out-dim least
    /// significant) and split mixed-radix over the new dims, first entry
    /// first. The total size must match — this is the assertion Triton 3.2
    /// users hit in `reshapeOuts`.
    pub fn reshape_outs(&self, new_outs: &[(Dim, u64)]) -> Result<LinearLayout> {
        const OP: &str = "reshape_outs";
        let outs = self.new_dims(OP, Side::Out, new_outs)?;
        // With packed columns the flattened value *is* the column, and the
        // mixed-radix split over powers of two is the same bits re-labelled.
        Ok(LinearLayout::from_valid_parts(
            self.ins_owned(),
            self.cols_raw().into(),
            outs,
            self.rank(),
        ))
    }

    /// Checks a reshape's new dims against the current total.
    fn new_dims(&self, op: &'static str, side: Side, new: &[(Dim, u64)]) -> Result<DimBits> {
        let mut dims = DimBits::new();
        for &(d, size) in new {
            let what = || format!("size of new {side}-dim {d}");
            dims.push((d, log2_exact(op, what, size)? as u8));
        }
        check_distinct(op, side, &dims, |x| x.0)?;
        let old_bits = match side {
            Side::In => self.total_in_bits(),
            Side::Out => self.total_out_bits(),
        };
        let new_bits: u32 = dims.iter().map(|x| x.1 as u32).sum();
        if new_bits != old_bits {
            return Err(LayoutError::TotalSizeMismatch {
                op,
                side,
                new: DimSizes(new.to_vec()),
                new_total: 1u128.checked_shl(new_bits).unwrap_or(u128::MAX),
                old: match side {
                    Side::In => self.in_dim_sizes(),
                    Side::Out => self.out_dim_sizes(),
                },
                old_total: 1u128 << old_bits,
            });
        }
        Ok(dims)
    }

    /// All in-dims merged into one, named after the first, with the full
    /// size. A layout without in-dims is returned unchanged.
    pub fn flatten_ins(&self) -> Result<LinearLayout> {
        match self.in_dim_names().next() {
            None => Ok(self.clone()),
            Some(first) => self.reshape_ins(&[(first, 1u64 << self.total_in_bits().min(63))]),
        }
    }

    /// All out-dims merged into one, named after the first, with the full
    /// size. A layout without out-dims is returned unchanged.
    pub fn flatten_outs(&self) -> Result<LinearLayout> {
        match self.out_dim_names().next() {
            None => Ok(self.clone()),
            Some(first) => self.reshape_outs(&[(first, 1u64 << self.total_out_bits().min(63))]),
        }
    }

    /// Reorders the in-dims; `order` must name each in-dim exactly once.
    pub fn transpose_ins(&self, order: &[Dim]) -> Result<LinearLayout> {
        const OP: &str = "transpose_ins";
        super::compose::same_dim_set(
            OP,
            "the new order and the in-dims",
            order.iter().copied(),
            self.in_dim_names(),
        )?;
        check_distinct(OP, Side::In, order, |&d| d)?;
        let mut ins = DimBits::new();
        let mut cols = Cols::new();
        for &d in order {
            let k = self.require_in(d, OP)?;
            ins.push(self.ins_raw()[k]);
            cols.extend_from_slice(self.in_cols(k));
        }
        Ok(LinearLayout::from_valid_parts(
            ins,
            cols,
            self.outs_owned(),
            self.rank(),
        ))
    }

    /// Reorders the out-dims, permuting every basis; `order` must name each
    /// out-dim exactly once.
    pub fn transpose_outs(&self, order: &[Dim]) -> Result<LinearLayout> {
        const OP: &str = "transpose_outs";
        super::compose::same_dim_set(
            OP,
            "the new order and the out-dims",
            order.iter().copied(),
            self.out_dim_names(),
        )?;
        check_distinct(OP, Side::Out, order, |&d| d)?;
        let mut outs = DimBits::new();
        for &d in order {
            outs.push(self.outs_raw()[self.require_out(d, OP)?]);
        }
        let plan: SmallVec<[Option<u32>; 4]> = self
            .outs_raw()
            .iter()
            .map(|&(d, _)| {
                let k = outs.iter().position(|x| x.0 == d).unwrap_or(0);
                Some(super::out_shift(&outs, k))
            })
            .collect();
        let repack = super::Repack::new(self.outs_raw(), &plan);
        let cols = self.cols_raw().iter().map(|&c| repack.apply(c)).collect();
        Ok(LinearLayout::from_valid_parts(
            self.ins_owned(),
            cols,
            outs,
            self.rank(),
        ))
    }
}
