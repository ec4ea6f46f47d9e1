//! A `tl.dot_scaled` on consumer Blackwell (sm120) with an mxfp4 operand
//! packed along M or N (`lhs_k_pack=False` / `rhs_k_pack=False`; triton
//! #9678, #11733, fixed by PR #10726).
//!
//! From 3.6, sm120 lowers mxfp dots natively: `AccelerateMatmul` keeps the
//! `tt.dot_scaled` with MMA v2 operands and result, and `convertMMAImpl`
//! (`third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv2.cpp`)
//! counts each operand's repetitions along K from its own tensor
//! (`NvidiaMmaEncodingAttr::getRepForOperand`: operand A's last dim,
//! operand B's first, in tiles of `256 / bits` elements of A's element
//! width) and asserts `repA[2] == repB[1]`. Two fp4 values share a byte:
//! packed along K an operand holds `K / 2` bytes along K, packed along M
//! or N it holds `K`, so one packed along K and one not disagree, and the
//! assertion fails. 3.9's `AccelerateMatmul` sends M/N-packed fp4 operands
//! to the decomposition instead (PR #10726), so its own TTGIR never holds
//! such a dot; its lowering still asserts on one (MMAv2.cpp:653, measured
//! on 3.8.0's module). 3.4 and 3.5 have no native path: the decomposition
//! refuses M/N-packed operands, the `tt.dot_scaled` keeps its blocked
//! layout, and no pattern lowers it ("failed to legalize operation
//! 'tt.dot_scaled'").
//!
//! Measured: `family-compiles-*` (mxfp4 × mxfp4 128 × 128 × 128 on sm120
//! with A or B packed along M/N, 3.4.0 to 3.9.0; packed along K, and on
//! sm100, they compile) and the 3.8.0 module compiled as a file by 3.6.0
//! to 3.9.0.

use super::Failure;
use crate::attr::Attr;
use crate::finder::op::{Op, bits_of};
use crate::release::Span;
use crate::{Change, Ending, Location, Release, Site, SiteKind};

const FILE: &str = "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv2.cpp";
const FUNCTION: &str = "convertMMAImpl";
const MESSAGE: &str = "Assertion `repA[2] == repB[1]' failed.";

static LEGALIZE_3_4: Location = Location {
    releases: Span::until(Release::V3_4, Release::V3_6),
    ending: Ending::Diagnostic,
    function: "ConvertTritonGPUToLLVM: no pattern lowers a tt.dot_scaled on a blocked layout",
    file: "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM.cpp",
    line: None,
    message: "failed to legalize operation 'tt.dot_scaled' that was explicitly marked illegal",
};
static REPS_3_6: Location = Location {
    releases: Span::until(Release::V3_6, Release::V3_8),
    ending: Ending::Assertion,
    function: FUNCTION,
    file: FILE,
    line: Some(760),
    message: MESSAGE,
};
static REPS_3_8: Location = Location::assertion(Release::V3_8, FILE, 756, FUNCTION, MESSAGE);
static REPS_3_9: Location = Location {
    releases: Span::since(Release::V3_9),
    ending: Ending::Assertion,
    function: FUNCTION,
    file: FILE,
    line: Some(653),
    message: MESSAGE,
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "scaled_dot_mn_packed",
    kind: SiteKind::Bug,
    title: "a tl.dot_scaled on sm120 with an mxfp4 operand packed along M or N (lhs_k_pack or rhs_k_pack False), whose operands disagree on K in the MMA v2 lowering",
    locations: &[&LEGALIZE_3_4, &REPS_3_6, &REPS_3_8, &REPS_3_9],
    changes: &[
        Change {
            release: Release::V3_6,
            pr: Some("#7918"),
            what: "sm120 lowers mxfp dots natively on MMA v2",
        },
        Change {
            release: Release::V3_9,
            pr: Some("#10726"),
            what: "M/N-packed fp4 operands on sm120 go to the decomposition",
        },
    ],
    workaround: "pack fp4 operands along K (the default), or Triton 3.9",
};

/// `getRepForOperand`'s repetitions along K of an operand of `shape`
/// (operand A's last dim, B's second to last) in tiles of `256 / bits`
/// elements.
fn reps_k(shape: &[u64], a: bool, bits: u64) -> Option<u64> {
    let k = if a {
        *shape.last()?
    } else {
        *shape.get(shape.len().checked_sub(2)?)?
    };
    Some((k / (256 / bits.clamp(1, 256))).max(1))
}

/// The lowering of `op`, a `tt.dot_scaled`, in `release`.
fn check_op(op: &Op<'_>, release: Release) -> Result<(), Failure> {
    let Some(location) = SITE.location(release) else {
        return Ok(());
    };
    let Some(dot) = op.dot_types() else {
        return Ok(());
    };
    let result = op.attr(&dot.d.2);
    if location.ending == Ending::Diagnostic {
        // 3.4, 3.5: only a dot the decomposition left on a blocked layout
        return match result {
            Some(Attr::Blocked(_)) => Err(Failure::at(
                &SITE,
                location,
                release,
                "tt.dot_scaled on a blocked layout: the decomposition refused its operands",
            )),
            _ => Ok(()),
        };
    }
    let v2 = matches!(&result, Some(Attr::NvidiaMma(m)) if m.version_major == 2);
    if !v2 {
        return Ok(());
    }
    let bits = bits_of(&dot.a.1);
    let (Some(rep_a), Some(rep_b)) = (reps_k(&dot.a.0, true, bits), reps_k(&dot.b.0, false, bits))
    else {
        return Ok(());
    };
    if rep_a == rep_b {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "operand A {:?} holds {rep_a} K tiles, operand B {:?} {rep_b}: one fp4 operand is packed along K, the other along M or N",
            dot.a.0, dot.b.0
        ),
    ))
}

/// The model: each `dot_scaled` of a module.
pub(crate) const MODEL: super::OpModel = super::OpModel {
    site: &SITE,
    op: "dot_scaled",
    stage: super::Stage::Lowering,
    check: |op, release, _| check_op(op, release),
};
