//! The JSON request readers (`eval`, `convert --batch`, `predict
//! --batch`): a key given twice, a value of the wrong type, an integer out
//! of range, a name or a dim list no layout needs, a definitions file that
//! never ends. Each is an error naming the key, never a silent misreading.

use super::memory::peak_during;
use linear_layout::eval::{eval_line, parse_strict, typed};
use linear_layout::shrink_trace::Shrinker;
use linear_layout::{Dim, MAX_DIMS, MAX_NAME_BYTES};
use linear_layout_triton::finder::Config;
use linear_layout_triton::request::convert_line;
use serde_json::{Value, json};

fn error_of(answer: &Value) -> (&str, &str) {
    (
        answer["error"]["kind"].as_str().unwrap_or("(no error)"),
        answer["error"]["message"].as_str().unwrap_or(""),
    )
}

/// `{"op": "apply", "op": "compose"}` runs neither: the line is bad JSON
/// naming the key, at any depth.
#[test]
fn a_key_given_twice_is_an_error_naming_it() {
    for (line, key) in [
        (
            r#"{"op": "identity_1d", "op": "zeros_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0"}"#,
            "op",
        ),
        (
            r#"{"op": "identity_1d", "size": 4, "size": 8, "in_dim": "lane", "out_dim": "dim0"}"#,
            "size",
        ),
        (
            r#"{"op": "is_injective", "a": {"bases": [], "out_dims": [], "bases": [["lane", [[1]]]]}}"#,
            "bases",
        ),
    ] {
        let answer = eval_line(line);
        let (kind, message) = error_of(&answer);
        assert_eq!(kind, "bad_json", "{line}");
        assert!(
            message.contains(&format!("duplicate key `{key}`")),
            "{message}"
        );
    }
    let answer = convert_line(r##"{"attr": "#a", "shape": [4], "shape": [8]}"##);
    assert_eq!(error_of(&answer).0, "bad_json");
    assert!(
        parse_strict(r#"{"a": {"b": 1}, "c": {"b": 2}}"#).is_ok(),
        "same key, other objects"
    );
}

/// A value of the wrong type, or an integer out of range, is an error that
/// names where it is.
#[test]
fn wrong_types_and_out_of_range_integers_name_their_key() {
    for (line, says) in [
        (
            r#"{"op": "identity_1d", "size": "4", "in_dim": "lane", "out_dim": "dim0"}"#,
            "argument `size`: invalid type: string",
        ),
        (
            r#"{"op": "identity_1d", "size": 18446744073709551616, "in_dim": "lane", "out_dim": "dim0"}"#,
            "outside the 64-bit range",
        ),
        (
            r#"{"op": "identity_1d", "size": -4, "in_dim": "lane", "out_dim": "dim0"}"#,
            "argument `size`: invalid value: integer `-4`",
        ),
        (
            r#"{"op": "identity_1d", "size": 4.5, "in_dim": "lane", "out_dim": "dim0"}"#,
            "argument `size`: invalid type: floating point",
        ),
        (
            r#"{"op": "is_injective", "a": {"bases": [["lane", [[1], ["x"]]]], "out_dims": [["dim0", 4]]}}"#,
            "argument `a.bases[0][1][1][0]`: invalid type: string",
        ),
        (
            r#"{"op": "identity_1d", "size": 4, "in_dim": 7, "out_dim": "dim0"}"#,
            "argument `in_dim`: invalid type: integer `7`",
        ),
        (
            r#"{"op": "identity_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0", "check": "yes"}"#,
            "argument `check`: invalid type: string",
        ),
    ] {
        let answer = eval_line(line);
        let (kind, message) = error_of(&answer);
        assert_eq!(kind, "bad_request", "{line}: {message}");
        assert!(message.contains(says), "{line}: {message}");
    }
    // predict --batch's configuration: the key is named
    let cfg = json!({"pattern": "dot", "m": 64, "n": 64, "k": 64, "dtype": "fp16",
                     "num_warps": "4", "num_stages": 2, "arch": "sm80", "triton": "3.2"});
    let e = typed::<Config>(&cfg).unwrap_err();
    assert!(e.starts_with("`num_warps`: invalid type: string"), "{e}");
    let mut big = cfg.clone();
    big["num_warps"] = json!(4294967300u64);
    let refused = typed::<Config>(&big).map(|c| c.validate());
    assert!(
        matches!(&refused, Ok(Err(e)) if e.to_string().contains("num_warps")),
        "{refused:?}"
    );
    // convert --batch
    let answer = convert_line(r##"{"attr": "#a", "shape": [4, "8"]}"##);
    let (kind, message) = error_of(&answer);
    assert_eq!(kind, "bad_request");
    assert!(message.starts_with("`shape[1]`: invalid type"), "{message}");
}

/// A dim name larger than all the names the process keeps, and layouts
/// with more dims than any layout has, are refused before they are
/// interned or built.
#[test]
fn names_and_dim_lists_are_bounded() {
    let long = "n".repeat(MAX_NAME_BYTES + 1);
    let answer = eval_line(
        &json!({"op": "identity_1d", "size": 4, "in_dim": long, "out_dim": "dim0"}).to_string(),
    );
    assert_eq!(error_of(&answer).0, "too_many_names");
    assert_eq!(
        Dim::lookup(&long),
        None,
        "the refused name was not interned"
    );
    let many: Vec<Value> = (0..=MAX_DIMS)
        .map(|i| json!([format!("hostile-many-dims-{i}"), []]))
        .collect();
    for request in [
        json!({"op": "from_bases", "bases": many, "out_dim_names": ["dim0"]}),
        json!({"op": "from_bases", "bases": many, "out_dim_names": ["dim0"], "out_dim_sizes": [1]}),
        json!({"op": "is_injective", "a": {"bases": many, "out_dims": [["dim0", 1]]}}),
    ] {
        let answer = eval_line(&request.to_string());
        let (kind, message) = error_of(&answer);
        assert_eq!(kind, "too_large", "{message}");
        assert!(
            message.contains(&format!("the number of in-dims is {}", MAX_DIMS + 1)),
            "{message}"
        );
    }
    assert_eq!(
        Dim::lookup("hostile-many-dims-0"),
        None,
        "counted before interning"
    );
    let answer = eval_line(
        &json!({"op": "parse", "text": format!("#ttg.linear<{{lane = [[{}]]}}>", vec!["1"; MAX_DIMS + 1].join(", "))})
            .to_string(),
    );
    // (the attribute reader reports it as a parse error at its place)
    let (kind, message) = error_of(&answer);
    assert_eq!(kind, "parse");
    assert!(
        message.contains(&format!(
            "the number of out-dims is {}, larger than {MAX_DIMS}",
            MAX_DIMS + 1
        )),
        "{message}"
    );
}

/// `defs_file` naming a device that never ends (or a directory) is
/// refused at once, not read into memory.
#[test]
fn a_defs_file_that_is_not_a_file_is_refused() {
    for path in ["/dev/zero", "/", "/no/such/file"] {
        let answer =
            convert_line(&json!({"attr": "#a", "shape": [4], "defs_file": path}).to_string());
        let (kind, message) = error_of(&answer);
        assert_eq!(kind, "bad_request", "{path}");
        assert!(message.contains("cannot read defs file"), "{message}");
    }
}

/// A tensor of thousands of dims (a conversion looks each up by name:
/// quadratic in the rank) is refused before it is converted.
#[test]
fn a_rank_past_the_dim_bound_is_refused() {
    let n = MAX_DIMS + 1;
    let ones = vec!["1"; n].join(", ");
    let mut threads = vec!["1"; n - 1];
    threads.push("32");
    let order: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let attr = format!(
        "#ttg.blocked<{{sizePerThread = [{ones}], threadsPerWarp = [{}], warpsPerCTA = [{ones}], order = [{}]}}>",
        threads.join(", "),
        order.join(", ")
    );
    let answer = convert_line(&json!({"attr": attr, "shape": vec![1; n]}).to_string());
    let (kind, message) = error_of(&answer);
    assert_eq!(kind, "invalid_shape", "{message}");
    assert!(
        message.contains(&format!("rank {n}: at most {MAX_DIMS} dims")),
        "{message}"
    );
}

/// Shrinking a failing request of hundreds of parts builds its candidates
/// one at a time (a list of every candidate holds hundreds of copies of
/// the request) and stops at its budget of answers, saying so.
#[test]
fn shrinking_is_bounded_in_memory_and_answers() {
    // 300 bases on one in-dim: too many input bits
    let bases: Vec<Value> = (0..300).map(|i| json!([i % 7])).collect();
    let req =
        json!({"op": "is_injective", "a": {"bases": [["lane", bases]], "out_dims": [["dim0", 8]]}});
    let size = req.to_string().len();
    let shrinker = Shrinker::default();
    let kind = shrinker.failure_kind(&req).unwrap();
    assert_eq!(kind, "too_many_bits");
    let (_, one_copy) = peak_during(|| req.clone());
    let (cut, peak) = peak_during(|| shrinker.shrink_within(&req, &kind, 400));
    assert!(!cut.complete, "400 answers do not finish it");
    assert_eq!(
        shrinker.failure_kind(&cut.request).as_deref(),
        Some("too_many_bits")
    );
    assert!(cut.request.to_string().len() < size, "it shrank");
    // a few copies of the request, not one per candidate (over 300 here)
    assert!(
        peak < 8 * one_copy,
        "{peak} bytes held; one copy of the request is {one_copy}"
    );
}
