//! Solving for holders.

/// Gaussian elimination over the columns (the image of each input bit):
/// which inputs reach an element, lowest first.
pub(super) struct Solver {
    /// Indexed by pivot (highest set bit): a vector of the column span and
    /// the input bits that combine to it.
    pub(super) pivots: Vec<Option<(u64, u64)>>,
    /// The kernel in reduced echelon form, leading bits ascending: input
    /// combinations that reach nothing.
    pub(super) kernel: Vec<u64>,
}

pub(super) fn lead(v: u64) -> u32 {
    63 - v.leading_zeros()
}

impl Solver {
    pub(super) fn new(cols: &[u64]) -> Solver {
        let mut s = Solver {
            pivots: vec![None; 64],
            kernel: Vec::new(),
        };
        for (j, &c) in cols.iter().enumerate() {
            let (v, combo) = s.reduce(c, 1u64 << j);
            if v == 0 {
                // Its leading bit is j: only earlier columns joined it.
                s.kernel.push(combo);
            } else {
                s.pivots[lead(v) as usize] = Some((v, combo));
            }
        }
        for i in 0..s.kernel.len() {
            for j in 0..i {
                if s.kernel[i] >> lead(s.kernel[j]) & 1 == 1 {
                    s.kernel[i] ^= s.kernel[j];
                }
            }
        }
        s
    }

    pub(super) fn reduce(&self, mut v: u64, mut combo: u64) -> (u64, u64) {
        for p in (0..64).rev() {
            if v >> p & 1 == 1 {
                if let Some((pv, pc)) = self.pivots[p] {
                    v ^= pv;
                    combo ^= pc;
                }
            }
        }
        (v, combo)
    }

    /// The lowest input reaching the packed element `e`, if any.
    pub(super) fn first(&self, e: u64) -> Option<u64> {
        let (rest, mut x) = self.reduce(e, 0);
        if rest != 0 {
            return None;
        }
        for &k in &self.kernel {
            if x >> lead(k) & 1 == 1 {
                x ^= k;
            }
        }
        Some(x)
    }

    /// The `m`-th lowest input reaching the same element as `first` (which
    /// must come from [`Solver::first`]); `m` below [`Solver::copies`].
    pub(super) fn nth(&self, first: u64, m: u64) -> u64 {
        let mut x = first;
        for (b, &k) in self.kernel.iter().enumerate() {
            if m >> b & 1 == 1 {
                x ^= k;
            }
        }
        x
    }

    /// How many inputs reach each element that is reached at all.
    pub(super) fn copies(&self) -> u128 {
        1u128 << self.kernel.len()
    }
}
