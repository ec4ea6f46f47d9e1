//! `#ttg.slice`: the parent's layout on the shape with a 1 inserted at the
//! sliced dim, with that dim removed.

use super::{Conversion, convert};
use crate::dim::Dim;
use crate::error::Result;
use crate::triton::attr::Slice;
use crate::triton::version::TritonVersion;
use crate::utils::remove_standard_dim;

/// Newest: remove the dim, then drop register bases that became zero (lanes
/// and warps along the sliced dim stay as zero bases, i.e. broadcast).
pub(crate) fn slice(
    s: &Slice,
    shape: &[u64],
    version: TritonVersion,
    elem_bits: Option<u64>,
) -> Result<Conversion> {
    if version <= TritonVersion::V3_2
        && matches!(s.parent.as_ref(), crate::triton::attr::Attr::DotOperand(_))
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
    let l = remove_standard_dim(&parent, s.dim)?.remove_zero_bases_along_dim(Dim::REGISTER)?;
    Ok(Conversion::Layout(l))
}
