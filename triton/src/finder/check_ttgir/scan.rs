//! `tt.scan` ops in a TTGIR dump: the lowering's count of a thread's values
//! ([`sites::scan_layout`]) and the warp shuffles it emits on a GPU the
//! release's LLVM does not know ([`sites::unknown_target`]).
//!
//! A scan is printed in generic form over several lines: the op and its
//! `axis` first, the combine region, then `}) : (tensor<…>, …) -> …` with
//! the operands' types. Every operand of a scan shares one layout, so the
//! first one's is the operand layout both sites read.

use super::typed;
use crate::attr::Attr;
use crate::finder::sites::{self, Failure};
use crate::finder::verdict::Trace;
use crate::{Defs, Release, cta_split_num, parse_attr};
use linear_layout::Dim;
use linear_layout::LinearLayout;

/// The compute capability in the module's `target = "cuda:NN"` attribute
/// (`ttg.target`, `triton_gpu.target` up to 3.2). Triton prints it on every
/// module it writes; without it the shuffle check has no GPU to check for.
pub(super) fn capability(text: &str) -> Option<u32> {
    let at = text.find(".target = \"cuda:")? + ".target = \"cuda:".len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The `axis = N` of the scan op on `line`.
fn axis(line: &str) -> Option<usize> {
    let at = line.find("axis = ")? + "axis = ".len();
    let digits: String = line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Distinct tiles along each dim among CTAs (`getCTASplitNum`): a blocked
/// operand's CGA split, whatever the shape; for any other layout, as a
/// linear encoding counts it, its nonzero `block` bases, each for the first
/// dim it moves.
fn cta_split(attr: &Attr, l: &LinearLayout, rank: usize) -> Vec<u64> {
    if let Attr::Blocked(b) = attr {
        if let Ok(split) = cta_split_num(&b.cga, rank) {
            return split;
        }
    }
    let mut split = vec![1u64; rank];
    for (dim, bases) in l.bases() {
        if dim != Dim::BLOCK {
            continue;
        }
        for b in bases {
            if let Some(s) = b
                .iter()
                .position(|&c| c != 0)
                .and_then(|d| split.get_mut(d))
            {
                *s = s.saturating_mul(2);
            }
        }
    }
    split
}

/// The failure lowering the scan that starts on line `index` of `lines`
/// trips on, if any, for a module targeting `capability`.
pub(super) fn failure(
    lines: &[&str],
    index: usize,
    defs: &Defs,
    capability: Option<u32>,
    release: Release,
) -> Option<Failure> {
    let axis = axis(lines.get(index)?)?;
    // The operand types close the op: the first `}) : (tensor<` after it
    // (a scan's region holds scalar ops only).
    let types = lines
        .iter()
        .skip(index + 1)
        .find(|l| l.trim_start().starts_with("})") && l.contains(": (tensor<"))?;
    let (shape, _, enc) = typed(types, ": (tensor<")?;
    if axis >= shape.len() {
        return None;
    }
    let attr: Attr = parse_attr(&enc, defs).ok()?;
    let what = || "the scan operand".to_string();
    let l = match sites::converted(&attr, &shape, release, None, &mut Trace::new(false), what) {
        Ok(Some(l)) => l,
        Ok(None) => return None,
        Err(failure) => return Some(failure),
    };
    let split = cta_split(&attr, &l, shape.len());
    sites::scan_layout::scan(&l, &shape, &split, axis, release)
        .err()
        .or_else(|| {
            let capability = capability?;
            sites::unknown_target::scan(&l, axis, capability, release).err()
        })
}
