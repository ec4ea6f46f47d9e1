//! The failures file of the Python guard (`linear_layout.triton`): one JSON
//! object a line, each a compile that failed in its contained child and
//! that the layout model did not predict (schema
//! `linear-layout/compile-failure/1`). Each record is explained as a crash
//! log made of what it holds: the Triton version, the configuration,
//! Triton's log and key line, and the failing stage's TTGIR when the record
//! carries it (so the model's findings on it are reported too, by whatever
//! release of this crate reads the file).

use serde_json::Value;
use std::fmt::Write as _;

/// The `schema` of every record.
pub const SCHEMA: &str = "linear-layout/compile-failure/1";

/// One failed compile, as the guard recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureRecord {
    /// The 1-based line of the file.
    pub line: usize,
    /// The whole record, as written.
    pub json: Value,
}

impl FailureRecord {
    fn text(&self, key: &str) -> Option<&str> {
        self.json.get(key).and_then(Value::as_str)
    }

    /// One line naming the failure: kernel, Triton, target, how and where it ended.
    pub fn title(&self) -> String {
        let target = self.json.get("target");
        let field = |k: &str| {
            target
                .and_then(|t| t.get(k))
                .map(|v| v.to_string().trim_matches('"').to_string())
                .unwrap_or_else(|| "?".into())
        };
        let stage = self
            .text("stage")
            .map(|s| format!(" in stage {s}"))
            .unwrap_or_else(|| " before the first stage".into());
        format!(
            "kernel {} on Triton {} ({} {}): {}{stage}",
            self.text("kernel").unwrap_or("?"),
            self.text("triton_version").unwrap_or("?"),
            field("backend"),
            field("arch"),
            self.text("ending").unwrap_or("?"),
        )
    }

    /// The crash log `explain` reads for this record.
    pub fn log(&self) -> String {
        let mut out = String::new();
        if let Some(v) = self.text("triton_version") {
            let _ = writeln!(out, "triton=={v}");
        }
        if let Some(config) = self.json.get("config").and_then(Value::as_object) {
            for (k, v) in config {
                let _ = writeln!(out, "{k}={v}");
            }
        }
        if let Some(arch) = self
            .json
            .get("target")
            .and_then(|t| t.get("arch"))
            .and_then(Value::as_u64)
        {
            let _ = writeln!(out, "capability={arch}");
        }
        for key in ["log", "message"] {
            if let Some(t) = self.text(key) {
                let _ = writeln!(out, "{t}");
            }
        }
        if let Some(module) = self.text("ttgir") {
            let _ = writeln!(out, "{module}");
        }
        out
    }
}

/// Reads a failures file. `None` when `text` is not one (some non-empty
/// line is not a record of [`SCHEMA`]): it is then an ordinary log.
pub fn failure_records(text: &str) -> Option<Vec<FailureRecord>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let json: Value = serde_json::from_str(line).ok()?;
        if json.get("schema").and_then(Value::as_str) != Some(SCHEMA) {
            return None;
        }
        out.push(FailureRecord { line: i + 1, json });
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::explain;
    use serde_json::json;

    fn record(log: &str, ttgir: Option<&str>) -> String {
        json!({
            "schema": SCHEMA, "id": "x", "release": "3.2", "triton_version": "3.2.0",
            "target": {"backend": "cuda", "arch": 90, "warp_size": 32}, "kernel": "chain_b",
            "config": {"num_warps": 8, "num_stages": 2}, "stage": "llir", "ending": "SIGABRT",
            "message": log, "log": log, "ttgir": ttgir,
        })
        .to_string()
    }

    #[test]
    fn a_failures_file_is_read_record_by_record() {
        let known = "python: /project/lib/Tools/LinearLayout.cpp:562: mlir::triton::LinearLayout \
            mlir::triton::LinearLayout::reshapeOuts(llvm::ArrayRef<std::pair<mlir::StringAttr, int> >) \
            const: Assertion `getTotalOutDimSize() == std::accumulate( newOutDims.begin(), \
            newOutDims.end(), 1, [&](int32_t acc, auto &outDim) { return acc * outDim.second; })' failed.";
        let text = format!(
            "{}\n\n{}\n",
            record(known, None),
            record("stand-in.cpp:42: Assertion `unmodelled' failed.", None)
        );
        let records = failure_records(&text).expect("a failures file");
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].line, 3);
        assert!(
            records[0]
                .title()
                .contains("kernel chain_b on Triton 3.2.0 (cuda 90): SIGABRT")
        );
        let first = explain(&records[0].log());
        assert_eq!(first.site.map(|m| m.site.id), Some("stmatrix"));
        assert_eq!(first.context.version.as_deref(), Some("3.2.0"));
        assert_eq!(first.context.num_warps, Some(8));
        assert_eq!(first.context.arch.as_deref(), Some("sm90"));
        assert!(!explain(&records[1].log()).known());
    }

    #[test]
    fn anything_else_is_a_log() {
        assert!(failure_records("LLVM ERROR: out of memory\n").is_none());
        assert!(failure_records("{\"schema\": \"other\"}\n").is_none());
        let mixed = format!("{}\nnot json\n", record("x", None));
        assert!(failure_records(&mixed).is_none());
        assert!(failure_records("\n\n").is_none());
    }
}
