//! Triton 3.1's and 3.2's shared → register load of a rank-3 tensor
//! (3.1: `ConvertLayoutOpToLLVM.cpp:84`, 3.2: `MemoryOpToLLVM.cpp:175`):
//! lowering `local_load` asserts the destination is at most rank 2 unless it
//! is a supported dot-operand layout. 3.3 lowers it through linear layouts.

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};

static RANK_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::Assertion,
    function: "LocalLoadOpConversion::lowerSharedToDistributed",
    file: "lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp",
    line: Some(84),
    message: "Assertion `dstShape.size() <= 2 && \"Unexpected rank of ConvertLayout(shared->blocked)\"' failed.",
};
static RANK_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "LocalLoadOpConversion::lowerSharedToDistributed",
    file: "lib/Conversion/TritonGPUToLLVM/MemoryOpToLLVM.cpp",
    line: Some(175),
    message: "Assertion `(dstShape.size() <= 2 || isSupportedDotOpLayout(dstLayout)) && \"Unexpected rank of ConvertLayout(shared->distributed)\"' failed.",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "local_load_rank3",
    kind: SiteKind::Bug,
    title: "a rank-3 shared-memory load into a layout that is not a dot operand (pipelined rank-3 loads, triton #5882)",
    locations: &[&RANK_3_1, &RANK_3_2],
    changes: &[Change {
        release: Release::V3_3,
        pr: None,
        what: "rank-3 local_load is lowered through linear layouts",
    }],
    workaround: "num_stages=1 for kernels with rank-3 loads feeding an MMA v2 dot",
};

/// A rank-`rank` `local_load`, into a dot-operand layout or not.
pub(crate) fn local_load(
    rank: usize,
    into_dot_operand: bool,
    release: Release,
) -> Result<(), Failure> {
    if rank <= 2 || into_dot_operand {
        return Ok(());
    }
    match SITE.location(release) {
        Some(location) => Err(Failure::at(
            &SITE,
            location,
            release,
            format!("a rank-{rank} tensor read from shared memory"),
        )),
        None => Ok(()),
    }
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::LocalLoad, super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::LocalLoad {
                rank,
                into_dot_operand,
            } => local_load(*rank, *into_dot_operand, release),
            super::Event::Op(op) if op.name == "local_load" && op.buffer.is_some() => {
                let Some((shape, _, enc)) = op.tensor.as_ref() else {
                    return Ok(());
                };
                let into_dot = matches!(op.attr(enc), Some(crate::attr::Attr::DotOperand(_)));
                local_load(shape.len(), into_dot, release)
            }
            _ => Ok(()),
        }
    }
}
