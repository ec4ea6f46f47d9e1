//! `check-ttgir`: find the layout-sensitive ops in a TTGIR dump and run the
//! modelled checks on them, with line numbers.

use super::op::{Module, Op, all_typed, typed};
use super::sites::{self, Entry, Event, Failure};
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
const OPS: [&str; 11] = [
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

/// Runs every site's model over every layout-sensitive op of `text`: for
/// each op, the first failure the release's lowering meets there.
pub fn check(text: &str, release: Release) -> linear_layout::Result<Vec<Finding>> {
    let defs = Defs::from_module(text)?;
    // A definition the release cannot read ends the compile as the module
    // is parsed, before any op is lowered.
    if let Some(refused) = refused_definition(text, &defs, release) {
        return Ok(vec![refused]);
    }
    // From 3.5 the file's tensor types are verified through their linear
    // layouts as it is parsed, outside any pass manager.
    if let Some(refused) = refused_tensor_type(text, &defs, release) {
        return Ok(vec![refused]);
    }
    let module = Module::read(text);
    // The lowering checks its target before it lowers any op.
    if let Some(arch) = module.arch {
        let event = Event::LowerModule { arch };
        if let Err(failure) = sites::run(&event, release, &mut Trace::new(false)) {
            return Ok(vec![Finding {
                line: module.line,
                op: "module".to_string(),
                verdict: failure.verdict(Entry::IrFile),
                failure,
            }]);
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    let ops = read_ops(&lines, &defs, &module);
    // The lowering's first pass rewrites conversions over the whole module
    // (`Event::Decompose`) before any op is allocated or lowered; then each
    // op is lowered in program order (`Event::Op`).
    let mut findings = Vec::new();
    for decompose in [true, false] {
        for (index, op) in &ops {
            let event = if decompose {
                Event::Decompose(op)
            } else {
                Event::Op(op)
            };
            if let Err(failure) = sites::run(&event, release, &mut Trace::new(false)) {
                findings.push(Finding {
                    line: index + 1,
                    op: op.name.to_string(),
                    verdict: failure.verdict(Entry::IrFile),
                    failure,
                });
            }
        }
    }
    Ok(findings)
}

/// Every layout-sensitive op of the module, with its 0-based line.
fn read_ops<'a>(lines: &[&'a str], defs: &'a Defs, module: &'a Module) -> Vec<(usize, Op<'a>)> {
    let mut ops = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        // `tt.gather` is not checked: its layout fails in the
        // thread-locality pass (the `gather_layout` site), which compiling a
        // TTGIR file does not run (Triton starts after the file's own
        // stage); its lowering is not modelled.
        let op = if let Some(name) = REGION_OPS
            .into_iter()
            .find(|op| line.contains(&format!("\"tt.{op}\"(")))
        {
            region_op(lines, index, name, defs, module)
        } else {
            OPS.into_iter()
                .find(|op| line.contains(&format!(".{op} ")) || line.contains(&format!(".{op}\"")))
                .map(|name| Op {
                    name,
                    line,
                    tensor: typed(line, "tensor<"),
                    buffer: typed(line, "memdesc<").or_else(|| typed(line, "-> <")),
                    result: typed(line, "-> tensor<").map(|t| t.2),
                    types: all_typed(line),
                    defs,
                    module,
                })
        };
        if let Some(op) = op {
            ops.push((index, op));
        }
    }
    ops
}

/// The risks the assembler the release bundles takes with the module once
/// Triton has compiled it ([`crate::Ending::Risk`] sites): kernels of a
/// shape the assembler is known to miscompile sometimes. Reported beside
/// [`check`]'s findings, never as a compile's verdict.
pub fn risks(text: &str, release: Release) -> linear_layout::Result<Vec<Finding>> {
    let defs = Defs::from_module(text)?;
    let module = Module::read(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut findings = Vec::new();
    for (index, op) in read_ops(&lines, &defs, &module) {
        let event = Event::Assemble {
            op: &op,
            lines: &lines,
            index,
        };
        if let Err(failure) = sites::run(&event, release, &mut Trace::new(false)) {
            findings.push(Finding {
                line: index + 1,
                op: op.name.to_string(),
                verdict: failure.verdict(Entry::IrFile),
                failure,
            });
        }
    }
    Ok(findings)
}

/// The ops printed in generic form with a region (`"tt.scan"(…) ({…})`,
/// `"tt.reduce"`), read by [`region_op`].
const REGION_OPS: [&str; 2] = ["scan", "reduce"];

/// The `tt.scan` or `tt.reduce` starting on line `index`. Such an op is
/// printed in generic form over several lines: the op and its `axis`
/// first, the combine region, then `}) : (tensor<…>, …) -> …` with the
/// operands' and results' types (the region holds scalar ops only, so the
/// first such line after the op closes it).
fn region_op<'a>(
    lines: &[&'a str],
    index: usize,
    name: &'static str,
    defs: &'a Defs,
    module: &'a Module,
) -> Option<Op<'a>> {
    let types = lines
        .iter()
        .skip(index + 1)
        .find(|l| l.trim_start().starts_with("})") && l.contains(": (tensor<"))?;
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
