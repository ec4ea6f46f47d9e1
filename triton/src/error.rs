//! The error of the Triton layer: converting an attribute can fail in the
//! algebra, on an attribute or shape no release accepts, or where the
//! release itself fails (a [`Failure`] at a site).

use super::failure::Failure;
use linear_layout::LayoutError;

/// Why an attribute has no layout here.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The algebra refused (or the text did not parse).
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// An attribute that the release's verifier (or its conversion)
    /// rejects as malformed, the way Triton reports a bad attribute.
    #[error("{kind}: {message}")]
    InvalidAttribute {
        /// The attribute kind, e.g. `#ttg.blocked`.
        kind: String,
        /// What is wrong, in Triton's words where it has them.
        message: String,
    },
    /// A tensor shape that cannot be laid out.
    #[error("shape {shape:?}: {message}")]
    InvalidShape {
        /// The shape.
        shape: Vec<u64>,
        /// What is wrong.
        message: String,
    },
    /// The release fails converting this attribute: the process aborts (or
    /// raises) at a site.
    #[error("{0}")]
    Triton(Box<Failure>),
}

impl ConvertError {
    /// A short machine-readable name, as `convert --batch` and `eval`
    /// print it: the algebra's kinds, `invalid_attribute`,
    /// `invalid_shape`, or `triton_failure`.
    pub fn kind(&self) -> &'static str {
        match self {
            ConvertError::Layout(e) => e.kind(),
            ConvertError::InvalidAttribute { .. } => "invalid_attribute",
            ConvertError::InvalidShape { .. } => "invalid_shape",
            ConvertError::Triton(_) => "triton_failure",
        }
    }

    /// The release's failure, if that is what this is.
    pub fn failure(&self) -> Option<&Failure> {
        match self {
            ConvertError::Triton(f) => Some(f),
            _ => None,
        }
    }
}

impl From<Failure> for ConvertError {
    fn from(f: Failure) -> Self {
        ConvertError::Triton(Box::new(f))
    }
}

/// The Triton layer's result type.
pub type Result<T, E = ConvertError> = std::result::Result<T, E>;
