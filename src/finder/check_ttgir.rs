//! `check-ttgir`: find the layout-sensitive ops in a TTGIR dump and run the
//! modelled checks on them, with line numbers.

use super::decisions::Mma;
use super::sites::{self, Failure};
use super::verdict::Trace;
use crate::triton::attr::{Attr, Cga};
use crate::triton::{Conversion, Defs, TritonVersion, parse_attr, to_linear_layout};

/// A finding in a TTGIR file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based line of the op.
    pub line: usize,
    /// The op (`local_alloc`, …).
    pub op: String,
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
fn typed(line: &str, opener: &str) -> Option<(Vec<u64>, String, String)> {
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
        Attr::SwizzledShared(s) if s.has_leading_offset == Some(true) => {
            match (s.per_phase, s.max_phase) {
                (1, 8) => Some(128),
                (2, 4) => Some(64),
                (4, 2) => Some(32),
                _ => None,
            }
        }
        Attr::NvmmaShared(n) => Some(n.swizzling_byte_width),
        _ => None,
    }
}

/// The finder's view of an `nvidia_mma` attribute of version 3.
fn mma_v3(attr: &Attr) -> Option<Mma> {
    match attr {
        Attr::NvidiaMma(m) if m.version_major == 3 => Some(Mma {
            version: 3,
            warps: [
                *m.warps_per_cta.first().unwrap_or(&1),
                *m.warps_per_cta.get(1).unwrap_or(&1),
            ],
            instr: m.instr_shape.clone(),
        }),
        _ => None,
    }
}

/// The cp.async width check for a copy of `shape` from `regs` into `shared`.
/// A dump carries no axis analysis, so the pointers are taken to be
/// contiguous along the source layout's fastest dim from a 16-byte-aligned
/// base (see [`sites::cp_async::coalesced_contiguity`]). Copies whose
/// layouts have no linear layout here are not checked.
fn async_copy(
    regs: &Attr,
    shared: &Attr,
    shape: &[u64],
    bits: u64,
    release: TritonVersion,
) -> Result<u64, Failure> {
    let (Attr::Blocked(blocked), Attr::SwizzledShared(swizzled)) = (regs, shared) else {
        return Ok(0);
    };
    let layout = |attr: &Attr, elem_bits| match to_linear_layout(attr, shape, release, elem_bits) {
        Ok(Conversion::Layout(l)) => Some(l),
        _ => None,
    };
    let Some(reg_layout) = layout(regs, None) else {
        return Ok(0);
    };
    let shared_layout = layout(shared, Some(bits));
    let order0 = blocked.order.first().copied().unwrap_or(0);
    let copy = sites::cp_async::AsyncCopy {
        regs: &reg_layout,
        shared: shared_layout.as_ref(),
        shape,
        shared_order: &swizzled.order,
        shared_vec: swizzled.vec,
        max_phase: swizzled.max_phase,
        cta_split_num: match &swizzled.cga {
            Some(Cga::Split { cta_split_num, .. }) => cta_split_num,
            _ => &[],
        },
        bits,
        max_vec: sites::cp_async::coalesced_contiguity(&reg_layout, shape, order0, bits),
    };
    sites::cp_async::copy(&copy, release, &mut Trace::new(false))
}

/// Runs the modelled checks over every layout-sensitive op of `text`.
pub fn check(text: &str, release: TritonVersion) -> crate::Result<Vec<Finding>> {
    let defs = Defs::from_module(text)?;
    let mut findings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let op = [
            "local_alloc",
            "local_load",
            "local_store",
            "convert_layout",
            "async_copy_global_to_local",
        ]
        .into_iter()
        .find(|op| line.contains(&format!(".{op} ")) || line.contains(&format!(".{op}\"")));
        let Some(op) = op else { continue };
        let tensor = typed(line, "tensor<");
        let memdesc = typed(line, "memdesc<");
        let enc = |name: &str| parse_attr(name, &defs).ok();
        // Every transfer between registers and a buffer (an op with a
        // tensor operand) first builds the buffer's addressing.
        let buffer = memdesc.clone().or_else(|| typed(line, "-> <"));
        let tile_failure = buffer
            .filter(|_| tensor.is_some())
            .and_then(|(shape, ty, m_enc)| {
                let shared = enc(&m_enc)?;
                let store = op != "local_load";
                sites::shared_tile::transfer(&shared, &shape, bits_of(&ty), store, release).err()
            });
        let failure = tile_failure.or_else(|| match (op, tensor, memdesc) {
            ("local_alloc" | "local_store", Some((shape, ty, t_enc)), Some((_, _, m_enc))) => {
                match (enc(&t_enc), enc(&m_enc)) {
                    (Some(mma), Some(shared)) if shape.len() == 2 => mma_v3(&mma).and_then(|mma| {
                        let store = sites::stmatrix::Store {
                            mma: &mma,
                            rows: shape[0],
                            cols: shape[1],
                            bits: bits_of(&ty),
                            swizzle: swizzle_of(&shared).unwrap_or(0),
                        };
                        sites::stmatrix::store(&store, release, &mut Trace::new(false)).err()
                    }),
                    _ => None,
                }
            }
            ("convert_layout", Some((shape, _, src)), _) if shape.len() == 2 => {
                // Converting to or from a Hopper MMA asks for its linear layout.
                let dst = typed(line, "-> tensor<").map(|t| t.2);
                [Some(src), dst]
                    .into_iter()
                    .flatten()
                    .find_map(|name| enc(&name).as_ref().and_then(mma_v3))
                    .and_then(|mma| {
                        let shape = [shape[0], shape[1]];
                        sites::hopper_mma_3_1::mma_layout(
                            &mma,
                            shape,
                            release,
                            &mut Trace::new(false),
                        )
                        .err()
                    })
            }
            ("async_copy_global_to_local", Some((shape, _, t_enc)), _) => {
                let dst = typed(line, "-> <");
                dst.and_then(|(_, ty, m_enc)| {
                    let (regs, shared) = (enc(&t_enc)?, enc(&m_enc)?);
                    async_copy(&regs, &shared, &shape, bits_of(&ty), release).err()
                })
            }
            ("local_load", Some((shape, _, t_enc)), Some(_)) => {
                let into_dot = matches!(enc(&t_enc), Some(Attr::DotOperand(_)));
                sites::local_load_rank3::local_load(shape.len(), into_dot, release).err()
            }
            _ => None,
        });
        if let Some(failure) = failure {
            findings.push(Finding {
                line: index + 1,
                op: op.to_string(),
                failure: failure.from_ir_file(),
            });
        }
    }
    Ok(findings)
}
