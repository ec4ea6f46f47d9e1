//! Reducing a failing TTGIR module op by op while the model's verdict holds.
//!
//! The module is read as lines: each op is a unit (an op with regions, such
//! as `scf.for` or a `tt.func`, spans to its closing brace). A unit is
//! deleted when nothing left uses its results, the model still reports the
//! same site on the failing op, and that op still feeds a side effect (a
//! store), so that the real compiler cannot drop it as dead code. Passes
//! repeat until no unit can go; locations and unused layout definitions are
//! dropped first and last. The result is a candidate only: the scan then
//! compiles it with the release, where installed, to confirm it.

use linear_layout_triton::finder::check_ttgir;
use linear_layout_triton::{Release, Site};
use std::collections::BTreeSet;

/// The reduction rules' version, in the cache key of reduced modules:
/// raised whenever the rules change, so that no module reduced by older
/// rules is reused (2: integer tensors are no longer replaced by constants).
pub const VERSION: u32 = 2;

/// A reduced module.
#[derive(Clone, Debug)]
pub struct Reduced {
    /// The module text.
    pub text: String,
    /// Ops before and after (units, nested ones counted).
    pub ops_before: usize,
    /// Ops after.
    pub ops_after: usize,
    /// The failing op's line in the reduced module (1-based).
    pub line: usize,
}

/// Drops `loc(...)` references and `#loc` definitions.
pub fn strip_locations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#loc") && t.contains("= loc(") {
            continue;
        }
        let mut rest = line;
        let mut kept = String::new();
        while let Some(at) = rest.find("loc(") {
            // only a location: preceded by a space or `(` / start
            let before = &rest[..at];
            if !(before.is_empty() || before.ends_with(' ') || before.ends_with('(')) {
                kept.push_str(&rest[..at + 4]);
                rest = &rest[at + 4..];
                continue;
            }
            let mut depth = 0usize;
            let mut end = None;
            let mut in_str = false;
            for (i, c) in rest[at..].char_indices() {
                match c {
                    '"' => in_str = !in_str,
                    '(' if !in_str => depth += 1,
                    ')' if !in_str => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(at + i + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(end) = end else { break };
            kept.push_str(before.trim_end_matches(' '));
            rest = &rest[end..];
        }
        kept.push_str(rest);
        out.push_str(kept.trim_end());
        out.push('\n');
    }
    out
}

/// `{` minus `}` outside string literals.
fn net_braces(line: &str) -> i64 {
    let mut n = 0;
    let mut in_str = false;
    let mut prev = ' ';
    for c in line.chars() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            '{' if !in_str => n += 1,
            '}' if !in_str => n -= 1,
            _ => {}
        }
        prev = c;
    }
    n
}

/// One op (or function), as a span of lines.
#[derive(Clone, Debug)]
struct Unit {
    start: usize,
    end: usize,
}

fn units(lines: &[&str]) -> Vec<Unit> {
    let mut depth_before = Vec::with_capacity(lines.len() + 1);
    let mut d = 0i64;
    for l in lines {
        depth_before.push(d);
        d += net_braces(l);
    }
    depth_before.push(d);
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let starts = t.starts_with('%')
            || t.starts_with("tt.func")
            || (t.starts_with('"') && t.contains('('))
            || (t.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && t.split_whitespace().next().is_some_and(|w| w.contains('.')));
        if !starts || t.starts_with("module") {
            continue;
        }
        let mut end = i;
        if net_braces(l) > 0 {
            let base = depth_before[i];
            for (j, db) in depth_before.iter().enumerate().skip(i + 1) {
                if *db == base {
                    end = j - 1;
                    break;
                }
            }
        }
        out.push(Unit { start: i, end });
    }
    out
}

/// The `%name` tokens of a line, each with whether the line defines it.
fn tokens(line: &str) -> Vec<(String, bool)> {
    let t = line.trim_start();
    let results_end = if t.starts_with('%') {
        t.find(" = ").map(|i| i + (line.len() - t.len()))
    } else {
        None
    };
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let mut j = i + 1;
            while j < bytes.len()
                && (bytes[j].is_ascii_alphanumeric()
                    || matches!(bytes[j], b'_' | b'$' | b'.' | b'-'))
            {
                j += 1;
            }
            if j > i + 1 {
                let name = line[i..j].to_string();
                let after = &line[j..];
                let def = results_end.is_some_and(|e| i < e)
                    || after.starts_with(": ")
                    || after.starts_with(" = ")
                    || (after.starts_with(':')
                        && after[1..].starts_with(|c: char| c.is_ascii_digit()));
                out.push((name, def));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether every used value is defined somewhere in the text.
fn ssa_closed(lines: &[&str]) -> bool {
    let mut defined = BTreeSet::new();
    let mut used = BTreeSet::new();
    for l in lines {
        for (name, def) in tokens(l) {
            if def {
                defined.insert(name);
            } else {
                used.insert(name);
            }
        }
    }
    used.is_subset(&defined)
}

fn op_name(line: &str) -> &str {
    let t = line.trim_start();
    let t = match t.find(" = ") {
        Some(i) if t.starts_with('%') => &t[i + 3..],
        _ => t,
    };
    let t = t.trim_start_matches('"');
    t.split(|c: char| c.is_whitespace() || c == '"' || c == '(')
        .next()
        .unwrap_or("")
}

/// Terminators and function bodies the module cannot lose.
fn is_terminator(op: &str) -> bool {
    let short = op.rsplit('.').next().unwrap_or(op);
    matches!(short, "return" | "yield" | "condition" | "br" | "cond_br")
}

/// The result type of a one-line op producing one tensor of numbers (the
/// type after the last `->`, else after the last ` : `), and the constant
/// that can stand in for it.
fn constant_for(line: &str) -> Option<String> {
    let t = line.trim_start();
    let (results, _) = t.split_once(" = ")?;
    if !results.starts_with('%') || results.contains(',') || results.contains(':') {
        return None;
    }
    let op = op_name(line);
    // comparisons print their operands' type, not their result's
    if op.ends_with("constant") || op.ends_with("cmpi") || op.ends_with("cmpf") {
        return None;
    }
    let ty = match t.rfind(" -> ") {
        Some(i) => &t[i + 4..],
        None => &t[t.rfind(" : ")? + 3..],
    };
    // a cast: `%y = arith.truncf %x : A to B`; several operand types: the last
    let ty = ty.rsplit(" to ").next().unwrap_or(ty).trim();
    if ty.contains("!tt.ptr") || ty.contains("memdesc") {
        return None;
    }
    let ty = &ty[ty.rfind("tensor<").unwrap_or(0)..];
    if !ty.starts_with("tensor<")
        || ty.contains("!tt.ptr")
        || ty.contains('(')
        || !ty.ends_with('>')
    {
        return None;
    }
    let body = &ty[7..ty.len() - 1];
    let elem = body.split(',').next()?.rsplit('x').next()?.trim();
    // Only numbers that are data: an integer tensor is an index or an
    // offset, whose constant replacement changes what the compiler's axis
    // analysis proves (contiguity, alignment), hence the vector width of the
    // loads and copies it feeds: a reduction that way ends in another
    // failure (a 2-byte `cp.async`) instead of the site's.
    let zero = if elem.starts_with('f') || elem.starts_with("bf") {
        "0.000000e+00"
    } else {
        return None;
    };
    let indent = &line[..line.len() - t.len()];
    Some(format!(
        "{indent}{results} = arith.constant dense<{zero}> : {ty}"
    ))
}

fn has_side_effect(op: &str) -> bool {
    let short = op.rsplit('.').next().unwrap_or(op);
    matches!(
        short,
        "store" | "local_store" | "async_copy_global_to_local" | "descriptor_store" | "call"
    ) || short.starts_with("atomic")
        || op.ends_with("async_tma_copy_local_to_global")
}

/// Whether the op on `line` feeds a side effect (or is one).
fn live(lines: &[&str], failing: usize) -> bool {
    if has_side_effect(op_name(lines[failing])) {
        return true;
    }
    let all = units(lines);
    let mut values: BTreeSet<String> = tokens(lines[failing])
        .into_iter()
        .filter(|(_, d)| *d)
        .map(|(n, _)| n)
        .collect();
    // follow uses forward, a few rounds (each round crosses one op)
    for _ in 0..64 {
        let mut grew = false;
        for u in &all {
            let span = &lines[u.start..=u.end];
            if (u.start..=u.end).contains(&failing) {
                // an enclosing loop or function: its results carry what
                // its terminator yields
                let yields = span.iter().any(|l| {
                    is_terminator(op_name(l))
                        && tokens(l).iter().any(|(n, d)| !d && values.contains(n))
                });
                if yields && u.start != failing {
                    for (n, d) in tokens(lines[u.start]) {
                        if d && values.insert(n) {
                            grew = true;
                        }
                    }
                }
                continue;
            }
            let uses = span
                .iter()
                .flat_map(|l| tokens(l))
                .any(|(n, d)| !d && values.contains(&n));
            if !uses {
                continue;
            }
            if span.iter().any(|l| has_side_effect(op_name(l))) {
                return true;
            }
            for l in span {
                for (n, d) in tokens(l) {
                    if d && values.insert(n) {
                        grew = true;
                    }
                }
            }
        }
        if !grew {
            break;
        }
    }
    false
}

fn fails_at(text: &str, release: Release, site: &Site, op_line: &str) -> Option<usize> {
    let findings = check_ttgir::check(text, release).ok()?;
    findings
        .iter()
        .find(|f| {
            f.failure.site.id == site.id
                && !f.op.starts_with('#')
                && text
                    .lines()
                    .nth(f.line - 1)
                    .is_some_and(|l| l.trim() == op_line.trim())
        })
        .map(|f| f.line)
}

/// Drops `#name = …` definitions nothing refers to.
fn drop_unused_definitions(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    loop {
        let mut removed = false;
        for i in 0..lines.len() {
            let t = lines[i].trim_start();
            let Some(name) = t
                .strip_prefix('#')
                .and_then(|r| r.split_once(" = "))
                .map(|(n, _)| n)
            else {
                continue;
            };
            let reference = format!("#{name}");
            let used = lines.iter().enumerate().any(|(j, l)| {
                j != i
                    && l.match_indices(&reference).any(|(at, _)| {
                        !l[at + reference.len()..]
                            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    })
            });
            if !used {
                lines.remove(i);
                removed = true;
                break;
            }
        }
        if !removed {
            break;
        }
    }
    lines.join("\n") + "\n"
}

/// Reduces `text` (a module that `release`'s model fails at `site` on line
/// `line`, 1-based) while the model still fails there and the op stays
/// live. `None` when the module does not fail so to begin with.
pub fn reduce(text: &str, release: Release, site: &Site, line: usize) -> Option<Reduced> {
    let op_line = text.lines().nth(line.checked_sub(1)?)?.to_string();
    let current = strip_locations(text);
    let op_line = strip_locations(&op_line).trim().to_string();
    fails_at(&current, release, site, &op_line)?;
    let ops_before = units(&current.lines().collect::<Vec<_>>()).len();
    // The model checks each op line on its own (with the module's layout
    // definitions), so removing other ops cannot change its verdict on the
    // failing op: the passes check only SSA and liveness, and the model's
    // verdict is checked once at the end (and, should it not hold, the
    // passes run again checking it at every step).
    let passes = |mut current: String, each_step: bool| -> String {
        loop {
            let mut changed = false;
            let mut pos = usize::MAX;
            loop {
                let owned = current.clone();
                let lines: Vec<&str> = owned.lines().collect();
                let all = units(&lines);
                let Some(u) = all.iter().rev().find(|u| u.start < pos) else {
                    break;
                };
                pos = u.start;
                if lines[u.start..=u.end].iter().any(|l| l.trim() == op_line)
                    || is_terminator(op_name(lines[u.start]))
                {
                    continue;
                }
                let constant = (u.start == u.end)
                    .then(|| constant_for(lines[u.start]))
                    .flatten();
                let deleted: Vec<String> = lines[..u.start]
                    .iter()
                    .chain(lines[u.end + 1..].iter())
                    .map(|l| l.to_string())
                    .collect();
                let replaced: Option<Vec<String>> = constant.map(|c| {
                    let mut v: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                    v[u.start] = c;
                    v
                });
                for kept in std::iter::once(deleted).chain(replaced) {
                    let refs: Vec<&str> = kept.iter().map(String::as_str).collect();
                    if !ssa_closed(&refs) {
                        continue;
                    }
                    let Some(at) = refs.iter().position(|l| l.trim() == op_line) else {
                        continue;
                    };
                    if !live(&refs, at) {
                        continue;
                    }
                    let candidate = kept.join("\n") + "\n";
                    if candidate != current
                        && (!each_step || fails_at(&candidate, release, site, &op_line).is_some())
                    {
                        current = candidate;
                        changed = true;
                        break;
                    }
                }
            }
            if !changed {
                return current;
            }
        }
    };
    let fast = passes(current.clone(), false);
    let current = if fails_at(&fast, release, site, &op_line).is_some() {
        fast
    } else {
        passes(current, true)
    };
    let text = drop_unused_definitions(&current);
    let line = fails_at(&text, release, site, &op_line)?;
    let ops_after = units(&text.lines().collect::<Vec<_>>()).len();
    Some(Reduced {
        text,
        ops_before,
        ops_after,
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_go() {
        let t = "#loc = loc(\"k.py\":1:0)\n  %0 = tt.get_program_id x : i32 loc(#loc1)\n";
        assert_eq!(strip_locations(t), "  %0 = tt.get_program_id x : i32\n");
    }

    #[test]
    fn definitions_and_uses() {
        let toks = tokens(
            "    %5:2 = scf.for %arg3 = %c0 to %c8 step %c1 iter_args(%arg4 = %4) -> (i32) {",
        );
        let defs: Vec<&str> = toks.iter().filter(|t| t.1).map(|t| t.0.as_str()).collect();
        let uses: Vec<&str> = toks.iter().filter(|t| !t.1).map(|t| t.0.as_str()).collect();
        assert_eq!(defs, ["%5", "%arg3", "%arg4"]);
        assert_eq!(uses, ["%c0", "%c8", "%c1", "%4"]);
        let toks =
            tokens("  tt.func public @k(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {");
        assert_eq!(toks, [("%arg0".to_string(), true)]);
        assert_eq!(
            op_name("    %3 = ttg.local_alloc %2 : (tensor<64x64xf16, #mma>)"),
            "ttg.local_alloc"
        );
        assert_eq!(
            op_name("    tt.store %a, %b : tensor<64x!tt.ptr<f16>>"),
            "tt.store"
        );
    }
}
