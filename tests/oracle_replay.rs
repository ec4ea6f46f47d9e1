//! Replays every recorded Triton result in `tests/data/**.jsonl` through
//! `eval` and requires agreement: the same value where Triton answered, an
//! error where Triton aborted or raised.

use linear_layout::eval::eval;
use serde_json::Value;
use std::path::Path;

fn replay_dir(dir: &Path) -> (usize, Vec<String>) {
    let mut count = 0;
    let mut failures = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no recorded cases in {}", dir.display());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let case: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", file.display(), n + 1));
            let ours = eval(&case["request"]);
            let expect = &case["expect"];
            let agree = match (&ours, expect.get("ok")) {
                (Ok(v), Some(want)) => v == want,
                (Err(_), None) => expect.get("error").is_some(),
                _ => false,
            };
            count += 1;
            if !agree {
                let ours = match ours {
                    Ok(v) => format!("ok {v}"),
                    Err(e) => format!("error {}: {}", e.kind, e.message),
                };
                failures.push(format!(
                    "{}:{}: request {}\n  triton: {}\n  ours:   {}",
                    file.display(),
                    n + 1,
                    case["request"],
                    expect,
                    ours
                ));
            }
        }
    }
    (count, failures)
}

#[test]
fn algebra_agrees_with_triton_3_9() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/algebra");
    let (count, failures) = replay_dir(&dir);
    assert!(count >= 2000, "only {count} recorded cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases disagree:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
