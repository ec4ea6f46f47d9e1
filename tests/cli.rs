//! The command line, end to end.

use std::io::Write;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linear-layout"))
}

fn eval_lines(input: &str) -> (Vec<serde_json::Value>, std::process::ExitStatus) {
    let mut child = bin()
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (lines, out.status)
}

#[test]
fn eval_answers_every_line_and_survives_bad_ones() {
    let input = [
        r#"{"op": "identity_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0"}"#,
        r#"this is not json"#,
        r#"{"op": "identity_1d", "size": 3, "in_dim": "lane", "out_dim": "dim0"}"#,
        r#"{"op": "identity_1d", "size": -4, "in_dim": "lane", "out_dim": "dim0"}"#,
        r#"{"op": "from_bases", "bases": [["lane", [[4]]]], "out_dim_names": ["dim0"], "out_dim_sizes": [4]}"#,
        r#"{"op": "reshape_outs", "a": {"bases": [["lane", [[1], [2]]]], "out_dims": [["dim0", 4]]}, "dims": [["dim0", 2]]}"#,
        r#"{"op": "from_bases", "bases": [["r", [[1],[2],[4],[8],[16],[32],[64],[128],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1],[1]]]], "out_dim_names": ["o"], "out_dim_sizes": [256], "require_surjective": false}"#,
        r#"{"op": "nope"}"#,
        r#"[]"#,
        r#"{"op": "compose", "a": {"bases": [["lane", [[1]]]], "out_dims": [["dim0", 2]]}, "b": {"bases": [["x", [[1]]]], "out_dims": [["y", 2]]}}"#,
        &format!(r#"{{"op": "is_injective", "a": {{"bases": [["r", [{}]]], "out_dims": [["o", 1]]}}}}"#, vec!["[0]"; 64].join(",")),
    ]
    .join("\n");
    let (lines, status) = eval_lines(&input);
    assert!(status.success());
    assert_eq!(lines.len(), 11);
    assert!(lines[0].get("ok").is_some());
    let kinds: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["error"]["kind"].as_str().unwrap_or("(not an error)"))
        .collect();
    assert_eq!(
        kinds,
        [
            "bad_json",
            "not_power_of_two",
            "bad_request",
            "component_out_of_range",
            "total_size_mismatch",
            "too_many_bits",
            "unknown_op",
            "bad_request",
            "dim_set_mismatch",
            "too_large"
        ]
    );
    assert_eq!(
        lines[5]["error"]["message"],
        "reshape_outs: new out-dims [dim0: 2] hold 2 elements, but the layout's out-dims [dim0: 4] hold 4"
    );
}

#[test]
fn show_prints_text_matrix_and_table() {
    let out = bin().args(["show", r#"{"bases": [["register", [[0, 1]]], ["lane", [[1, 0]]]], "out_dims": [["dim0", 2], ["dim1", 2]]}"#]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(" - register=1 -> (0, 1)\n - lane=1 -> (1, 0)\nwhere out dims are: [dim0 (size 2), dim1 (size 2)]"), "{text}");
    assert!(text.contains("T0:0 T0:1"), "{text}");
    assert!(text.contains("T1:0 T1:1"), "{text}");
}

#[test]
fn show_accepts_every_format_and_rejects_garbage() {
    for layout in [
        "#ttg.linear<{register = [[0, 1]], lane = [[1, 0]], warp = [], block = []}>",
        "\n - register=1 -> (0, 1)\n - lane=1 -> (1, 0)\nwhere out dims are: [dim0 (size 2), dim1 (size 2)]",
    ] {
        let out = bin().args(["show", layout]).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = bin()
        .args(["show", "#ttg.linear<{register = [[0, 1]"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1, column"));
}

#[test]
fn show_without_arguments_shows_the_example() {
    let out = bin().arg("show").output().unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("where out dims are: [dim0 (size 32), dim1 (size 8)]")
    );
}
