//! The command line, end to end.

use std::io::Write;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linear-layout"))
}

/// Runs the binary with `args`, checks that it succeeded (showing its
/// stderr when not) and returns its stdout.
fn run_ok(args: &[&str]) -> String {
    run_with(args, 0)
}

/// Runs the binary with `args`, checks its exit status (0: nothing fails,
/// 1: a failure found, 2: bad input) and returns its stdout.
fn run_with(args: &[&str], code: i32) -> String {
    let out = bin().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
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

const E1: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>";

#[test]
fn convert_prints_triton_text_json_and_view() {
    let text = run_ok(&["convert", "--shape", "64x256", E1]);
    assert!(text.contains(" - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n   register=4 -> (0, 4)\n   register=8 -> (0, 64)\n   register=16 -> (0, 128)\n   register=32 -> (32, 0)\n"), "{text}");
    assert!(text.contains(" - warp=1 -> (4, 0)\n   warp=2 -> (8, 0)\n   warp=4 -> (16, 0)\n - block is a size 1 dimension\n"), "{text}");

    let json = bin()
        .args(["convert", "--json", "--shape", "16x16", E1])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        json["bases"][1],
        serde_json::json!(["lane", [[0, 8], [0, 0], [0, 0], [1, 0], [2, 0]]])
    );

    // By default the lines stay narrow and the last says how to see the rest.
    let narrow = run_ok(&["convert", "--view", "--shape", "64x256", E1]);
    assert!(narrow.lines().all(|l| l.chars().count() <= 160), "{narrow}");
    assert!(narrow.contains("--cols 0.. the full grid)"), "{narrow}");
    // --cols 0.. gives the full grid (the new default layout is the point).
    let view = bin()
        .args([
            "convert", "--view", "--shape", "64x256", E1, "--cols", "0..",
        ])
        .output()
        .unwrap();
    let view = String::from_utf8(view.stdout).unwrap();
    // Skip the title and the column-number header.
    let row = |r: usize| view.lines().skip(2).nth(r).unwrap().to_string();
    // Row 0: thread 0 holds columns 0..8, thread 1 the next 8; column 64 is
    // thread 0's register 3 (the first repetition along dim1).
    let row0 = row(0);
    let cells: Vec<&str> = row0.split_whitespace().skip(1).collect();
    assert_eq!(cells.len(), 256);
    assert_eq!(
        (cells[0], cells[7], cells[8], cells[64], cells[128]),
        ("T0:0", "T0:7", "T1:0", "T0:8", "T0:16")
    );
    // Row 4 is warp 1 (thread 32); row 32 repeats row 0 in register 5.
    assert!(row(4).split_whitespace().nth(1) == Some("T32:0"));
    assert!(row(32).split_whitespace().nth(1) == Some("T0:32"));
}

#[test]
fn convert_draws_an_svg() {
    let path = std::env::temp_dir().join(format!("linear-layout-test-{}.svg", std::process::id()));
    run_ok(&[
        "convert",
        "--shape",
        "16x32",
        E1,
        "--svg",
        path.to_str().unwrap(),
    ]);
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert!(svg.starts_with("<svg"));
    // A background, one cell per element, a legend swatch per warp (4) and
    // one for "held by nobody".
    assert_eq!(svg.matches("<rect").count(), 1 + 16 * 32 + 5);
    assert!(
        svg.contains("dim0 4, dim1 15: thread 33 (warp 1, lane 1), register 7; held ×4: t33 r7, t37 r7, t161 r7, t165 r7"),
        "thread 33 (warp 1, lane 1) holds row 4, columns 8..16"
    );
    // The 32 x 64 tile repeats on 16 x 32: every element is held 4 times.
    assert_eq!(svg.matches("<path class=\"dup\"").count(), 16 * 32);
    // A layout too large to draw says so, and a part of it can be drawn.
    let huge = [
        "convert",
        "--shape",
        "32768x32768",
        E1,
        "--svg",
        path.to_str().unwrap(),
    ];
    let out = bin().args(huge).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rows A..B --cols C..D"));
    let mut part = huge.to_vec();
    part.extend(["--rows", "64..96", "--cols", "0..32"]);
    run_ok(&part);
    std::fs::remove_file(&path).ok();
    let out = bin()
        .args(["convert", "--shape", "32768x32768", E1, "--view"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "no table is an error, not an empty answer"
    );
}

#[test]
fn convert_rejects_bad_input_clearly() {
    for (shape, attr, needle) in [
        ("64x100", E1, "power of two"),
        ("0x64", E1, "power of two"),
        ("64", E1, "rank 2"),
        (
            "64x64",
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8]}>",
            "needs `warpsPerCTA`",
        ),
        (
            "64x64",
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 1]}>",
            "permutation",
        ),
        ("64x64", "#mma", "not defined"),
        (
            "64x64",
            "#ttg.blocked<{sizePerThread = [1, 8]",
            "line 1, column",
        ),
        ("64xx", E1, "bad shape"),
    ] {
        let out = bin()
            .args(["convert", "--shape", shape, attr])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{shape} {attr} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(needle),
            "{shape} {attr}: expected `{needle}` in: {err}"
        );
    }
}

#[test]
fn convert_batch_answers_every_line() {
    let mut child = bin()
        .args(["convert", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = [
        format!(r#"{{"attr": "{}", "shape": [16, 16]}}"#, E1.replace('"', "\\\"")),
        r##"{"attr": "#triton_gpu.dot_op<{opIdx = 0, parent = #triton_gpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>", "shape": [16, 16], "triton": "3.2"}"##.to_string(),
        "garbage".to_string(),
        r##"{"attr": "#mma", "shape": [64, 64], "triton": "3.2", "defs": "#mma = #triton_gpu.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 24, 16]}>"}"##.to_string(),
    ]
    .join("\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].get("ok").is_some());
    assert!(lines[1]["none"].as_str().unwrap().contains("blocked"));
    assert_eq!(lines[2]["error"]["kind"], "bad_json");
    assert_eq!(lines[2]["error"]["line"], 3);
    assert_eq!(lines[3]["error"]["kind"], "triton_failure");
    assert!(
        lines[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("n == 8 || n == 16")
    );
}

#[test]
fn shrink_trace_minimizes_a_failing_request() {
    let path =
        std::env::temp_dir().join(format!("linear-layout-trace-{}.jsonl", std::process::id()));
    let lines = [
        r#"{"op": "identity_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0"}"#,
        r#"{"op": "invert_and_compose", "a": {"bases": [["register", [[1, 0], [2, 0]]], ["warp", [[0, 1], [4, 0]]]], "out_dims": [["dim0", 8], ["dim1", 2]]}, "b": {"bases": [["lane", [[1, 0], [2, 0]]], ["block", [[0, 1]]]], "out_dims": [["dim0", 8], ["dim1", 2]]}}"#,
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = bin()
        .args(["shrink-trace", path.to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failure found: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("failure: image_not_contained"), "{text}");
    // Only the basis that leaves b's image (4 on dim0) is needed.
    assert!(text.contains(r#"[[4,0]]"#), "{text}");
    assert!(!text.contains("register"), "{text}");
    assert!(
        text.contains("fn shrunk_trace()") && text.contains("invert_and_compose(build(req['b']))"),
        "{text}"
    );
}

#[test]
fn check_ttgir_json_names_the_line_op_and_verdict() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/compile/");
    let run = |file: &str, triton: &str| {
        let out = bin()
            .args([
                "check-ttgir",
                &format!("{data}{file}"),
                "--triton",
                triton,
                "--json",
            ])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), v)
    };
    let (code, v) = run("fla-3.2.0-w8.ttgir", "3.2");
    assert_eq!(code, Some(1), "findings exit 1, as in the text form");
    let findings = v["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    for f in findings {
        assert_eq!(f["op"], "local_alloc");
        assert_eq!(f["verdict"], "abort");
        assert_eq!(f["verdict_from_source"], "abort");
        assert_eq!(f["failure"]["site"], "stmatrix");
        assert!(
            f["failure"]["location"]
                .as_str()
                .unwrap()
                .ends_with("v3.2.0:lib/Tools/LinearLayout.cpp:562")
        );
        assert!(f["line"].as_u64().unwrap() > 0);
    }
    let (code, v) = run("fla-3.2.0-w4.ttgir", "3.2");
    assert_eq!(code, Some(0));
    assert_eq!(v["findings"], serde_json::json!([]));
    assert_eq!(v["triton"], "3.2");
}

#[test]
fn shrink_trace_reads_one_request_spread_over_lines_as_an_eval_artifact_may_be() {
    let path = std::env::temp_dir().join(format!("linear-layout-artifact-{}", std::process::id()));
    let request = serde_json::json!({
        "op": "invert_and_compose",
        "a": {"bases": [["register", [[1, 0], [2, 0]]], ["warp", [[0, 1], [4, 0]]]],
              "out_dims": [["dim0", 8], ["dim1", 2]]},
        "b": {"bases": [["lane", [[1, 0], [2, 0]]], ["block", [[0, 1]]]],
              "out_dims": [["dim0", 8], ["dim1", 2]]}
    });
    std::fs::write(&path, serde_json::to_string_pretty(&request).unwrap()).unwrap();
    let out = bin()
        .args(["shrink-trace", path.to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("failure: image_not_contained"), "{text}");
    assert!(text.contains(r#"[[4,0]]"#), "{text}");
}

#[test]
fn search_maps_the_pre_5905_build() {
    let json = run_with(
        &[
            "search",
            "--quiet",
            "--variant",
            "pre-5905",
            "--pattern",
            "inductor-3d",
            "--json",
        ],
        1,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let copy = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["site"] == "cp_async")
        .expect("a cp.async group");
    assert_eq!(copy["release"], "3.3");
    assert_eq!(copy["minimal"]["variant"], "pre-5905");
    let fixes = copy["fixes"].as_array().unwrap();
    let count: u64 = fixes.iter().map(|f| f["count"].as_u64().unwrap()).sum();
    assert_eq!(count, copy["count"].as_u64().unwrap());
    assert!(fixes.iter().all(|f| f["fixed_in"] == "3.3"), "{fixes:?}");
    assert!(fixes.iter().all(|f| f["pr"] == "#5905"), "{fixes:?}");
    let refused = bin()
        .args([
            "search",
            "--quiet",
            "--variant",
            "pre-5905",
            "--triton",
            "3.2",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--triton 3.3"));
}

#[test]
fn shrink_trace_on_a_clean_ops_corpus_seed_says_no_failure() {
    let seed = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/ops/seed-1");
    // Nothing fails: status 0, and it says so.
    let text = run_ok(&["shrink-trace", seed]);
    assert!(text.starts_with("no failure"), "{text}");
    // Read as JSON, the same bytes hold no request at all: bad input.
    let out = bin()
        .args(["shrink-trace", "--format", "eval", seed])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The report counts each configuration's fix on its own: sm100's chooser
/// failures in 3.1 are compiled by 3.3 thanks to the chooser, except an fp8
/// dot with N = 16, which 3.3 refuses at its tcgen05 operand and 3.4
/// compiles thanks to that site's change; with K = 16 nothing compiles it
/// (the front end refuses 8-bit K < 32 from 3.3).
#[test]
fn search_counts_each_fixing_release_on_its_own() {
    let args = [
        "search",
        "--quiet",
        "--arch",
        "sm100",
        "--triton",
        "3.1,3.3,3.4",
        "--pattern",
        "dot",
        "--dtype",
        "fp8e4nv",
        "--sizes",
        "16,64",
        "--num-warps",
        "4",
        "--num-stages",
        "1",
    ];
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let v: serde_json::Value = serde_json::from_str(&run_with(&json_args, 1)).unwrap();
    let chooser = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["site"] == "mma_version" && g["release"] == "3.1")
        .expect("3.1's chooser group");
    let fixes: Vec<(u64, Option<&str>, &str, Option<&str>)> = chooser["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["count"].as_u64().unwrap(),
                f["fixed_in"].as_str(),
                f["change"].as_str().unwrap(),
                f["blocker"].as_str(),
            )
        })
        .collect();
    // M, N, K in {16, 64}: K = 16 is refused by 3.3's and 3.4's front end
    // (8-bit K < 32); of the four with K = 64, M = 64 and N = 16 takes
    // tcgen05 in 3.3 and fails there.
    assert_eq!(
        fixes,
        [
            (
                4,
                None,
                "no modelled release compiles it (Triton 3.9 fails at dot_k)",
                None
            ),
            (
                3,
                Some("3.3"),
                "the MMA version chooser knows Blackwell (v5 then v2 below cc 110, v2 alone below 130)",
                Some("mma_version")
            ),
            (
                1,
                Some("3.4"),
                "the NVMMA encoding builder no longer gives up on an MMA v5 operand narrower than 32 bytes",
                Some("tcgen05_operand_3_3")
            ),
        ]
    );
    // The text says the same.
    let text = run_with(&args, 1);
    assert!(
        text.contains("    1 fixed in 3.4: the NVMMA encoding builder no longer gives up on an MMA v5 operand narrower than 32 bytes (they fail at tcgen05_operand_3_3 until then)"),
        "{text}"
    );
}

/// The `3.N` release names in `text` (a `3.` with digits after it, not
/// part of a longer number).
fn release_names(text: &str) -> std::collections::BTreeSet<String> {
    let bytes = text.as_bytes();
    let mut names = std::collections::BTreeSet::new();
    for (i, _) in text.match_indices("3.") {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        if before.is_some_and(|b| b.is_ascii_digit() || b == b'.') {
            continue;
        }
        let digits: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        if !digits.is_empty() {
            names.insert(format!("3.{digits}"));
        }
    }
    names
}

/// CLI help is generated from the release table: every release named in
/// any command's help is a modelled one, and every command that takes
/// `--triton` names every modelled release.
#[test]
fn help_text_names_exactly_the_modelled_releases() {
    let table: std::collections::BTreeSet<String> = linear_layout_triton::RELEASES
        .iter()
        .flat_map(|r| r.minors.iter().map(|m| m.to_string()))
        .collect();
    let commands = [
        "show",
        "eval",
        "convert",
        "predict",
        "search",
        "shrink",
        "repro",
        "check-ttgir",
        "shrink-trace",
        "sites",
        "releases",
        "print-attr",
    ];
    for cmd in commands {
        let help = run_ok(&[cmd, "--help"]);
        let named = release_names(&help);
        assert!(
            named.is_subset(&table),
            "`{cmd} --help` names releases the table lacks: {:?}",
            named.difference(&table).collect::<Vec<_>>()
        );
        if help.contains("--triton") {
            assert_eq!(named, table, "`{cmd} --help` does not list every release");
        }
    }
    // The release error lists them too.
    let out = bin().args(["predict", "--triton", "2.9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(release_names(&String::from_utf8_lossy(&out.stderr)), table);
}

#[test]
fn releases_prints_the_table_for_people_and_for_scripts() {
    use linear_layout_triton::{RELEASES, Release};
    let json: serde_json::Value = serde_json::from_str(&run_ok(&["releases", "--json"])).unwrap();
    assert_eq!(json, linear_layout_triton::releases_json());
    let wheels: Vec<&str> = RELEASES.iter().map(|r| r.wheel).collect();
    assert_eq!(run_ok(&["releases", "--wheels"]).trim(), wheels.join(" "));
    let multi: Vec<&str> = RELEASES
        .iter()
        .filter(|r| r.release.models_multi_cta())
        .map(|r| r.wheel)
        .collect();
    assert!(!multi.is_empty() && multi.len() < wheels.len());
    assert_eq!(
        run_ok(&["releases", "--wheels", "--multi-cta"]).trim(),
        multi.join(" ")
    );
    let filtered: serde_json::Value =
        serde_json::from_str(&run_ok(&["releases", "--json", "--multi-cta"])).unwrap();
    let names: Vec<&str> = filtered["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = Release::ALL
        .into_iter()
        .filter(|r| r.models_multi_cta())
        .map(|r| r.name())
        .collect();
    assert_eq!(names, want);
    // One line per release after the heading, each naming its wheel and tag.
    let text = run_ok(&["releases"]);
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(lines.len(), RELEASES.len());
    for (line, info) in lines.iter().zip(&RELEASES) {
        assert!(line.starts_with(info.name), "{line}");
        assert!(
            line.contains(info.wheel) && line.contains(info.tag),
            "{line}"
        );
    }
    assert_eq!(run_ok(&["sites", "--releases"]), text);
}

#[test]
fn the_configuration_flags_are_the_configuration_fields() {
    let fields = linear_layout_triton::kernel_fields::config_fields();
    for cmd in ["predict", "shrink", "repro"] {
        let help = run_ok(&[cmd, "--help"]);
        let flags: std::collections::BTreeSet<String> = help
            .split_whitespace()
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
                    .to_string()
            })
            .collect();
        for field in fields {
            let flag = format!("--{}", field.replace('_', "-"));
            assert!(
                flags.contains(&flag),
                "`{cmd} --help` lacks {flag}: {flags:?}"
            );
        }
    }
    let help = run_ok(&["predict", "--help"]);
    for field in fields {
        assert!(
            help.contains(&format!("\"{field}\"")),
            "--batch's help lacks {field}"
        );
    }
}

#[test]
fn print_attr_spells_an_attribute_for_each_release() {
    let nvmma = r#"{"kind": "nvmma_shared", "swizzlingByteWidth": 128, "transposed": false, "elementBitWidth": 16}"#;
    assert_eq!(
        run_ok(&["print-attr", "--triton", "3.2", nvmma]),
        "#triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>\n"
    );
    assert_eq!(
        run_ok(&["print-attr", nvmma]),
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>\n"
    );
    let out = bin()
        .args(["print-attr", r#"{"kind": "blocked"}"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("blocked needs `sizePerThread`"), "{err}");
    // A batch answers each line, echoing ids, the bad ones with an error.
    let input = format!(
        "{{\"id\": 7, \"attr\": {nvmma}, \"triton\": \"3.3.1\"}}\n{{\"attr\": {{\"kind\": \"x\"}}}}\nnot json\n"
    );
    let (status, stdout, _) = run_input(&["print-attr", "--batch"], input.as_bytes());
    assert_eq!(status, Some(0));
    let answers: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0]["id"], 7);
    assert_eq!(
        answers[0]["ok"],
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
    );
    assert_eq!(answers[1]["error"]["kind"], "bad_attr");
    assert_eq!(answers[2]["error"]["kind"], "bad_json");
}

/// Runs the binary with `args` and `input` on stdin; (status, stdout, stderr).
fn run_input(args: &[&str], input: &[u8]) -> (Option<i32>, String, String) {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";

/// A slice of a slice of … `depth` deep.
fn deep_slice(depth: usize) -> String {
    let mut s = BLOCKED.to_string();
    for _ in 0..depth {
        s = format!("#ttg.slice<{{dim = 0, parent = {s}}}>");
    }
    s
}

#[test]
fn deep_nesting_is_a_clear_error_not_a_crash() {
    let path = std::env::temp_dir().join(format!("linear-layout-deep-{}.txt", std::process::id()));
    std::fs::write(&path, deep_slice(10_000)).unwrap();
    let out = bin()
        .args(["convert", "--shape", "16"])
        .arg(format!("@{}", path.display()))
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nesting deeper than 256 levels"), "{err}");
    // 100,000 open brackets.
    let brackets = format!("#ttg.blocked<{{sizePerThread = {}", "[".repeat(100_000));
    let out = bin()
        .args(["convert", "--shape", "16", &brackets])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nesting deeper"));
}

#[test]
fn an_alias_chain_is_read_in_linear_time_and_stops_at_the_limit() {
    let mut module = format!("#s0 = {BLOCKED}\n");
    for i in 1..10_000 {
        module += &format!("#s{i} = #ttg.slice<{{dim = 0, parent = #s{}}}>\n", i - 1);
    }
    module += "module attributes {\"ttg.num-warps\" = 4 : i32} {}\n";
    let (code, _, err) = run_input(&["check-ttgir", "-"], module.as_bytes());
    assert_eq!(code, Some(2));
    assert!(err.contains("nesting deeper than 256 levels"), "{err}");
    // Many definitions that share one parent: all read, nothing deep.
    let mut wide = format!("#p = {BLOCKED}\n");
    for i in 0..20_000 {
        wide += &format!("#d{i} = #ttg.dot_op<{{opIdx = 0, parent = #p, kWidth = 2}}>\n");
    }
    wide += "module attributes {\"ttg.num-warps\" = 4 : i32} {}\n";
    let (code, out, err) = run_input(&["check-ttgir", "-"], wide.as_bytes());
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("no modelled check fails"), "{out}");
}

#[test]
fn a_batch_answers_every_line_in_order() {
    let deep = deep_slice(300).replace('"', "\\\"");
    let mut input = Vec::new();
    input.extend_from_slice(
        format!("{{\"attr\": \"{BLOCKED}\", \"shape\": [16, 16], \"id\": 7}}\n").as_bytes(),
    );
    input.extend_from_slice(b"\xff\xfe not text\n");
    input.extend_from_slice(b"\n");
    input.extend_from_slice(format!("{{\"attr\": \"{deep}\", \"shape\": [16]}}\n").as_bytes());
    input.extend_from_slice(
        format!("{{\"attr\": \"{BLOCKED}\", \"shape\": [16, 16], \"colour\": 1}}\n").as_bytes(),
    );
    input.extend_from_slice(format!("{{\"attr\": \"{BLOCKED}\", \"shape\": [16, 16]}}").as_bytes());
    let (code, out, err) = run_input(&["convert", "--batch"], &input);
    assert_eq!(code, Some(0), "{err}");
    let answers: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 6, "{out}");
    assert_eq!(answers[0]["id"], 7);
    assert!(answers[0].get("ok").is_some());
    assert_eq!(answers[1]["error"]["kind"], "bad_line");
    assert_eq!(answers[1]["error"]["line"], 2);
    assert_eq!(answers[2]["error"]["kind"], "empty_line");
    assert!(
        answers[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nesting deeper")
    );
    assert_eq!(
        answers[4]["error"]["kind"], "bad_request",
        "unknown fields are refused"
    );
    assert!(answers[5].get("ok").is_some());
    // eval refuses an argument its op does not take, and describes its ops.
    let (_, out, _) = run_input(
        &["eval"],
        br#"{"op": "identity_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0", "sise": 8}"#,
    );
    assert!(out.contains("takes no argument `sise`"), "{out}");
    let described = run_ok(&["eval", "--describe"]);
    assert!(
        described.contains("strided_1d(size, stride, in_dim, out_dim)"),
        "{described}"
    );
    // predict --batch too: the failing line makes the status 1.
    let cfg = r#"{"pattern": "chain-b", "m": 64, "n": 64, "k": 64, "x": 64, "dtype": "bf16", "num_warps": 8, "num_stages": 2, "arch": "sm90", "triton": "3.2"}"#;
    let (code, out, _) = run_input(
        &["predict", "--batch"],
        format!("{cfg}\nnot json\n").as_bytes(),
    );
    assert_eq!(code, Some(1));
    let answers: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers[0]["failure"]["site"], "stmatrix");
    assert_eq!(answers[1]["error"]["kind"], "bad_json");
}

#[test]
fn a_closed_stdout_ends_a_batch_quietly() {
    let mut child = bin()
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let line = br#"{"op": "identity_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0"}"#;
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    stdin.write_all(line).unwrap();
    stdin.write_all(b"\n").unwrap();
    let mut first = [0u8; 8];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let writer = std::thread::spawn(move || {
        for _ in 0..20_000 {
            if stdin
                .write_all(line)
                .and_then(|()| stdin.write_all(b"\n"))
                .is_err()
            {
                break;
            }
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn search_refuses_or_skips_values_predict_refuses() {
    let out = bin()
        .args(["search", "--quiet", "--pattern", "dot", "--sizes", "2048"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--sizes 2048"), "{err}");
    let json = run_with(
        &[
            "search",
            "--quiet",
            "--json",
            "--skip-invalid",
            "--pattern",
            "dot",
            "--sizes",
            "16,2048,1",
            "--num-stages",
            "0,1",
            "--num-warps",
            "4,64",
            "--arch",
            "sm80",
            "--dtype",
            "fp16",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["skipped"].as_array().unwrap().len(), 4, "{v}");
    // One configuration (16x16x16, 4 warps, 1 stage) in each modelled release.
    assert_eq!(v["total"], linear_layout_triton::RELEASES.len());
}

/// A configuration fixed in one release and broken again in a later one is
/// a regression, and its fix says so.
#[test]
fn search_reports_regressions() {
    let json = run_with(
        &[
            "search",
            "--quiet",
            "--json",
            "--pattern",
            "dot",
            "--dtype",
            "int8",
            "--sizes",
            "16",
            "--num-warps",
            "4",
            "--num-stages",
            "1",
            "--arch",
            "sm80",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let regression = v["regressions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["site"] == "dot_k")
        .expect("the 8-bit K check comes back in 3.3");
    assert_eq!(
        (
            regression["passes_in"].as_str(),
            regression["fails_in"].as_str()
        ),
        (Some("3.2"), Some("3.3"))
    );
    let group = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["release"] == "3.1" && g["site"] == "dot_k")
        .expect("3.1 refuses int8 K = 16");
    assert_eq!(group["fixes"][0]["fixed_in"], "3.2");
    assert_eq!(group["fixes"][0]["broken_again"]["release"], "3.3");
}

#[test]
fn check_ttgir_reads_stdin_and_refuses_what_is_not_ttgir() {
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/compile/fla-3.2.0-w8.ttgir"
    );
    let text = std::fs::read(data).unwrap();
    let (code, out, _) = run_input(&["check-ttgir", "-", "--triton", "3.2"], &text);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("<stdin>:") && out.contains("stmatrix"),
        "{out}"
    );
    // Read as 3.9, the dump's `triton_gpu.` spelling is another release's.
    let (_, _, err) = run_input(&["check-ttgir", "-", "--triton", "3.9"], &text);
    assert!(
        err.contains("warning") && err.contains("triton_gpu"),
        "{err}"
    );
    for not_ttgir in [&b""[..], b"hello\n", b"def kernel(): pass\n"] {
        let (code, _, err) = run_input(&["check-ttgir", "-"], not_ttgir);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("no TTGIR module"), "{err}");
    }
}

#[test]
fn predict_gives_every_release_by_default_and_exits_1_on_a_failure() {
    let args = [
        "predict",
        "--pattern",
        "chain-b",
        "--m",
        "64",
        "--n",
        "64",
        "--k",
        "64",
        "--x",
        "64",
        "--dtype",
        "bf16",
        "--num-warps",
        "8",
        "--num-stages",
        "2",
        "--arch",
        "sm90",
    ];
    let text = run_with(&args, 1);
    for release in linear_layout_triton::RELEASES.iter() {
        assert!(
            text.contains(&format!("\n  {:<5} ", release.name)),
            "{text}"
        );
    }
    let mut ok = args.to_vec();
    ok.extend(["--triton", "3.4"]);
    assert!(run_ok(&ok).contains("verdict: ok"));
}

#[test]
fn messages_say_what_is_wrong() {
    let (_, out, _) = run_input(
        &["eval"],
        br#"{"op": "strided_1d", "size": 4294967296, "stride": 4294967296, "in_dim": "register", "out_dim": "dim0"}"#,
    );
    assert!(
        out.contains("log2(size × stride) is 64, larger than 63"),
        "{out}"
    );
    let (_, out, _) = run_input(
        &["eval"],
        br#"{"op": "from_bases", "bases": [["register", [[9223372036854775808]]]], "out_dim_names": ["dim0"]}"#,
    );
    assert!(
        out.contains("is 9223372036854775808, larger than 9223372036854775807"),
        "{out}"
    );
    let out = bin()
        .args(["convert", "--shape", "18446744073709551616x2", BLOCKED])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is too large"));
}

/// `--num-ctas` reaches the finder's CTA planning: a chain's second dot
/// fails PlanCTA from 3.4 to 3.8 (the 3.4.0 – 3.8.0 wheels assert on it,
/// `ctas-triton-*.jsonl`), 3.9 plans each dot on its own; below sm90 the
/// count is refused once, with the reason.
#[test]
fn num_ctas_reaches_cta_planning() {
    let chain = [
        "predict",
        "--pattern",
        "chain-a",
        "--m",
        "16",
        "--n",
        "16",
        "--k",
        "16",
        "--x",
        "16",
        "--dtype",
        "fp16",
        "--num-warps",
        "4",
        "--num-stages",
        "1",
        "--arch",
        "sm90",
        "--num-ctas",
        "2",
        "--json",
        "--triton",
    ];
    for (release, code) in [("3.4", 1), ("3.8", 1), ("3.9", 0)] {
        let mut args = chain.to_vec();
        args.push(release);
        let out = run_with(&args, code);
        let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(v["config"]["num_ctas"], 2, "{out}");
        let site = v["failure"]["site"].as_str();
        assert_eq!(site, (code == 1).then_some("plan_cta"), "{release}: {out}");
    }
    let out = bin()
        .args([
            "predict",
            "--pattern",
            "dot",
            "--arch",
            "sm80",
            "--num-ctas",
            "2",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("needs sm90 or later").count(), 1, "{err}");
}

/// 101-3292-min (`notes/findings/gpu-shared-linear-xor.md`): wrong on the
/// H100 with 3.6–3.8, right with 3.9.
const XOR_BUFFER_MODULE: &str = r#"#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S0 = #ttg.shared_linear<{offset = [[1, 0], [1, 3], [0, 2], [0, 4]]}, alignment = 16>
#L1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    %m2 = ttg.local_alloc %v1 : (tensor<2x8xf16, #L0>) -> !ttg.memdesc<2x8xf16, #S0, #smem>
    %v3 = ttg.local_load %m2 : !ttg.memdesc<2x8xf16, #S0, #smem> -> tensor<2x8xf16, #L1>
}
"#;

#[test]
fn check_ttgir_reports_a_miscompile_as_wrong_with_exit_status_1() {
    let (code, out, err) = run_input(
        &["check-ttgir", "--triton", "3.7", "-"],
        XOR_BUFFER_MODULE.as_bytes(),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(out.contains("site shared_linear_xor"), "{out}");
    assert!(out.contains("Triton prints nothing"), "{out}");
    assert!(out.contains("compiling this file: wrong"), "{out}");
    let (code, out, _) = run_input(
        &["check-ttgir", "--triton", "3.9", "-"],
        XOR_BUFFER_MODULE.as_bytes(),
    );
    assert_eq!(code, Some(0));
    assert!(out.contains("no modelled check fails"), "{out}");
}

#[test]
fn every_command_says_its_exit_status_in_its_help() {
    let commands = [
        "show",
        "eval",
        "convert",
        "predict",
        "search",
        "shrink",
        "repro",
        "check-ttgir",
        "shrink-trace",
        "sites",
        "scan",
        "explain",
        "envs",
    ];
    for cmd in commands {
        let help = run_ok(&[cmd, "--help"]);
        // `explain` always has an answer or says it has none (3), never 0
        let first = if cmd == "explain" { "1 " } else { "0 " };
        assert!(
            help.contains(&format!("Exit status: {first}")),
            "`{cmd} --help`: {help}"
        );
        // 1 where the command finds or predicts failures, then 2 for bad input
        assert!(help.contains(", 2 "), "`{cmd} --help`: {help}");
    }
}

#[test]
fn repro_exits_1_when_it_predicts_a_failure_and_0_when_not() {
    let dir = std::env::temp_dir().join(format!("linear-layout-repro-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    // int8 dots with K = 16 are refused by 3.1 and compiled by 3.2
    let config = [
        "repro",
        "--pattern",
        "dot",
        "--m",
        "16",
        "--n",
        "16",
        "--k",
        "16",
        "--dtype",
        "int8",
        "--num-warps",
        "4",
        "--num-stages",
        "1",
        "--arch",
        "sm80",
        "--out",
        out,
    ];
    let fails = run_with(&[&config[..], &["--triton", "3.1"]].concat(), 1);
    assert!(
        fails.contains("predicted for") && fails.contains("dot_k"),
        "{fails}"
    );
    let compiles = run_with(&[&config[..], &["--triton", "3.2"]].concat(), 0);
    assert!(compiles.contains(": ok"), "{compiles}");
    assert!(dir.join("repro.py").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn predict_for_one_release_shows_the_fix_and_the_workaround() {
    let out = run_with(
        &[
            "predict",
            "--pattern",
            "dot",
            "--m",
            "16",
            "--n",
            "16",
            "--k",
            "16",
            "--dtype",
            "int8",
            "--num-warps",
            "4",
            "--num-stages",
            "1",
            "--arch",
            "sm80",
            "--triton",
            "3.1",
        ],
        1,
    );
    assert!(out.contains("\nfix:     fixed in 3.2"), "{out}");
    assert!(out.contains("\nworkaround: "), "{out}");
}

#[test]
fn sites_prints_a_plain_table_and_markdown_only_when_asked() {
    let plain = run_ok(&["sites"]);
    assert!(plain.starts_with("site "), "{plain}");
    assert!(!plain.contains('|'));
    let markdown = run_ok(&["sites", "--markdown"]);
    assert!(markdown.starts_with("# Failure sites"));
}

/// `envs` lists the managed environments of a directory (none, here),
/// refuses a release that does not exist, and removes nothing it was not
/// asked to.
#[test]
fn envs_lists_and_refuses_what_is_not_a_release() {
    let dir = std::env::temp_dir().join(format!("linear-layout-envs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("venv-3.2.0")).unwrap();
    std::fs::write(dir.join("venv-3.2.0/pyvenv.cfg"), "home = /usr\n").unwrap();
    std::fs::create_dir_all(dir.join("mine")).unwrap();
    let d = dir.to_str().unwrap();
    let out = run_ok(&["envs", "--venv-dir", d]);
    assert!(
        out.contains("triton==3.2.0") && out.contains("(incomplete)"),
        "{out}"
    );
    let json = run_ok(&["envs", "--venv-dir", d, "--json"]);
    let list: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(list[0]["wheel"], "3.2.0");
    run_with(&["envs", "--venv-dir", d, "--remove", "2.0"], 2);
    let out = run_ok(&["envs", "--venv-dir", d, "--remove", "3.9"]);
    assert!(out.contains("nothing to remove"), "{out}");
    let out = run_ok(&["envs", "--venv-dir", d, "--remove", "all"]);
    assert!(out.contains("removed triton==3.2.0"), "{out}");
    assert!(!dir.join("venv-3.2.0").exists() && dir.join("mine").is_dir());
    let _ = std::fs::remove_dir_all(&dir);
}
