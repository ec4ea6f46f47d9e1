//! `#ttg.amd_mfma` and its dot operands.

use super::Conversion;
use crate::error::{LayoutError, Result};
use crate::triton::attr::{AmdMfma, DotOperand};
use crate::triton::version::TritonVersion;

pub(crate) fn amd_mfma(
    _m: &AmdMfma,
    _shape: &[u64],
    _version: TritonVersion,
) -> Result<Conversion> {
    Err(LayoutError::InvalidAttribute {
        kind: "#ttg.amd_mfma".into(),
        message: "not implemented yet".into(),
    })
}

pub(crate) fn mfma_dot(
    _d: &DotOperand,
    _m: &AmdMfma,
    _shape: &[u64],
    _version: TritonVersion,
) -> Result<Conversion> {
    Err(LayoutError::InvalidAttribute {
        kind: "#ttg.dot_op".into(),
        message: "MFMA parent not implemented yet".into(),
    })
}
