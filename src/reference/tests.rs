//! Every check passes on the real result and fails on a deliberately wrong
//! one: a check that cannot fail proves nothing.

use super::invariants::{Claims, with_claims};
use super::*;
use crate::dim::{Dim, dim};
use crate::error::LayoutError;
use crate::layout::LinearLayout;

type R = Result<(), LayoutError>;

/// A layout from `(in-dim, bases)` and `(out-dim, size)` lists.
fn lay(bases: &[(&str, &[&[u64]])], outs: &[(&str, u64)]) -> LinearLayout {
    let bases: Vec<(Dim, Vec<Vec<u64>>)> = bases
        .iter()
        .map(|(d, v)| (dim(d), v.iter().map(|b| b.to_vec()).collect()))
        .collect();
    let outs: Vec<(Dim, u64)> = outs.iter().map(|&(d, s)| (dim(d), s)).collect();
    LinearLayout::from_bases_with_sizes(&bases, &outs, false).unwrap()
}

/// lane (2 bits) and register (1 bit) onto dim0 x dim1, a bijection.
fn swizzle() -> LinearLayout {
    lay(
        &[("lane", &[&[1, 0], &[2, 1]]), ("register", &[&[0, 1]])],
        &[("dim0", 4), ("dim1", 2)],
    )
}

fn law(r: Result<(), Violation>) -> Law {
    r.expect_err("a wrong result must be a violation").law
}

#[test]
fn invariants_catch_every_wrong_claim() {
    let l = swizzle();
    let good = Claims::of(&l);
    assert_eq!(with_claims(&l, &good), Ok(()));
    let wrong: [fn(&mut Claims); 7] = [
        |c| c.rank -= 1,
        |c| c.surjective = !c.surjective,
        |c| c.injective = !c.injective,
        |c| c.invertible = !c.invertible,
        |c| c.masks[0].1 ^= 1,
        |c| c.consecutive *= 2,
        |c| c.text = c.text.replace("(1, 0)", "(0, 0)"),
    ];
    for (i, corrupt) in wrong.iter().enumerate() {
        let mut c = good.clone();
        corrupt(&mut c);
        assert_eq!(law(with_claims(&l, &c)), Law::Invariant, "corruption {i}");
    }
    assert_eq!(invariants(&l), Ok(()));
}

#[test]
fn compose_and_invert_and_compose() -> R {
    let a = swizzle();
    let id = LinearLayout::identity_1d(4, dim("dim0"), dim("dim0"))?
        .product(&LinearLayout::identity_1d(2, dim("dim1"), dim("dim1"))?)?;
    let r = a.compose(&id)?;
    assert_eq!(compose(&a, &id, &r), Ok(()));
    let wrong = r.transpose_outs(&[dim("dim1"), dim("dim0")])?;
    assert_eq!(law(compose(&a, &id, &lay_zeroed(&r))), Law::Values);
    assert_eq!(law(compose(&a, &id, &wrong)), Law::Dims);

    let c = a.invert_and_compose(&a)?;
    assert_eq!(invert_and_compose(&a, &a, &c), Ok(()));
    assert_eq!(
        law(invert_and_compose(&a, &a, &lay_zeroed(&c))),
        Law::Values
    );
    Ok(())
}

/// `l` with every basis zero (same dims): a stand-in for a wrong result.
fn lay_zeroed(l: &LinearLayout) -> LinearLayout {
    crate::utils::zeros_like(l).unwrap()
}

#[test]
fn product_checks_dims_and_the_bit_order() -> R {
    let a = LinearLayout::identity_1d(4, dim("lane"), dim("dim0"))?;
    let b = LinearLayout::identity_1d(2, dim("lane"), dim("dim0"))?;
    let r = a.product(&b)?;
    assert_eq!(product(&a, &b, &r), Ok(()));
    // Same dims, but b's bit placed low instead of high.
    let swapped = lay(&[("lane", &[&[2], &[4], &[1]])], &[("dim0", 8)]);
    assert_eq!(law(product(&a, &b, &swapped)), Law::Values);
    assert_eq!(law(product(&a, &b, &a)), Law::Dims);
    Ok(())
}

#[test]
fn inverse_one_and_two_sided() -> R {
    let a = swizzle();
    let inv = a.invert()?;
    assert_eq!(inverse(&a, &inv, true), Ok(()));
    assert_eq!(law(inverse(&a, &lay_zeroed(&inv), true)), Law::Inverse);
    // A right inverse that is not a left one: a drops a bit.
    let s = lay(&[("lane", &[&[1], &[0]])], &[("dim0", 2)]);
    let p = s.pseudoinvert()?;
    assert_eq!(inverse(&s, &p, false), Ok(()));
    assert_eq!(law(inverse(&s, &p, true)), Law::Inverse);
    Ok(())
}

#[test]
fn reshapes_transposes_and_restrictions() -> R {
    let a = swizzle();
    let r = a.reshape_ins(&[(dim("block"), 8)])?;
    assert_eq!(reshape_ins(&a, &r), Ok(()));
    let wrong = lay(
        &[("block", &[&[0, 1], &[1, 0], &[2, 1]])],
        &[("dim0", 4), ("dim1", 2)],
    );
    assert_eq!(law(reshape_ins(&a, &wrong)), Law::Values);

    let r = a.reshape_outs(&[(dim("dim0"), 8)])?;
    assert_eq!(reshape_outs(&a, &r), Ok(()));
    assert_eq!(law(reshape_outs(&a, &lay_zeroed(&r))), Law::Values);

    let t = a.transpose_outs(&[dim("dim1"), dim("dim0")])?;
    assert_eq!(same_values(&a, &t), Ok(()));
    assert_eq!(law(same_values(&a, &lay_zeroed(&t))), Law::Values);

    let sub = a.sublayout(&[dim("lane")], &[dim("dim0")])?;
    assert_eq!(restriction(&a, &sub), Ok(()));
    assert_eq!(law(restriction(&a, &lay_zeroed(&sub))), Law::Values);
    Ok(())
}

#[test]
fn concats_and_divisions() -> R {
    let a = LinearLayout::identity_1d(4, dim("lane"), dim("dim0"))?;
    let b = lay(&[("warp", &[&[2]])], &[("dim0", 4)]);
    let r = a.concat_ins(&b)?;
    assert_eq!(concat_ins(&a, &b, &r), Ok(()));
    assert_eq!(law(concat_ins(&a, &b, &lay_zeroed(&r))), Law::Values);

    let c = LinearLayout::identity_1d(4, dim("lane"), dim("dim1"))?;
    let r = a.concat_outs(&c)?;
    assert_eq!(concat_outs(&a, &c, &r), Ok(()));
    assert_eq!(law(concat_outs(&a, &c, &lay_zeroed(&r))), Law::Values);

    let small = LinearLayout::identity_1d(2, dim("lane"), dim("dim0"))?;
    let p = small.product(&small)?;
    let q = p.divide_left(&small)?.unwrap();
    assert_eq!(divide_left(&p, &small, &q), Ok(()));
    assert_eq!(
        law(divide_left(&p, &small, &lay_zeroed(&q))),
        Law::Factorization
    );
    let q = p.divide_right(&small)?.unwrap();
    assert_eq!(divide_right(&p, &small, &q), Ok(()));
    assert_eq!(
        law(divide_right(&p, &small, &lay_zeroed(&q))),
        Law::Factorization
    );
    Ok(())
}

#[test]
fn dim_edits() -> R {
    let a = lay(&[("lane", &[&[1], &[0], &[2]])], &[("dim0", 4)]);
    let lane = dim("lane");
    let r = a.remove_zero_bases_along_dim(lane)?;
    assert_eq!(remove_zero_bases(&a, lane, &r), Ok(()));
    assert_eq!(
        law(remove_zero_bases(&a, lane, &lay_zeroed(&r))),
        Law::Values
    );
    assert_eq!(law(remove_zero_bases(&a, lane, &a)), Law::Dims);

    let r = a.resize_out_dim(dim("dim0"), 2)?;
    assert_eq!(resize_out(&a, dim("dim0"), 2, &r), Ok(()));
    let kept_high = lay(&[("lane", &[&[1], &[0], &[0]])], &[("dim0", 2)]);
    assert_eq!(resize_out(&a, dim("dim0"), 2, &kept_high), Ok(()));
    assert_eq!(
        law(resize_out(&a, dim("dim0"), 2, &lay_zeroed(&r))),
        Law::Values
    );

    let r = a.rename_in_dim(lane, dim("warp"))?;
    assert_eq!(rename_in(&a, lane, dim("warp"), &r), Ok(()));
    assert_eq!(
        law(rename_in(&a, lane, dim("warp"), &lay_zeroed(&r))),
        Law::Values
    );
    Ok(())
}

#[test]
fn queries() -> R {
    let a = swizzle();
    let (reg, d0) = (dim("register"), dim("dim0"));
    assert_eq!(sublayout_is_zero(&a, &[reg], &[d0], true), Ok(()));
    assert_eq!(
        law(sublayout_is_zero(&a, &[reg], &[d0], false)),
        Law::Values
    );
    assert_eq!(law(sublayout_is_zero(&a, &[d0], &[d0], true)), Law::Domain);

    let id = LinearLayout::identity_1d(4, d0, d0)?;
    assert_eq!(square_sublayout_is_identity(&id, &[d0], true), Ok(()));
    assert_eq!(
        law(square_sublayout_is_identity(&id, &[d0], false)),
        Law::Values
    );

    // `id × (register → dim1)` passes dim0 through; `id × (register →
    // dim0)` widens dim0, so it is not trivial over it.
    let beside = id.product(&LinearLayout::identity_1d(2, reg, dim("dim1"))?)?;
    assert_eq!(is_trivial_over(&beside, &[d0], true), Ok(()));
    assert_eq!(law(is_trivial_over(&beside, &[d0], false)), Law::Values);
    let widened = id.product(&LinearLayout::identity_1d(2, reg, d0)?)?;
    assert_eq!(is_trivial_over(&widened, &[d0], false), Ok(()));
    assert_eq!(law(is_trivial_over(&widened, &[d0], true)), Law::Values);
    let step = Step::IsTrivialOver {
        a: beside,
        dims: vec![d0],
    };
    assert_eq!(step.check(&step.run()), Ok(()));
    assert_eq!(
        step.check(&Ok(StepOutput::Bool(false))).map_err(|v| v.law),
        Err(Law::Values)
    );
    Ok(())
}

#[test]
fn steps_check_their_domain() -> R {
    let a = swizzle();
    let invert = Step::Invert { a: a.clone() };
    assert_eq!(invert.check(&invert.run()), Ok(()));
    let refused = Err(LayoutError::NotInvertible {
        op: "invert",
        in_bits: 3,
        out_bits: 3,
        rank: 3,
    });
    let v = invert.check(&refused).unwrap_err();
    assert_eq!((v.op, v.law), ("invert", Law::Domain));

    let not_bijective = lay(&[("lane", &[&[1], &[0]])], &[("dim0", 2)]);
    let step = Step::Invert { a: not_bijective };
    let accepted = Ok(StepOutput::Layout(swizzle()));
    assert_eq!(law(step.check(&accepted)), Law::Domain);

    let small = LinearLayout::identity_1d(2, dim("lane"), dim("dim0"))?;
    let step = Step::ProductThenDivide {
        a: small.clone(),
        b: small.clone(),
    };
    let Ok(StepOutput::Divided { product, right, .. }) = step.run() else {
        panic!("product_then_divide of identities");
    };
    let no_left = Ok(StepOutput::Divided {
        product,
        left: None,
        right,
    });
    let v = step.check(&no_left).unwrap_err();
    assert_eq!((v.op, v.law), ("product_then_divide", Law::Domain));
    Ok(())
}

#[test]
fn big_layouts_skip_the_value_comparison() -> R {
    // 13 input bits: above BRUTE_BITS, so a wrong value is not seen.
    let a = LinearLayout::identity_1d(1 << 13, dim("lane"), dim("dim0"))?;
    let wrong = lay_zeroed(&a);
    assert!(a.total_in_bits() > BRUTE_BITS);
    assert_eq!(same_values(&a, &wrong), Ok(()));
    // The dims are still compared.
    let transposed = a.transpose_ins(&[dim("lane")])?;
    assert_eq!(reshape_outs(&a, &transposed), Ok(()));
    assert_eq!(
        law(reshape_outs(&a, &a.resize_out_dim(dim("dim0"), 2)?)),
        Law::Dims
    );
    Ok(())
}
