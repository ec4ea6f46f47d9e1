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
/// The basis is kept sorted by highest set bit, descending, with distinct
/// highest bits, so reducing a vector is one pass: XOR a basis vector in
/// exactly when that lowers the vector (it then has the basis vector's
/// highest bit set).
#[derive(Clone)]
pub(crate) struct SpanBasis {
    /// `(vector, combination)`: the combination's bit `i` stands for the
    /// `i`-th inserted column.
    basis: smallvec::SmallVec<[(u64, u64); 32]>,
    /// How many columns have been offered to `insert`.
    offered: u32,
}

impl SpanBasis {
    pub(crate) fn new() -> Self {
        SpanBasis {
            basis: smallvec::SmallVec::new(),
            offered: 0,
        }
    }

    /// Reduces `v` against the basis: returns the residue (zero exactly when
    /// `v` is in the span) and the set of inserted columns used.
    pub(crate) fn reduce(&self, mut v: u64) -> (u64, u64) {
        let mut combo = 0u64;
        for &(b, cb) in &self.basis {
            if v ^ b < v {
                v ^= b;
                combo ^= cb;
            }
        }
        (v, combo)
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
        let (v, combo) = self.reduce(column);
        if v == 0 {
            return false;
        }
        let at = self.basis.partition_point(|&(b, _)| b > v);
        self.basis.insert(at, (v, combo ^ (1u64 << index)));
        true
    }

    /// The number of independent columns inserted.
    #[cfg(test)]
    pub(crate) fn rank(&self) -> u32 {
        self.basis.len() as u32
    }
}

/// The rank of a set of packed columns.
///
/// Keeps the reduced columns sorted by highest set bit (descending), so a
/// new column is reduced by one pass of `v = min(v, v ^ b)`: XOR-ing `b`
/// lowers `v` exactly when `v` has `b`'s highest bit set. No table to clear,
/// which matters because every constructed layout computes its rank.
pub(crate) fn rank(columns: &[u64]) -> u32 {
    let mut basis: smallvec::SmallVec<[u64; 64]> = smallvec::SmallVec::new();
    for &c in columns {
        let mut v = c;
        for &b in &basis {
            v = v.min(v ^ b);
        }
        if v != 0 {
            let at = basis.partition_point(|&b| b > v);
            basis.insert(at, v);
        }
    }
    basis.len() as u32
}

/// A mask with the low `bits` bits set (`bits` may be 64).
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
        let mut span = SpanBasis::new();
        for &c in &cols {
            span.insert(c);
        }
        assert_eq!(rank(&cols), span.rank());
    }

    #[test]
    fn pivots_are_greedy_columns() {
        let mut b = SpanBasis::new();
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
