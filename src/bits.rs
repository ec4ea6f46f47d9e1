//! Bit-matrix kernels over GF(2).
//!
//! A layout's basis vectors are stored as *packed columns*: the image of one
//! input bit, with every out-dim's component laid side by side in a single
//! `u64` (the first out-dim in the lowest bits). Triton's matrices are the
//! transpose (one `u64` per output bit), reduced with `f2reduce` into reduced
//! row-echelon form where the lowest set bit of a row is its pivot.
//!
//! What Triton reads off that RREF only depends on which columns are
//! *pivots*: column `c` is a pivot exactly when it is independent of the
//! columns before it. So instead of transposing and reducing, we insert the
//! columns one by one, in Triton's column order, into a [`SpanBasis`]: the
//! columns it accepts are Triton's pivots, and the combination it reports for
//! a vector is the unique combination of pivot columns that Triton's
//! back-substitution (free variables set to zero) produces.

/// An XOR basis of the span of the columns inserted so far, remembering for
/// each basis vector which inserted columns it is the sum of.
///
/// Basis vectors are indexed by their highest set bit, so reducing a vector
/// costs one step per set bit it meets, whatever the rank.
///
/// `N` bounds the highest bit of any column offered (bit `N - 1` at most):
/// the tables are zeroed on creation, and a 16-bit problem need not zero
/// 1 KiB.
#[derive(Clone)]
pub(crate) struct SpanBasis<const N: usize = 64> {
    /// `vecs[b]` has highest set bit `b` (when `present` has bit `b`).
    vecs: [u64; N],
    /// `combos[b]`: the set of inserted columns (bit `i` = column `i`) whose
    /// XOR is `vecs[b]`.
    combos: [u64; N],
    present: u64,
    /// How many columns have been offered to `insert`.
    offered: u32,
}

impl<const N: usize> SpanBasis<N> {
    pub(crate) fn new() -> Self {
        SpanBasis {
            vecs: [0; N],
            combos: [0; N],
            present: 0,
            offered: 0,
        }
    }

    /// Reduces `v` against the basis: returns the residue (zero exactly when
    /// `v` is in the span) and the set of inserted columns used.
    pub(crate) fn reduce(&self, v: u64) -> (u64, u64) {
        let (mut rest, mut residue, mut combo) = (v, 0u64, 0u64);
        while rest != 0 {
            let top = 63 - rest.leading_zeros();
            let bit = 1u64 << top;
            if self.present & bit != 0 {
                rest ^= self.vecs[top as usize];
                combo ^= self.combos[top as usize];
            } else {
                residue |= bit;
                rest ^= bit;
            }
        }
        (residue, combo)
    }

    /// Offers the next column. Returns `true` when it is independent of the
    /// columns offered before it (a pivot column, in Triton's terms).
    ///
    /// At most 64 columns can be offered; later ones are reported dependent.
    pub(crate) fn insert(&mut self, column: u64) -> bool {
        let index = self.offered;
        self.offered += 1;
        if index >= 64 {
            return false;
        }
        let (mut v, mut combo) = (column, 1u64 << index);
        while v != 0 {
            let top = 63 - v.leading_zeros();
            if self.present & (1 << top) == 0 {
                self.vecs[top as usize] = v;
                self.combos[top as usize] = combo;
                self.present |= 1 << top;
                return true;
            }
            v ^= self.vecs[top as usize];
            combo ^= self.combos[top as usize];
        }
        false
    }

    /// The number of independent columns inserted.
    #[cfg(test)]
    pub(crate) fn rank(&self) -> u32 {
        self.present.count_ones()
    }
}

/// The highest set bits of the nonzero columns seen so far: enough to tell
/// the rank of most column sets without eliminating anything.
///
/// Nonzero columns whose highest set bits all differ are independent (in
/// that order they are triangular), so their count is the rank. Most
/// layouts are like this: bit permutations with broadcast zeros, and
/// swizzles that XOR in lower bits only.
#[derive(Clone, Copy, Default)]
pub(crate) struct Tops {
    /// The highest bit of each nonzero column.
    seen: u64,
    /// How many columns were zero. Zero columns are the rarer kind, so
    /// counting them, not the others, keeps the common path one step
    /// shorter.
    zeros: u32,
}

impl Tops {
    /// Notes one more column.
    #[inline(always)]
    pub(crate) fn add(&mut self, column: u64) {
        if column == 0 {
            rarely();
            self.zeros += 1;
        } else {
            self.seen |= 1 << column.ilog2();
        }
    }

    /// The rank of `columns`, which are exactly the columns noted. When
    /// their highest bits all differ that is their count; the others go
    /// through the same elimination as [`SpanBasis`], without tracking
    /// combinations.
    #[inline(always)]
    pub(crate) fn rank(&self, columns: &[u64]) -> u32 {
        // Distinct highest bits: their count is the rank. They most often
        // fill the low bits exactly (a surjective layout), which is
        // checked without counting them: `seen + 1 == 2^nonzero`. With 64
        // columns the shift wraps to 1 and the test fails, leaving it to
        // the count.
        let nonzero = columns.len() as u32 - self.zeros;
        let fills_low_bits = self.seen.wrapping_add(1) == 1u64.wrapping_shl(nonzero);
        if fills_low_bits || self.seen.count_ones() == nonzero {
            return nonzero;
        }
        // The table, indexed by highest set bit, is only as large as the
        // widest column needs: zeroing 512 bytes would cost more than
        // reducing a small layout.
        match 64 - self.seen.leading_zeros() {
            0..=16 => rank_in::<16>(columns),
            17..=32 => rank_in::<32>(columns),
            _ => rank_in::<64>(columns),
        }
    }
}

/// Marks the path that calls it as the unlikely one, so that the compiler
/// lays out the other as the fall-through (`std::hint::cold_path`, before
/// it was stable).
#[cold]
#[inline]
fn rarely() {}

/// The rank of a set of packed columns (see [`Tops`]).
pub(crate) fn rank(columns: &[u64]) -> u32 {
    let mut tops = Tops::default();
    for &c in columns {
        tops.add(c);
    }
    tops.rank(columns)
}

/// [`rank`] for columns below bit `N`.
#[inline]
fn rank_in<const N: usize>(columns: &[u64]) -> u32 {
    let mut table = [0u64; N];
    let mut present = 0u64;
    for &c in columns {
        let mut v = c;
        while v != 0 {
            let top = (63 - v.leading_zeros()) as usize;
            if present & (1 << top) == 0 {
                table[top] = v;
                present |= 1 << top;
                break;
            }
            v ^= table[top];
        }
    }
    present.count_ones()
}

/// The XOR of the columns selected by the set bits of `selector`: bit `j`
/// selects `columns[j]`, bits past the last column are ignored. This is a
/// layout applied to a flat input.
///
/// Two ways to compute it. Visiting only the set bits costs one dependent
/// step each (find the lowest, clear it), which is fastest for a few
/// columns. For many, masking every column by its bit and XORing them all
/// has no dependency between columns, and with AVX2 four columns go per
/// instruction: at 32 and 64 columns this takes about half the time. The
/// CPU is asked once per call (the answer is cached by `std`).
#[inline]
pub(crate) fn xor_selected(columns: &[u64], selector: u64) -> u64 {
    xor_selected_within(columns, selector & low_mask(columns.len() as u32))
}

/// [`xor_selected`] for a selector with no bit past the last column, as
/// an input checked against its dims' sizes is: masking it again would be
/// ten instructions on the path from the input to the walk.
#[inline]
pub(crate) fn xor_selected_within(columns: &[u64], selector: u64) -> u64 {
    debug_assert_eq!(selector & !low_mask(columns.len() as u32), 0);
    #[cfg(target_arch = "x86_64")]
    if columns.len() >= WIDE_SELECTION && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `xor_masked_avx2` only requires AVX2, detected just above.
        #[allow(unsafe_code)]
        return unsafe { xor_masked_avx2(columns, selector) };
    }
    xor_set_bits(columns, selector)
}

/// Columns from which [`xor_selected`] masks every column instead of
/// visiting set bits (measured: below this they take the same time or the
/// set bits win).
#[cfg(target_arch = "x86_64")]
const WIDE_SELECTION: usize = 16;

/// [`xor_selected`] by visiting the set bits of `selector`: the faster
/// way when few bits are set, whatever the number of columns. Every set bit
/// of `selector` must select a column (a layout's column as selector of the
/// next layout's input columns always does).
#[inline]
pub(crate) fn xor_set_bits(columns: &[u64], selector: u64) -> u64 {
    debug_assert_eq!(selector & !low_mask(columns.len() as u32), 0);
    let mut acc = 0u64;
    let mut rest = selector;
    while rest != 0 {
        acc ^= columns[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    acc
}

/// [`xor_selected`] by masking every column with its bit: no branch and no
/// dependency between columns, so the compiler vectorises it.
#[cfg(any(target_arch = "x86_64", test))]
#[inline(always)]
fn xor_masked(columns: &[u64], selector: u64) -> u64 {
    let mut acc = 0u64;
    for (j, &c) in columns.iter().enumerate().take(64) {
        acc ^= c & ((selector >> j) & 1).wrapping_neg();
    }
    acc
}

/// [`xor_masked`] compiled for AVX2.
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn xor_masked_avx2(columns: &[u64], selector: u64) -> u64 {
    xor_masked(columns, selector)
}

/// `v << s`, zero once `s` reaches 64: a field that starts at bit 64 (after
/// 64 output bits, a size-1 out-dim) is empty.
#[inline]
pub(crate) fn shl(v: u64, s: u32) -> u64 {
    v.checked_shl(s).unwrap_or(0)
}

/// `v >> s`, zero once `s` reaches 64 (see [`shl`]).
#[inline]
pub(crate) fn shr(v: u64, s: u32) -> u64 {
    v.checked_shr(s).unwrap_or(0)
}

/// A mask with the low `bits` bits set (`bits` may be 64).
#[inline]
pub(crate) fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_counts_independent_columns() {
        assert_eq!(rank(&[]), 0);
        assert_eq!(rank(&[0, 0]), 0);
        assert_eq!(rank(&[0b011, 0b101, 0b110]), 2);
        assert_eq!(rank(&[1, 2, 4, 8, 3, 12]), 4);
        let mut x = 0x9e3779b97f4a7c15u64;
        let cols: Vec<u64> = (0..64)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect();
        let mut span = SpanBasis::<64>::new();
        for &c in &cols {
            span.insert(c);
        }
        assert_eq!(rank(&cols), span.rank());
    }

    /// Both ways of selecting columns, and the dispatch between them, give
    /// the same XOR for every column count up to 64, with selector bits past
    /// the last column ignored.
    #[test]
    fn column_selection_agrees_with_a_plain_fold() {
        let mut next = crate::layout::xorshift(0x6A09_E667_F3BC_C908);
        for n in 0..=64usize {
            for _ in 0..200 {
                let columns: Vec<u64> = (0..n).map(|_| next()).collect();
                let selector = next() >> (next() % 64);
                let expected = columns
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| (selector >> j) & 1 == 1)
                    .fold(0, |acc, (_, &c)| acc ^ c);
                assert_eq!(xor_selected(&columns, selector), expected, "{n}");
                let in_range = selector & low_mask(n as u32);
                assert_eq!(xor_set_bits(&columns, in_range), expected, "{n}");
                assert_eq!(xor_selected_within(&columns, in_range), expected, "{n}");
                assert_eq!(xor_masked(&columns, selector), expected, "{n}");
            }
        }
    }

    /// Layout-like columns (bit permutations, swizzles, zeros) with now and
    /// then a column that repeats or combines earlier ones: the shortcut for
    /// distinct highest bits and the elimination both agree with
    /// [`SpanBasis`], and both are taken.
    #[test]
    fn rank_agrees_with_elimination_on_layout_like_columns() {
        let mut next = crate::layout::xorshift(0x51_7CC1_B727_220A);
        let (mut shortcut, mut eliminated) = (0, 0);
        for _ in 0..20_000 {
            let width = 1 + next() % 64;
            let n = next() % 20;
            let mut cols: Vec<u64> = Vec::new();
            for _ in 0..n {
                let top = next() % width;
                let c = match next() % 8 {
                    0 => 0,
                    1 if !cols.is_empty() => {
                        let (a, b) = (next() as usize % cols.len(), next() as usize % cols.len());
                        cols[a] ^ cols[b] ^ ((next() % 2) * cols[0])
                    }
                    2 => (1 << top) | (next() & low_mask(top as u32)),
                    _ => 1 << top,
                };
                cols.push(c);
            }
            let mut span = SpanBasis::<64>::new();
            for &c in &cols {
                span.insert(c);
            }
            assert_eq!(rank(&cols), span.rank(), "{cols:x?}");
            assert_eq!(rank_in::<64>(&cols), span.rank(), "{cols:x?}");
            let nonzero: Vec<u32> = cols
                .iter()
                .filter(|&&c| c != 0)
                .map(|c| c.ilog2())
                .collect();
            let distinct = nonzero
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            if distinct == nonzero.len() {
                shortcut += 1;
            } else {
                eliminated += 1;
            }
        }
        assert!(
            shortcut > 2000 && eliminated > 2000,
            "{shortcut} {eliminated}"
        );
    }

    #[test]
    fn pivots_are_greedy_columns() {
        let mut b = SpanBasis::<64>::new();
        assert!(b.insert(0b01));
        assert!(!b.insert(0b00));
        assert!(b.insert(0b11));
        assert!(!b.insert(0b10));
        assert_eq!(b.rank(), 2);
        // 0b10 = col0 ^ col2
        assert_eq!(b.reduce(0b10), (0, 0b101));
        assert_eq!(b.reduce(0b100).0, 0b100);
    }
}
