//! `async_copy_global_to_local` (`cp.async`): how wide each copy is, per
//! release (`AsyncCopyGlobalToLocalOpConversion` in
//! `third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp`).
//!
//! Every release starts from the pointers' contiguity, `getContiguity(src)`:
//! the elements a thread holds consecutively along the layout's fastest dim,
//! capped by the pointers' alignment (see [`AsyncCopy::max_vec`]). Then:
//!
//! - 3.1 uses no linear layout. Computing the swizzled addresses
//!   (`getSwizzledSharedPtrs`, `Utility.h:1286`) asserts that a swizzle
//!   pattern (`vec × maxPhase` elements) fits in the buffer's fastest dim.
//!   The width is the smaller of the contiguity and the shared layout's `vec`
//!   (when `vec > 1`), and each copy must be 4, 8 or 16 bytes: narrower
//!   copies abort (`LoadStoreOpToLLVM.cpp:852`).
//! - 3.2 to 3.4 compose the register layout with the inverse of the shared
//!   layout (`emitTransferBetweenRegistersAndShared`) and take the number of
//!   consecutive registers landing on consecutive offsets
//!   (`getNumConsecutiveInOut`); 3.2 first splits the offset into one in-dim
//!   per tensor dim, minor first, so the run stops at the end of a row. A copy
//!   narrower than 4 bytes is a diagnosed error: "cp.async does not support
//!   transfers smaller than 4 bytes".
//! - Later releases check the pointers' width alone first (the same
//!   diagnosed error), then split the transfer with `largestVectorisation`
//!   capped at that width; a copy of that split narrower than 4 bytes fails
//!   an assertion in the emitter of each copy.

use super::Failure;
use crate::Release;
use crate::attr::{Cga, SwizzledShared};
use crate::finder::verdict::Trace;
use crate::release::{Since, Span};
use crate::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::utils::{action_remove_broadcasted_regs, largest_vectorisation};

const FUNCTION: &str = "AsyncCopyGlobalToLocalOpConversion::matchAndRewrite";
const FILE: &str = "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp";

/// 3.1's width assertion.
static WIDTH_3_1: Location = Location {
    releases: Span::only(Release::V3_1),
    ending: Ending::Assertion,
    function: FUNCTION,
    file: FILE,
    line: Some(852),
    message: "Assertion `byteWidth == 16 || byteWidth == 8 || byteWidth == 4' failed.",
};
/// The diagnosed width check, from 3.2.
static TOO_SMALL: Location = Location {
    releases: Span::since(Release::V3_2),
    ending: Ending::Diagnostic,
    function: FUNCTION,
    file: FILE,
    line: None,
    message: "cp.async does not support transfers smaller than 4 bytes; calculated this as ",
};
/// The register → shared conversion the width is read from, where our
/// algebra refuses a step Triton takes (no Triton text is claimed).
static CONVERSION: Location = Location {
    releases: Span::since(Release::V3_2),
    ending: Ending::Assertion,
    function: "emitTransferBetweenRegistersAndShared (invertAndCompose of the register and shared layouts)",
    file: "lib/Tools/LinearLayout.cpp",
    line: None,
    message: "",
};
const fn per_copy(release: Release, line: u32) -> Location {
    Location {
        releases: Span::only(release),
        ending: Ending::Assertion,
        function: FUNCTION,
        file: FILE,
        line: Some(line),
        message: "Assertion `nBytes == 16 || nBytes == 8 || nBytes == 4' failed.",
    }
}
/// The per-copy assertion from 3.5, at each wheel's line.
static PER_COPY_3_5: Location = per_copy(Release::V3_5, 1206);
static PER_COPY_3_6: Location = per_copy(Release::V3_6, 1202);
static PER_COPY_3_7: Location = per_copy(Release::V3_7, 1203);
static PER_COPY_3_8: Location = per_copy(Release::V3_8, 1060);
static PER_COPY_3_9: Location = Location {
    releases: Span::since(Release::V3_9),
    ..per_copy(Release::V3_9, 1077)
};
const PER_COPY: Since<&'static Location> = Since(&[
    (Release::V3_5, &PER_COPY_3_5),
    (Release::V3_6, &PER_COPY_3_6),
    (Release::V3_7, &PER_COPY_3_7),
    (Release::V3_8, &PER_COPY_3_8),
    (Release::V3_9, &PER_COPY_3_9),
]);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "cp_async",
    kind: SiteKind::Bug,
    title: "an async copy (cp.async) narrower than 4 bytes per thread",
    locations: &[
        &WIDTH_3_1,
        &TOO_SMALL,
        &CONVERSION,
        &PER_COPY_3_5,
        &PER_COPY_3_6,
        &PER_COPY_3_7,
        &PER_COPY_3_8,
        &PER_COPY_3_9,
    ],
    changes: &[
        Change {
            release: Release::V3_2,
            pr: None,
            what: "the width is read off the register to shared layout; a narrow copy is a diagnosed error",
        },
        Change {
            release: Release::V3_3,
            pr: Some("#5905"),
            what: "a pipelined rank-3 load's shared buffer keeps the load's order, so the copy vectorises again",
        },
        Change {
            release: Release::V3_5,
            pr: None,
            what: "copies are split by largestVectorisation after a pointer-width check",
        },
    ],
    workaround: "num_stages=1 (no pipelined copy), or at least 4 contiguous bytes per thread along the buffer's fastest dim",
};

/// One `async_copy_global_to_local`.
#[derive(Clone, Copy, Debug)]
pub struct AsyncCopy<'a> {
    /// The pointers' layout: (register, lane, warp, block) → tensor dims.
    pub regs: &'a LinearLayout,
    /// The buffer's layout: (offset, block) → tensor dims. 3.1 does not
    /// use it; later releases cannot be checked without it.
    pub shared: Option<&'a LinearLayout>,
    /// The tensor's shape.
    pub shape: &'a [u64],
    /// The shared layout's `order` (fastest dim first).
    pub shared_order: &'a [usize],
    /// The shared layout's `vec` and `maxPhase` (read by 3.1 only).
    pub shared_vec: u64,
    /// See `shared_vec`.
    pub max_phase: u64,
    /// The shared layout's `CTASplitNum` per dim (empty: one CTA). 3.2
    /// sizes the offset of each dim per CTA.
    pub cta_split_num: &'a [u64],
    /// Element bit width.
    pub bits: u64,
    /// `getContiguity(src)`: elements per copy the pointers allow.
    pub max_vec: u64,
}

impl<'a> AsyncCopy<'a> {
    /// The copy of a load whose pointers run contiguously along `order0`
    /// (see [`coalesced_contiguity`]) into a buffer with attribute `swizzled`:
    /// how both the TTGIR checker and the pipeliner model set one up.
    pub fn coalesced(
        regs: &'a LinearLayout,
        shared: Option<&'a LinearLayout>,
        shape: &'a [u64],
        order0: usize,
        swizzled: &'a SwizzledShared,
        bits: u64,
    ) -> Self {
        AsyncCopy {
            regs,
            shared,
            shape,
            shared_order: &swizzled.order,
            shared_vec: swizzled.vec,
            max_phase: swizzled.max_phase,
            cta_split_num: match &swizzled.cga {
                Some(Cga::Split { cta_split_num, .. }) => cta_split_num,
                _ => &[],
            },
            bits,
            max_vec: coalesced_contiguity(regs, shape, order0, bits),
        }
    }
}

/// The cp.async width of a TTGIR `async_copy_global_to_local`. A dump
/// carries no axis analysis, so the pointers are taken to be contiguous
/// along the source layout's fastest dim from a 16-byte-aligned base (see
/// [`coalesced_contiguity`]). Copies between layouts with no linear layout
/// here are not checked.
fn op_copy(
    op: &crate::finder::op::Op<'_>,
    release: Release,
    trace: &mut Trace,
) -> Result<(), Failure> {
    use crate::attr::Attr;
    use crate::{Conversion, to_linear_layout};
    let (Some((shape, _, reg_enc)), Some((_, ty, buf_enc))) =
        (op.tensor.as_ref(), op.buffer.as_ref())
    else {
        return Ok(());
    };
    let (Some(regs), Some(shared)) = (op.attr(reg_enc), op.attr(buf_enc)) else {
        return Ok(());
    };
    let (Attr::Blocked(blocked), Attr::SwizzledShared(swizzled)) = (&regs, &shared) else {
        return Ok(());
    };
    let bits = crate::finder::op::bits_of(ty);
    let layout = |attr: &Attr, elem_bits| {
        to_linear_layout(attr, shape, release, elem_bits)
            .ok()
            .and_then(Conversion::layout)
    };
    let Some(reg_layout) = layout(&regs, None) else {
        return Ok(());
    };
    let shared_layout = layout(&shared, Some(bits));
    let order0 = blocked.order.first().copied().unwrap_or(0);
    let c = AsyncCopy::coalesced(
        &reg_layout,
        shared_layout.as_ref(),
        shape,
        order0,
        swizzled,
        bits,
    );
    copy(&c, release, trace).map(|_| ())
}

/// Runs the release's width computation; returns the elements per copy.
pub(crate) fn copy(c: &AsyncCopy<'_>, release: Release, trace: &mut Trace) -> Result<u64, Failure> {
    let vec = match c.shared {
        _ if !release.lowers_with_linear_layouts() => width_3_1(c, release, trace)?,
        None => {
            if release.vectorises_async_copies() {
                pointer_width(c, release)?;
            }
            trace
                .note(|| "cp.async: the buffer has no linear layout here; not checked".to_string());
            return Ok(c.max_vec);
        }
        Some(shared) if release.vectorises_async_copies() => {
            width_from_largest_vectorisation(c, shared, release, trace)?
        }
        Some(shared) => width_from_consecutive_offsets(c, shared, release, trace)?,
    };
    at_least_4_bytes(vec, c.bits, release)?;
    Ok(vec)
}

/// The diagnosed width check: `vec` elements of `bits` bits must make at
/// least 4 bytes.
fn at_least_4_bytes(vec: u64, bits: u64, release: Release) -> Result<(), Failure> {
    let bytes = vec * bits / 8;
    if bytes < 4 {
        return Err(Failure::at(
            &SITE,
            &TOO_SMALL,
            release,
            format!("{vec} element(s) of {bits} bits per copy"),
        )
        .with_message(format!(
            "cp.async does not support transfers smaller than 4 bytes; calculated this as {bytes} bytes"
        )));
    }
    Ok(())
}

/// Our algebra refusing the register → shared conversion on the way.
fn conversion_refused(release: Release, e: impl std::fmt::Display) -> Failure {
    Failure::at(
        &SITE,
        &CONVERSION,
        release,
        format!("register → shared conversion: {e}"),
    )
}

/// 3.1: the contiguity, capped by the shared `vec` when it is above 1,
/// after the swizzled addresses (computed first) passed their bound; each
/// copy must be 4, 8 or 16 bytes (it is min(128 bits, vec elements) wide).
fn width_3_1(c: &AsyncCopy<'_>, release: Release, trace: &mut Trace) -> Result<u64, Failure> {
    super::shared_tile::swizzle_fits_3_1(
        c.shared_vec,
        c.max_phase,
        c.shared_order,
        c.shape,
        release,
    )?;
    let vec = if c.shared_vec > 1 {
        c.shared_vec.min(c.max_vec)
    } else {
        c.max_vec
    };
    trace.note(|| {
        format!(
            "cp.async: {vec} element(s) per copy (pointer contiguity {}, shared vec {})",
            c.max_vec, c.shared_vec
        )
    });
    if vec * c.bits < 32 {
        return Err(Failure::at(
            &SITE,
            &WIDTH_3_1,
            release,
            format!(
                "a copy of {vec} × {}-bit elements is {} byte(s)",
                c.bits,
                vec * c.bits / 8
            ),
        ));
    }
    Ok(vec)
}

/// 3.2–3.4: consecutive registers on consecutive offsets
/// (`getNumConsecutiveInOut` of register → offset), capped by the
/// contiguity.
fn width_from_consecutive_offsets(
    c: &AsyncCopy<'_>,
    shared: &LinearLayout,
    release: Release,
    trace: &mut Trace,
) -> Result<u64, Failure> {
    let cvt = register_to_offset(c, shared, release).map_err(|e| conversion_refused(release, e))?;
    let vec = cvt.num_consecutive_in_out().min(c.max_vec);
    trace.layout(
        || format!("register → shared offset for cp.async: {vec} element(s) per copy"),
        &cvt,
    );
    Ok(vec)
}

/// Later releases (modelled on 3.9.0, checked by its op-level grid).
///
/// The diagnosed width check looks at the pointers alone: `max_vec`
/// elements, at most 16 bytes, must make at least 4 bytes. Then the
/// transfer is lowered through `lowerLdSt`: the pointers' layout without
/// broadcast registers, composed with the inverse of the buffer's, is split
/// into vectors by `largestVectorisation` capped at `max_vec` (so with
/// registers in their own order), and each vector is one `cp.async` that
/// asserts it moves 4, 8 or 16 bytes.
fn width_from_largest_vectorisation(
    c: &AsyncCopy<'_>,
    shared: &LinearLayout,
    release: Release,
    trace: &mut Trace,
) -> Result<u64, Failure> {
    let allowed = pointer_width(c, release)?;
    let cvt = action_remove_broadcasted_regs(c.regs)
        .and_then(|a| a.apply(c.regs))
        .and_then(|regs| regs.invert_and_compose(shared))
        .map_err(|e| conversion_refused(release, e))?;
    let (vec, _) = largest_vectorisation(&cvt, c.bits as u32, Some(allowed as u32))
        .map_err(|e| conversion_refused(release, e))?;
    let vec = vec as u64;
    trace.layout(
        || format!("register → offset for cp.async: {vec} element(s) per copy"),
        &cvt,
    );
    let copy_bytes = vec * c.bits / 8;
    if ![4, 8, 16].contains(&copy_bytes) {
        let location = PER_COPY.at(release).copied().unwrap_or(&PER_COPY_3_9);
        return Err(Failure::at(
            &SITE,
            location,
            release,
            format!(
                "a copy of {vec} × {}-bit elements is {copy_bytes} byte(s)",
                c.bits
            ),
        ));
    }
    Ok(vec)
}

/// The later releases' first check: the elements the pointers allow per
/// copy, at most 16 bytes, must make at least 4 bytes.
fn pointer_width(c: &AsyncCopy<'_>, release: Release) -> Result<u64, Failure> {
    let allowed = c.max_vec.min(128 / c.bits.max(1));
    at_least_4_bytes(allowed, c.bits, release)?;
    Ok(allowed)
}

/// (register, lane, warp, block) → the shared offset, as 3.2–3.4 build it.
fn register_to_offset(
    c: &AsyncCopy<'_>,
    shared: &LinearLayout,
    release: Release,
) -> linear_layout::Result<LinearLayout> {
    if !release.splits_shared_offsets_per_dim() {
        return c.regs.invert_and_compose(shared);
    }
    // 3.2 splits the offset into `offset<d>` per tensor dim, fastest first,
    // so that getNumConsecutiveInOut sees only the fastest dim's run.
    let mut ins: Vec<(Dim, u64)> = c
        .shared_order
        .iter()
        .map(|&d| {
            let size = c.shape.get(d).copied().unwrap_or(1);
            let split = c.cta_split_num.get(d).copied().unwrap_or(1).max(1);
            (Dim::new(&format!("offset{d}")), (size / split).max(1))
        })
        .collect();
    ins.push((Dim::BLOCK, shared.in_dim_size(Dim::BLOCK)?));
    let split = shared.reshape_ins(&ins)?;
    c.regs.invert_and_compose(&split)
}

/// `getContiguity(src)` when the pointers run contiguously along the
/// layout's fastest dim `order0` from a 16-byte-aligned base, which is what
/// the coalescing pass arranges (it orders a load's layout by the pointers'
/// contiguity): the consecutive elements a thread holds along `order0`,
/// capped by that dim's size and by 16 bytes. A mask is taken to be
/// constant over those elements.
pub(crate) fn coalesced_contiguity(
    regs: &LinearLayout,
    shape: &[u64],
    order0: usize,
    bits: u64,
) -> u64 {
    let dim_size = shape.get(order0).copied().unwrap_or(1);
    let aligned = (128 / bits.max(8)).max(1);
    per_thread_run(regs, order0).min(dim_size).min(aligned)
}

/// `2^k` for the longest run of register bases `1, 2, 4, …` along tensor
/// dim `dim` alone.
fn per_thread_run(regs: &LinearLayout, dim: usize) -> u64 {
    let along = Dim::standard(dim);
    let outs: Vec<Dim> = regs.out_dim_names().collect();
    let count = regs.in_dim_size_log2(Dim::REGISTER).unwrap_or(0) as usize;
    let steps = (0..count)
        .take_while(|&i| {
            regs.basis(Dim::REGISTER, i).is_ok_and(|basis| {
                basis
                    .iter()
                    .zip(&outs)
                    .all(|(&v, &o)| v == if o == along { 1 << i } else { 0 })
            })
        })
        .count();
    1 << steps
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::AsyncCopy, super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::AsyncCopy(c) => copy(c, release, trace).map(|_| ()),
            super::Event::Op(op) if op.name == "async_copy_global_to_local" => {
                op_copy(op, release, trace)
            }
            _ => Ok(()),
        }
    }
}
