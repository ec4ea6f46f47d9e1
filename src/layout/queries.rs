//! Questions about a layout that do not build a new one.

use super::LinearLayout;
use crate::bits::{self, SpanBasis};
use crate::dim::Dim;
use crate::error::{DimList, LayoutError, Result, Side};
use smallvec::SmallVec;

impl LinearLayout {
    /// Every output is reached: rank = total output bits.
    #[inline]
    pub fn is_surjective(&self) -> bool {
        self.rank() == self.total_out_bits()
    }

    /// No two inputs share an output: rank = total input bits.
    #[inline]
    pub fn is_injective(&self) -> bool {
        self.rank() == self.total_in_bits()
    }

    /// A bijection: surjective, with as many input as output bits.
    pub fn is_invertible(&self) -> bool {
        self.is_surjective() && self.total_in_bits() == self.total_out_bits()
    }

    /// For each in-dim, the bits whose basis lies in the span of the bases
    /// before it (in-dim order, then basis order). Setting a free bit never
    /// reaches an element the lower bits could not. Zero bases are always
    /// free. These are exactly the non-pivot columns of Triton's RREF.
    pub fn free_variable_masks(&self) -> Vec<(Dim, u64)> {
        let mut span = SpanBasis::<64>::new();
        let mut out = Vec::with_capacity(self.num_in_dims());
        for k in 0..self.num_in_dims() {
            let mut mask = 0u64;
            for (i, &c) in self.in_cols(k).iter().enumerate() {
                if !span.insert(c) {
                    mask |= 1 << i;
                }
            }
            out.push((self.ins_raw()[k].0, mask));
        }
        out
    }

    /// The largest `V` such that `V` consecutive values of the first in-dim
    /// map to `V` consecutive values of the first out-dim, at every input
    /// (Triton's `getNumConsecutiveInOut`). 1 when there are no in- or
    /// out-dims.
    pub fn num_consecutive_in_out(&self) -> u64 {
        if self.num_in_dims() == 0 || self.num_out_dims() == 0 {
            return 1;
        }
        let first = self.in_cols(0);
        // The leading run of first-in-dim bases equal to (2^i, 0, …, 0).
        let consecutive = first
            .iter()
            .enumerate()
            .take_while(|&(i, &c)| i < 64 && c == 1u64 << i)
            .count();
        // Triton tests the *first out-dim's* component against 1 << i, so a
        // first out-dim too small to hold 2^i ends the run.
        let first_bits = self.outs_raw()[0].1 as usize;
        let consecutive = consecutive.min(first_bits);
        let mut other = 0u64;
        for (j, &c) in self.cols_raw().iter().enumerate() {
            if j >= consecutive {
                other |= self.component(c, 0);
            }
        }
        let trailing = if other == 0 {
            31
        } else {
            other.trailing_zeros() as usize
        };
        1u64 << consecutive.min(trailing)
    }

    /// Whether every basis of the given in-dims is zero on the given out-dims.
    pub fn sublayout_is_zero(&self, ins: &[Dim], outs: &[Dim]) -> Result<bool> {
        let sub = self.sublayout(ins, outs)?;
        Ok(sub.cols_raw().iter().all(|&c| c == 0))
    }

    /// Whether the square sub-layout on `dims` (in-dims and out-dims of the
    /// same names) is the identity: equal sizes, and after flattening both
    /// sides in the layout's own order, basis `i` is `2^i`. True for no dims.
    pub fn square_sublayout_is_identity(&self, dims: &[Dim]) -> Result<bool> {
        const OP: &str = "square_sublayout_is_identity";
        if dims.is_empty() {
            return Ok(true);
        }
        // Triton takes the sub-layout first, which fails for any unknown
        // dim, and only then compares the sizes.
        for &d in dims {
            self.require_in(d, OP)?;
            self.require_out(d, OP)?;
        }
        for &d in dims {
            let ki = self.require_in(d, OP)?;
            let ko = self.require_out(d, OP)?;
            if self.ins_raw()[ki].1 != self.outs_raw()[ko].1 {
                return Ok(false);
            }
        }
        let sub = self.sublayout(dims, dims)?;
        // Flattening packs the first out-dim lowest, which is exactly the
        // packed column: basis i must be the single bit i.
        Ok(sub
            .cols_raw()
            .iter()
            .enumerate()
            .all(|(i, &c)| c == 1u64 << i))
    }

    /// Whether the layout does nothing but pass `dims` through: the square
    /// sub-layout on `dims` is the identity, the other in-dims are zero on
    /// `dims`, and `dims` are zero on the other out-dims. Every listed dim
    /// must be both an in-dim and an out-dim.
    pub fn is_trivial_over(&self, dims: &[Dim]) -> Result<bool> {
        const OP: &str = "is_trivial_over";
        for &d in dims {
            self.require_in(d, OP)?;
            self.require_out(d, OP)?;
        }
        let other_ins: SmallVec<[Dim; 4]> =
            self.in_dim_names().filter(|d| !dims.contains(d)).collect();
        let other_outs: SmallVec<[Dim; 4]> =
            self.out_dim_names().filter(|d| !dims.contains(d)).collect();
        Ok(self.square_sublayout_is_identity(dims)?
            && self.sublayout_is_zero(&other_ins, dims)?
            && self.sublayout_is_zero(dims, &other_outs)?)
    }

    /// Equality that ignores the out-dim sizes (names and order still count).
    pub fn equal_ignoring_out_dim_sizes(&self, other: &LinearLayout) -> bool {
        if !self.out_dim_names().eq(other.out_dim_names())
            || !self.in_dim_names().eq(other.in_dim_names())
        {
            return false;
        }
        if self.ins_raw() != other.ins_raw() {
            return false;
        }
        self.cols_raw()
            .iter()
            .zip(other.cols_raw())
            .all(|(&a, &b)| self.components(a) == other.components(b))
    }

    /// Evaluates the layout: `input` gives a value for every in-dim (in any
    /// order); the result has one value per out-dim, in out-dim order.
    ///
    /// Triton silently ignores input bits at or above an in-dim's size; that
    /// is an error here.
    pub fn apply(&self, input: &[(Dim, u64)]) -> Result<SmallVec<[(Dim, u64); 4]>> {
        let packed = match self.apply_in_order(input) {
            Some(packed) => packed,
            None => self.apply_packed(input)?,
        };
        let outs = self.outs_raw();
        // A fixed array handed over whole, like `collect_small` does; written
        // out here because through `collect_small` this measured about 10%
        // slower at 8 bits (notes/performance.md).
        if outs.len() <= 4 {
            let mut buf = [(Dim::REGISTER, 0); 4];
            for (slot, c) in buf.iter_mut().zip(components(outs, packed)) {
                *slot = c;
            }
            return Ok(SmallVec::from_buf_and_len(buf, outs.len()));
        }
        Ok(unpack_many(outs, packed))
    }

    /// The common case of [`apply`](Self::apply), in one pass: the input
    /// names every in-dim in the layout's own order and every value is in
    /// range. `None` for anything else, which the general path then
    /// answers (with its error, if any), so errors come from one place.
    #[inline]
    fn apply_in_order(&self, input: &[(Dim, u64)]) -> Option<u64> {
        let ins = self.ins_raw();
        // Distributed layouts have four in-dims (register, lane, warp,
        // block). With the count known the loop is unrolled, which took
        // about 1 ns off every size of the `apply` bench (notes/performance.md).
        if let (Ok(input), Ok(ins)) = (<&[_; 4]>::try_from(input), <&[_; 4]>::try_from(&ins[..])) {
            let flat = flatten_in_order(input, ins)?;
            return Some(bits::xor_selected_within(self.cols_raw(), flat));
        }
        if input.len() != ins.len() {
            return None;
        }
        let flat = flatten_in_order(input, ins)?;
        Some(bits::xor_selected_within(self.cols_raw(), flat))
    }

    /// [`apply`](Self::apply) with the output packed (the first out-dim
    /// lowest). One pass over the input: find each dim's columns, check
    /// duplicates and range, XOR in the selected columns.
    ///
    /// Kept out of line: inlined into `apply`, its stack frame and saved
    /// registers would be set up on the common path too.
    #[inline(never)]
    fn apply_packed(&self, input: &[(Dim, u64)]) -> Result<u64> {
        const OP: &str = "apply";
        let mismatch = || LayoutError::DimSetMismatch {
            op: OP,
            what: "the input's dims and the layout's in-dims",
            left: DimList(input.iter().map(|x| x.0).collect()),
            right: DimList(self.in_dim_names().collect()),
        };
        let mut packed = 0u64;
        for (i, &(d, value)) in input.iter().enumerate() {
            let Some(range) = self.in_index(d).map(|k| self.in_range(k)) else {
                return Err(mismatch());
            };
            if input[..i].iter().any(|x| x.0 == d) {
                return Err(LayoutError::DuplicateDim {
                    op: OP,
                    side: Side::In,
                    dim: d,
                });
            }
            if value >> range.len() != 0 {
                return Err(LayoutError::InputOutOfRange {
                    op: OP,
                    dim: d,
                    value,
                    size: 1u64 << range.len(),
                });
            }
            packed ^= bits::xor_selected_within(&self.cols_raw()[range], value);
        }
        // Every input dim is a distinct in-dim: all are given when the
        // counts agree.
        if input.len() != self.num_in_dims() {
            return Err(mismatch());
        }
        Ok(packed)
    }

    /// Evaluates the layout on a flat input: bit `j` of `input` is input bit
    /// `j` in in-dim order (the first in-dim lowest); returns the packed
    /// output (the first out-dim lowest). The fast path for enumerations.
    pub fn apply_flat(&self, input: u64) -> u64 {
        bits::xor_selected(self.cols_raw(), input)
    }
}

/// The input as one flat word, bit `j` selecting column `j`, when it names
/// the in-dims `ins` in their order (as many of them) with every value in
/// range; `None` otherwise.
#[inline(always)]
fn flatten_in_order(input: &[(Dim, u64)], ins: &[(Dim, u8)]) -> Option<u64> {
    let (mut flat, mut start) = (0u64, 0u32);
    for (&(d, value), &(want, bits)) in input.iter().zip(ins) {
        if d != want || value >> bits != 0 {
            return None;
        }
        // `start` reaches 64 only once every bit is placed; the dims after
        // that have no bits, so `value` is 0 and the wrap is moot.
        flat |= value.wrapping_shl(start);
        start += bits as u32;
    }
    Some(flat)
}

/// Each out-dim with its component of `packed` (the first out-dim lowest).
#[inline(always)]
fn components(outs: &[(Dim, u8)], packed: u64) -> impl Iterator<Item = (Dim, u64)> + '_ {
    outs.iter().scan(packed, |rest, &(d, b)| {
        // A single dim has at most 63 bits, so the shifts cannot overflow.
        let c = (d, *rest & ((1u64 << b) - 1));
        *rest >>= b;
        Some(c)
    })
}

/// [`components`] on more than four out-dims, out of line: the
/// collection's setup would otherwise be part of every `apply`.
#[inline(never)]
fn unpack_many(outs: &[(Dim, u8)], packed: u64) -> SmallVec<[(Dim, u64); 4]> {
    components(outs, packed).collect()
}
