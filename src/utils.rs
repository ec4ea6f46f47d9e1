//! Triton's `LayoutUtils`: the helpers the attribute conversions and the
//! lowering passes build on.

use crate::column_action::ColumnAction;
use crate::dim::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::{DimBits, LinearLayout};

fn shape_of(op: &'static str, shape: &[(Dim, u64)], d: Dim) -> Result<u64> {
    shape
        .iter()
        .find(|x| x.0 == d)
        .map(|x| x.1)
        .ok_or_else(|| LayoutError::UnknownDim {
            op,
            side: crate::Side::Out,
            dim: d,
            available: crate::DimList(shape.iter().map(|x| x.0).collect()),
        })
}

/// Triton passes shapes as a map with exactly one entry per out-dim (it
/// asserts the count).
fn check_shape_len(op: &'static str, layout: &LinearLayout, shape: &[(Dim, u64)]) -> Result<()> {
    if shape.len() != layout.num_out_dims() {
        return Err(LayoutError::WrongLength {
            op,
            what: "shape".into(),
            got: shape.len(),
            expected: layout.num_out_dims(),
        });
    }
    Ok(())
}

/// Grows a layout until every out-dim is at least `shape`'s size, by
/// multiplying in repetitions of the first in-dim (which must be `register`
/// or `offset`): out-dim by out-dim, in the layout's out order. New
/// repetitions are therefore the most significant register/offset bits.
pub fn ensure_layout_not_smaller_than(
    layout: &LinearLayout,
    shape: &[(Dim, u64)],
) -> Result<LinearLayout> {
    const OP: &str = "ensure_layout_not_smaller_than";
    check_shape_len(OP, layout, shape)?;
    if shape.is_empty() {
        return Ok(layout.clone());
    }
    let first = layout.in_dim_names().next();
    let Some(first) = first.filter(|&d| d == Dim::REGISTER || d == Dim::OFFSET) else {
        return Err(LayoutError::WrongFirstInDim {
            op: OP,
            expected: "register or offset",
            got: first.map_or("(none)".to_string(), |d| d.to_string()),
        });
    };
    // Growth in bits per out-dim: each is the product with an identity of
    // `want / size` elements, which must be a power of two.
    let mut growth = Vec::with_capacity(shape.len());
    for (d, size) in layout.out_dims() {
        let want = shape_of(OP, shape, d)?;
        let mut g = 0;
        if want > size {
            if want % size != 0 {
                return Err(LayoutError::NotDivisible {
                    op: OP,
                    dim: d,
                    size,
                    target: want,
                });
            }
            let factor = want / size;
            if !factor.is_power_of_two() {
                // The product's identity refuses it: report its error.
                LinearLayout::identity_1d(factor, first, d)?;
            }
            g = factor.trailing_zeros() as u8;
        }
        growth.push(g);
    }
    layout.grow_outs(OP, first, &growth)
}

/// Shrinks the codomain to `shape` (Triton 3.8 and later): each out-dim
/// becomes `min(current, target)` and every component that no longer fits is
/// zeroed, so out-of-range lanes and warps broadcast. With
/// `broadcast_registers = false`, register bases that were nonzero and became
/// zero are removed instead of kept as duplicates.
pub fn ensure_layout_not_larger_than(
    layout: &LinearLayout,
    shape: &[(Dim, u64)],
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    const OP: &str = "ensure_layout_not_larger_than";
    check_shape_len(OP, layout, shape)?;
    if shape.is_empty() {
        return Ok(layout.clone());
    }
    let mut log2 = Vec::with_capacity(shape.len());
    for (d, size) in layout.out_dims() {
        let want = shape_of(OP, shape, d)?;
        if !want.is_power_of_two() {
            return Err(LayoutError::NotPowerOfTwo {
                op: OP,
                what: format!("target size of out-dim {d}"),
                value: want,
            });
        }
        log2.push(size.min(want).trailing_zeros() as u8);
    }
    let drop_zeroed = (!broadcast_registers).then_some(Dim::REGISTER);
    layout.clip_outs(OP, &log2, drop_zeroed)
}

/// The `ensureLayoutNotLargerThan` of Triton 3.2 to 3.7: for each out-dim that
/// is too big, zero its nonzero components largest first (each must be a
/// power of two) until the running size fits, then rebuild with inferred
/// sizes, which must be surjective.
pub fn ensure_layout_not_larger_than_legacy(
    layout: &LinearLayout,
    shape: &[(Dim, u64)],
) -> Result<LinearLayout> {
    const OP: &str = "ensure_layout_not_larger_than (3.2–3.7)";
    check_shape_len(OP, layout, shape)?;
    let mut bases = layout.bases();
    let out_names: Vec<Dim> = layout.out_dim_names().collect();
    for (o, (d, size)) in layout.out_dims().enumerate() {
        let want = shape_of(OP, shape, d)?;
        if size <= want {
            continue;
        }
        // Triton divides by the target here (a division by zero for 0).
        if want == 0 || size % want != 0 {
            return Err(LayoutError::NotDivisible {
                op: OP,
                dim: d,
                size: want,
                target: size,
            });
        }
        // (value, in-dim index, basis index), largest value first; equal
        // values keep their in-dim / basis order.
        let mut nonzero: Vec<(u64, usize, usize)> = Vec::new();
        for (k, (_, vectors)) in bases.iter().enumerate() {
            for (i, v) in vectors.iter().enumerate() {
                if v[o] != 0 {
                    if !v[o].is_power_of_two() {
                        return Err(LayoutError::NotPowerOfTwo {
                            op: OP,
                            what: format!("component on out-dim {d}"),
                            value: v[o],
                        });
                    }
                    nonzero.push((v[o], k, i));
                }
            }
        }
        nonzero.sort_by_key(|x| std::cmp::Reverse(x.0));
        let mut running = size;
        for (_, k, i) in nonzero {
            if running <= want {
                break;
            }
            bases[k].1[i][o] = 0;
            running /= 2;
        }
    }
    LinearLayout::from_bases(&bases, &out_names)
}

/// The identity from `in_dim` onto an N-d tensor of `shape`, walking the
/// dims in `order` (minor first): the product over `d` in `order` of
/// `identity_1d(shape[d], in_dim, dim{d})`.
pub fn identity_standard_nd(in_dim: Dim, shape: &[u64], order: &[usize]) -> Result<LinearLayout> {
    const OP: &str = "identity_standard_nd";
    if order.len() != shape.len() {
        return Err(LayoutError::WrongLength {
            op: OP,
            what: "order".into(),
            got: order.len(),
            expected: shape.len(),
        });
    }
    if let Some(outs) = standard_outs(shape, order) {
        return LinearLayout::identity_onto(OP, in_dim, outs);
    }
    let mut out = LinearLayout::empty();
    for &d in order {
        let size = *shape.get(d).ok_or(LayoutError::IndexOutOfRange {
            op: OP,
            index: d,
            len: shape.len(),
        })?;
        out = out.product(&LinearLayout::identity_1d(size, in_dim, Dim::standard(d))?)?;
    }
    Ok(out)
}

/// The out-dims of [`identity_standard_nd`] when the product it describes
/// is a plain identity: `order` is a permutation of the dims, every size a
/// power of two (not 0), at most [`crate::MAX_BITS`] bits in all. `None`
/// leaves every other case, errors included, to the product itself.
fn standard_outs(shape: &[u64], order: &[usize]) -> Option<DimBits> {
    if order.is_empty() || order.len() > 64 {
        return None;
    }
    let (mut seen, mut bits) = (0u64, 0u32);
    let mut outs = DimBits::new();
    for &d in order {
        let size = *shape.get(d)?;
        if d >= 64 || seen >> d & 1 != 0 || !size.is_power_of_two() {
            return None;
        }
        seen |= 1 << d;
        bits += size.trailing_zeros();
        outs.push((Dim::standard(d), size.trailing_zeros() as u8));
    }
    (bits <= crate::MAX_BITS).then_some(outs)
}

/// A row-major reshape of a layout whose out-dims are tensor dims: the last
/// dim is the fastest-varying, as in `torch.reshape`. The result's out-dims
/// are `dim0 … dim{n-1}` with the sizes of `shape`.
pub fn reshape_layout(layout: &LinearLayout, shape: &[u64]) -> Result<LinearLayout> {
    let mut reversed: Vec<Dim> = layout.out_dim_names().collect();
    reversed.reverse();
    let new_rev: Vec<(Dim, u64)> = shape
        .iter()
        .enumerate()
        .rev()
        .map(|(i, &s)| (Dim::standard(i), s))
        .collect();
    let standard: Vec<Dim> = (0..shape.len()).map(Dim::standard).collect();
    layout
        .transpose_outs(&reversed)?
        .reshape_outs(&new_rev)?
        .transpose_outs(&standard)
}

/// Permutes each basis's components: component `i` of the result is
/// component `order[i]` of the input. Names stay; sizes are re-inferred.
pub fn transpose_linear_layout(layout: &LinearLayout, order: &[usize]) -> Result<LinearLayout> {
    const OP: &str = "transpose_linear_layout";
    let n = layout.num_out_dims();
    // Triton does not require a permutation: each basis becomes
    // `[b[order[0]], b[order[1]], …]`, which must have one entry per out-dim,
    // and the constructor (inferred sizes, surjective) judges the result.
    if order.len() != n {
        return Err(LayoutError::WrongLength {
            op: OP,
            what: "order".into(),
            got: order.len(),
            expected: n,
        });
    }
    if let Some(&index) = order.iter().find(|&&i| i >= n) {
        return Err(LayoutError::IndexOutOfRange {
            op: OP,
            index,
            len: n,
        });
    }
    let bases: Vec<_> = layout
        .bases()
        .into_iter()
        .map(|(d, v)| {
            (
                d,
                v.into_iter()
                    .map(|b| order.iter().map(|&i| b[i]).collect())
                    .collect(),
            )
        })
        .collect();
    let names: Vec<Dim> = layout.out_dim_names().collect();
    LinearLayout::from_bases(&bases, &names)
}

/// The same dims and sizes, with every component zero.
pub fn zeros_like(layout: &LinearLayout) -> Result<LinearLayout> {
    let bases: Vec<_> = layout
        .bases()
        .into_iter()
        .map(|(d, v)| (d, v.into_iter().map(|b| vec![0; b.len()]).collect()))
        .collect();
    let outs: Vec<_> = layout.out_dims().collect();
    LinearLayout::from_bases_with_sizes(&bases, &outs, false)
}

/// Drops standard out-dim `dim{index}` and renames the later ones down, so
/// the out-dims stay `dim0 … dim{n-2}`. The result need not be surjective.
pub fn remove_standard_dim(layout: &LinearLayout, index: usize) -> Result<LinearLayout> {
    const OP: &str = "remove_standard_dim";
    let target = Dim::standard(index);
    let k = layout
        .out_dim_names()
        .position(|d| d == target)
        .ok_or_else(|| LayoutError::UnknownDim {
            op: OP,
            side: crate::Side::Out,
            dim: target,
            available: crate::DimList(layout.out_dim_names().collect()),
        })?;
    let rename = |d: Dim| -> Dim {
        match d
            .name()
            .strip_prefix("dim")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(i) if i > index => Dim::standard(i - 1),
            _ => d,
        }
    };
    let bases: Vec<_> = layout
        .bases()
        .into_iter()
        .map(|(d, v)| {
            (
                d,
                v.into_iter()
                    .map(|b| {
                        b.iter()
                            .enumerate()
                            .filter(|&(j, _)| j != k)
                            .map(|(_, &c)| c)
                            .collect()
                    })
                    .collect(),
            )
        })
        .collect();
    let outs: Vec<_> = layout
        .out_dims()
        .filter(|&(d, _)| d != target)
        .map(|(d, s)| (rename(d), s))
        .collect();
    LinearLayout::from_bases_with_sizes(&bases, &outs, false)
}

/// A register permutation of `a` that makes `b` a left (or right) factor:
/// each register basis of `b` (shifted, for a right factor, above the part
/// of `a` that `b` does not cover) is matched in order with the first unused
/// equal register basis of `a`. The matched indices come first for a left
/// factor, last for a right one. `None` when some basis of `b` has no match.
pub fn reg_perm_for_divide(
    a: &LinearLayout,
    b: &LinearLayout,
    left: bool,
) -> Result<Option<ColumnAction>> {
    const OP: &str = "reg_perm_for_divide";
    for l in [a, b] {
        if l.in_dim_names().next() != Some(Dim::REGISTER) {
            let got = l
                .in_dim_names()
                .next()
                .map_or("(none)".to_string(), |d| d.to_string());
            return Err(LayoutError::WrongFirstInDim {
                op: OP,
                expected: "register",
                got,
            });
        }
    }
    let a_regs = a
        .bases()
        .into_iter()
        .next()
        .map(|x| x.1)
        .unwrap_or_default();
    let b_regs = b
        .bases()
        .into_iter()
        .next()
        .map(|x| x.1)
        .unwrap_or_default();
    let a_outs: Vec<(Dim, u64)> = a.out_dims().collect();
    let mut used = vec![false; a_regs.len()];
    let mut matched = Vec::new();
    for bb in &b_regs {
        // b's basis padded to a's out-dims.
        let mut want = vec![0u64; a_outs.len()];
        for (j, (d, size_b)) in b.out_dims().enumerate() {
            let Some(k) = a_outs.iter().position(|x| x.0 == d) else {
                if left {
                    // Triton compares bases of different lengths: no match.
                    return Ok(None);
                }
                // Triton asserts that the padded basis has a's length.
                return Err(LayoutError::UnknownDim {
                    op: OP,
                    side: crate::Side::Out,
                    dim: d,
                    available: crate::DimList(a_outs.iter().map(|x| x.0).collect()),
                });
            };
            let shift = if left {
                0
            } else if a_outs[k].1 < size_b {
                // Triton shifts by a negative amount (undefined behaviour).
                return Err(LayoutError::TooLarge {
                    op: OP,
                    what: format!("size of out-dim {d} in the right factor"),
                    value: size_b,
                    limit: a_outs[k].1,
                });
            } else {
                (a_outs[k].1 / size_b).trailing_zeros()
            };
            want[k] = bb[j] << shift;
        }
        let Some(i) = (0..a_regs.len()).find(|&i| !used[i] && a_regs[i] == want) else {
            return Ok(None);
        };
        used[i] = true;
        matched.push(i);
    }
    let rest: Vec<usize> = (0..a_regs.len()).filter(|&i| !used[i]).collect();
    let action = if left {
        matched.into_iter().chain(rest).collect()
    } else {
        rest.into_iter().chain(matched).collect()
    };
    ColumnAction::new(action, Dim::REGISTER, a_regs.len() as u32).map(Some)
}

/// The widest vector `v` (a power of two, at most `max_vec`, by default
/// `128 / bitwidth`) such that, after permuting registers, `v` consecutive
/// registers land on `v` consecutive offsets of the conversion layout `cvt`
/// (`register → offset`): `cvt` divides on the left by
/// `identity_1d(v, register, offset)`. When `max_vec` is given only the
/// identity permutation is allowed. `v = 1` succeeds whenever `cvt` has an
/// `offset` out-dim; otherwise, or when the starting width is 0 (a bit width
/// above 128, or `max_vec = Some(0)`), Triton reaches `llvm_unreachable` and
/// this is an error.
pub fn largest_vectorisation(
    cvt: &LinearLayout,
    bitwidth: u32,
    max_vec: Option<u32>,
) -> Result<(u32, ColumnAction)> {
    const OP: &str = "largest_vectorisation";
    if bitwidth == 0 {
        return Err(LayoutError::NotPowerOfTwo {
            op: OP,
            what: "bit width".into(),
            value: 0,
        });
    }
    if max_vec.is_none() && bitwidth > 128 {
        // Triton starts at 128 / bitwidth = 0 and hits `llvm_unreachable`.
        return Err(LayoutError::TooLarge {
            op: OP,
            what: "bit width".into(),
            value: bitwidth as u64,
            limit: 128,
        });
    }
    let start = max_vec.unwrap_or(128 / bitwidth);
    if start == 0 {
        return Err(LayoutError::NotPowerOfTwo {
            op: OP,
            what: "maximum vector size".into(),
            value: 0,
        });
    }
    let mut v = start;
    while v >= 1 {
        let tile = LinearLayout::identity_1d(v as u64, Dim::REGISTER, Dim::OFFSET)?;
        if let Some(perm) = reg_perm_for_divide(cvt, &tile, true)? {
            if max_vec.is_none() || perm.is_identity() {
                let permuted = perm.apply(cvt)?;
                if permuted.divide_left(&tile)?.is_some() {
                    return Ok((v, perm));
                }
            }
        }
        v /= 2;
    }
    // Even v = 1 fails when `cvt` has no `offset` out-dim; Triton then hits
    // `llvm_unreachable`.
    Err(LayoutError::UnknownDim {
        op: OP,
        side: crate::Side::Out,
        dim: Dim::OFFSET,
        available: crate::DimList(cvt.out_dim_names().collect()),
    })
}

/// The action keeping only the nonzero register bases.
pub fn action_remove_broadcasted_regs(layout: &LinearLayout) -> Result<ColumnAction> {
    // Triton asserts that `register` is the first in-dim.
    let first = layout.in_dim_names().next();
    if first != Some(Dim::REGISTER) {
        return Err(LayoutError::WrongFirstInDim {
            op: "action_remove_broadcasted_regs",
            expected: "register",
            got: first.map_or("(none)".to_string(), |d| d.to_string()),
        });
    }
    let bits = layout.in_dim_size_log2(Dim::REGISTER)?;
    let regs = layout
        .bases()
        .into_iter()
        .find(|x| x.0 == Dim::REGISTER)
        .map(|x| x.1)
        .unwrap_or_default();
    let keep = regs
        .iter()
        .enumerate()
        .filter(|(_, b)| b.iter().any(|&c| c != 0))
        .map(|(i, _)| i)
        .collect();
    ColumnAction::new(keep, Dim::REGISTER, bits)
}
