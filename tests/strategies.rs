//! proptest strategies for random layouts.

use linear_layout::{Dim, LinearLayout, dim};
use proptest::prelude::*;

/// In-dim names in a fixed order, so that any two generated layouts list
/// their shared dims consistently (as Triton's product requires).
pub const IN_POOL: [&str; 4] = ["register", "lane", "warp", "block"];
/// Out-dim names in a fixed order.
pub const OUT_POOL: [&str; 3] = ["dim0", "dim1", "dim2"];

/// A random subsequence of `pool` (possibly empty), in pool order.
fn subsequence(pool: &'static [&'static str]) -> impl Strategy<Value = Vec<Dim>> {
    proptest::collection::vec(any::<bool>(), pool.len()).prop_map(move |keep| {
        pool.iter()
            .zip(keep)
            .filter(|x| x.1)
            .map(|x| dim(x.0))
            .collect()
    })
}

/// A random layout over the given out-dims (with `log2` sizes), with at most
/// `max_in_bits` input bits in total.
pub fn layout_over(
    outs: Vec<(Dim, u32)>,
    ins: Vec<Dim>,
    max_in_bits: usize,
) -> impl Strategy<Value = LinearLayout> {
    let n_ins = ins.len();
    proptest::collection::vec(0..=max_in_bits.min(6), n_ins).prop_flat_map(move |mut counts| {
        // Trim to the bit budget.
        let mut budget = max_in_bits;
        for c in counts.iter_mut() {
            *c = (*c).min(budget);
            budget -= *c;
        }
        let outs = outs.clone();
        let ins = ins.clone();
        let per_basis: Vec<BoxedStrategy<u64>> = outs
            .iter()
            .map(|&(_, bits)| {
                // Bias toward zeros and powers of two, like real layouts.
                prop_oneof![
                    2 => Just(0u64),
                    3 => (0..bits.max(1)).prop_map(move |b| if bits == 0 { 0 } else { 1u64 << b }),
                    2 => 0..(1u64 << bits),
                ]
                .boxed()
            })
            .collect();
        let total: usize = counts.iter().sum();
        proptest::collection::vec(per_basis, total).prop_map(move |vectors| {
            let mut it = vectors.into_iter();
            let bases: Vec<(Dim, Vec<Vec<u64>>)> = ins
                .iter()
                .zip(&counts)
                .map(|(&d, &n)| (d, it.by_ref().take(n).collect()))
                .collect();
            let sizes: Vec<(Dim, u64)> = outs.iter().map(|&(d, b)| (d, 1u64 << b)).collect();
            LinearLayout::from_bases_with_sizes(&bases, &sizes, false)
                .expect("generated layouts are valid")
        })
    })
}

/// Random out-dims (a subsequence of the pool) with sizes 1..=16.
pub fn out_dims() -> impl Strategy<Value = Vec<(Dim, u32)>> {
    subsequence(&OUT_POOL).prop_flat_map(|names| {
        let n = names.len();
        proptest::collection::vec(0u32..=4, n)
            .prop_map(move |bits| names.iter().copied().zip(bits).collect())
    })
}

/// Any small random layout (at most 12 input bits).
pub fn layout() -> impl Strategy<Value = LinearLayout> {
    layout_with_bits(12)
}

/// A random layout with at most `max_in_bits` input bits.
pub fn layout_with_bits(max_in_bits: usize) -> impl Strategy<Value = LinearLayout> {
    (out_dims(), subsequence(&IN_POOL))
        .prop_flat_map(move |(outs, ins)| layout_over(outs, ins, max_in_bits))
}

/// A random surjective layout: unit columns for every output bit plus a few
/// random columns, shuffled, mixed by column XORs (which keep the rank), and
/// split over one to three in-dims.
pub fn surjective_layout() -> impl Strategy<Value = LinearLayout> {
    out_dims()
        .prop_flat_map(|outs| {
            let out_bits: u32 = outs.iter().map(|x| x.1).sum();
            let extra = proptest::collection::vec(0..(1u64 << out_bits), 0..=3usize);
            (Just(outs), extra)
        })
        .prop_flat_map(|(outs, extra)| {
            let out_bits: u32 = outs.iter().map(|x| x.1).sum();
            let mut cols: Vec<u64> = (0..out_bits).map(|b| 1u64 << b).collect();
            cols.extend(extra);
            let n = cols.len();
            let mixes = proptest::collection::vec((0..n.max(1), 0..n.max(1)), 0..=n);
            let split = (0..=n, 0..=n);
            (Just(outs), Just(cols).prop_shuffle(), mixes, split)
        })
        .prop_map(|(outs, mut cols, mixes, (a, b))| {
            for (i, j) in mixes {
                if i != j && i < cols.len() && j < cols.len() {
                    let cj = cols[j];
                    cols[i] ^= cj;
                }
            }
            let (lo, hi) = (a.min(b), a.max(b));
            let unpack = |c: u64| unpack_column(&outs, c);
            let bases = vec![
                (
                    dim("register"),
                    cols[..lo].iter().map(|&c| unpack(c)).collect(),
                ),
                (
                    dim("lane"),
                    cols[lo..hi].iter().map(|&c| unpack(c)).collect(),
                ),
                (dim("warp"), cols[hi..].iter().map(|&c| unpack(c)).collect()),
            ];
            let sizes: Vec<(Dim, u64)> = outs.iter().map(|&(d, b)| (d, 1u64 << b)).collect();
            LinearLayout::from_bases_with_sizes(&bases, &sizes, true)
                .expect("surjective by construction")
        })
}

/// Every input of a layout, as `(in_dim, value)` lists, in flat order.
pub fn all_inputs(l: &LinearLayout) -> Vec<Vec<(Dim, u64)>> {
    let dims: Vec<(Dim, u64)> = l.in_dims().collect();
    (0..(1u64 << l.total_in_bits()))
        .map(|flat| {
            let mut rest = flat;
            dims.iter()
                .map(|&(d, s)| {
                    let v = rest % s;
                    rest /= s;
                    (d, v)
                })
                .collect()
        })
        .collect()
}

/// A random layout with exactly the given in-dims (name, number of bases)
/// and out-dims (name, `log2` size).
pub fn layout_exact(
    ins: Vec<(Dim, usize)>,
    outs: Vec<(Dim, u32)>,
) -> impl Strategy<Value = LinearLayout> {
    let total: usize = ins.iter().map(|x| x.1).sum();
    let out_bits: u32 = outs.iter().map(|x| x.1).sum();
    proptest::collection::vec(
        prop_oneof![2 => Just(0u64), 3 => (0..out_bits.max(1)).prop_map(|b| 1u64 << b), 2 => 0..(1u64 << out_bits)],
        total,
    )
    .prop_map(move |cols| {
        let cols: Vec<u64> = cols.into_iter().map(|c| if out_bits == 0 { 0 } else { c & ((1u64 << out_bits) - 1) }).collect();
        let unpack = |c: u64| unpack_column(&outs, c);
        let mut it = cols.into_iter();
        let bases: Vec<(Dim, Vec<Vec<u64>>)> =
            ins.iter().map(|&(d, n)| (d, it.by_ref().take(n).map(unpack).collect())).collect();
        let sizes: Vec<(Dim, u64)> = outs.iter().map(|&(d, b)| (d, 1u64 << b)).collect();
        LinearLayout::from_bases_with_sizes(&bases, &sizes, false).expect("valid by construction")
    })
}

/// The in-dims of `l` as (name, number of bases).
pub fn in_bits(l: &LinearLayout) -> Vec<(Dim, usize)> {
    l.in_dims()
        .map(|(d, s)| (d, s.trailing_zeros() as usize))
        .collect()
}

/// The out-dims of `l` as (name, `log2` size).
pub fn out_bits(l: &LinearLayout) -> Vec<(Dim, u32)> {
    l.out_dims().map(|(d, s)| (d, s.trailing_zeros())).collect()
}

/// Splits a packed column (first out-dim lowest) into components.
fn unpack_column(outs: &[(Dim, u32)], c: u64) -> Vec<u64> {
    let mut shift = 0;
    outs.iter()
        .map(|&(_, bits)| {
            let v = (c >> shift) & ((1u64 << bits) - 1);
            shift += bits;
            v
        })
        .collect()
}
