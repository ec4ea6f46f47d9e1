//! `#ttg.amd_wmma` and its dot operands.

use super::Conversion;
use crate::error::{LayoutError, Result};
use crate::triton::attr::{AmdWmma, DotOperand};
use crate::triton::version::TritonVersion;

pub(crate) fn amd_wmma(
    _w: &AmdWmma,
    _shape: &[u64],
    _version: TritonVersion,
) -> Result<Conversion> {
    Err(LayoutError::InvalidAttribute {
        kind: "#ttg.amd_wmma".into(),
        message: "not implemented yet".into(),
    })
}

pub(crate) fn wmma_dot(
    _d: &DotOperand,
    _w: &AmdWmma,
    _shape: &[u64],
    _version: TritonVersion,
) -> Result<Conversion> {
    Err(LayoutError::InvalidAttribute {
        kind: "#ttg.dot_op".into(),
        message: "WMMA parent not implemented yet".into(),
    })
}
