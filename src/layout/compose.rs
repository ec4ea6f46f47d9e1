//! Composition and solving: `compose`, `invert_and_compose`, `invert`,
//! `pseudoinvert`.

use super::{COLS_INLINE, Cols, LinearLayout};
use crate::bits::{self, SpanBasis};
use crate::dim::Dim;
use crate::error::{DimList, LayoutError, Result, Side};
use smallvec::SmallVec;
use std::ops::Range;

impl LinearLayout {
    /// `self.compose(outer)` is `outer ∘ self`: apply `self`, then `outer`.
    ///
    /// `self`'s out-dims must be `outer`'s in-dims (as sets), each no larger.
    /// The result has `self`'s in-dims and `outer`'s out-dims and sizes.
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        // Output bit `b` of `self` selects `map[b]`, the column of the outer
        // input bit it feeds. When `self`'s out-dims are `outer`'s in-dims,
        // in order and with the same sizes (the usual case), that is
        // `outer`'s own columns, and every check holds; else they are
        // gathered, out of line (its checks and 512-byte array would
        // otherwise be set up on every call).
        if self.outs_raw() == outer.ins_raw() {
            return self.compose_through(outer, outer.cols_raw());
        }
        self.compose_gathered(outer)
    }

    /// [`compose`](Self::compose) when the out-dims and outer's in-dims
    /// differ in order or size: `outer`'s columns are gathered, dim by dim,
    /// into a plain array (at most 64 output bits).
    #[inline(never)]
    fn compose_gathered(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        const OP: &str = "compose";
        same_dim_set(
            OP,
            "the first layout's out-dims and the second layout's in-dims",
            self.out_dim_names(),
            outer.in_dim_names(),
        )?;
        let mut gathered = [0; 64];
        let mut mapped = 0;
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
            let next = mapped + bits as usize;
            gathered[mapped..next].copy_from_slice(&outer.in_cols(k)[..bits as usize]);
            mapped = next;
        }
        self.compose_through(outer, &gathered[..mapped])
    }

    /// `outer ∘ self` with `map[b]` the column of `outer` that output bit
    /// `b` of `self` feeds.
    #[inline(always)]
    fn compose_through(&self, outer: &LinearLayout, map: &[u64]) -> Result<LinearLayout> {
        // Columns of a layout select few bits: visiting them beats masking all.
        let image = |c| bits::xor_set_bits(map, c);
        // An injective `outer` (hence its restriction to the bits `self`
        // reaches) maps `self`'s image isomorphically: the rank is kept.
        let rank_of = |cols: &[u64]| {
            if outer.is_injective() {
                self.rank()
            } else {
                bits::rank(cols)
            }
        };
        let src = self.cols_raw();
        // Up to 16 columns go through a plain array assembled straight into
        // the result: a `SmallVec` of them is 8 bytes past what the compiler
        // copies with a few moves, and returning or moving one calls
        // `memcpy`, which took a third of the time.
        if src.len() <= COLS_INLINE {
            let mut cols = [0; COLS_INLINE];
            for (slot, &c) in cols.iter_mut().zip(src) {
                *slot = image(c);
            }
            let rank = rank_of(&cols[..src.len()]);
            return Ok(LinearLayout::from_valid_parts(
                self.ins_owned(),
                Cols::from_buf_and_len(cols, src.len()),
                outer.outs_owned(),
                rank,
            ));
        }
        let cols: Vec<u64> = src.iter().map(|&c| image(c)).collect();
        let rank = rank_of(&cols);
        Ok(LinearLayout::from_valid_parts(
            self.ins_owned(),
            Cols::from_vec(cols),
            outer.outs_owned(),
            rank,
        ))
    }

    /// Solves `outer(C(x)) = self(x)` for `C` (Triton's `invertAndCompose`).
    ///
    /// `C` has `self`'s in-dims and, as out-dims, `outer`'s in-dims with
    /// `outer`'s in sizes. Among all solutions, Triton 3.9's is returned:
    /// every input bit maps to the unique combination of `outer`'s *pivot*
    /// columns (those independent of the columns before them, in `outer`'s
    /// in-dim order) — free variables are set to zero, which prefers
    /// broadcasting and earlier dims. One exception, Triton's broadcast
    /// heuristic: an in-dim that both layouts have, with identical bases,
    /// maps to itself; in the 3.9 wheel only when no other in-dim of either
    /// layout sets an output bit those bases set (the recorded oracle cases
    /// pin this rule down; `notes/design.md`).
    ///
    /// Errors when the out-dim sets differ, when `outer` has a smaller
    /// out-dim, or when the image of `self` is not inside the image of
    /// `outer` (Triton asserts all three), and when the combined system has
    /// more than 64 columns (where Triton's one-word rows overflow).
    pub fn invert_and_compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        const OP: &str = "invert_and_compose";
        same_dim_set(
            OP,
            "the two layouts' out-dims",
            self.out_dim_names(),
            outer.out_dim_names(),
        )?;
        // Both layouts' columns are compared in one packing: self's out-dim
        // order with outer's (larger or equal) sizes.
        let mut widened = self.outs_owned();
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
            widened[k].1 = outer_bits;
        }
        let solve_bits = self.total_in_bits() + outer.total_in_bits();
        if solve_bits > super::MAX_BITS {
            // Triton packs [outer | self] columns into one 64-bit word per row.
            return Err(LayoutError::TooManyBits {
                op: OP,
                side: Side::In,
                bits: solve_bits,
                max: super::MAX_BITS,
            });
        }
        let self_cols = self.columns_in(&widened);
        let outer_cols = outer.columns_in(&widened);
        let mut identity = SmallVec::<[bool; 8]>::new();
        for ko in 0..outer.num_in_dims() {
            identity.push(maps_to_itself(self, &self_cols, outer, &outer_cols, ko));
        }
        // The solve's tables are indexed by a column's highest bit: sized to
        // the packing, so that a small layout does not zero 1 KiB of them.
        let solve = Solve {
            this: self,
            this_cols: &self_cols,
            outer,
            outer_cols: &outer_cols,
            identity: &identity,
        };
        match super::out_shift(&widened, widened.len()) {
            0..=8 => solve.run::<8>(),
            9..=16 => solve.run::<16>(),
            17..=32 => solve.run::<32>(),
            _ => solve.run::<64>(),
        }
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
    ///
    /// Deliberate difference: when that solve would need more than 64
    /// columns, Triton aborts (its one-word rows overflow); this answers
    /// anyway unless an in-dim shares a name with an out-dim, in which case
    /// the general solve runs and the limit is [`LayoutError::TooManyBits`].
    pub fn pseudoinvert(&self) -> Result<LinearLayout> {
        self.pseudoinvert_as("pseudoinvert")
    }

    fn pseudoinvert_as(&self, op: &'static str) -> Result<LinearLayout> {
        if !self.is_surjective() {
            return Err(self.not_surjective(op));
        }
        // Fast path: unless an in-dim shares a name with an out-dim (where
        // the identity-dims heuristic could apply), the identity's columns
        // are the unit vectors of this layout's own packing, and each solves
        // to its combination of pivot columns.
        if !self.in_dim_names().any(|d| self.has_out_dim(d)) {
            let mut span = SpanBasis::<64>::new();
            for &c in self.cols_raw() {
                span.insert(c);
            }
            let cols: Cols = (0..self.total_out_bits())
                .map(|b| span.reduce(1u64 << b).1)
                .collect();
            // `self ∘ P` is the identity, so `P` is injective.
            let rank = self.total_out_bits();
            return Ok(LinearLayout::from_valid_parts(
                self.outs_owned(),
                cols,
                self.ins_owned(),
                rank,
            ));
        }
        let mut identity = LinearLayout::empty();
        for (d, size) in self.out_dims() {
            identity = identity.product(&LinearLayout::identity_1d(size, d, d)?)?;
        }
        identity.invert_and_compose(self)
    }
}

/// The solving half of [`LinearLayout::invert_and_compose`]: both layouts'
/// columns in one packing, and which of outer's in-dims map to themselves.
struct Solve<'a> {
    this: &'a LinearLayout,
    this_cols: &'a [u64],
    outer: &'a LinearLayout,
    outer_cols: &'a [u64],
    identity: &'a [bool],
}

impl Solve<'_> {
    /// Every other input bit maps to the combination of outer's remaining
    /// pivot columns, found in a [`SpanBasis`] of `N` entries (the packing
    /// has at most `N` bits).
    fn run<const N: usize>(&self) -> Result<LinearLayout> {
        // `place[j]` is where remaining column `j` sits in the result's
        // packing (outer's in-dims, in outer's order); outer has at most 64
        // input bits.
        let mut span = SpanBasis::<N>::new();
        let mut place = [0u32; 64];
        let mut placed = 0;
        for (ko, range) in self.outer.in_ranges().enumerate() {
            if !self.identity[ko] {
                for j in range {
                    span.insert(self.outer_cols[j]);
                    place[placed] = j as u32;
                    placed += 1;
                }
            }
        }
        let place = &place[..placed];
        // Up to 16 columns go through a plain array assembled straight into
        // the result, as in `compose`; a `SmallVec` filled and then moved
        // is copied, twice, by calls to `memcpy`.
        let n = self.this_cols.len();
        if n <= COLS_INLINE {
            let mut cols = [0; COLS_INLINE];
            self.fill(&span, place, &mut cols[..n])?;
            let rank = self.rank(&cols[..n]);
            return Ok(LinearLayout::from_valid_parts(
                self.this.ins_owned(),
                Cols::from_buf_and_len(cols, n),
                self.outer.ins_owned(),
                rank,
            ));
        }
        let mut cols = vec![0; n];
        self.fill(&span, place, &mut cols)?;
        let rank = self.rank(&cols);
        Ok(LinearLayout::from_valid_parts(
            self.this.ins_owned(),
            Cols::from_vec(cols),
            self.outer.ins_owned(),
            rank,
        ))
    }

    /// The solution's columns, one per input bit of this layout: an
    /// identity dim's unit vectors, or the combination of outer's
    /// remaining pivot columns (`span`, placed by `place`) giving the same
    /// image.
    fn fill<const N: usize>(
        &self,
        span: &SpanBasis<N>,
        place: &[u32],
        slots: &mut [u64],
    ) -> Result<()> {
        let (this, outer) = (self.this, self.outer);
        let mut slots = slots.iter_mut();
        for (&(d, _), range) in this.ins_raw().iter().zip(this.in_ranges()) {
            match outer.in_index(d).filter(|&ko| self.identity[ko]) {
                Some(ko) => {
                    // The dim's range first: `zip` takes from its left side
                    // first, and the slot it took would be lost at the end.
                    for (j, slot) in outer.in_range(ko).zip(slots.by_ref()) {
                        *slot = 1u64 << j;
                    }
                }
                None => {
                    for (&c, slot) in self.this_cols[range].iter().zip(slots.by_ref()) {
                        let (residue, combo) = span.reduce(c);
                        if residue != 0 {
                            return Err(LayoutError::ImageNotContained {
                                op: "invert_and_compose",
                            });
                        }
                        *slot = select_places(place, combo);
                    }
                }
            }
        }
        Ok(())
    }

    /// The solution's rank. Outer is injective on the pivot columns that
    /// the solution uses, so it keeps this layout's rank; identity dims may
    /// add rank where it had dependent bases.
    fn rank(&self, cols: &[u64]) -> u32 {
        if self.identity.contains(&true) {
            bits::rank(cols)
        } else {
            self.this.rank()
        }
    }
}

/// Triton 3.9's broadcast heuristic: outer's in-dim `ko` maps to itself when
/// `self` has an in-dim of the same name with identical bases (in the common
/// packing; out sizes may differ) and no other in-dim of either layout sets
/// an output bit those bases set.
fn maps_to_itself(
    this: &LinearLayout,
    this_cols: &[u64],
    outer: &LinearLayout,
    outer_cols: &[u64],
    ko: usize,
) -> bool {
    let Some(ks) = this.in_index(outer.ins_raw()[ko].0) else {
        return false;
    };
    let (this_dim, outer_dim) = (this.in_range(ks), outer.in_range(ko));
    let bases = &this_cols[this_dim.clone()];
    let touched = support(bases);
    let others_touch = |cols: &[u64], dim: Range<usize>| {
        (support(&cols[..dim.start]) | support(&cols[dim.end..])) & touched != 0
    };
    bases == &outer_cols[outer_dim.clone()]
        && !others_touch(this_cols, this_dim)
        && !others_touch(outer_cols, outer_dim)
}

/// The output bits any of `cols` sets.
fn support(cols: &[u64]) -> u64 {
    cols.iter().fold(0, |acc, &c| acc | c)
}

/// The packed column with bit `place[j]` set for every bit `j` of `combo`.
fn select_places(place: &[u32], combo: u64) -> u64 {
    let mut packed = 0u64;
    let mut rest = combo;
    while rest != 0 {
        packed |= 1u64 << place[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    packed
}

/// Errors unless the two lists hold the same names (order ignored).
pub(crate) fn same_dim_set<A, B>(op: &'static str, what: &'static str, a: A, b: B) -> Result<()>
where
    A: ExactSizeIterator<Item = Dim> + Clone,
    B: ExactSizeIterator<Item = Dim> + Clone,
{
    if a.len() == b.len() && a.clone().all(|d| b.clone().any(|e| e == d)) {
        return Ok(());
    }
    Err(LayoutError::DimSetMismatch {
        op,
        what,
        left: DimList(a.collect()),
        right: DimList(b.collect()),
    })
}
