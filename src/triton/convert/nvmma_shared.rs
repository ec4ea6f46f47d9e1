//! `#ttg.nvmma_shared` (newest) and 3.2's leading-offset
//! `#triton_gpu.shared`: the swizzled layouts wgmma and TMA read.

use super::Conversion;
use crate::error::{LayoutError, Result};
use crate::triton::attr::{NvmmaShared, SwizzledShared};
use crate::triton::version::TritonVersion;

pub(crate) fn nvmma_shared(
    _n: &NvmmaShared,
    _shape: &[u64],
    _version: TritonVersion,
) -> Result<Conversion> {
    Err(LayoutError::InvalidAttribute {
        kind: "#ttg.nvmma_shared".into(),
        message: "not implemented yet".into(),
    })
}

pub(crate) fn leading_offset_shared(
    _s: &SwizzledShared,
    _shape: &[u64],
    _version: TritonVersion,
    _elem_bits: Option<u64>,
) -> Result<Conversion> {
    Err(LayoutError::InvalidAttribute {
        kind: "#triton_gpu.shared".into(),
        message: "not implemented yet".into(),
    })
}
