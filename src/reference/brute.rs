//! Enumerating a layout's inputs and reading its outputs, one value per dim.
//!
//! Values are `(dim, value)` lists in a layout's own dim order; a flat index
//! puts the first dim in the lowest bits, as Triton's packing does.

use super::{BRUTE_BITS, Ctx, Law, Violation};
use crate::bits::low_mask;
use crate::dim::Dim;
use crate::layout::LinearLayout;
use std::collections::BTreeMap;

/// One value per dim.
pub(crate) type Vals = Vec<(Dim, u64)>;

pub(crate) fn log2(size: u64) -> u32 {
    size.trailing_zeros()
}

pub(crate) fn ins_of(l: &LinearLayout) -> Vals {
    l.in_dims().collect()
}

pub(crate) fn outs_of(l: &LinearLayout) -> Vals {
    l.out_dims().collect()
}

/// The input with flat index `x`.
pub(crate) fn unflatten(dims: &[(Dim, u64)], x: u64) -> Vals {
    let mut shift = 0;
    dims.iter()
        .map(|&(d, size)| {
            let b = log2(size);
            let v = (x >> shift) & low_mask(b);
            shift += b;
            (d, v)
        })
        .collect()
}

/// The flat index of `vals` over `dims`: a violation of `ctx`'s operation
/// when a dim is missing or a value does not fit its dim.
pub(crate) fn flatten(ctx: Ctx, vals: &Vals, dims: &[(Dim, u64)]) -> Result<u128, Violation> {
    let mut shift = 0;
    let mut acc = 0u128;
    for &(d, size) in dims {
        let v = get(vals, d)
            .ok_or_else(|| ctx.fail(Law::Dims, format!("no value for {d} in {vals:?}")))?;
        if v >= size {
            return Err(ctx.fail(
                Law::Invariant,
                format!("{d} = {v} not below its size {size}"),
            ));
        }
        acc |= u128::from(v) << shift;
        shift += log2(size);
    }
    Ok(acc)
}

pub(crate) fn get(vals: &Vals, d: Dim) -> Option<u64> {
    vals.iter().find(|x| x.0 == d).map(|x| x.1)
}

/// Values keyed by name, for results whose dim order may legitimately differ.
pub(crate) fn by_name(vals: &Vals) -> BTreeMap<&'static str, u64> {
    vals.iter().map(|&(d, v)| (d.name(), v)).collect()
}

/// `l(x)`; an error on an in-range input is a violation.
pub(crate) fn ap(ctx: Ctx, l: &LinearLayout, x: &Vals) -> Result<Vals, Violation> {
    l.apply(x).map(|v| v.to_vec()).map_err(|e| {
        ctx.fail(
            Law::Invariant,
            format!("apply({x:?}) failed on an in-range input: {e}"),
        )
    })
}

/// Every input over `dims`, when they have at most [`BRUTE_BITS`] bits.
pub(crate) fn all_inputs(dims: &[(Dim, u64)]) -> Option<impl Iterator<Item = Vals> + use<>> {
    let bits: u32 = dims.iter().map(|d| log2(d.1)).sum();
    let dims = dims.to_vec();
    (bits <= BRUTE_BITS).then(|| (0..1u64 << bits).map(move |x| unflatten(&dims, x)))
}

/// Inputs over `dims` for layouts too large to enumerate: every bit set,
/// and 15 scattered values (a fixed splitmix64 stream), each within the
/// dims' sizes. Few, because the fuzz targets check every layout they make.
pub(crate) fn sampled_inputs(dims: &[(Dim, u64)]) -> impl Iterator<Item = Vals> + use<> {
    let bits: u32 = dims.iter().map(|d| log2(d.1)).sum();
    let mask = low_mask(bits);
    let dims = dims.to_vec();
    let scattered = (1..=15u64).map(|k| {
        let mut z = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    });
    [u64::MAX]
        .into_iter()
        .chain(scattered)
        .map(move |x| unflatten(&dims, x & mask))
}

/// `x` restricted to `dims`, 0 for the dims it lacks.
pub(crate) fn restrict(x: &Vals, dims: &[(Dim, u64)]) -> Vals {
    dims.iter()
        .map(|&(d, _)| (d, get(x, d).unwrap_or(0)))
        .collect()
}

/// The rank over GF(2) of vectors packed in `u128`s, by plain Gaussian
/// elimination: independent of the crate's packed kernels, to check them.
pub fn gf2_rank(mut vecs: Vec<u128>) -> u32 {
    let mut rank = 0;
    let mut row = 0;
    for bit in 0..128 {
        let Some(p) = (row..vecs.len()).find(|&i| vecs[i] >> bit & 1 == 1) else {
            continue;
        };
        vecs.swap(row, p);
        let pivot = vecs[row];
        for (i, v) in vecs.iter_mut().enumerate() {
            if i != row && *v >> bit & 1 == 1 {
                *v ^= pivot;
            }
        }
        row += 1;
        rank += 1;
    }
    rank
}

/// The images of the unit inputs of in-dim `d` (its size is `size`).
pub(crate) fn unit_images(
    ctx: Ctx,
    a: &LinearLayout,
    d: Dim,
    size: u64,
) -> Result<Vec<Vals>, Violation> {
    let ai = ins_of(a);
    (0..log2(size))
        .map(|i| {
            let x: Vals = ai
                .iter()
                .map(|&(e, _)| (e, if e == d { 1 << i } else { 0 }))
                .collect();
            ap(ctx, a, &x)
        })
        .collect()
}
