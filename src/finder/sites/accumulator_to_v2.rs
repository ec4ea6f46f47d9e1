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
//! [`layout_cvt`](crate::triton::layout_cvt)). The check never asks for the
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

use super::{Ending, Failure, converted};
use crate::finder::decisions::Mma;
use crate::finder::verdict::Trace;
use crate::triton::TritonVersion;
use crate::triton::attr::Attr;
use crate::triton::layout_cvt::reorders_registers;

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

/// Runs 3.2's shortcut test on P's conversion; the shortcut is the crash.
pub fn convert_p(
    p: &PConversion<'_>,
    release: TritonVersion,
    trace: &mut Trace,
) -> Result<(), Failure> {
    if release != TritonVersion::V3_2 || p.producer.version != 3 || p.consumer.version != 2 {
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
        return Err(Failure::new(
            Ending::Assertion,
            release,
            "lowering of a convert_layout from an MMA v3 accumulator to an MMA v2 dot operand, kept in registers by 3.2's v3 shortcut (8-bit: convertMMAV3To8BitsDotOperand's i8 values packed into the v2 operand's i32 struct)",
            "ArrayRef.h:260: const T& llvm::ArrayRef<T>::operator[](size_t) const [with T = mlir::Type; size_t = long unsigned int]: Assertion `Index < Length && \"Invalid index!\"' failed. (after: error: invalid element type in packLLElements. Expected 'i32' but got 'i8')",
        ));
    }
    Err(Failure::new(
        Ending::Crash,
        release,
        "translation to LLVM IR of a convert_layout from an MMA v3 accumulator to an MMA v2 dot operand, kept in registers by 3.2's v3 shortcut (16-bit)",
        "error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast; then a segmentation fault",
    ))
}
