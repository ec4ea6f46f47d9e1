//! Triton 3.2's register conversion of P (a first dot's result) from a
//! wgmma accumulator (MMA v3) to operand A of an MMA v2 dot. In the pattern
//! kernels that happens with fp8: the second dot falls back to MMA v2
//! because its K is below the 8-bit wgmma's 32, and promotes P to fp16 on
//! the accumulator's layout, so what is converted is a 16-bit accumulator.
//!
//! Whether the conversion goes through shared memory is decided by
//! `reduce_data_duplication` and then `decompose_unsupported_conversions`:
//! they send it there unless `isMmaToDotShortcut` holds. In 3.2 that
//! includes `matchMmaV3AndDotOperandLayout`: a v3 source with one warp
//! along N, operand A, 8- or 16-bit elements, and a dot operand whose
//! *parent* MMA differs from the source by at most a register permutation
//! (`!cvtNeedsSharedMemory(parent, source)`, see
//! [`layout_cvt`](crate::layout_cvt)). The check never asks for the
//! parent to be v3. When it holds for a v2 parent, `lowerMmaToDotOperand`
//! hands 16-bit accumulator values over as the operand unchanged;
//! translation to LLVM IR then fails on the `unrealized_conversion_cast`
//! left behind, and the process crashes. 8-bit values (int8: fp8 is promoted
//! to fp16 first) take `convertMMAV3To8BitsDotOperand`, which shuffles them
//! into a v3 operand's order and hands over one `i8` per element; a v2
//! operand's struct holds `i32`s, so `packLLElements` reports "invalid
//! element type" and then indexes past its list of types: an assertion in
//! `ArrayRef::operator[]`. When the warps of the two MMAs split the rows
//! differently, P goes through shared memory and compiles.
//!
//! 3.1 asks for a v3 parent (`isMmaToMmaShortcut`), and 3.3 on for 8-bit
//! elements with `kWidth = 4`; the pattern kernels meet neither (3.3 also
//! rejects 8-bit K < 32 in the front end). Measured on 3.2.0: chain-a fp8
//! with N = 16, M from 64 to 256, X from 16 to 256 and 4 to 32 warps
//! crashes exactly when dot 2's warps are all along M; chain-a int8 with
//! N = 16 aborts in the same cases (`tests/data/compile/int8-*`).

use super::{Failure, converted};
use crate::Release;
use crate::attr::Attr;
use crate::finder::decisions::Mma;
use crate::finder::verdict::Trace;
use crate::layout_cvt::reorders_registers;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

const FUNCTION: &str = "lowerMmaToDotOperand, after isMmaToDotShortcut's v3 match (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/ConvertLayoutOpToLLVM.cpp)";

/// 16-bit P: the cast left unlowered, then a segmentation fault.
static UNLOWERED_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Crash,
    function: FUNCTION,
    file: "mlir/lib/Target/LLVMIR/ModuleTranslation.cpp",
    line: None,
    message: "error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast",
};
/// 8-bit P: `packLLElements` indexes past its list of types.
static PACK_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: FUNCTION,
    file: "llvm/ADT/ArrayRef.h",
    line: Some(260),
    message: "Assertion `Index < Length && \"Invalid index!\"' failed.",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "accumulator_to_v2",
    kind: SiteKind::Bug,
    title: "a wgmma accumulator kept in registers as an MMA v2 operand A by 3.2's v3 shortcut",
    locations: &[&UNLOWERED_3_2, &PACK_3_2],
    changes: &[Change {
        release: Release::V3_3,
        pr: None,
        what: "the shortcut asks for 8-bit elements with kWidth = 4, which this conversion does not meet",
    }],
    workaround: "warps of the second dot not all along M, or K of the second dot at least 32 (so both dots take wgmma)",
};

/// P, `rows × cols` elements of `bits` bits, moving in registers from
/// `producer`'s accumulator to operand A of `consumer`.
pub struct PConversion<'a> {
    /// P's element width where it is converted (after any promotion).
    pub bits: u64,
    /// The first dot's MMA.
    pub producer: &'a Mma,
    /// The second dot's MMA.
    pub consumer: &'a Mma,
    /// P's rows (M).
    pub rows: u64,
    /// P's columns (the second dot's K).
    pub cols: u64,
}

/// A TTGIR `convert_layout` from an MMA accumulator to operand A of an
/// Ampere (v2) dot, read as P's conversion.
pub(crate) struct OpConversion {
    bits: u64,
    producer: Mma,
    consumer: Mma,
    rows: u64,
    cols: u64,
    /// The operand's parent is the source attribute itself.
    pub same_attr: bool,
}

impl OpConversion {
    /// The conversion `op` is, if it is one.
    pub(crate) fn read(op: &crate::finder::op::Op<'_>) -> Option<OpConversion> {
        if op.name != "convert_layout" {
            return None;
        }
        let (shape, ty, src) = op.tensor.as_ref()?;
        let [rows, cols] = shape[..] else {
            return None;
        };
        let source = op.attr(src)?;
        let Attr::NvidiaMma(mma) = &source else {
            return None;
        };
        let producer = Mma::from_hopper_attr(mma).or_else(|| Mma::from_ampere_attr(mma))?;
        let Attr::DotOperand(operand) = op.attr(op.result.as_ref()?)? else {
            return None;
        };
        let consumer = match (operand.op_idx, &*operand.parent) {
            (0, Attr::NvidiaMma(m)) => Mma::from_ampere_attr(m)?,
            _ => return None,
        };
        Some(OpConversion {
            bits: crate::finder::op::bits_of(ty),
            producer,
            consumer,
            rows,
            cols,
            same_attr: *operand.parent == source,
        })
    }

    /// P's conversion.
    pub(crate) fn p(&self) -> PConversion<'_> {
        PConversion {
            bits: self.bits,
            producer: &self.producer,
            consumer: &self.consumer,
            rows: self.rows,
            cols: self.cols,
        }
    }
}

/// Runs 3.2's shortcut test on P's conversion; the shortcut is the crash.
pub(crate) fn convert_p(
    p: &PConversion<'_>,
    release: Release,
    trace: &mut Trace,
) -> Result<(), Failure> {
    if !SITE.fails_in(release) || p.producer.version != 3 || p.consumer.version != 2 {
        return Ok(());
    }
    if p.bits != 16 && p.bits != 8 {
        trace.note(|| {
            format!(
                "P ({} bits) goes to the v2 operand without the 8- and 16-bit shortcut",
                p.bits
            )
        });
        return Ok(());
    }
    if p.producer.warps[1] != 1 {
        trace.note(|| "P goes to the v2 operand through shared memory (the v3 accumulator has warps along N)".to_string());
        return Ok(());
    }
    let shape = [p.rows, p.cols];
    let mma_layout = |mma: &Mma, what: &'static str, trace: &mut Trace| {
        converted(
            &Attr::NvidiaMma(mma.attr()),
            &shape,
            release,
            None,
            trace,
            || format!("{what} on P [{}x{}]", p.rows, p.cols),
        )
    };
    let (Some(parent), Some(source)) = (
        mma_layout(p.consumer, "dot 2's MMA v2", trace)?,
        mma_layout(p.producer, "dot 1's MMA v3", trace)?,
    ) else {
        return Ok(());
    };
    let shortcut = match reorders_registers(&parent, &source) {
        Ok(only_registers) => only_registers,
        Err(e) => {
            trace.note(|| format!("P's conversion: not decided here ({e})"));
            return Ok(());
        }
    };
    if !shortcut {
        trace.note(|| {
            "P goes to the v2 operand through shared memory (the two MMAs place rows in different threads)".to_string()
        });
        return Ok(());
    }
    trace.note(|| {
        "P stays in registers: dot 2's MMA v2 differs from dot 1's v3 accumulator only in register order, so 3.2 takes the v3 shortcut".to_string()
    });
    if p.bits == 8 {
        return Err(Failure::at(
            &SITE,
            &PACK_3_2,
            release,
            "convertMMAV3To8BitsDotOperand's i8 values packed into the v2 operand's i32 struct (after \
             \"error: invalid element type in packLLElements. Expected 'i32' but got 'i8'\")",
        ));
    }
    Err(Failure::at(
        &SITE,
        &UNLOWERED_3_2,
        release,
        "16-bit accumulator values handed over as the v2 operand unchanged; translation to LLVM IR \
         fails on the cast left behind, then the process dies of a segmentation fault",
    ))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::AccumulatorToOperand, super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::AccumulatorToOperand { p, .. } => convert_p(p, release, trace),
            super::Event::Op(op) => match OpConversion::read(op) {
                Some(c) => convert_p(&c.p(), release, trace),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}
