//! `#ttg.slice`: the parent's layout on the shape with a 1 inserted at the
//! sliced dim, with that dim removed.

use super::{Conversion, convert};
use crate::attr::Slice;
use crate::error::Result;
use crate::release::Release;
use linear_layout::Dim;
use linear_layout::utils::remove_standard_dim;

/// 3.9: remove the dim, then drop register bases that became zero (lanes
/// and warps along the sliced dim stay as zero bases, i.e. broadcast).
pub(crate) fn slice(
    s: &Slice,
    shape: &[u64],
    version: Release,
    elem_bits: Option<u64>,
) -> Result<Conversion> {
    if version.has_hand_built_mma_layouts()
        && matches!(s.parent.as_ref(), crate::attr::Attr::DotOperand(_))
    {
        return Ok(Conversion::NoLayout(format!(
            "Triton {version} has no linear layout for slices of dot operands"
        )));
    }
    let mut parent_shape = shape.to_vec();
    parent_shape.insert(s.dim.min(shape.len()), 1);
    let parent = match convert(&s.parent, &parent_shape, version, elem_bits)? {
        Conversion::Layout(l) => l,
        Conversion::NoLayout(why) => {
            return Ok(Conversion::NoLayout(format!(
                "the slice's parent has none: {why}"
            )));
        }
    };
    let mut l = remove_standard_dim(&parent, s.dim)?.remove_zero_bases_along_dim(Dim::REGISTER)?;
    if version.has_legacy_elems_per_thread() {
        l = pad_registers_3_2(l, s, shape)?;
    }
    Ok(Conversion::Layout(l))
}

/// 3.1/3.2 pad the slice's registers with zero (duplicate) bases up to the
/// legacy `getTotalElemsPerThread`; a smaller legacy count adds nothing.
fn pad_registers_3_2(
    l: linear_layout::LinearLayout,
    s: &Slice,
    shape: &[u64],
) -> Result<linear_layout::LinearLayout> {
    let attr = crate::attr::Attr::Slice(s.clone());
    let Some(per_dim) = super::legacy_elems::elems_per_thread(&attr, shape) else {
        return Ok(l);
    };
    let want: u64 = per_dim.iter().product();
    let have = l.in_dim_size(Dim::REGISTER)?;
    if want <= have {
        return Ok(l);
    }
    let ratio = want / have;
    Ok(l.product(&linear_layout::LinearLayout::zeros_1d(
        ratio,
        Dim::REGISTER,
        Dim::standard(0),
        1,
    )?)?)
}
