//! Triton's layout utilities against their definitions: each helper that is
//! built in one pass equals the chain of products (or the basis-by-basis
//! rewrite) that Triton writes, on random layouts and shapes.

use crate::strategies::*;
use linear_layout::utils::{
    ensure_layout_not_larger_than, ensure_layout_not_smaller_than, identity_standard_nd,
};
use linear_layout::{Dim, LayoutError, LinearLayout};
use proptest::prelude::*;
use std::mem::discriminant;

/// `identity_standard_nd` as Triton writes it: one product per dim of
/// `order`.
fn identities_multiplied(in_dim: Dim, shape: &[u64], order: &[usize]) -> Option<LinearLayout> {
    if order.len() != shape.len() {
        return None;
    }
    let mut out = LinearLayout::empty();
    for &d in order {
        let one = LinearLayout::identity_1d(*shape.get(d)?, in_dim, Dim::standard(d)).ok()?;
        out = out.product(&one).ok()?;
    }
    Some(out)
}

/// `ensureLayoutNotSmallerThan` as Triton writes it: a product with a
/// register (or offset) identity per out-dim that is too small, which must
/// divide its target.
fn grown_by_products(l: &LinearLayout, shape: &[(Dim, u64)]) -> Result<LinearLayout, LayoutError> {
    let first = l.in_dim_names().next().expect("an in-dim");
    let mut out = l.clone();
    for (d, size) in l.out_dims() {
        let want = shape.iter().find(|x| x.0 == d).expect("every out-dim").1;
        if want > size {
            if want % size != 0 {
                return Err(LayoutError::NotDivisible {
                    op: "",
                    dim: d,
                    size,
                    target: want,
                });
            }
            out = out.product(&LinearLayout::identity_1d(want / size, first, d)?)?;
        }
    }
    Ok(out)
}

/// `ensureLayoutNotLargerThan` (3.8 and later) basis by basis: every
/// component that does not fit becomes 0, and without register broadcasting
/// a register basis that this zeroes is dropped.
fn clipped_basis_by_basis(
    l: &LinearLayout,
    shape: &[(Dim, u64)],
    broadcast_registers: bool,
) -> LinearLayout {
    let sizes: Vec<(Dim, u64)> = l
        .out_dims()
        .map(|(d, size)| (d, size.min(shape.iter().find(|x| x.0 == d).unwrap().1)))
        .collect();
    let bases: Vec<(Dim, Vec<Vec<u64>>)> = l
        .bases()
        .into_iter()
        .map(|(d, vectors)| {
            let kept = vectors
                .into_iter()
                .filter_map(|v| {
                    let clipped: Vec<u64> = v
                        .iter()
                        .zip(&sizes)
                        .map(|(&c, &(_, s))| if c >= s { 0 } else { c })
                        .collect();
                    let zeroed = v.iter().any(|&c| c != 0) && clipped.iter().all(|&c| c == 0);
                    let dropped = !broadcast_registers && d == Dim::REGISTER && zeroed;
                    (!dropped).then_some(clipped)
                })
                .collect();
            (d, kept)
        })
        .collect();
    LinearLayout::from_bases_with_sizes(&bases, &sizes, false).expect("clipped bases are valid")
}

/// A layout with `register` first, and a target size per out-dim: its own
/// size times `2^g` for g in -3..=3 (so smaller, equal and larger), now and
/// then 0 or a size that no power of two reaches.
fn layout_and_shape() -> impl Strategy<Value = (LinearLayout, Vec<(Dim, u64)>)> {
    (
        out_dims(),
        proptest::sample::subsequence(&IN_POOL[1..], 0..=3),
    )
        .prop_flat_map(|(outs, rest)| {
            let ins = std::iter::once("register")
                .chain(rest)
                .map(linear_layout::dim)
                .collect();
            layout_over(outs, ins, 10)
        })
        .prop_flat_map(|l| {
            let n = l.num_out_dims();
            let factor = prop_oneof![
                12 => (-3i32..=3).prop_map(Some),
                1 => Just(None),
            ];
            (Just(l), proptest::collection::vec((factor, 0u64..=5), n))
        })
        .prop_map(|(l, targets)| {
            let shape = l
                .out_dims()
                .zip(targets)
                .map(|((d, size), (factor, odd))| {
                    let want = match factor {
                        Some(g) if g >= 0 => size << g,
                        Some(g) => size >> -g,
                        None => size * 3 + odd,
                    };
                    (d, want)
                })
                .collect();
            (l, shape)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn identity_standard_nd_is_a_product_of_identities(
        shape in proptest::collection::vec(prop_oneof![8 => (0u32..=5).prop_map(|b| 1u64 << b), 1 => 0u64..=6], 0..=4),
        order in proptest::collection::vec(0usize..=4, 0..=5),
        shuffle in any::<bool>(),
    ) {
        // Mostly a permutation of the dims, sometimes anything.
        let order: Vec<usize> = if shuffle {
            let mut p: Vec<usize> = (0..shape.len()).collect();
            for (i, &r) in order.iter().enumerate().take(p.len()) {
                p.swap(i, r % shape.len());
            }
            p
        } else {
            order
        };
        let got = identity_standard_nd(Dim::LANE, &shape, &order);
        match identities_multiplied(Dim::LANE, &shape, &order) {
            Some(want) => prop_assert_eq!(got, Ok(want)),
            None => prop_assert!(got.is_err(), "{shape:?} {order:?}: {got:?}"),
        }
    }

    #[test]
    fn ensure_layout_not_smaller_than_is_a_product_of_identities((l, shape) in layout_and_shape()) {
        let got = ensure_layout_not_smaller_than(&l, &shape);
        match (got, grown_by_products(&l, &shape)) {
            (Ok(got), Ok(want)) => prop_assert_eq!(got, want),
            (Err(got), Err(want)) => prop_assert_eq!(discriminant(&got), discriminant(&want), "{} vs {}", got, want),
            (got, want) => prop_assert!(false, "{l} {shape:?}: {got:?} vs {want:?}"),
        }
    }

    #[test]
    fn ensure_layout_not_larger_than_clips_basis_by_basis((l, shape) in layout_and_shape(), broadcast in any::<bool>()) {
        let got = ensure_layout_not_larger_than(&l, &shape, broadcast);
        if shape.iter().all(|x| x.1.is_power_of_two()) {
            prop_assert_eq!(got, Ok(clipped_basis_by_basis(&l, &shape, broadcast)));
        } else {
            let refused = matches!(got, Err(LayoutError::NotPowerOfTwo { .. }));
            prop_assert!(refused, "{got:?}");
        }
    }
}
