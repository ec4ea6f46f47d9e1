//! What a crash log says besides the failure message: the lines that look
//! like the failure, the kernel, its file and configuration, the target,
//! the release's clues (a version, the dialect spelling, a caught crash),
//! and a TTGIR module pasted in it.

use crate::Release;

/// What the log says besides the message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The kernel's name.
    pub kernel: Option<String>,
    /// The kernel's source file.
    pub file: Option<String>,
    /// Warps.
    pub num_warps: Option<u32>,
    /// Stages.
    pub num_stages: Option<u32>,
    /// CTAs.
    pub num_ctas: Option<u32>,
    /// The target (`sm90`).
    pub arch: Option<String>,
    /// Tensor shapes (`64x64xbf16`).
    pub shapes: Vec<String>,
    /// A Triton version named in the log.
    pub version: Option<String>,
    /// The dialect spelling seen (`ttg` or `triton_gpu`).
    pub dialect: Option<&'static str>,
    /// Whether the crash was caught by the pass manager (3.3 and later).
    pub caught: bool,
    /// Whether the log names Triton (a `triton` path or frame, a
    /// `mlir::triton` function, Triton's dialects), or is known to be
    /// Triton's output.
    pub triton: bool,
}

/// The longest shape kept from a `tensor<…>` type.
const SHAPE_CHARS: usize = 64;

/// The lines that say what failed: the first [`super::KEY_LINES`]
/// distinct ones, and how many distinct ones there are (one pass, a set of
/// the lines seen).
pub(super) fn key_lines(lines: &[&str]) -> (Vec<String>, usize) {
    const MARKS: [&str; 10] = [
        "Assertion",
        "LLVM ERROR",
        "error:",
        "UNREACHABLE",
        "Error:",
        "terminate called",
        "PassManager::run failed",
        "Segmentation fault",
        "Aborted",
        "AssertionError",
    ];
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        let t = l.trim();
        if MARKS.iter().any(|m| t.contains(m)) && seen.insert(t) && out.len() < super::KEY_LINES {
            out.push(t.to_string());
        }
    }
    (out, seen.len())
}

fn number_after(log: &str, keys: &[&str]) -> Option<u32> {
    for key in keys {
        for (at, _) in log.match_indices(key) {
            let rest = log[at + key.len()..].trim_start_matches([' ', '=', ':', '"']);
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse() {
                return Some(n);
            }
        }
    }
    None
}

pub(super) fn context(log: &str, triton: bool) -> Context {
    let mut c = Context {
        triton,
        num_warps: number_after(log, &["num_warps", "num-warps\" =", "num-warps"]),
        num_stages: number_after(log, &["num_stages", "num-stages"]),
        num_ctas: number_after(log, &["num_ctas", "num-ctas\" =", "num-ctas"]),
        caught: log.contains("PassManager::run failed") || log.contains("A signal was caught"),
        ..Context::default()
    };
    if let Some(cap) = number_after(log, &["cuda:", "sm_", "capability="]).or_else(|| {
        log.match_indices("sm")
            .filter_map(|(at, _)| {
                let d: String = log[at + 2..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                (d.len() >= 2).then(|| d.parse().ok()).flatten()
            })
            .next()
    }) {
        c.arch = Some(format!("sm{cap}"));
    }
    if log.contains("\"ttg.") || log.contains(" ttg.") || log.contains("#ttg.") {
        c.dialect = Some("ttg");
    } else if log.contains("triton_gpu.") {
        c.dialect = Some("triton_gpu");
    }
    // a version: "triton 3.2.0", "triton==3.2.0", "triton-3.2.0", "v3.2.0"
    for key in ["triton==", "triton-", "triton ", "Triton ", "v3."] {
        for (at, _) in log.match_indices(key) {
            let start = at + key.len() - usize::from(key == "v3.") * 2;
            let v: String = log[start..]
                .chars()
                .take_while(|ch| ch.is_ascii_digit() || *ch == '.')
                .collect();
            if v.split('.').count() >= 2 && v.parse::<Release>().is_ok() && c.version.is_none() {
                c.version = Some(v.trim_end_matches('.').to_string());
            }
        }
    }
    // the kernel: a TTGIR function, a launch `name[grid](`, a `def name(`
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
            .collect()
    };
    for (at, _) in log.match_indices("tt.func") {
        // the name is on the op's own line: looking further would read the
        // rest of the log once per `tt.func`
        let line = log[at..].split('\n').next().unwrap_or("");
        if let Some(a) = line.find('@') {
            let name = ident(&line[a + 1..]);
            if !name.is_empty() && name != "repro" {
                c.kernel = Some(name);
                break;
            }
        }
    }
    if c.kernel.is_none() {
        for l in log.lines() {
            let t = l.trim();
            if let Some(def) = t.strip_prefix("def ") {
                let name = ident(def);
                if !name.is_empty() {
                    c.kernel = Some(name);
                    break;
                }
            }
        }
    }
    if c.kernel.is_none() {
        for l in log.lines() {
            if let Some(at) = l.find("[grid](").or_else(|| l.find("](")) {
                let before = &l[..at];
                let open = before.rfind('[').unwrap_or(at);
                let start = l[..open]
                    .rfind(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                    .map_or(0, |i| i + 1);
                let name = &l[start..open];
                if !name.is_empty() && name.chars().next().is_some_and(|ch| !ch.is_ascii_digit()) {
                    c.kernel = Some(name.to_string());
                    break;
                }
            }
        }
    }
    // the kernel's file: an MLIR location, or a traceback frame outside triton
    for (at, _) in log.match_indices("loc(\"") {
        let rest = log[at + 5..].split('\n').next().unwrap_or("");
        if let Some(end) = rest.find('"') {
            let f = &rest[..end];
            if f.ends_with(".py") {
                c.file = Some(f.to_string());
                break;
            }
        }
    }
    if c.file.is_none() {
        for l in log.lines() {
            let t = l.trim();
            if let Some(rest) = t.strip_prefix("File \"") {
                let f = rest.split('"').next().unwrap_or("");
                if f.ends_with(".py") && !f.contains("/triton/") && !f.contains("site-packages") {
                    c.file = Some(f.to_string());
                }
            }
        }
    }
    // shapes
    for (at, _) in log.match_indices("tensor<") {
        if c.shapes.len() == 6 {
            break;
        }
        let shape: String = log[at + 7..]
            .chars()
            .take(SHAPE_CHARS)
            .take_while(|ch| *ch != ',' && *ch != '>' && *ch != '!')
            .collect();
        if shape.contains('x') && !c.shapes.contains(&shape) {
            c.shapes.push(shape);
        }
    }
    c
}

/// A TTGIR module pasted in the log, and the release to read it as.
pub(super) fn module_in(log: &str) -> Option<(String, Release)> {
    let start = log.find("module attributes")?;
    let defs_start = log[..start]
        .rfind("\n#")
        .and_then(|_| {
            log[..start]
                .lines()
                .position(|l| l.trim_start().starts_with('#'))
                .map(|i| {
                    log[..start]
                        .lines()
                        .take(i)
                        .map(|l| l.len() + 1)
                        .sum::<usize>()
                })
        })
        .unwrap_or(start);
    let text = &log[defs_start..];
    let release = if text.contains("\"triton_gpu.num-warps\"") {
        Release::V3_2
    } else {
        Release::LATEST
    };
    Some((text.to_string(), release))
}
