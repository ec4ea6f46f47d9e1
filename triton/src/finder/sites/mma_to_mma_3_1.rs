//! Triton 3.1's scratch buffer for a `convert_layout` from one MMA
//! accumulator to another (`getCvtOrder` in `lib/Analysis/Allocation.cpp`).
//!
//! Shared-memory allocation sizes a scratch buffer for every conversion
//! between distributed layouts, unless it is a shortcut that stays in
//! registers. Between two MMAs, 3.1's only shortcut (`isMmaToMmaShortcut`)
//! is a Hopper (v3) accumulator to another with one warp along N on both
//! sides. Every other pair goes on to `getCvtOrder`, which asserts that the
//! source is an Ampere (v2) MMA: a Hopper source aborts the compile, even
//! when the two layouts are equal (a TTGIR file is not canonicalized
//! again). 3.2 lets Hopper sources through as well, and 3.3 removed the
//! assertion. Measured on 3.1.0 (`op_level.py fuzz --mma-pairs`):
//! v3 → v2 and v3 → v3 with warps along N abort, v2 → v3 and the v3 shortcut
//! compile.

use super::Failure;
use crate::Release;
use crate::attr::NvidiaMma;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

static CVT_ORDER_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::Assertion,
    function: "getCvtOrder",
    file: "lib/Analysis/Allocation.cpp",
    line: Some(47),
    message: "Assertion `!(srcMmaLayout && dstMmaLayout && !srcMmaLayout.isAmpere()) && \"mma -> mma layout conversion is only supported on Ampere\"' failed.",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "mma_to_mma_3_1",
    kind: SiteKind::Bug,
    title: "a convert_layout from a Hopper MMA accumulator to another MMA layout, sized for scratch memory by 3.1",
    locations: &[&CVT_ORDER_3_1],
    changes: &[Change {
        release: Release::V3_2,
        pr: None,
        what: "the allocation analysis admits Hopper sources (3.3 removed the assertion)",
    }],
    workaround: "num_warps of 4 or fewer for chained Hopper dots (flash-linear-attention PR #240's choice)",
};

/// 3.1's allocation analysis of a conversion from `src` to `dst`.
pub(crate) fn scratch_order(
    src: &NvidiaMma,
    dst: &NvidiaMma,
    release: Release,
) -> Result<(), Failure> {
    if !SITE.fails_in(release) || src.version_major == 2 {
        return Ok(());
    }
    let one_warp_along_n = |m: &NvidiaMma| m.warps_per_cta.get(1) == Some(&1);
    let shortcut = src.version_major == 3
        && dst.version_major == 3
        && one_warp_along_n(src)
        && one_warp_along_n(dst);
    if shortcut {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        &CVT_ORDER_3_1,
        release,
        format!(
            "a v{} accumulator converted to a v{} one, not the v3 shortcut",
            src.version_major, dst.version_major
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
        &[super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        // 3.1's shared-memory allocation of a conversion between two MMA
        // accumulators, which runs before any lowering.
        let super::Event::Op(op) = event else {
            return Ok(());
        };
        if op.name != "convert_layout" {
            return Ok(());
        }
        let (Some((_, _, src)), Some(dst)) = (op.tensor.as_ref(), op.result.as_ref()) else {
            return Ok(());
        };
        match (op.attr(src), op.attr(dst)) {
            (Some(crate::attr::Attr::NvidiaMma(src)), Some(crate::attr::Attr::NvidiaMma(dst))) => {
                scratch_order(&src, &dst, release)
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mma(version_major: u64, warps: [u64; 2], instr: &[u64]) -> NvidiaMma {
        NvidiaMma {
            version_major,
            version_minor: 0,
            warps_per_cta: warps.to_vec(),
            cga: None,
            instr_shape: instr.to_vec(),
        }
    }

    /// The four cases measured on the 3.1.0 wheel, and 3.2 letting the
    /// aborting ones through.
    #[test]
    fn a_hopper_source_aborts_3_1_unless_both_have_one_warp_along_n() {
        let v3 = |w| mma(3, w, &[16, 64, 16]);
        let v2 = |w| mma(2, w, &[16, 8]);
        let cases = [
            (v3([4, 2]), v3([4, 2]), true),
            (v3([4, 2]), v3([8, 1]), true),
            (v3([4, 2]), v2([4, 2]), true),
            (v3([4, 1]), v2([4, 1]), true),
            (v3([4, 1]), v3([4, 1]), false),
            (v2([4, 2]), v3([4, 2]), false),
            (v2([4, 2]), v2([2, 4]), false),
        ];
        for (src, dst, aborts) in cases {
            let got = scratch_order(&src, &dst, Release::V3_1);
            assert_eq!(got.is_err(), aborts, "{src:?} -> {dst:?}");
            assert!(scratch_order(&src, &dst, Release::V3_2).is_ok());
        }
    }
}
