//! `explain` against every failure the real compilers printed in the
//! recorded data (every file under `tests/data` with a failure `message`:
//! kernel grids, one-op modules, flash-linear-attention, the public-kernel
//! corpus; every release): every distinct message, in a log that shows it
//! came from Triton (a traceback frame in Triton's package), is recognised
//! (a site, a front-end rejection of the kernel's code, or the pass
//! manager's wrapper, never unknown); where the finder predicts a site for
//! a record that printed the message, explain names that site among its
//! candidates, and the record's release among the releases printing it.
//! Alone, each message is recognised the same way, except the ones whose
//! text any program may print ([`ANY_PROGRAM_S`]), which are then named by
//! no site.

use crate::recorded;
use linear_layout_scan::check_module;
use linear_layout_triton::Release;
use linear_layout_triton::explain::explain;
use linear_layout_triton::finder::{self, Config, check_ttgir};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// What the records say about one message.
#[derive(Default)]
struct Printed {
    /// The finder's sites for records that printed it.
    sites: BTreeSet<String>,
    /// The releases (wheels) that printed it.
    releases: BTreeSet<String>,
    /// One file that holds it, for messages.
    file: String,
    /// The last lines of stderr of one record that printed it.
    tail: String,
}

/// The finder's site for a record, where the record says enough to ask:
/// a kernel configuration, a one-op module, or a recorded TTGIR module.
fn predicted(rec: &Value, release: Option<Release>) -> Option<String> {
    if let Some(cfg) = rec
        .get("config")
        .and_then(|c| serde_json::from_value::<Config>(c.clone()).ok())
    {
        return finder::predict(&cfg)
            .ok()
            .and_then(|p| p.failure)
            .map(|f| f.site.id.to_string());
    }
    let release = rec
        .get("triton")
        .and_then(Value::as_str)
        .and_then(|t| t.parse().ok())
        .or(release)?;
    if let Some(module) = rec.get("module").and_then(Value::as_str) {
        let found = check_ttgir::check(module, release).unwrap_or_default();
        return found.first().map(|f| f.failure.site.id.to_string());
    }
    let ttgir = rec.get("ttgir").and_then(Value::as_str)?;
    check_module(ttgir, release)
        .first()
        .map(|f| f.failure.site.id.to_string())
}

fn recorded_failures() -> BTreeMap<String, Printed> {
    let mut out: BTreeMap<String, Printed> = BTreeMap::new();
    for path in recorded::all_files() {
        let file = recorded::load(&path);
        let release = file.header.release.clone();
        let modelled = release.as_deref().and_then(|r| r.parse::<Release>().ok());
        for rec in file.values() {
            let outcome = rec.get("outcome").and_then(Value::as_str).unwrap_or("ok");
            let Some(message) = rec.get("message").and_then(Value::as_str) else {
                continue;
            };
            if outcome == "ok" || message.is_empty() || outcome == "timeout" {
                continue;
            }
            let p = out.entry(message.to_string()).or_default();
            if p.file.is_empty() {
                p.file = file.file();
                p.tail = rec
                    .get("stderr_tail")
                    .and_then(Value::as_array)
                    .map(|t| {
                        t.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("\n")
                    })
                    .unwrap_or_default();
            }
            if let Some(r) = &release {
                p.releases.insert(r.clone());
            }
            p.sites.extend(predicted(rec, modelled));
        }
    }
    out
}

/// Recorded messages any program may print (LLVM's own headers and
/// backend, the C++ runtime, a bare exception name, MLIR's wrapper of a
/// failed pass): explain names their site only in a log that shows Triton.
const ANY_PROGRAM_S: [&str; 15] = [
    "AssertionError",
    "ArrayRef.h:257: const T& llvm::ArrayRef<T>::operator[]",
    "ArrayRef.h:260: const T& llvm::ArrayRef<T>::operator[]",
    "ArrayRef.h:260: const T &llvm::ArrayRef<mlir::Value>::operator[]",
    "ArrayRef.h:268: const T &llvm::ArrayRef<unsigned int>::operator[]",
    "ArrayRef.h:268: const T &llvm::ArrayRef<mlir::Value>::operator[]",
    "SmallVector.h:292: reference llvm::SmallVectorTemplateCommon",
    "SmallVector.h:297: reference llvm::SmallVectorTemplateCommon",
    "SmallVector.h:300: reference llvm::SmallVectorTemplateCommon",
    "SmallVector.h:304: T& llvm::SmallVectorTemplateCommon",
    "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.idx.i32",
    "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32",
    "terminate called after throwing an instance of 'std::bad_alloc'",
    "error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast",
    "error: Failures have been detected while processing an MLIR pass pipeline",
];

/// A traceback frame in Triton's package, as every log of a compile that
/// Triton ran holds.
const TRITON_FRAME: &str = "  File \"/venv/lib/python3.12/site-packages/triton/compiler/compiler.py\", line 300, in compile";

/// Whether `explain` names one of `sites` in a Triton log of `tail`.
fn names_a_site_of(tail: &str, sites: &BTreeSet<String>) -> bool {
    let e = explain(&format!("{TRITON_FRAME}\n{tail}"));
    e.site
        .iter()
        .chain(&e.others)
        .any(|m| sites.contains(m.site.id))
}

#[test]
fn every_recorded_failure_message_is_recognised() {
    let failures = recorded_failures();
    assert!(
        failures.len() >= 30,
        "only {} distinct messages",
        failures.len()
    );
    // Alone: the same answer as in a Triton log, or, for text any program
    // may print, no site at all.
    let (mut alone_wrong, mut any_program) = (Vec::new(), 0);
    for message in failures.keys() {
        let alone = explain(message);
        let in_log = explain(&format!("{TRITON_FRAME}\n{message}"));
        let named =
            |e: &linear_layout_triton::explain::Explanation| e.site.as_ref().map(|m| m.site.id);
        // (a bare name is the whole message; other text is part of it)
        if ANY_PROGRAM_S
            .iter()
            .any(|t| message == t || (t.contains(' ') && message.contains(t)))
        {
            any_program += 1;
            if alone.site.is_some() || alone.known() {
                alone_wrong.push(format!("{message}\n    named {:?} alone", named(&alone)));
            }
        } else if named(&alone) != named(&in_log) || alone.known() != in_log.known() {
            alone_wrong.push(format!(
                "{message}\n    alone {:?}, in a Triton log {:?}",
                named(&alone),
                named(&in_log)
            ));
        }
    }
    assert!(
        any_program >= 5,
        "{any_program} messages any program may print"
    );
    assert!(
        alone_wrong.is_empty(),
        "messages named differently alone:\n{}",
        alone_wrong.join("\n")
    );
    let (mut unknown, mut wrong) = (Vec::new(), Vec::new());
    let (mut sites, mut front_end, mut wrapper) = (0, 0, 0);
    for (message, printed) in &failures {
        let e = explain(&format!("{TRITON_FRAME}\n{message}"));
        let Some(best) = &e.site else {
            match (e.front_end, e.generic) {
                (Some(_), _) if printed.sites.is_empty() => front_end += 1,
                (None, Some(_)) if printed.sites.is_empty() => wrapper += 1,
                // the wrapper alone names no pass; the record's whole
                // stderr, with the pass manager's note, names the site
                (None, Some(_)) if names_a_site_of(&printed.tail, &printed.sites) => wrapper += 1,
                _ => {
                    unknown.push(format!(
                        "{message}\n    ({}; finder: {:?})",
                        printed.file, printed.sites
                    ));
                }
            }
            continue;
        };
        sites += 1;
        let named: BTreeSet<&str> = std::iter::once(best.site.id)
            .chain(e.others.iter().map(|m| m.site.id))
            .collect();
        if !printed.sites.is_empty() && !printed.sites.iter().any(|p| named.contains(p.as_str())) {
            wrong.push(format!(
                "{message}\n    finder: {:?}, explain: {named:?}",
                printed.sites
            ));
        }
        // the releases that printed it are among those explain says print it
        let said: BTreeSet<String> = std::iter::once(best)
            .chain(&e.others)
            .flat_map(|m| m.all_releases.iter().map(|r| r.to_string()))
            .collect();
        for wheel in &printed.releases {
            let short: String = wheel.split('.').take(2).collect::<Vec<_>>().join(".");
            if !said.contains(&short) {
                wrong.push(format!(
                    "{message}\n    printed by {wheel} ({}), explain says {said:?}",
                    printed.file
                ));
            }
        }
    }
    eprintln!(
        "{} distinct messages: {sites} at a site, {front_end} front-end rejections, {wrapper} the pass manager's wrapper",
        failures.len()
    );
    assert!(
        unknown.is_empty(),
        "unrecognised messages:\n{}",
        unknown.join("\n")
    );
    assert!(
        wrong.is_empty(),
        "explain names another site or release:\n{}",
        wrong.join("\n")
    );
    assert!(sites > 0 && front_end > 0);
}

#[test]
fn a_whole_traceback_gives_the_site_release_and_scan_command() {
    let log = r#"Traceback (most recent call last):
  File "/home/me/proj/attn.py", line 120, in forward
    _attn_fwd[grid](q, k, v, o, N_CTX, BLOCK_M=64, num_warps=8, num_stages=2)
  File "/usr/lib/python3/site-packages/triton/runtime/jit.py", line 330, in <lambda>
python: /source/triton/lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp:1155: LinearLayout mlir::triton::gpu::(anonymous namespace)::chooseStMatrixLayoutLeadingOffset(MLIRContext *, RankedTensorType, int): Assertion `instrN >= numColsPerChunk && "Each chunk is filled in with a single warp"' failed.
/home/me/proj/attn.py:40:0: error: Failures have been detected while processing an MLIR pass pipeline
RuntimeError: PassManager::run failed
"#;
    let e = explain(log);
    let m = e.site.as_ref().expect("a known site");
    assert_eq!(m.site.id, "stmatrix");
    assert_eq!(m.releases, [Release::V3_3]);
    assert_eq!(m.fixed_in(), Some(Release::V3_4));
    assert_eq!(e.context.kernel.as_deref(), Some("_attn_fwd"));
    assert_eq!(e.context.num_warps, Some(8));
    let cmd = e.scan_command().expect("a scan command");
    assert!(cmd.contains("/home/me/proj/attn.py::_attn_fwd"), "{cmd}");
    assert!(cmd.contains("--num-warps 8"), "{cmd}");
    let text = e.to_text();
    assert!(text.contains("fixed in:    Triton 3.4"), "{text}");
    assert!(text.contains("workaround"), "{text}");
}
