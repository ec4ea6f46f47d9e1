//! Golden cases mirroring Triton's own unit tests.
//!
//! Each test is named after the Triton test it mirrors, in snake_case:
//! `unittest/Tools/LinearLayoutTest.cpp` (`LinearLayoutTest.*`,
//! `SupremumTest.*`) and `unittest/Tools/LayoutUtilsTest.cpp`
//! (`LayoutUtilsTest.*`). The expected values are the ones those tests
//! assert, restated in this crate's API; where the newest Triton (3.9)
//! behaves differently from the copy of the test that was read, the 3.9
//! behaviour is asserted and the test says so.
//!
//! Tests prefixed `utils_` cover `LayoutUtils` functions that have no unit
//! test of their own in Triton, and tests prefixed `pin_` pin results read off
//! Triton's source (`lib/Tools/LinearLayout.cpp`, `lib/Tools/LayoutUtils.cpp`,
//! `include/triton/Tools/LinearLayout.h`) for operations the Python binding
//! does not expose, including every place where Triton asserts or aborts and
//! this crate returns an error instead.

use linear_layout::utils::{
    action_remove_broadcasted_regs, ensure_layout_not_larger_than,
    ensure_layout_not_larger_than_legacy, ensure_layout_not_smaller_than, identity_standard_nd,
    largest_vectorisation, reg_perm_for_divide, reshape_layout, transpose_linear_layout,
};
use linear_layout::{ColumnAction, Dim, LayoutError, LinearLayout, dim, supremum};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

type Spec<'a> = &'a [(&'a str, &'a [&'a [u64]])];

fn bases(spec: Spec) -> Vec<(Dim, Vec<Vec<u64>>)> {
    spec.iter()
        .map(|(d, vs)| (dim(d), vs.iter().map(|v| v.to_vec()).collect()))
        .collect()
}

fn names(list: &[&str]) -> Vec<Dim> {
    list.iter().map(|s| dim(s)).collect()
}

fn sizes(list: &[(&str, u64)]) -> Vec<(Dim, u64)> {
    list.iter().map(|&(d, s)| (dim(d), s)).collect()
}

/// Triton's `LinearLayout(bases, outDimNames)`: inferred sizes, surjective.
fn ll(spec: Spec, outs: &[&str]) -> LinearLayout {
    LinearLayout::from_bases(&bases(spec), &names(outs)).unwrap()
}

/// Triton's `LinearLayout(bases, outDims, requireSurjective)`.
fn lls(spec: Spec, outs: &[(&str, u64)], surjective: bool) -> LinearLayout {
    LinearLayout::from_bases_with_sizes(&bases(spec), &sizes(outs), surjective).unwrap()
}

fn id1(size: u64, i: &str, o: &str) -> LinearLayout {
    LinearLayout::identity_1d(size, dim(i), dim(o)).unwrap()
}

fn zeros1(size: u64, i: &str, o: &str) -> LinearLayout {
    LinearLayout::zeros_1d(size, dim(i), dim(o), 1).unwrap()
}

fn mul(a: &LinearLayout, b: &LinearLayout) -> LinearLayout {
    a.product(b).unwrap()
}

fn eval(l: &LinearLayout, input: &[(&str, u64)]) -> Vec<(Dim, u64)> {
    l.apply(&sizes(input)).unwrap().to_vec()
}

fn out_names(l: &LinearLayout) -> Vec<Dim> {
    l.out_dim_names().collect()
}

fn in_names(l: &LinearLayout) -> Vec<Dim> {
    l.in_dim_names().collect()
}

fn action(list: &[usize], d: &str, bits: u32) -> ColumnAction {
    ColumnAction::new(list.to_vec(), dim(d), bits).unwrap()
}

// ---------------------------------------------------------------------------
// Constructors
// ---------------------------------------------------------------------------

#[test]
fn empty() {
    let layout = LinearLayout::empty();
    assert!(layout.bases().is_empty());
    assert_eq!(layout.num_in_dims(), 0);
    assert_eq!(layout.num_out_dims(), 0);
    assert!(layout.is_surjective());
}

#[test]
fn identity_1d() {
    let layout = id1(32, "testIns", "testOuts");
    assert_eq!(
        layout,
        ll(
            &[("testIns", &[&[1], &[2], &[4], &[8], &[16]])],
            &["testOuts"]
        )
    );
    assert_eq!(in_names(&layout), names(&["testIns"]));
    assert_eq!(out_names(&layout), names(&["testOuts"]));
    assert_eq!(layout.in_dim_size_log2(dim("testIns")).unwrap(), 5);
    assert_eq!(layout.out_dim_size_log2(dim("testOuts")).unwrap(), 5);
}

#[test]
fn identity_1d_size1() {
    let layout = id1(1, "testIns", "testOuts");
    assert_eq!(layout, ll(&[("testIns", &[])], &["testOuts"]));
    assert_eq!(in_names(&layout), names(&["testIns"]));
    assert_eq!(out_names(&layout), names(&["testOuts"]));
    assert_eq!(layout.in_dim_size_log2(dim("testIns")).unwrap(), 0);
    assert_eq!(layout.out_dim_size_log2(dim("testOuts")).unwrap(), 0);
}

#[test]
fn zeros_1d() {
    let layout = zeros1(32, "ins", "outs");
    assert_eq!(
        layout,
        ll(&[("ins", &[&[0], &[0], &[0], &[0], &[0]])], &["outs"])
    );
    // V3_9 only: an explicit out size above 1 gives a non-surjective layout.
    let wide = LinearLayout::zeros_1d(4, dim("ins"), dim("outs"), 8).unwrap();
    assert_eq!(wide, lls(&[("ins", &[&[0], &[0]])], &[("outs", 8)], false));
    assert!(!wide.is_surjective());
    // Size 0 is the empty layout, size 1 a base-less in-dim.
    assert_eq!(zeros1(0, "ins", "outs"), LinearLayout::empty());
    assert_eq!(zeros1(1, "ins", "outs"), ll(&[("ins", &[])], &["outs"]));
}

#[test]
fn construct_large_layout() {
    let pows: Vec<Vec<u64>> = (0..25).map(|i| vec![1u64 << i]).collect();
    let layout = LinearLayout::from_bases(&[(dim("in"), pows)], &[dim("out")]).unwrap();
    assert_eq!(layout.out_dim_size(dim("out")).unwrap(), 1 << 25);
    assert!(layout.is_invertible());
}

// ---------------------------------------------------------------------------
// Product
// ---------------------------------------------------------------------------

#[test]
fn multiply_identity() {
    let prod = mul(&id1(16, "in", "out"), &id1(32, "in", "out"));
    assert_eq!(
        prod,
        ll(
            &[(
                "in",
                &[&[1], &[2], &[4], &[8], &[16], &[32], &[64], &[128], &[256]]
            )],
            &["out"]
        )
    );
    assert_eq!(in_names(&prod), names(&["in"]));
    assert_eq!(out_names(&prod), names(&["out"]));
}

#[test]
fn multiply_disjoint() {
    let prod = mul(&id1(32, "in1", "out1"), &id1(16, "in2", "out2"));
    assert_eq!(
        prod,
        ll(
            &[
                ("in1", &[&[1, 0], &[2, 0], &[4, 0], &[8, 0], &[16, 0]]),
                ("in2", &[&[0, 1], &[0, 2], &[0, 4], &[0, 8]]),
            ],
            &["out1", "out2"]
        )
    );
    assert_eq!(in_names(&prod), names(&["in1", "in2"]));
    assert_eq!(out_names(&prod), names(&["out1", "out2"]));
}

#[test]
fn multiply_by_empty() {
    let prod = mul(&LinearLayout::empty(), &id1(32, "in", "out"));
    assert_eq!(prod, id1(32, "in", "out"));
    let prod = mul(&id1(32, "in", "out"), &LinearLayout::empty());
    assert_eq!(prod, id1(32, "in", "out"));
}

#[test]
fn multiply_by_zeros() {
    let prod = mul(&id1(8, "in", "out"), &zeros1(16, "in", "out"));
    assert_eq!(
        prod,
        ll(
            &[("in", &[&[1], &[2], &[4], &[0], &[0], &[0], &[0]])],
            &["out"]
        )
    );
}

#[test]
fn multiply_zeros_by_degenerate() {
    let prod = mul(&zeros1(16, "in", "out1"), &ll(&[("in", &[])], &["out2"]));
    assert_eq!(
        prod,
        ll(
            &[("in", &[&[0, 0], &[0, 0], &[0, 0], &[0, 0]])],
            &["out1", "out2"]
        )
    );
}

#[test]
fn multiply_empty_identity_and_zeros() {
    let prod = mul(&id1(0, "in", "out"), &zeros1(4, "in", "out"));
    assert_eq!(prod, ll(&[("in", &[&[0], &[0]])], &["out"]));
}

#[test]
fn multiply_overlapping() {
    let prod = mul(&id1(4, "in", "out1"), &id1(8, "in", "out2"));
    assert_eq!(
        prod,
        ll(
            &[("in", &[&[1, 0], &[2, 0], &[0, 1], &[0, 2], &[0, 4]])],
            &["out1", "out2"]
        )
    );
}

#[test]
fn times_equals() {
    let mut prod = LinearLayout::empty();
    prod = mul(&prod, &id1(32, "in", "out"));
    assert_eq!(prod, id1(32, "in", "out"));
}

#[test]
fn pin_multiply_examples_from_header() {
    // `id(4)*zeros(2)` is x mod 4; `zeros(2)*id(4)` is x div 2 (the header's
    // examples of operator*).
    let m = mul(&id1(4, "i", "o"), &zeros1(2, "i", "o"));
    let d = mul(&zeros1(2, "i", "o"), &id1(4, "i", "o"));
    for x in 0..8 {
        assert_eq!(eval(&m, &[("i", x)]), vec![(dim("o"), x % 4)]);
        assert_eq!(eval(&d, &[("i", x)]), vec![(dim("o"), x / 2)]);
    }
}

// ---------------------------------------------------------------------------
// Sizes, order, printing, apply
// ---------------------------------------------------------------------------

#[test]
fn get_out_dim_size_log2() {
    let layout = ll(
        &[("in0", &[&[0], &[0], &[0]]), ("in1", &[&[1], &[2]])],
        &["dim0"],
    );
    assert_eq!(layout.out_dim_size_log2(dim("dim0")).unwrap(), 2);
}

#[test]
fn transpose_outs() {
    let layout = mul(&id1(32, "in1", "out1"), &id1(16, "in2", "out2"))
        .transpose_outs(&names(&["out2", "out1"]))
        .unwrap();
    assert_eq!(out_names(&layout), names(&["out2", "out1"]));
    assert_eq!(
        layout,
        ll(
            &[
                ("in1", &[&[0, 1], &[0, 2], &[0, 4], &[0, 8], &[0, 16]]),
                ("in2", &[&[1, 0], &[2, 0], &[4, 0], &[8, 0]]),
            ],
            &["out2", "out1"]
        )
    );
}

#[test]
fn transpose_outs_degenerate() {
    let layout = mul(&id1(32, "in1", "out1"), &id1(1, "in2", "out2"))
        .transpose_outs(&names(&["out2", "out1"]))
        .unwrap();
    assert_eq!(out_names(&layout), names(&["out2", "out1"]));
    assert_eq!(
        layout,
        ll(
            &[
                ("in1", &[&[0, 1], &[0, 2], &[0, 4], &[0, 8], &[0, 16]]),
                ("in2", &[]),
            ],
            &["out2", "out1"]
        )
    );
}

#[test]
fn transpose_ins() {
    let layout = mul(&id1(32, "in1", "out1"), &id1(16, "in2", "out2"))
        .transpose_ins(&names(&["in2", "in1"]))
        .unwrap();
    assert_eq!(in_names(&layout), names(&["in2", "in1"]));
    assert_eq!(
        layout,
        ll(
            &[
                ("in2", &[&[0, 1], &[0, 2], &[0, 4], &[0, 8]]),
                ("in1", &[&[1, 0], &[2, 0], &[4, 0], &[8, 0], &[16, 0]]),
            ],
            &["out1", "out2"]
        )
    );
}

#[test]
fn empty_to_string() {
    assert_eq!(LinearLayout::empty().to_string(), "\n(empty layout)");
}

#[test]
fn apply() {
    let layout = lls(
        &[
            ("in1", &[&[4, 2], &[2, 1], &[1, 0]]),
            ("in2", &[&[1, 2], &[2, 1]]),
        ],
        &[("out1", 8), ("out2", 4)],
        false,
    );
    assert_eq!(
        eval(&layout, &[("in1", 0), ("in2", 0)]),
        sizes(&[("out1", 0), ("out2", 0)])
    );
    assert_eq!(
        eval(&layout, &[("in2", 0), ("in1", 1)]),
        sizes(&[("out1", 4), ("out2", 2)])
    );
    assert_eq!(
        eval(&layout, &[("in2", 1), ("in1", 0)]),
        sizes(&[("out1", 1), ("out2", 2)])
    );
}

/// Four in-dims, as every distributed layout has: the input in the
/// layout's order, in another order, and each kind of bad input (`apply`
/// takes a shortcut for the first).
#[test]
fn apply_on_four_in_dims() {
    let layout = lls(
        &[
            ("register", &[&[1, 0], &[2, 0]]),
            ("lane", &[&[0, 1]]),
            ("warp", &[&[4, 0]]),
            ("block", &[&[0, 2]]),
        ],
        &[("dim0", 8), ("dim1", 4)],
        true,
    );
    let in_order = [("register", 3), ("lane", 1), ("warp", 1), ("block", 1)];
    assert_eq!(eval(&layout, &in_order), sizes(&[("dim0", 7), ("dim1", 3)]));
    let shuffled = [("warp", 1), ("register", 2), ("block", 1), ("lane", 0)];
    assert_eq!(eval(&layout, &shuffled), sizes(&[("dim0", 6), ("dim1", 2)]));
    let error = |input: &[(&str, u64)]| layout.apply(&sizes(input)).unwrap_err();
    assert!(matches!(
        error(&[("register", 3), ("lane", 1), ("warp", 1), ("block", 2)]),
        LayoutError::InputOutOfRange {
            value: 2,
            size: 2,
            ..
        }
    ));
    assert!(matches!(
        error(&[("register", 3), ("lane", 1), ("warp", 1), ("offset", 0)]),
        LayoutError::DimSetMismatch { .. }
    ));
    assert!(matches!(
        error(&[("register", 3), ("lane", 1), ("lane", 1), ("block", 0)]),
        LayoutError::DuplicateDim { .. }
    ));
    assert!(matches!(
        error(&[("register", 3), ("lane", 1), ("warp", 1)]),
        LayoutError::DimSetMismatch { .. }
    ));
}

// ---------------------------------------------------------------------------
// Compose
// ---------------------------------------------------------------------------

#[test]
fn compose() {
    let l1 = ll(
        &[("in1", &[&[1, 1], &[0, 1]]), ("in2", &[&[1, 0], &[1, 2]])],
        &["out1", "out2"],
    );
    let l2 = ll(
        &[("out1", &[&[2, 2], &[1, 0]]), ("out2", &[&[1, 1], &[2, 1]])],
        &["out3", "out4"],
    );
    let composition = l1.compose(&l2).unwrap();
    assert_eq!(
        composition,
        lls(
            &[("in1", &[&[3, 3], &[1, 1]]), ("in2", &[&[2, 2], &[0, 3]])],
            &[("out3", 4), ("out4", 4)],
            false
        )
    );
    assert!(!composition.is_surjective());
}

#[test]
fn compose_4d() {
    let l1 = ll(
        &[
            ("in0", &[&[1, 0, 0, 0], &[2, 0, 0, 0]]),
            (
                "in1",
                &[&[4, 0, 0, 0], &[8, 0, 0, 0], &[16, 0, 0, 0], &[32, 0, 0, 0]],
            ),
            ("in2", &[&[0, 0, 1, 0], &[0, 0, 0, 1], &[0, 0, 0, 2]]),
            ("in3", &[]),
        ],
        &["out3", "out0", "out1", "out2"],
    );
    let l2 = ll(
        &[
            (
                "out3",
                &[
                    &[1, 0, 0, 0],
                    &[2, 0, 0, 0],
                    &[0, 0, 0, 0],
                    &[0, 0, 0, 0],
                    &[0, 0, 0, 0],
                    &[0, 0, 0, 0],
                ],
            ),
            ("out0", &[&[0, 1, 0, 0]]),
            ("out1", &[&[0, 0, 1, 0]]),
            ("out2", &[&[0, 0, 0, 1], &[0, 0, 0, 2]]),
        ],
        &["out3", "out2", "out1", "out0"],
    );
    assert_eq!(
        l1.compose(&l2).unwrap(),
        lls(
            &[
                ("in0", &[&[1, 0, 0, 0], &[2, 0, 0, 0]]),
                (
                    "in1",
                    &[&[0, 0, 0, 0], &[0, 0, 0, 0], &[0, 0, 0, 0], &[0, 0, 0, 0]]
                ),
                ("in2", &[&[0, 0, 1, 0], &[0, 0, 0, 1], &[0, 0, 0, 2]]),
                ("in3", &[]),
            ],
            &[("out3", 4), ("out2", 2), ("out1", 2), ("out0", 4)],
            false
        )
    );
}

// ---------------------------------------------------------------------------
// Reshape and flatten
// ---------------------------------------------------------------------------

#[test]
fn reshape_ins() {
    let l = ll(&[("in1", &[&[1], &[4], &[8]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.reshape_ins(&sizes(&[("in3", 2), ("in4", 8)])).unwrap(),
        ll(&[("in3", &[&[1]]), ("in4", &[&[4], &[8], &[2]])], &["out"])
    );
}

#[test]
fn reshape_ins_degenerate_in() {
    let l = ll(&[("in1", &[&[1], &[4], &[2]]), ("in2", &[])], &["out"]);
    assert_eq!(
        l.reshape_ins(&sizes(&[("in3", 4), ("in4", 2)])).unwrap(),
        ll(&[("in3", &[&[1], &[4]]), ("in4", &[&[2]])], &["out"])
    );
}

#[test]
fn reshape_ins_degenerate_out() {
    let l = ll(&[("in1", &[&[1], &[4]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.reshape_ins(&sizes(&[("in3", 8), ("in4", 1)])).unwrap(),
        ll(&[("in3", &[&[1], &[4], &[2]]), ("in4", &[])], &["out"])
    );
}

#[test]
fn reshape_ins_degenerate_first_out() {
    let l = ll(&[("in1", &[&[1], &[4]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.reshape_ins(&sizes(&[("in3", 1), ("in4", 8)])).unwrap(),
        ll(&[("in3", &[]), ("in4", &[&[1], &[4], &[2]])], &["out"])
    );
}

#[test]
fn flatten_ins() {
    let l = ll(&[("in1", &[&[1], &[4], &[8]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.flatten_ins().unwrap(),
        ll(&[("in1", &[&[1], &[4], &[8], &[2]])], &["out"])
    );
}

#[test]
fn flatten_ins_edge_cases() {
    let a = ll(&[("in1", &[])], &["out"]);
    assert_eq!(a.flatten_ins().unwrap(), a);
    let b = ll(&[("in1", &[])], &[]);
    assert_eq!(b.flatten_ins().unwrap(), b);
    let c = ll(&[], &["out"]);
    assert_eq!(c.flatten_ins().unwrap(), c);
    assert_eq!(c.num_out_dims(), 1);
    let d = ll(&[], &[]);
    assert_eq!(d.flatten_ins().unwrap(), LinearLayout::empty());
}

#[test]
fn reshape_outs() {
    let l = ll(&[("in1", &[&[1], &[4], &[8]]), ("in2", &[&[3]])], &["out"]);
    assert_eq!(l.total_out_dim_size(), 16);
    assert_eq!(
        l.reshape_outs(&sizes(&[("out2", 2), ("out3", 8)])).unwrap(),
        ll(
            &[("in1", &[&[1, 0], &[0, 2], &[0, 4]]), ("in2", &[&[1, 1]])],
            &["out2", "out3"]
        )
    );
}

#[test]
fn reshape_outs_degenerate_in() {
    let l = ll(&[("in1", &[&[1], &[4], &[2]]), ("in2", &[])], &["out"]);
    assert_eq!(
        l.reshape_outs(&sizes(&[("out1", 4), ("out2", 2)])).unwrap(),
        ll(
            &[("in1", &[&[1, 0], &[0, 1], &[2, 0]]), ("in2", &[])],
            &["out1", "out2"]
        )
    );
}

#[test]
fn reshape_outs_degenerate_out() {
    let l = ll(&[("in1", &[&[1], &[4]]), ("in2", &[&[2]])], &["out"]);
    assert_eq!(
        l.reshape_outs(&sizes(&[("out1", 8), ("out2", 1)])).unwrap(),
        ll(
            &[("in1", &[&[1, 0], &[4, 0]]), ("in2", &[&[2, 0]])],
            &["out1", "out2"]
        )
    );
}

#[test]
fn flatten_outs() {
    let l = lls(
        &[("in1", &[&[1, 0], &[4, 1], &[8, 4]]), ("in2", &[&[3, 2]])],
        &[("out1", 16), ("out2", 8)],
        false,
    );
    assert_eq!(
        l.flatten_outs().unwrap(),
        lls(
            &[
                ("in1", &[&[1], &[4 + 16], &[8 + 4 * 16]]),
                ("in2", &[&[3 + 2 * 16]]),
            ],
            &[("out1", 16 * 8)],
            false
        )
    );
}

#[test]
fn flatten_outs_edge_cases() {
    let a = ll(&[("in1", &[])], &["out"]);
    assert_eq!(a.flatten_outs().unwrap(), a);
    let b = ll(&[("in1", &[])], &[]);
    assert_eq!(b.flatten_outs().unwrap(), b);
    let c = ll(&[], &["out"]);
    assert_eq!(c.flatten_outs().unwrap(), c);
    let d = ll(&[], &[]);
    assert_eq!(d.flatten_outs().unwrap(), d);
}

// ---------------------------------------------------------------------------
// invertAndCompose
// ---------------------------------------------------------------------------

#[test]
fn invert_and_compose_simple() {
    let l1 = ll(&[("in1", &[&[2], &[1], &[4]])], &["out"]);
    let l2 = ll(&[("in2", &[&[4], &[1], &[2]])], &["out"]);
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(composition, ll(&[("in1", &[&[4], &[2], &[1]])], &["in2"]));
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_larger_a() {
    // dim0 and dim1 are larger in the shared layout.
    let reg_layout = ll(
        &[
            ("register", &[&[0, 1], &[0, 2], &[0, 4], &[0, 32], &[32, 0]]),
            ("lane", &[&[0, 8], &[0, 16], &[1, 0], &[2, 0], &[4, 0]]),
            ("warp", &[&[8, 0], &[16, 0]]),
            ("block", &[]),
        ],
        &["dim0", "dim1"],
    );
    let shared_layout = ll(
        &[
            (
                "offset",
                &[
                    &[0, 1],
                    &[0, 2],
                    &[0, 4],
                    &[0, 8],
                    &[0, 16],
                    &[0, 32],
                    &[0, 64],
                    &[1, 8],
                    &[2, 16],
                    &[4, 32],
                    &[8, 0],
                    &[16, 0],
                    &[32, 0],
                    &[64, 0],
                    &[128, 0],
                ],
            ),
            ("block", &[]),
        ],
        &["dim0", "dim1"],
    );
    let expected = lls(
        &[
            (
                "register",
                &[&[1, 0], &[2, 0], &[4, 0], &[32, 0], &[4096, 0]],
            ),
            (
                "lane",
                &[&[8, 0], &[16, 0], &[136, 0], &[272, 0], &[544, 0]],
            ),
            ("warp", &[&[1024, 0], &[2048, 0]]),
            ("block", &[]),
        ],
        &[("offset", 32768), ("block", 1)],
        false,
    );
    assert_eq!(
        reg_layout.invert_and_compose(&shared_layout).unwrap(),
        expected
    );
    assert_eq!(
        reg_layout
            .compose(&shared_layout.invert().unwrap())
            .unwrap(),
        expected
    );
}

#[test]
fn invert_and_compose_non_injective() {
    let l1 = ll(&[("in1", &[&[2], &[1], &[4]])], &["out"]);
    let l2 = ll(&[("in2", &[&[0], &[2], &[1], &[4]])], &["out"]);
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        lls(&[("in1", &[&[2], &[4], &[8]])], &[("in2", 16)], false)
    );
    assert!(!composition.is_surjective());
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_broadcasted_in_dim() {
    let l1 = ll(&[("in1", &[&[2], &[1], &[4]]), ("in2", &[&[0]])], &["out"]);
    let l2 = ll(&[("in", &[&[4], &[1], &[2]])], &["out"]);
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        ll(&[("in1", &[&[4], &[2], &[1]]), ("in2", &[&[0]])], &["in"])
    );
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_broadcast_at_beginning_of_second() {
    let l1 = ll(&[("in", &[&[1], &[2], &[4]])], &["out"]);
    let l2 = ll(&[("in", &[&[0], &[4], &[1], &[2]])], &["out"]);
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        lls(&[("in", &[&[4], &[8], &[2]])], &[("in", 16)], false)
    );
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_broadcast_at_end_of_second() {
    let l1 = ll(&[("in1", &[&[1], &[2], &[4]])], &["out"]);
    let l2 = ll(&[("in2", &[&[4], &[1], &[2], &[0]])], &["out"]);
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        lls(&[("in1", &[&[2], &[4], &[1]])], &[("in2", 16)], false)
    );
    assert!(
        composition
            .compose(&l2)
            .unwrap()
            .equal_ignoring_out_dim_sizes(&l1)
    );
}

#[test]
fn invert_and_compose_broadcast_beginning_and_end_of_second() {
    let l1 = ll(&[("in", &[&[1], &[2], &[4]])], &["out"]);
    let l2 = ll(&[("in", &[&[0], &[4], &[1], &[2], &[0]])], &["out"]);
    let composition = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        composition,
        lls(&[("in", &[&[4], &[8], &[2]])], &[("in", 32)], false)
    );
    assert_eq!(composition.compose(&l2).unwrap(), l1);
}

#[test]
fn invert_and_compose_multidim() {
    let l1 = ll(
        &[
            ("in1", &[&[1, 0], &[0, 1], &[2, 0], &[3, 2]]),
            ("in2", &[&[2, 2]]),
        ],
        &["out1", "out2"],
    );
    let l2 = ll(
        &[("in3", &[&[0, 1], &[1, 0], &[0, 0], &[0, 2], &[2, 1]])],
        &["out2", "out1"],
    );
    let c1 = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c1.compose(&l2).unwrap(),
        l1.transpose_outs(&out_names(&l2)).unwrap()
    );
    let c2 = l2.invert_and_compose(&l1).unwrap();
    assert_eq!(
        c2.compose(&l1).unwrap(),
        l2.transpose_outs(&out_names(&l1)).unwrap()
    );
}

#[test]
fn invert_and_compose_broadcasted_dims() {
    let l1 = ll(&[("in1", &[&[1], &[2], &[4]]), ("in2", &[&[0]])], &["out"]);
    let l2 = ll(&[("in3", &[&[1], &[2], &[4]]), ("in4", &[&[0]])], &["out"]);
    let c = l1.invert_and_compose(&l2).unwrap();
    assert_eq!(
        c,
        lls(
            &[("in1", &[&[1, 0], &[2, 0], &[4, 0]]), ("in2", &[&[0, 0]])],
            &[("in3", 8), ("in4", 2)],
            false
        )
    );
    assert_eq!(
        c.compose(&l2).unwrap(),
        l1.transpose_outs(&out_names(&l2)).unwrap()
    );
}

#[test]
fn invert_and_compose_broadcasted_dims2() {
    // V3_9 behaviour: the broadcast in2 maps to (0, 0); v3.2 gave (0, 1).
    let a = ll(&[("in1", &[&[1], &[2]]), ("in2", &[&[0]])], &["out"]);
    let b = ll(&[("in3", &[&[2], &[1]]), ("in4", &[&[0]])], &["out"]);
    let c = a.invert_and_compose(&b).unwrap();
    assert_eq!(
        c,
        lls(
            &[("in1", &[&[2, 0], &[1, 0]]), ("in2", &[&[0, 0]])],
            &[("in3", 4), ("in4", 2)],
            false
        )
    );
    assert_eq!(
        c.compose(&b).unwrap(),
        a.transpose_outs(&out_names(&b)).unwrap()
    );
}

#[test]
fn invert_and_compose_identity_in_dim() {
    let outs = [
        "dim0", "dim1", "dim2", "dim3", "dim4", "dim5", "dim6", "dim7", "dim8",
    ];
    let src = ll(
        &[
            (
                "register",
                &[&[0, 0, 0, 0, 0, 0, 0, 0, 1], &[0, 0, 0, 0, 0, 0, 0, 1, 0]],
            ),
            (
                "lane",
                &[
                    &[0, 0, 0, 0, 0, 0, 1, 0, 0],
                    &[0, 0, 0, 0, 0, 1, 0, 0, 0],
                    &[0, 0, 0, 0, 1, 0, 0, 0, 0],
                    &[0, 0, 0, 1, 0, 0, 0, 0, 0],
                    &[0, 0, 1, 0, 0, 0, 0, 0, 0],
                ],
            ),
            (
                "warp",
                &[&[0, 1, 0, 0, 0, 0, 0, 0, 0], &[1, 0, 0, 0, 0, 0, 0, 0, 0]],
            ),
            ("block", &[]),
        ],
        &outs,
    );
    let dst = ll(
        &[
            (
                "register",
                &[&[0, 0, 0, 0, 0, 0, 0, 0, 1], &[0, 0, 0, 0, 0, 0, 0, 1, 0]],
            ),
            (
                "lane",
                &[
                    &[1, 0, 0, 0, 0, 0, 0, 0, 0],
                    &[0, 1, 0, 0, 0, 0, 0, 0, 0],
                    &[0, 0, 1, 0, 0, 0, 0, 0, 0],
                    &[0, 0, 0, 1, 0, 0, 0, 0, 0],
                    &[0, 0, 0, 0, 1, 0, 0, 0, 0],
                ],
            ),
            (
                "warp",
                &[&[0, 0, 0, 0, 0, 1, 0, 0, 0], &[0, 0, 0, 0, 0, 0, 1, 0, 0]],
            ),
            ("block", &[]),
        ],
        &outs,
    );
    let cvt = dst.invert_and_compose(&src).unwrap();
    let k = sizes(&[("register", 3), ("lane", 0), ("warp", 2), ("block", 0)]);
    let through = cvt.apply(&k).unwrap();
    assert_eq!(
        dst.apply(&k).unwrap(),
        src.apply(through.as_slice()).unwrap()
    );
    // The identically broadcast `register` is kept as the identity.
    assert_eq!(
        eval(
            &cvt,
            &[("register", 3), ("lane", 0), ("warp", 0), ("block", 0)]
        ),
        sizes(&[("register", 3), ("lane", 0), ("warp", 0), ("block", 0)])
    );
}

/// The `block` conversion is the identity, whatever the out sizes of the
/// two layouts' `block` sub-layouts (here dim1 is 32 in one and 128 in the
/// other).
#[test]
fn invert_and_compose1() {
    let reg_layout = ll(
        &[
            (
                "offset",
                &[
                    &[0, 1],
                    &[0, 2],
                    &[0, 4],
                    &[0, 16],
                    &[32, 0],
                    &[64, 0],
                    &[128, 0],
                ],
            ),
            ("lane", &[&[1, 0], &[2, 0], &[4, 0], &[8, 0], &[0, 8]]),
            ("warp", &[&[0, 0], &[16, 0]]),
            ("block", &[&[0, 0]]),
        ],
        &["dim0", "dim1"],
    );
    let shared_layout = ll(
        &[
            (
                "offset",
                &[
                    &[0, 1],
                    &[0, 2],
                    &[0, 4],
                    &[0, 8],
                    &[0, 16],
                    &[0, 32],
                    &[0, 64],
                    &[1, 0],
                    &[2, 0],
                    &[4, 0],
                    &[8, 0],
                    &[16, 0],
                    &[32, 0],
                    &[64, 0],
                    &[128, 0],
                ],
            ),
            ("block", &[&[0, 0]]),
        ],
        &["dim0", "dim1"],
    );
    let cvt = reg_layout.invert_and_compose(&shared_layout).unwrap();
    assert!(cvt.is_trivial_over(&[dim("block")]).unwrap());
    assert_eq!(cvt.basis(dim("block"), 0).unwrap().as_slice(), &[0, 1]);
}

#[test]
fn pin_invert_and_compose_asserts_are_errors() {
    // Triton asserts "Im(B) not contained in Im(A)" (and would write out of
    // bounds without the assert).
    let a = ll(&[("in", &[&[1], &[2]])], &["out"]);
    let b = lls(&[("x", &[&[1], &[0]])], &[("out", 4)], false);
    assert!(matches!(
        a.invert_and_compose(&b),
        Err(LayoutError::ImageNotContained { .. })
    ));
    // A smaller out-dim in the layout being inverted is an assert too.
    let small = ll(&[("x", &[&[1]])], &["out"]);
    assert!(matches!(
        a.invert_and_compose(&small),
        Err(LayoutError::InvertSize { .. })
    ));
    // Out-dims must match as sets (fatal).
    let other = ll(&[("x", &[&[1], &[2]])], &["elsewhere"]);
    assert!(matches!(
        a.invert_and_compose(&other),
        Err(LayoutError::DimSetMismatch { .. })
    ));
}

#[test]
fn pin_invert_requires_invertible() {
    let l = ll(&[("in", &[&[1], &[2], &[0]])], &["out"]);
    assert!(matches!(l.invert(), Err(LayoutError::NotInvertible { .. })));
    let p = l.pseudoinvert().unwrap();
    assert_eq!(p, lls(&[("out", &[&[1], &[2]])], &[("in", 8)], false));
}

// ---------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------

#[test]
fn num_consecutive_in_out() {
    assert_eq!(id1(1, "in", "out").num_consecutive_in_out(), 1);
    assert_eq!(id1(4, "in", "out").num_consecutive_in_out(), 4);
    assert_eq!(
        mul(&id1(4, "in1", "out"), &id1(8, "in2", "out")).num_consecutive_in_out(),
        4
    );
    assert_eq!(
        mul(&id1(4, "in", "out1"), &id1(8, "in", "out2")).num_consecutive_in_out(),
        4
    );
    assert_eq!(
        mul(&zeros1(4, "in", "out1"), &id1(4, "in", "out2")).num_consecutive_in_out(),
        1
    );
    assert_eq!(
        ll(&[("in", &[&[1], &[2], &[4], &[9]])], &["out"]).num_consecutive_in_out(),
        1
    );
    assert_eq!(
        ll(&[("in", &[&[1], &[2], &[4], &[10]])], &["out"]).num_consecutive_in_out(),
        2
    );
    assert_eq!(
        ll(&[("in", &[&[1], &[4], &[2]])], &["out"]).num_consecutive_in_out(),
        2
    );
    assert_eq!(
        ll(
            &[("in", &[&[1], &[2], &[4]]), ("in2", &[&[8], &[18]])],
            &["out"]
        )
        .num_consecutive_in_out(),
        2
    );
    // No in-dims or no out-dims: 1.
    assert_eq!(LinearLayout::empty().num_consecutive_in_out(), 1);
    assert_eq!(ll(&[("in", &[&[], &[]])], &[]).num_consecutive_in_out(), 1);
}

#[test]
fn equals_checks_out_dim_sizes() {
    let wide = lls(&[("in", &[&[1], &[2]])], &[("out", 8)], false);
    assert_ne!(id1(4, "in", "out"), wide);
    assert!(id1(4, "in", "out").equal_ignoring_out_dim_sizes(&wide));
    // Names and order still count.
    let renamed = lls(&[("in", &[&[1], &[2]])], &[("other", 8)], false);
    assert!(!id1(4, "in", "out").equal_ignoring_out_dim_sizes(&renamed));
}

#[test]
fn sublayout() {
    let l1 = ll(
        &[("in1", &[&[1, 0], &[0, 1], &[2, 0]]), ("in2", &[&[0, 1]])],
        &["out1", "out2"],
    );
    assert_eq!(
        l1.sublayout(&names(&["in1", "in2"]), &names(&["out1"]))
            .unwrap(),
        ll(&[("in1", &[&[1], &[0], &[2]]), ("in2", &[&[0]])], &["out1"])
    );
    assert_eq!(
        l1.sublayout(&names(&["in2", "in1"]), &names(&["out1"]))
            .unwrap(),
        ll(&[("in1", &[&[1], &[0], &[2]]), ("in2", &[&[0]])], &["out1"])
    );
    assert_eq!(
        l1.sublayout(&names(&["in2", "in1"]), &names(&["out2", "out1"]))
            .unwrap(),
        l1
    );
    assert_eq!(
        l1.sublayout(&names(&["in1"]), &names(&["out1"])).unwrap(),
        ll(&[("in1", &[&[1], &[0], &[2]])], &["out1"])
    );
    assert_eq!(l1.sublayout(&[], &[]).unwrap(), LinearLayout::empty());
    assert_eq!(
        l1.sublayout(&names(&["in1"]), &[]).unwrap(),
        ll(&[("in1", &[&[], &[], &[]])], &[])
    );
    assert_eq!(
        l1.sublayout(&[], &names(&["out1"])).unwrap(),
        lls(&[], &[("out1", 4)], false)
    );
    // Unknown names are fatal in Triton.
    assert!(matches!(
        l1.sublayout(&names(&["nope"]), &[]),
        Err(LayoutError::UnknownDim { .. })
    ));
}

#[test]
fn sublayout_is_zero() {
    let id = id1(4, "in", "out");
    assert!(
        !id.sublayout_is_zero(&names(&["in"]), &names(&["out"]))
            .unwrap()
    );
    assert!(id.sublayout_is_zero(&[], &names(&["out"])).unwrap());
    assert!(id.sublayout_is_zero(&names(&["in"]), &[]).unwrap());
    assert!(id.sublayout_is_zero(&[], &[]).unwrap());

    let l1 = ll(
        &[("in1", &[&[0, 1], &[0, 2]]), ("in2", &[&[1, 1]])],
        &["out1", "out2"],
    );
    assert!(
        l1.sublayout_is_zero(&names(&["in1"]), &names(&["out1"]))
            .unwrap()
    );
    assert!(
        !l1.sublayout_is_zero(&names(&["in1"]), &names(&["out2"]))
            .unwrap()
    );
    assert!(
        !l1.sublayout_is_zero(&names(&["in2"]), &names(&["out1"]))
            .unwrap()
    );
    assert!(
        !l1.sublayout_is_zero(&names(&["in2"]), &names(&["out2"]))
            .unwrap()
    );
}

#[test]
fn free_variable_masks() {
    assert_eq!(
        id1(4, "in", "out").free_variable_masks(),
        vec![(dim("in"), 0)]
    );
    assert_eq!(
        zeros1(16, "in", "out").free_variable_masks(),
        vec![(dim("in"), 0b1111)]
    );
    let mixed = mul(
        &mul(
            &mul(&id1(2, "in", "out"), &zeros1(4, "in", "out")),
            &id1(4, "in", "out"),
        ),
        &zeros1(2, "in", "out"),
    );
    assert_eq!(mixed.free_variable_masks(), vec![(dim("in"), 0b100110)]);
    let two = ll(
        &[
            ("in1", &[&[1, 1], &[2, 2], &[0, 0]]),
            ("in2", &[&[1, 0], &[0, 1], &[2, 0]]),
        ],
        &["out1", "out2"],
    );
    assert_eq!(
        two.free_variable_masks(),
        vec![(dim("in1"), 0b100), (dim("in2"), 0b10)]
    );
}

// ---------------------------------------------------------------------------
// Quotient
// ---------------------------------------------------------------------------

#[test]
fn quotient_one_dimension() {
    let layout = lls(
        &[("dim1", &[&[1, 0]]), ("dim2", &[&[0, 0]])],
        &[("dim1", 2), ("dim2", 1)],
        false,
    );
    let q = layout.quotient(&names(&["dim1"])).unwrap().unwrap();
    assert_eq!(q, zeros1(2, "dim2", "dim2"));
    // dim2 is zero, not the identity.
    assert!(q.quotient(&names(&["dim2"])).unwrap().is_none());
}

#[test]
fn quotient_several_dimensions() {
    let layout = ll(
        &[
            ("dim1", &[&[1, 0], &[2, 0], &[4, 0]]),
            ("dim2", &[&[0, 1], &[0, 2]]),
        ],
        &["dim1", "dim2"],
    );
    let q = layout.quotient(&names(&["dim1", "dim2"])).unwrap();
    assert_eq!(q, Some(LinearLayout::empty()));
}

#[test]
fn quotient_multiple_trivial_dimensions() {
    let layout = ll(
        &[
            ("dim1", &[&[1, 0, 2], &[2, 0, 1]]),
            ("dim2", &[&[0, 1, 0], &[0, 2, 0], &[0, 4, 0]]),
            ("dim3", &[&[0, 0, 1], &[0, 0, 2]]),
        ],
        &["dim1", "dim2", "dim3"],
    );
    // Trivial over dim2, whatever the other dims do among themselves.
    assert_eq!(
        layout.quotient(&names(&["dim2"])).unwrap(),
        Some(ll(
            &[("dim1", &[&[1, 2], &[2, 1]]), ("dim3", &[&[0, 1], &[0, 2]])],
            &["dim1", "dim3"]
        ))
    );
    let layout = ll(
        &[
            ("dim1", &[&[1, 0, 2], &[2, 0, 1]]),
            ("dim2", &[&[0, 1, 0], &[0, 2, 0], &[0, 4, 0]]),
            ("dim3", &[&[0, 1, 1], &[0, 0, 2]]),
        ],
        &["dim1", "dim2", "dim3"],
    );
    // dim3 maps into dim2: not trivial.
    assert!(layout.quotient(&names(&["dim2"])).unwrap().is_none());
}

#[test]
fn quotient_empty_layout() {
    assert!(
        LinearLayout::empty()
            .quotient(&names(&["dim1"]))
            .unwrap()
            .is_none()
    );
}

#[test]
fn quotient_identity_multiple_dimensions() {
    let layout = mul(
        &mul(&id1(8, "dim1", "dim1"), &id1(2, "dim2", "dim2")),
        &id1(4, "dim3", "dim3"),
    );
    let q = layout.quotient(&names(&["dim1", "dim3"])).unwrap().unwrap();
    assert_eq!(q, id1(2, "dim2", "dim2"));
    assert_eq!(
        q.quotient(&names(&["dim2"])).unwrap(),
        Some(LinearLayout::empty())
    );
}

#[test]
fn pin_is_trivial_over_requires_in_and_out_dim() {
    // V3_9 Triton: fatal unless every dim is both an in-dim and an out-dim.
    let l = ll(&[("a", &[&[1]]), ("b", &[&[0]])], &["a"]);
    assert!(matches!(
        l.is_trivial_over(&names(&["b"])),
        Err(LayoutError::UnknownDim { .. })
    ));
    // quotient returns none for a dim that is not an in-dim, but reaches the
    // fatal check for an in-dim that is not an out-dim.
    assert_eq!(l.quotient(&names(&["c"])).unwrap(), None);
    assert!(l.quotient(&names(&["b"])).is_err());
    assert!(l.is_trivial_over(&names(&["a"])).unwrap());
}

// ---------------------------------------------------------------------------
// Blackwell mixed-precision shared-memory layouts (pseudoinvert)
// ---------------------------------------------------------------------------

/// The padded-offset layout of Triton's test helper
/// `getPackedCoordtoPaddedOffset`.
fn packed_coord_to_padded_offset(m: u64, k_packed: u64) -> LinearLayout {
    let offset = |row: u64, col: u64| {
        let linear = row * k_packed + col;
        (linear / 8) * 16 + linear % 8
    };
    let rows: Vec<Vec<u64>> = (0..m.trailing_zeros())
        .map(|i| vec![offset(1 << i, 0)])
        .collect();
    let cols: Vec<Vec<u64>> = (0..k_packed.trailing_zeros())
        .map(|j| vec![offset(0, 1 << j)])
        .collect();
    LinearLayout::from_bases_with_sizes(
        &[(dim("row"), rows), (dim("col"), cols)],
        &[(dim("offset"), m * k_packed * 2)],
        false,
    )
    .unwrap()
}

#[test]
fn blackwell_mixed_precision_dot_scaled_smem() {
    let num_fp4 = 128u64;
    let m = 16u64;
    let k_packed = num_fp4 / m / 2;
    let k_padded = num_fp4 / m;
    let offsets: Vec<Vec<u64>> = (0..(m * k_padded).trailing_zeros())
        .map(|i| {
            let offset = 1u64 << i;
            let packed = offset / 16 * 8 + offset % 8;
            vec![packed / k_packed, packed % k_packed]
        })
        .collect();
    let layout =
        LinearLayout::from_bases(&[(dim("offset"), offsets)], &names(&["row", "col"])).unwrap();
    let computed = layout.pseudoinvert().unwrap();
    let manual = packed_coord_to_padded_offset(m, k_packed);
    for i in 0..m {
        for j in 0..k_packed {
            let a = eval(&manual, &[("row", i), ("col", j)]);
            let b = eval(&computed, &[("row", i), ("col", j)]);
            assert_eq!(a[0].1, b[0].1, "row {i}, col {j}");
        }
    }
}

#[test]
fn blackwell_mixed_precision_dot_scaled_smem_swizzled() {
    let m = 16u64;
    let k_padded = 128u64;
    let k_packed = k_padded / 2;
    let elem_bits = 8u64;
    let tile_width_bytes = 128u64;
    let tile_rows = 8u64;
    let tile_cols = 8 * tile_width_bytes / elem_bits;
    let vec = 16u64;
    let mut bases2d: Vec<Vec<u64>> = Vec::new();
    for log_col in 0..tile_cols.trailing_zeros() {
        let padded = 1u64 << log_col;
        bases2d.push(vec![0, padded / 16 * 8 + padded % 8]);
    }
    for log_row in 0..tile_rows.trailing_zeros() {
        let row = 1u64 << log_row;
        let (per_phase, max_phase) = (1, 8);
        let padded = vec * ((row / per_phase) % max_phase);
        bases2d.push(vec![row, padded / 16 * 8 + padded % 8]);
    }
    let swizzled =
        LinearLayout::from_bases(&[(dim("offset"), bases2d)], &names(&["row", "col"])).unwrap();
    let swizzled =
        ensure_layout_not_smaller_than(&swizzled, &sizes(&[("row", m), ("col", k_packed)]))
            .unwrap();
    let inverse_swizzled = swizzled.pseudoinvert().unwrap();
    let inverse_plain = packed_coord_to_padded_offset(m, k_packed);
    for i in 0..m {
        for j in 0..k_packed {
            let plain = eval(&inverse_plain, &[("row", i), ("col", j)])[0].1;
            let got = eval(&inverse_swizzled, &[("row", i), ("col", j)])[0].1;
            let row = plain / k_padded;
            let col = plain % k_padded;
            let col_swizzled = ((col / 16) ^ (row % 8)) * 16 + col % 16;
            assert_eq!(row * k_padded + col_swizzled, got, "row {i}, col {j}");
        }
    }
}

// ---------------------------------------------------------------------------
// Supremum (the dim order of a product)
// ---------------------------------------------------------------------------

fn sup(x: &[&str], y: &[&str]) -> Vec<Dim> {
    supremum(&names(x), &names(y)).to_vec()
}

#[test]
fn supremum_identical_lists() {
    assert_eq!(
        sup(&["a", "b", "c"], &["a", "b", "c"]),
        names(&["a", "b", "c"])
    );
}

#[test]
fn supremum_non_unique_supremum_first_list_priority() {
    assert_eq!(sup(&["a", "b"], &["a", "c"]), names(&["a", "b", "c"]));
}

#[test]
fn supremum_non_unique_supremum_alternate() {
    assert_eq!(sup(&["a", "b"], &["b", "c"]), names(&["a", "b", "c"]));
}

#[test]
fn supremum_different_lengths() {
    assert_eq!(
        sup(&["a", "b", "c"], &["a", "d"]),
        names(&["a", "b", "c", "d"])
    );
}

#[test]
fn supremum_empty_lists() {
    assert!(sup(&[], &[]).is_empty());
}

#[test]
fn supremum_one_empty_list() {
    assert_eq!(sup(&["a", "b"], &[]), names(&["a", "b"]));
    assert_eq!(sup(&[], &["a", "b"]), names(&["a", "b"]));
}

/// Triton's death test only runs with LLVM assertions; a release build
/// (3.9.0) returns `[a, b]`. The merge itself is reproduced, and this crate's
/// product refuses the inconsistent order instead of silently picking one.
#[test]
fn supremum_error_on_inconsistent_order() {
    assert_eq!(sup(&["a", "b"], &["b", "a"]), names(&["a", "b"]));
    assert_eq!(sup(&["a", "b"], &["c", "b", "a"]), names(&["c", "b", "a"]));
    assert_eq!(sup(&["a", "b"], &["c", "b"]), names(&["a", "c", "b"]));
    let ab = mul(&id1(2, "a", "o"), &id1(2, "b", "o"));
    let ba = mul(&id1(2, "b", "o"), &id1(2, "a", "o"));
    assert!(matches!(
        ab.product(&ba),
        Err(LayoutError::InconsistentDimOrder { .. })
    ));
}

#[test]
fn pin_supremum_orders_product_dims() {
    // [a, b] ⊔ [c, b] = [a, c, b] in the newest Triton (v3.2 gave [a, b, c]).
    let x = mul(&id1(2, "a", "o"), &id1(2, "b", "o"));
    let y = mul(&id1(2, "c", "o"), &id1(2, "b", "o"));
    assert_eq!(in_names(&mul(&x, &y)), names(&["a", "c", "b"]));
}

// ---------------------------------------------------------------------------
// Division
// ---------------------------------------------------------------------------

#[test]
fn divide_basic() {
    let b = id1(8, "in", "out");
    let c = zeros1(16, "in", "out");
    assert_eq!(mul(&b, &c).divide_left(&b).unwrap(), Some(c.clone()));
    assert_eq!(mul(&b, &c).divide_right(&c).unwrap(), Some(b.clone()));
    assert_eq!(mul(&c, &b).divide_left(&c).unwrap(), Some(b.clone()));
    assert_eq!(mul(&c, &b).divide_right(&b).unwrap(), Some(c.clone()));
}

#[test]
fn divide_non_matching_dims() {
    let a = id1(32, "in", "out");
    let b = ll(
        &[("in", &[&[1], &[2], &[4], &[8]]), ("extra", &[&[0]])],
        &["out"],
    );
    assert_eq!(a.divide_left(&b).unwrap(), None);
    assert_eq!(a.divide_right(&b).unwrap(), None);
}

#[test]
fn divide_simple() {
    let a = id1(8, "in", "out");
    let b = id1(4, "in", "out");
    let c = id1(2, "in", "out");
    assert_eq!(a.divide_left(&b).unwrap(), Some(c.clone()));
    assert_eq!(a.divide_right(&b).unwrap(), Some(c));
    let one = id1(1, "in", "out");
    assert_eq!(a.divide_left(&a).unwrap(), Some(one.clone()));
    assert_eq!(a.divide_right(&a).unwrap(), Some(one));
}

#[test]
fn divide_2d() {
    let l1 = ll(
        &[
            ("in1", &[&[1, 1], &[2, 2], &[0, 8], &[0, 4]]),
            ("in2", &[&[0, 2], &[0, 1]]),
        ],
        &["out1", "out2"],
    );
    let l2 = ll(
        &[("in1", &[&[1, 1], &[2, 2]]), ("in2", &[&[0, 2], &[0, 1]])],
        &["out1", "out2"],
    );
    let l3 = ll(
        &[("in1", &[&[0, 2], &[0, 1]]), ("in2", &[])],
        &["out1", "out2"],
    );
    assert_eq!(mul(&l2, &l3), l1);
    assert_eq!(l1.divide_left(&l2).unwrap(), Some(l3.clone()));
    assert_eq!(l1.divide_right(&l3).unwrap(), Some(l2));
}

#[test]
fn divide_eliminate_in_dim() {
    let l1 = ll(
        &[("in2", &[&[0, 1], &[1, 0]]), ("in1", &[&[2, 0], &[0, 2]])],
        &["out1", "out2"],
    );
    let l2 = ll(&[("in2", &[&[0, 1], &[1, 0]])], &["out1", "out2"]);
    let l3 = ll(
        &[("in2", &[]), ("in1", &[&[1, 0], &[0, 1]])],
        &["out1", "out2"],
    );
    assert_eq!(mul(&l2, &l3), l1);
    assert_eq!(l1.divide_left(&l2).unwrap(), Some(l3));

    let l2 = ll(
        &[("in2", &[&[0, 1], &[1, 0]]), ("in1", &[])],
        &["out1", "out2"],
    );
    let l3 = ll(&[("in1", &[&[1, 0], &[0, 1]])], &["out1", "out2"]);
    assert_eq!(mul(&l2, &l3), l1);
    assert_eq!(l1.divide_right(&l3).unwrap(), Some(l2));

    let l4 = ll(
        &[("in1", &[&[0, 1], &[0, 2]]), ("in2", &[])],
        &["out1", "out2"],
    );
    let l5 = ll(&[("in1", &[&[0, 1], &[0, 2]])], &["out1", "out2"]);
    let l6 = ll(&[("in1", &[]), ("in2", &[])], &["out1", "out2"]);
    assert_eq!(mul(&l5, &l6), l4);
    assert_eq!(l4.divide_left(&l5).unwrap(), Some(l6.clone()));
    assert_eq!(l4.divide_right(&l5).unwrap(), Some(l6));

    let l7 = ll(
        &[("in1", &[]), ("in2", &[&[0, 1]]), ("in3", &[])],
        &["out1", "out2"],
    );
    let l8 = ll(&[("in2", &[&[0, 1]])], &["out1", "out2"]);
    let l9 = ll(
        &[("in1", &[]), ("in2", &[]), ("in3", &[])],
        &["out1", "out2"],
    );
    assert_eq!(mul(&l8, &l9), l7);
    assert_eq!(l7.divide_left(&l8).unwrap(), Some(l9.clone()));
    assert_eq!(l7.divide_right(&l8).unwrap(), Some(l9));
}

#[test]
fn divide_eliminate_out_dim() {
    let l1 = ll(
        &[("in2", &[&[1, 0], &[1, 0]]), ("in1", &[&[2, 0], &[0, 1]])],
        &["out1", "out2"],
    );
    let l2 = ll(&[("in2", &[&[1], &[1]])], &["out1"]);
    let l3 = ll(
        &[("in2", &[]), ("in1", &[&[1, 0], &[0, 1]])],
        &["out1", "out2"],
    );
    assert_eq!(mul(&l2, &l3), l1);
    assert_eq!(l1.divide_left(&l2).unwrap(), Some(l3));

    let l1 = ll(
        &[("in2", &[&[1, 0], &[0, 2]]), ("in1", &[&[0, 1], &[0, 2]])],
        &["out1", "out2"],
    );
    let l2 = ll(&[("in2", &[&[1]]), ("in1", &[&[1]])], &["out2"]);
    let l3 = ll(
        &[("in2", &[&[1, 0]]), ("in1", &[&[0, 1]])],
        &["out1", "out2"],
    );
    assert_eq!(mul(&l3, &l2), l1);
    assert_eq!(l1.divide_right(&l2).unwrap(), Some(l3));

    let l4 = ll(&[("in1", &[&[0, 1], &[0, 2]])], &["out1", "out2"]);
    let l5 = ll(&[], &["out1"]);
    let l6 = ll(&[("in1", &[&[0, 1], &[0, 2]])], &["out1", "out2"]);
    assert_eq!(mul(&l5, &l6), l4);
    assert_eq!(l4.divide_left(&l5).unwrap(), Some(l6.clone()));
    assert_eq!(l4.divide_right(&l5).unwrap(), Some(l6));
}

#[test]
fn pin_divide_left_none_conditions() {
    let a = ll(&[("in", &[&[1], &[2], &[4]])], &["out"]);
    // B larger than A on an in-dim, or on an out-dim.
    assert_eq!(a.divide_left(&id1(16, "in", "out")).unwrap(), None);
    let tall = lls(&[("in", &[&[1]])], &[("out", 16)], false);
    assert_eq!(a.divide_left(&tall).unwrap(), None);
    // An out-dim of B missing from A.
    assert_eq!(a.divide_left(&id1(2, "in", "other")).unwrap(), None);
    // A's first bases differ from B's.
    let b = ll(&[("in", &[&[2], &[1]])], &["out"]);
    assert_eq!(a.divide_left(&b).unwrap(), None);
    // A later basis touches the low bits B occupies.
    let a2 = ll(&[("in", &[&[1], &[3], &[4]])], &["out"]);
    assert_eq!(a2.divide_left(&id1(2, "in", "out")).unwrap(), None);
}

#[test]
fn pin_divide_right_none_wins_over_constructor_failure() {
    // Triton collects C's bases for every in-dim, checking the B part of each
    // (returning none on a mismatch), and only then builds C, whose
    // constructor is what fails on a component that does not fit. Here in-dim
    // x yields an oversized C component and in-dim y a B mismatch: none.
    let a = ll(&[("x", &[&[2]]), ("y", &[&[1]])], &["o"]);
    let b = ll(&[("y", &[&[1]])], &["o"]);
    assert_eq!(a.divide_right(&b).unwrap(), None);
    // With the B part matching, the oversized component is an error.
    let a = lls(&[("x", &[&[2]]), ("y", &[&[2]])], &[("o", 4)], false);
    assert!(matches!(
        a.divide_right(&b),
        Err(LayoutError::ComponentOutOfRange { .. })
    ));
}

#[test]
fn pin_divide_right_checks_other_out_dims_by_the_final_assert() {
    // Out-dims B lacks are only checked by Triton's `assert(C * B == A)`.
    let a = ll(&[("in", &[&[0, 1], &[1, 1]])], &["o1", "o2"]);
    let b = ll(&[("in", &[&[1]])], &["o1"]);
    assert!(matches!(
        a.divide_right(&b),
        Err(LayoutError::DivisionMismatch { .. })
    ));
}

// ---------------------------------------------------------------------------
// ColumnAction
// ---------------------------------------------------------------------------

#[test]
fn column_action_apply_layout() {
    let layout = ll(&[("in", &[&[1], &[2], &[4]])], &["out"]);
    let transformed = action(&[2, 0, 1], "in", 3).apply(&layout).unwrap();
    assert_eq!(transformed, ll(&[("in", &[&[4], &[1], &[2]])], &["out"]));
    // Dropping the third basis and flipping the other two.
    let transformed = action(&[1, 0], "in", 3).apply(&layout).unwrap();
    assert_eq!(
        transformed,
        lls(&[("in", &[&[2], &[1]])], &[("out", 8)], false)
    );
}

#[test]
fn column_action_apply_values() {
    let values: Vec<u32> = (1..=8).collect();
    assert_eq!(
        action(&[2, 0, 1], "register", 3)
            .apply_values(&values)
            .unwrap(),
        vec![1, 5, 2, 6, 3, 7, 4, 8]
    );
    // Dropping the odd indices.
    assert_eq!(
        action(&[2, 1], "register", 3)
            .apply_values(&values)
            .unwrap(),
        vec![1, 5, 3, 7]
    );
}

#[test]
fn pin_column_action_printing_and_identity() {
    assert_eq!(
        action(&[2, 0, 1], "register", 3).to_string(),
        "ColumnAction([2, 0, 1], register, 3)"
    );
    assert!(action(&[0, 1, 2], "register", 3).is_identity());
    assert!(!action(&[0, 1], "register", 3).is_identity());
    assert!(ColumnAction::identity(dim("register"), 2).is_identity());
    // The constructor asserts every index is below the in-dim's log2 size.
    assert!(matches!(
        ColumnAction::new(vec![3], dim("register"), 3),
        Err(LayoutError::IndexOutOfRange { .. })
    ));
    // apply asserts the layout's in-dim size matches.
    let layout = ll(&[("in", &[&[1], &[2]])], &["out"]);
    assert!(action(&[2, 0, 1], "in", 3).apply(&layout).is_err());
    assert!(action(&[0], "missing", 1).apply(&layout).is_err());
}

#[test]
fn pin_column_action_inverse() {
    let a = action(&[2, 0, 1], "register", 3);
    let inv = a.inverse().unwrap();
    assert_eq!(inv.action(), &[1, 2, 0]);
    assert!(a.left_compose(&inv).unwrap().is_identity());
    let layout = ll(&[("register", &[&[1], &[2], &[4]])], &["out"]);
    assert_eq!(inv.apply(&a.apply(&layout).unwrap()).unwrap(), layout);
    // Triton's inverse is sized by the action, so a selection whose indices
    // stay below its length is inverted like a permutation of them.
    let sel = action(&[1, 0], "register", 3).inverse().unwrap();
    assert_eq!(sel.action(), &[1, 0]);
    assert_eq!(sel.in_bits(), 3);
    // An index at or above the action's length writes out of bounds in
    // Triton.
    assert!(matches!(
        action(&[2], "register", 3).inverse(),
        Err(LayoutError::IndexOutOfRange { .. })
    ));
}

#[test]
fn pin_column_action_left_compose() {
    // a.leftCompose(b)[i] = a[b[i]].
    let a = action(&[2, 0, 1], "register", 3);
    let b = action(&[1, 2, 0], "register", 3);
    assert_eq!(a.left_compose(&b).unwrap().action(), &[0, 1, 2]);
    let layout = ll(&[("register", &[&[1], &[2], &[4]])], &["out"]);
    let c = action(&[0, 2, 1], "register", 3);
    assert_eq!(
        a.left_compose(&c).unwrap().apply(&layout).unwrap(),
        c.apply(&a.apply(&layout).unwrap()).unwrap()
    );
    // Two selections of the same length and in-dim size compose.
    let s = action(&[2, 0], "register", 3);
    let t = action(&[1, 0], "register", 3);
    assert_eq!(s.left_compose(&t).unwrap().action(), &[0, 2]);
    assert_eq!(s.left_compose(&t).unwrap().in_bits(), 3);
    // Triton asserts equal in-dims, equal sizes and equal lengths.
    assert!(s.left_compose(&action(&[1, 0], "register", 2)).is_err());
    assert!(a.left_compose(&action(&[1, 0], "register", 3)).is_err());
    assert!(a.left_compose(&action(&[1, 2, 0], "lane", 3)).is_err());
    // Reading past a selection is out of bounds in Triton.
    assert!(matches!(
        s.left_compose(&action(&[2, 1], "register", 3)),
        Err(LayoutError::IndexOutOfRange { .. })
    ));
}

#[test]
fn pin_column_action_apply_values_requires_register() {
    let values = [10, 20, 30, 40];
    assert!(action(&[1, 0], "lane", 2).apply_values(&values).is_err());
    assert!(
        action(&[1, 0], "register", 2)
            .apply_values(&values[..3])
            .is_err()
    );
    assert_eq!(
        action(&[1, 0], "register", 2)
            .apply_values(&values)
            .unwrap(),
        vec![10, 30, 20, 40]
    );
}

// ---------------------------------------------------------------------------
// Other operations the binding does not expose
// ---------------------------------------------------------------------------

#[test]
fn pin_concat_ins_and_outs() {
    let a = ll(&[("x", &[&[1]])], &["o"]);
    let b = lls(&[("x", &[&[0]]), ("y", &[&[1]])], &[("o", 2)], false);
    // A name already present keeps this layout's bases.
    assert_eq!(
        a.concat_ins(&b).unwrap(),
        ll(&[("x", &[&[1]]), ("y", &[&[1]])], &["o"])
    );
    // Out-dims must be identical, sizes included.
    let c = lls(&[("y", &[&[1]])], &[("o", 4)], false);
    assert!(matches!(
        a.concat_ins(&c),
        Err(LayoutError::DimsNotIdentical { .. })
    ));
    let p = ll(&[("x", &[&[1]])], &["o1"]);
    let q = ll(&[("x", &[&[1]])], &["o2"]);
    assert_eq!(
        p.concat_outs(&q).unwrap(),
        lls(&[("x", &[&[1, 1]])], &[("o1", 2), ("o2", 2)], false)
    );
    // In-dims must be identical; a repeated out-dim breaks the constructor.
    assert!(matches!(
        p.concat_outs(&ll(&[("z", &[&[1]])], &["o2"])),
        Err(LayoutError::DimsNotIdentical { .. })
    ));
    assert!(p.concat_outs(&p).is_err());
}

#[test]
fn pin_remove_zero_bases_along_dim() {
    let l = lls(
        &[("register", &[&[0], &[1], &[0], &[2]]), ("lane", &[&[0]])],
        &[("out", 4)],
        false,
    );
    assert_eq!(
        l.remove_zero_bases_along_dim(dim("register")).unwrap(),
        lls(
            &[("register", &[&[1], &[2]]), ("lane", &[&[0]])],
            &[("out", 4)],
            true
        )
    );
    assert_eq!(l.remove_zero_bases_along_dim(dim("warp")).unwrap(), l);
}

#[test]
fn pin_resize_in_and_out_dim() {
    let l = ll(&[("in", &[&[1], &[2], &[4]])], &["out"]);
    assert_eq!(
        l.resize_in_dim(dim("in"), 2).unwrap(),
        lls(&[("in", &[&[1]])], &[("out", 8)], false)
    );
    assert!(l.resize_in_dim(dim("in"), 16).is_err());
    assert!(l.resize_in_dim(dim("in"), 3).is_err());
    // Components at or above the new size are zeroed whole, not truncated.
    let m = lls(&[("in", &[&[1], &[2], &[5], &[3]])], &[("out", 8)], false);
    assert_eq!(
        m.resize_out_dim(dim("out"), 4).unwrap(),
        lls(&[("in", &[&[1], &[2], &[0], &[3]])], &[("out", 4)], false)
    );
    assert!(m.resize_out_dim(dim("out"), 16).is_err());
    assert!(m.resize_out_dim(dim("out"), 6).is_err());
}

#[test]
fn pin_squeeze_ins_and_outs() {
    let l = ll(&[("a", &[]), ("b", &[&[1, 0]])], &["o1", "o2"]);
    assert_eq!(
        l.squeeze_ins(dim("a")).unwrap(),
        ll(&[("b", &[&[1, 0]])], &["o1", "o2"])
    );
    // squeezeOuts drops the component too (the pre-#9630 bug kept it).
    assert_eq!(
        l.squeeze_outs(dim("o2")).unwrap(),
        ll(&[("a", &[]), ("b", &[&[1]])], &["o1"])
    );
    assert!(matches!(
        l.squeeze_ins(dim("b")),
        Err(LayoutError::NotSizeOne { .. })
    ));
    assert!(matches!(
        l.squeeze_outs(dim("o1")),
        Err(LayoutError::NotSizeOne { .. })
    ));
}

#[test]
fn pin_rename_in_dim() {
    let l = ll(&[("a", &[&[1, 0]]), ("b", &[&[0, 1]])], &["x", "y"]);
    // The renamed dim moves to the end (erase, then insert).
    let r = l.rename_in_dim(dim("a"), dim("c")).unwrap();
    assert_eq!(r, ll(&[("b", &[&[0, 1]]), ("c", &[&[1, 0]])], &["x", "y"]));
    assert_eq!(
        l.rename_in_dim(dim("a"), dim("a")).unwrap(),
        ll(&[("b", &[&[0, 1]]), ("a", &[&[1, 0]])], &["x", "y"])
    );
    // Renaming onto another existing in-dim: the map insert does not
    // overwrite, so `a` and its bases are dropped and `b` keeps its own.
    let k = ll(&[("a", &[&[0]]), ("b", &[&[1]])], &["o"]);
    assert_eq!(
        k.rename_in_dim(dim("a"), dim("b")).unwrap(),
        ll(&[("b", &[&[1]])], &["o"])
    );
    // ... and the result must stay surjective if the layout was.
    assert!(matches!(
        l.rename_in_dim(dim("a"), dim("b")),
        Err(LayoutError::NotSurjective { .. })
    ));
    assert!(l.rename_in_dim(dim("z"), dim("c")).is_err());
}

#[test]
fn pin_square_sublayout_unknown_dim_is_an_error() {
    // Triton takes the sub-layout before comparing sizes, so an unknown dim
    // is fatal even when an earlier dim already has mismatched sizes.
    let l = lls(&[("a", &[&[1]])], &[("a", 4)], false);
    assert!(!l.square_sublayout_is_identity(&names(&["a"])).unwrap());
    assert!(matches!(
        l.square_sublayout_is_identity(&names(&["a", "nope"])),
        Err(LayoutError::UnknownDim { .. })
    ));
}

#[test]
fn pin_structural_asserts_are_errors() {
    let l = mul(&id1(4, "i1", "o1"), &id1(2, "i2", "o2"));
    assert!(matches!(
        l.transpose_outs(&names(&["o1"])),
        Err(LayoutError::DimSetMismatch { .. })
    ));
    assert!(matches!(
        l.transpose_ins(&names(&["i2", "x"])),
        Err(LayoutError::DimSetMismatch { .. })
    ));
    assert!(matches!(
        l.reshape_outs(&sizes(&[("o", 4)])),
        Err(LayoutError::TotalSizeMismatch { .. })
    ));
    assert!(matches!(
        l.reshape_ins(&sizes(&[("i", 3)])),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    let outer = ll(&[("o1", &[&[1]]), ("o2", &[&[2]])], &["z"]);
    assert!(matches!(
        l.compose(&outer),
        Err(LayoutError::ComposeSize { .. })
    ));
    assert!(matches!(
        l.compose(&id1(4, "o1", "z")),
        Err(LayoutError::DimSetMismatch { .. })
    ));
    assert!(matches!(
        l.apply(&sizes(&[("i1", 1)])),
        Err(LayoutError::DimSetMismatch { .. })
    ));
}

// ---------------------------------------------------------------------------
// LayoutUtils
// ---------------------------------------------------------------------------

#[test]
fn square_sublayout_is_identity() {
    assert!(
        id1(4, "in", "in")
            .square_sublayout_is_identity(&names(&["in"]))
            .unwrap()
    );
    assert!(
        id1(4, "in", "in")
            .square_sublayout_is_identity(&[])
            .unwrap()
    );

    let l1 = lls(
        &[
            ("in1", &[&[1, 1], &[2, 2], &[4, 4]]),
            ("in2", &[&[2, 1], &[1, 2]]),
        ],
        &[("in1", 8), ("in2", 8)],
        false,
    );
    assert!(l1.square_sublayout_is_identity(&names(&["in1"])).unwrap());
    assert!(!l1.square_sublayout_is_identity(&names(&["in2"])).unwrap());

    let l2 = mul(
        &mul(&id1(4, "in1", "in1"), &id1(8, "in2", "in2")),
        &lls(
            &[("in3", &[&[1, 1, 1]])],
            &[("in1", 2), ("in2", 2), ("in3", 2)],
            false,
        ),
    );
    assert!(!l2.square_sublayout_is_identity(&names(&["in1"])).unwrap());
    assert!(!l2.square_sublayout_is_identity(&names(&["in2"])).unwrap());
    assert!(l2.square_sublayout_is_identity(&names(&["in3"])).unwrap());
    assert!(
        !l2.square_sublayout_is_identity(&names(&["in1", "in2"]))
            .unwrap()
    );

    let l3 = mul(&id1(4, "in1", "in1"), &id1(8, "in2", "in2"));
    assert!(l3.square_sublayout_is_identity(&names(&["in1"])).unwrap());
    assert!(l3.square_sublayout_is_identity(&names(&["in2"])).unwrap());
    assert!(
        l3.square_sublayout_is_identity(&names(&["in1", "in2"]))
            .unwrap()
    );
}

/// The worked example in the comment on `ensureLayoutNotLargerThan` in
/// `LayoutUtils.h`: out-dim of size 32 shrunk to 8.
fn larger_than_example() -> LinearLayout {
    ll(
        &[("register", &[&[8], &[4], &[1]]), ("lane", &[&[2], &[16]])],
        &["dim0"],
    )
}

#[test]
fn utils_ensure_layout_not_larger_than() {
    let l = larger_than_example();
    let shape = sizes(&[("dim0", 8)]);
    let expected = ll(
        &[("register", &[&[0], &[4], &[1]]), ("lane", &[&[2], &[0]])],
        &["dim0"],
    );
    assert_eq!(
        ensure_layout_not_larger_than(&l, &shape, true).unwrap(),
        expected
    );
    assert_eq!(
        ensure_layout_not_larger_than_legacy(&l, &shape).unwrap(),
        expected
    );
    // broadcastRegisters = false removes the register bases that broadcast.
    assert_eq!(
        ensure_layout_not_larger_than(&l, &shape, false).unwrap(),
        ll(
            &[("register", &[&[4], &[1]]), ("lane", &[&[2], &[0]])],
            &["dim0"]
        )
    );
    // A target larger than the layout changes nothing.
    assert_eq!(
        ensure_layout_not_larger_than(&l, &sizes(&[("dim0", 64)]), true).unwrap(),
        l
    );
}

#[test]
fn utils_ensure_layout_not_larger_than_duplicated_components() {
    // V3_9 (3.8+): zero every component at or above the new size, explicit
    // sizes. v3.2–3.7 zeroed largest-first and stopped early, leaving 4.
    let l = ll(&[("register", &[&[8], &[8], &[1], &[2], &[4]])], &["dim0"]);
    let shape = sizes(&[("dim0", 4)]);
    assert_eq!(
        ensure_layout_not_larger_than(&l, &shape, true).unwrap(),
        lls(
            &[("register", &[&[0], &[0], &[1], &[2], &[0]])],
            &[("dim0", 4)],
            true
        )
    );
    assert_eq!(
        ensure_layout_not_larger_than_legacy(&l, &shape).unwrap(),
        ll(&[("register", &[&[0], &[0], &[1], &[2], &[4]])], &["dim0"])
    );
    // Register bases that were zero to begin with stay, even without
    // broadcasting.
    let z = lls(&[("register", &[&[0], &[8], &[1]])], &[("dim0", 16)], false);
    assert_eq!(
        ensure_layout_not_larger_than(&z, &sizes(&[("dim0", 2)]), false).unwrap(),
        lls(&[("register", &[&[0], &[1]])], &[("dim0", 2)], true)
    );
}

#[test]
fn pin_ensure_layout_not_larger_than_asserts() {
    let l = larger_than_example();
    assert!(matches!(
        ensure_layout_not_larger_than(&l, &sizes(&[("dim0", 6)]), true),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    assert!(matches!(
        ensure_layout_not_larger_than(&l, &sizes(&[("dim0", 0)]), true),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    assert!(matches!(
        ensure_layout_not_larger_than(&l, &sizes(&[("dim0", 8), ("dim1", 8)]), true),
        Err(LayoutError::WrongLength { .. })
    ));
    // The legacy variant divides by the target: an error, not a panic.
    assert!(ensure_layout_not_larger_than_legacy(&l, &sizes(&[("dim0", 0)])).is_err());
    assert!(ensure_layout_not_larger_than_legacy(&l, &sizes(&[("dim0", 3)])).is_err());
    // An empty shape on a layout without out-dims returns it unchanged.
    let none = ll(&[("lane", &[&[], &[]])], &[]);
    assert_eq!(
        ensure_layout_not_larger_than(&none, &[], true).unwrap(),
        none
    );
}

#[test]
fn utils_ensure_layout_not_smaller_than() {
    let l = ll(
        &[("register", &[&[1, 0]]), ("lane", &[&[0, 1]])],
        &["dim0", "dim1"],
    );
    let grown = ensure_layout_not_smaller_than(&l, &sizes(&[("dim1", 8), ("dim0", 4)])).unwrap();
    // New repetitions are the most significant register bits, out-dim by
    // out-dim in the layout's out order.
    assert_eq!(
        grown,
        ll(
            &[
                ("register", &[&[1, 0], &[2, 0], &[0, 2], &[0, 4]]),
                ("lane", &[&[0, 1]]),
            ],
            &["dim0", "dim1"]
        )
    );
    // Smaller targets change nothing.
    assert_eq!(
        ensure_layout_not_smaller_than(&l, &sizes(&[("dim0", 1), ("dim1", 2)])).unwrap(),
        l
    );
    // `offset` is accepted as the first in-dim.
    let s = ll(&[("offset", &[&[1]])], &["dim0"]);
    assert_eq!(
        ensure_layout_not_smaller_than(&s, &sizes(&[("dim0", 4)])).unwrap(),
        ll(&[("offset", &[&[1], &[2]])], &["dim0"])
    );
}

#[test]
fn pin_ensure_layout_not_smaller_than_asserts() {
    let l = ll(&[("register", &[&[1]]), ("lane", &[&[2]])], &["dim0"]);
    assert!(matches!(
        ensure_layout_not_smaller_than(&l, &sizes(&[("dim0", 6)])),
        Err(LayoutError::NotDivisible { .. })
    ));
    // 12 / 4 = 3 passes the divisibility assert, then trips identity1D's.
    assert!(matches!(
        ensure_layout_not_smaller_than(&l, &sizes(&[("dim0", 12)])),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    assert!(matches!(
        ensure_layout_not_smaller_than(&l, &sizes(&[("dim0", 8), ("dim1", 2)])),
        Err(LayoutError::WrongLength { .. })
    ));
    let lane_first = ll(&[("lane", &[&[1]])], &["dim0"]);
    assert!(matches!(
        ensure_layout_not_smaller_than(&lane_first, &sizes(&[("dim0", 4)])),
        Err(LayoutError::WrongFirstInDim { .. })
    ));
    // No in-dims at all: Triton dereferences an empty range.
    let no_ins = ll(&[], &["dim0"]);
    assert!(matches!(
        ensure_layout_not_smaller_than(&no_ins, &sizes(&[("dim0", 4)])),
        Err(LayoutError::WrongFirstInDim { .. })
    ));
    // An empty shape returns before the first in-dim is looked at.
    let no_outs = ll(&[("lane", &[&[], &[]])], &[]);
    assert_eq!(
        ensure_layout_not_smaller_than(&no_outs, &[]).unwrap(),
        no_outs
    );
}

#[test]
fn utils_identity_standard_nd() {
    let l = identity_standard_nd(dim("register"), &[4, 8], &[1, 0]).unwrap();
    assert_eq!(
        l,
        ll(
            &[("register", &[&[1, 0], &[2, 0], &[4, 0], &[0, 1], &[0, 2]])],
            &["dim1", "dim0"]
        )
    );
    assert!(identity_standard_nd(dim("register"), &[4, 8], &[0]).is_err());
    assert!(identity_standard_nd(dim("register"), &[4, 8], &[0, 2]).is_err());
}

#[test]
fn utils_reshape_layout() {
    // Row-major: dim1 is the fastest-varying dim of a [4, 8] tensor.
    let l = identity_standard_nd(dim("register"), &[4, 8], &[0, 1]).unwrap();
    let flat = reshape_layout(&l, &[32]).unwrap();
    assert_eq!(
        flat,
        ll(&[("register", &[&[8], &[16], &[1], &[2], &[4]])], &["dim0"])
    );
    assert_eq!(
        reshape_layout(&flat, &[2, 16]).unwrap(),
        ll(
            &[("register", &[&[0, 8], &[1, 0], &[0, 1], &[0, 2], &[0, 4]])],
            &["dim0", "dim1"]
        )
    );
    assert!(reshape_layout(&flat, &[4, 4]).is_err());
}

#[test]
fn utils_transpose_linear_layout() {
    let l = ll(&[("in", &[&[1, 0], &[0, 1], &[0, 2]])], &["dim0", "dim1"]);
    assert_eq!(
        transpose_linear_layout(&l, &[1, 0]).unwrap(),
        ll(&[("in", &[&[0, 1], &[1, 0], &[2, 0]])], &["dim0", "dim1"])
    );
    // Triton does not require a permutation; the inferred-size constructor
    // decides. Repeating a dim of size 1 is fine, repeating dim0 is not
    // surjective.
    let m = ll(&[("in", &[&[1, 0]])], &["dim0", "dim1"]);
    assert_eq!(
        transpose_linear_layout(&m, &[1, 1]).unwrap(),
        ll(&[("in", &[&[0, 0]])], &["dim0", "dim1"])
    );
    assert!(matches!(
        transpose_linear_layout(&m, &[0, 0]),
        Err(LayoutError::NotSurjective { .. })
    ));
    assert!(transpose_linear_layout(&m, &[0]).is_err());
    assert!(transpose_linear_layout(&m, &[0, 2]).is_err());
}

fn cvt_example() -> LinearLayout {
    ll(
        &[("register", &[&[2], &[1], &[4]]), ("lane", &[&[8]])],
        &["offset"],
    )
}

#[test]
fn utils_reg_perm_for_divide() {
    let cvt = cvt_example();
    for v in [2, 4, 8] {
        let tile = id1(v, "register", "offset");
        let perm = reg_perm_for_divide(&cvt, &tile, true).unwrap().unwrap();
        assert_eq!(perm.action(), &[1, 0, 2], "v = {v}");
    }
    assert_eq!(
        reg_perm_for_divide(&cvt, &id1(1, "register", "offset"), true)
            .unwrap()
            .unwrap()
            .action(),
        &[0, 1, 2]
    );
    // Right factor: B's bases are shifted above the quotient's out size.
    let a = ll(&[("register", &[&[8], &[1], &[2], &[4]])], &["offset"]);
    let perm = reg_perm_for_divide(&a, &id1(2, "register", "offset"), false)
        .unwrap()
        .unwrap();
    assert_eq!(perm.action(), &[1, 2, 3, 0]);
    // Not found: none.
    assert!(
        reg_perm_for_divide(&cvt, &id1(2, "register", "offset"), false)
            .unwrap()
            .is_none()
    );
}

#[test]
fn pin_reg_perm_for_divide_asserts() {
    let a = ll(&[("register", &[&[1]])], &["offset"]);
    // Left: an out-dim of B missing from A only means no match.
    assert!(
        reg_perm_for_divide(&a, &id1(2, "register", "dim0"), true)
            .unwrap()
            .is_none()
    );
    // Right: Triton asserts the padded basis has A's length ...
    assert!(matches!(
        reg_perm_for_divide(&a, &id1(2, "register", "dim0"), false),
        Err(LayoutError::UnknownDim { .. })
    ));
    // ... and shifts by a negative amount when B is larger (no panic here).
    assert!(reg_perm_for_divide(&a, &id1(4, "register", "offset"), false).is_err());
    assert!(
        reg_perm_for_divide(&a, &id1(4, "register", "offset"), true)
            .unwrap()
            .is_none()
    );
    // Both layouts must start with `register`.
    let lane = ll(&[("lane", &[&[1]])], &["offset"]);
    assert!(matches!(
        reg_perm_for_divide(&lane, &id1(2, "register", "offset"), true),
        Err(LayoutError::WrongFirstInDim { .. })
    ));
}

#[test]
fn utils_largest_vectorisation() {
    let cvt = cvt_example();
    let (v, perm) = largest_vectorisation(&cvt, 16, None).unwrap();
    assert_eq!(v, 8);
    assert_eq!(perm.action(), &[1, 0, 2]);
    // 128 / 32 = 4 is the starting width for 32-bit elements.
    let (v, perm) = largest_vectorisation(&cvt, 32, None).unwrap();
    assert_eq!(v, 4);
    assert_eq!(perm.action(), &[1, 0, 2]);
    // With an explicit maximum only the identity permutation is allowed.
    let (v, perm) = largest_vectorisation(&cvt, 16, Some(8)).unwrap();
    assert_eq!(v, 1);
    assert!(perm.is_identity());
    let plain = ll(
        &[("register", &[&[1], &[2], &[8]]), ("lane", &[&[4]])],
        &["offset"],
    );
    let (v, perm) = largest_vectorisation(&plain, 16, Some(8)).unwrap();
    assert_eq!(v, 4);
    assert!(perm.is_identity());
}

#[test]
fn pin_largest_vectorisation_unreachable_is_an_error() {
    let cvt = cvt_example();
    // 128 / 256 = 0: Triton's loop never runs and hits llvm_unreachable.
    assert!(largest_vectorisation(&cvt, 256, None).is_err());
    assert!(largest_vectorisation(&cvt, 16, Some(0)).is_err());
    // Without an `offset` out-dim even v = 1 does not divide.
    let no_offset = ll(&[("register", &[&[1], &[2]])], &["dim0"]);
    assert!(matches!(
        largest_vectorisation(&no_offset, 16, None),
        Err(LayoutError::UnknownDim { .. })
    ));
    // A non-power-of-two width trips identity1D's assert.
    assert!(largest_vectorisation(&cvt, 16, Some(6)).is_err());
}

#[test]
fn utils_action_remove_broadcasted_regs() {
    let l = lls(
        &[("register", &[&[1], &[0], &[2], &[0]]), ("lane", &[&[0]])],
        &[("out", 4)],
        true,
    );
    let a = action_remove_broadcasted_regs(&l).unwrap();
    assert_eq!(a.to_string(), "ColumnAction([0, 2], register, 4)");
    assert_eq!(
        a.apply(&l).unwrap(),
        l.remove_zero_bases_along_dim(dim("register")).unwrap()
    );
    // Triton asserts that `register` is the first in-dim.
    let lane_first = l.transpose_ins(&names(&["lane", "register"])).unwrap();
    assert!(matches!(
        action_remove_broadcasted_regs(&lane_first),
        Err(LayoutError::WrongFirstInDim { .. })
    ));
}
