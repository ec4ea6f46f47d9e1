//! The AMD stream pipeliner meeting a tensor descriptor's load it cannot
//! predicate (gfx1250, 3.7).
//!
//! From 3.7 the AMD front end keeps a kernel's tensor descriptors on a
//! target with a tensor data mover (gfx1250) instead of rewriting them to
//! pointer loads, so a `tt.descriptor_load` reaches the stream pipeliner.
//! The common load selection always takes a descriptor load
//! (`isPipeliningBeneficial`), and the expander predicates the loads it
//! peels into the prologue: the 3.7.1 pipeliner knows how to predicate
//! pointer loads, not descriptor loads, and stops with "'tt.descriptor_load'
//! op pipeliner doesn't know how to predicate this op." and a fatal
//! "Fatal pipeliner error" (caught by the pass manager from source). 3.8
//! predicates descriptor loads too.
//!
//! Measured: a matmul loop through tensor descriptors on gfx1250 with 2, 3
//! or 4 stages fails with the 3.7.1 wheel, compiles with 1 stage, with
//! 3.6.0 (descriptors rewritten to pointers), 3.8.0 and 3.9.0, and on
//! gfx942, gfx950 and gfx1201 with every release.

use super::Failure;
use crate::finder::amd::Loop;
use crate::finder::verdict::Trace;
use crate::release::{Release, Span};
use crate::{Change, Ending, Location, Site, SiteKind};

static PREDICATE: Location = Location {
    releases: Span::only(Release::V3_7),
    ending: Ending::FatalError,
    function: "predicateOp (TritonAMDGPUPipeline, expanding a pipelined loop)",
    file: "third_party/amd/lib/TritonAMDGPUTransforms/Pipeline.cpp",
    line: None,
    message: "LLVM ERROR: Fatal pipeliner error",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "amd_tdm_pipeline",
    kind: SiteKind::Bug,
    title: "a pipelined loop of tensor-descriptor loads on gfx1250, whose 3.7 pipeliner cannot predicate them",
    locations: &[&PREDICATE],
    changes: &[
        Change {
            release: Release::V3_7,
            pr: None,
            what: "tensor descriptors are kept for gfx1250's tensor data mover instead of rewritten to pointers",
        },
        Change {
            release: Release::V3_8,
            pr: None,
            what: "the AMD pipeliner predicates descriptor loads",
        },
    ],
    workaround: "num_stages = 1 for loops of descriptor loads on gfx1250 with Triton 3.7, or Triton 3.8 or later",
};

/// The expansion of `l` in `release`.
pub(crate) fn expand(l: &Loop, release: Release, trace: &mut Trace) -> Result<(), Failure> {
    let Some(location) = SITE.location(release) else {
        return Ok(());
    };
    let Some(load) = l
        .loads
        .iter()
        .find(|load| load.descriptor && super::amd_chained_dot::selected(load, l.num_stages, true))
    else {
        return Ok(());
    };
    trace.note(|| format!("{} stays a tt.descriptor_load and is pipelined", load.what));
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "{} is a tensor descriptor's load in a loop of {} stages: the pipeliner peels it and has no way to predicate it",
            load.what, l.num_stages
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
            super::Event::AmdLoop(l) => expand(l, release, trace),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finder::amd::LoopLoad;
    use crate::finder::config::Arch;

    fn desc_loop(num_stages: u64, descriptor: bool) -> Loop {
        let tile = |what| LoopLoad {
            what,
            width_bits: 128,
            distance: 0,
            dot_operand_only: true,
            descriptor,
        };
        Loop {
            arch: Arch::Gfx1250,
            num_stages,
            dots: 1,
            chained: false,
            loads: vec![tile("A"), tile("B")],
        }
    }

    /// Only 3.7, only descriptor loads, only a pipelined loop.
    #[test]
    fn descriptor_loads_fail_to_pipeline_in_3_7_alone() {
        for release in Release::ALL {
            for stages in 1..=4 {
                for descriptor in [false, true] {
                    let got = expand(
                        &desc_loop(stages, descriptor),
                        release,
                        &mut Trace::new(false),
                    );
                    let fails = release == Release::V3_7 && descriptor && stages >= 2;
                    assert_eq!(got.is_err(), fails, "{release} {stages} {descriptor}");
                }
            }
        }
    }
}
