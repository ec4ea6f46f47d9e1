//! From a layout attribute and a tensor shape to the linear layout a Triton
//! release builds (`toLinearLayout` in `LinearLayoutConversions.cpp`).
//!
//! One file per recipe. Every distributed recipe builds a CTA tile with
//! in-dims `register, lane, warp` and fits it to the tensor with
//! `cga::combine_cta_cga_with_shape`, which adds `block`; shared recipes
//! use `offset, block`. Out-dims are `dim0 … dim{rank-1}` sized by the shape.

mod amd_mfma;
mod amd_wmma;
mod blocked;
mod cache;
pub(crate) mod cga;
mod common;
mod dot_operand;
mod legacy_elems;
mod linear;
mod nvidia_mma;
mod nvmma_shared;
mod slice;
mod swizzled_shared;
mod verify;

use super::attr::Attr;
use super::error::{ConvertError, Result};
use super::release::Release;
use super::site::Site;
pub use cache::ConversionCache;
use linear_layout::LinearLayout;
pub(crate) use nvidia_mma::SITE as NVIDIA_MMA_SITE;
pub(crate) use nvmma_shared::memdesc_verifier_error;

/// The sites where a conversion stops the process, one per recipe that has
/// any (each descriptor's id is its recipe's file name).
pub static SITES: [&Site; 7] = [
    &amd_mfma::SITE,
    &amd_wmma::SITE,
    &cga::SITE,
    &dot_operand::SITE,
    &nvidia_mma::SITE,
    &nvmma_shared::SITE,
    &verify::SITE,
];

/// What a release makes of an attribute.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Conversion {
    /// The linear layout.
    Layout(LinearLayout),
    /// The release has no linear layout for this attribute (it uses legacy
    /// code instead); the reason says which rule applies.
    NoLayout(String),
}

impl Conversion {
    /// The layout, if there is one.
    pub fn layout(self) -> Option<LinearLayout> {
        match self {
            Conversion::Layout(l) => Some(l),
            Conversion::NoLayout(_) => None,
        }
    }
}

/// The linear layout `version` builds for `attr` on a tensor of `shape`.
///
/// `elem_bits` is the element bit width, needed by 3.2's leading-offset
/// shared layouts (newer shared attributes carry it themselves).
pub fn to_linear_layout(
    attr: &Attr,
    shape: &[u64],
    version: Release,
    elem_bits: Option<u64>,
) -> Result<Conversion> {
    check_shape(attr, shape)?;
    verify::verify(attr, version)?;
    if let Some(reason) = no_layout_in(attr, version) {
        return Ok(Conversion::NoLayout(reason));
    }
    let conversion = convert(attr, shape, version, elem_bits)?;
    if let Conversion::Layout(layout) = &conversion {
        wrapped_as_linear_encoding(attr, layout, version)?;
    }
    Ok(conversion)
}

/// 3.7 wraps a distributed layout's linear layout as a linear encoding
/// (`toLinearEncoding`, and Gluon's `to_linear_layout`), which is verified
/// as `#ttg.linear` is: each basis moves in at most one dim, and the
/// nonzero bases make a bijection. Only a CGA that is no permutation
/// matrix, which 3.7 accepts and 3.8 refuses, can break that; the 3.7.1
/// wheel's Gluon then aborts (seeds 1795640477 and 9005: a `dot_op` of an
/// `amd_mfma` with `CGALayout = [[0, 1], [1, 0], [1, 2]]`, a `blocked` with
/// `[[0, 1], [0, 1]]`).
fn wrapped_as_linear_encoding(
    attr: &Attr,
    layout: &linear_layout::LinearLayout,
    version: Release,
) -> Result<()> {
    if !version.wraps_layouts_as_linear_encodings() || attr.is_shared() {
        return Ok(());
    }
    let wrapped = crate::attr::Linear {
        bases: layout.bases(),
        generic: false,
    };
    verify::verify_linear(&wrapped, version)
        .map_err(|e| verify::linear_encoding_failure(version, e))
}

/// Attributes a release has no linear layout for at all (3.1 converts only
/// blocked, NVIDIA MMA and their slices).
fn no_layout_in(attr: &Attr, version: Release) -> Option<String> {
    if version.lowers_with_linear_layouts() {
        return None;
    }
    let supported = |a: &Attr| matches!(a, Attr::Blocked(_) | Attr::NvidiaMma(_));
    let ok = match attr {
        Attr::Slice(s) => supported(&s.parent) || matches!(s.parent.as_ref(), Attr::Slice(_)),
        other => supported(other),
    };
    (!ok).then(|| format!("Triton 3.1 has no linear layout for `{}`", attr.kind()))
}

/// The recipes, without the up-front checks (used for nested parents).
pub(crate) fn convert(
    attr: &Attr,
    shape: &[u64],
    version: Release,
    elem_bits: Option<u64>,
) -> Result<Conversion> {
    match attr {
        Attr::Blocked(b) => blocked::blocked(b, shape, version).map(Conversion::Layout),
        Attr::Slice(s) => slice::slice(s, shape, version, elem_bits),
        Attr::NvidiaMma(m) => nvidia_mma::nvidia_mma(m, shape, version),
        Attr::DotOperand(d) => dot_operand::dot_operand(d, shape, version, elem_bits),
        Attr::AmdMfma(m) => amd_mfma::amd_mfma(m, shape, version),
        Attr::AmdWmma(w) => amd_wmma::amd_wmma(w, shape, version),
        Attr::Linear(l) => linear::linear(l, shape, version).map(Conversion::Layout),
        Attr::SwizzledShared(s) => swizzled_shared::swizzled_shared(s, shape, version, elem_bits),
        Attr::NvmmaShared(n) => nvmma_shared::nvmma_shared(n, shape, version),
        Attr::SharedLinear(s) => linear::shared_linear(s, shape).map(Conversion::Layout),
        Attr::Other { name, .. } => Err(common::invalid(
            &format!("#{name}"),
            "this crate has no linear-layout recipe for this attribute",
        )),
    }
}

/// Shapes must be non-empty powers of two of the attribute's rank.
fn check_shape(attr: &Attr, shape: &[u64]) -> Result<()> {
    let bad = |message: String| ConvertError::InvalidShape {
        shape: shape.to_vec(),
        message,
    };
    if shape.is_empty() {
        return Err(bad("a shape needs at least one dim".into()));
    }
    // Each dim is an out-dim of the layout, looked up by name: a rank of
    // thousands would make the conversion quadratic in it (no Triton
    // tensor has more than a handful of dims).
    if shape.len() > linear_layout::MAX_DIMS {
        return Err(bad(format!(
            "rank {}: at most {} dims",
            shape.len(),
            linear_layout::MAX_DIMS
        )));
    }
    if let Some(&d) = shape.iter().find(|&&d| !d.is_power_of_two()) {
        return Err(bad(format!(
            "every dim must be a nonzero power of two, but one is {d}"
        )));
    }
    if shape.iter().map(|d| d.trailing_zeros()).sum::<u32>() > 30 {
        return Err(bad(
            "more than 2^30 elements (Triton's sizes are int32)".into()
        ));
    }
    if let Some(rank) = attr.rank() {
        if rank != shape.len() {
            return Err(bad(format!(
                "the attribute is rank {rank}, the shape rank {}",
                shape.len()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod wrapped_tests {
    use super::*;
    use crate::{Defs, parse_attr};

    fn convert_text(text: &str, shape: &[u64], version: Release) -> Result<Conversion> {
        to_linear_layout(
            &parse_attr(text, &Defs::new()).unwrap(),
            shape,
            version,
            None,
        )
    }

    #[test]
    fn a_cga_that_breaks_the_linear_encoding_aborts_3_7() {
        // Both abort the 3.7.1 wheel's Gluon (encodings oracle, seeds
        // 1795640477 and 9005); 3.8 refuses the CGA in its verifier.
        for (text, shape) in [
            (
                "#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 4, warpsPerCTA = [4, 1], \
                 instrShape = [32, 32, 4], isTransposed = false, CGALayout = [[0, 1], [1, 0], [1, 2]]}>, \
                 kWidth = 1}>",
                [256, 8],
            ),
            (
                "#ttg.blocked<{sizePerThread = [8, 4], threadsPerWarp = [2, 8], warpsPerCTA = [1, 4], \
                 order = [1, 0], CGALayout = [[0, 1], [0, 1]]}>",
                [32, 64],
            ),
        ] {
            let got = convert_text(text, &shape, Release::V3_7);
            assert!(
                matches!(&got, Err(ConvertError::Triton(f)) if f.site.id == "verify"),
                "{text}: {got:?}"
            );
            assert!(convert_text(text, &shape, Release::V3_8).is_err());
        }
    }
}
