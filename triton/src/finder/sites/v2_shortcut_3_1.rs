//! Triton 3.1's register shortcut from an MMA v2 accumulator to operand A
//! of a dot with the same MMA (`lowerMmaToDotOperand` in
//! `ConvertLayoutOpToLLVM.cpp`, taken when `isMmaToDotShortcut` holds: a v2
//! source with every warp along M, operand A, the operand's parent equal to
//! the source, and elements that are not f32).
//!
//! The lowering packs the accumulator's values into 32-bit words (two
//! 16-bit or four 8-bit values each) and then reorders the words four at a
//! time, in the order `ldmatrix.x4` would produce: words 0, 2, 1, 3 of each
//! group. It never checks that the words come in whole groups. There are
//! `4 · repM · repN` values per thread (`repM` tiles of 16 rows, `repN` of
//! 8 columns), so `2 · repM · repN` words of 16-bit values, always even in
//! number since P has at least 16 columns; but `repM · repN` words of
//! 8-bit values, which is not a multiple of four when P has 16 columns
//! (`repN = 2`) and one row tile per warp (`repM = 1`). Then the reorder
//! reads past the end of its `SmallVector`, and the assertion in
//! `SmallVector::operator[]` aborts.
//!
//! In the pattern kernels this takes native 8-bit P: fp8 on cc 89, the one
//! target that does not promote fp8 for MMA v2 (int8 would too, but 3.1's
//! front end asks an int8 dot for K ≥ 32, so P has at least 32 columns).
//! Measured on 3.1.0 (`tests/data/compile/sm89-*`): chain-a with N = 16
//! aborts with M = 64 on 32 warps and M = 32 on 2 warps, and compiles with
//! M = 256 on 8 warps (`repM = 2`). 3.2 lowers this conversion another way
//! and compiles all three.

use super::accumulator_to_v2::PConversion;
use super::{Failure, converted};
use crate::Release;
use crate::attr::Attr;
use crate::finder::verdict::Trace;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;

static REORDER_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::Assertion,
    function: "lowerMmaToDotOperand, the MMA v2 to dot operand register shortcut (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/ConvertLayoutOpToLLVM.cpp)",
    file: "llvm/ADT/SmallVector.h",
    line: Some(304),
    message: "Assertion `idx < size()' failed.",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "v2_shortcut_3_1",
    kind: SiteKind::Bug,
    title: "an 8-bit MMA v2 accumulator kept in registers as operand A by 3.1, with a partial group of four words",
    locations: &[&REORDER_3_1],
    changes: &[Change {
        release: Release::V3_2,
        pr: None,
        what: "the MMA v2 to operand A shortcut packs P into 32-bit words and no longer reorders them in groups of four",
    }],
    workaround: "N of at least 32 for 8-bit chained dots, or more rows per warp",
};

/// Values per 32-bit word for `bits`-bit elements (the lowering's
/// `vecSize`, or its integer `fold`).
fn per_word(bits: u64) -> u64 {
    (32 / bits.max(1)).max(1)
}

/// 3.1's shortcut on P's conversion (the same description as
/// [`accumulator_to_v2`](super::accumulator_to_v2)'s).
pub(crate) fn convert_p(
    p: &PConversion<'_>,
    release: Release,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let PConversion {
        bits,
        producer,
        consumer,
        rows,
        cols,
    } = *p;
    if !SITE.fails_in(release) || producer.version != 2 {
        return Ok(());
    }
    // `isMmaToDotShortcut`: otherwise P goes through shared memory.
    if producer.warps[1] != 1 || producer != consumer || bits == 32 {
        return Ok(());
    }
    let what = || format!("dot 1's MMA v2 on P [{rows}x{cols}]");
    let Some(acc) = converted(
        &Attr::NvidiaMma(producer.attr()),
        &[rows, cols],
        release,
        None,
        trace,
        what,
    )?
    else {
        return Ok(());
    };
    let Ok(values) = acc.in_dim_size(Dim::REGISTER) else {
        return Ok(());
    };
    let words = values / per_word(bits);
    trace.note(|| {
        format!(
            "P stays in registers (3.1's MMA v2 shortcut): {values} values per thread, packed into {words} 32-bit word(s) of {bits}-bit elements, reordered in groups of 4"
        )
    });
    if words % 4 == 0 {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &REORDER_3_1,
        release,
        format!("{words} packed words of {bits}-bit P, reordered four at a time"),
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
            super::Event::AccumulatorToOperand { p, same_attr: true } => {
                convert_p(p, release, trace)
            }
            // 3.1's `isMmaToDotShortcut` compares the operand's parent with
            // the source attribute as a whole, not just the fields `Mma`
            // keeps.
            super::Event::Op(op) => match super::accumulator_to_v2::OpConversion::read(op) {
                Some(c) if c.same_attr => convert_p(&c.p(), release, trace),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finder::decisions::Mma;

    fn v2(warps: [u64; 2]) -> Mma {
        Mma {
            version: 2,
            warps,
            instr: vec![16, 8],
        }
    }

    fn outcome(mma: &Mma, [rows, cols]: [u64; 2], bits: u64) -> bool {
        let p = PConversion {
            bits,
            producer: mma,
            consumer: mma,
            rows,
            cols,
        };
        convert_p(&p, Release::V3_1, &mut Trace::new(false)).is_ok()
    }

    /// The three chain-a shapes measured on 3.1.0 (see the module docs),
    /// and what the word count implies for the others.
    #[test]
    fn whole_groups_of_words_compile() {
        assert!(!outcome(&v2([32, 1]), [64, 16], 8));
        assert!(!outcome(&v2([2, 1]), [32, 16], 8));
        assert!(outcome(&v2([8, 1]), [256, 16], 8));
        // Wider P fills the groups; 16-bit P always does.
        assert!(outcome(&v2([2, 1]), [32, 32], 8));
        assert!(outcome(&v2([32, 1]), [64, 16], 16));
        // No shortcut: warps along N, or f32 elements.
        assert!(outcome(&v2([1, 2]), [32, 16], 8));
        assert!(outcome(&v2([2, 1]), [32, 16], 32));
    }

    #[test]
    fn other_releases_and_different_mmas_are_left_alone() {
        let mut trace = Trace::new(false);
        let (a, b) = (v2([2, 1]), v2([1, 2]));
        let p = |consumer| PConversion {
            bits: 8,
            producer: &a,
            consumer,
            rows: 32,
            cols: 16,
        };
        for release in [Release::V3_2, Release::V3_3] {
            assert!(convert_p(&p(&a), release, &mut trace).is_ok());
        }
        assert!(convert_p(&p(&a), Release::V3_1, &mut trace).is_err());
        assert!(convert_p(&p(&b), Release::V3_1, &mut trace).is_ok());
    }
}
