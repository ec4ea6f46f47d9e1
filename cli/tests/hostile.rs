//! Hostile input from the shell: output paths that are mistakes or traps,
//! logs that try to drive the terminal or hold bytes that are not UTF-8,
//! modules Triton never writes, batches with repeated keys and wrong
//! types, a process fed endless fresh names. Each case states the exit
//! status, what is printed, and what is (not) written. The library side is
//! `tests/hostile/`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linear-layout"))
}

/// Runs with `input` on stdin.
fn run(args: &[&str], input: &[u8]) -> Output {
    run_in(None, args, input)
}

fn run_in(dir: Option<&Path>, args: &[&str], input: &[u8]) -> Output {
    let mut cmd = bin();
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd
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
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// No byte of `s` is a control character a terminal acts on (newline and
/// tab aside), nor an 8-bit C1 control.
fn terminal_safe(s: &str) -> bool {
    !s.chars().any(|c| {
        (c.is_control() && c != '\n' && c != '\t') || ('\u{202a}'..='\u{202e}').contains(&c)
    })
}

/// A fresh scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ll-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A configuration whose reproducer has a TTGIR module too (3.2's stmatrix
/// failure).
const REPRO: [&str; 14] = [
    "repro",
    "--pattern",
    "chain-b",
    "--m",
    "64",
    "--n",
    "16",
    "--k",
    "16",
    "--x",
    "64",
    "--num-warps",
    "8",
    "--triton",
];

fn repro_args(out: &str) -> Vec<&str> {
    let mut args = REPRO.to_vec();
    args.extend(["3.2", "--out", out]);
    args
}

/// `--out ""` once wrote `/repro.py`: an empty, blank, padded or
/// control-character path is refused (exit 2) and nothing is written.
#[test]
fn repro_refuses_paths_that_are_mistakes() {
    let dir = scratch("repro-paths");
    for (out, says) in [
        ("", "the path is empty"),
        ("   ", "the path is empty"),
        (" out", "starts or ends with spaces"),
        ("out\n", "starts or ends with spaces"),
        ("o\u{1b}[2Jut", "control characters"),
    ] {
        let o = run_in(Some(&dir), &repro_args(out), b"");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{out:?}: {err}");
        assert!(err.contains(says), "{out:?}: {err}");
        assert!(terminal_safe(&err), "{err:?}");
        assert!(o.stdout.is_empty());
        assert!(
            listing(&dir).is_empty(),
            "{out:?} wrote {:?}",
            listing(&dir)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A symbolic link planted where an output goes is never written through:
/// the run is refused (exit 2) and the link's target keeps its content; an
/// output directory that is a link is refused too.
#[test]
fn repro_never_writes_through_a_planted_link() {
    let dir = scratch("repro-links");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    for name in ["repro.py", "repro.ttgir"] {
        let link = out.join(name);
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let o = run(&repro_args(out.to_str().unwrap()), b"");
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        std::fs::remove_file(&link).unwrap();
    }
    // the directory itself a link to another
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let linked = dir.join("linked");
    std::os::unix::fs::symlink(&elsewhere, &linked).unwrap();
    let o = run(&repro_args(linked.to_str().unwrap()), b"");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("is a symbolic link"));
    assert!(listing(&elsewhere).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Files are written whole and renamed into place: after a run (and a
/// second over the first's files) the directory holds exactly the two
/// outputs, no temporary file; the printed commands quote the path so the
/// shell reads it back unchanged.
#[test]
fn repro_writes_atomically_and_quotes_what_it_prints() {
    let dir = scratch("repro-atomic");
    let out = dir.join("it's a dir");
    let out_s = out.to_str().unwrap();
    // the 3.2 stmatrix case: predicted to fail, so 1, with both files written
    let first = run(&repro_args(out_s), b"");
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    let script = std::fs::read(out.join("repro.py")).unwrap();
    let second = run(&repro_args(out_s), b"");
    assert_eq!(second.status.code(), Some(1));
    assert_eq!(listing(&out), ["repro.py", "repro.ttgir"]);
    assert_eq!(std::fs::read(out.join("repro.py")).unwrap(), script);
    // `python3 ARG)`: ARG, read by the shell, names the script
    let stdout = text(&second.stdout);
    let arg = stdout
        .lines()
        .next()
        .and_then(|l| l.split("python3 ").nth(1))
        .and_then(|a| a.strip_suffix(')'))
        .unwrap();
    let check = Command::new("sh")
        .args(["-c", &format!("test -f {arg}")])
        .status()
        .unwrap();
    assert!(check.success(), "{arg}");
    let _ = std::fs::remove_dir_all(&dir);
}

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";

/// `convert --svg FILE`: the same care as `repro`.
#[test]
fn convert_svg_is_written_with_care() {
    let dir = scratch("svg");
    let svg = |file: &str| {
        run(
            &["convert", "--shape", "16x32", BLOCKED, "--svg", file],
            b"",
        )
    };
    let o = svg("");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("the path is empty"));
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let link = dir.join("pic.svg");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let o = svg(link.to_str().unwrap());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("is a symbolic link"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let o = svg(dir.to_str().unwrap());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("is a directory"));
    std::fs::remove_file(&link).unwrap();
    let o = svg(link.to_str().unwrap());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(std::fs::read_to_string(&link).unwrap().starts_with("<svg"));
    assert_eq!(listing(&dir), ["pic.svg", "victim.txt"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `search --html FILE`: the same care as `convert --svg`, and the page
/// written whole with the search's own exit status (1: failures found).
#[test]
fn search_html_is_written_with_care() {
    let dir = scratch("html");
    let search = |file: &str| {
        run(
            &[
                "search",
                "--triton",
                "3.2",
                "--pattern",
                "chain-b",
                "--sizes",
                "16,64",
                "--dtype",
                "bf16",
                "--num-warps",
                "8",
                "--num-stages",
                "1",
                "--arch",
                "sm90",
                "--num-ctas",
                "1",
                "--quiet",
                "--html",
                file,
            ],
            b"",
        )
    };
    let o = search("");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--html: the path is empty"));
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let link = dir.join("report.html");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let o = search(link.to_str().unwrap());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("is a symbolic link"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    std::fs::remove_file(&link).unwrap();
    let o = search(link.to_str().unwrap());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let page = std::fs::read_to_string(&link).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("href=\"#group-0\">stmatrix</a>"));
    // the text report still goes to stdout
    assert!(text(&o.stdout).contains("== Summary"));
    assert_eq!(listing(&dir), ["report.html", "victim.txt"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// 3.2's stmatrix assertion as the wheel prints it.
const STMATRIX: &str = "python: /project/lib/Tools/LinearLayout.cpp:562: mlir::triton::LinearLayout \
    mlir::triton::LinearLayout::reshapeOuts(...) const: Assertion `getTotalOutDimSize() == \
    std::accumulate( newOutDims.begin(), newOutDims.end(), 1, [&](int32_t acc, auto &outDim) { \
    return acc * outDim.second; })' failed.\n";

/// A log is bytes: stray bytes that are not UTF-8 are replaced (a note
/// counts them) and a known assertion is still named (exit 1); escape
/// sequences in it are printed escaped, never sent to the terminal.
#[test]
fn explain_reads_bytes_and_escapes_what_it_echoes() {
    let mut log = b"\xff\xfe binary junk \xc3\x28\n".to_vec();
    log.extend_from_slice(STMATRIX.as_bytes());
    log.extend_from_slice(b"\x1b]0;owned\x07\n");
    let o = run(&["explain"], &log);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stdout).starts_with("Site stmatrix"));
    assert!(text(&o.stderr).contains("3 byte sequence(s) of the log are not UTF-8"));
    let o = run(
        &["explain"],
        b"error: \x1b]52;c;SGVsbG8=\x07 \x1b[2J\x9b\r done\n",
    );
    assert_eq!(o.status.code(), Some(3));
    let stdout = text(&o.stdout);
    assert!(terminal_safe(&stdout), "{stdout:?}");
    assert!(stdout.contains("\\u001b]52;c;SGVsbG8=\\u0007"), "{stdout}");
    // JSON escapes them as JSON does
    let o = run(&["explain", "--json"], b"error: \x1b[2J \xe2\x80\xae\n");
    let stdout = text(&o.stdout);
    assert!(terminal_safe(&stdout), "{stdout:?}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["key_lines"][0], "error: \u{1b}[2J \u{202e}");
}

/// A log it cannot place: "unknown" and exit 3 — another program's
/// assertion with Triton's text, LLVM's own error without Triton in sight,
/// plain noise.
#[test]
fn explain_says_unknown_with_exit_3_when_it_cannot_place_the_log() {
    let foreign = STMATRIX.replace(
        "/project/lib/Tools/LinearLayout.cpp:562",
        "/srv/app/geom.cc:7",
    );
    for (log, says) in [
        (foreign.as_str(), "does not show that Triton printed it"),
        (
            "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32\n",
            "does not show that Triton printed it",
        ),
        ("hello world\n", "no modelled site prints this message"),
    ] {
        let o = run(&["explain"], log.as_bytes());
        assert_eq!(o.status.code(), Some(3), "{log}");
        assert!(text(&o.stdout).contains(says), "{}", text(&o.stdout));
    }
}

/// 100,000 distinct error lines: read in one pass (the old de-duplication
/// compared every pair: billions of comparisons), the answer shows four and
/// counts them all.
#[test]
fn explain_reads_a_log_of_many_distinct_errors() {
    let n = 100_000;
    let log: String = (0..n)
        .map(|i| format!("error: thing {i} broke\n"))
        .collect();
    let o = run(&["explain"], log.as_bytes());
    assert_eq!(o.status.code(), Some(3));
    let stdout = text(&o.stdout);
    assert!(
        stdout.contains(&format!("{n} distinct failure lines")),
        "{stdout}"
    );
    assert!(stdout.lines().count() < 20);
}

/// One op of a 3.7 module, its shape `SHAPE`.
const MODULE: &str = r#"#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S0 = #ttg.shared_linear<{offset = [[1, 0], [1, 3], [0, 2], [0, 4]]}, alignment = 16>
#L1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    %m2 = ttg.local_alloc %v1 : (tensor<SHAPExf16, #L0>) -> !ttg.memdesc<SHAPExf16, #S0, #smem>
    %v3 = ttg.local_load %m2 : !ttg.memdesc<SHAPExf16, #S0, #smem> -> tensor<SHAPExf16, #L1>
}
"#;

/// Sizes of 2^64 no longer give "no modelled check fails": each op is
/// reported as not checked, and the exit status is 3 (no answer), in text
/// and JSON alike. Two modules concatenated are checked each on its own.
#[test]
fn check_ttgir_says_what_it_could_not_check() {
    let huge = MODULE.replace("SHAPE", "18446744073709551616x8");
    let o = run(&["check-ttgir", "--triton", "3.7", "-"], huge.as_bytes());
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(
        stdout.contains("<stdin>:6: local_alloc not checked"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no modelled check fails among the 0 op(s) checked"),
        "{stdout}"
    );
    assert!(!stdout.contains("no modelled check fails for"), "{stdout}");
    let o = run(
        &["check-ttgir", "--triton", "3.7", "--json", "-"],
        huge.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["unchecked_count"], 2);
    assert_eq!(v["unchecked"][1]["line"], 7);
    assert_eq!(v["findings"], serde_json::json!([]));
    // two modules, each defining `#S0`: a plain buffer, then the XOR one
    // that miscompiles; read as one module, the later `#S0` would win for
    // both
    let clean = MODULE.replace("SHAPE", "2x8").replace(
        "[[1, 0], [1, 3], [0, 2], [0, 4]]",
        "[[0, 1], [0, 2], [0, 4], [1, 0]]",
    );
    let failing = MODULE.replace("SHAPE", "2x8");
    for (text, expected) in [
        (format!("{clean}{failing}"), [15]),
        (format!("{failing}{clean}"), [7]),
    ] {
        let o = run(
            &["check-ttgir", "--triton", "3.7", "--json", "-"],
            text.as_bytes(),
        );
        assert_eq!(o.status.code(), Some(1));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["modules"], 2);
        let lines: Vec<u64> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["line"].as_u64().unwrap())
            .collect();
        assert_eq!(lines, expected);
    }
    // an alias defined twice in a module: bad input
    let twice = MODULE.replace("SHAPE", "2x8").replace(
        "#smem = #ttg.shared_memory",
        "#smem = #ttg.shared_memory\n#smem = #ttg.shared_memory",
    );
    let o = run(&["check-ttgir", "-"], twice.as_bytes());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("`#smem` is defined again (first on line 4)"));
}

/// Thousands of failing ops come out as a valid JSON report, findings in
/// line order; a file name with escape sequences is printed escaped.
#[test]
fn check_ttgir_streams_its_report_and_escapes_names() {
    let load = "    %v3 = ttg.local_load %m2 : !ttg.memdesc<2x8xf16, #S0, #smem> -> tensor<2x8xf16, #L1>\n";
    let n = 2_000;
    let many = MODULE
        .replace("SHAPE", "2x8")
        .replace("}\n", &format!("{}}}\n", load.repeat(n)));
    let o = run(
        &["check-ttgir", "--triton", "3.7", "--json", "-"],
        many.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), n + 1);
    assert!(
        findings
            .windows(2)
            .all(|w| w[0]["line"].as_u64() < w[1]["line"].as_u64())
    );
    let dir = scratch("ttgir-name");
    let file = dir.join("a\u{1b}]0;x\u{7}b.ttgir");
    std::fs::write(&file, MODULE.replace("SHAPE", "2x8")).unwrap();
    // the findings name the file (stdout); reading it as 3.2, the warning
    // about its spelling does (stderr)
    let found = run(
        &["check-ttgir", "--triton", "3.7", file.to_str().unwrap()],
        b"",
    );
    assert_eq!(found.status.code(), Some(1), "{}", text(&found.stderr));
    let warned = run(
        &["check-ttgir", "--triton", "3.2", file.to_str().unwrap()],
        b"",
    );
    for out in [text(&found.stdout), text(&warned.stderr)] {
        assert!(terminal_safe(&out), "{out:?}");
        assert!(out.contains("a\\u001b]0;x\\u0007b.ttgir"), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Batches read each line strictly: a key given twice is `bad_json` naming
/// it, a wrong type or an out-of-range integer names its key; C1 controls
/// and bidirectional overrides in answers are JSON escapes.
#[test]
fn batches_refuse_repeated_keys_and_name_wrong_types() {
    let lines = [
        r#"{"op": "identity_1d", "op": "zeros_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0"}"#,
        r#"{"op": "identity_1d", "size": "4", "in_dim": "lane", "out_dim": "dim0"}"#,
        "{\"op\": \"identity_1d\", \"size\": 4, \"in_dim\": \"l\u{9b}\u{202e}\", \"out_dim\": \"dim0\"}",
    ]
    .join("\n");
    let o = run(&["eval"], lines.as_bytes());
    let stdout = text(&o.stdout);
    assert!(terminal_safe(&stdout), "{stdout:?}");
    let answers: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers[0]["error"]["kind"], "bad_json");
    assert!(
        answers[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate key `op`")
    );
    assert_eq!(answers[0]["error"]["line"], 1);
    assert!(
        answers[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("argument `size`")
    );
    assert_eq!(answers[2]["ok"]["bases"][0][0], "l\u{9b}\u{202e}");

    let config = r#""pattern": "dot", "m": 64, "n": 64, "k": 64, "dtype": "fp16", "num_stages": 2, "arch": "sm80", "triton": "3.2""#;
    let lines = [
        format!(r#"{{{config}, "num_warps": 4, "num_warps": 8}}"#),
        format!(r#"{{{config}, "num_warps": "4"}}"#),
        format!(r#"{{{config}, "num_warps": 4294967300}}"#),
        format!(r#"{{{config}, "num_warps": 4}}"#),
    ]
    .join("\n");
    let o = run(&["predict", "--batch"], lines.as_bytes());
    let answers: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[0]["error"]["kind"], "bad_json");
    assert!(
        answers[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate key `num_warps`")
    );
    assert!(
        answers[1]["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("`num_warps`: invalid type")
    );
    assert!(
        answers[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("num_warps = 4294967300")
    );
    assert!(answers[3].get("verdict").is_some(), "{}", answers[3]);

    // a definitions file that never ends is refused, not read
    let o = run(
        &["convert", "--batch"],
        br##"{"attr": "#a", "shape": [4], "defs_file": "/dev/zero"}"##,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a regular file"),
        "{v}"
    );
}

/// One `eval` process fed fresh dim names keeps at most `MAX_NAMES` of
/// them: past the bound a request with a new name is answered
/// `too_many_names`, and requests with names already known still work.
#[test]
fn eval_keeps_a_bounded_table_of_names() {
    // 64 fresh in-dims per request: 1,100 requests offer 70,400 new names
    let mut input = String::new();
    for r in 0..1_100 {
        let bases: Vec<String> = (0..64).map(|i| format!("[\"n{r}_{i}\", []]")).collect();
        input += &format!(
            "{{\"op\": \"is_injective\", \"a\": {{\"bases\": [{}], \"out_dims\": [[\"dim0\", 1]]}}}}\n",
            bases.join(", ")
        );
    }
    input += r#"{"op": "identity_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0"}"#;
    input += "\n";
    let o = run(&["eval"], input.as_bytes());
    let answers: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 1_101);
    let ok = answers[..1_100]
        .iter()
        .filter(|a| a.get("ok").is_some())
        .count();
    let refused = answers[..1_100]
        .iter()
        .filter(|a| a["error"]["kind"] == "too_many_names")
        .count();
    assert_eq!(ok + refused, 1_100);
    assert!(ok * 64 <= 1 << 16, "{ok} requests of new names accepted");
    assert!(refused >= 1_100 - (1 << 16) / 64, "{refused} refused");
    assert!(answers[1_100].get("ok").is_some(), "{}", answers[1_100]);
}

/// A trace larger than any command reads is refused before it is read;
/// an error message quoting input escapes its control characters.
#[test]
fn oversized_files_and_hostile_arguments_are_refused_clearly() {
    let dir = scratch("big");
    let big = dir.join("big.jsonl");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(33 << 20)
        .unwrap();
    let o = run(&["shrink-trace", big.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("more than 32 MiB"),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let o = run(&["convert", BLOCKED, "--shape", "8x\u{1b}[2J"], b"");
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(terminal_safe(&err), "{err:?}");
    assert!(err.contains("bad shape `8x\\u001b[2J`"), "{err}");
}

/// `shrink-trace`: a trace whose lines repeat a key holds no request (it
/// is not decoded as a binary fuzz input), and a failing request too large
/// to copy once per candidate is refused, both with exit 2 and the reason.
#[test]
fn shrink_trace_refuses_what_it_cannot_shrink_sensibly() {
    let dir = scratch("shrink");
    let dup = dir.join("dup.jsonl");
    std::fs::write(
        &dup,
        r#"{"op": "identity_1d", "op": "identity_1d", "size": 3, "in_dim": "lane", "out_dim": "dim0"}"#,
    )
    .unwrap();
    let o = run(&["shrink-trace", dup.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("holds no JSON request (line 1:"), "{err}");
    assert!(err.contains("duplicate key `op`"), "{err}");
    // 70 KiB of bases: a failing request (too many input bits)
    let bases = vec!["[1]"; 20_000].join(",");
    let big = dir.join("big.jsonl");
    std::fs::write(
        &big,
        format!(r#"{{"op": "is_injective", "a": {{"bases": [["lane", [{bases}]]], "out_dims": [["dim0", 2]]}}}}"#),
    )
    .unwrap();
    let o = run(&["shrink-trace", big.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("KiB of JSON; shrink-trace shrinks requests of at most 64 KiB"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
