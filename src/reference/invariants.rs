//! What every layout keeps, whatever operation produced it.

use super::brute::{
    Vals, all_inputs, ap, flatten, gf2_rank, ins_of, log2, outs_of, sampled_inputs, unflatten,
};
use super::{Ctx, Law, Violation};
use crate::dim::Dim;
use crate::layout::LinearLayout;
use std::collections::BTreeMap;

/// What a layout says about itself, checked against the reference. Kept
/// apart so that tests can feed a wrong claim (a real layout cannot hold
/// one: the crate's constructors make that impossible).
#[derive(Clone, Debug)]
pub(crate) struct Claims {
    pub(crate) rank: u32,
    pub(crate) surjective: bool,
    pub(crate) injective: bool,
    pub(crate) invertible: bool,
    pub(crate) masks: Vec<(Dim, u64)>,
    pub(crate) consecutive: u64,
    pub(crate) text: String,
}

impl Claims {
    pub(crate) fn of(l: &LinearLayout) -> Self {
        Claims {
            rank: l.rank(),
            surjective: l.is_surjective(),
            injective: l.is_injective(),
            invertible: l.is_invertible(),
            masks: l.free_variable_masks(),
            consecutive: l.num_consecutive_in_out(),
            text: l.to_string(),
        }
    }
}

/// Checks `l`'s invariants (see [`Law::Invariant`]); the input-by-input
/// part on every input for at most [`BRUTE_BITS`](super::BRUTE_BITS) input
/// bits, on a fixed sample of inputs beyond.
/// Violations name the operation `invariants`; [`Violation::in_op`]
/// reattributes them.
pub fn invariants(l: &LinearLayout) -> Result<(), Violation> {
    with_claims(l, &Claims::of(l))
}

pub(crate) fn with_claims(l: &LinearLayout, claims: &Claims) -> Result<(), Violation> {
    let ctx = Ctx { op: "invariants" };
    let ins = ins_of(l);
    let outs = outs_of(l);
    let bases = l.bases();
    ctx.same(bases.len(), ins.len(), Law::Invariant, || {
        "number of in-dims in bases()".into()
    })?;
    for ((d, vecs), &(d2, size)) in bases.iter().zip(&ins) {
        ctx.same(*d, d2, Law::Invariant, || "in-dim order of bases()".into())?;
        ctx.ensure(size.is_power_of_two(), Law::Invariant, || {
            format!("in-dim {d} has size {size}")
        })?;
        ctx.same(vecs.len() as u32, log2(size), Law::Invariant, || {
            format!("bases of {d} (one per bit)")
        })?;
        for v in vecs {
            ctx.same(v.len(), outs.len(), Law::Invariant, || {
                format!("components in a basis of {d}")
            })?;
            for (&c, &(od, osize)) in v.iter().zip(&outs) {
                ctx.ensure(c < osize, Law::Invariant, || {
                    format!("basis component {c} on {od} not below its size {osize}")
                })?;
            }
        }
    }
    let in_bits: u32 = ins.iter().map(|d| log2(d.1)).sum();
    let out_bits: u32 = outs.iter().map(|d| log2(d.1)).sum();
    ctx.same(l.total_in_bits(), in_bits, Law::Invariant, || {
        "total_in_bits".into()
    })?;
    ctx.same(l.total_out_bits(), out_bits, Law::Invariant, || {
        "total_out_bits".into()
    })?;
    let flat = flat_bases(ctx, l)?;
    let all: Vec<u128> = flat.iter().flatten().copied().collect();
    let rank = gf2_rank(all.clone());
    ctx.same(claims.rank, rank, Law::Invariant, || "rank".into())?;
    ctx.same(claims.surjective, rank == out_bits, Law::Invariant, || {
        "is_surjective".into()
    })?;
    ctx.same(claims.injective, rank == in_bits, Law::Invariant, || {
        "is_injective".into()
    })?;
    ctx.same(
        claims.invertible,
        rank == out_bits && rank == in_bits,
        Law::Invariant,
        || "is_invertible".into(),
    )?;
    free_variable_masks(ctx, &ins, &claims.masks, &flat)?;
    ctx.ensure(l.equal_ignoring_out_dim_sizes(l), Law::Invariant, || {
        "not equal to itself ignoring out-dim sizes".into()
    })?;

    // The text round trip.
    let text = &claims.text;
    match text.parse::<LinearLayout>() {
        Ok(back) => ctx.ensure(&back == l, Law::Invariant, || {
            format!("text round trip gives another layout:\n{text}")
        })?,
        Err(e) => return Err(ctx.fail(Law::Invariant, format!("printed text does not parse: {e}"))),
    }

    // Every input when there are few enough, else a sample: the sample
    // reaches the wide layouts, where `apply` masks all columns at once
    // (`bits::xor_selected`) instead of walking set bits.
    let exhaustive = all_inputs(&ins);
    let sampled = exhaustive.is_none();
    let inputs: Box<dyn Iterator<Item = Vals>> = match exhaustive {
        Some(all) => Box::new(all),
        None => Box::new(sampled_inputs(&ins)),
    };
    let v = claims.consecutive;
    ctx.ensure(v.is_power_of_two(), Law::Invariant, || {
        format!("num_consecutive_in_out = {v}")
    })?;
    if let (Some(&(_, isize)), Some(&(_, osize))) = (ins.first(), outs.first()) {
        ctx.ensure(v <= isize && v <= osize, Law::Invariant, || {
            format!("num_consecutive_in_out = {v} exceeds the first dims' sizes")
        })?;
    }
    for x in inputs {
        let y = ap(ctx, l, &x)?;
        // apply = XOR of the bases of the set bits.
        let xf = flatten(ctx, &x, &ins)? as u64;
        let mut acc = 0u128;
        for (j, b) in all.iter().enumerate() {
            if xf >> j & 1 == 1 {
                acc ^= b;
            }
        }
        ctx.same(flatten(ctx, &y, &outs)?, acc, Law::Invariant, || {
            format!("apply({x:?}) against the XOR of the bases")
        })?;
        ctx.same(u128::from(l.apply_flat(xf)), acc, Law::Invariant, || {
            format!("apply_flat({xf})")
        })?;
        // Walking `v` consecutive inputs from each is for the enumerable
        // layouts only: `v` can be 2^40 on a wide one.
        if !sampled {
            consecutive(ctx, l, v, &x, &y)?;
        }
    }
    // Out-of-range or missing inputs are errors, not answers.
    if let Some(&(d, size)) = ins.first() {
        let mut x = unflatten(&ins, 0);
        x[0].1 = size;
        ctx.ensure(l.apply(&x).is_err(), Law::Invariant, || {
            format!("apply accepted {d} = {size}")
        })?;
        ctx.ensure(l.apply(&x[1..]).is_err(), Law::Invariant, || {
            format!("apply accepted an input without {d}")
        })?;
    }
    Ok(())
}

/// `v` consecutive values of the first in-dim (from a multiple of `v`)
/// reach `v` consecutive values of the first out-dim, the rest fixed.
fn consecutive(ctx: Ctx, l: &LinearLayout, v: u64, x: &Vals, y: &Vals) -> Result<(), Violation> {
    if v <= 1 || x[0].1 % v != 0 {
        return Ok(());
    }
    for t in 1..v {
        let mut xt = x.clone();
        xt[0].1 += t;
        let mut yt = ap(ctx, l, &xt)?;
        ctx.same(yt[0].1, y[0].1 + t, Law::Invariant, || {
            format!("num_consecutive_in_out = {v} at {x:?} + {t}")
        })?;
        yt[0].1 = y[0].1;
        ctx.same(&yt, y, Law::Invariant, || {
            format!("num_consecutive_in_out = {v} at {x:?} + {t}, other out-dims")
        })?;
    }
    Ok(())
}

/// The bases, each flattened over the out-dims.
fn flat_bases(ctx: Ctx, l: &LinearLayout) -> Result<Vec<Vec<u128>>, Violation> {
    let outs = outs_of(l);
    l.bases()
        .iter()
        .map(|(_, vecs)| {
            vecs.iter()
                .map(|v| {
                    let vals: Vals = outs.iter().zip(v).map(|(&(d, _), &c)| (d, c)).collect();
                    flatten(ctx, &vals, &outs)
                })
                .collect()
        })
        .collect()
}

/// A bit is free when its basis is in the span of the bases before it.
fn free_variable_masks(
    ctx: Ctx,
    ins: &Vals,
    masks: &[(Dim, u64)],
    flat: &[Vec<u128>],
) -> Result<(), Violation> {
    ctx.same(masks.len(), ins.len(), Law::Invariant, || {
        "free_variable_masks entries".into()
    })?;
    // A reduced basis kept by leading bit: a vector is in the span when it
    // reduces to zero.
    let mut pivots: BTreeMap<u32, u128> = BTreeMap::new();
    for (k, vecs) in flat.iter().enumerate() {
        let mut m = 0u64;
        for (i, &v) in vecs.iter().enumerate() {
            let mut r = v;
            while r != 0 {
                let top = 127 - r.leading_zeros();
                match pivots.get(&top) {
                    Some(&p) => r ^= p,
                    None => break,
                }
            }
            if r == 0 {
                m |= 1 << i;
            } else {
                pivots.insert(127 - r.leading_zeros(), r);
            }
        }
        ctx.same(masks[k], (ins[k].0, m), Law::Invariant, || {
            "free_variable_masks".into()
        })?;
    }
    Ok(())
}
