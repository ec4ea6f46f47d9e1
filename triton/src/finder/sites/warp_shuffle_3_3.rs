//! Triton 3.3's warp-shuffle plan for a layout conversion that moves data
//! between the lanes of a warp, and the rebuild that breaks it.
//!
//! Every `convert_layout` is asked whether it needs shared memory
//! (`cvtNeedsSharedMemory`, from the allocation pass on). When the
//! conversion's minimal layout moves data across lanes but not warps, that
//! question builds the shuffle plan (`getWarpLayoutConvertDecomposition`,
//! `lib/Analysis/Utility.cpp`). Writing the conversion `C`, from
//! (destination register, lane) to (source register, lane), as
//! `P1 ∘ W ∘ P2`, with `W` a shuffle and `P1`, `P2` register permutations:
//!
//! 1. each lane basis of `C` that moves registers but not lanes must be
//!    paired with a register basis that moves lanes (else no plan; a lane
//!    basis that moves neither is a broadcast, no plan either);
//! 2. `P2⁻¹` folds those register bases into the lane bases, `C' = P2⁻¹ ∘ C`;
//! 3. `W⁻¹` comes from the pseudo-inverse of `C'`'s lane part, and
//!    `P1 = W⁻¹ ∘ C'`;
//! 4. `P1` and `P2⁻¹`, restricted to their register outputs, drop their zero
//!    lane bases (`removeZeroBasesAlongDim`), to count the selects.
//!
//! In 3.3 step 4 rebuilds the layout with the constructor that infers each
//! out-dim's size from its largest component and requires the result to be
//! surjective. When the conversion's registers are not all distinct (a
//! tensor smaller than a layout's register tile, so registers repeat), the
//! registers left do not cover that size, and the constructor stops with
//! `report_fatal_error("Layout is expected to be surjective, …")`. 3.4 keeps
//! the out-dim sizes and does not require surjectivity. Measured: an MMA v2
//! accumulator on an 8 × 128 bf16 tensor, one warp, converted to a blocked
//! layout, aborts the 3.3.1 wheel with that message.
//!
//! The steps are ours, in Triton's order; where our algebra refuses a step
//! that Triton takes, the model stops and reports nothing.

use super::Failure;
use crate::Release;
use crate::layout_cvt::within_warp;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;

const FUNCTION: &str = "getWarpLayoutConvertDecomposition";
const FILE: &str = "lib/Analysis/Utility.cpp";

const fn plan_assertion(line: u32, message: &'static str) -> Location {
    Location {
        releases: Span::only(Release::V3_3),
        ending: Ending::Assertion,
        function: FUNCTION,
        file: FILE,
        line: Some(line),
        message,
    }
}

static LOWER_HALF: Location = plan_assertion(318, "Assertion `lowerHalfRow[1] == 0' failed.");
static UPPER_HALF: Location = plan_assertion(340, "Assertion `upperHalfRow[0] == 0' failed.");
static P1_ZERO: Location = plan_assertion(
    406,
    "Assertion `P1.sublayoutIsZero(kRegister, kLane)' failed.",
);
static P1_IDENTITY: Location = plan_assertion(
    407,
    "Assertion `squareSublayoutIsIdentity(P1, kLane)' failed.",
);
/// `removeZeroBasesAlongDim` rebuilding a layout that is no longer
/// surjective.
static NOT_SURJECTIVE: Location = Location {
    releases: Span::only(Release::V3_3),
    ending: Ending::FatalError,
    function: "getWarpLayoutConvertDecomposition, removeZeroBasesAlongDim",
    file: "lib/Tools/LinearLayout.cpp",
    line: None,
    message: "LLVM ERROR: Layout is expected to be surjective, i.e. every `out` coordinate can be reached by some `in` coordinate, but was not:",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "warp_shuffle_3_3",
    kind: SiteKind::Bug,
    title: "a layout conversion across lanes whose registers repeat, planned as a warp shuffle by 3.3",
    locations: &[
        &LOWER_HALF,
        &UPPER_HALF,
        &P1_ZERO,
        &P1_IDENTITY,
        &NOT_SURJECTIVE,
    ],
    changes: &[Change {
        release: Release::V3_4,
        pr: None,
        what: "removeZeroBasesAlongDim keeps the out-dim sizes and no longer requires surjectivity",
    }],
    workaround: "a tensor at least as large as both layouts' register tiles",
};

/// What building the shuffle plan for converting `src` to `dst` fails on in
/// `release` (3.3 builds one), if anything.
pub(crate) fn plan(
    src: &LinearLayout,
    dst: &LinearLayout,
    release: Release,
) -> Result<(), Failure> {
    if !SITE.fails_in(release) {
        return Ok(());
    }
    // Only a conversion across lanes and registers gets a plan.
    let Some(cvt) = within_warp(src, dst) else {
        return Ok(());
    };
    // Where our algebra refuses a step, the model stops without a finding.
    plan_steps(&cvt, release).unwrap_or(Ok(()))
}

/// The plan's steps; the outer `Result` is our algebra's, the inner one
/// Triton's failure.
fn plan_steps(cvt: &LinearLayout, release: Release) -> linear_layout::Result<Result<(), Failure>> {
    let assertion = |location: &'static Location, why: &str| {
        Failure::at(&SITE, location, release, why.to_string())
    };
    let (reg, lane) = (Dim::REGISTER, Dim::LANE);
    let c = cvt.sublayout(&[lane, reg], &[lane, reg])?;
    // Components are (register, lane), the conversion's out-dim order.
    let mut missing = Vec::new();
    for i in 0..c.in_dim_size_log2(lane)? as usize {
        let row = c.basis(lane, i)?;
        if row[0] != 0 {
            if row[1] != 0 {
                return Ok(Err(assertion(
                    &LOWER_HALF,
                    "a lane basis of the conversion moves both registers and lanes",
                )));
            }
            missing.push(i);
        } else if row[1] == 0 {
            // A broadcast along the lanes: no plan, shared memory instead.
            return Ok(Ok(()));
        }
    }
    let mut p_prime = vec![0u64; c.in_dim_size_log2(lane)? as usize];
    for i in 0..c.in_dim_size_log2(reg)? as usize {
        let row = c.basis(reg, i)?;
        if row[1] == 0 {
            continue;
        }
        if row[0] != 0 {
            return Ok(Err(assertion(
                &UPPER_HALF,
                "a register basis of the conversion moves both registers and lanes",
            )));
        }
        if let Some(j) = missing.pop() {
            p_prime[j] |= 1 << i;
        }
    }
    if !missing.is_empty() {
        return Ok(Ok(()));
    }
    let (regs, lanes) = (c.in_dim_size(reg)?, c.in_dim_size(lane)?);
    let p_prime = LinearLayout::from_bases_with_sizes(
        &[(lane, p_prime.iter().map(|&r| vec![r]).collect())],
        &[(reg, regs)],
        false,
    )?;
    let p2_inv_top = LinearLayout::identity_1d(regs, reg, reg)?
        .concat_outs(&LinearLayout::zeros_1d(regs, reg, lane, lanes)?)?;
    let p2_inv_bottom = p_prime.concat_outs(&LinearLayout::identity_1d(lanes, lane, lane)?)?;
    let p2_inv = p2_inv_top.concat_ins(&p2_inv_bottom)?;
    let c_prime = p2_inv.compose(&c)?;
    let l = c_prime.sublayout(&[lane], &[lane])?.pseudoinvert()?;
    let r = c_prime.sublayout(&[reg], &[lane])?.compose(&l)?;
    let w_inv = LinearLayout::identity_1d(regs, reg, reg)?
        .concat_ins(&LinearLayout::zeros_1d(lanes, lane, reg, regs)?)?
        .concat_outs(&r.concat_ins(&l)?)?;
    let p1 = w_inv.compose(&c_prime)?;
    if !p1.sublayout_is_zero(&[reg], &[lane])? {
        return Ok(Err(assertion(
            &P1_ZERO,
            "the plan's P1 moves registers into lanes",
        )));
    }
    if !p1.square_sublayout_is_identity(&[lane])? {
        return Ok(Err(assertion(
            &P1_IDENTITY,
            "the plan's P1 is no identity on the lanes",
        )));
    }
    for layout in [&p1, &p2_inv] {
        let registers_only = layout.sublayout(&[lane, reg], &[reg])?;
        if let Some(failure) = rebuilt_without_zero_lanes(&registers_only, release)? {
            return Ok(Err(failure));
        }
    }
    Ok(Ok(()))
}

/// 3.3's `removeZeroBasesAlongDim(lane)`: the zero lane bases dropped and
/// the layout rebuilt with out-dim sizes inferred from the components,
/// surjective or refused.
fn rebuilt_without_zero_lanes(
    layout: &LinearLayout,
    release: Release,
) -> linear_layout::Result<Option<Failure>> {
    let bases: Vec<(Dim, Vec<Vec<u64>>)> = layout
        .bases()
        .into_iter()
        .map(|(d, vectors)| {
            let kept = if d == Dim::LANE {
                vectors
                    .into_iter()
                    .filter(|v| v.iter().any(|&x| x != 0))
                    .collect()
            } else {
                vectors
            };
            (d, kept)
        })
        .collect();
    let outs: Vec<Dim> = layout.out_dim_names().collect();
    Ok(match LinearLayout::from_bases(&bases, &outs) {
        Err(linear_layout::LayoutError::NotSurjective { .. }) => Some(Failure::at(
            &SITE,
            &NOT_SURJECTIVE,
            release,
            "removeZeroBasesAlongDim rebuilds the shuffle plan's register map with inferred sizes, \
             which the repeated registers do not cover",
        )),
        _ => None,
    })
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
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        // 3.3 asks every conversion across lanes for a warp-shuffle plan.
        let super::Event::Op(op) = event else {
            return Ok(());
        };
        if op.name != "convert_layout" || !SITE.fails_in(release) {
            return Ok(());
        }
        let (Some((shape, _, src)), Some(dst)) = (op.tensor.as_ref(), op.result.as_ref()) else {
            return Ok(());
        };
        let mut layout = |enc: &str| match op.attr(enc) {
            Some(attr) => super::converted(&attr, shape, release, None, trace, String::new),
            None => Ok(None),
        };
        match (layout(src)?, layout(dst)?) {
            (Some(src), Some(dst)) => plan(&src, &dst, release),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Defs, parse_attr, to_linear_layout};

    fn layout(text: &str, shape: &[u64]) -> LinearLayout {
        let attr = parse_attr(text, &Defs::new()).expect("parses");
        to_linear_layout(&attr, shape, Release::V3_3, None)
            .expect("converts")
            .layout()
            .expect("a layout")
    }

    const MMA_ONE_WARP: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, \
                                warpsPerCTA = [1, 1], instrShape = [16, 8]}>";

    fn blocked(spt: [u64; 2], tpw: [u64; 2], order: [u64; 2]) -> String {
        format!(
            "#ttg.blocked<{{sizePerThread = [{}, {}], threadsPerWarp = [{}, {}], \
             warpsPerCTA = [1, 1], order = [{}, {}]}}>",
            spt[0], spt[1], tpw[0], tpw[1], order[0], order[1]
        )
    }

    #[test]
    fn repeated_registers_break_the_rebuild() {
        // The measured case: 8 rows under a 16-row MMA tile repeat registers.
        let shape = [8, 128];
        let src = layout(MMA_ONE_WARP, &shape);
        let dst = layout(&blocked([1, 1], [2, 16], [0, 1]), &shape);
        let failure = plan(&src, &dst, Release::V3_3).expect_err("3.3 aborts");
        assert_eq!(failure.ending(), Ending::FatalError);
        assert!(
            failure
                .triton_message
                .contains("Layout is expected to be surjective")
        );
        assert_eq!(plan(&src, &dst, Release::V3_4), Ok(()));
    }

    #[test]
    fn distinct_registers_plan_or_fall_back_quietly() {
        // 16 rows fill the tile: the same conversion is planned (or sent to
        // shared memory) without a failure, as is a lane transpose of a
        // blocked layout. The 3.3.1 wheel compiles both, and aborts on the
        // 8-row case above.
        let shape = [16, 128];
        let src = layout(MMA_ONE_WARP, &shape);
        let dst = layout(&blocked([1, 1], [2, 16], [0, 1]), &shape);
        assert_eq!(plan(&src, &dst, Release::V3_3), Ok(()));
        let shape = [32, 32];
        let a = layout(&blocked([1, 4], [4, 8], [1, 0]), &shape);
        let b = layout(&blocked([1, 4], [8, 4], [1, 0]), &shape);
        assert_eq!(plan(&a, &b, Release::V3_3), Ok(()));
        // Not across lanes at all: no plan is asked for.
        assert_eq!(plan(&a, &a, Release::V3_3), Ok(()));
    }
}
