//! Criterion benches of the layout algebra on layouts of 8, 16, 32 and 64
//! input bits.
//!
//! ```sh
//! cargo bench --bench algebra                       # 1 s warm-up, 2 s measurement
//! cargo bench --bench algebra -- compose            # one group
//! ALGEBRA_BENCH_DUMP=1 cargo bench --bench algebra  # print inputs and results as JSON
//! ```
//!
//! The inputs come from a tiny xorshift generator that
//! `tests/oracle/bench_triton.py` implements too, so Triton's binding is
//! timed on exactly the same layouts. That script checks the two generators
//! agree (through the JSON dump above) and compares our results with
//! Triton's before it prints its table.
//!
//! For `N` input bits the main layout `A` has in-dims `register`, `lane`,
//! `warp`, `block` of `N/4` bits each, a few zero (broadcast) bases, and
//! out-dims `dim0`, `dim1` splitting the remaining bits (at most 30 each, so
//! Triton's `int32` components hold them). Its non-zero bases are distinct
//! unit vectors, some with one lower bit XORed in (a swizzle), so `A` is
//! surjective.

use criterion::{BenchmarkId, Criterion};
use linear_layout::{Bases, Dim, LinearLayout, dim};
use std::hint::black_box;
use std::time::Duration;

/// The input sizes benchmarked.
const SIZES: [u32; 4] = [8, 16, 32, 64];

/// xorshift64 (13, 7, 17). `tests/oracle/bench_triton.py` has the same.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        let s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
        XorShift(if s == 0 { 1 } else { s })
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Fisher–Yates shuffle of `0..n`.
    fn permutation(&mut self, n: u32) -> Vec<u32> {
        let mut p: Vec<u32> = (0..n).collect();
        for i in (1..n as usize).rev() {
            let j = self.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        p
    }
}

/// Bases and out-dim sizes of a random surjective, permutation-like layout:
/// `zeros` of the input bits (chosen at random) map to zero, the others to
/// distinct output bits `p` in random order, each with probability 1/4 with
/// one random lower bit added. Needs `sum(ins) == sum(outs) + zeros`.
fn generate(
    seed: u64,
    ins: &[(Dim, u32)],
    outs: &[(Dim, u32)],
    zeros: u32,
) -> (Bases, Vec<(Dim, u64)>) {
    let mut rng = XorShift::new(seed);
    let total_in: u32 = ins.iter().map(|x| x.1).sum();
    let total_out: u32 = outs.iter().map(|x| x.1).sum();
    assert_eq!(total_in, total_out + zeros, "bad spec");
    let in_perm = rng.permutation(total_in);
    let mut is_zero = vec![false; total_in as usize];
    for &i in &in_perm[..zeros as usize] {
        is_zero[i as usize] = true;
    }
    let out_perm = rng.permutation(total_out);
    let mut next_out = 0;
    let mut columns = Vec::new();
    for &zero in &is_zero {
        if zero {
            columns.push(0u64);
            continue;
        }
        let p = out_perm[next_out] as u64;
        next_out += 1;
        let mut col = 1u64 << p;
        if p > 0 && rng.below(4) == 0 {
            col |= 1u64 << rng.below(p);
        }
        columns.push(col);
    }
    let unpack = |mut c: u64| -> Vec<u64> {
        outs.iter()
            .map(|&(_, w)| {
                let v = c & ((1u64 << w) - 1);
                c >>= w;
                v
            })
            .collect()
    };
    let mut bases = Bases::new();
    let mut k = 0;
    for &(d, n) in ins {
        bases.push((
            d,
            columns[k..k + n as usize]
                .iter()
                .map(|&c| unpack(c))
                .collect(),
        ));
        k += n as usize;
    }
    let sizes = outs.iter().map(|&(d, w)| (d, 1u64 << w)).collect();
    (bases, sizes)
}

fn build(parts: &(Bases, Vec<(Dim, u64)>)) -> LinearLayout {
    LinearLayout::from_bases_with_sizes(&parts.0, &parts.1, false).expect("generated layout")
}

/// Zero bases of the layout with `n` input bits.
fn zeros_for(n: u32) -> u32 {
    if n <= 16 { 2 } else { 4 }
}

/// In-dims and out-dims, each with its log2 size, and the number of zero
/// bases.
type Spec = (Vec<(Dim, u32)>, Vec<(Dim, u32)>, u32);

/// The shape of the `n`-bit layout.
fn spec(n: u32) -> Spec {
    let q = n / 4;
    let ins = vec![
        (Dim::REGISTER, q),
        (Dim::LANE, q),
        (Dim::WARP, q),
        (Dim::BLOCK, q),
    ];
    let zeros = zeros_for(n);
    let o = n - zeros;
    let outs = vec![(dim("dim0"), o / 2), (dim("dim1"), o - o / 2)];
    (ins, outs, zeros)
}

/// Every input of the benches for layouts of `n` input bits.
struct Inputs {
    n: u32,
    /// The main layout, as bases and sizes and built.
    a_parts: (Bases, Vec<(Dim, u64)>),
    a: LinearLayout,
    /// A value for each of `a`'s in-dims.
    apply_input: Vec<(Dim, u64)>,
    /// Two `n/2`-bit layouts whose product has `n` input bits.
    p1: LinearLayout,
    p2: LinearLayout,
    /// `(dim0, dim1) -> (dim0, dim1)` bijection composed after `a`.
    b: LinearLayout,
    /// `b` with its in-dims listed as `(dim1, dim0)`: the same map, but
    /// `a`'s out-dims no longer line up with its in-dims, so `compose`
    /// gathers `b`'s columns instead of using them as they are. Ours only
    /// (Triton's binding has no `transpose_ins`).
    b_swapped: LinearLayout,
    /// `offset -> (dim0, dim1)` bijection: `a.invert_and_compose(s)` maps
    /// `a`'s in-dims to offsets.
    s: LinearLayout,
    /// New out-dims for `reshape_outs`: one bit moved from dim1 to dim0.
    reshape: Vec<(Dim, u64)>,
}

impl Inputs {
    fn new(n: u32) -> Self {
        let seed = |purpose: u64| n as u64 * 16 + purpose;
        let (ins, outs, zeros) = spec(n);
        let a_parts = generate(seed(1), &ins, &outs, zeros);
        let a = build(&a_parts);
        let mut rng = XorShift::new(seed(2));
        let apply_input = ins
            .iter()
            .map(|&(d, w)| (d, rng.next() & ((1u64 << w) - 1)))
            .collect();
        let (hins, houts, hzeros) = spec(n / 2);
        let p1 = build(&generate(seed(3), &hins, &houts, hzeros));
        let p2 = build(&generate(seed(4), &hins, &houts, hzeros));
        let b = build(&generate(seed(5), &outs, &outs, 0));
        let b_swapped = b
            .transpose_ins(&[outs[1].0, outs[0].0])
            .expect("b has in-dims dim0 and dim1");
        assert_eq!(
            a.compose(&b_swapped).ok(),
            a.compose(&b).ok(),
            "the order of b's in-dims changes nothing but the path"
        );
        let o: u32 = outs.iter().map(|x| x.1).sum();
        let s = build(&generate(seed(6), &[(Dim::OFFSET, o)], &outs, 0));
        let reshape = vec![
            (outs[0].0, 1u64 << (outs[0].1 + 1)),
            (outs[1].0, 1u64 << (outs[1].1 - 1)),
        ];
        Inputs {
            n,
            a_parts,
            a,
            apply_input,
            p1,
            p2,
            b,
            b_swapped,
            s,
            reshape,
        }
    }
}

/// The `from_bases` bench: `a`'s bases and sizes, surjectivity required.
fn from_bases(i: &Inputs) -> linear_layout::Result<LinearLayout> {
    LinearLayout::from_bases_with_sizes(&i.a_parts.0, &i.a_parts.1, true)
}

/// `ALGEBRA_BENCH_DUMP=1`: the inputs and each operation's result (or
/// error) as one JSON object, for `bench_triton.py` to check.
fn dump() {
    use serde_json::{Value, json};
    let res = |r: linear_layout::Result<LinearLayout>| match r {
        Ok(l) => serde_json::to_value(&l).expect("serialize"),
        Err(e) => json!({ "error": e.to_string() }),
    };
    let pairs =
        |v: &[(Dim, u64)]| -> Value { v.iter().map(|&(d, x)| json!([d.name(), x])).collect() };
    let mut sizes = serde_json::Map::new();
    for n in SIZES {
        let i = Inputs::new(n);
        let apply = match i.a.apply(&i.apply_input) {
            Ok(v) => pairs(&v),
            Err(e) => json!({ "error": e.to_string() }),
        };
        sizes.insert(
            n.to_string(),
            json!({
                "inputs": {
                    "a": &i.a, "apply_input": pairs(&i.apply_input),
                    "p1": &i.p1, "p2": &i.p2, "b": &i.b, "s": &i.s,
                    "reshape_outs": pairs(&i.reshape),
                },
                "results": {
                    "apply": apply,
                    "product": res(i.p1.product(&i.p2)),
                    "compose": res(i.a.compose(&i.b)),
                    "invert_and_compose": res(i.a.invert_and_compose(&i.s)),
                    "pseudoinvert": res(i.a.pseudoinvert()),
                    "reshape_outs": res(i.a.reshape_outs(&i.reshape)),
                    "from_bases": res(from_bases(&i)),
                },
            }),
        );
    }
    println!("{}", Value::Object(sizes));
}

/// Benches `op` on every size where it succeeds; a size where it errors is
/// reported on stderr and skipped.
fn bench_op<T>(
    c: &mut Criterion,
    inputs: &[Inputs],
    name: &str,
    op: impl Fn(&Inputs) -> linear_layout::Result<T>,
) {
    let mut group = c.benchmark_group(name);
    for i in inputs {
        if let Err(e) = op(i) {
            eprintln!("{name}/{}: skipped, the operation fails: {e}", i.n);
            continue;
        }
        // The result is built in full, made opaque and dropped, and not
        // copied: criterion's stable `black_box` on the routine's output is a
        // volatile read of it, byte by byte, and `std::hint::black_box` on
        // the value itself moves it into a fresh slot, a copy no caller
        // needs (notes/performance.md). A reference escaping into the opaque
        // call forces the same materialisation without the move.
        group.bench_with_input(BenchmarkId::from_parameter(i.n), i, |b, i| {
            b.iter(|| {
                let result = op(black_box(i));
                black_box(&result);
                result.is_ok()
            })
        });
    }
    group.finish();
}

fn main() {
    if std::env::var_os("ALGEBRA_BENCH_DUMP").is_some_and(|v| !v.is_empty() && v != "0") {
        dump();
        return;
    }
    let inputs: Vec<Inputs> = SIZES.iter().map(|&n| Inputs::new(n)).collect();
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();

    bench_op(&mut c, &inputs, "apply", |i| i.a.apply(&i.apply_input));
    bench_op(&mut c, &inputs, "product", |i| i.p1.product(&i.p2));
    bench_op(&mut c, &inputs, "compose", |i| i.a.compose(&i.b));
    bench_op(&mut c, &inputs, "compose_gathered", |i| {
        i.a.compose(&i.b_swapped)
    });
    bench_op(&mut c, &inputs, "invert_and_compose", |i| {
        i.a.invert_and_compose(&i.s)
    });
    bench_op(&mut c, &inputs, "pseudoinvert", |i| i.a.pseudoinvert());
    bench_op(&mut c, &inputs, "reshape_outs", |i| {
        i.a.reshape_outs(&i.reshape)
    });
    bench_op(&mut c, &inputs, "from_bases", from_bases);
    // Not an operation: the floor under every operation that returns a
    // layout (copy one, wrap it in `Ok`, drop it), for reading the others.
    bench_op(&mut c, &inputs, "clone", |i| Ok(i.a.clone()));

    c.final_summary();
}
