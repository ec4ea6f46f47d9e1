//! `check-ttgir`: find the layout-sensitive ops in a TTGIR dump and run the
//! modelled checks on them, with line numbers.

use super::op::{Module, Op, all_typed, typed};
use super::sites::{self, Entry, Event, Failure, Stage};
use super::verdict::{Trace, Verdict};
use crate::{ConvertError, Defs, Release, parse_attr, to_linear_layout};

/// A finding in a TTGIR file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based line of the op.
    pub line: usize,
    /// The op (`local_alloc`, …), or `#name` for a layout definition the
    /// release cannot parse.
    pub op: String,
    /// How compiling the file ends there.
    pub verdict: Verdict,
    /// What fails.
    pub failure: Failure,
}

/// The layout-sensitive ops, as they are spelled after the dialect prefix.
const OPS: [&str; 12] = [
    "local_alloc",
    "local_load",
    "local_store",
    "convert_layout",
    "async_copy_global_to_local",
    "warp_group_dot",
    "dot_scaled",
    "make_range",
    "tc_gen5_mma",
    "tmem_load",
    "tmem_store",
    "fp_to_fp",
];

/// Input that holds no TTGIR module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "no TTGIR module here (a module has `module attributes {{\"ttg.num-warps\" = …}}`, or \
     `\"triton_gpu.num-warps\"` up to 3.2)"
)]
pub struct NotTtgir;

/// Whether `text` is a TTGIR module, and what looks wrong for reading it as
/// `release`'s: warnings when its dialect spelling is another release's.
pub fn looks_like(text: &str, release: Release) -> Result<Vec<String>, NotTtgir> {
    let spelled = |dialect: &str| text.contains(&format!("\"{dialect}.num-warps\""));
    let dialects = ["ttg", "triton_gpu"];
    let Some(found) = dialects.into_iter().find(|d| spelled(d)) else {
        return Err(NotTtgir);
    };
    let mut warnings = Vec::new();
    if found != release.dialect() {
        let writers: Vec<&str> = crate::RELEASES
            .iter()
            .filter(|r| r.dialect == found)
            .map(|r| r.name)
            .collect();
        warnings.push(format!(
            "the module is spelled `{found}.`, as Triton {} print it, but is read as Triton {release}, \
             which spells `{}.`; pass --triton with the release that wrote it",
            writers.join(", "),
            release.dialect()
        ));
    }
    Ok(warnings)
}

/// What checking one op (or definition) of a module gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A modelled check fails there.
    Finding(Finding),
    /// The op could not be checked: what it is built from cannot be read
    /// as Triton writes it.
    Unchecked(Unchecked),
}

/// A layout-sensitive op the models could not be run on, and why. A
/// module holding one is not known to compile: its verdict is unknown, not
/// "nothing fails".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unchecked {
    /// 1-based line of the op.
    pub line: usize,
    /// The op.
    pub op: String,
    /// Why it was not checked.
    pub reason: String,
}

/// What a check went over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The modules in the text, each checked on its own (a concatenation
    /// of dumps holds several).
    pub modules: usize,
    /// The layout-sensitive ops the models ran on.
    pub checked: usize,
}

/// Every finding and every op not checked, with the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// The failures, in file order.
    pub findings: Vec<Finding>,
    /// The ops not checked, in file order.
    pub unchecked: Vec<Unchecked>,
    /// What was gone over.
    pub summary: Summary,
}

/// Runs every site's model over every layout-sensitive op of `text`: for
/// each op, the first failure the release's lowering meets there. A text
/// holding several modules is checked module by module. Ops that cannot
/// be checked are left out; [`report`] and [`check_each`] list them.
/// The assembler's risks are [`risks`]'.
pub fn check(text: &str, release: Release) -> linear_layout::Result<Vec<Finding>> {
    let mut findings = Vec::new();
    check_each(text, release, |item| {
        if let Item::Finding(f) = item {
            findings.push(f);
        }
    })?;
    Ok(findings)
}

/// [`check_each`], collected.
pub fn report(text: &str, release: Release) -> linear_layout::Result<Checked> {
    let mut report = Checked::default();
    report.summary = check_each(text, release, |item| match item {
        Item::Finding(f) => report.findings.push(f),
        Item::Unchecked(u) => report.unchecked.push(u),
    })?;
    Ok(report)
}

/// Runs the models over `text` as [`check`] does, handing each finding and
/// each op that could not be checked to `each` as soon as its module is
/// done, so that a caller can write them out without keeping them. Within
/// a module, the ops not checked come first, then what the lowering's
/// first pass (the rewrite of conversions over the whole module,
/// `Event::Decompose`) fails on, then what lowering each op in program
/// order (`Event::Op`) fails on, then what the verifier of the lowered
/// module refuses ([`Stage::LoweredModuleVerifier`]: it runs only once every
/// op is lowered), each in file order. Time is linear in the
/// text (each line is read a bounded number of times), memory that of the
/// text and one op.
///
/// Each module of the text (a line starting `module`, with the `#name =`
/// definitions before it) is read with its own definitions. A definition
/// given twice within one module is an error (MLIR refuses it), as is one
/// the parser cannot read.
pub fn check_each(
    text: &str,
    release: Release,
    mut each: impl FnMut(Item),
) -> linear_layout::Result<Summary> {
    let lines: Vec<&str> = text.lines().collect();
    let mut summary = Summary::default();
    for part in modules(&lines)? {
        summary.modules += 1;
        // A definition the release cannot read ends the compile as the
        // module is parsed, before any op is lowered.
        if let Some(mut refused) = refused_definition(&part.text, &part.defs, release) {
            refused.line += part.start;
            each(Item::Finding(refused));
            continue;
        }
        // From 3.5 the file's tensor types are verified through their
        // linear layouts as it is parsed, outside any pass manager.
        if let Some(mut refused) = refused_tensor_type(&part.text, &part.defs, release) {
            refused.line += part.start;
            each(Item::Finding(refused));
            continue;
        }
        let module = Module::read(&part.text);
        // The lowering checks its target before it lowers any op.
        if let Some(arch) = module.arch {
            let event = Event::LowerModule { arch };
            if let Err(failure) = sites::run(&event, release, &mut Trace::new(false)) {
                each(Item::Finding(Finding {
                    line: part.start + module.line,
                    op: "module".to_string(),
                    verdict: failure.verdict(Entry::IrFile),
                    failure,
                }));
                continue;
            }
        }
        // The ops are read afresh for each pass rather than kept: a module
        // of many ops costs the memory of one. What the verifier refuses
        // after the lowering waits for every op's lowering (few findings:
        // at most one per op).
        let mut verified_after = Vec::new();
        for decompose in [true, false] {
            walk_ops(&part, &module, |seen| match seen {
                Seen::Unchecked(u) => {
                    if decompose {
                        each(Item::Unchecked(u));
                    }
                }
                Seen::Op(index, op) => {
                    let event = if decompose {
                        summary.checked += 1;
                        Event::Decompose(&op)
                    } else {
                        Event::Op(&op)
                    };
                    if let Err(failure) = sites::run(&event, release, &mut Trace::new(false)) {
                        let after =
                            sites::stage_of(failure.site.id) == Some(Stage::LoweredModuleVerifier);
                        let finding = Item::Finding(Finding {
                            line: part.start + index + 1,
                            op: op.name.to_string(),
                            verdict: failure.verdict(Entry::IrFile),
                            failure,
                        });
                        if after {
                            verified_after.push(finding);
                        } else {
                            each(finding);
                        }
                    }
                }
            });
        }
        verified_after.into_iter().for_each(&mut each);
    }
    Ok(summary)
}

/// The risks the assembler the release bundles takes with the module once
/// Triton has compiled it ([`crate::Ending::Risk`] sites): kernels of a
/// shape the assembler is known to miscompile sometimes. Reported beside
/// [`check`]'s findings, never as a compile's verdict. Ops that cannot be
/// checked are left out, as in [`check`].
pub fn risks(text: &str, release: Release) -> linear_layout::Result<Vec<Finding>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut findings = Vec::new();
    for part in modules(&lines)? {
        let module = Module::read(&part.text);
        walk_ops(&part, &module, |seen| {
            let Seen::Op(index, op) = seen else {
                return;
            };
            let event = Event::Assemble {
                op: &op,
                lines: part.lines,
                index,
            };
            if let Err(failure) = sites::run(&event, release, &mut Trace::new(false)) {
                findings.push(Finding {
                    line: part.start + index + 1,
                    op: op.name.to_string(),
                    verdict: failure.verdict(Entry::IrFile),
                    failure,
                });
            }
        });
    }
    Ok(findings)
}

/// One module of a text: its lines, where they start, and its definitions.
struct ModuleText<'a> {
    /// The 0-based line of the text the module starts on.
    start: usize,
    /// The module's lines.
    lines: &'a [&'a str],
    /// The same, joined.
    text: String,
    /// Its `#name = …` definitions.
    defs: Defs,
}

/// The modules of a text, each with its definitions. Every module's
/// definitions are read before any op is looked at: an error in them ends
/// the check before anything is reported.
fn modules<'a>(lines: &'a [&'a str]) -> linear_layout::Result<Vec<ModuleText<'a>>> {
    let mut modules = Vec::new();
    for (start, end) in module_spans(lines) {
        let part = &lines[start..end];
        let text = part.join("\n");
        once_each_alias(part, start)?;
        let defs = Defs::from_module(&text).map_err(|e| shift_lines(e, start))?;
        modules.push(ModuleText {
            start,
            lines: part,
            text,
            defs,
        });
    }
    Ok(modules)
}

/// A layout-sensitive op met by [`walk_ops`].
enum Seen<'a> {
    /// An op that can be checked, with its 0-based line in the module.
    Op(usize, Op<'a>),
    /// One that cannot, with its line counted in the whole text.
    Unchecked(Unchecked),
}

/// Hands every layout-sensitive op of a module to `seen`, in file order.
fn walk_ops<'a>(part: &'a ModuleText<'a>, module: &'a Module, mut seen: impl FnMut(Seen<'a>)) {
    let patterns: Vec<(&'static str, String, String)> = OPS
        .into_iter()
        .map(|op| (op, format!(".{op} "), format!(".{op}\"")))
        .collect();
    let region_patterns: Vec<(&'static str, String)> = REGION_OPS
        .into_iter()
        .map(|op| (op, format!("\"tt.{op}\"(")))
        .collect();
    let (lines, defs) = (part.lines, &part.defs);
    let mut closes = RegionCloser::default();
    for (index, line) in lines.iter().enumerate() {
        // `tt.gather` is not checked: its layout fails in the
        // thread-locality pass (the `gather_layout` site), which compiling a
        // TTGIR file does not run (Triton starts after the file's own
        // stage); its lowering is not modelled.
        let region = region_patterns
            .iter()
            .find(|(_, spelled)| line.contains(spelled.as_str()));
        let (op, types) = if let Some(&(name, _)) = region {
            match closes.after(lines, index) {
                Some(close) => (
                    region_op(lines, index, close, name, defs, module),
                    lines[close],
                ),
                None => {
                    seen(Seen::Unchecked(Unchecked {
                        line: part.start + index + 1,
                        op: name.into(),
                        reason: format!(
                            "the {name}'s region does not close with its operands' types \
                             (`}}) : (tensor<…>, …) -> …`)"
                        ),
                    }));
                    continue;
                }
            }
        } else {
            let op = patterns
                .iter()
                .find(|(_, spaced, quoted)| line.contains(spaced) || line.contains(quoted))
                .map(|&(name, _, _)| Op {
                    name,
                    line,
                    tensor: typed(line, "tensor<"),
                    buffer: typed(line, "memdesc<").or_else(|| typed(line, "-> <")),
                    result: typed(line, "-> tensor<").map(|t| t.2),
                    types: all_typed(line),
                    defs,
                    module,
                });
            (op, *line)
        };
        let Some(op) = op else {
            continue;
        };
        if let Some(reason) = unreadable(&op, types, defs) {
            seen(Seen::Unchecked(Unchecked {
                line: part.start + index + 1,
                op: op.name.to_string(),
                reason,
            }));
            continue;
        }
        seen(Seen::Op(index, op));
    }
}

/// The `[start, end)` line ranges of the modules of a text: one per line
/// that opens a top-level module (`module` at the start of the line), each
/// taking the definitions and comments right before it; the first also
/// takes everything before it. A text with at most one such line is one
/// module.
fn module_spans(lines: &[&str]) -> Vec<(usize, usize)> {
    let opens: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.strip_prefix("module")
                .is_some_and(|rest| rest.starts_with([' ', '{']))
        })
        .map(|(i, _)| i)
        .collect();
    if opens.len() <= 1 {
        return vec![(0, lines.len())];
    }
    let mut starts = vec![0];
    for pair in opens.windows(2) {
        let (previous, open) = (pair[0], pair[1]);
        let mut start = open;
        while start > previous + 1 {
            let above = lines[start - 1].trim_start();
            if above.is_empty() || above.starts_with('#') || above.starts_with("//") {
                start -= 1;
            } else {
                break;
            }
        }
        starts.push(start);
    }
    let ends = starts.iter().skip(1).copied().chain([lines.len()]);
    starts.iter().copied().zip(ends).collect()
}

/// The name of a `#name = #…` definition on `line`, as
/// [`Defs::from_module`] reads them.
fn defined_name(line: &str) -> Option<&str> {
    let (name, value) = line.trim_start().strip_prefix('#')?.split_once('=')?;
    let name = name.trim();
    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (plain && value.trim_start().starts_with('#')).then_some(name)
}

/// An error when a module defines an alias twice (the later definition
/// would silently replace the earlier one for every op).
fn once_each_alias(lines: &[&str], first_line: usize) -> linear_layout::Result<()> {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(name) = defined_name(line) else {
            continue;
        };
        if let Some(first) = seen.insert(name, index) {
            return Err(linear_layout::LayoutError::Parse {
                format: "TTGIR module",
                line: first_line + index + 1,
                column: 1,
                message: format!(
                    "`#{name}` is defined again (first on line {}); a module defines each alias \
                     once",
                    first_line + first + 1
                ),
            });
        }
    }
    Ok(())
}

/// A parse error of a module starting at line `start` (0-based) of the
/// text, with the line counted in the whole text.
fn shift_lines(e: linear_layout::LayoutError, start: usize) -> linear_layout::LayoutError {
    match e {
        linear_layout::LayoutError::Parse {
            format,
            line,
            column,
            message,
        } => linear_layout::LayoutError::Parse {
            format,
            line: line + start,
            column,
            message,
        },
        other => other,
    }
}

/// The largest tensor the models take: 2^30 elements (Triton's sizes are
/// int32).
const MAX_ELEMENTS_LOG2: u32 = 30;

/// Why `op` cannot be checked, if it cannot: a type on its line (`types`,
/// a scan's closing line) whose sizes are not numbers MLIR accepts or that
/// has more dims than a layout may ([`linear_layout::MAX_DIMS`]), a tensor
/// whose shape is not Triton's (power-of-two dims, at most 2^30 elements),
/// an encoding not defined in the module or not readable, or no type at
/// all.
fn unreadable(op: &Op<'_>, types: &str, defs: &Defs) -> Option<String> {
    let mut any = false;
    for opener in ["tensor<", "memdesc<"] {
        for (at, _) in types.match_indices(opener) {
            // `!tt.memdesc<`, `tensor<`, not a longer name ending so
            if types[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                continue;
            }
            any = true;
            let body = &types[at + opener.len()..];
            let body = &body[..body.find([',', '>']).unwrap_or(body.len())];
            let shown = clip(body);
            let mut parts: Vec<&str> = body.split('x').collect();
            parts.pop();
            if parts.len() > linear_layout::MAX_DIMS {
                return Some(format!(
                    "`{opener}{shown}`: rank {}, more than the {} dims a layout may have",
                    parts.len(),
                    linear_layout::MAX_DIMS
                ));
            }
            let mut log2 = 0u32;
            for part in parts {
                let Some(size) = part
                    .trim()
                    .parse::<i64>()
                    .ok()
                    .and_then(|s| u64::try_from(s).ok())
                else {
                    return Some(format!(
                        "`{opener}{shown}`: `{}` is not a size MLIR reads (an integer from 0 to \
                         2^63 - 1)",
                        clip(part.trim())
                    ));
                };
                if opener == "tensor<" {
                    if size == 0 || !size.is_power_of_two() {
                        return Some(format!(
                            "`{opener}{shown}`: a Triton tensor's dims are powers of two, not {size}"
                        ));
                    }
                    log2 += size.trailing_zeros();
                    if log2 > MAX_ELEMENTS_LOG2 {
                        return Some(format!(
                            "`{opener}{shown}`: more than 2^{MAX_ELEMENTS_LOG2} elements (Triton's \
                             sizes are int32)"
                        ));
                    }
                }
            }
        }
    }
    if !any {
        return Some("no `tensor<…>` or `memdesc<…>` type on the op's line".into());
    }
    let encodings = [
        op.tensor.as_ref().map(|t| t.2.as_str()),
        op.buffer.as_ref().map(|t| t.2.as_str()),
        op.result.as_deref(),
    ];
    for name in encodings.into_iter().flatten() {
        let alias = name.strip_prefix('#').filter(|n| !n.contains('.'));
        match alias {
            Some(alias) if defs.get(alias).is_none() => {
                let name = clip(name);
                return Some(format!(
                    "the encoding `{name}` is not defined in the module (no `{name} = …` line)"
                ));
            }
            Some(_) => {}
            None => {
                if let Err(e) = crate::parse_attr(name, defs) {
                    return Some(format!("the encoding `{}` cannot be read: {e}", clip(name)));
                }
            }
        }
    }
    None
}

/// `s`, cut to its first 60 characters (a reason quotes the input).
fn clip(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The ops printed in generic form with a region (`"tt.scan"(…) ({…})`,
/// `"tt.reduce"`), read by [`region_op`].
const REGION_OPS: [&str; 2] = ["scan", "reduce"];

/// Finds the line closing each region op's region, for region ops met in
/// file order: the next line after the op that starts `})` and holds the
/// operands' types (a region holds scalar ops only, so the first such line
/// closes it). Its search only moves forward, so all the region ops of a
/// module cost one pass over its lines.
#[derive(Default)]
struct RegionCloser {
    /// The line searched from next, and the closing line found there.
    at: usize,
    found: Option<usize>,
}

impl RegionCloser {
    /// The closing line of the region op on line `index`.
    fn after(&mut self, lines: &[&str], index: usize) -> Option<usize> {
        if let Some(close) = self.found.filter(|&c| c > index) {
            return Some(close);
        }
        let from = self.at.max(index + 1);
        let close = (from..lines.len())
            .find(|&i| lines[i].trim_start().starts_with("})") && lines[i].contains(": (tensor<"));
        self.at = close.map_or(lines.len(), |c| c + 1);
        self.found = close;
        close
    }
}

/// The `tt.scan` or `tt.reduce` starting on line `index`, whose region
/// closes on line `close`. Such an op is printed in generic form over
/// several lines: the op and its `axis` first, the combine region, then
/// `}) : (tensor<…>, …) -> …` with the operands' and results' types.
fn region_op<'a>(
    lines: &[&'a str],
    index: usize,
    close: usize,
    name: &'static str,
    defs: &'a Defs,
    module: &'a Module,
) -> Option<Op<'a>> {
    let types = lines.get(close)?;
    Some(Op {
        name,
        line: lines.get(index)?,
        tensor: typed(types, ": (tensor<"),
        buffer: None,
        result: typed(types, "-> tensor<").map(|t| t.2),
        types: all_typed(types),
        defs,
        module,
    })
}

/// The first `#name = <layout>` definition whose spelling `release`'s
/// parser refuses, as a finding on its line.
fn refused_definition(text: &str, defs: &Defs, release: Release) -> Option<Finding> {
    text.lines().enumerate().find_map(|(index, line)| {
        let (name, _) = line.trim_start().strip_prefix('#')?.split_once('=')?;
        let name = name.trim();
        let event = Event::Definition(defs.get(name)?);
        let failure = sites::run(&event, release, &mut Trace::new(false)).err()?;
        Some(Finding {
            line: index + 1,
            op: format!("#{name}"),
            verdict: failure.verdict(Entry::IrFile),
            failure,
        })
    })
}

/// The first tensor type (`tensor<4x16xf32, #mma>`) whose layout
/// `release`'s converter fails on, where the release verifies tensor types
/// through their linear layouts as the file is parsed
/// ([`Release::verifies_tensor_layouts_at_parse`]), as a finding on its
/// line: outside any pass manager, an assertion there kills the compile.
fn refused_tensor_type(text: &str, defs: &Defs, release: Release) -> Option<Finding> {
    if !release.verifies_tensor_layouts_at_parse() {
        return None;
    }
    text.lines().enumerate().find_map(|(index, line)| {
        let mut rest = line;
        while let Some(at) = rest.find("tensor<") {
            let here = typed(rest, "tensor<");
            rest = &rest[at + "tensor<".len()..];
            let Some((shape, _, enc)) = here else {
                continue;
            };
            let Ok(attr) = parse_attr(&enc, defs) else {
                continue;
            };
            if attr.is_shared() {
                continue;
            }
            if let Err(ConvertError::Triton(failure)) =
                to_linear_layout(&attr, &shape, release, None)
            {
                return Some(Finding {
                    line: index + 1,
                    op: "tensor type".to_string(),
                    verdict: failure.verdict_outside_passes(),
                    failure: *failure,
                });
            }
        }
        None
    })
}
