//! The product `inner * outer`: a copy of `inner` at every point of `outer`.

use super::{COLS_INLINE, Cols, DimBits, LinearLayout, Repack};
use super::{MAX_BITS, MAX_DIM_BITS};
use crate::bits;
use crate::dim::Dim;
use crate::error::{DimList, LayoutError, Result, Side};
use smallvec::SmallVec;

impl LinearLayout {
    /// Triton's `inner * outer`: the direct sum, with `self` as the inner
    /// (minor) factor.
    ///
    /// Per dim, `log2` sizes add up (a dim missing from one factor counts as
    /// size 1 there). In-dim `d` keeps the inner bases first, then the outer
    /// ones with each out-dim component shifted above the inner size on that
    /// out-dim. The dim order of the result is Triton's `supremum` of the two
    /// orders.
    ///
    /// The dims the factors share must appear in the same relative order in
    /// both (Triton's header requires it; 3.9's code no longer checks, and its
    /// merge then silently picks an order): that is an error here.
    ///
    /// ```
    /// use linear_layout::{LinearLayout, dim};
    /// let (i, o) = (dim("in"), dim("out"));
    /// let a = LinearLayout::identity_1d(4, i, o)?;
    /// let b = LinearLayout::identity_1d(2, i, o)?;
    /// assert_eq!(a.product(&b)?, LinearLayout::identity_1d(8, i, o)?);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn product(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let mut plan = SameDims::default();
        if plan.plan(self, outer) {
            let (n, rank) = (plan.total_in, self.rank() + outer.rank());
            // Columns in a stack array handed over whole when they fit
            // inline (filling them in place measured no faster here), else
            // copied once into an exact allocation. Not through `cols_from_fn`, which
            // zeroes and returns a `Result`: 852 → 962 instructions at 8
            // bits and about 10% slower (notes/performance.md).
            if n <= COLS_INLINE {
                let mut cols = [0u64; COLS_INLINE];
                // `slot < n`: the wrap only spares a bounds check.
                plan.fill(self, outer, |slot, c| cols[slot % COLS_INLINE] = c);
                return Ok(plan.finish(Cols::from_buf_and_len(cols, n), rank));
            }
            let mut cols = [0u64; MAX_BITS as usize];
            plan.fill(self, outer, |slot, c| cols[slot % MAX_BITS as usize] = c);
            return Ok(plan.finish(Cols::from_slice(&cols[..n]), rank));
        }
        self.product_general(outer)
    }

    /// The general product, kept out of line: inlined, it shares one stack
    /// frame and one register allocation with the common path above, which
    /// then spills and reloads what it keeps in registers on its own.
    #[inline(never)]
    fn product_general(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        super::in_place(|out| self.product_into(outer, out))
    }

    /// The general product: dims merged by name, written in place.
    fn product_into(&self, outer: &LinearLayout, out: &mut LinearLayout) -> Result<()> {
        const OP: &str = "product";
        let inner = self;
        // Sizes add up; each factor's are at most 63 bits, so the sums fit.
        merge_dims(OP, Side::In, inner.ins_raw(), outer.ins_raw(), &mut out.ins)?;
        merge_dims(
            OP,
            Side::Out,
            inner.outs_raw(),
            outer.outs_raw(),
            &mut out.outs,
        )?;
        if let Some(&(d, bits)) = out.outs.iter().find(|x| x.1 > 63) {
            return Err(LayoutError::TooLarge {
                op: OP,
                what: format!("log2 size of out-dim {d} in the product"),
                value: bits as u64,
                limit: 63,
            });
        }
        let total_in: u32 = out.ins.iter().map(|x| x.1 as u32).sum();
        let total_out: u32 = out.outs.iter().map(|x| x.1 as u32).sum();
        let in_dim_too_large = out.ins.iter().any(|x| x.1 as u32 > super::MAX_DIM_BITS);
        if total_in > super::MAX_BITS || total_out > super::MAX_BITS || in_dim_too_large {
            // Report through the common limit checks.
            let cols = smallvec::smallvec![0; total_in.min(64) as usize];
            let (ins, outs) = (std::mem::take(&mut out.ins), std::mem::take(&mut out.outs));
            return LinearLayout::from_parts(OP, ins, cols, outs, false).map(|_| ());
        }

        // Where each factor's out-dims land in the product's packing: the
        // outer factor sits above the inner one on every shared out-dim.
        let outs = &out.outs;
        let inner_outs = inner.outs_raw().as_slice();
        let (mut inner_moves, mut outer_moves) = (Repack::default(), Repack::default());
        inner_moves.plan(inner_outs, |_, d| Some(dest_shift(outs, d)));
        outer_moves.plan(outer.outs_raw(), |_, d| {
            Some(dest_shift(outs, d) + log2_in(inner_outs, d))
        });

        // Each in-dim takes the inner factor's bases, then the outer one's.
        // The merged order keeps each factor's in-dims as a subsequence, so
        // one cursor per factor walks its dims and columns in order.
        let mut next = 0;
        let mut cursors = [
            (
                inner.ins_raw().as_slice(),
                inner.cols_raw(),
                &inner_moves,
                0,
                0,
            ),
            (
                outer.ins_raw().as_slice(),
                outer.cols_raw(),
                &outer_moves,
                0,
                0,
            ),
        ];
        out.cols.resize(total_in as usize, 0);
        let slots = out.cols.as_mut_slice();
        for &(d, _) in out.ins.iter() {
            for (dims, factor_cols, moves, k, first) in &mut cursors {
                if *k < dims.len() && dims[*k].0 == d {
                    let n = dims[*k].1 as usize;
                    for j in 0..n {
                        slots[next + j] = moves.apply(factor_cols[*first + j]);
                    }
                    (next, *first, *k) = (next + n, *first + n, *k + 1);
                }
            }
        }
        debug_assert!(next == slots.len());
        // The factors' images land on disjoint output bits (the outer one
        // shifted above the inner one on every shared out-dim): a direct sum,
        // whose rank is the sum of the ranks. The dims are `supremum`s of
        // distinct lists, hence distinct, and were checked against the limits.
        out.rank = (inner.rank() + outer.rank()) as u8;
        debug_assert!(out.invariants_hold(), "invalid product: {out:?}");
        Ok(())
    }
}

/// The most dims per side [`SameDims`] handles: as many as a layout holds
/// inline.
const SAME_DIMS_MAX: usize = super::DIMS_INLINE;

/// The product of two factors over the same in-dim and out-dim lists (the
/// common case: a tile times its repetitions), where no merging is needed
/// and each factor's field of an out-dim moves by one masked rotation.
///
/// Dims and columns are computed into fixed arrays and the layout is
/// assembled from them once, in the caller's frame (everything here is
/// inlined): built in registers and stored whole, the result is read back
/// without waiting on the store buffer, which building it piece by piece
/// makes the caller do.
struct SameDims {
    ins: [(Dim, u8); SAME_DIMS_MAX],
    outs: [(Dim, u8); SAME_DIMS_MAX],
    /// Per out-dim: the inner field's mask and rotation, the outer's.
    moves: [(u64, u32, u64, u32); SAME_DIMS_MAX],
    /// The product's columns that come from the inner factor, one bit per
    /// column; the others come from the outer one.
    inner_slots: u64,
    n_ins: usize,
    n_outs: usize,
    total_in: usize,
}

impl Default for SameDims {
    fn default() -> Self {
        SameDims {
            ins: [(Dim::REGISTER, 0); SAME_DIMS_MAX],
            outs: [(Dim::REGISTER, 0); SAME_DIMS_MAX],
            moves: [(0, 0, 0, 0); SAME_DIMS_MAX],
            inner_slots: 0,
            n_ins: 0,
            n_outs: 0,
            total_in: 0,
        }
    }
}

impl SameDims {
    /// Plans `inner * outer` into `self` (in place: a plan moved right after
    /// it is written stalls like a layout does), or returns `false` when the
    /// dims differ, there are too many, or a limit is crossed: the general
    /// path then answers, errors included.
    #[inline(always)]
    fn plan(&mut self, inner: &LinearLayout, outer: &LinearLayout) -> bool {
        // Plain slices, read once: a `SmallVec` checks where its elements
        // live on every access.
        let (inner_ins, outer_ins) = (inner.ins.as_slice(), outer.ins.as_slice());
        let (inner_outs, outer_outs) = (inner.outs.as_slice(), outer.outs.as_slice());
        let (n_ins, n_outs) = (inner_ins.len(), inner_outs.len());
        if n_ins > SAME_DIMS_MAX
            || n_outs > SAME_DIMS_MAX
            || outer_ins.len() != n_ins
            || outer_outs.len() != n_outs
        {
            return false;
        }
        let plan = self;
        (plan.n_ins, plan.n_outs) = (n_ins, n_outs);
        plan.total_in = inner.cols.len() + outer.cols.len();
        // In-dim k's columns: the inner factor's `a`, then the outer one's.
        let (mut inner_slots, mut start) = (0u64, 0u32);
        for k in 0..n_ins {
            let ((d, a), (e, b)) = (inner_ins[k], outer_ins[k]);
            if d != e || (a + b) as u32 > MAX_DIM_BITS {
                return false;
            }
            plan.ins[k] = (d, a + b);
            inner_slots |= bits::shl(bits::low_mask(a as u32), start);
            start += (a + b) as u32;
        }
        plan.inner_slots = inner_slots;
        // Out-dim k: the inner field moves from `shift_i` to `dest`, the
        // outer one from `shift_o` to `dest + width_i`.
        let (mut shift_i, mut shift_o, mut dest) = (0u32, 0u32, 0u32);
        for k in 0..n_outs {
            let ((d, wi), (e, wo)) = (inner_outs[k], outer_outs[k]);
            let (wi, wo) = (wi as u32, wo as u32);
            if d != e || wi + wo > MAX_DIM_BITS {
                return false;
            }
            plan.outs[k] = (d, (wi + wo) as u8);
            plan.moves[k] = (
                bits::shl(bits::low_mask(wi), shift_i),
                dest.wrapping_sub(shift_i) & 63,
                bits::shl(bits::low_mask(wo), shift_o),
                (dest + wi).wrapping_sub(shift_o) & 63,
            );
            (shift_i, shift_o, dest) = (shift_i + wi, shift_o + wo, dest + wi + wo);
        }
        dest <= MAX_BITS && plan.total_in <= MAX_BITS as usize
    }

    /// Emits the product's columns, each with its slot: per in-dim, the
    /// inner factor's, then the outer one's, each repacked.
    #[inline(always)]
    fn fill(&self, inner: &LinearLayout, outer: &LinearLayout, emit: impl FnMut(usize, u64)) {
        // The fold over out-dims unrolled for the usual counts.
        match self.n_outs {
            1 => self.fill_n::<1>(inner, outer, emit),
            2 => self.fill_n::<2>(inner, outer, emit),
            3 => self.fill_n::<3>(inner, outer, emit),
            _ => self.fill_n::<SAME_DIMS_MAX>(inner, outer, emit),
        }
    }

    /// [`fill`](Self::fill) over the first `N` out-dims' moves (the
    /// others, past `n_outs`, are zero masks and move nothing).
    ///
    /// Each factor's columns are visited in one flat pass, the `j`-th
    /// landing in the `j`-th of its slots (`inner_slots`, or the others):
    /// walking the in-dims instead costs two short loops per dim, which is
    /// most of the work when dims have a bit or two.
    #[inline(always)]
    fn fill_n<const N: usize>(
        &self,
        inner: &LinearLayout,
        outer: &LinearLayout,
        mut emit: impl FnMut(usize, u64),
    ) {
        let Some(moves) = self.moves.first_chunk::<N>() else {
            return;
        };
        let outer_slots = bits::low_mask(self.total_in as u32) & !self.inner_slots;
        let (inner_cols, outer_cols) = (inner.cols.as_slice(), outer.cols.as_slice());
        place(inner_cols, self.inner_slots, &mut emit, |c| {
            moves
                .iter()
                .fold(0, |acc, m| acc | (c & m.0).rotate_left(m.1))
        });
        place(outer_cols, outer_slots, &mut emit, |c| {
            moves
                .iter()
                .fold(0, |acc, m| acc | (c & m.2).rotate_left(m.3))
        });
    }
}

/// Emits `repack` of the `j`-th of `cols` at the `j`-th set bit of `slots`.
#[inline(always)]
fn place(
    cols: &[u64],
    mut slots: u64,
    emit: &mut impl FnMut(usize, u64),
    repack: impl Fn(u64) -> u64,
) {
    for &c in cols {
        emit(slots.trailing_zeros() as usize, repack(c));
        slots &= slots.wrapping_sub(1);
    }
}

impl SameDims {
    /// The product, with its columns. The factors land on disjoint output
    /// bits: a direct sum, whose rank is the sum of the ranks.
    #[inline(always)]
    fn finish(&self, cols: Cols, rank: u32) -> LinearLayout {
        LinearLayout::from_valid_parts(
            DimBits::from_buf_and_len(self.ins, self.n_ins),
            cols,
            DimBits::from_buf_and_len(self.outs, self.n_outs),
            rank,
        )
    }
}

fn dest_shift(outs: &DimBits, d: Dim) -> u32 {
    let k = outs.iter().position(|x| x.0 == d).unwrap_or(outs.len());
    super::out_shift(outs, k)
}

/// `log2` of dim `d`'s size in `dims`: 0 when absent.
fn log2_in(dims: &[(Dim, u8)], d: Dim) -> u32 {
    dims.iter().find(|x| x.0 == d).map_or(0, |x| x.1 as u32)
}

/// The dims of a product with their summed `log2` sizes. The common dims must
/// agree in relative order; Triton's `supremum` then merges the two lists.
fn merge_dims(
    op: &'static str,
    side: Side,
    a: &[(Dim, u8)],
    b: &[(Dim, u8)],
    out: &mut DimBits,
) -> Result<()> {
    if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0) {
        // The common case, factors of the same shape: merging changes nothing.
        out.extend(a.iter().zip(b).map(|(&(d, x), &(_, y))| (d, x + y)));
        return Ok(());
    }
    let a_names: SmallVec<[Dim; 4]> = a.iter().map(|x| x.0).collect();
    let b_names: SmallVec<[Dim; 4]> = b.iter().map(|x| x.0).collect();
    if a.len() + b.len() > FEW_DIMS {
        return merge_many_dims(op, side, a, b, &a_names, &b_names, out);
    }
    let common_a = a_names.iter().filter(|d| b_names.contains(d));
    let common_b = b_names.iter().filter(|d| a_names.contains(d));
    if !common_a.eq(common_b) {
        return Err(LayoutError::InconsistentDimOrder {
            op,
            side,
            left: DimList(a_names.to_vec()),
            right: DimList(b_names.to_vec()),
        });
    }
    out.extend(
        supremum(&a_names, &b_names)
            .into_iter()
            .map(|d| (d, (log2_in(a, d) + log2_in(b, d)) as u8)),
    );
    Ok(())
}

/// Up to this many dims in two factors, linear scans beat hashing; beyond
/// it (layouts with many size-1 dims) the merge hashes, so that its time
/// grows linearly with the dims.
const FEW_DIMS: usize = 16;

/// [`merge_dims`] by hashing, for factors with many dims.
fn merge_many_dims(
    op: &'static str,
    side: Side,
    a: &[(Dim, u8)],
    b: &[(Dim, u8)],
    a_names: &[Dim],
    b_names: &[Dim],
    out: &mut DimBits,
) -> Result<()> {
    use rustc_hash::FxHashMap;
    let a_bits: FxHashMap<Dim, u8> = a.iter().copied().collect();
    let b_bits: FxHashMap<Dim, u8> = b.iter().copied().collect();
    let common_a = a_names.iter().filter(|d| b_bits.contains_key(d));
    let common_b = b_names.iter().filter(|d| a_bits.contains_key(d));
    if !common_a.eq(common_b) {
        return Err(LayoutError::InconsistentDimOrder {
            op,
            side,
            left: DimList(a_names.to_vec()),
            right: DimList(b_names.to_vec()),
        });
    }
    // With the shared dims in the same relative order, the supremum walks
    // both lists in step: every dim of `a` up to (and including) the next
    // shared one, then `b`'s up to it; Triton's rule (x's head first when
    // the other list lacks it, else the one earlier in the other list)
    // gives exactly that order.
    let bits = |d: Dim| {
        a_bits.get(&d).copied().unwrap_or(0) as u32 + b_bits.get(&d).copied().unwrap_or(0) as u32
    };
    let (mut i, mut j) = (0, 0);
    while i < a_names.len() || j < b_names.len() {
        while i < a_names.len() && !b_bits.contains_key(&a_names[i]) {
            out.push((a_names[i], bits(a_names[i]) as u8));
            i += 1;
        }
        while j < b_names.len() && !a_bits.contains_key(&b_names[j]) {
            out.push((b_names[j], bits(b_names[j]) as u8));
            j += 1;
        }
        if i < a_names.len() && j < b_names.len() {
            // Both heads are the same shared dim.
            out.push((a_names[i], bits(a_names[i]) as u8));
            i += 1;
            j += 1;
        }
    }
    Ok(())
}

/// Triton's `supremum(x, y)`: a merge of two dim orders in which each list
/// stays a subsequence when the two are consistent. Two cursors walk the
/// lists, skipping names already emitted; equal heads are emitted once; else
/// a head the other list lacks goes first (x's before y's); else the head
/// sitting earlier in the other list goes first, x winning ties.
pub fn supremum(x: &[Dim], y: &[Dim]) -> SmallVec<[Dim; 4]> {
    let mut out: SmallVec<[Dim; 4]> = SmallVec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        while i < x.len() && out.contains(&x[i]) {
            i += 1;
        }
        while j < y.len() && out.contains(&y[j]) {
            j += 1;
        }
        let next = match (x.get(i), y.get(j)) {
            (None, None) => break,
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (Some(&a), Some(&b)) if a == b => a,
            (Some(&a), Some(&b)) => {
                let a_in_y = y.iter().position(|&d| d == a);
                let b_in_x = x.iter().position(|&d| d == b);
                match (a_in_y, b_in_x) {
                    (None, _) => a,
                    (_, None) => b,
                    (Some(pa), Some(pb)) => {
                        if pa <= pb {
                            a
                        } else {
                            b
                        }
                    }
                }
            }
        };
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dim::dim;

    fn names(s: &str) -> Vec<Dim> {
        s.split(',').filter(|x| !x.is_empty()).map(dim).collect()
    }

    /// A layout with random sizes and bases over four in-dims of 0 to
    /// `max_in` bits and the first `n_outs` of four out-dims, of 0 to 7
    /// bits.
    fn random_layout(next: &mut impl FnMut() -> u64, max_in: u64, n_outs: usize) -> LinearLayout {
        let (ins, outs) = (
            ["register", "lane", "warp", "block"],
            &["dim0", "dim1", "dim2", "dim3"][..n_outs],
        );
        let sizes: Vec<(Dim, u64)> = outs.iter().map(|&d| (dim(d), 1 << (next() % 8))).collect();
        let bases: Vec<(Dim, Vec<Vec<u64>>)> = ins
            .iter()
            .map(|&d| {
                let n = next() % (max_in + 1);
                let basis = |_| sizes.iter().map(|s| next() % s.1).collect::<Vec<_>>();
                (dim(d), (0..n).map(basis).collect())
            })
            .collect();
        LinearLayout::from_bases_with_sizes(&bases, &sizes, false).unwrap()
    }

    #[test]
    fn the_same_dims_path_agrees_with_the_general_one() {
        // Sizes on both sides of the inline column capacity (16), up to 64.
        let mut next = crate::layout::xorshift(0x9E37_79B9_7F4A_7C15u64);
        let (mut spilled, mut out_counts) = (0, [0; 5]);
        for _ in 0..2000 {
            // Every out-dim count the unrolled fill has a case for.
            let n_outs = (next() % 5) as usize;
            let a = random_layout(&mut next, 8, n_outs);
            let b = random_layout(&mut next, 8, n_outs);
            let mut plan = SameDims::default();
            if !plan.plan(&a, &b) {
                continue;
            }
            spilled += usize::from(plan.total_in > COLS_INLINE);
            out_counts[n_outs] += 1;
            let general = crate::layout::in_place(|out| a.product_into(&b, out));
            assert_eq!(a.product(&b).unwrap(), general.unwrap(), "{a:?} * {b:?}");
        }
        assert!(spilled > 100, "only {spilled} products spilled to the heap");
        assert!(out_counts.iter().all(|&n| n > 200), "{out_counts:?}");
    }

    #[test]
    fn an_in_dim_of_64_bits_is_an_error() {
        let (a, x, y) = (dim("a"), dim("x"), dim("y"));
        let half = |out| LinearLayout::identity_1d(1 << 32, a, out);
        let err = half(x).unwrap().product(&half(y).unwrap()).unwrap_err();
        assert!(
            matches!(err, LayoutError::TooLarge { value: 64, .. }),
            "{err}"
        );
    }

    /// Factors with many dims merge by hashing; on orders that agree on
    /// their shared dims, that is Triton's supremum.
    #[test]
    fn many_dims_merge_as_the_supremum_does() {
        let mut seed = 7u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..200 {
            // A shared order, each factor adding its own dims around it.
            let shared: Vec<Dim> = (0..next(8)).map(|i| dim(&format!("s{i}"))).collect();
            let mut lists = [Vec::new(), Vec::new()];
            for (side, list) in lists.iter_mut().enumerate() {
                let mut own = 0;
                for &s in &shared {
                    for _ in 0..next(6) {
                        list.push((dim(&format!("x{side}_{own}")), next(2) as u8));
                        own += 1;
                    }
                    list.push((s, next(2) as u8));
                }
                for _ in 0..next(12) {
                    list.push((dim(&format!("x{side}_{own}")), 0));
                    own += 1;
                }
            }
            let names = |l: &[(Dim, u8)]| l.iter().map(|x| x.0).collect::<Vec<_>>();
            let mut hashed = DimBits::new();
            merge_many_dims(
                "t",
                Side::In,
                &lists[0],
                &lists[1],
                &names(&lists[0]),
                &names(&lists[1]),
                &mut hashed,
            )
            .unwrap();
            let expected = supremum(&names(&lists[0]), &names(&lists[1]));
            assert_eq!(
                hashed.iter().map(|x| x.0).collect::<Vec<_>>(),
                expected.to_vec()
            );
            for &(d, bits) in &hashed {
                assert_eq!(bits as u32, log2_in(&lists[0], d) + log2_in(&lists[1], d));
            }
        }
    }

    #[test]
    fn supremum_examples_from_triton_3_9() {
        assert_eq!(
            supremum(&names("a,b"), &names("c,b")).to_vec(),
            names("a,c,b")
        );
        assert_eq!(
            supremum(&names("a,b"), &names("b,a")).to_vec(),
            names("a,b")
        );
        assert_eq!(
            supremum(&names("a,b"), &names("c,b,a")).to_vec(),
            names("c,b,a")
        );
        assert_eq!(supremum(&names(""), &names("a")).to_vec(), names("a"));
        assert_eq!(
            supremum(&names("a,b,c"), &names("a,b,c")).to_vec(),
            names("a,b,c")
        );
    }
}
