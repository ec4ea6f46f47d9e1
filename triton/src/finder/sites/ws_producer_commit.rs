//! A warp-specialized loop on Hopper whose operands are plain pointer loads.
//!
//! The Hopper warp specialization (`third_party/nvidia/hopper/`) hands a
//! loaded tile from the producer partition to the consumers through a
//! token whose commit it lowers per kind of load (`processProducerCommitOp`,
//! `WSLowerToken.cpp`): TMA copies and async copies. A `tl.load` of
//! pointers is neither: 3.4 to 3.6 assert `false` there, 3.7 to 3.9 stop
//! with a fatal error.
//!
//! The pass pipeline fails before the module `check-ttgir` reads exists:
//! see [`super::Stage::TtgirPasses`].
//!
//! Measured: `family-compiles-*` (`ws_matmul` over pointers, fp16, 4 warps,
//! sm90, on 3.4.0 to 3.9.0).

use crate::release::Span;
use crate::{Ending, Location, Release, Site, SiteKind};

const FILE: &str = "third_party/nvidia/hopper/lib/Transforms/WarpSpecialization/WSLowerToken.cpp";
const FUNCTION: &str = "processProducerCommitOp";
const ASSERT: &str = "processProducerCommitOp(OpBuilder &, ttnvws::ProducerCommitOp, Value, ttnvws::TokenLoadType, unsigned int): Assertion `false' failed.";

static ASSERT_3_4: Location = Location::assertion(Release::V3_4, FILE, 86, FUNCTION, ASSERT);
static ASSERT_3_5: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_7),
    ending: Ending::Assertion,
    function: FUNCTION,
    file: FILE,
    line: Some(73),
    message: ASSERT,
};
static FATAL_3_7: Location = Location {
    releases: Span::since(Release::V3_7),
    ending: Ending::FatalError,
    function: FUNCTION,
    file: FILE,
    line: None,
    message: "LLVM ERROR: unsupported load type for producer commit",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "ws_producer_commit",
    kind: SiteKind::Bug,
    title: "a warp-specialized loop on sm90 whose operands are pointer loads, not TMA tiles",
    locations: &[&ASSERT_3_4, &ASSERT_3_5, &FATAL_3_7],
    changes: &[],
    workaround: "load the operands through tensor descriptors (host `TensorDescriptor` or `tl.make_tensor_descriptor`), or warp_specialize=False on sm90",
};

super::passes_only_model!();
