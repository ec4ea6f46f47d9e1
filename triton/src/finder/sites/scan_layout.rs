//! Lowering `tt.scan` (`tl.cumsum`) on a tensor split among CTAs.
//!
//! Up to 3.8 `emitFastScan` (`lib/Conversion/TritonGPUToLLVM/
//! ScanOpToLLVM.cpp`) scans each thread's contiguous elements, then each
//! warp, and then, when more than one warp holds distinct data along the
//! axis (`AddPartialReduce`) or a thread holds more than one value
//! (`AddPartialReduceOneWarp`), asserts that the values it holds are
//! `numScanBlocks · numParallelBlocks · parallelElementsPerThread ·
//! scanElementsPerThreads`. `ScanLoweringHelper` counts those blocks on the
//! tensor's whole shape (`ceil(shape[d] / (contigPerThread · threadsPerWarp ·
//! warpsPerCTA)[d])`), while a thread holds values of its CTA's part only:
//! the product is too large as soon as a dim split among CTAs is longer
//! than one CTA tile. The counts are read off the operand's linear layout
//! without its broadcast registers, as the helper does (`LinearEncodingAttr`
//! per-dim counts of the register, lane and warp bases).
//!
//! 3.9's `ScanLoweringHelper::isSupported` refuses a blocked operand whose
//! CGA splits the scanned dim (`getCTASplitNum(encoding)[axis] == 1`, read
//! off the 3.9.0 binary in the CTA report), which is then a diagnosed error,
//! and lowers the others.
//!
//! Measured: `scan` kernels with 2 and 4 CTAs on every wheel from 3.4.0
//! (`tests/data/compile/scan-gather-*`), at each wheel's line. 3.1.0, 3.2.0
//! and 3.3.1 fail too (3.1 at lines 176 and 280, 3.2 at 150 and 254, 3.3 as
//! 3.4), but count a thread's values their own way before 3.3, and the
//! finder models several CTAs from 3.4 only.

use super::Failure;
use crate::Release;
use crate::release::{Since, Span};
use crate::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;

const FILE: &str = "lib/Conversion/TritonGPUToLLVM/ScanOpToLLVM.cpp";
const COUNT: &str = "Assertion `numScanBlocks * numParallelBlocks * parallelElementsPerThread * scanElementsPerThreads == srcValues.size()' failed.";

const fn count(releases: Span, function: &'static str, line: u32) -> Location {
    Location {
        releases,
        ending: Ending::Assertion,
        function,
        file: FILE,
        line: Some(line),
        message: COUNT,
    }
}

const WARPS: &str = "AddPartialReduce";
const ONE_WARP: &str = "AddPartialReduceOneWarp";

static WARPS_3_4: Location = count(Span::until(Release::V3_4, Release::V3_7), WARPS, 158);
static ONE_WARP_3_4: Location = count(Span::until(Release::V3_4, Release::V3_7), ONE_WARP, 265);
static WARPS_3_7: Location = count(Span::until(Release::V3_7, Release::V3_9), WARPS, 159);
static ONE_WARP_3_7: Location = count(Span::only(Release::V3_7), ONE_WARP, 266);
static ONE_WARP_3_8: Location = count(Span::only(Release::V3_8), ONE_WARP, 265);
static UNSUPPORTED: Location = Location {
    releases: Span::since(Release::V3_9),
    ending: Ending::Diagnostic,
    function: "ScanOpConversion::emitFastScan (ScanLoweringHelper::isSupported)",
    file: FILE,
    line: None,
    message: "error: TODO: unsupported scan layout",
};

/// Where each release asserts: (several warps along the axis, one warp).
const COUNT_AT: Since<(&Location, &Location)> = Since(&[
    (Release::V3_4, (&WARPS_3_4, &ONE_WARP_3_4)),
    (Release::V3_7, (&WARPS_3_7, &ONE_WARP_3_7)),
    (Release::V3_8, (&WARPS_3_7, &ONE_WARP_3_8)),
]);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "scan_layout",
    kind: SiteKind::Bug,
    title: "a scan (tl.cumsum) of a tensor split among CTAs (num_ctas > 1)",
    locations: &[
        &WARPS_3_4,
        &ONE_WARP_3_4,
        &WARPS_3_7,
        &ONE_WARP_3_7,
        &ONE_WARP_3_8,
        &UNSUPPORTED,
    ],
    changes: &[Change {
        release: Release::V3_9,
        pr: None,
        what: "a scan whose scanned dim is not split among CTAs is lowered; one whose scanned dim is split is refused with a diagnostic",
    }],
    workaround: "num_ctas=1 for kernels that scan (triton #11829)",
};

/// Per-dim counts of `in_dim`'s nonzero bases (`basesPerDim` with
/// broadcasts skipped): each basis counts for the first dim it moves.
fn per_dim(l: &LinearLayout, in_dim: Dim, rank: usize) -> Vec<u64> {
    let mut out = vec![1u64; rank];
    for (dim, bases) in l.bases() {
        if dim != in_dim {
            continue;
        }
        for b in bases {
            if let Some(d) = b.iter().position(|&c| c != 0) {
                if d < rank {
                    out[d] *= 2;
                }
            }
        }
    }
    out
}

/// The helper's counts for an operand whose linear layout is `l` (out-dims
/// `dim0 …` in order) on `shape`: (values a thread holds, warps with
/// distinct data along `axis`, the product the lowering expects).
pub(crate) fn helper_counts(l: &LinearLayout, shape: &[u64], axis: usize) -> (u64, u64, u64) {
    let rank = shape.len();
    let registers: Vec<Vec<u64>> = l
        .bases()
        .into_iter()
        .filter(|(d, _)| *d == Dim::REGISTER)
        .flat_map(|(_, b)| b)
        .filter(|b| b.iter().any(|&c| c != 0))
        .collect();
    let values = 1u64 << registers.len();
    // `getOrder`: dims as the registers first move them, then the rest
    // from the last dim down.
    let mut order: Vec<usize> = Vec::new();
    for b in &registers {
        if let Some(d) = b.iter().position(|&c| c != 0) {
            if !order.contains(&d) {
                order.push(d);
            }
        }
    }
    for d in (0..rank).rev() {
        if !order.contains(&d) {
            order.push(d);
        }
    }
    // `getContigPerThread`: the leading run of register bases 1, 2, 4, …
    // along each dim, dims in that order.
    let mut contig = vec![1u64; rank];
    let mut next = registers.iter().peekable();
    for &d in &order {
        loop {
            let mut want = vec![0u64; rank];
            want[d] = contig[d];
            if next.peek().is_some_and(|b| **b == want) {
                contig[d] *= 2;
                next.next();
            } else {
                break;
            }
        }
    }
    let lanes = per_dim(l, Dim::LANE, rank);
    let warps = per_dim(l, Dim::WARP, rank);
    let tile = |d: usize| contig[d] * lanes[d] * warps[d];
    let blocks = |d: usize| shape[d].div_ceil(tile(d).max(1));
    let scan_blocks = blocks(axis);
    let parallel_blocks: u64 = (0..rank).filter(|&d| d != axis).map(blocks).product();
    let parallel_elems: u64 = (0..rank)
        .filter(|&d| d != axis)
        .map(|d| contig[d])
        .product();
    let expected = scan_blocks * parallel_blocks * parallel_elems * contig[axis];
    (values, warps[axis], expected)
}

/// Lowers a scan along `axis` of a tensor of `shape` whose layout is `l`
/// and whose CGA splits each dim `split[d]` ways.
pub(crate) fn scan(
    l: &LinearLayout,
    shape: &[u64],
    split: &[u64],
    axis: usize,
    release: Release,
) -> Result<(), Failure> {
    if release >= Release::V3_9 {
        return match split.get(axis) {
            Some(&s) if s > 1 => Err(Failure::at(
                &SITE,
                &UNSUPPORTED,
                release,
                format!("the CGA splits the scanned dim {axis} {s} ways"),
            )),
            _ => Ok(()),
        };
    }
    let (values, axis_warps, expected) = helper_counts(l, shape, axis);
    let Some(&(several, one)) = COUNT_AT.at(release) else {
        return Ok(());
    };
    let location = if axis_warps > 1 {
        several
    } else if values > 1 {
        one
    } else {
        return Ok(());
    };
    if expected == values {
        return Ok(());
    }
    Err(Failure::at(
        &SITE,
        location,
        release,
        format!(
            "blocks counted on the whole {shape:?} give {expected} values, a thread of a CTA holds {values} (CTA split {split:?})"
        ),
    ))
}

/// A `tt.scan` of a TTGIR module, read for the sites that model it.
pub(crate) struct ScanRead {
    /// The operand's linear layout.
    pub layout: LinearLayout,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Distinct tiles along each dim among the CTAs.
    pub split: Vec<u64>,
    /// The scanned dim.
    pub axis: usize,
}

/// The scan `op` (its first line holds `axis = N`; every operand of a scan
/// shares one layout, so the first one's, written where the combine region
/// closes, is the one both sites read). The operand's conversion failing
/// is the release's failure; an operand with no linear layout is no scan
/// to check.
pub(crate) fn read_op(
    op: &crate::finder::op::Op<'_>,
    release: Release,
    trace: &mut crate::finder::verdict::Trace,
) -> Result<Option<ScanRead>, Failure> {
    let (Some(axis), Some((shape, _, enc))) = (op.int_attr("axis"), op.tensor.as_ref()) else {
        return Ok(None);
    };
    if axis >= shape.len() {
        return Ok(None);
    }
    let Some(attr) = op.attr(enc) else {
        return Ok(None);
    };
    let what = || "the scan operand".to_string();
    let Some(layout) = super::converted(&attr, shape, release, None, trace, what)? else {
        return Ok(None);
    };
    let split = cta_split(&attr, &layout, shape.len());
    Ok(Some(ScanRead {
        layout,
        shape: shape.clone(),
        split,
        axis,
    }))
}

/// Distinct tiles along each dim among CTAs (`getCTASplitNum`): a blocked
/// operand's CGA split, whatever the shape; for any other layout, as a
/// linear encoding counts it, its nonzero `block` bases, each for the first
/// dim it moves.
fn cta_split(attr: &crate::attr::Attr, l: &LinearLayout, rank: usize) -> Vec<u64> {
    if let crate::attr::Attr::Blocked(b) = attr {
        if let Ok(split) = crate::cta_split_num(&b.cga, rank) {
            return split;
        }
    }
    let mut split = vec![1u64; rank];
    for (dim, bases) in l.bases() {
        if dim != Dim::BLOCK {
            continue;
        }
        for b in bases {
            if let Some(s) = b
                .iter()
                .position(|&c| c != 0)
                .and_then(|d| split.get_mut(d))
            {
                *s = s.saturating_mul(2);
            }
        }
    }
    split
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
            super::Event::Scan(s) => scan(s.layout, s.shape, s.split, s.axis, release),
            super::Event::Op(op) if op.name == "scan" => match read_op(op, release, trace)? {
                Some(s) => scan(&s.layout, &s.shape, &s.split, s.axis, release),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}
