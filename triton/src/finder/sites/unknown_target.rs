//! Instruction selection of a warp shuffle for a target the release's LLVM
//! does not know.
//!
//! The NVIDIA backend hands LLVM the processor `sm_{capability}` (3.1 and
//! 3.2: `sm_90a` for 90, else `sm_100`, `sm_120`; `make_llir` in
//! `third_party/nvidia/backend/compiler.py`). The LLVM linked into 3.1 lists
//! NVPTX processors up to `sm_90a`, 3.2's adds `sm_100`, 3.3's `sm_120a`
//! (the wheels' `libtriton.so` hold the processor table:
//! [`Release::llvm_knows_processor`]). For an unknown processor LLVM prints
//! "'sm_120' is not a recognized processor for this target (ignoring
//! processor)" and selects instructions for its default, `sm_20`, which has
//! no `shfl.sync`: the first warp shuffle left in the module stops
//! instruction selection with `report_fatal_error`. Everything else the
//! patterns emit is inline PTX or selects on any processor (measured: every
//! dot pattern compiles with 3.1.0 on sm100 and sm120).
//!
//! A scan shuffles when its operand's lanes or warps hold distinct data
//! along the scanned dim: lanes, in the warp scan (`shfl.sync.up`) and, with
//! several values a thread, in `AddPartialReduceOneWarp` (`.up`, `.idx`);
//! warps, in `AddPartialReduce` (`.up`, emitted whether or not it is used,
//! and not removed). Measured with 3.1.0 and 3.2.0 on sm100 and sm120: 4 ×
//! 256 fp16 with its 4 warps along the rows aborts, 2 × 256 fp32 with its 2
//! warps along the columns and 1 × 64 compile. Which of `.up` and `.idx`
//! the message names depends on LLVM's selection order, which is not
//! modelled: the message is matched up to the intrinsic's family.

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;

static SHUFFLE: Location = Location {
    releases: Span::until(Release::V3_1, Release::V3_3),
    ending: Ending::FatalError,
    function: "SelectionDAGISel::CannotYetSelect (NVPTX instruction selection)",
    file: "llvm/lib/CodeGen/SelectionDAG/SelectionDAGISel.cpp",
    line: None,
    message: "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "unknown_target",
    kind: SiteKind::Bug,
    title: "a warp shuffle on a GPU the release's LLVM does not know (3.1: sm100, sm120; 3.2: sm120)",
    locations: &[&SHUFFLE],
    changes: &[
        Change {
            release: Release::V3_2,
            pr: None,
            what: "3.2's LLVM knows sm_100",
        },
        Change {
            release: Release::V3_3,
            pr: None,
            what: "3.3's LLVM knows sm_100a to sm_120a (and the backend asks for sm_{cc}a)",
        },
    ],
    workaround: "a release whose LLVM knows the GPU (3.2 for sm100, 3.3 for sm120)",
};

/// Whether any `in_dim` basis of `l` moves along dim `axis`: that
/// hardware dim holds distinct data along it.
fn moves_along(l: &LinearLayout, in_dim: Dim, axis: usize) -> bool {
    l.bases()
        .into_iter()
        .filter(|(d, _)| *d == in_dim)
        .flat_map(|(_, b)| b)
        .any(|b| b.get(axis).is_some_and(|&c| c != 0))
}

/// Selects the instructions of a scan along `axis` of an operand laid out
/// as `l`, for compute capability `capability`.
pub(crate) fn scan(
    l: &LinearLayout,
    axis: usize,
    capability: u32,
    release: Release,
) -> Result<(), Failure> {
    if release.llvm_knows_processor(capability) {
        return Ok(());
    }
    let lanes = moves_along(l, Dim::LANE, axis);
    let warps = moves_along(l, Dim::WARP, axis);
    if !lanes && !warps {
        return Ok(());
    }
    let Some(location) = SITE.location(release) else {
        return Ok(());
    };
    let who = if lanes { "lanes" } else { "warps" };
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "the scan's {who} hold distinct data along dim {axis}, so it shuffles; Triton {release}'s LLVM has no processor sm_{capability} and selects for sm_20, which has no shfl.sync"
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
        &[super::EventKind::Scan, super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::Scan(super::ScanOperand {
                layout,
                axis,
                capability: Some(capability),
                ..
            }) => scan(layout, *axis, *capability, release),
            super::Event::Op(op) if op.name == "scan" => {
                let Some(capability) = op.module.capability else {
                    return Ok(());
                };
                match super::scan_layout::read_op(op, release, trace)? {
                    Some(s) => scan(&s.layout, s.axis, capability, release),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}
