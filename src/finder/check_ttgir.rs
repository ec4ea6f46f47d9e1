//! `check-ttgir`: find the layout-sensitive ops in a TTGIR dump and run the
//! modelled checks on them, with line numbers.

use super::decisions::Mma;
use super::sites::{self, Failure};
use super::verdict::Trace;
use crate::triton::attr::Attr;
use crate::triton::{Defs, TritonVersion, parse_attr};

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
/// after `from` in `line`.
fn typed(line: &str, opener: &str) -> Option<(Vec<u64>, String, String)> {
    let at = line.find(opener)? + opener.len();
    let body = &line[at..];
    let comma = body.find(", #")?;
    let (shape, ty) = split_type(&body[..comma])?;
    let enc: String = body[comma + 2..]
        .chars()
        .take_while(|&c| c.is_ascii_alphanumeric() || c == '_' || c == '#')
        .collect();
    Some((shape, ty, enc))
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
        let failure = match (op, tensor, memdesc) {
            ("local_alloc" | "local_store", Some((shape, ty, t_enc)), Some((_, _, m_enc))) => {
                match (enc(&t_enc), enc(&m_enc)) {
                    (Some(Attr::NvidiaMma(m)), Some(shared))
                        if m.version_major == 3 && shape.len() == 2 =>
                    {
                        let mma = Mma {
                            version: 3,
                            warps: [m.warps_per_cta[0], *m.warps_per_cta.get(1).unwrap_or(&1)],
                            instr: m.instr_shape.clone(),
                        };
                        let store = sites::stmatrix::Store {
                            mma: &mma,
                            rows: shape[0],
                            cols: shape[1],
                            bits: bits_of(&ty),
                            swizzle: swizzle_of(&shared).unwrap_or(0),
                        };
                        sites::stmatrix::store(&store, release, &mut Trace::new(false)).err()
                    }
                    _ => None,
                }
            }
            ("local_load", Some((shape, _, t_enc)), Some(_)) => {
                let into_dot = matches!(enc(&t_enc), Some(Attr::DotOperand(_)));
                sites::local_load_rank3::local_load(shape.len(), into_dot, release).err()
            }
            _ => None,
        };
        if let Some(failure) = failure {
            findings.push(Finding {
                line: index + 1,
                op: op.to_string(),
                failure,
            });
        }
    }
    Ok(findings)
}
