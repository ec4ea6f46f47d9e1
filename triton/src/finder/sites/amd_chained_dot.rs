//! The AMD stream pipeliner's chained-dot schedule erasing a load it did
//! not stage (triton #9815).
//!
//! For a loop of exactly two `tt.dot`s, the first feeding the second, at
//! exactly 4 stages and with no indirect load (every staged load at
//! distance 0), 3.5 and 3.6 schedule the loop with `ChainedDotSchedule`
//! (meant for attention on gfx9, with block ping-pong). Its
//! `updateSchedule` stages through shared memory only the loads that have a
//! shared encoding (every user a conversion to a dot operand:
//! `getSharedEncIfAllUsersAreDotEnc`), then erases **every** load the
//! pipeliner selected. A selected load with another user, one that reaches
//! the second dot through the softmax (a bias, a scale, a mask), or a tile
//! of a dot on FMA (gfx1250 up to 3.6: its 16-bit operands are cast to fp32
//! first), is destroyed with its uses left: MLIR's `report_fatal_error`, which the
//! pass manager catches from source (`RuntimeError: PassManager::run
//! failed`). 3.7 erases only the loads it staged.
//!
//! Which loads are selected is the common pipeliner's walk
//! (`loadOpsToIndirectionLevel`): loads in the loop body's backward slice
//! of a dot's A or B operand (not the accumulator: a bias added to the dot
//! result is folded into it and never selected), distance below
//! `num_stages - 1`; with `filterSmallVectors` (every ISA family but CDNA4,
//! and from 3.6 but RDNA) a load narrower than 32 bits a thread is left
//! out (`canBeConvertedToAsyncLoad`).
//!
//! Measured on 3.5.1 and 3.6.0, every AMD target, attention with a key
//! bias at 4 stages: the error; 3 or 5 stages, one dot, or the bias added
//! straight to the first dot's result: compiles. 3.4.0 (no chained-dot
//! schedule) and 3.7.1 on compile.

use super::Failure;
use crate::finder::amd::target::{IsaFamily, isa_family};
use crate::finder::amd::{Loop, LoopLoad};
use crate::finder::verdict::Trace;
use crate::release::{Release, Span};
use crate::{Change, Ending, Location, Site, SiteKind};

const MESSAGE: &str = "LLVM ERROR: operation destroyed but still has uses";

static ERASE_3_5: Location = Location {
    releases: Span::only(Release::V3_5),
    ending: Ending::FatalError,
    function: "ChainedDotSchedule::updateSchedule (erasing every selected load)",
    file: "third_party/amd/lib/TritonAMDGPUTransforms/StreamPipeline.cpp",
    line: Some(969),
    message: MESSAGE,
};
static ERASE_3_6: Location = Location {
    releases: Span::only(Release::V3_6),
    ending: Ending::FatalError,
    function: "ChainedDotSchedule::updateSchedule (erasing every selected load)",
    file: "third_party/amd/lib/TritonAMDGPUTransforms/LowerLoops.cpp",
    line: Some(723),
    message: MESSAGE,
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "amd_chained_dot",
    kind: SiteKind::Bug,
    title: "a pipelined chained-dot loop (attention, 4 stages) with a load that is no dot operand (triton #9815)",
    locations: &[&ERASE_3_5, &ERASE_3_6],
    changes: &[
        Change {
            release: Release::V3_5,
            pr: None,
            what: "the AMD stream pipeliner schedules two chained dots at 4 stages with ChainedDotSchedule, which erases every load it selected",
        },
        Change {
            release: Release::V3_7,
            pr: None,
            what: "ChainedDotSchedule erases only the loads it staged through shared memory",
        },
    ],
    workaround: "num_stages other than 4 (2 or 3), or Triton 3.7 or later",
};

/// Whether the common pipeliner selects `load` in a loop of `stages`
/// stages; `filter_small`: loads narrower than 32 bits a thread are left
/// out.
pub(crate) fn selected(load: &LoopLoad, stages: u64, filter_small: bool) -> bool {
    load.distance + 1 < stages && (load.descriptor || !(filter_small && load.width_bits < 32))
}

/// The schedule `release` builds for `l`.
pub(crate) fn schedule(l: &Loop, release: Release, trace: &mut Trace) -> Result<(), Failure> {
    let Some(location) = SITE.location(release) else {
        return Ok(());
    };
    if l.num_stages != 4 || l.dots != 2 || !l.chained {
        return Ok(());
    }
    let family = isa_family(l.arch, release);
    let filter_small = family != Some(IsaFamily::Cdna4)
        && !(release.amd_pipelines_small_loads_on_rdna() && family.is_some_and(IsaFamily::is_rdna));
    let chosen: Vec<&LoopLoad> = l
        .loads
        .iter()
        .filter(|load| selected(load, l.num_stages, filter_small))
        .collect();
    if chosen.is_empty() || chosen.iter().any(|load| load.distance != 0) {
        trace.note(|| {
            "the pipeliner keeps the single-dot schedule (no selected load, or an indirect one)"
                .to_string()
        });
        return Ok(());
    }
    trace.note(|| {
        let names: Vec<&str> = chosen.iter().map(|load| load.what).collect();
        format!(
            "4 stages, two chained dots: ChainedDotSchedule stages {}",
            names.join(", ")
        )
    });
    let Some(orphan) = chosen.iter().find(|load| !load.dot_operand_only) else {
        return Ok(());
    };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "{} is selected for pipelining but not every user converts it to a dot operand: no shared buffer is made for it, and it is erased with its uses left",
            orphan.what
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
        &[super::EventKind::AmdLoop]
    }

    fn vendors(&self) -> &'static [crate::finder::config::Vendor] {
        &[crate::finder::config::Vendor::Amd]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::AmdLoop(l) => schedule(l, release, trace),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finder::config::Arch;

    fn tile(what: &'static str) -> LoopLoad {
        LoopLoad {
            what,
            width_bits: 128,
            distance: 0,
            dot_operand_only: true,
            descriptor: false,
        }
    }

    fn attention(arch: Arch, num_stages: u64, extra: Option<LoopLoad>) -> Loop {
        Loop {
            arch,
            num_stages,
            dots: 2,
            chained: true,
            loads: [tile("K"), tile("V")].into_iter().chain(extra).collect(),
        }
    }

    fn bias(width_bits: u64, distance: u64) -> LoopLoad {
        LoopLoad {
            what: "bias",
            width_bits,
            distance,
            dot_operand_only: false,
            descriptor: false,
        }
    }

    fn fails(l: &Loop, release: Release) -> bool {
        schedule(l, release, &mut Trace::new(false)).is_err()
    }

    /// The erase fails only where ChainedDotSchedule runs (exactly 4
    /// stages, two chained dots, 3.5 and 3.6) and a selected load is no dot
    /// operand.
    #[test]
    fn only_a_selected_load_that_is_no_operand_at_four_stages_fails() {
        for release in Release::ALL {
            let buggy = matches!(release, Release::V3_5 | Release::V3_6);
            for stages in 1..=5 {
                let l = attention(Arch::Gfx942, stages, Some(bias(32, 0)));
                assert_eq!(
                    fails(&l, release),
                    buggy && stages == 4,
                    "{release} {stages}"
                );
                // Dot operands alone are all staged and erased rightly.
                assert!(!fails(&attention(Arch::Gfx942, stages, None), release));
            }
            let one_dot = Loop {
                dots: 1,
                chained: false,
                ..attention(Arch::Gfx942, 4, Some(bias(32, 0)))
            };
            assert!(!fails(&one_dot, release));
        }
    }

    /// An indirect load (distance 1) keeps the single-dot schedule; a load
    /// narrower than 32 bits is not selected where small loads are filtered
    /// (CDNA3 in 3.6), and is on CDNA4 and, from 3.6, on RDNA.
    #[test]
    fn indirect_and_narrow_loads_follow_the_selection() {
        let indirect = attention(Arch::Gfx942, 4, Some(bias(32, 1)));
        assert!(!fails(&indirect, Release::V3_6));
        let narrow = |arch| attention(arch, 4, Some(bias(16, 0)));
        assert!(!fails(&narrow(Arch::Gfx942), Release::V3_6));
        assert!(fails(&narrow(Arch::Gfx950), Release::V3_6));
        assert!(fails(&narrow(Arch::Gfx1201), Release::V3_6));
        assert!(!fails(&narrow(Arch::Gfx1201), Release::V3_5));
        assert!(fails(&narrow(Arch::Gfx950), Release::V3_5));
    }
}
