//! Building a layout from its bases: Triton's `LinearLayout(bases, outDims)`
//! constructor and its `checkInvariants`.
//!
//! The bases arrive nested, one `Vec` of components per input bit, as in
//! Triton's `BasesT`. Each basis is checked and packed into one `u64` column
//! (see [`crate::bits`]); the rank then decides surjectivity.

use super::{
    COLS_INLINE, Cols, DIMS_INLINE, DimBits, LinearLayout, MAX_BITS, MAX_DIM_BITS,
    check_bit_limits, check_distinct, collect_small, cols_from_fn, log2_exact,
};
use crate::bits;
use crate::dim::Dim;
use crate::error::{LayoutError, Result, Side};
use std::mem::MaybeUninit;

/// The operation named in errors: both constructors are Triton's
/// `LinearLayout` constructor.
const OP: &str = "from_bases";

impl LinearLayout {
    /// Builds a layout from its bases, inferring each out-dim's size as the
    /// smallest power of two above every component on it (Triton's
    /// `LinearLayout(bases, outDimNames)`). The result must be surjective.
    pub fn from_bases(bases: &[(Dim, Vec<Vec<u64>>)], out_dim_names: &[Dim]) -> Result<Self> {
        let mut sizes: Vec<(Dim, u64)> = out_dim_names.iter().map(|&d| (d, 1)).collect();
        for (in_dim, vectors) in bases {
            for (index, basis) in vectors.iter().enumerate() {
                if basis.len() != out_dim_names.len() {
                    return Err(LayoutError::BasisLength {
                        op: OP,
                        in_dim: *in_dim,
                        index,
                        got: basis.len(),
                        expected: out_dim_names.len(),
                    });
                }
                for (k, &c) in basis.iter().enumerate() {
                    let Some(size) = c.checked_add(1).and_then(u64::checked_next_power_of_two)
                    else {
                        // Out-dim sizes are at most 2^63, so a component
                        // is at most 2^63 - 1.
                        return Err(LayoutError::TooLarge {
                            op: OP,
                            what: format!("component on out-dim {}", out_dim_names[k]),
                            value: c,
                            limit: (1 << MAX_DIM_BITS) - 1,
                        });
                    };
                    sizes[k].1 = sizes[k].1.max(size);
                }
            }
        }
        Self::build(bases, &sizes, true)
    }

    /// Builds a layout from its bases and explicit out-dim sizes. With
    /// `require_surjective`, a layout whose bases do not span every out-dim is
    /// an error.
    #[inline]
    pub fn from_bases_with_sizes(
        bases: &[(Dim, Vec<Vec<u64>>)],
        out_dims: &[(Dim, u64)],
        require_surjective: bool,
    ) -> Result<Self> {
        Self::build(bases, out_dims, require_surjective)
    }

    /// The checks of Triton's `checkInvariants`, in its order: basis lengths,
    /// power-of-two sizes, components in range, then surjectivity.
    ///
    /// A valid layout with one to four out-dims and at most [`DIMS_INLINE`]
    /// in-dims is checked on the caller's slices and then assembled once;
    /// anything else, errors included, goes through the checks one at a
    /// time in Triton's order ([`build_in_order`]), so the error is the one
    /// Triton's order gives. Checking first matters for speed: checking the
    /// dim lists after writing them into the layout, as `from_parts` does,
    /// reads back what was just written, which waits on the store buffer for
    /// about as long as everything else.
    pub(crate) fn build(
        bases: &[(Dim, Vec<Vec<u64>>)],
        out_dims: &[(Dim, u64)],
        require_surjective: bool,
    ) -> Result<Self> {
        // Distributed layouts have four in-dims (register, lane, warp,
        // block), and most tensors have two dimensions. A copy of the body
        // for exactly four in-dims has no loop over them (27 fewer
        // instructions at 8 input bits); one for four and two out-dims has
        // no loop over either and no dispatch on the out-dim count (34
        // fewer again). Copies for one, three and four out-dims as well
        // made this function's frame larger and cost the two-dim copy 20
        // instructions, so they are not made (notes/performance.md).
        if let Ok(four) = <&[_; 4]>::try_from(bases) {
            if let Ok(two) = <&[_; 2]>::try_from(out_dims) {
                return Self::build_checked_first::<4, 2>(four, two, require_surjective);
            }
            return Self::build_checked_first::<4, 0>(four, out_dims, require_surjective);
        }
        Self::build_checked_first::<0, 0>(bases, out_dims, require_surjective)
    }

    /// The body of [`build`](Self::build), inlined into it once for each
    /// count of dims it is told (`I` in-dims and `O` out-dims; 0 for any).
    #[inline(always)]
    fn build_checked_first<const I: usize, const O: usize>(
        bases: &[(Dim, Vec<Vec<u64>>)],
        out_dims: &[(Dim, u64)],
        require_surjective: bool,
    ) -> Result<Self> {
        let (bases, out_dims) = (known_len::<I, _>(bases), known_len::<O, _>(out_dims));
        let in_order = || build_in_order(bases, out_dims, require_surjective);
        if bases.len() > DIMS_INLINE || out_dims.len() > DIMS_INLINE {
            return in_order();
        }
        let in_bits = bases.iter().map(|(_, vectors)| vectors.len()).sum();
        let mut out_bits = 0;
        for &(_, size) in out_dims {
            if !size.is_power_of_two() {
                return in_order();
            }
            out_bits += size.trailing_zeros();
        }
        // Each dim list is made whole, unused slots included, so that
        // nothing is written twice.
        let unused = (Dim::REGISTER, 0);
        let parts = Parts {
            ins: std::array::from_fn(|k| bases.get(k).map_or(unused, |(d, v)| (*d, v.len() as u8))),
            n_ins: bases.len(),
            outs: std::array::from_fn(|k| {
                out_dims
                    .get(k)
                    .map_or(unused, |&(d, size)| (d, size.trailing_zeros() as u8))
            }),
            n_outs: out_dims.len(),
            in_bits,
            out_bits,
        };
        if out_bits > MAX_BITS
            || check_distinct(OP, Side::In, &parts.ins[..parts.n_ins], |d| d.0).is_err()
            || check_distinct(OP, Side::Out, &parts.outs[..parts.n_outs], |d| d.0).is_err()
        {
            return in_order();
        }
        // Up to 16 columns are packed into a plain array and handed over
        // whole, unused slots and all: the compiler copies 128 bytes with
        // a few moves, where a `SmallVec` packed in place (one word longer)
        // is copied by a call to `memcpy`. More are packed on the stack and
        // copied once into an exact allocation, which takes fewer
        // instructions than pushing each or zeroing the allocation first.
        if in_bits <= COLS_INLINE {
            parts.finish::<I, COLS_INLINE>(bases, require_surjective, in_order, |cols, packed| {
                // SAFETY: `packed` is the start of `cols`, so its length is
                // at most `COLS_INLINE` and the columns it covers are
                // initialised; an array of `MaybeUninit` has the layout of a
                // `MaybeUninit` array.
                #[allow(unsafe_code)]
                unsafe {
                    let buf = std::mem::transmute::<
                        [MaybeUninit<u64>; COLS_INLINE],
                        MaybeUninit<[u64; COLS_INLINE]>,
                    >(cols);
                    Cols::from_buf_and_len_unchecked(buf, packed.len())
                }
            })
        } else {
            // Each in-dim below 2^63 (fewer than 64 bases, so their OR is
            // too) and at most 64 bits in all: both hold when there are at
            // most 16.
            let any_bits = bases.iter().fold(0, |acc, (_, v)| acc | v.len());
            if any_bits > MAX_DIM_BITS as usize || in_bits > MAX_BITS as usize {
                return in_order();
            }
            parts.finish::<I, _>(
                bases,
                require_surjective,
                in_order,
                |_: [MaybeUninit<u64>; 64], packed| Cols::from_slice(packed),
            )
        }
    }
}

/// `items`, as a slice the compiler knows to hold `L` items when `L > 0` and
/// it does: a copy of the code for a common count, with every loop over the
/// items unrolled.
#[inline(always)]
fn known_len<const L: usize, T>(items: &[T]) -> &[T] {
    match <&[T; L]>::try_from(items) {
        Ok(fixed) if L > 0 => fixed,
        _ => items,
    }
}

/// The checked dims of a layout being built.
struct Parts {
    ins: [(Dim, u8); DIMS_INLINE],
    n_ins: usize,
    outs: [(Dim, u8); DIMS_INLINE],
    n_outs: usize,
    in_bits: usize,
    out_bits: u32,
}

impl Parts {
    /// Packs the bases into a stack array of `C` columns and assembles the
    /// layout, its columns made by `into_cols` from the array and the
    /// columns written at its start; `in_order` when a basis or the rank is
    /// wrong.
    ///
    /// The array is not zeroed: packing writes the columns one after
    /// another and only those are read. Zeroing it took 8 instructions and
    /// about 1 ns of 23 at 8 input bits (notes/performance.md).
    ///
    /// Generic over the array, and inlined into each branch of its caller,
    /// so that each branch writes its own result: choosing the columns
    /// first and assembling once makes the compiler copy the inline array
    /// twice, into a temporary and then into the result.
    #[inline(always)]
    fn finish<const I: usize, const C: usize>(
        &self,
        bases: &[(Dim, Vec<Vec<u64>>)],
        require_surjective: bool,
        in_order: impl FnOnce() -> Result<LinearLayout>,
        into_cols: impl FnOnce([MaybeUninit<u64>; C], &[u64]) -> Cols,
    ) -> Result<LinearLayout> {
        // Not zeroed: only what packing writes is read.
        let mut cols = [MaybeUninit::uninit(); C];
        let Some((tops, written)) = pack_fast::<I, C>(bases, &self.outs[..self.n_outs], &mut cols)
        else {
            return in_order();
        };
        debug_assert_eq!(written, self.in_bits);
        // SAFETY: `pack_fast` initialised `cols[..written]`.
        #[allow(unsafe_code)]
        let packed = unsafe { std::slice::from_raw_parts(cols.as_ptr().cast::<u64>(), written) };
        // The rank comes from the columns' highest bits, noted as they are
        // packed rather than read back afterwards.
        let rank = tops.rank(packed);
        if require_surjective && rank != self.out_bits {
            return in_order();
        }
        Ok(LinearLayout::from_valid_parts(
            DimBits::from_buf_and_len(self.ins, self.n_ins),
            into_cols(cols, packed),
            DimBits::from_buf_and_len(self.outs, self.n_outs),
            rank,
        ))
    }
}

/// The checks one at a time, in Triton's order, then the layout.
#[inline(never)]
fn build_in_order(
    bases: &[(Dim, Vec<Vec<u64>>)],
    out_dims: &[(Dim, u64)],
    require_surjective: bool,
) -> Result<LinearLayout> {
    let in_bits: usize = bases.iter().map(|(_, vectors)| vectors.len()).sum();
    let out_bits = out_dims.iter().map(|d| d.1.trailing_zeros()).sum();
    check_shape(bases, out_dims, in_bits, out_bits)?;
    let outs: DimBits = collect_small(
        out_dims
            .iter()
            .map(|&(d, size)| (d, size.trailing_zeros() as u8)),
    );
    let cols = cols_from_fn(in_bits, |slots| pack_any(bases, &outs, slots))?;
    let ins = collect_small(bases.iter().map(|(d, vectors)| (*d, vectors.len() as u8)));
    LinearLayout::from_parts(OP, ins, cols, outs, require_surjective)
}

/// The shape checks of [`LinearLayout::build`], in Triton's order: every
/// basis has one component per out-dim, every size is a power of two, and
/// both sides are within [`MAX_BITS`].
fn check_shape(
    bases: &[(Dim, Vec<Vec<u64>>)],
    out_dims: &[(Dim, u64)],
    in_bits: usize,
    out_bits: u32,
) -> Result<()> {
    for (in_dim, vectors) in bases {
        if let Some(index) = vectors.iter().position(|b| b.len() != out_dims.len()) {
            return Err(LayoutError::BasisLength {
                op: OP,
                in_dim: *in_dim,
                index,
                got: vectors[index].len(),
                expected: out_dims.len(),
            });
        }
    }
    for &(d, size) in out_dims {
        log2_exact(OP, || format!("size of out-dim {d}"), size)?;
    }
    check_bit_limits(OP, in_bits, out_bits)
}

/// Packs `bases` (one component per out-dim of `outs`) into one column per
/// basis, written to `cols` in order, and returns their highest bits (for
/// the rank) and how many columns it wrote, when every basis has that many
/// components, all in range; `None` otherwise, or when there are not one to
/// four out-dims, or more than `C` bases. On `Some((_, n))`, `cols[..n]`
/// are initialised: the unsafe code in [`Parts::finish`] relies on it.
///
/// Layouts almost always have one to four out-dims; for those the
/// per-basis loop is unrolled (`pack_fixed`), and the length and range
/// checks are part of packing.
#[inline(always)]
fn pack_fast<const I: usize, const C: usize>(
    bases: &[(Dim, Vec<Vec<u64>>)],
    outs: &[(Dim, u8)],
    cols: &mut [MaybeUninit<u64>; C],
) -> Option<(bits::Tops, usize)> {
    match outs.len() {
        1 => pack_fixed::<I, 1, C>(bases, outs, cols),
        2 => pack_fixed::<I, 2, C>(bases, outs, cols),
        3 => pack_fixed::<I, 3, C>(bases, outs, cols),
        4 => pack_fixed::<I, 4, C>(bases, outs, cols),
        _ => None,
    }
}

/// [`pack_fast`] for exactly `N` out-dims.
///
/// The running state (next slot, highest bits) is local and returned by
/// value: kept behind a reference, as a closure's captures are, each basis
/// would read and write it back through memory, one dependent round trip
/// after another.
#[inline]
fn pack_fixed<const I: usize, const N: usize, const C: usize>(
    bases: &[(Dim, Vec<Vec<u64>>)],
    outs: &[(Dim, u8)],
    cols: &mut [MaybeUninit<u64>; C],
) -> Option<(bits::Tops, usize)> {
    let outs = <&[(Dim, u8); N]>::try_from(outs).ok()?;
    let bases = known_len::<I, _>(bases);
    // Sizes are powers of two below 2^64, so `log2 < 64`: a component is in
    // range when it has no bit in `beyond`.
    let beyond = outs.map(|o| u64::MAX << o.1);
    let mut shift = [0u32; N];
    for k in 1..N {
        shift[k] = shift[k - 1] + outs[k - 1].1 as u32;
    }
    let (mut slots, mut tops, mut any) = (cols.iter_mut(), bits::Tops::default(), [0u64; N]);
    for (_, vectors) in bases {
        for basis in vectors {
            let c = <&[u64; N]>::try_from(basis.as_slice()).ok()?;
            let mut packed = 0u64;
            for k in 0..N {
                // The range is checked once at the end, on the OR of every
                // component: nothing here depends on it.
                any[k] |= c[k];
                // Past bit 63 only zero components remain.
                packed |= c[k].wrapping_shl(shift[k]);
            }
            // At most `C` bases: there is always a slot. Each slot is
            // written as soon as it is taken, so the slots taken are the
            // slots written.
            slots.next()?.write(packed);
            tops.add(packed);
        }
    }
    let outside = (0..N).fold(0, |acc, k| acc | any[k] & beyond[k]);
    (outside == 0).then_some((tops, C - slots.len()))
}

/// Packs `bases` as [`pack_fast`] does, for any number of out-dims, with
/// the error for the first out-of-range component. The bases have the right
/// lengths ([`check_shape`]).
fn pack_any(bases: &[(Dim, Vec<Vec<u64>>)], outs: &[(Dim, u8)], slots: &mut [u64]) -> Result<()> {
    let mut slots = slots.iter_mut();
    for (in_dim, vectors) in bases {
        for (index, basis) in vectors.iter().enumerate() {
            let mut packed = 0u64;
            let mut shift = 0u32;
            for (&c, &(out_dim, log2)) in basis.iter().zip(outs) {
                // Sizes are powers of two below 2^64, so `log2 < 64`.
                if c >> log2 != 0 {
                    return Err(LayoutError::ComponentOutOfRange {
                        op: OP,
                        in_dim: *in_dim,
                        index,
                        out_dim,
                        value: c,
                        size: 1u64 << log2,
                    });
                }
                // Past bit 63 only zero components remain.
                packed |= c.wrapping_shl(shift);
                shift += log2 as u32;
            }
            if let Some(slot) = slots.next() {
                *slot = packed;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dim::dim;
    use crate::layout::Bases;

    /// Mostly well-formed input with every kind of defect now and then: a
    /// basis of the wrong length, a size that is not a power of two (or 0),
    /// a component out of range, a repeated name, more than 64 bits.
    fn raw_input(next: &mut impl FnMut() -> u64) -> (Bases, Vec<(Dim, u64)>) {
        let one_in = |n: u64, next: &mut dyn FnMut() -> u64| next() % n == 0;
        let name = |prefix: &str, k: u64, next: &mut dyn FnMut() -> u64| {
            // One name in 32 repeats an earlier one.
            let k = if k > 0 && next() % 32 == 0 {
                next() % k
            } else {
                k
            };
            dim(&format!("{prefix}{k}"))
        };
        let out_dims: Vec<(Dim, u64)> = (0..next() % 6)
            .map(|k| {
                let size = match next() % 40 {
                    0 => next() % 40,
                    1 => 1 << (next() % 64),
                    _ => 1 << (next() % 9),
                };
                (name("out", k, &mut *next), size)
            })
            .collect();
        let bases = (0..next() % 5)
            .map(|k| {
                let count = if one_in(40, &mut *next) {
                    40
                } else {
                    next() % 8
                };
                let vectors = (0..count)
                    .map(|_| {
                        let len = if one_in(64, &mut *next) {
                            (next() % 6) as usize
                        } else {
                            out_dims.len()
                        };
                        (0..len)
                            .map(|k| {
                                let size = out_dims.get(k).map_or(4, |d| d.1.max(1));
                                // One component in 128 lands at or past its size.
                                let bound = if one_in(128, &mut *next) {
                                    size.saturating_mul(2)
                                } else {
                                    size
                                };
                                next() % bound.max(1)
                            })
                            .collect()
                    })
                    .collect();
                (name("in", k, &mut *next), vectors)
            })
            .collect();
        (bases, out_dims)
    }

    #[test]
    fn checking_first_gives_the_in_order_result() {
        let mut next = crate::layout::xorshift(0x2545_F491_4F6C_DD1Du64);
        let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
        for _ in 0..40_000 {
            let (bases, out_dims) = raw_input(&mut next);
            let surjective = next() % 2 == 0;
            let fast = LinearLayout::build(&bases, &out_dims, surjective);
            let in_order = build_in_order(&bases, &out_dims, surjective);
            assert_eq!(fast, in_order, "{bases:?} {out_dims:?}");
            let kind = match fast {
                Ok(l) => format!("ok, {} out-dims", l.num_out_dims().min(4)),
                Err(e) => format!("{e:?}")
                    .split([' ', '{'])
                    .next()
                    .unwrap_or("")
                    .to_string(),
            };
            *outcomes.entry(kind).or_default() += 1;
        }
        // Every path is exercised: each outcome, and each fixed width.
        for kind in [
            "ok, 1 out-dims",
            "ok, 2 out-dims",
            "ok, 3 out-dims",
            "ok, 4 out-dims",
            "BasisLength",
            "NotPowerOfTwo",
            "ComponentOutOfRange",
            "DuplicateDim",
            "TooManyBits",
            "NotSurjective",
        ] {
            let seen = outcomes.get(kind).copied().unwrap_or(0);
            assert!(seen >= 50, "{kind}: {seen} of {outcomes:?}");
        }
    }
}
