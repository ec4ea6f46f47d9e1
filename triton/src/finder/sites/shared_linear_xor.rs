//! A register ↔ shared transfer through a `#ttg.shared_linear` buffer whose
//! offset bases XOR several coordinate bits, addressed wrongly by Triton
//! 3.6–3.8 (a miscompile: the kernel compiles and reads or writes the wrong
//! shared-memory words; `notes/findings/gpu-shared-linear-xor.md`).
//!
//! `local_alloc` with a value, `local_store` and `local_load` lower through
//! the generic `lowerLdSt`: the register layout composed with the inverse
//! of the buffer's, `cvt` = (register, lane, warp) → offset, is split into
//! vectors, and each vector's address is the lane/warp part, XORed with the
//! offset of the register bases that `actionAdditiveStrides` calls
//! non-additive, *plus* (an `add`, cheaper to fold into the instruction's
//! immediate) the offset of the additive ones. A register basis is called
//! additive when its offset shares no bit with any lane or warp basis. That
//! is not enough: the sum equals the XOR only if the additive offsets share
//! no bit with the non-additive register offsets either. When a
//! non-additive basis and an additive one set a common offset bit, the add
//! carries and the access lands elsewhere. The model looks only at buffers
//! with a basis like `[1, 3]` (row bit 0 XOR column bits 0 and 1): with
//! single-bit bases and a distributed layout of single-bit bases, every
//! basis of `cvt` is one offset bit and none is shared, and the campaigns'
//! 345 such buffers all ran right on the H100.
//!
//! triton-lang/triton#10122 (first in 3.9) rewrote `actionAdditiveStrides`'
//! callers ("used to count register bases as additive when they were
//! not"). The H100 and `ptxemu` agree: 3.6.0, 3.7.1 and 3.8.0 wrong (or an
//! illegal access), 3.9.0 right; 3.4 and 3.5 have no `shared_linear`.
//!
//! The vector split (`largestVectorisation`) does not change the answer:
//! its tile's offset bits are disjoint from every other basis by
//! construction, and reordering register bases does not change which share
//! a bit.

use super::Failure;
use crate::attr::Attr;
use crate::release::Span;
use crate::to_linear_layout;
use crate::{Change, Conversion, Ending, Location, Release, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;

/// Where the wrong addresses are emitted, 3.6–3.8.
static ADDITIVE_STRIDES: Location = Location {
    releases: Span::until(Release::V3_6, Release::V3_9),
    ending: Ending::Miscompile,
    function: "lowerLdSt, actionAdditiveStrides",
    file: "lib/Conversion/TritonGPUToLLVM/Utility.cpp",
    line: None,
    message: "",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "shared_linear_xor",
    kind: SiteKind::Bug,
    title: "a register to shared transfer through a shared_linear buffer with XOR offset bases, addressed wrongly (adds where it must XOR)",
    locations: &[&ADDITIVE_STRIDES],
    changes: &[Change {
        release: Release::V3_9,
        pr: Some("#10122"),
        what: "local load/store lowering with generic linear encodings counts only truly additive register bases as additive",
    }],
    workaround: "a #ttg.swizzled_shared buffer, or a shared_linear whose offset bases are single coordinate bits",
};

/// Whether an offset basis XORs several coordinate bits.
fn xors_bits(basis: &[u64]) -> bool {
    basis.iter().map(|c| c.count_ones()).sum::<u32>() > 1
}

/// What transferring a tensor of `regs` (its encoding, on `shape`) to or
/// from a buffer of encoding `shared` computes wrongly in `release`, if
/// anything. Layouts our converter refuses are no finding.
pub(crate) fn transfer(
    regs: &Attr,
    shared: &Attr,
    shape: &[u64],
    bits: u64,
    release: Release,
) -> Result<(), Failure> {
    if !SITE.fails_in(release) {
        return Ok(());
    }
    let Attr::SharedLinear(buffer) = shared else {
        return Ok(());
    };
    if !buffer.offset.iter().any(|b| xors_bits(b)) {
        return Ok(());
    }
    let layout = |attr: &Attr, elem_bits| match to_linear_layout(attr, shape, release, elem_bits) {
        Ok(Conversion::Layout(l)) => Some(l),
        _ => None,
    };
    let (Some(regs), Some(shared)) = (layout(regs, None), layout(shared, Some(bits))) else {
        return Ok(());
    };
    match carry(&regs, &shared) {
        Some((additive, other)) => Err(Failure::at(
            &SITE,
            &ADDITIVE_STRIDES,
            release,
            format!(
                "register bases at offsets {additive:#x} are added, but register bases at \
                 offsets {other:#x} set some of the same bits: the sum differs from the XOR"
            ),
        )),
        None => Ok(()),
    }
}

/// The offset bits of the additive register bases and of the non-additive
/// ones, when they overlap (the carry), of `regs`' tensor in a `shared`
/// buffer; `None` when the addresses are right, or our algebra refuses the
/// composition.
fn carry(regs: &LinearLayout, shared: &LinearLayout) -> Option<(u64, u64)> {
    let cvt = regs.invert_and_compose(shared).ok()?;
    // One offset word per basis: the components, packed fastest out-dim
    // first (offset, then block, which is trivial here).
    let flat = cvt.flatten_outs().ok()?;
    let offsets = |d: Dim| -> Vec<u64> {
        let n = flat.in_dim_size_log2(d).unwrap_or(0) as usize;
        (0..n)
            .filter_map(|i| flat.basis(d, i).ok().map(|b| b[0]))
            .collect()
    };
    let addr_bits = [Dim::LANE, Dim::WARP]
        .into_iter()
        .flat_map(offsets)
        .fold(0, |acc, b| acc | b);
    let (mut additive, mut other) = (0u64, 0u64);
    for b in offsets(Dim::REGISTER) {
        if b & addr_bits == 0 {
            additive |= b;
        } else {
            other |= b;
        }
    }
    (additive & other != 0).then_some((additive, other))
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
        // A transfer through a `shared_linear` buffer (checked after every
        // failure that stops the compile: this one is a miscompile).
        let super::Event::Op(op) = event else {
            return Ok(());
        };
        if !matches!(op.name, "local_alloc" | "local_store" | "local_load") {
            return Ok(());
        }
        let (Some((shape, ty, buf_enc)), Some((tensor_shape, _, reg_enc))) =
            (op.buffer.as_ref(), op.tensor.as_ref())
        else {
            return Ok(());
        };
        if tensor_shape != shape {
            return Ok(());
        }
        match (op.attr(reg_enc), op.attr(buf_enc)) {
            (Some(regs), Some(shared)) => transfer(
                &regs,
                &shared,
                shape,
                crate::finder::op::bits_of(ty),
                release,
            ),
            _ => Ok(()),
        }
    }
}
