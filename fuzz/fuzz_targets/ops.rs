//! A starting layout and up to 8 operations on it. Every `Err` is fine, a
//! panic is a bug. After each successful operation the result's invariants
//! are checked (components in range, rank and surjectivity computed
//! independently, `apply` = XOR of the bases, text round trip), and for
//! layouts of at most 12 input bits the result is compared, input by input,
//! with a reference built only on `apply` of the operands.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use linear_layout::{Dim, LinearLayout, dim};
use std::collections::BTreeMap;

/// Dim names: Triton's in-dims and out-dims, so in-dims and out-dims of one
/// layout sometimes share a name (which changes `pseudoinvert`'s path and
/// what `quotient` can do).
const NAMES: [&str; 8] = [
    "register", "lane", "warp", "block", "dim0", "dim1", "dim2", "offset",
];
const MAX_DIMS: usize = 4;
const MAX_IN_LOG2: u8 = 5;
const MAX_OUT_LOG2: u8 = 6;
const MAX_OPS: usize = 8;
/// Layouts with at most this many input (or, to check inverses, output)
/// bits are checked input by input.
const BRUTE_BITS: u32 = 12;

fn name(i: u8) -> Dim {
    dim(NAMES[i as usize % NAMES.len()])
}

// --------------------------------------------------------------------------
// The input
// --------------------------------------------------------------------------

/// Where a layout's in-dims or out-dims come from.
#[derive(Arbitrary, Debug, Clone)]
enum DimSource {
    /// `(name, log2 size)` pairs from the pools.
    Random(Vec<(u8, u8)>),
    /// The current layout's in-dims, reordered and one of them resized.
    CurrentIns { tweak: u8, perm: u8 },
    /// The current layout's out-dims, reordered and one of them resized.
    CurrentOuts { tweak: u8, perm: u8 },
}

/// A layout: dims, and bases drawn from `comps` (masked into range).
#[derive(Arbitrary, Debug, Clone)]
struct Spec {
    ins: DimSource,
    outs: DimSource,
    comps: Vec<u16>,
    require_surjective: bool,
}

/// A dim of the current layout (`pick < 0xf0`, by position) or from the
/// pool (possibly unknown to the layout).
type Pick = u8;

#[derive(Arbitrary, Debug, Clone)]
enum Op {
    Compose(Spec),
    ComposeSelf,
    InvertAndCompose(Spec),
    InvertAndComposeSelf,
    Product(Spec),
    ProductAsOuter(Spec),
    Invert,
    Pseudoinvert,
    ReshapeIns {
        names: Vec<u8>,
        cuts: Vec<u8>,
        raw: bool,
    },
    ReshapeOuts {
        names: Vec<u8>,
        cuts: Vec<u8>,
        raw: bool,
    },
    FlattenIns,
    FlattenOuts,
    TransposeIns {
        keys: Vec<u8>,
        raw: bool,
    },
    TransposeOuts {
        keys: Vec<u8>,
        raw: bool,
    },
    Sublayout {
        in_mask: u8,
        out_mask: u8,
        extra: Option<u8>,
    },
    ConcatIns(Spec),
    ConcatOuts(Spec),
    DivideLeft(Spec),
    DivideRight(Spec),
    ProductThenDivide(Spec),
    Quotient {
        mask: u8,
        extra: Option<u8>,
    },
    RemoveZeroBases(Pick),
    SqueezeIns(Pick),
    SqueezeOuts(Pick),
    ResizeIn(Pick, u8),
    ResizeOut(Pick, u8),
    RenameIn(Pick, u8),
    Queries {
        in_mask: u8,
        out_mask: u8,
    },
    Replace(Spec),
}

#[derive(Arbitrary, Debug)]
struct Input {
    start: Spec,
    ops: Vec<Op>,
}

// --------------------------------------------------------------------------
// Building layouts from the input
// --------------------------------------------------------------------------

fn mask(log2: u32) -> u64 {
    if log2 >= 64 {
        u64::MAX
    } else {
        (1u64 << log2) - 1
    }
}

fn log2(size: u64) -> u32 {
    size.trailing_zeros()
}

fn ins_of(l: &LinearLayout) -> Vec<(Dim, u64)> {
    l.in_dims().collect()
}

fn outs_of(l: &LinearLayout) -> Vec<(Dim, u64)> {
    l.out_dims().collect()
}

fn resolve(src: &DimSource, cur: &LinearLayout, max_log2: u8) -> Vec<(Dim, u64)> {
    let (mut dims, tweak, perm) = match src {
        DimSource::Random(v) => {
            return v
                .iter()
                .take(MAX_DIMS)
                .map(|&(n, b)| (name(n), 1u64 << (b % (max_log2 + 1))))
                .collect();
        }
        DimSource::CurrentIns { tweak, perm } => (ins_of(cur), *tweak, *perm),
        DimSource::CurrentOuts { tweak, perm } => (outs_of(cur), *tweak, *perm),
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
    let bits = log2(dims[k].1);
    let bits = match tweak % 4 {
        2 => (bits + 1).min(40),
        3 => bits.saturating_sub(1),
        _ => bits,
    };
    dims[k].1 = 1u64 << bits;
    dims
}

fn component(raw: u16, out_log2: u32) -> u64 {
    let v = raw as u64;
    match raw >> 14 {
        1 if out_log2 > 0 => 1u64 << ((v & 63) % out_log2 as u64),
        2 => 0,
        _ => v & mask(out_log2),
    }
}

fn distinct(dims: &[(Dim, u64)]) -> bool {
    dims.iter()
        .enumerate()
        .all(|(i, d)| dims[..i].iter().all(|e| e.0 != d.0))
}

fn build(spec: &Spec, cur: &LinearLayout) -> Option<LinearLayout> {
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
    let bases: Vec<(Dim, Vec<Vec<u64>>)> = ins
        .iter()
        .map(|&(d, size)| {
            let vectors = (0..log2(size))
                .map(|_| outs.iter().map(|&(_, s)| comp(log2(s))).collect())
                .collect();
            (d, vectors)
        })
        .collect();
    let in_bits: u32 = ins.iter().map(|d| log2(d.1)).sum();
    let out_bits: u32 = outs.iter().map(|d| log2(d.1)).sum();
    let built = LinearLayout::from_bases_with_sizes(&bases, &outs, spec.require_surjective);
    if !spec.require_surjective
        && distinct(&ins)
        && distinct(&outs)
        && in_bits <= 64
        && out_bits <= 64
    {
        // Nothing else can go wrong: components are in range by construction.
        assert!(
            built.is_ok(),
            "from_bases_with_sizes refused {bases:?} {outs:?}: {built:?}"
        );
    }
    let l = built.ok()?;
    assert_eq!(l.bases(), bases, "bases() returns what was built");
    check(&l);
    Some(l)
}

fn pick(l_dims: &[(Dim, u64)], p: Pick) -> Dim {
    if p < 0xf0 && !l_dims.is_empty() {
        l_dims[p as usize % l_dims.len()].0
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

// --------------------------------------------------------------------------
// Reference evaluation, on `apply` only
// --------------------------------------------------------------------------

type Vals = Vec<(Dim, u64)>;

/// The input with flat index `x`: the first dim holds the lowest bits.
fn unflatten(dims: &[(Dim, u64)], x: u64) -> Vals {
    let mut shift = 0;
    dims.iter()
        .map(|&(d, size)| {
            let b = log2(size);
            let v = (x >> shift) & mask(b);
            shift += b;
            (d, v)
        })
        .collect()
}

/// The flat index of `vals` over `dims` (every dim must be present).
fn flatten(vals: &Vals, dims: &[(Dim, u64)]) -> u128 {
    let mut shift = 0;
    let mut acc = 0u128;
    for &(d, size) in dims {
        let v = get(vals, d).expect("value for every dim");
        assert!(v < size, "{d:?} = {v} not below its size {size}");
        acc |= (v as u128) << shift;
        shift += log2(size);
    }
    acc
}

fn get(vals: &Vals, d: Dim) -> Option<u64> {
    vals.iter().find(|x| x.0 == d).map(|x| x.1)
}

fn by_name(vals: &Vals) -> BTreeMap<&'static str, u64> {
    vals.iter().map(|&(d, v)| (d.name(), v)).collect()
}

fn ap(l: &LinearLayout, x: &Vals) -> Vals {
    match l.apply(x) {
        Ok(v) => v.to_vec(),
        Err(e) => panic!("apply({x:?}) failed on an in-range input: {e}\n{l:?}"),
    }
}

/// Every input of `l`, when it has few enough bits.
fn all_inputs(dims: &[(Dim, u64)]) -> Option<impl Iterator<Item = Vals> + use<>> {
    let bits: u32 = dims.iter().map(|d| log2(d.1)).sum();
    let dims = dims.to_vec();
    (bits <= BRUTE_BITS).then(|| (0..1u64 << bits).map(move |x| unflatten(&dims, x)))
}

fn small(l: &LinearLayout) -> bool {
    l.total_in_bits() <= BRUTE_BITS
}

/// `x` extended with 0 for the dims of `dims` it lacks, restricted to `dims`.
fn restrict(x: &Vals, dims: &[(Dim, u64)]) -> Vals {
    dims.iter()
        .map(|&(d, _)| (d, get(x, d).unwrap_or(0)))
        .collect()
}

fn gf2_rank(mut vecs: Vec<u128>) -> u32 {
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

/// The bases, each flattened over the out-dims (the first lowest).
fn flat_bases(l: &LinearLayout) -> Vec<Vec<u128>> {
    let outs = outs_of(l);
    l.bases()
        .iter()
        .map(|(_, vecs)| {
            vecs.iter()
                .map(|v| {
                    let vals: Vals = outs.iter().zip(v).map(|(&(d, _), &c)| (d, c)).collect();
                    flatten(&vals, &outs)
                })
                .collect()
        })
        .collect()
}

/// The invariants every layout keeps.
fn check(l: &LinearLayout) {
    let ins = ins_of(l);
    let outs = outs_of(l);
    let bases = l.bases();
    assert_eq!(bases.len(), ins.len());
    for ((d, vecs), &(d2, size)) in bases.iter().zip(&ins) {
        assert_eq!(*d, d2);
        assert!(size.is_power_of_two());
        assert_eq!(vecs.len() as u32, log2(size), "{d:?} has one basis per bit");
        for v in vecs {
            assert_eq!(v.len(), outs.len());
            for (&c, &(od, osize)) in v.iter().zip(&outs) {
                assert!(
                    c < osize,
                    "basis component {c} on {od:?} not below its size {osize}"
                );
            }
        }
    }
    let in_bits: u32 = ins.iter().map(|d| log2(d.1)).sum();
    let out_bits: u32 = outs.iter().map(|d| log2(d.1)).sum();
    assert_eq!(l.total_in_bits(), in_bits);
    assert_eq!(l.total_out_bits(), out_bits);
    let flat = flat_bases(l);
    let all: Vec<u128> = flat.iter().flatten().copied().collect();
    let rank = gf2_rank(all.clone());
    assert_eq!(l.rank(), rank, "rank of {l:?}");
    assert_eq!(
        l.is_surjective(),
        rank == out_bits,
        "is_surjective of {l:?}"
    );
    assert_eq!(l.is_injective(), rank == in_bits, "is_injective of {l:?}");
    assert_eq!(l.is_invertible(), rank == out_bits && rank == in_bits);

    // free_variable_masks: a bit is free when its basis is in the span of
    // the bases before it.
    let masks = l.free_variable_masks();
    // Reduced basis kept by leading bit: `v` is in the span when it
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
        assert_eq!(masks[k], (ins[k].0, m), "free_variable_masks of {l:?}");
    }

    // Text round trip (pool names are all text-safe).
    let text = l.to_string();
    let back: LinearLayout = text
        .parse()
        .unwrap_or_else(|e| panic!("printed layout does not parse: {e}\n{text}"));
    assert_eq!(&back, l, "text round trip of\n{text}");

    let Some(inputs) = all_inputs(&ins) else {
        return;
    };
    let v = l.num_consecutive_in_out();
    assert!(v.is_power_of_two());
    if let (Some(&(i0, isize)), Some(&(o0, osize))) = (ins.first(), outs.first()) {
        assert!(
            v <= isize && v <= osize,
            "num_consecutive_in_out = {v} of {l:?}"
        );
        let _ = (i0, o0);
    }
    for x in inputs {
        let y = ap(l, &x);
        // apply = XOR of the bases of the set bits.
        let xf = flatten(&x, &ins) as u64;
        let mut acc = 0u128;
        for (j, b) in all.iter().enumerate() {
            if xf >> j & 1 == 1 {
                acc ^= b;
            }
        }
        assert_eq!(flatten(&y, &outs), acc, "apply({x:?}) on {l:?}");
        assert_eq!(l.apply_flat(xf) as u128, acc, "apply_flat({xf}) on {l:?}");
        // V consecutive values of the first in-dim (from a multiple of V)
        // reach V consecutive values of the first out-dim, the rest fixed.
        if v > 1 && x[0].1 % v == 0 {
            for t in 1..v {
                let mut xt = x.clone();
                xt[0].1 += t;
                let mut yt = ap(l, &xt);
                assert_eq!(
                    yt[0].1,
                    y[0].1 + t,
                    "num_consecutive_in_out = {v} of {l:?} at {x:?}"
                );
                yt[0].1 = y[0].1;
                assert_eq!(yt, y, "num_consecutive_in_out = {v} of {l:?} at {x:?}");
            }
        }
    }
    // Out-of-range or missing inputs are errors, not panics.
    if let Some(&(d, size)) = ins.first() {
        let mut x = unflatten(&ins, 0);
        x[0].1 = size;
        assert!(l.apply(&x).is_err(), "apply accepted {d:?} = {size}");
        assert!(
            l.apply(&x[1..]).is_err(),
            "apply accepted an input without {d:?}"
        );
    }
}

// --------------------------------------------------------------------------
// The operations and their references
// --------------------------------------------------------------------------

fn check_compose(a: &LinearLayout, b: &LinearLayout, r: &LinearLayout) {
    assert_eq!(ins_of(r), ins_of(a));
    assert_eq!(outs_of(r), outs_of(b));
    let Some(inputs) = all_inputs(&ins_of(a)) else {
        return;
    };
    let bins = ins_of(b);
    for x in inputs {
        let mid = ap(a, &x);
        assert_eq!(ap(r, &x), ap(b, &restrict(&mid, &bins)), "compose at {x:?}");
    }
}

fn check_invert_and_compose(a: &LinearLayout, b: &LinearLayout, c: &LinearLayout) {
    assert_eq!(ins_of(c), ins_of(a));
    assert_eq!(outs_of(c), ins_of(b));
    let Some(inputs) = all_inputs(&ins_of(a)) else {
        return;
    };
    for x in inputs {
        let want = by_name(&ap(a, &x));
        let got = by_name(&ap(b, &ap(c, &x)));
        assert_eq!(
            got, want,
            "b(c(x)) != a(x) at {x:?}\na = {a:?}\nb = {b:?}\nc = {c:?}"
        );
    }
}

fn check_product(a: &LinearLayout, b: &LinearLayout, r: &LinearLayout) {
    let size = |dims: &[(Dim, u64)], d: Dim| dims.iter().find(|x| x.0 == d).map_or(1, |x| x.1);
    let (ai, ao, bi, bo) = (ins_of(a), outs_of(a), ins_of(b), outs_of(b));
    for &(d, s) in &ins_of(r) {
        assert_eq!(s, size(&ai, d) * size(&bi, d), "product in-dim {d:?}");
    }
    for &(d, s) in &outs_of(r) {
        assert_eq!(s, size(&ao, d) * size(&bo, d), "product out-dim {d:?}");
    }
    assert_eq!(r.num_in_dims(), {
        let mut n = ai.len();
        n += bi.iter().filter(|d| !ai.iter().any(|e| e.0 == d.0)).count();
        n
    });
    let Some(inputs) = all_inputs(&ins_of(r)) else {
        return;
    };
    for x in inputs {
        let xa: Vals = ai
            .iter()
            .map(|&(d, s)| (d, get(&x, d).unwrap() & (s - 1)))
            .collect();
        let xb: Vals = bi
            .iter()
            .map(|&(d, _)| (d, get(&x, d).unwrap() >> log2(size(&ai, d))))
            .collect();
        let (ya, yb) = (ap(a, &xa), ap(b, &xb));
        let want: Vals = outs_of(r)
            .iter()
            .map(|&(d, _)| {
                let lo = get(&ya, d).unwrap_or(0);
                let hi = get(&yb, d).unwrap_or(0) << log2(size(&ao, d));
                (d, lo ^ hi)
            })
            .collect();
        assert_eq!(
            ap(r, &x),
            want,
            "product at {x:?}\na = {a:?}\nb = {b:?}\nr = {r:?}"
        );
    }
}

/// `a(inv(y)) = y` for every `y` (and `inv(a(x)) = x` when `both`).
fn check_inverse(a: &LinearLayout, inv: &LinearLayout, both: bool) {
    assert_eq!(ins_of(inv), outs_of(a));
    assert_eq!(outs_of(inv), ins_of(a));
    let outs = outs_of(a);
    if let Some(ys) = all_inputs(&outs) {
        for y in ys {
            assert_eq!(
                ap(a, &ap(inv, &y)),
                y,
                "not a right inverse at {y:?}\n{a:?}\n{inv:?}"
            );
        }
    }
    if both && let Some(xs) = all_inputs(&ins_of(a)) {
        for x in xs {
            assert_eq!(ap(inv, &ap(a, &x)), x, "not a left inverse at {x:?}");
        }
    }
}

fn check_reshape_ins(a: &LinearLayout, r: &LinearLayout) {
    assert_eq!(outs_of(r), outs_of(a));
    assert_eq!(r.total_in_bits(), a.total_in_bits());
    if !small(a) {
        return;
    }
    let (ai, ri) = (ins_of(a), ins_of(r));
    for x in 0..1u64 << a.total_in_bits() {
        assert_eq!(
            ap(r, &unflatten(&ri, x)),
            ap(a, &unflatten(&ai, x)),
            "reshape_ins at {x}"
        );
    }
}

fn check_reshape_outs(a: &LinearLayout, r: &LinearLayout) {
    assert_eq!(ins_of(r), ins_of(a));
    assert_eq!(r.total_out_bits(), a.total_out_bits());
    let (ao, ro) = (outs_of(a), outs_of(r));
    let Some(inputs) = all_inputs(&ins_of(a)) else {
        return;
    };
    for x in inputs {
        assert_eq!(
            flatten(&ap(r, &x), &ro),
            flatten(&ap(a, &x), &ao),
            "reshape_outs at {x:?}"
        );
    }
}

fn check_same_values(a: &LinearLayout, r: &LinearLayout) {
    let Some(inputs) = all_inputs(&ins_of(a)) else {
        return;
    };
    for x in inputs {
        assert_eq!(
            by_name(&ap(r, &x)),
            by_name(&ap(a, &x)),
            "values differ at {x:?}"
        );
    }
}

/// `r(x) = a(x extended with 0)` on `r`'s out-dims.
fn check_restriction(a: &LinearLayout, r: &LinearLayout) {
    let ai = ins_of(a);
    let Some(inputs) = all_inputs(&ins_of(r)) else {
        return;
    };
    for x in inputs {
        let ya = ap(a, &restrict(&x, &ai));
        let want: Vals = r
            .out_dim_names()
            .map(|d| (d, get(&ya, d).unwrap()))
            .collect();
        assert_eq!(
            ap(r, &x),
            want,
            "restriction at {x:?}\na = {a:?}\nr = {r:?}"
        );
    }
}

/// The image of each input bit of in-dim `d`, via `apply`.
fn unit_images(a: &LinearLayout, d: Dim) -> Vec<Vals> {
    let ai = ins_of(a);
    let size = ai.iter().find(|x| x.0 == d).unwrap().1;
    (0..log2(size))
        .map(|i| {
            let x: Vals = ai
                .iter()
                .map(|&(e, _)| (e, if e == d { 1 << i } else { 0 }))
                .collect();
            ap(a, &x)
        })
        .collect()
}

fn run(op: &Op, a: &LinearLayout) -> Option<LinearLayout> {
    let ai = ins_of(a);
    let ao = outs_of(a);
    match op {
        Op::Compose(spec) => {
            let b = build(spec, a)?;
            let r = a.compose(&b).ok()?;
            check_compose(a, &b, &r);
            Some(r)
        }
        Op::ComposeSelf => {
            let r = a.compose(a).ok()?;
            check_compose(a, a, &r);
            Some(r)
        }
        Op::InvertAndCompose(spec) => {
            let b = build(spec, a)?;
            let c = a.invert_and_compose(&b).ok()?;
            check_invert_and_compose(a, &b, &c);
            Some(c)
        }
        Op::InvertAndComposeSelf => {
            let c = a.invert_and_compose(a).ok()?;
            check_invert_and_compose(a, a, &c);
            Some(c)
        }
        Op::Product(spec) => {
            let b = build(spec, a)?;
            let r = a.product(&b).ok()?;
            check_product(a, &b, &r);
            Some(r)
        }
        Op::ProductAsOuter(spec) => {
            let b = build(spec, a)?;
            let r = b.product(a).ok()?;
            check_product(&b, a, &r);
            Some(r)
        }
        Op::Invert => {
            let r = a.invert();
            assert_eq!(
                r.is_ok(),
                a.is_invertible(),
                "invert succeeds exactly on bijections"
            );
            let r = r.ok()?;
            check_inverse(a, &r, true);
            Some(r)
        }
        Op::Pseudoinvert => {
            let r = a.pseudoinvert();
            assert_eq!(
                r.is_ok(),
                a.is_surjective(),
                "pseudoinvert succeeds exactly on surjections"
            );
            let r = r.ok()?;
            check_inverse(a, &r, false);
            Some(r)
        }
        Op::ReshapeIns { names, cuts, raw } => {
            let new = split(a.total_in_bits(), names, cuts, *raw);
            let r = a.reshape_ins(&new);
            let total: u32 = new.iter().map(|d| log2(d.1)).sum();
            if !*raw && distinct(&new) && total == a.total_in_bits() {
                assert!(r.is_ok(), "reshape_ins to {new:?} refused: {r:?}");
            }
            let r = r.ok()?;
            assert_eq!(ins_of(&r), new);
            check_reshape_ins(a, &r);
            Some(r)
        }
        Op::ReshapeOuts { names, cuts, raw } => {
            let new = split(a.total_out_bits(), names, cuts, *raw);
            let r = a.reshape_outs(&new);
            let total: u32 = new.iter().map(|d| log2(d.1)).sum();
            if !*raw && distinct(&new) && total == a.total_out_bits() {
                assert!(r.is_ok(), "reshape_outs to {new:?} refused: {r:?}");
            }
            let r = r.ok()?;
            assert_eq!(outs_of(&r), new);
            check_reshape_outs(a, &r);
            Some(r)
        }
        Op::FlattenIns => {
            let r = a.flatten_ins().ok()?;
            assert!(r.num_in_dims() <= 1);
            check_reshape_ins(a, &r);
            Some(r)
        }
        Op::FlattenOuts => {
            let r = a.flatten_outs().ok()?;
            assert!(r.num_out_dims() <= 1);
            check_reshape_outs(a, &r);
            Some(r)
        }
        Op::TransposeIns { keys, raw } => {
            let order = permute(&ai, keys, *raw);
            let r = a.transpose_ins(&order);
            if !*raw {
                assert!(r.is_ok(), "transpose_ins to {order:?} refused: {r:?}");
            }
            let r = r.ok()?;
            assert_eq!(r.in_dim_names().collect::<Vec<_>>(), order);
            assert_eq!(outs_of(&r), ao);
            check_same_values(a, &r);
            Some(r)
        }
        Op::TransposeOuts { keys, raw } => {
            let order = permute(&ao, keys, *raw);
            let r = a.transpose_outs(&order);
            if !*raw {
                assert!(r.is_ok(), "transpose_outs to {order:?} refused: {r:?}");
            }
            let r = r.ok()?;
            assert_eq!(r.out_dim_names().collect::<Vec<_>>(), order);
            assert_eq!(ins_of(&r), ai);
            check_same_values(a, &r);
            Some(r)
        }
        Op::Sublayout {
            in_mask,
            out_mask,
            extra,
        } => {
            let ins = masked(&ai, *in_mask, *extra);
            let outs = masked(&ao, *out_mask, None);
            let r = a.sublayout(&ins, &outs);
            if extra.is_none() {
                assert!(r.is_ok(), "sublayout({ins:?}, {outs:?}) refused: {r:?}");
            }
            let r = r.ok()?;
            for d in r.in_dim_names() {
                assert!(ins.contains(&d));
            }
            for &(d, s) in &outs_of(&r) {
                assert!(outs.contains(&d));
                assert_eq!(a.out_dim_size(d).ok(), Some(s));
            }
            check_restriction(a, &r);
            Some(r)
        }
        Op::ConcatIns(spec) => {
            let b = build(spec, a)?;
            let r = a.concat_ins(&b).ok()?;
            assert_eq!(outs_of(&r), ao);
            if let Some(inputs) = all_inputs(&ins_of(&r)) {
                let bi = ins_of(&b);
                for x in inputs {
                    let ya = ap(a, &restrict(&x, &ai));
                    let xb: Vals = bi
                        .iter()
                        .map(|&(d, _)| {
                            (
                                d,
                                if a.has_in_dim(d) {
                                    0
                                } else {
                                    get(&x, d).unwrap()
                                },
                            )
                        })
                        .collect();
                    let yb = ap(&b, &xb);
                    let want: Vals = ya.iter().zip(&yb).map(|(p, q)| (p.0, p.1 ^ q.1)).collect();
                    assert_eq!(ap(&r, &x), want, "concat_ins at {x:?}");
                }
            }
            Some(r)
        }
        Op::ConcatOuts(spec) => {
            let b = build(spec, a)?;
            let r = a.concat_outs(&b).ok()?;
            assert_eq!(ins_of(&r), ai);
            if let Some(inputs) = all_inputs(&ai) {
                for x in inputs {
                    let mut want = ap(a, &x);
                    want.extend(ap(&b, &x));
                    assert_eq!(ap(&r, &x), want, "concat_outs at {x:?}");
                }
            }
            Some(r)
        }
        Op::DivideLeft(spec) => {
            let b = build(spec, a)?;
            let c = a.divide_left(&b).ok()??;
            check(&c);
            assert_eq!(
                b.product(&c).as_ref().ok(),
                Some(a),
                "divide_left: b * c != a"
            );
            Some(c)
        }
        Op::DivideRight(spec) => {
            let b = build(spec, a)?;
            let c = a.divide_right(&b).ok()??;
            check(&c);
            assert_eq!(
                c.product(&b).as_ref().ok(),
                Some(a),
                "divide_right: c * b != a"
            );
            Some(c)
        }
        Op::ProductThenDivide(spec) => {
            let b = build(spec, a)?;
            let p = a.product(&b).ok()?;
            check(&p);
            check_product(a, &b, &p);
            let left = p.divide_left(a);
            let Ok(Some(c)) = left else {
                panic!(
                    "divide_left of a product by its inner factor: {left:?}\na = {a:?}\nb = {b:?}\np = {p:?}"
                )
            };
            check(&c);
            assert_eq!(
                a.product(&c).ok().as_ref(),
                Some(&p),
                "divide_left: a * c != p"
            );
            let right = p.divide_right(&b);
            let Ok(Some(c)) = right else {
                panic!(
                    "divide_right of a product by its outer factor: {right:?}\na = {a:?}\nb = {b:?}\np = {p:?}"
                )
            };
            check(&c);
            assert_eq!(
                c.product(&b).ok().as_ref(),
                Some(&p),
                "divide_right: c * b != p"
            );
            Some(c)
        }
        Op::Quotient { mask, extra } => {
            let dims = masked(&ai, *mask, *extra);
            let q = a.quotient(&dims).ok()??;
            for d in &dims {
                assert!(!q.has_in_dim(*d) && !q.has_out_dim(*d));
            }
            check_restriction(a, &q);
            Some(q)
        }
        Op::RemoveZeroBases(p) => {
            let d = pick(&ai, *p);
            let r = a.remove_zero_bases_along_dim(d);
            let r = r.ok()?;
            if !a.has_in_dim(d) {
                assert_eq!(&r, a);
                return Some(r);
            }
            let ao_dims = outs_of(a);
            let kept: Vec<u32> = unit_images(a, d)
                .iter()
                .enumerate()
                .filter(|(_, y)| flatten(y, &ao_dims) != 0)
                .map(|(i, _)| i as u32)
                .collect();
            assert_eq!(r.in_dim_size(d).ok(), Some(1u64 << kept.len()));
            if let Some(inputs) = all_inputs(&ins_of(&r)) {
                for x in inputs {
                    let mut xa = x.clone();
                    let v = get(&x, d).unwrap();
                    let deposited = kept
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| v >> j & 1 == 1)
                        .fold(0u64, |acc, (_, &i)| acc | 1 << i);
                    xa.iter_mut().find(|e| e.0 == d).unwrap().1 = deposited;
                    assert_eq!(
                        ap(&r, &x),
                        ap(a, &xa),
                        "remove_zero_bases_along_dim at {x:?}"
                    );
                }
            }
            Some(r)
        }
        Op::SqueezeIns(p) => {
            let d = pick(&ai, *p);
            let r = a.squeeze_ins(d);
            if a.in_dim_size(d).ok() == Some(1) {
                assert!(r.is_ok(), "squeeze_ins({d:?}) refused: {r:?}");
            }
            let r = r.ok()?;
            assert!(!r.has_in_dim(d));
            check_restriction(a, &r);
            Some(r)
        }
        Op::SqueezeOuts(p) => {
            let d = pick(&ao, *p);
            let r = a.squeeze_outs(d);
            if a.out_dim_size(d).ok() == Some(1) {
                assert!(r.is_ok(), "squeeze_outs({d:?}) refused: {r:?}");
            }
            let r = r.ok()?;
            assert!(!r.has_out_dim(d));
            check_restriction(a, &r);
            Some(r)
        }
        Op::ResizeIn(p, bits) => {
            let d = pick(&ai, *p);
            let size = 1u64 << (bits % 8);
            let r = a.resize_in_dim(d, size);
            if a.in_dim_size(d).is_ok_and(|s| size <= s) {
                assert!(r.is_ok(), "resize_in_dim({d:?}, {size}) refused: {r:?}");
            }
            let r = r.ok()?;
            assert_eq!(r.in_dim_size(d).ok(), Some(size));
            check_restriction(a, &r);
            Some(r)
        }
        Op::ResizeOut(p, bits) => {
            let d = pick(&ao, *p);
            let size = 1u64 << (bits % 8);
            let r = a.resize_out_dim(d, size);
            if a.out_dim_size(d).is_ok_and(|s| size <= s) {
                assert!(r.is_ok(), "resize_out_dim({d:?}, {size}) refused: {r:?}");
            }
            let r = r.ok()?;
            assert_eq!(r.out_dim_size(d).ok(), Some(size));
            assert_eq!(ins_of(&r), ai);
            if let Some(inputs) = all_inputs(&ai) {
                // Per basis: a component that does not fit is zeroed whole.
                let units: Vec<(Dim, Vec<Vals>)> =
                    ai.iter().map(|&(e, _)| (e, unit_images(a, e))).collect();
                for x in inputs {
                    let ya = ap(a, &x);
                    let mut want_d = 0u64;
                    for (e, imgs) in &units {
                        let v = get(&x, *e).unwrap();
                        for (i, y) in imgs.iter().enumerate() {
                            let c = get(y, d).unwrap();
                            if v >> i & 1 == 1 && c < size {
                                want_d ^= c;
                            }
                        }
                    }
                    let want: Vals = ya
                        .iter()
                        .map(|&(e, v)| (e, if e == d { want_d } else { v }))
                        .collect();
                    assert_eq!(ap(&r, &x), want, "resize_out_dim at {x:?}");
                }
            }
            Some(r)
        }
        Op::RenameIn(p, new) => {
            let old = pick(&ai, *p);
            let new = name(*new);
            let r = a.rename_in_dim(old, new).ok()?;
            let clash = new != old && a.has_in_dim(new);
            assert_eq!(r.num_in_dims(), ai.len() - clash as usize);
            assert_eq!(outs_of(&r), ao);
            if let Some(inputs) = all_inputs(&ins_of(&r)) {
                for x in inputs {
                    let xa: Vals = if clash {
                        restrict(&x, &ai)
                    } else {
                        x.iter()
                            .map(|&(e, v)| (if e == new { old } else { e }, v))
                            .collect()
                    };
                    assert_eq!(ap(&r, &x), ap(a, &xa), "rename_in_dim at {x:?}");
                }
            }
            Some(r)
        }
        Op::Queries { in_mask, out_mask } => {
            let ins = masked(&ai, *in_mask, None);
            let outs = masked(&ao, *out_mask, None);
            let sub = a.sublayout(&ins, &outs).expect("sublayout on own dims");
            let zero = sub
                .bases()
                .iter()
                .all(|(_, v)| v.iter().flatten().all(|&c| c == 0));
            assert_eq!(a.sublayout_is_zero(&ins, &outs).ok(), Some(zero));
            // Dims that are both in- and out-dims.
            let both: Vec<Dim> = ins.iter().copied().filter(|&d| a.has_out_dim(d)).collect();
            if let Ok(id) = a.square_sublayout_is_identity(&both) {
                let sq = a.sublayout(&both, &both).unwrap();
                let expect = both
                    .iter()
                    .all(|&d| a.in_dim_size(d).ok() == a.out_dim_size(d).ok())
                    && all_inputs(&ins_of(&sq)).is_none_or(|mut xs| {
                        let so = outs_of(&sq);
                        let si = ins_of(&sq);
                        xs.all(|x| flatten(&ap(&sq, &x), &so) == flatten(&x, &si))
                    });
                if all_inputs(&ins_of(&sq)).is_some() {
                    assert_eq!(
                        id, expect,
                        "square_sublayout_is_identity({both:?}) of {a:?}"
                    );
                }
            }
            let _ = a.is_trivial_over(&both);
            assert!(a.equal_ignoring_out_dim_sizes(a));
            None
        }
        Op::Replace(spec) => build(spec, a),
    }
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
                cuts.get(i).copied().unwrap_or(0) as u32 % (left + 1)
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

fuzz_target!(|input: Input| {
    let Some(mut layout) = build(&input.start, &LinearLayout::empty()) else {
        return;
    };
    for op in input.ops.iter().take(MAX_OPS) {
        if let Some(next) = run(op, &layout) {
            check(&next);
            layout = next;
        }
    }
});
