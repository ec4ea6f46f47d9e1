//! `check-ttgir`: find the layout-sensitive ops in a TTGIR dump and run the
//! modelled checks on them, with line numbers.

use super::decisions::Mma;
use super::sites::{self, Entry, Failure};
use super::verdict::{Trace, Verdict};
use crate::attr::Attr;
use crate::{Conversion, Defs, Release, parse_attr, to_linear_layout};

mod scan;

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

/// `AxBxT` → (shape, element type).
fn split_type(s: &str) -> Option<(Vec<u64>, String)> {
    let mut parts: Vec<&str> = s.split('x').collect();
    let ty = parts.pop()?.trim().to_string();
    let shape = parts
        .iter()
        .map(|p| p.trim().parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    Some((shape, ty))
}

/// The `(shape, type, encoding)` of the first `tensor<...>` / `memdesc<...>`
/// after `opener` in `line`. The encoding is an alias (`#blocked1`) or an
/// attribute written inline (`#ttg.dot_op<{...}>`).
fn typed(line: &str, opener: &str) -> Option<Typed> {
    let at = line.find(opener)? + opener.len();
    let body = &line[at..];
    let comma = body.find(", #")?;
    let (shape, ty) = split_type(&body[..comma])?;
    Some((shape, ty, attribute_text(&body[comma + 2..])))
}

/// The attribute at the start of `s`: its alias name, or its whole inline
/// text up to the matching `>`.
fn attribute_text(s: &str) -> String {
    let name_len = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '#' | '.')))
        .unwrap_or(s.len());
    let (name, rest) = s.split_at(name_len);
    if !name.contains('.') || !rest.starts_with('<') {
        return name.to_string();
    }
    let mut depth = 0usize;
    for (i, ch) in s.char_indices().skip(name_len) {
        match ch {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return s[..=i].to_string();
                }
            }
            _ => {}
        }
    }
    s.to_string()
}

fn bits_of(ty: &str) -> u64 {
    let digits: String = ty
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().unwrap_or(32)
}

/// The swizzle bytes of a shared attribute used for wgmma operands.
fn swizzle_of(attr: &Attr) -> Option<u64> {
    match attr {
        Attr::SwizzledShared(s) if s.has_leading_offset == Some(true) => s.swizzle_bytes(),
        Attr::NvmmaShared(n) => Some(n.swizzling_byte_width),
        _ => None,
    }
}

/// The Hopper MMA attribute among `attr`, if it is one.
/// A well-formed Hopper MMA attribute (see [`Mma::from_hopper_attr`]).
fn hopper_mma(attr: Attr) -> Option<Mma> {
    match attr {
        Attr::NvidiaMma(m) => Mma::from_hopper_attr(&m),
        _ => None,
    }
}

/// A value's type as written on an op: shape, element type, encoding.
type Typed = (Vec<u64>, String, String);

/// One op line, with its types read and its attributes resolvable.
struct OpLine<'a> {
    op: &'static str,
    /// The first `tensor<...>` on the line.
    tensor: Option<Typed>,
    /// The buffer: the first `memdesc<...>`, or an async copy's `-> <...>`.
    buffer: Option<Typed>,
    /// The result's encoding, when the op yields a tensor (`-> tensor<...>`,
    /// a conversion's destination).
    result: Option<String>,
    defs: &'a Defs,
}

impl OpLine<'_> {
    fn attr(&self, name: &str) -> Option<Attr> {
        parse_attr(name, self.defs).ok()
    }

    /// What the release's lowering of this op trips on, if anything.
    fn failure(&self, release: Release) -> Option<Failure> {
        let lowering = || match self.op {
            "local_alloc" | "local_store" => self
                .mma_store(release)
                .or_else(|| self.shared_linear_addressing(release)),
            "convert_layout" => self
                .mma_to_mma_scratch(release)
                .or_else(|| self.mma_conversion(release))
                .or_else(|| self.warp_shuffle_plan(release))
                .or_else(|| self.accumulator_to_v2_operand(release))
                .or_else(|| self.packed_8bit_shuffle(release)),
            "async_copy_global_to_local" => self.async_copy(release),
            "local_load" => self
                .rank3_load(release)
                .or_else(|| self.shared_linear_addressing(release)),
            _ => None,
        };
        self.buffer_type(release)
            .or_else(|| self.buffer_transfer(release))
            .or_else(lowering)
    }

    /// The buffer's type as the release verifies it when parsing the file.
    fn buffer_type(&self, release: Release) -> Option<Failure> {
        let (shape, _, enc) = self.buffer.as_ref()?;
        sites::nvmma_memdesc::verify(&self.attr(enc)?, shape, release).err()
    }

    /// Every transfer between registers and a buffer (an op with a tensor
    /// operand) first builds the buffer's addressing.
    fn buffer_transfer(&self, release: Release) -> Option<Failure> {
        let (tensor_shape, _, tensor_enc) = self.tensor.as_ref()?;
        let (shape, ty, enc) = self.buffer.as_ref()?;
        let shared = self.attr(enc)?;
        let store = self.op != "local_load";
        // 3.1 asks for a Hopper accumulator's linear layout to address it
        // (notes/finder-lowering.md §3).
        let source_indices = || match (
            self.attr(tensor_enc).and_then(hopper_mma),
            &tensor_shape[..],
        ) {
            (Some(mma), &[rows, cols]) => {
                sites::mma_layout(&mma.attr(), [rows, cols], release, &mut Trace::new(false))
            }
            _ => Ok(()),
        };
        sites::shared_tile::transfer(&shared, shape, bits_of(ty), store, release, source_indices)
            .err()
    }

    /// A Hopper accumulator stored into shared memory (stmatrix).
    fn mma_store(&self, release: Release) -> Option<Failure> {
        let (shape, ty, enc) = self.tensor.as_ref()?;
        let mma = hopper_mma(self.attr(enc)?)?;
        let shared = self.attr(&self.buffer.as_ref()?.2)?;
        if shape.len() != 2 {
            return None;
        }
        let store = sites::stmatrix::Store {
            mma: &mma,
            rows: shape[0],
            cols: shape[1],
            bits: bits_of(ty),
            swizzle: swizzle_of(&shared).unwrap_or(0),
        };
        sites::stmatrix::store(&store, release, &mut Trace::new(false)).err()
    }

    /// 3.1's shared-memory allocation of a conversion between two MMA
    /// accumulators, which runs before any lowering.
    fn mma_to_mma_scratch(&self, release: Release) -> Option<Failure> {
        let (_, _, src) = self.tensor.as_ref()?;
        let (Attr::NvidiaMma(src), Attr::NvidiaMma(dst)) =
            (self.attr(src)?, self.attr(self.result.as_ref()?)?)
        else {
            return None;
        };
        sites::mma_to_mma_3_1::scratch_order(&src, &dst, release).err()
    }

    /// Converting to or from a Hopper MMA asks for its linear layout, from
    /// 3.2. 3.1 converts through the legacy `ConvertLayoutOpConversion`,
    /// which never does (notes/finder-lowering.md §3; measured: blocked ↔
    /// Hopper MMA converts with instruction N 8, or one warp, compile on
    /// 3.1.0).
    fn mma_conversion(&self, release: Release) -> Option<Failure> {
        if !release.lowers_with_linear_layouts() {
            return None;
        }
        let (shape, _, src) = self.tensor.as_ref()?;
        let [rows, cols] = shape[..] else {
            return None;
        };
        let mma = [Some(src.clone()), self.result.clone()]
            .into_iter()
            .flatten()
            .find_map(|name| hopper_mma(self.attr(&name)?))?;
        sites::mma_layout(&mma.attr(), [rows, cols], release, &mut Trace::new(false)).err()
    }

    /// 3.3 asks every conversion across lanes for a warp-shuffle plan.
    fn warp_shuffle_plan(&self, release: Release) -> Option<Failure> {
        if !sites::warp_shuffle_3_3::SITE.fails_in(release) {
            return None;
        }
        let (shape, _, src) = self.tensor.as_ref()?;
        let dst = self.result.as_ref()?;
        let layout = |enc: &str| {
            let attr = self.attr(enc)?;
            match sites::converted(
                &attr,
                shape,
                release,
                None,
                &mut Trace::new(false),
                String::new,
            ) {
                Ok(layout) => layout.map(Ok),
                Err(failure) => Some(Err(failure)),
            }
        };
        let (src, dst) = match (layout(src)?, layout(dst)?) {
            (Ok(src), Ok(dst)) => (src, dst),
            (Err(failure), _) | (_, Err(failure)) => return Some(failure),
        };
        sites::warp_shuffle_3_3::plan(&src, &dst, release).err()
    }

    /// An MMA accumulator converted to operand A of an Ampere (v2) dot: P's
    /// conversion, which 3.2 may keep in registers from a Hopper
    /// accumulator, and 3.1 from the operand's own MMA, and then fail to
    /// lower.
    fn accumulator_to_v2_operand(&self, release: Release) -> Option<Failure> {
        let (shape, ty, src) = self.tensor.as_ref()?;
        let [rows, cols] = shape[..] else {
            return None;
        };
        let source = self.attr(src)?;
        let Attr::NvidiaMma(mma) = &source else {
            return None;
        };
        let producer = Mma::from_hopper_attr(mma).or_else(|| Mma::from_ampere_attr(mma))?;
        let Attr::DotOperand(operand) = self.attr(self.result.as_ref()?)? else {
            return None;
        };
        let consumer = match (operand.op_idx, &*operand.parent) {
            (0, Attr::NvidiaMma(m)) => Mma::from_ampere_attr(m)?,
            _ => return None,
        };
        let p = sites::accumulator_to_v2::PConversion {
            bits: bits_of(ty),
            producer: &producer,
            consumer: &consumer,
            rows,
            cols,
        };
        let mut trace = Trace::new(false);
        // 3.1's `isMmaToDotShortcut` compares the operand's parent with the
        // source attribute as a whole, not just the fields `Mma` keeps.
        let same_attr = *operand.parent == source;
        sites::accumulator_to_v2::convert_p(&p, release, &mut trace)
            .err()
            .or_else(|| {
                same_attr
                    .then(|| sites::v2_shortcut_3_1::convert_p(&p, release, &mut trace).err())
                    .flatten()
            })
    }

    /// A transfer through a `shared_linear` buffer with XOR bases, which
    /// 3.6–3.8 address wrongly (a miscompile, checked after every failure
    /// that stops the compile).
    fn shared_linear_addressing(&self, release: Release) -> Option<Failure> {
        let (shape, ty, buf_enc) = self.buffer.as_ref()?;
        let (tensor_shape, _, reg_enc) = self.tensor.as_ref()?;
        if tensor_shape != shape {
            return None;
        }
        let (regs, shared) = (self.attr(reg_enc)?, self.attr(buf_enc)?);
        sites::shared_linear_xor::transfer(&regs, &shared, shape, bits_of(ty), release).err()
    }

    /// An 8-bit conversion that 3.5–3.7 shuffle within a warp with the
    /// wrong byte permutes (a miscompile).
    fn packed_8bit_shuffle(&self, release: Release) -> Option<Failure> {
        let (shape, ty, src) = self.tensor.as_ref()?;
        if bits_of(ty) != 8 {
            return None;
        }
        let layout = |enc: &str| {
            to_linear_layout(&self.attr(enc)?, shape, release, None)
                .ok()
                .and_then(Conversion::layout)
        };
        let (src, dst) = (layout(src)?, layout(self.result.as_ref()?)?);
        sites::convert_8bit_shuffle::convert(&src, &dst, 8, release).err()
    }

    /// The cp.async width. A dump carries no axis analysis, so the pointers
    /// are taken to be contiguous along the source layout's fastest dim from
    /// a 16-byte-aligned base (see [`sites::cp_async::coalesced_contiguity`]).
    /// Copies between layouts with no linear layout here are not checked.
    fn async_copy(&self, release: Release) -> Option<Failure> {
        let (shape, _, reg_enc) = self.tensor.as_ref()?;
        let (_, ty, buf_enc) = self.buffer.as_ref()?;
        let (regs, shared) = (self.attr(reg_enc)?, self.attr(buf_enc)?);
        let (Attr::Blocked(blocked), Attr::SwizzledShared(swizzled)) = (&regs, &shared) else {
            return None;
        };
        let bits = bits_of(ty);
        let layout = |attr: &Attr, elem_bits| {
            to_linear_layout(attr, shape, release, elem_bits)
                .ok()
                .and_then(Conversion::layout)
        };
        let reg_layout = layout(&regs, None)?;
        let shared_layout = layout(&shared, Some(bits));
        let order0 = blocked.order.first().copied().unwrap_or(0);
        let copy = sites::cp_async::AsyncCopy::coalesced(
            &reg_layout,
            shared_layout.as_ref(),
            shape,
            order0,
            swizzled,
            bits,
        );
        sites::cp_async::copy(&copy, release, &mut Trace::new(false)).err()
    }

    /// 3.1/3.2's rank limit on shared → register loads.
    fn rank3_load(&self, release: Release) -> Option<Failure> {
        self.buffer.as_ref()?;
        let (shape, _, enc) = self.tensor.as_ref()?;
        let into_dot = matches!(self.attr(enc), Some(Attr::DotOperand(_)));
        sites::local_load_rank3::local_load(shape.len(), into_dot, release).err()
    }
}

/// The layout-sensitive ops, as they are spelled after the dialect prefix.
const OPS: [&str; 5] = [
    "local_alloc",
    "local_load",
    "local_store",
    "convert_layout",
    "async_copy_global_to_local",
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

/// Runs the modelled checks over every layout-sensitive op of `text`.
pub fn check(text: &str, release: Release) -> linear_layout::Result<Vec<Finding>> {
    let defs = Defs::from_module(text)?;
    // A definition the release cannot read ends the compile as the module
    // is parsed, before any op is lowered.
    if let Some(refused) = refused_definition(text, &defs, release) {
        return Ok(vec![refused]);
    }
    let mut findings = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let capability = scan::capability(text);
    for (index, line) in lines.iter().enumerate() {
        // `tt.gather` is not checked: its layout fails in the
        // thread-locality pass ([`sites::gather_layout`]), which compiling a
        // TTGIR file does not run (Triton starts after the file's own
        // stage); its lowering is not modelled.
        if line.contains("\"tt.scan\"(") {
            if let Some(failure) = scan::failure(&lines, index, &defs, capability, release) {
                findings.push(Finding {
                    line: index + 1,
                    op: "scan".to_string(),
                    verdict: failure.verdict(Entry::IrFile),
                    failure,
                });
            }
            continue;
        }
        let Some(op) = OPS
            .into_iter()
            .find(|op| line.contains(&format!(".{op} ")) || line.contains(&format!(".{op}\"")))
        else {
            continue;
        };
        let op_line = OpLine {
            op,
            tensor: typed(line, "tensor<"),
            buffer: typed(line, "memdesc<").or_else(|| typed(line, "-> <")),
            result: typed(line, "-> tensor<").map(|t| t.2),
            defs: &defs,
        };
        if let Some(failure) = op_line.failure(release) {
            findings.push(Finding {
                line: index + 1,
                op: op.to_string(),
                verdict: failure.verdict(Entry::IrFile),
                failure,
            });
        }
    }
    Ok(findings)
}

/// The first `#name = <layout>` definition whose spelling `release`'s
/// parser refuses ([`sites::cga_spelling`]), as a finding on its line.
fn refused_definition(text: &str, defs: &Defs, release: Release) -> Option<Finding> {
    text.lines().enumerate().find_map(|(index, line)| {
        let (name, _) = line.trim_start().strip_prefix('#')?.split_once('=')?;
        let name = name.trim();
        let failure = sites::cga_spelling::check(defs.get(name)?, release).err()?;
        Some(Finding {
            line: index + 1,
            op: format!("#{name}"),
            verdict: failure.verdict(Entry::IrFile),
            failure,
        })
    })
}
