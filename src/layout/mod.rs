//! The [`LinearLayout`] type: construction, invariants and accessors.
//!
//! A layout is a linear map over GF(2) from named *in-dims* (hardware index
//! bits) to named *out-dims* (tensor coordinates). In-dim `d` has bases
//! `b_0, b_1, …`: `b_i` is the image of the input where `d = 2^i` and every
//! other in-dim is 0. The image of any other input is the XOR of the bases of
//! its set bits. Both dim lists are ordered, minor to major, exactly as in
//! Triton: the order decides reshapes, products, printing and which of many
//! equally valid answers the solving operations return.
//!
//! Storage is one packed `u64` column per input bit (see [`crate::bits`]),
//! which caps a layout at 64 input bits and 64 output bits, as Triton's
//! `getMatrix` does.

mod compose;
mod divide;
mod from_bases;
mod product;
pub use product::supremum;
mod queries;
mod reshape;
mod restrict;

use crate::bits;
use crate::dim::Dim;
use crate::error::{DimList, DimSizes, LayoutError, Result, Side};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::ops::Range;

/// The most input bits, and separately output bits, a layout may have.
pub const MAX_BITS: u32 = 64;

/// The largest single dimension: sizes are `u64` powers of two.
const MAX_DIM_BITS: u32 = 63;

/// The most in-dims, and separately out-dims, a layout read from input may
/// name ([`LinearLayout::check_dim_counts`]). Triton's layouts have at most
/// five in-dims and one out-dim per tensor dim; the operations look dims
/// up by name, so a bound on their number bounds the work of every one.
/// Dims of size 2 or more are bounded by [`MAX_BITS`] already: this bounds
/// the size-1 dims, which cost no bit.
pub const MAX_DIMS: usize = 256;

pub(crate) type Cols = SmallVec<[u64; COLS_INLINE]>;

/// Columns held inline before a layout's columns move to the heap.
pub(crate) const COLS_INLINE: usize = 16;
pub(crate) type DimBits = SmallVec<[(Dim, u8); DIMS_INLINE]>;

/// Dims held inline, per side, before a layout's dim list moves to the heap.
pub(crate) const DIMS_INLINE: usize = 4;

/// A linear layout: a GF(2)-linear map from in-dims to out-dims.
///
/// Equality compares the in-dims (names, order and bases), the out-dim names
/// in order and the out-dim sizes, like Triton's `operator==`; hashing is
/// consistent with it.
#[derive(PartialEq, Eq, Hash)]
pub struct LinearLayout {
    /// In-dims in order, with their `log2` size (= number of bases).
    ins: DimBits,
    /// Packed images of the input bits, in-dim by in-dim, basis 0 first.
    cols: Cols,
    /// Out-dims in order, with their `log2` size. Out-dim `k` occupies bits
    /// `shift(k) .. shift(k) + log2` of every column.
    outs: DimBits,
    /// Rank of the basis matrix, cached like Triton's newest releases do.
    rank: u8,
}

// By hand: `SmallVec`'s own `clone` copies element by element, while these
// elements are `Copy` and one `memcpy` each does.
impl Clone for LinearLayout {
    fn clone(&self) -> Self {
        LinearLayout {
            ins: self.ins_owned(),
            cols: Cols::from_slice(&self.cols),
            outs: self.outs_owned(),
            rank: self.rank,
        }
    }
}

impl std::fmt::Debug for LinearLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LinearLayout({self})")
    }
}

impl Default for LinearLayout {
    fn default() -> Self {
        LinearLayout::empty()
    }
}

/// The bases of a layout in their user-facing form: for each in-dim, in
/// order, the list of basis vectors, each with one component per out-dim.
pub type Bases = Vec<(Dim, Vec<Vec<u64>>)>;

impl LinearLayout {
    // ----------------------------------------------------------------------
    // Construction
    // ----------------------------------------------------------------------

    /// The layout with no in-dims and no out-dims: the identity of
    /// [`product`](Self::product).
    pub fn empty() -> Self {
        LinearLayout {
            ins: DimBits::new(),
            cols: Cols::new(),
            outs: DimBits::new(),
            rank: 0,
        }
    }

    /// Builds a layout from packed parts, checking the limits and computing
    /// the rank. Every constructor whose dims come from its caller funnels
    /// through here. Inlined, so that the parts are assembled once, in the
    /// caller's frame.
    #[inline(always)]
    pub(crate) fn from_parts(
        op: &'static str,
        ins: DimBits,
        cols: Cols,
        outs: DimBits,
        require_surjective: bool,
    ) -> Result<Self> {
        check_distinct(op, Side::In, &ins, |d| d.0)?;
        check_distinct(op, Side::Out, &outs, |d| d.0)?;
        let in_bits: u32 = ins.iter().map(|d| d.1 as u32).sum();
        let out_bits: u32 = outs.iter().map(|d| d.1 as u32).sum();
        check_bit_limits(op, in_bits as usize, out_bits)?;
        // Each size must itself fit in a u64.
        for (side, dims) in [(Side::In, &ins), (Side::Out, &outs)] {
            if let Some(&(d, bits)) = dims.iter().find(|x| x.1 as u32 > MAX_DIM_BITS) {
                return Err(LayoutError::TooLarge {
                    op,
                    what: format!("log2 size of {side}-dim {d}"),
                    value: bits as u64,
                    limit: MAX_DIM_BITS as u64,
                });
            }
        }
        let rank = bits::rank(&cols);
        let layout = Self::from_valid_parts(ins, cols, outs, rank);
        if require_surjective && rank != out_bits {
            return Err(layout.not_surjective(op));
        }
        Ok(layout)
    }

    /// A layout from parts that already satisfy every invariant
    /// [`from_parts`](Self::from_parts) checks, with `rank` their rank.
    ///
    /// For operations whose result inherits its dims from valid operands
    /// (distinct names, within the limits) and whose rank follows from theirs
    /// without elimination. Debug builds re-check all of it, so the test
    /// suite verifies every such claim.
    #[inline]
    pub(crate) fn from_valid_parts(ins: DimBits, cols: Cols, outs: DimBits, rank: u32) -> Self {
        let layout = LinearLayout {
            ins,
            cols,
            outs,
            rank: rank as u8,
        };
        debug_assert!(layout.invariants_hold(), "invalid parts: {layout:?}");
        layout
    }

    /// Everything [`from_parts`](Self::from_parts) checks, and the cached
    /// rank, as one predicate for debug assertions.
    fn invariants_hold(&self) -> bool {
        let in_bits: u32 = self.ins.iter().map(|d| d.1 as u32).sum();
        let out_bits = self.total_out_bits();
        let sizes_fit = |dims: &DimBits| dims.iter().all(|d| d.1 as u32 <= MAX_DIM_BITS);
        check_distinct("", Side::In, &self.ins, |d| d.0).is_ok()
            && check_distinct("", Side::Out, &self.outs, |d| d.0).is_ok()
            && check_bit_limits("", in_bits as usize, out_bits).is_ok()
            && sizes_fit(&self.ins)
            && sizes_fit(&self.outs)
            && self.cols.len() == in_bits as usize
            && self
                .cols
                .iter()
                .all(|&c| c & !bits::low_mask(out_bits) == 0)
            && self.rank as u32 == bits::rank(&self.cols)
    }

    pub(crate) fn not_surjective(&self, op: &'static str) -> LayoutError {
        LayoutError::NotSurjective {
            op,
            rank: self.rank as u32,
            out_bits: self.total_out_bits(),
            out_dims: self.out_dim_sizes(),
        }
    }

    /// `x ↦ x` on `size` elements: bases `1, 2, 4, …, size/2`. A size of 0
    /// gives [`empty`](Self::empty), as in Triton.
    pub fn identity_1d(size: u64, in_dim: Dim, out_dim: Dim) -> Result<Self> {
        Self::strided("identity_1d", size, 1, in_dim, out_dim)
    }

    /// `x ↦ stride · x` on `size` elements, with out size `stride · size`.
    /// Surjective only when `stride` is 1.
    pub fn strided_1d(size: u64, stride: u64, in_dim: Dim, out_dim: Dim) -> Result<Self> {
        Self::strided("strided_1d", size, stride, in_dim, out_dim)
    }

    fn strided(
        op: &'static str,
        size: u64,
        stride: u64,
        in_dim: Dim,
        out_dim: Dim,
    ) -> Result<Self> {
        if size == 0 {
            return Ok(Self::empty());
        }
        let n = log2_exact(op, || "size".to_string(), size)?;
        let s = log2_exact(op, || "stride".to_string(), stride)?;
        let out_log2 = n + s;
        if out_log2 > MAX_DIM_BITS {
            // The product itself may not fit in 64 bits: compare logs.
            return Err(LayoutError::TooLarge {
                op,
                what: "log2(size × stride)".to_string(),
                value: out_log2 as u64,
                limit: MAX_DIM_BITS as u64,
            });
        }
        let cols = (0..n).map(|i| 1u64 << (i + s)).collect();
        Self::from_parts(
            op,
            smallvec::smallvec![(in_dim, n as u8)],
            cols,
            smallvec::smallvec![(out_dim, out_log2 as u8)],
            stride == 1,
        )
    }

    /// The identity from `in_dim` onto `outs` (distinct names with their
    /// log2 sizes, at most [`MAX_BITS`] bits in all), the first out-dim
    /// lowest: what a product of `identity_1d`s onto these out-dims gives,
    /// built directly.
    pub(crate) fn identity_onto(op: &'static str, in_dim: Dim, outs: DimBits) -> Result<Self> {
        let n: u32 = outs.iter().map(|d| d.1 as u32).sum();
        check_bit_limits(op, n as usize, n)?;
        let cols = cols_from_fn(n as usize, |slots| {
            for (j, slot) in slots.iter_mut().enumerate() {
                *slot = 1 << j;
            }
            Ok(())
        })?;
        Self::from_parts(op, smallvec::smallvec![(in_dim, n as u8)], cols, outs, true)
    }

    /// `x ↦ 0` on `size` elements, with out size `out_size` (Triton's
    /// default is 1). A size of 0 gives [`empty`](Self::empty).
    pub fn zeros_1d(size: u64, in_dim: Dim, out_dim: Dim, out_size: u64) -> Result<Self> {
        const OP: &str = "zeros_1d";
        if size == 0 {
            return Ok(Self::empty());
        }
        let n = log2_exact(OP, || "size".to_string(), size)?;
        let out_log2 = log2_exact(OP, || "out-dim size".to_string(), out_size)?;
        Self::from_parts(
            OP,
            smallvec::smallvec![(in_dim, n as u8)],
            smallvec::smallvec![0; n as usize],
            smallvec::smallvec![(out_dim, out_log2 as u8)],
            out_size == 1,
        )
    }

    // ----------------------------------------------------------------------
    // Dims and sizes
    // ----------------------------------------------------------------------

    /// The in-dim names, in order.
    pub fn in_dim_names(&self) -> impl ExactSizeIterator<Item = Dim> + Clone + '_ {
        self.ins.iter().map(|d| d.0)
    }

    /// The out-dim names, in order.
    pub fn out_dim_names(&self) -> impl ExactSizeIterator<Item = Dim> + Clone + '_ {
        self.outs.iter().map(|d| d.0)
    }

    /// The in-dims with their sizes, in order.
    pub fn in_dims(&self) -> impl ExactSizeIterator<Item = (Dim, u64)> + '_ {
        self.ins.iter().map(|&(d, b)| (d, 1u64 << b))
    }

    /// The out-dims with their sizes, in order.
    pub fn out_dims(&self) -> impl ExactSizeIterator<Item = (Dim, u64)> + '_ {
        self.outs.iter().map(|&(d, b)| (d, 1u64 << b))
    }

    /// Number of in-dims.
    pub fn num_in_dims(&self) -> usize {
        self.ins.len()
    }

    /// Number of out-dims.
    pub fn num_out_dims(&self) -> usize {
        self.outs.len()
    }

    /// Whether `d` is an in-dim.
    pub fn has_in_dim(&self, d: Dim) -> bool {
        self.in_index(d).is_some()
    }

    /// Whether `d` is an out-dim.
    pub fn has_out_dim(&self, d: Dim) -> bool {
        self.out_index(d).is_some()
    }

    /// `log2` of in-dim `d`'s size, i.e. its number of bases.
    pub fn in_dim_size_log2(&self, d: Dim) -> Result<u32> {
        Ok(self.ins[self.require_in(d, "in_dim_size")?].1 as u32)
    }

    /// In-dim `d`'s size.
    pub fn in_dim_size(&self, d: Dim) -> Result<u64> {
        Ok(1u64 << self.in_dim_size_log2(d)?)
    }

    /// `log2` of out-dim `d`'s size.
    pub fn out_dim_size_log2(&self, d: Dim) -> Result<u32> {
        Ok(self.outs[self.require_out(d, "out_dim_size")?].1 as u32)
    }

    /// Out-dim `d`'s size.
    pub fn out_dim_size(&self, d: Dim) -> Result<u64> {
        Ok(1u64 << self.out_dim_size_log2(d)?)
    }

    /// Total number of input bits.
    #[inline]
    pub fn total_in_bits(&self) -> u32 {
        self.cols.len() as u32
    }

    /// Total number of output bits.
    #[inline]
    pub fn total_out_bits(&self) -> u32 {
        self.outs.iter().map(|d| d.1 as u32).sum()
    }

    /// The product of the in-dim sizes.
    pub fn total_in_dim_size(&self) -> u128 {
        1u128 << self.total_in_bits()
    }

    /// The product of the out-dim sizes.
    pub fn total_out_dim_size(&self) -> u128 {
        1u128 << self.total_out_bits()
    }

    /// The out-dims and their sizes, for messages.
    pub(crate) fn out_dim_sizes(&self) -> DimSizes {
        DimSizes(self.out_dims().collect())
    }

    /// The in-dims and their sizes, for messages.
    pub(crate) fn in_dim_sizes(&self) -> DimSizes {
        DimSizes(self.in_dims().collect())
    }

    // ----------------------------------------------------------------------
    // Bases
    // ----------------------------------------------------------------------

    /// Basis `index` of in-dim `d`: one component per out-dim, in order.
    pub fn basis(&self, d: Dim, index: usize) -> Result<SmallVec<[u64; 4]>> {
        let k = self.require_in(d, "basis")?;
        let len = self.ins[k].1 as usize;
        if index >= len {
            return Err(LayoutError::IndexOutOfRange {
                op: "basis",
                index,
                len,
            });
        }
        Ok(self.components(self.cols[self.in_start(k) + index]))
    }

    /// Every basis, in-dim by in-dim, in order.
    pub fn bases(&self) -> Bases {
        // each in-dim's columns from a running start: linear in the dims
        self.ins
            .iter()
            .zip(self.in_ranges())
            .map(|(&(d, _), range)| {
                (
                    d,
                    self.cols[range]
                        .iter()
                        .map(|&c| self.components(c).to_vec())
                        .collect(),
                )
            })
            .collect()
    }

    /// Refuses a layout read from input with more than [`MAX_DIMS`]
    /// in-dims or out-dims (`too_large`, naming `op`), before it is built.
    pub fn check_dim_counts(op: &'static str, ins: usize, outs: usize) -> Result<()> {
        for (side, count) in [("in-dims", ins), ("out-dims", outs)] {
            if count > MAX_DIMS {
                return Err(LayoutError::TooLarge {
                    op,
                    what: format!("the number of {side}"),
                    value: count as u64,
                    limit: MAX_DIMS as u64,
                });
            }
        }
        Ok(())
    }

    // ----------------------------------------------------------------------
    // Packed-representation helpers shared by the operations
    // ----------------------------------------------------------------------

    #[inline]
    pub(crate) fn in_index(&self, d: Dim) -> Option<usize> {
        self.ins.iter().position(|x| x.0 == d)
    }

    #[inline]
    pub(crate) fn out_index(&self, d: Dim) -> Option<usize> {
        self.outs.iter().position(|x| x.0 == d)
    }

    pub(crate) fn require_in(&self, d: Dim, op: &'static str) -> Result<usize> {
        self.in_index(d).ok_or_else(|| LayoutError::UnknownDim {
            op,
            side: Side::In,
            dim: d,
            available: DimList(self.in_dim_names().collect()),
        })
    }

    pub(crate) fn require_out(&self, d: Dim, op: &'static str) -> Result<usize> {
        self.out_index(d).ok_or_else(|| LayoutError::UnknownDim {
            op,
            side: Side::Out,
            dim: d,
            available: DimList(self.out_dim_names().collect()),
        })
    }

    /// Index of in-dim `k`'s first column.
    #[inline]
    pub(crate) fn in_start(&self, k: usize) -> usize {
        self.ins[..k].iter().map(|d| d.1 as usize).sum()
    }

    /// The indices of in-dim `k`'s columns.
    #[inline]
    pub(crate) fn in_range(&self, k: usize) -> Range<usize> {
        let start = self.in_start(k);
        start..start + self.ins[k].1 as usize
    }

    /// The indices of each in-dim's columns, in order.
    #[inline]
    pub(crate) fn in_ranges(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.ins.iter().scan(0, |start, &(_, bits)| {
            let range = *start..*start + bits as usize;
            *start = range.end;
            Some(range)
        })
    }

    /// The columns re-packed for out-dims `packing`, which must hold each of
    /// this layout's out-dims at least as wide (in any order, possibly with
    /// more dims). Borrowed when the packing is this layout's own.
    pub(crate) fn columns_in(&self, packing: &DimBits) -> Cow<'_, Cols> {
        if self.outs == *packing {
            return Cow::Borrowed(&self.cols);
        }
        let repack = Repack::from_fn(&self.outs, |_, d| {
            let k = packing.iter().position(|x| x.0 == d);
            k.map(|k| out_shift(packing, k))
        });
        Cow::Owned(self.cols.iter().map(|&c| repack.apply(c)).collect())
    }

    /// The columns of in-dim `k`.
    #[inline]
    pub(crate) fn in_cols(&self, k: usize) -> &[u64] {
        &self.cols[self.in_range(k)]
    }

    /// The bit offset of out-dim `k` inside a packed column.
    #[inline]
    pub(crate) fn out_shift(&self, k: usize) -> u32 {
        out_shift(&self.outs, k)
    }

    /// One component of a packed column.
    pub(crate) fn component(&self, col: u64, k: usize) -> u64 {
        bits::shr(col, self.out_shift(k)) & bits::low_mask(self.outs[k].1 as u32)
    }

    /// All components of a packed column, in out-dim order.
    pub(crate) fn components(&self, col: u64) -> SmallVec<[u64; 4]> {
        self.unpack(col).map(|(_, c)| c).collect()
    }

    /// Each out-dim with its component of a packed column, in out-dim order.
    #[inline]
    pub(crate) fn unpack(&self, col: u64) -> impl Iterator<Item = (Dim, u64)> + '_ {
        self.outs.iter().scan(0u32, move |shift, &(d, b)| {
            let c = bits::shr(col, *shift) & bits::low_mask(b as u32);
            *shift += b as u32;
            Some((d, c))
        })
    }

    /// A copy of the in-dims, for a result that keeps them.
    #[inline]
    pub(crate) fn ins_owned(&self) -> DimBits {
        copy_dims(&self.ins)
    }

    /// A copy of the out-dims, for a result that keeps them.
    #[inline]
    pub(crate) fn outs_owned(&self) -> DimBits {
        copy_dims(&self.outs)
    }

    #[inline]
    pub(crate) fn ins_raw(&self) -> &DimBits {
        &self.ins
    }

    #[inline]
    pub(crate) fn outs_raw(&self) -> &DimBits {
        &self.outs
    }

    #[inline]
    pub(crate) fn cols_raw(&self) -> &[u64] {
        &self.cols
    }

    /// Rank of the basis matrix: the number of independent bases.
    #[inline]
    pub fn rank(&self) -> u32 {
        self.rank as u32
    }
}

/// The bit offset of out-dim `k` in a packing with dims `outs`.
#[inline]
pub(crate) fn out_shift(outs: &DimBits, k: usize) -> u32 {
    outs[..k].iter().map(|d| d.1 as u32).sum()
}

/// A change of packing, computed once and applied to every column: each
/// kept source out-dim becomes one masked rotation (its field moves from its
/// source offset to its destination offset), and fields that move by the
/// same amount share one mask.
#[derive(Default)]
pub(crate) struct Repack {
    moves: SmallVec<[(u64, u32); 4]>,
}

impl Repack {
    /// Source out-dim `k` of `src` moves to bit offset `plan[k]`, or is
    /// dropped when `None`. Destination fields must fit in 64 bits.
    pub(crate) fn new(src: &[(Dim, u8)], plan: &[Option<u32>]) -> Self {
        Self::from_fn(src, |k, _| plan.get(k).copied().flatten())
    }

    /// [`new`](Self::new) with the plan as a function of each source
    /// out-dim's index and name.
    #[inline]
    pub(crate) fn from_fn(src: &[(Dim, u8)], dest: impl Fn(usize, Dim) -> Option<u32>) -> Self {
        let mut repack = Repack::default();
        repack.plan(src, dest);
        repack
    }

    /// Fills an empty `Repack` in place, as [`from_fn`](Self::from_fn) would
    /// build it. Hot callers keep the `Repack` in their own frame this way:
    /// moving one right after its last write stalls on the store buffer for
    /// longer than building it takes.
    #[inline]
    pub(crate) fn plan(&mut self, src: &[(Dim, u8)], dest: impl Fn(usize, Dim) -> Option<u32>) {
        debug_assert!(self.moves.is_empty());
        let mut shift = 0u32;
        for (k, &(d, b)) in src.iter().enumerate() {
            // A size-1 field has no bits to move (and may start at bit 64).
            // (`dest` is asked only for fields with bits: a layout may have
            // any number of size-1 dims.)
            if let Some(dest) = (b > 0).then(|| dest(k, d)).flatten() {
                let mask = bits::low_mask(b as u32) << shift;
                // A rotation moves the field up or down alike; the field never
                // wraps because both offsets keep it within 64 bits.
                let rotation = dest.wrapping_sub(shift) & 63;
                match self.moves.iter_mut().find(|m| m.1 == rotation) {
                    Some(m) => m.0 |= mask,
                    None => self.moves.push((mask, rotation)),
                }
            }
            shift += b as u32;
        }
    }

    /// The column in the destination packing.
    #[inline]
    pub(crate) fn apply(&self, col: u64) -> u64 {
        let mut out = 0;
        for &(mask, rotation) in &self.moves {
            out |= (col & mask).rotate_left(rotation);
        }
        out
    }
}

/// Runs `fill` on an empty layout held inside the `Result` to be returned.
///
/// The general `product` builds its result piece by piece and writes it in
/// place through this: a layout is a few hundred bytes, and moving one
/// right after writing it waits on the store buffer for longer than most
/// operations take. One move remains, out to the caller: rustc does not
/// build `result` in the return slot. (`compose` measured faster assembling
/// its parts directly in the returned value, see [`zeroed_cols`].)
#[inline(always)]
pub(crate) fn in_place(fill: impl FnOnce(&mut LinearLayout) -> Result<()>) -> Result<LinearLayout> {
    let mut result = Ok(LinearLayout::empty());
    if let Ok(out) = &mut result
        && let Err(e) = fill(out)
    {
        result = Err(e);
    }
    result
}

/// A copy of a dim list. Inline lists are copied entry by entry into a
/// fixed array, padded with unused entries: `SmallVec::from_slice` copies a
/// slice of variable length, which the compiler does by calling `memcpy`.
#[inline(always)]
fn copy_dims(dims: &DimBits) -> DimBits {
    if dims.len() > DIMS_INLINE {
        return DimBits::from_slice(dims);
    }
    let at = |k: usize| dims.get(k).copied().unwrap_or((Dim::REGISTER, 0));
    DimBits::from_buf_and_len([at(0), at(1), at(2), at(3)], dims.len())
}

/// Collects a short list into a `SmallVec` through a stack array when it
/// fits inline, handed over whole: `SmallVec`'s own `collect` checks
/// capacity per element and writes element by element, and a value read
/// back right after such narrow writes waits on the store buffer.
#[inline]
pub(crate) fn collect_small<T: Copy, const N: usize>(
    mut items: impl ExactSizeIterator<Item = T>,
) -> SmallVec<[T; N]>
where
    [T; N]: smallvec::Array<Item = T>,
{
    let n = items.len();
    if n > N {
        return items.collect();
    }
    let Some(first) = items.next() else {
        return SmallVec::new();
    };
    let mut buf = [first; N];
    for (slot, item) in buf[1..n].iter_mut().zip(items) {
        *slot = item;
    }
    SmallVec::from_buf_and_len(buf, n)
}

/// `n` zero columns, inline when they fit, to be filled in where they
/// stay: copying a freshly written column array waits on the stores that
/// wrote it. Moving the filled `SmallVec` into a layout still copies it
/// with a call to `memcpy` (it is 136 bytes, past what the compiler copies
/// with a few moves): the hot paths (`compose`, `invert_and_compose`,
/// `product`, `from_bases`) fill a plain `[u64; 16]` instead and build the
/// layout from it in one expression.
#[inline]
pub(crate) fn zeroed_cols(n: usize) -> Cols {
    if n <= COLS_INLINE {
        Cols::from_buf_and_len([0; COLS_INLINE], n)
    } else {
        Cols::from_vec(vec![0; n])
    }
}

/// `n` columns (at most [`MAX_BITS`]) filled in by `fill`, where they stay
/// (see [`zeroed_cols`]).
#[inline]
pub(crate) fn cols_from_fn(n: usize, fill: impl FnOnce(&mut [u64]) -> Result<()>) -> Result<Cols> {
    let mut cols = zeroed_cols(n);
    fill(&mut cols)?;
    Ok(cols)
}

/// A xorshift64 stream for the unit tests' random inputs: seeded, so a
/// failure reproduces.
#[cfg(test)]
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// At most [`MAX_BITS`] input bits and [`MAX_BITS`] output bits.
fn check_bit_limits(op: &'static str, in_bits: usize, out_bits: u32) -> Result<()> {
    if in_bits > MAX_BITS as usize {
        let bits = in_bits.min(u32::MAX as usize) as u32;
        return Err(LayoutError::TooManyBits {
            op,
            side: Side::In,
            bits,
            max: MAX_BITS,
        });
    }
    if out_bits > MAX_BITS {
        return Err(LayoutError::TooManyBits {
            op,
            side: Side::Out,
            bits: out_bits,
            max: MAX_BITS,
        });
    }
    Ok(())
}

/// `log2(value)` when `value` is a nonzero power of two, else an error.
pub(crate) fn log2_exact(
    op: &'static str,
    what: impl FnOnce() -> String,
    value: u64,
) -> Result<u32> {
    if value.is_power_of_two() {
        Ok(value.trailing_zeros())
    } else {
        Err(LayoutError::NotPowerOfTwo {
            op,
            what: what(),
            value,
        })
    }
}

/// No two entries of `dims` share a name. Dim lists are short: a
/// quadratic scan by index beats collecting them anywhere, and this runs on
/// every layout built from outside parts.
pub(crate) fn check_distinct<T>(
    op: &'static str,
    side: Side,
    dims: &[T],
    name: impl Fn(&T) -> Dim,
) -> Result<()> {
    // Up to four names, the usual case, every pair is compared at once,
    // without loops or early exits; a repeat then gets the scan below,
    // which reports the first one.
    let distinct = match dims {
        [] | [_] => true,
        [a, b] => name(a) != name(b),
        [a, b, c] => {
            let (a, b, c) = (name(a), name(b), name(c));
            (a != b) & (a != c) & (b != c)
        }
        [a, b, c, d] => {
            let (a, b, c, d) = (name(a), name(b), name(c), name(d));
            (a != b) & (a != c) & (a != d) & (b != c) & (b != d) & (c != d)
        }
        _ => false,
    };
    if distinct {
        return Ok(());
    }
    if dims.len() > 16 {
        // Many dims (size-1 dims cost nothing): a set keeps this linear.
        let mut seen = rustc_hash::FxHashSet::default();
        return match dims.iter().map(&name).find(|&d| !seen.insert(d)) {
            Some(d) => Err(LayoutError::DuplicateDim { op, side, dim: d }),
            None => Ok(()),
        };
    }
    for i in 1..dims.len() {
        let d = name(&dims[i]);
        if dims[..i].iter().any(|e| name(e) == d) {
            return Err(LayoutError::DuplicateDim { op, side, dim: d });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dim::dim;

    /// Long lists take the hashed path: the same first repeat as a scan.
    #[test]
    fn check_distinct_on_many_dims_reports_the_first_repeat() {
        let names: Vec<Dim> = (0..40).map(|i| dim(&format!("m{i}"))).collect();
        assert_eq!(check_distinct("t", Side::In, &names, |&d| d), Ok(()));
        for repeat_at in [17, 25, 39] {
            for of in [0, 10, 16] {
                let mut with = names.clone();
                with[repeat_at] = names[of];
                let scan = (1..with.len())
                    .find(|&i| with[..i].contains(&with[i]))
                    .map(|i| with[i]);
                assert_eq!(
                    check_distinct("t", Side::In, &with, |&d| d).err(),
                    scan.map(|d| LayoutError::DuplicateDim {
                        op: "t",
                        side: Side::In,
                        dim: d
                    })
                );
            }
        }
    }

    /// Every list of up to six names over a three-letter alphabet: the
    /// result is the first repeat a plain scan finds, or none.
    #[test]
    fn check_distinct_reports_the_first_repeat() {
        let alphabet = [dim("a"), dim("b"), dim("c")];
        let (mut repeats, mut distinct) = (0, 0);
        for len in 0..=6u32 {
            for code in 0..3usize.pow(len) {
                let names: Vec<Dim> = (0..len)
                    .map(|k| alphabet[code / 3usize.pow(k) % 3])
                    .collect();
                let first_repeat = (1..names.len())
                    .find(|&i| names[..i].contains(&names[i]))
                    .map(|i| names[i]);
                let expected = match first_repeat {
                    Some(d) => Err(LayoutError::DuplicateDim {
                        op: "t",
                        side: Side::In,
                        dim: d,
                    }),
                    None => Ok(()),
                };
                assert_eq!(
                    check_distinct("t", Side::In, &names, |&d| d),
                    expected,
                    "{names:?}"
                );
                if first_repeat.is_some() {
                    repeats += 1;
                } else {
                    distinct += 1;
                }
            }
        }
        assert!(repeats > 1000 && distinct > 10, "{repeats} {distinct}");
    }
}
