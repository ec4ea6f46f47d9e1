//! `ops` fuzz inputs: the committed corpus still decodes to the same inputs
//! and runs clean, steps survive the trip through `eval` requests, and
//! `shrink-trace`'s machinery finds and shrinks a (deliberately injected)
//! wrong result.

use arbitrary::{Arbitrary, Unstructured};
use linear_layout::eval::{EvalError, WRONG_RESULT, eval, request, step_of};
use linear_layout::fuzzing::{DimSource, Input, Op, Spec, run, run_with};
use linear_layout::reference::{Step, StepOutput};
use linear_layout::shrink_trace::{Shrinker, as_rust_test};
use linear_layout::utils::zeros_like;
use serde_json::Value;
use std::path::PathBuf;

fn corpus() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/ops");
    let mut seeds: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("seed-")
        })
        .collect();
    seeds.sort();
    assert!(!seeds.is_empty(), "no seeds in {dir}");
    seeds
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// Every step of a run (`None`: the start did not build).
fn steps(input: &Input) -> Vec<Step> {
    let mut all = Vec::new();
    run_with(input, |s| {
        all.push(s.clone());
        Ok::<_, ()>(s.run().ok().and_then(StepOutput::into_layout))
    })
    .unwrap();
    all
}

#[test]
fn corpus_seeds_decode_as_before_and_run_clean() {
    let mut ops_run = 0;
    for (path, bytes) in corpus() {
        let input = Input::decode(&bytes).unwrap_or_else(|| panic!("{path:?} does not decode"));
        if let Err(f) = run(&input) {
            panic!("{path:?}: {f}");
        }
        ops_run += steps(&input).len();
    }
    assert!(ops_run > 20, "the seeds exercise only {ops_run} steps");
    // What seed-1 decoded to before the input types moved into the library
    // (the fuzz target's own types, printed with `{:?}`): field and variant
    // order are the wire format.
    let (_, seed1) = &corpus()[0];
    assert_eq!(
        format!("{:?}", Input::decode(seed1).unwrap()),
        "Input { start: Spec { ins: Random([(69, 174), (20, 20)]), outs: Random([]), comps: [], \
         require_surjective: false }, ops: [InvertAndComposeSelf, ComposeSelf, TransposeIns { \
         keys: [116], raw: false }, FlattenIns, Compose(Spec { ins: Random([]), outs: \
         Random([]), comps: [], require_surjective: false })] }"
    );
}

#[test]
fn decoding_is_deterministic_and_steps_round_trip_through_eval_requests() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut checked = 0;
    for _ in 0..300 {
        let bytes: Vec<u8> = (0..200)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(&bytes)) else {
            continue;
        };
        assert_eq!(Input::decode(&bytes), Some(input.clone()), "decoding twice");
        // Built in the test, then written out and read back through the
        // eval protocol: the same steps.
        for step in steps(&input) {
            let req = request(&step, true);
            let back = step_of(&req).unwrap().unwrap();
            assert_eq!(back, step, "{req}");
            let plain = eval(&req);
            let direct = step.run();
            assert_eq!(plain.is_ok(), direct.is_ok(), "{req}");
            checked += 1;
        }
        run(&input).unwrap_or_else(|f| panic!("{f}"));
    }
    assert!(checked > 100, "only {checked} steps");
}

/// `eval`, except that a checked `compose` answers with every basis zeroed
/// before its check runs: a stand-in for a bug.
fn eval_with_broken_compose(req: &Value) -> Result<Value, EvalError> {
    if req["op"] == "compose" && req["check"] == true {
        let step = step_of(req)?.expect("compose is a step");
        let outcome = step.run().map(|o| match o {
            StepOutput::Layout(l) => StepOutput::Layout(zeros_like(&l).unwrap()),
            other => other,
        });
        step.check(&outcome)?;
    }
    eval(req)
}

/// lane (4) onto dim0 (4), the identity; then compose with dim0 -> dim1.
fn compose_input() -> Input {
    Input {
        start: Spec {
            ins: DimSource::Random(vec![(1, 2), (2, 1)]),
            outs: DimSource::Random(vec![(4, 2)]),
            comps: vec![1, 2, 3],
            require_surjective: false,
        },
        ops: vec![
            Op::Invert,
            Op::Compose(Spec {
                ins: DimSource::CurrentOuts { tweak: 0, perm: 0 },
                outs: DimSource::Random(vec![(5, 2), (6, 1)]),
                comps: vec![2, 1, 0, 3],
                require_surjective: false,
            }),
            Op::FlattenIns,
        ],
    }
}

#[test]
fn an_injected_wrong_result_is_found_shrunk_and_turned_into_a_failing_test() {
    let input = compose_input();
    // With the real eval, nothing fails.
    assert!(run(&input).is_ok());
    assert_eq!(Shrinker::default().first_ops_failure(&input), Ok(None));

    let broken = Shrinker::with_evaluator(eval_with_broken_compose);
    let (req, kind) = broken
        .first_ops_failure(&input)
        .unwrap()
        .expect("the broken compose is found");
    assert_eq!(kind, WRONG_RESULT);
    assert_eq!(req["op"], "compose");
    assert_eq!(req["check"], true);
    let message = broken.answer(&req).unwrap_err().message;
    assert!(
        message.starts_with("compose: values against the brute-force reference broken"),
        "{message}"
    );

    let small = broken.shrink(&req, &kind);
    assert_eq!(broken.failure_kind(&small).as_deref(), Some(WRONG_RESULT));
    assert!(small.to_string().len() < req.to_string().len(), "{small}");
    // One nonzero basis of `a` is all a wrong value needs; `b` keeps the two
    // bases of its in-dim that compose needs to cover a's out-dim of size 4.
    let bases = |k: &str| -> usize {
        small[k]["bases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d[1].as_array().unwrap().len())
            .sum()
    };
    assert_eq!((bases("a"), bases("b")), (1, 2), "{small}");

    // The printed regression test asserts exactly what the real eval now
    // satisfies and the broken one does not.
    let test = as_rust_test(&small, &kind);
    assert!(
        test.contains("e.kind == linear_layout::eval::WRONG_RESULT"),
        "{test}"
    );
    assert!(!matches!(eval(&small), Err(e) if e.kind == WRONG_RESULT));
    assert!(matches!(eval_with_broken_compose(&small), Err(e) if e.kind == WRONG_RESULT));
}

#[test]
fn checked_eval_requests_answer_as_unchecked_ones_do() {
    let req = |check: bool| {
        serde_json::json!({
            "op": "invert_and_compose", "check": check,
            "a": {"bases": [["register", [[1, 0], [2, 0]]], ["warp", [[0, 1], [4, 0]]]],
                  "out_dims": [["dim0", 8], ["dim1", 2]]},
            "b": {"bases": [["lane", [[1, 0], [2, 0]]], ["block", [[0, 1]]]],
                  "out_dims": [["dim0", 8], ["dim1", 2]]}
        })
    };
    // An error the law allows stays that error.
    assert_eq!(eval(&req(true)).unwrap_err().kind, "image_not_contained");
    let ok = serde_json::json!({"op": "product_then_divide", "check": true,
        "a": {"bases": [["lane", [[1], [2]]]], "out_dims": [["dim0", 4]]},
        "b": {"bases": [["lane", [[1]]]], "out_dims": [["dim0", 2]]}});
    let answer = eval(&ok).unwrap();
    assert_eq!(answer["right"], ok["a"], "{answer}");
    let bad =
        serde_json::json!({"op": "apply", "check": "yes", "a": ok["a"], "input": [["lane", 1]]});
    assert_eq!(eval(&bad).unwrap_err().kind, "bad_request");
    let misspelt = serde_json::json!({"op": "invert", "a": ok["a"], "b": ok["a"]});
    let e = eval(&misspelt).unwrap_err();
    assert_eq!(e.kind, "bad_request");
    assert!(e.message.contains("takes no argument `b`"), "{}", e.message);
    // Every query, checked or not, answers the same.
    for op in [
        "apply",
        "free_variable_masks",
        "num_consecutive_in_out",
        "is_surjective",
        "is_injective",
        "is_invertible",
        "to_string",
    ] {
        // Only `apply` takes an input; an argument an op does not take is
        // an error.
        let query = |check: bool| {
            let mut q = serde_json::json!({"op": op, "check": check, "a": ok["a"]});
            if op == "apply" {
                q["input"] = serde_json::json!([["lane", 3]]);
            }
            q
        };
        let plain = eval(&query(false)).unwrap();
        assert_eq!(eval(&query(true)).unwrap(), plain, "{op}");
        match op {
            "apply" => assert_eq!(plain, serde_json::json!([["dim0", 3]])),
            "is_invertible" => assert_eq!(plain, true),
            _ => {}
        }
    }
}
