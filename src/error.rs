//! The error type of the algebra (and of its text formats).
//!
//! Triton guards every operation with C++ `assert`s and `report_fatal_error`s
//! that abort the process. Each of those preconditions is a variant here,
//! carrying the operation, the dims and the sizes involved, so that a caller
//! (an autotuner, a fuzzer, the bug finder) gets a value it can report or act
//! on instead of a dead process.

use crate::dim::Dim;
use std::fmt;

/// A list of `(dim, size)` pairs, printed as `[dim0: 32, dim1: 64]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DimSizes(pub Vec<(Dim, u64)>);

impl fmt::Display for DimSizes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, (d, size)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}: {size}")?;
        }
        f.write_str("]")
    }
}

/// A list of dim names, printed as `[register, lane]`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DimList(pub Vec<Dim>);

impl fmt::Display for DimList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// Which side of a layout a dimension belongs to.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Side {
    /// The hardware side: `register`, `lane`, `warp`, `block`, `offset`, ….
    In,
    /// The tensor side: `dim0`, `dim1`, ….
    Out,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::In => "in",
            Side::Out => "out",
        })
    }
}

/// Everything that can go wrong in the algebra. Each variant names the
/// operation (`op`) that refused, in the crate's snake_case spelling.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// A size that must be a nonzero power of two is not.
    #[error("{op}: {what} is {value}, which is not a power of two")]
    NotPowerOfTwo {
        /// The operation.
        op: &'static str,
        /// What the size is the size of.
        what: String,
        /// The offending value.
        value: u64,
    },
    /// More than 64 input bits or more than 64 output bits in total.
    #[error(
        "{op}: the layout would have {bits} {side}put bits in total; at most {max} are supported (Triton's bit matrices have one 64-bit word per row)"
    )]
    TooManyBits {
        /// The operation.
        op: &'static str,
        /// Input or output side.
        side: Side,
        /// The number of bits asked for.
        bits: u32,
        /// The limit.
        max: u32,
    },
    /// A basis has the wrong number of components.
    #[error(
        "{op}: basis {index} of in-dim {in_dim} has {got} components, but there are {expected} out-dims"
    )]
    BasisLength {
        /// The operation.
        op: &'static str,
        /// The in-dim holding the basis.
        in_dim: Dim,
        /// The basis index.
        index: usize,
        /// How many components it has.
        got: usize,
        /// How many out-dims there are.
        expected: usize,
    },
    /// A basis component does not fit in its out-dim.
    #[error(
        "{op}: basis {index} of in-dim {in_dim} has component {value} on out-dim {out_dim}, which has size {size}"
    )]
    ComponentOutOfRange {
        /// The operation.
        op: &'static str,
        /// The in-dim holding the basis.
        in_dim: Dim,
        /// The basis index.
        index: usize,
        /// The out-dim of the component.
        out_dim: Dim,
        /// The component.
        value: u64,
        /// The out-dim's size.
        size: u64,
    },
    /// A layout required to be surjective is not.
    #[error(
        "{op}: the layout must be surjective, but its bases span only {rank} of its {out_bits} output bits (out-dims {out_dims})"
    )]
    NotSurjective {
        /// The operation.
        op: &'static str,
        /// The rank of the basis matrix.
        rank: u32,
        /// The total number of output bits.
        out_bits: u32,
        /// The out-dims and their sizes.
        out_dims: DimSizes,
    },
    /// A dim named in the request does not exist in the layout.
    #[error("{op}: {side}-dim {dim} is not in the layout, whose {side}-dims are {available}")]
    UnknownDim {
        /// The operation.
        op: &'static str,
        /// In or out.
        side: Side,
        /// The missing dim.
        dim: Dim,
        /// The dims the layout has.
        available: DimList,
    },
    /// A dim appears twice where names must be distinct.
    #[error("{op}: {side}-dim {dim} appears more than once")]
    DuplicateDim {
        /// The operation.
        op: &'static str,
        /// In or out.
        side: Side,
        /// The repeated dim.
        dim: Dim,
    },
    /// Two sets of dims that must be equal (ignoring order) are not.
    #[error("{op}: {what} must be the same set of dims, but got {left} and {right}")]
    DimSetMismatch {
        /// The operation.
        op: &'static str,
        /// Which two lists are compared.
        what: &'static str,
        /// The first list.
        left: DimList,
        /// The second list.
        right: DimList,
    },
    /// Two lists of dims that must be identical (in order, with sizes) are not.
    #[error("{op}: {what} must be identical, but got {left} and {right}")]
    DimsNotIdentical {
        /// The operation.
        op: &'static str,
        /// Which two lists are compared.
        what: &'static str,
        /// The first list.
        left: DimSizes,
        /// The second list.
        right: DimSizes,
    },
    /// A reshape whose new dims hold a different number of elements.
    #[error(
        "{op}: new {side}-dims {new} hold {new_total} elements, but the layout's {side}-dims {old} hold {old_total}"
    )]
    TotalSizeMismatch {
        /// The operation.
        op: &'static str,
        /// In or out.
        side: Side,
        /// The requested dims.
        new: DimSizes,
        /// Their total size.
        new_total: u128,
        /// The layout's dims.
        old: DimSizes,
        /// Their total size.
        old_total: u128,
    },
    /// Common dims appear in a different relative order in two layouts.
    #[error(
        "{op}: the {side}-dims the two layouts share appear in different orders ({left} and {right}); Triton's product would silently pick one"
    )]
    InconsistentDimOrder {
        /// The operation.
        op: &'static str,
        /// In or out.
        side: Side,
        /// The first layout's dims.
        left: DimList,
        /// The second layout's dims.
        right: DimList,
    },
    /// `compose`: the inner layout's out-dim is larger than the outer one's in-dim.
    #[error(
        "{op}: out-dim {dim} of the first layout has size {inner}, larger than the second layout's in-dim {dim} of size {outer}"
    )]
    ComposeSize {
        /// The operation.
        op: &'static str,
        /// The dim.
        dim: Dim,
        /// The first layout's out size.
        inner: u64,
        /// The second layout's in size.
        outer: u64,
    },
    /// `invert_and_compose`: `outer` has a smaller out-dim than `self`.
    #[error(
        "{op}: out-dim {dim} has size {outer} in the layout being inverted, smaller than {this} in the first layout"
    )]
    InvertSize {
        /// The operation.
        op: &'static str,
        /// The dim.
        dim: Dim,
        /// The first layout's out size.
        this: u64,
        /// The inverted layout's out size.
        outer: u64,
    },
    /// `invert_and_compose`: the image of `self` is not inside the image of `outer`.
    #[error(
        "{op}: the image of the first layout is not contained in the image of the second, so no layout C satisfies second(C(x)) = first(x)"
    )]
    ImageNotContained {
        /// The operation.
        op: &'static str,
    },
    /// `invert_and_compose`: in-dims common to both layouts with identical
    /// bases leave nothing on one side but something on the other.
    #[error(
        "{op}: after setting aside the in-dims both layouts share with identical bases, one layout has in-dims left and the other has none"
    )]
    IdentityDimsUnbalanced {
        /// The operation.
        op: &'static str,
    },
    /// `invert`: the layout is not a bijection.
    #[error(
        "{op}: the layout is not invertible: it has {in_bits} input bits, {out_bits} output bits and rank {rank}"
    )]
    NotInvertible {
        /// The operation.
        op: &'static str,
        /// Total input bits.
        in_bits: u32,
        /// Total output bits.
        out_bits: u32,
        /// Rank.
        rank: u32,
    },
    /// `apply`: the input dims are not exactly the layout's in-dims.
    #[error("{op}: an input value for in-dim {dim} is {value}, outside its size {size}")]
    InputOutOfRange {
        /// The operation.
        op: &'static str,
        /// The in-dim.
        dim: Dim,
        /// The value given.
        value: u64,
        /// The in-dim's size.
        size: u64,
    },
    /// A size must not exceed another.
    #[error("{op}: {what} is {value}, larger than {limit}")]
    TooLarge {
        /// The operation.
        op: &'static str,
        /// What is too large.
        what: String,
        /// Its value.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// A dim that must have size 1 does not.
    #[error("{op}: {side}-dim {dim} has size {size}; only a size-1 dim can be squeezed out")]
    NotSizeOne {
        /// The operation.
        op: &'static str,
        /// In or out.
        side: Side,
        /// The dim.
        dim: Dim,
        /// Its size.
        size: u64,
    },
    /// A shape ratio that must be an integer is not.
    #[error("{op}: the layout's out-dim {dim} has size {size}, which does not divide {target}")]
    NotDivisible {
        /// The operation.
        op: &'static str,
        /// The out-dim.
        dim: Dim,
        /// The layout's size.
        size: u64,
        /// The requested size.
        target: u64,
    },
    /// A precondition on the first in-dim of a layout.
    #[error("{op}: the first in-dim must be {expected}, but it is {got}")]
    WrongFirstInDim {
        /// The operation.
        op: &'static str,
        /// What was expected.
        expected: &'static str,
        /// What the layout has (or `(none)`).
        got: String,
    },
    /// A column action's index is out of range.
    #[error("{op}: index {index} is out of range for an in-dim with {len} bases")]
    IndexOutOfRange {
        /// The operation.
        op: &'static str,
        /// The index.
        index: usize,
        /// The number of bases.
        len: usize,
    },
    /// A list has the wrong length.
    #[error("{op}: {what} has {got} entries, expected {expected}")]
    WrongLength {
        /// The operation.
        op: &'static str,
        /// What list.
        what: String,
        /// Its length.
        got: usize,
        /// The expected length.
        expected: usize,
    },
    /// A division whose quotient does not multiply back to the dividend
    /// (Triton asserts `B * C == A`).
    #[error("{op}: the quotient does not multiply back to the layout being divided")]
    DivisionMismatch {
        /// The operation.
        op: &'static str,
    },
    /// A new dim name read from input when the process already interns
    /// [`crate::dim::MAX_NAMES`] names, or the name does not fit in
    /// [`crate::dim::MAX_NAME_BYTES`] with the others (names live as long
    /// as the process).
    #[error(
        "this process already holds the most dim names it keeps ({names} names, {bytes} bytes \
         in all); a new name is refused (the names a layout uses are few: register, lane, warp, \
         block, offset, dim0, ...; restart the process to start afresh)"
    )]
    TooManyNames {
        /// The most names.
        names: usize,
        /// The most bytes of names.
        bytes: usize,
    },
    /// Text that does not parse.
    #[error("{format}: line {line}, column {column}: {message}")]
    Parse {
        /// Which format (`layout text`, `#ttg.linear`, …).
        format: &'static str,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was expected or what is wrong.
        message: String,
    },
}

impl LayoutError {
    /// A short machine-readable name for the variant, used by `eval`.
    pub fn kind(&self) -> &'static str {
        match self {
            LayoutError::NotPowerOfTwo { .. } => "not_power_of_two",
            LayoutError::TooManyBits { .. } => "too_many_bits",
            LayoutError::BasisLength { .. } => "basis_length",
            LayoutError::ComponentOutOfRange { .. } => "component_out_of_range",
            LayoutError::NotSurjective { .. } => "not_surjective",
            LayoutError::UnknownDim { .. } => "unknown_dim",
            LayoutError::DuplicateDim { .. } => "duplicate_dim",
            LayoutError::DimSetMismatch { .. } => "dim_set_mismatch",
            LayoutError::DimsNotIdentical { .. } => "dims_not_identical",
            LayoutError::TotalSizeMismatch { .. } => "total_size_mismatch",
            LayoutError::InconsistentDimOrder { .. } => "inconsistent_dim_order",
            LayoutError::ComposeSize { .. } => "compose_size",
            LayoutError::InvertSize { .. } => "invert_size",
            LayoutError::ImageNotContained { .. } => "image_not_contained",
            LayoutError::IdentityDimsUnbalanced { .. } => "identity_dims_unbalanced",
            LayoutError::NotInvertible { .. } => "not_invertible",
            LayoutError::InputOutOfRange { .. } => "input_out_of_range",
            LayoutError::TooLarge { .. } => "too_large",
            LayoutError::NotSizeOne { .. } => "not_size_one",
            LayoutError::NotDivisible { .. } => "not_divisible",
            LayoutError::WrongFirstInDim { .. } => "wrong_first_in_dim",
            LayoutError::IndexOutOfRange { .. } => "index_out_of_range",
            LayoutError::WrongLength { .. } => "wrong_length",
            LayoutError::DivisionMismatch { .. } => "division_mismatch",
            LayoutError::TooManyNames { .. } => "too_many_names",
            LayoutError::Parse { .. } => "parse",
        }
    }
}

/// The crate's result type.
pub type Result<T, E = LayoutError> = std::result::Result<T, E>;
