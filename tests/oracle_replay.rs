//! Replays every recorded Triton result of the layout algebra (the
//! `algebra-requests` files under `tests/data/`, read through `recorded`)
//! through `eval` and requires agreement: the same value where Triton
//! answered, an error where Triton aborted or raised.

use crate::recorded::{self, Kind};
use linear_layout::eval::eval;

#[test]
fn algebra_agrees_with_triton_3_9() {
    let files = recorded::of_kind(Kind::AlgebraRequests);
    assert!(
        files.iter().any(|f| f.release() == "3.9.0"),
        "no algebra requests recorded with 3.9.0: {files:?}"
    );
    let mut count = 0;
    let mut failures = Vec::new();
    for file in &files {
        for (name, case) in file.records() {
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
                    "{} {name}: request {}\n  triton: {}\n  ours:   {}",
                    file.file(),
                    case["request"],
                    expect,
                    ours
                ));
            }
        }
    }
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
