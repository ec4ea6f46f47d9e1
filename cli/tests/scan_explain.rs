//! `scan` and `explain` from the shell: bad input ends with exit status 2
//! and a message that says what is wrong; `explain` reads a file or stdin,
//! names a known site (exit 1) and, for an unknown message, exits 3 and
//! lists the nearest sites that share words with it. Scanning a real kernel needs Triton wheels: that is
//! `tests/oracle/kernels_corpus/ci.py`, run by `.ci/run`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linear-layout"))
}

fn with_stdin(args: &[&str], input: &str) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ll-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn scan_refuses_bad_input_with_exit_2_and_the_reason() {
    let dir = scratch("scan");
    let cache = dir.join("cache");
    let cache = cache.to_str().unwrap();
    let spec = dir.join("spec.toml");
    std::fs::write(&spec, "kernel = \"k.py::k\"\n[space]\nnum_wraps = [4]\n").unwrap();
    let spec = spec.to_str().unwrap();
    let configs = dir.join("configs.json");
    std::fs::write(&configs, r#"[{"BLOCK": 64}, {"num_stages": "three"}]"#).unwrap();
    let configs = configs.to_str().unwrap();
    let no_venvs = dir.join("venvs");
    let no_venvs = no_venvs.to_str().unwrap();
    let twice = dir.join("twice.json");
    std::fs::write(&twice, r#"{"kernel": "k.py::k", "kernel": "x.py::y"}"#).unwrap();
    let twice = twice.to_str().unwrap();
    let twice_configs = dir.join("twice-configs.json");
    std::fs::write(&twice_configs, r#"[{"BLOCK": 64, "BLOCK": 32}]"#).unwrap();
    let twice_configs = twice_configs.to_str().unwrap();
    let kernel_file = dir.join("k.py");
    std::fs::write(&kernel_file, "").unwrap();
    let real_kernel = format!("{}::k", kernel_file.display());
    for (args, says) in [
        // limits that would exhaust the machine or overflow the worker's alarm
        (
            vec!["scan", "k.py::k", "--jobs", "100000"],
            "100000 is not in 1..=256",
        ),
        (
            vec!["scan", "k.py::k", "--timeout", "18446744073709551615"],
            "is not in 1..=86400",
        ),
        // a key given twice in JSON is refused, not the last one kept
        (vec!["scan", "--spec", twice], "duplicate key `kernel`"),
        (
            vec!["scan", "k.py::k", "--configs", twice_configs],
            "duplicate key `BLOCK`",
        ),
        // a file that is not there: said before any release is installed
        (
            vec!["scan", "/no/such/k.py::k", "--cache-dir", cache],
            "no such file: /no/such/k.py",
        ),
        (vec!["scan"], "give the kernel"),
        (
            vec!["scan", "mykernel"],
            "name the kernel as path/file.py::kernel",
        ),
        (
            vec!["scan", "k.py::k", "--args", "x="],
            "argument `x=`: expected",
        ),
        (
            vec!["scan", "k.py::k", "--dtype", "fp17"],
            "--dtype fp17: unknown element type",
        ),
        (
            vec!["scan", "k.py::k", "--num-warps", "0"],
            "positive values",
        ),
        (
            vec!["scan", "k.py::k", "--triton", "2.9"],
            "--triton 2.9: not a Triton release",
        ),
        (
            vec!["scan", "k.py::k", "--junit", ""],
            "a value is required for '--junit",
        ),
        (
            vec!["scan", "k.py::k", "--html", " "],
            "--html: the path is empty",
        ),
        (
            vec!["scan", "k.py::k", "--python", "3.2"],
            "expected RELEASE=PATH",
        ),
        (
            vec!["scan", "k.py::k", "--constexpr", "BLOCK"],
            "--constexpr",
        ),
        (
            vec!["scan", "--spec", spec],
            "unknown [space] key `num_wraps`",
        ),
        (
            vec!["scan", "k.py::k", "--option", "lanch_pdl=True"],
            "unknown launch option `lanch_pdl`",
        ),
        (
            vec!["scan", "k.py::k", "--option", "launch_pdl=3"],
            "`launch_pdl` takes True or False",
        ),
        (
            vec![
                "scan",
                "k.py::k",
                "--config",
                "BLOCK=64",
                "--config",
                "BLOCK=64, num_warps",
            ],
            "--config #2",
        ),
        (
            vec!["scan", "k.py::k", "--configs", configs],
            "configuration 2: ",
        ),
        (
            vec!["scan", "k.py::k", "--args", "d=desc:*bf16[64,48]"],
            "block dimension 48 is not a power of two",
        ),
        (
            vec!["scan", "--spec", "/no/such/spec.toml"],
            "/no/such/spec.toml",
        ),
        (
            vec![
                "scan",
                &real_kernel,
                "--venv-dir",
                no_venvs,
                "--no-install",
                "--cache-dir",
                cache,
            ],
            "no Triton release can be scanned",
        ),
    ] {
        let out = bin().args(&args).output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(says),
            "{args:?}: {err:?} does not say {says:?}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// 3.2's stmatrix assertion, as the wheel prints it.
const STMATRIX: &str = "python: /project/lib/Tools/LinearLayout.cpp:562: mlir::triton::LinearLayout \
    mlir::triton::LinearLayout::reshapeOuts(...) const: Assertion `getTotalOutDimSize() == \
    std::accumulate( newOutDims.begin(), newOutDims.end(), 1, [&](int32_t acc, auto &outDim) { \
    return acc * outDim.second; })' failed.\nAborted (core dumped)\n";

#[test]
fn explain_reads_stdin_and_files_and_names_the_site() {
    let out = with_stdin(&["explain"], STMATRIX);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("Site stmatrix"), "{stdout}");
    assert!(stdout.contains("fixed in:    Triton 3.4"), "{stdout}");

    let dir = scratch("explain");
    let log = dir.join("crash.log");
    std::fs::write(&log, STMATRIX).unwrap();
    let out = bin()
        .args(["explain", "--json", log.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["known"], true);
    assert_eq!(v["site"]["site"], "stmatrix");
    assert_eq!(v["site"]["releases"], serde_json::json!(["3.2"]));
    // `-` is stdin too
    let out = with_stdin(&["explain", "-", "--json"], STMATRIX);
    let w: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(w["site"], v["site"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_says_unknown_exits_3_and_lists_only_sites_sharing_words() {
    let out = with_stdin(
        &["explain"],
        "python: Foo.cpp:12: void frob(): Assertion `shared layout is frobnicated' failed.\n",
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("Unknown"), "{stdout}");
    let nearest: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.contains("nearest known sites"))
        .skip(1)
        .collect();
    assert_eq!(nearest.len(), 3, "{stdout}");
    for line in nearest {
        assert!(line.contains("shared") || line.contains("layout"), "{line}");
    }
    let out = with_stdin(&["explain", "--json"], "RuntimeError: frobnicated\n");
    assert_eq!(out.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["known"], false);
    assert_eq!(
        v["nearest"].as_array().map(Vec::len),
        Some(0),
        "no site shares a word"
    );
}

#[test]
fn explain_reads_the_guards_failures_file_record_by_record() {
    let record = |message: &str, stage: &str| {
        serde_json::json!({
            "schema": "linear-layout/compile-failure/1", "id": stage, "triton_version": "3.2.0",
            "target": {"backend": "cuda", "arch": 90, "warp_size": 32}, "kernel": "chain_b",
            "config": {"num_warps": 8}, "stage": stage, "ending": "SIGABRT",
            "message": message, "log": message, "reproducer": "/tmp/repro.py",
        })
        .to_string()
    };
    let file = format!(
        "{}\n{}\n",
        record(
            "python: Foo.cpp:12: void frob(): Assertion `layout is frobnicated' failed.",
            "ttgir"
        ),
        record(STMATRIX, "llir"),
    );
    let out = with_stdin(&["explain"], &file);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let heads: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("== line"))
        .collect();
    assert_eq!(heads.len(), 2, "{stdout}");
    assert!(heads[0].contains("SIGABRT in stage ttgir"), "{stdout}");
    assert!(stdout.contains("Unknown"), "{stdout}");
    assert!(stdout.contains("Site stmatrix"), "{stdout}");
    let out = with_stdin(&["explain", "--json"], &file);
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["explanation"]["known"], false);
    assert_eq!(lines[1]["explanation"]["site"]["site"], "stmatrix");
    assert_eq!(lines[1]["line"], 2);
}

#[test]
fn explain_names_a_front_end_rejection() {
    let out = with_stdin(
        &["explain"],
        "NotImplementedError: Block pointers have been removed in favor of the tensor descriptor API\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("block_pointers_removed"), "{stdout}");
    assert!(stdout.contains("raised by:   Triton 3.9"), "{stdout}");
}

#[test]
fn explain_refuses_empty_and_missing_logs() {
    let out = with_stdin(&["explain"], "  \n");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the log is empty"));
    let out = bin()
        .args(["explain", "/no/such/crash.log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/no/such/crash.log"));
}
