//! The warp-local layout the thread-locality pass gives `tl.gather`
//! (triton #11600, #5836).
//!
//! `setOptimizedGatherLayout` (`lib/Dialect/TritonGPU/Transforms/
//! OptimizeThreadLocality.cpp`, 3.3 on) builds one blocked layout for the
//! source `[.., S, ..]` and the index tensor `[.., I, ..]` of a gather along
//! `axis`: as many lanes along the axis as the source has elements (at most
//! 32), the other lanes over the other dims, one warp along the axis and
//! the warps over the other dims, each as far as the dim holds them,
//! `sizePerThread[axis] = S / lanes` (3.9: `max(S, I) / lanes`, PR #10838),
//! the source's CGA; the lanes and warps left over go along the axis. Then
//! it asserts `GatherLoweringHelper(op).isWarpLocal()`: on both tensors'
//! linear layouts, no `block` or `warp` basis moves along the axis, and the
//! `(block, warp)` and `lane` parts on the other dims agree. With warps left
//! over and an index tensor longer than the source's register and lane
//! coverage (`I > S · lanes left`), the index tensor's first warp basis
//! lands inside its shape along the axis, and the assertion fails.
//!
//! The fix keeps the source's CGA: when the source has fewer rows than CTAs
//! the CGA splits the gather axis, a `block` basis moves along it, and 3.9
//! fails the same assertion.
//!
//! Measured: the gather kernel on sm80 to sm120 and 3.3.1 to 3.9.0
//! (`tests/data/compile/scan-gather-*`; the families report's 706
//! compiles agree with the same model).

use super::Failure;
use crate::Release;
use crate::attr::{Attr, Blocked, Cga};
use crate::finder::verdict::Trace;
use crate::release::{Since, Span};
use crate::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;

const MESSAGE: &str = "Assertion `GatherLoweringHelper(op).isWarpLocal()' failed.";

const fn warp_local(releases: Span, line: u32) -> Location {
    Location {
        releases,
        ending: Ending::Assertion,
        function: "setOptimizedGatherLayout",
        file: "lib/Dialect/TritonGPU/Transforms/OptimizeThreadLocality.cpp",
        line: Some(line),
        message: MESSAGE,
    }
}

static WARP_LOCAL_3_3: Location = warp_local(Span::until(Release::V3_3, Release::V3_5), 227);
static WARP_LOCAL_3_5: Location = warp_local(Span::only(Release::V3_5), 221);
static WARP_LOCAL_3_6: Location = warp_local(Span::until(Release::V3_6, Release::V3_9), 220);
static WARP_LOCAL_3_9: Location = warp_local(Span::since(Release::V3_9), 223);

const WARP_LOCAL: Since<&'static Location> = Since(&[
    (Release::V3_3, &WARP_LOCAL_3_3),
    (Release::V3_5, &WARP_LOCAL_3_5),
    (Release::V3_6, &WARP_LOCAL_3_6),
    (Release::V3_9, &WARP_LOCAL_3_9),
]);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "gather_layout",
    kind: SiteKind::Bug,
    title: "a tl.gather whose index tensor is longer along the axis than the warp-local layout covers, with warps left over (triton #11600)",
    locations: &[
        &WARP_LOCAL_3_3,
        &WARP_LOCAL_3_5,
        &WARP_LOCAL_3_6,
        &WARP_LOCAL_3_9,
    ],
    changes: &[Change {
        release: Release::V3_9,
        pr: Some("#10838"),
        what: "the gather layout's registers along the axis cover the longer of the source and the index tensor",
    }],
    workaround: "fewer warps (the source's other dims must hold them all), an index tensor no longer than the source along the gather axis, and (with num_ctas > 1) at least as many rows as CTAs",
};

/// The layout `setOptimizedGatherLayout` builds for a rank-2 gather along
/// `axis` of a source `[rows, src]` (along the axis) and an index tensor
/// of `idx` along the axis, with the source's CGA.
pub(crate) fn gather_blocked(
    src_shape: [u64; 2],
    idx_along_axis: u64,
    axis: usize,
    warps: [u64; 2],
    cga: Option<Cga>,
    release: Release,
) -> Blocked {
    let other = 1 - axis;
    // Warps of `lanes` threads (64 on AMD's CDNA).
    let [num_warps, lanes] = warps;
    let lanes = lanes.max(1);
    let mut tpw = [1u64; 2];
    let mut wpc = [1u64; 2];
    tpw[axis] = src_shape[axis].min(lanes);
    let mut threads_left = lanes / tpw[axis];
    tpw[other] = src_shape[other].min(threads_left).max(1);
    threads_left /= tpw[other];
    let fit = (src_shape[other] / tpw[other]).max(1);
    wpc[other] = fit.min(num_warps).max(1);
    let warps_left = num_warps / wpc[other];
    let mut spt = [1u64; 2];
    // PR #10838 (3.9): the registers cover the index tensor too.
    let along = if release >= Release::V3_9 {
        src_shape[axis].max(idx_along_axis)
    } else {
        src_shape[axis]
    };
    spt[axis] = (along / tpw[axis]).max(1);
    tpw[axis] *= threads_left;
    wpc[axis] *= warps_left;
    Blocked {
        size_per_thread: spt.to_vec(),
        threads_per_warp: tpw.to_vec(),
        warps_per_cta: wpc.to_vec(),
        order: vec![axis, other],
        cga,
    }
}

/// The bases of `in_dim` on the dims other than `axis`.
fn off_axis(l: &LinearLayout, in_dims: &[Dim], axis: usize) -> Vec<Vec<u64>> {
    l.bases()
        .into_iter()
        .filter(|(d, _)| in_dims.contains(d))
        .flat_map(|(_, bases)| bases)
        .map(|b| {
            b.into_iter()
                .enumerate()
                .filter(|(d, _)| *d != axis)
                .map(|(_, c)| c)
                .collect()
        })
        .collect()
}

/// `GatherLoweringHelper::isWarpLocal` on the two layouts: why it is not,
/// or `None`.
pub(crate) fn not_warp_local(
    src: &LinearLayout,
    idx: &LinearLayout,
    axis: usize,
) -> Option<String> {
    for (name, l) in [("source", src), ("index", idx)] {
        let moves = l
            .bases()
            .into_iter()
            .filter(|(d, _)| *d == Dim::BLOCK || *d == Dim::WARP)
            .flat_map(|(d, bases)| bases.into_iter().map(move |b| (d, b)))
            .find(|(_, b)| b.get(axis).is_some_and(|&c| c != 0));
        if let Some((d, b)) = moves {
            return Some(format!(
                "the {name} tensor's {d} basis {b:?} moves along the gather axis"
            ));
        }
    }
    if off_axis(src, &[Dim::BLOCK, Dim::WARP], axis)
        != off_axis(idx, &[Dim::BLOCK, Dim::WARP], axis)
    {
        return Some("the (block, warp) bases differ on the other dims".to_string());
    }
    if off_axis(src, &[Dim::LANE], axis) != off_axis(idx, &[Dim::LANE], axis) {
        return Some("the lane bases differ on the other dims".to_string());
    }
    None
}

/// A gather of `[rows, src]` along dim 1 by an index tensor `[rows, idx]`,
/// in a program of `num_warps` warps of `lanes` threads.
pub(crate) struct GatherOp {
    pub rows: u64,
    pub src: u64,
    pub idx: u64,
    pub num_warps: u64,
    pub lanes: u64,
}

/// The thread-locality pass on a gather.
pub(crate) fn gather(
    op: &GatherOp,
    cga: Option<Cga>,
    release: Release,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let GatherOp {
        rows,
        src,
        idx,
        num_warps,
        lanes,
    } = *op;
    let Some(location) = WARP_LOCAL
        .at(release)
        .filter(|l| l.releases.contains(release))
    else {
        return Ok(());
    };
    let blocked = gather_blocked([rows, src], idx, 1, [num_warps, lanes], cga, release);
    let attr = Attr::Blocked(blocked);
    let what = || "the gather layout".to_string();
    let Some(src_l) = super::converted(&attr, &[rows, src], release, None, trace, what)? else {
        return Ok(());
    };
    let Some(idx_l) = super::converted(&attr, &[rows, idx], release, None, trace, what)? else {
        return Ok(());
    };
    trace.layout(
        || format!("gather layout on the index tensor [{rows}x{idx}]"),
        &idx_l,
    );
    match not_warp_local(&src_l, &idx_l, 1) {
        Some(why) => Err(Failure::at(&SITE, location, release, why)),
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
        &[super::EventKind::Gather]
    }

    fn vendors(&self) -> &'static [crate::finder::config::Vendor] {
        super::EVERY_VENDOR
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::Gather {
                rows,
                src,
                idx,
                num_warps,
                lanes,
                cga,
            } => {
                let op = GatherOp {
                    rows: *rows,
                    src: *src,
                    idx: *idx,
                    num_warps: *num_warps,
                    lanes: *lanes,
                };
                gather(&op, cga.clone(), release, trace)
            }
            _ => Ok(()),
        }
    }
}
