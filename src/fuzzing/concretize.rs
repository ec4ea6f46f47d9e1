//! From an [`Op`] on the current layout to concrete [`Step`]s: dim names,
//! sizes, components and orders, as the fuzz input encodes them.

use super::{DimSource, Op, Pick, Spec};
use crate::bits::low_mask;
use crate::dim::{Dim, dim};
use crate::layout::LinearLayout;
use crate::reference::Step;

/// Dim names: Triton's in-dims and out-dims, so in-dims and out-dims of one
/// layout sometimes share a name (which changes `pseudoinvert`'s path and
/// what `quotient` can do).
const NAMES: [&str; 8] = [
    "register", "lane", "warp", "block", "dim0", "dim1", "dim2", "offset",
];
const MAX_DIMS: usize = 4;
const MAX_IN_LOG2: u8 = 5;
const MAX_OUT_LOG2: u8 = 6;

fn name(i: u8) -> Dim {
    dim(NAMES[i as usize % NAMES.len()])
}

fn resolve(src: &DimSource, cur: &LinearLayout, max_log2: u8) -> Vec<(Dim, u64)> {
    let (mut dims, tweak, perm): (Vec<(Dim, u64)>, u8, u8) = match src {
        DimSource::Random(v) => {
            return v
                .iter()
                .take(MAX_DIMS)
                .map(|&(n, b)| (name(n), 1u64 << (b % (max_log2 + 1))))
                .collect();
        }
        DimSource::CurrentIns { tweak, perm } => (cur.in_dims().collect(), *tweak, *perm),
        DimSource::CurrentOuts { tweak, perm } => (cur.out_dims().collect(), *tweak, *perm),
    };
    if dims.is_empty() {
        return dims;
    }
    let n = dims.len();
    dims.rotate_left(perm as usize % n);
    if perm & 0x80 != 0 {
        dims.reverse();
    }
    let k = (tweak >> 2) as usize % n;
    let bits = dims[k].1.trailing_zeros();
    let bits = match tweak % 4 {
        2 => (bits + 1).min(40),
        3 => bits.saturating_sub(1),
        _ => bits,
    };
    dims[k].1 = 1u64 << bits;
    dims
}

/// A basis component from a raw value: by its top two bits, a power of
/// two, zero, or the value masked into range.
fn component(raw: u16, out_log2: u32) -> u64 {
    let v = u64::from(raw);
    match raw >> 14 {
        1 if out_log2 > 0 => 1u64 << ((v & 63) % u64::from(out_log2)),
        2 => 0,
        _ => v & low_mask(out_log2),
    }
}

/// The `from_bases` step that builds `spec` against the current layout.
pub(super) fn build(spec: &Spec, cur: &LinearLayout) -> Step {
    let ins = resolve(&spec.ins, cur, MAX_IN_LOG2);
    let outs = resolve(&spec.outs, cur, MAX_OUT_LOG2);
    let mut next = 0usize;
    let mut comp = |out_log2: u32| {
        let raw = if spec.comps.is_empty() {
            0
        } else {
            spec.comps[next % spec.comps.len()]
        };
        next += 1;
        component(raw, out_log2)
    };
    let bases = ins
        .iter()
        .map(|&(d, size)| {
            let vectors = (0..size.trailing_zeros())
                .map(|_| {
                    outs.iter()
                        .map(|&(_, s)| comp(s.trailing_zeros()))
                        .collect()
                })
                .collect();
            (d, vectors)
        })
        .collect();
    Step::FromBases {
        bases,
        out_dims: outs,
        require_surjective: spec.require_surjective,
    }
}

fn pick(dims: &[(Dim, u64)], p: Pick) -> Dim {
    if p < 0xf0 && !dims.is_empty() {
        dims[p as usize % dims.len()].0
    } else {
        name(p)
    }
}

fn masked(dims: &[(Dim, u64)], m: u8, extra: Option<u8>) -> Vec<Dim> {
    let mut v: Vec<Dim> = dims
        .iter()
        .enumerate()
        .filter(|(i, _)| m >> (i % 8) & 1 == 1)
        .map(|(_, d)| d.0)
        .collect();
    if let Some(e) = extra {
        v.push(name(e));
    }
    v
}

/// New dims splitting `total` bits over `names` (or raw sizes).
fn split(total: u32, names: &[u8], cuts: &[u8], raw: bool) -> Vec<(Dim, u64)> {
    let names: Vec<Dim> = names.iter().take(MAX_DIMS).map(|&n| name(n)).collect();
    if raw {
        return names
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, 1u64 << (cuts.get(i).copied().unwrap_or(0) % 8)))
            .collect();
    }
    let mut left = total;
    let n = names.len();
    names
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            let b = if i + 1 == n {
                left
            } else {
                u32::from(cuts.get(i).copied().unwrap_or(0)) % (left + 1)
            };
            left -= b;
            (d, 1u64 << b.min(63))
        })
        .collect()
}

/// A reordering of `dims` by sort keys (or raw pool names).
fn permute(dims: &[(Dim, u64)], keys: &[u8], raw: bool) -> Vec<Dim> {
    if raw {
        return keys.iter().take(MAX_DIMS).map(|&k| name(k)).collect();
    }
    let mut v: Vec<(u8, Dim)> = dims
        .iter()
        .enumerate()
        .map(|(i, d)| (keys.get(i).copied().unwrap_or(0), d.0))
        .collect();
    v.sort_by_key(|x| x.0);
    v.into_iter().map(|x| x.1).collect()
}

/// Runs `op` on `a` through `exec` (see [`run_with`](super::run_with)):
/// first the `from_bases` step of a second operand, if any, then the
/// operation's steps. The layout the run continues with, if any.
pub(super) fn apply<E>(
    op: &Op,
    a: &LinearLayout,
    exec: &mut impl FnMut(&Step) -> Result<Option<LinearLayout>, E>,
) -> Result<Option<LinearLayout>, E> {
    let ai: Vec<(Dim, u64)> = a.in_dims().collect();
    let ao: Vec<(Dim, u64)> = a.out_dims().collect();
    let a0 = || a.clone();
    // The second operand, built by its own step; no operand, no operation.
    macro_rules! operand {
        ($spec:expr) => {
            match exec(&build($spec, a))? {
                Some(b) => b,
                None => return Ok(None),
            }
        };
    }
    let step = match op {
        Op::Compose(spec) => Step::Compose {
            b: operand!(spec),
            a: a0(),
        },
        Op::ComposeSelf => Step::Compose { a: a0(), b: a0() },
        Op::InvertAndCompose(spec) => Step::InvertAndCompose {
            b: operand!(spec),
            a: a0(),
        },
        Op::InvertAndComposeSelf => Step::InvertAndCompose { a: a0(), b: a0() },
        Op::Product(spec) => Step::Product {
            b: operand!(spec),
            a: a0(),
        },
        Op::ProductAsOuter(spec) => Step::Product {
            a: operand!(spec),
            b: a0(),
        },
        Op::Invert => Step::Invert { a: a0() },
        Op::Pseudoinvert => Step::Pseudoinvert { a: a0() },
        Op::ReshapeIns { names, cuts, raw } => Step::ReshapeIns {
            a: a0(),
            dims: split(a.total_in_bits(), names, cuts, *raw),
        },
        Op::ReshapeOuts { names, cuts, raw } => Step::ReshapeOuts {
            a: a0(),
            dims: split(a.total_out_bits(), names, cuts, *raw),
        },
        Op::FlattenIns => Step::FlattenIns { a: a0() },
        Op::FlattenOuts => Step::FlattenOuts { a: a0() },
        Op::TransposeIns { keys, raw } => Step::TransposeIns {
            a: a0(),
            order: permute(&ai, keys, *raw),
        },
        Op::TransposeOuts { keys, raw } => Step::TransposeOuts {
            a: a0(),
            order: permute(&ao, keys, *raw),
        },
        Op::Sublayout {
            in_mask,
            out_mask,
            extra,
        } => Step::Sublayout {
            a: a0(),
            ins: masked(&ai, *in_mask, *extra),
            outs: masked(&ao, *out_mask, None),
        },
        Op::ConcatIns(spec) => Step::ConcatIns {
            b: operand!(spec),
            a: a0(),
        },
        Op::ConcatOuts(spec) => Step::ConcatOuts {
            b: operand!(spec),
            a: a0(),
        },
        Op::DivideLeft(spec) => Step::DivideLeft {
            b: operand!(spec),
            a: a0(),
        },
        Op::DivideRight(spec) => Step::DivideRight {
            b: operand!(spec),
            a: a0(),
        },
        Op::ProductThenDivide(spec) => Step::ProductThenDivide {
            b: operand!(spec),
            a: a0(),
        },
        Op::Quotient { mask, extra } => Step::Quotient {
            a: a0(),
            dims: masked(&ai, *mask, *extra),
        },
        Op::RemoveZeroBases(p) => Step::RemoveZeroBases {
            a: a0(),
            dim: pick(&ai, *p),
        },
        Op::SqueezeIns(p) => Step::SqueezeIns {
            a: a0(),
            dim: pick(&ai, *p),
        },
        Op::SqueezeOuts(p) => Step::SqueezeOuts {
            a: a0(),
            dim: pick(&ao, *p),
        },
        Op::ResizeIn(p, bits) => Step::ResizeIn {
            a: a0(),
            dim: pick(&ai, *p),
            size: 1u64 << (bits % 8),
        },
        Op::ResizeOut(p, bits) => Step::ResizeOut {
            a: a0(),
            dim: pick(&ao, *p),
            size: 1u64 << (bits % 8),
        },
        Op::RenameIn(p, new) => Step::RenameIn {
            a: a0(),
            old: pick(&ai, *p),
            new: name(*new),
        },
        Op::Queries { in_mask, out_mask } => {
            let ins = masked(&ai, *in_mask, None);
            let outs = masked(&ao, *out_mask, None);
            // The selected in-dims that are also out-dims.
            let both: Vec<Dim> = ins.iter().copied().filter(|&d| a.has_out_dim(d)).collect();
            exec(&Step::SublayoutIsZero { a: a0(), ins, outs })?;
            exec(&Step::SquareSublayoutIsIdentity {
                a: a0(),
                dims: both.clone(),
            })?;
            exec(&Step::IsTrivialOver {
                a: a0(),
                dims: both,
            })?;
            return Ok(None);
        }
        Op::Replace(spec) => return exec(&build(spec, a)),
    };
    exec(&step)
}
