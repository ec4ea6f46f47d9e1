//! One check per operation: the result against its operands, on `apply`.
//!
//! Each function takes the operands and the result the operation returned,
//! and checks the result's dims and (for at most
//! [`BRUTE_BITS`](super::BRUTE_BITS) input bits) every value. None of them
//! checks the result's own [`invariants`](super::invariants); [`Step::check`]
//! does both.
//!
//! [`Step::check`]: super::Step::check

use super::brute::{
    Vals, all_inputs, ap, by_name, flatten, get, ins_of, log2, outs_of, restrict, unflatten,
    unit_images,
};
use super::{Ctx, Law, Violation};
use crate::dim::Dim;
use crate::layout::LinearLayout;

type Checked = Result<(), Violation>;

/// `r = a.compose(b)`: `r(x) = b(a(x))`.
pub fn compose(a: &LinearLayout, b: &LinearLayout, r: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "compose" };
    ctx.same(ins_of(r), ins_of(a), Law::Dims, || "in-dims (a's)".into())?;
    ctx.same(outs_of(r), outs_of(b), Law::Dims, || {
        "out-dims (b's)".into()
    })?;
    let Some(inputs) = all_inputs(&ins_of(a)) else {
        return Ok(());
    };
    let bins = ins_of(b);
    for x in inputs {
        let mid = ap(ctx, a, &x)?;
        let want = ap(ctx, b, &restrict(&mid, &bins))?;
        ctx.same(ap(ctx, r, &x)?, want, Law::Values, || format!("at {x:?}"))?;
    }
    Ok(())
}

/// `c = a.invert_and_compose(b)`: `b(c(x)) = a(x)`.
pub fn invert_and_compose(a: &LinearLayout, b: &LinearLayout, c: &LinearLayout) -> Checked {
    let ctx = Ctx {
        op: "invert_and_compose",
    };
    ctx.same(ins_of(c), ins_of(a), Law::Dims, || "in-dims (a's)".into())?;
    ctx.same(outs_of(c), ins_of(b), Law::Dims, || {
        "out-dims (b's in-dims)".into()
    })?;
    let Some(inputs) = all_inputs(&ins_of(a)) else {
        return Ok(());
    };
    for x in inputs {
        let want = by_name(&ap(ctx, a, &x)?);
        let got = by_name(&ap(ctx, b, &ap(ctx, c, &x)?)?);
        ctx.same(got, want, Law::Values, || {
            format!("b(c(x)) against a(x) at {x:?}")
        })?;
    }
    Ok(())
}

/// `r = a × b`: shared dims hold `a`'s bits low and `b`'s high.
pub fn product(a: &LinearLayout, b: &LinearLayout, r: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "product" };
    let size = |dims: &[(Dim, u64)], d: Dim| dims.iter().find(|x| x.0 == d).map_or(1, |x| x.1);
    // Sizes multiply: compared as log2 sums, which cannot overflow.
    let bits = |dims: &[(Dim, u64)], d: Dim| {
        dims.iter()
            .find(|x| x.0 == d)
            .map_or(0, |x| x.1.trailing_zeros())
    };
    let (ai, ao, bi, bo) = (ins_of(a), outs_of(a), ins_of(b), outs_of(b));
    for &(d, s) in &ins_of(r) {
        ctx.same(
            s.trailing_zeros(),
            bits(&ai, d) + bits(&bi, d),
            Law::Dims,
            || format!("log2 size of in-dim {d}"),
        )?;
    }
    for &(d, s) in &outs_of(r) {
        ctx.same(
            s.trailing_zeros(),
            bits(&ao, d) + bits(&bo, d),
            Law::Dims,
            || format!("log2 size of out-dim {d}"),
        )?;
    }
    let new_in = bi.iter().filter(|d| !ai.iter().any(|e| e.0 == d.0)).count();
    ctx.same(r.num_in_dims(), ai.len() + new_in, Law::Dims, || {
        "number of in-dims".into()
    })?;
    let Some(inputs) = all_inputs(&ins_of(r)) else {
        return Ok(());
    };
    let ro = outs_of(r);
    for x in inputs {
        let xa = fill(ctx, &ai, &x, |d, v| v & (size(&ai, d) - 1))?;
        let xb = fill(ctx, &bi, &x, |d, v| v >> log2(size(&ai, d)))?;
        let (ya, yb) = (ap(ctx, a, &xa)?, ap(ctx, b, &xb)?);
        let want: Vals = ro
            .iter()
            .map(|&(d, _)| {
                let lo = get(&ya, d).unwrap_or(0);
                let hi = get(&yb, d).unwrap_or(0) << log2(size(&ao, d));
                (d, lo ^ hi)
            })
            .collect();
        ctx.same(ap(ctx, r, &x)?, want, Law::Values, || format!("at {x:?}"))?;
    }
    Ok(())
}

/// `x`'s value of every dim of `dims`, mapped by `f`; `x` lacking one is a
/// dims violation.
fn fill(
    ctx: Ctx,
    dims: &[(Dim, u64)],
    x: &Vals,
    f: impl Fn(Dim, u64) -> u64,
) -> Result<Vals, Violation> {
    dims.iter()
        .map(|&(d, _)| {
            get(x, d)
                .map(|v| (d, f(d, v)))
                .ok_or_else(|| ctx.fail(Law::Dims, format!("the result lacks in-dim {d}")))
        })
        .collect()
}

/// `inv` inverts `a`: `a(inv(y)) = y` for every `y`, and when `two_sided`
/// (`invert`, not `pseudoinvert`) also `inv(a(x)) = x`.
pub fn inverse(a: &LinearLayout, inv: &LinearLayout, two_sided: bool) -> Checked {
    let ctx = Ctx {
        op: if two_sided { "invert" } else { "pseudoinvert" },
    };
    ctx.same(ins_of(inv), outs_of(a), Law::Dims, || {
        "in-dims (a's out-dims)".into()
    })?;
    ctx.same(outs_of(inv), ins_of(a), Law::Dims, || {
        "out-dims (a's in-dims)".into()
    })?;
    if let Some(ys) = all_inputs(&outs_of(a)) {
        for y in ys {
            let back = ap(ctx, a, &ap(ctx, inv, &y)?)?;
            ctx.same(back, y.clone(), Law::Inverse, || {
                format!("a(inv(y)) at y = {y:?}")
            })?;
        }
    }
    if two_sided && let Some(xs) = all_inputs(&ins_of(a)) {
        for x in xs {
            let back = ap(ctx, inv, &ap(ctx, a, &x)?)?;
            ctx.same(back, x.clone(), Law::Inverse, || {
                format!("inv(a(x)) at x = {x:?}")
            })?;
        }
    }
    Ok(())
}

/// `r` re-splits `a`'s input bits over new in-dims: same flat input, same
/// output. (Also `flatten_ins`.)
pub fn reshape_ins(a: &LinearLayout, r: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "reshape_ins" };
    ctx.same(outs_of(r), outs_of(a), Law::Dims, || "out-dims".into())?;
    ctx.same(r.total_in_bits(), a.total_in_bits(), Law::Dims, || {
        "total in bits".into()
    })?;
    let (ai, ri) = (ins_of(a), ins_of(r));
    let Some(inputs) = all_inputs(&ai) else {
        return Ok(());
    };
    // Input number `x` of `a` is flat input `x`: the same on `r`'s dims.
    for (x, xa) in (0u64..).zip(inputs) {
        let want = ap(ctx, a, &xa)?;
        ctx.same(ap(ctx, r, &unflatten(&ri, x))?, want, Law::Values, || {
            format!("at flat input {x}")
        })?;
    }
    Ok(())
}

/// `r` re-splits `a`'s output bits over new out-dims: same flat output.
/// (Also `flatten_outs`.)
pub fn reshape_outs(a: &LinearLayout, r: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "reshape_outs" };
    ctx.same(ins_of(r), ins_of(a), Law::Dims, || "in-dims".into())?;
    ctx.same(r.total_out_bits(), a.total_out_bits(), Law::Dims, || {
        "total out bits".into()
    })?;
    let (ao, ro) = (outs_of(a), outs_of(r));
    let Some(inputs) = all_inputs(&ins_of(a)) else {
        return Ok(());
    };
    for x in inputs {
        let want = flatten(ctx, &ap(ctx, a, &x)?, &ao)?;
        ctx.same(
            flatten(ctx, &ap(ctx, r, &x)?, &ro)?,
            want,
            Law::Values,
            || format!("flat output at {x:?}"),
        )?;
    }
    Ok(())
}

/// `r` maps every input to the same values by name (the transposes).
pub fn same_values(a: &LinearLayout, r: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "transpose" };
    let Some(inputs) = all_inputs(&ins_of(a)) else {
        return Ok(());
    };
    for x in inputs {
        let want = by_name(&ap(ctx, a, &x)?);
        ctx.same(by_name(&ap(ctx, r, &x)?), want, Law::Values, || {
            format!("at {x:?}")
        })?;
    }
    Ok(())
}

/// `r(x) = a(x extended with 0)`, on `r`'s out-dims (sub-layouts,
/// quotients, squeezes, `resize_in_dim`).
pub fn restriction(a: &LinearLayout, r: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "restriction" };
    let ai = ins_of(a);
    let Some(inputs) = all_inputs(&ins_of(r)) else {
        return Ok(());
    };
    for x in inputs {
        let ya = ap(ctx, a, &restrict(&x, &ai))?;
        let want = r
            .out_dim_names()
            .map(|d| {
                get(&ya, d)
                    .map(|v| (d, v))
                    .ok_or_else(|| ctx.fail(Law::Dims, format!("out-dim {d} is not a's")))
            })
            .collect::<Result<Vals, _>>()?;
        ctx.same(ap(ctx, r, &x)?, want, Law::Values, || format!("at {x:?}"))?;
    }
    Ok(())
}

/// `r = a.concat_ins(b)`: `r(x) = a(x) ^ b(x)`, with `b` seeing 0 on the
/// in-dims it shares with `a`.
pub fn concat_ins(a: &LinearLayout, b: &LinearLayout, r: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "concat_ins" };
    ctx.same(outs_of(r), outs_of(a), Law::Dims, || {
        "out-dims (a's)".into()
    })?;
    let Some(inputs) = all_inputs(&ins_of(r)) else {
        return Ok(());
    };
    let (ai, bi) = (ins_of(a), ins_of(b));
    for x in inputs {
        let ya = ap(ctx, a, &restrict(&x, &ai))?;
        // b sees 0 on the dims it shares with a.
        let xb = bi
            .iter()
            .map(|&(d, _)| match (a.has_in_dim(d), get(&x, d)) {
                (true, _) => Ok((d, 0)),
                (false, Some(v)) => Ok((d, v)),
                (false, None) => Err(ctx.fail(Law::Dims, format!("the result lacks in-dim {d}"))),
            })
            .collect::<Result<Vals, _>>()?;
        let yb = ap(ctx, b, &xb)?;
        let want: Vals = ya.iter().zip(&yb).map(|(p, q)| (p.0, p.1 ^ q.1)).collect();
        ctx.same(ap(ctx, r, &x)?, want, Law::Values, || format!("at {x:?}"))?;
    }
    Ok(())
}

/// `r = a.concat_outs(b)`: `r(x) = (a(x), b(x))`.
pub fn concat_outs(a: &LinearLayout, b: &LinearLayout, r: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "concat_outs" };
    let ai = ins_of(a);
    ctx.same(ins_of(r), ai.clone(), Law::Dims, || "in-dims (a's)".into())?;
    let Some(inputs) = all_inputs(&ai) else {
        return Ok(());
    };
    for x in inputs {
        let mut want = ap(ctx, a, &x)?;
        want.extend(ap(ctx, b, &x)?);
        ctx.same(ap(ctx, r, &x)?, want, Law::Values, || format!("at {x:?}"))?;
    }
    Ok(())
}

/// `c = a.divide_left(b)`: `b × c = a`.
pub fn divide_left(a: &LinearLayout, b: &LinearLayout, c: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "divide_left" };
    ctx.ensure(
        b.product(c).as_ref().ok() == Some(a),
        Law::Factorization,
        || "b × c != a".into(),
    )
}

/// `c = a.divide_right(b)`: `c × b = a`.
pub fn divide_right(a: &LinearLayout, b: &LinearLayout, c: &LinearLayout) -> Checked {
    let ctx = Ctx { op: "divide_right" };
    ctx.ensure(
        c.product(b).as_ref().ok() == Some(a),
        Law::Factorization,
        || "c × b != a".into(),
    )
}

/// `r = a.remove_zero_bases_along_dim(d)`: in-dim `d` keeps only the bits
/// whose image is not zero, in order; the others are unchanged.
pub fn remove_zero_bases(a: &LinearLayout, d: Dim, r: &LinearLayout) -> Checked {
    let ctx = Ctx {
        op: "remove_zero_bases_along_dim",
    };
    let Ok(size) = a.in_dim_size(d) else {
        return ctx.ensure(r == a, Law::Values, || {
            format!("{d} is not an in-dim, yet the layout changed")
        });
    };
    let ao = outs_of(a);
    let mut kept = Vec::new();
    for (i, y) in unit_images(ctx, a, d, size)?.iter().enumerate() {
        if flatten(ctx, y, &ao)? != 0 {
            kept.push(i as u32);
        }
    }
    ctx.same(
        r.in_dim_size(d).ok(),
        Some(1u64 << kept.len()),
        Law::Dims,
        || format!("size of {d}"),
    )?;
    let Some(inputs) = all_inputs(&ins_of(r)) else {
        return Ok(());
    };
    for x in inputs {
        let v = get(&x, d).unwrap_or(0);
        let deposited = kept
            .iter()
            .enumerate()
            .filter(|(j, _)| v >> j & 1 == 1)
            .fold(0u64, |acc, (_, &i)| acc | 1 << i);
        let xa: Vals = x
            .iter()
            .map(|&(e, w)| (e, if e == d { deposited } else { w }))
            .collect();
        let want = ap(ctx, a, &xa)?;
        ctx.same(ap(ctx, r, &x)?, want, Law::Values, || format!("at {x:?}"))?;
    }
    Ok(())
}

/// `r = a.resize_out_dim(d, size)`: per basis, a component on `d` that
/// does not fit the new size is zeroed whole; other out-dims unchanged.
pub fn resize_out(a: &LinearLayout, d: Dim, size: u64, r: &LinearLayout) -> Checked {
    let ctx = Ctx {
        op: "resize_out_dim",
    };
    let ai = ins_of(a);
    ctx.same(r.out_dim_size(d).ok(), Some(size), Law::Dims, || {
        format!("size of out-dim {d}")
    })?;
    ctx.same(ins_of(r), ai.clone(), Law::Dims, || "in-dims".into())?;
    let Some(inputs) = all_inputs(&ai) else {
        return Ok(());
    };
    let units = ai
        .iter()
        .map(|&(e, s)| Ok((e, unit_images(ctx, a, e, s)?)))
        .collect::<Result<Vec<(Dim, Vec<Vals>)>, Violation>>()?;
    for x in inputs {
        let ya = ap(ctx, a, &x)?;
        let mut want_d = 0u64;
        for (e, imgs) in &units {
            let v = get(&x, *e).unwrap_or(0);
            for (i, y) in imgs.iter().enumerate() {
                let c = get(y, d).unwrap_or(0);
                if v >> i & 1 == 1 && c < size {
                    want_d ^= c;
                }
            }
        }
        let want: Vals = ya
            .iter()
            .map(|&(e, v)| (e, if e == d { want_d } else { v }))
            .collect();
        ctx.same(ap(ctx, r, &x)?, want, Law::Values, || format!("at {x:?}"))?;
    }
    Ok(())
}

/// `r = a.rename_in_dim(old, new)`: the same map with `old` called `new`;
/// when `new` already is another in-dim, the two merge and `old`'s bits
/// are dropped (`r(x) = a(x restricted to a's dims)`).
pub fn rename_in(a: &LinearLayout, old: Dim, new: Dim, r: &LinearLayout) -> Checked {
    let ctx = Ctx {
        op: "rename_in_dim",
    };
    let ai = ins_of(a);
    let clash = new != old && a.has_in_dim(new);
    ctx.same(
        r.num_in_dims(),
        ai.len() - usize::from(clash),
        Law::Dims,
        || "number of in-dims".into(),
    )?;
    ctx.same(outs_of(r), outs_of(a), Law::Dims, || "out-dims".into())?;
    let Some(inputs) = all_inputs(&ins_of(r)) else {
        return Ok(());
    };
    for x in inputs {
        let xa: Vals = if clash {
            restrict(&x, &ai)
        } else {
            x.iter()
                .map(|&(e, v)| (if e == new { old } else { e }, v))
                .collect()
        };
        let want = ap(ctx, a, &xa)?;
        ctx.same(ap(ctx, r, &x)?, want, Law::Values, || format!("at {x:?}"))?;
    }
    Ok(())
}

/// `answer = a.sublayout_is_zero(ins, outs)` for dims of `a`: every basis
/// of the sub-layout is zero.
pub fn sublayout_is_zero(a: &LinearLayout, ins: &[Dim], outs: &[Dim], answer: bool) -> Checked {
    let ctx = Ctx {
        op: "sublayout_is_zero",
    };
    let zero = is_zero(ctx, a, ins, outs)?;
    ctx.same(answer, zero, Law::Values, || {
        "whether every basis is zero".into()
    })
}

/// `answer = a.square_sublayout_is_identity(dims)`: each dim has the same
/// in and out size and the sub-layout on `dims` maps every input to
/// itself (checked for at most [`BRUTE_BITS`](super::BRUTE_BITS) bits
/// only).
pub fn square_sublayout_is_identity(a: &LinearLayout, dims: &[Dim], answer: bool) -> Checked {
    let ctx = Ctx {
        op: "square_sublayout_is_identity",
    };
    match is_identity(ctx, a, dims)? {
        Some(identity) => ctx.same(answer, identity, Law::Values, || {
            format!("identity over {dims:?}")
        }),
        None => Ok(()),
    }
}

/// `answer = a.is_trivial_over(dims)`: the square sub-layout on `dims` is
/// the identity, the other in-dims are zero on `dims` and `dims` are zero
/// on the other out-dims (checked for at most
/// [`BRUTE_BITS`](super::BRUTE_BITS) bits of `dims` only).
pub fn is_trivial_over(a: &LinearLayout, dims: &[Dim], answer: bool) -> Checked {
    let ctx = Ctx {
        op: "is_trivial_over",
    };
    let Some(identity) = is_identity(ctx, a, dims)? else {
        return Ok(());
    };
    let other_ins: Vec<Dim> = a.in_dim_names().filter(|d| !dims.contains(d)).collect();
    let other_outs: Vec<Dim> = a.out_dim_names().filter(|d| !dims.contains(d)).collect();
    let trivial =
        identity && is_zero(ctx, a, &other_ins, dims)? && is_zero(ctx, a, dims, &other_outs)?;
    ctx.same(answer, trivial, Law::Values, || {
        format!("trivial over {dims:?}")
    })
}

/// The sub-layout of `a` on `ins` → `outs`, which are `a`'s own dims.
fn sub(ctx: Ctx, a: &LinearLayout, ins: &[Dim], outs: &[Dim]) -> Result<LinearLayout, Violation> {
    a.sublayout(ins, outs).map_err(|e| {
        ctx.fail(
            Law::Domain,
            format!("sublayout on the layout's own dims: {e}"),
        )
    })
}

/// Whether every basis of the sub-layout on `ins` → `outs` is zero.
fn is_zero(ctx: Ctx, a: &LinearLayout, ins: &[Dim], outs: &[Dim]) -> Result<bool, Violation> {
    Ok(sub(ctx, a, ins, outs)?
        .bases()
        .iter()
        .all(|(_, v)| v.iter().flatten().all(|&c| c == 0)))
}

/// Whether the square sub-layout on `dims` maps every input to itself
/// (equal in and out sizes first); `None` above [`BRUTE_BITS`](super::BRUTE_BITS).
fn is_identity(ctx: Ctx, a: &LinearLayout, dims: &[Dim]) -> Result<Option<bool>, Violation> {
    let sq = sub(ctx, a, dims, dims)?;
    let (si, so) = (ins_of(&sq), outs_of(&sq));
    let Some(inputs) = all_inputs(&si) else {
        return Ok(None);
    };
    let sizes_match = dims
        .iter()
        .all(|&d| a.in_dim_size(d).ok() == a.out_dim_size(d).ok());
    if !sizes_match {
        return Ok(Some(false));
    }
    for x in inputs {
        if flatten(ctx, &ap(ctx, &sq, &x)?, &so)? != flatten(ctx, &x, &si)? {
            return Ok(Some(false));
        }
    }
    Ok(Some(true))
}
