//! Triton 3.1's and 3.2's fp8 dots on MMA v2 (`mma.sync` has no fp8 form
//! there): `AccelerateMatmul` promotes each fp8 operand to fp16 with an
//! `fp_to_fp` on the dot-operand layout, and `RemoveLayoutConversions`
//! moves that promotion back onto the operand's load, before shared
//! memory, unless the load counts as cheap to rematerialize
//! (`isExpensiveLoadOrStore`: a tensor with fewer elements than the CTA has
//! threads). Then the promotion stays on the dot operand, and lowering it
//! miscounts when K is below the 8-bit instruction K (32): the fp8
//! operand's registers are laid out for one whole 8-bit instruction (its
//! K repetitions clamp to one), the fp16 result's for K only, so the
//! converted values are twice as many as the result's LLVM struct holds.
//! `packLLElements` reports the mismatch and its next element access
//! asserts (`ArrayRef::operator[]`), aborting the process.
//!
//! Moving the promotion needs the pass's forward layout propagation to
//! reach it from the load. When the operand comes from a 3-D load through
//! `tt.reshape` (the `inductor-3d` pattern), the propagation stops at the
//! reshape: the IR after the pass still has a `convert_layout` between the
//! load and the reshape, and the promotion on the dot operand, however
//! costly the load (measured on 3.1.0 and 3.2.0: every such fp8 dot with
//! K = 16 on MMA v2 aborts here, from 16 to 128 rows and 1 to 32 warps).
//!
//! 3.3 rejects 8-bit dots with K < 32 in `semantic.py` before any layout
//! exists (modelled in the front end), so this site is 3.1's and 3.2's.

use super::Failure;
use crate::Release;
use crate::finder::decisions::cheap_to_reload;
use crate::finder::verdict::Trace;
use crate::release::{Since, Span};
use crate::{Change, Ending, Location, Site, SiteKind};

const fn pack_assertion(release: Release, line: u32, function: &'static str) -> Location {
    Location {
        releases: Span::only(release),
        ending: Ending::Assertion,
        function,
        file: "llvm/ADT/ArrayRef.h",
        line: Some(line),
        message: "Assertion `Index < Length && \"Invalid index!\"' failed.",
    }
}

static PACK_3_1: Location = pack_assertion(
    Release::V3_1,
    257,
    "packLLElements (include/triton/Conversion/TritonGPUToLLVM/Utility.h:1562), lowering an fp8 to fp16 fp_to_fp on an MMA v2 dot operand",
);
static PACK_3_2: Location = pack_assertion(
    Release::V3_2,
    260,
    "packLLElements (include/triton/Conversion/TritonGPUToLLVM/Utility.h:1439), lowering an fp8 to fp16 fp_to_fp on an MMA v2 dot operand",
);
const PACK: Since<&'static Location> =
    Since(&[(Release::V3_1, &PACK_3_1), (Release::V3_2, &PACK_3_2)]);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "fp8_promotion",
    kind: SiteKind::Bug,
    title: "an fp8 operand promoted to fp16 on an MMA v2 dot operand with K below 32 (3.1, 3.2)",
    locations: &[&PACK_3_1, &PACK_3_2],
    changes: &[Change {
        release: Release::V3_3,
        pr: None,
        what: "the front end rejects 8-bit dots with K < 32 before any layout exists",
    }],
    workaround: "K of at least 32 for fp8 dots, or operands of at least as many elements as the CTA has threads",
};

/// K of one 8-bit `mma.sync` (m16n8k32).
const INSTR_K_8BIT: u64 = 32;
/// K of one 16-bit `mma.sync` (m16n8k16).
const INSTR_K_16BIT: u64 = 16;

/// One fp8 operand of an MMA v2 dot that comes straight from a load.
pub struct Operand<'a> {
    /// `"operand A"` or `"operand B"`.
    pub name: &'a str,
    /// Whether it is operand A (rows M, columns K) or B (rows K, columns N).
    pub is_a: bool,
    /// The operand's shape.
    pub rows: u64,
    /// The operand's shape.
    pub cols: u64,
    /// The dot's reduction size.
    pub k: u64,
    /// The MMA's `warpsPerCTA` (along M, along N).
    pub warps: [u64; 2],
    /// Warps in the CTA.
    pub num_warps: u64,
    /// Whether the layout propagation from the load can reach the promotion
    /// (false behind a `tt.reshape`; see the module docs).
    pub reachable_from_load: bool,
}

/// Where the promotion of `op` ends up, and whether lowering it fails.
pub(crate) fn promotion(op: &Operand, release: Release, trace: &mut Trace) -> Result<(), Failure> {
    let Some(&location) = PACK.at(release).filter(|_| SITE.fails_in(release)) else {
        return Ok(());
    };
    // Saturating: the arguments are hardware-sized in the finder, but this
    // is public and must not panic on any.
    let threads = op.num_warps.saturating_mul(32);
    let elements = op.rows.saturating_mul(op.cols);
    if !op.reachable_from_load {
        trace.note(|| {
            format!(
                "{}: fp8 → fp16 promotion stays on the MMA v2 dot operand (the layout propagation from the load stops at tt.reshape)",
                op.name
            )
        });
    } else if !cheap_to_reload(elements, op.num_warps, 32) {
        trace.note(|| {
            format!(
                "{}: fp8 → fp16 promotion moved onto the load ({elements} elements ≥ {threads} threads: the load is not rematerialized)",
                op.name
            )
        });
        return Ok(());
    } else {
        trace.note(|| {
            format!(
                "{}: fp8 → fp16 promotion stays on the MMA v2 dot operand ({elements} elements < {threads} threads: a cheap load)",
                op.name
            )
        });
    }
    if op.k >= INSTR_K_8BIT {
        return Ok(());
    }
    // Registers of a dot operand: 4 per repetition of the instruction tile
    // (operand B pairs its N repetitions); the 8-bit operand's K repetitions
    // clamp to one instruction, and each of its registers holds 4 values,
    // repacked 2 per register as fp16.
    let outer = if op.is_a {
        (op.rows / op.warps[0].saturating_mul(16).max(1)).max(1)
    } else {
        ((op.cols / op.warps[1].saturating_mul(8).max(1)).max(1) / 2).max(1)
    };
    let reps = |instr_k: u64| (op.k / instr_k).max(1);
    let expected = outer.saturating_mul(4 * reps(INSTR_K_16BIT));
    let got = outer.saturating_mul(8 * reps(INSTR_K_8BIT));
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "after \"size mismatch when packing elements for LLVM struct expected {expected} but got {got}\": \
             {} {}x{}, K = {} < {INSTR_K_8BIT}",
            op.name, op.rows, op.cols, op.k
        ),
    ))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::Fp8Promotion]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::Fp8Promotion(op) => promotion(op, release, trace),
            _ => Ok(()),
        }
    }
}
