//! Division: undoing a product (Triton's `divideLeft` / `divideRight`).

use super::{Cols, DimBits, LinearLayout};
use crate::bits;
use crate::error::{LayoutError, Result};

impl LinearLayout {
    /// Finds `C` with `self = b * C` (`b` the inner factor), or `None` when
    /// there is none of the shape Triton looks for: every dim of `b` must be
    /// a dim of `self`, no larger; the first bases of each in-dim must be
    /// `b`'s (a missing out-dim counting as 0); and the later bases must be
    /// clear of `b`'s low bits on every out-dim. `C` has all of `self`'s dims,
    /// with the later bases shifted down by `b`'s out sizes.
    pub fn divide_left(&self, b: &LinearLayout) -> Result<Option<LinearLayout>> {
        const OP: &str = "divide_left";
        let Some((b_ins, b_outs)) = self.factor_sizes(b) else {
            return Ok(None);
        };
        let mut outs = self.outs_owned();
        for (k, x) in outs.iter_mut().enumerate() {
            x.1 -= b_outs[k];
        }
        // b's columns in self's packing.
        let b_in_self = b.columns_in(self.outs_raw());
        let mut ins = self.ins_owned();
        let mut cols = Cols::new();
        for (k, &(d, _)) in self.ins_raw().iter().enumerate() {
            let nb = b_ins[k] as usize;
            let a_cols = self.in_cols(k);
            if let Some(kb) = b.in_index(d) {
                let start = b.in_start(kb);
                if a_cols[..nb] != b_in_self[start..start + nb] {
                    return Ok(None);
                }
            }
            for &c in &a_cols[nb..] {
                let mut packed = 0u64;
                for o in 0..self.num_out_dims() {
                    let comp = self.component(c, o);
                    let low = b_outs[o] as u32;
                    if comp & bits::low_mask(low) != 0 {
                        return Ok(None);
                    }
                    packed |= bits::shl(comp >> low, super::out_shift(&outs, o));
                }
                cols.push(packed);
            }
            ins[k].1 -= nb as u8;
        }
        let c = LinearLayout::from_parts(OP, ins, cols, outs, false)?;
        if b.is_surjective() && self.is_surjective() && !c.is_surjective() {
            return Err(c.not_surjective(OP));
        }
        self.check_division(OP, &b.product(&c)?)?;
        Ok(Some(c))
    }

    /// Finds `C` with `self = C * b` (`b` the outer factor), or `None` when
    /// `self`'s last bases of each in-dim are not `b`'s, shifted above `C`'s
    /// out sizes, on `b`'s out-dims. `C` takes the first bases unchanged.
    pub fn divide_right(&self, b: &LinearLayout) -> Result<Option<LinearLayout>> {
        const OP: &str = "divide_right";
        let Some((b_ins, b_outs)) = self.factor_sizes(b) else {
            return Ok(None);
        };
        let mut outs = self.outs_owned();
        for (k, x) in outs.iter_mut().enumerate() {
            x.1 -= b_outs[k];
        }
        let mut ins = self.ins_owned();
        let mut cols = Cols::new();
        // Triton builds C only after every in-dim has passed the checks
        // against `b`, so a later mismatch (`None`) wins over an earlier C
        // component that does not fit (a constructor failure).
        let mut too_large: Option<LayoutError> = None;
        for (k, &(d, bits_a)) in self.ins_raw().iter().enumerate() {
            let nb = b_ins[k] as usize;
            let keep = bits_a as usize - nb;
            let a_cols = self.in_cols(k);
            if let Some(kb) = b.in_index(d) {
                for (i, &bc) in b.in_cols(kb).iter().enumerate() {
                    let ac = a_cols[keep + i];
                    for (ob, &(od, _)) in b.outs_raw().iter().enumerate() {
                        let o = self.out_index(od).unwrap_or(0);
                        let expected = b.component(bc, ob) << outs[o].1;
                        if self.component(ac, o) != expected {
                            return Ok(None);
                        }
                    }
                }
            }
            // C's bases keep their components; one that does not fit C's
            // smaller out-dim is a constructor failure in Triton.
            for (i, &c) in a_cols[..keep].iter().enumerate() {
                let mut packed = 0u64;
                for (o, &(od, bits_c)) in outs.iter().enumerate() {
                    let comp = self.component(c, o);
                    if comp >> bits_c != 0 {
                        too_large.get_or_insert(LayoutError::ComponentOutOfRange {
                            op: OP,
                            in_dim: d,
                            index: i,
                            out_dim: od,
                            value: comp,
                            size: 1u64 << bits_c,
                        });
                        continue;
                    }
                    packed |= bits::shl(comp, super::out_shift(&outs, o));
                }
                cols.push(packed);
            }
            ins[k].1 = keep as u8;
        }
        if let Some(err) = too_large {
            return Err(err);
        }
        let c = LinearLayout::from_parts(OP, ins, cols, outs, false)?;
        if b.is_surjective() && self.is_surjective() && !c.is_surjective() {
            return Err(c.not_surjective(OP));
        }
        self.check_division(OP, &c.product(b)?)?;
        Ok(Some(c))
    }

    /// For each of `self`'s in-dims and out-dims, `b`'s `log2` size there
    /// (0 when `b` lacks it); `None` when `b` has a dim `self` lacks or a
    /// larger one.
    fn factor_sizes(&self, b: &LinearLayout) -> Option<(DimBits8, DimBits8)> {
        let sizes = |mine: &DimBits, theirs: &DimBits| -> Option<DimBits8> {
            if theirs.iter().any(|&(d, _)| !mine.iter().any(|x| x.0 == d)) {
                return None;
            }
            mine.iter()
                .map(|&(d, bits)| {
                    let nb = theirs.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
                    (nb <= bits).then_some(nb)
                })
                .collect()
        };
        Some((
            sizes(self.ins_raw(), b.ins_raw())?,
            sizes(self.outs_raw(), b.outs_raw())?,
        ))
    }

    /// Triton asserts that a successful division multiplies back.
    fn check_division(&self, op: &'static str, product: &LinearLayout) -> Result<()> {
        if product != self {
            return Err(LayoutError::DivisionMismatch { op });
        }
        Ok(())
    }
}

type DimBits8 = smallvec::SmallVec<[u8; 4]>;
