//! Brute-force references for every layout operation, built only on
//! [`LinearLayout::apply`](crate::LinearLayout::apply).
//!
//! The algebra computes on packed bit matrices; these checks recompute what
//! each operation promises the slow way, input by input, so that a wrong
//! matrix trick shows up as a [`Violation`] instead of a silently wrong
//! layout. They are what the `ops` fuzz target asserts after every step, and
//! what `eval` runs for a request with `"check": true` (answering
//! `wrong_result` on a violation).
//!
//! # Size limit
//!
//! Enumerating inputs is exponential, so the input-by-input comparisons run
//! only when the layout being enumerated has at most [`BRUTE_BITS`] (12)
//! input bits (for an inverse, the layout's output bits). Above that, those
//! comparisons are skipped and the check answers `Ok(())`: a big layout is
//! *not checked*, not declared correct. The cheap structural checks (which
//! dims the result has, its rank against an independent elimination, the
//! text round trip, whether the operation accepted its input) run at any
//! size.
//!
//! # Pieces
//!
//! - [`invariants`]: what every layout keeps, whatever produced it.
//! - one function per operation (`compose`, `product`, `inverse`, …),
//!   each comparing a result with its operands;
//! - [`Step`]: one concrete operation with its operands, which runs itself
//!   ([`Step::run`]) and checks its own outcome ([`Step::check`]) with the
//!   functions above plus the operation's domain (when it must succeed).
//!
//! ```
//! use linear_layout::{LinearLayout, dim, reference};
//!
//! let a = LinearLayout::identity_1d(4, dim("dim0"), dim("dim0"))?;
//! let good = a.compose(&a)?;
//! assert!(reference::compose(&a, &a, &good).is_ok());
//!
//! // A deliberately wrong result: every input sent to 0.
//! let wrong = LinearLayout::zeros_1d(4, dim("dim0"), dim("dim0"), 4)?;
//! let v = reference::compose(&a, &a, &wrong).unwrap_err();
//! assert_eq!(v.law, reference::Law::Values);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

mod brute;
mod invariants;
mod laws;
mod step;

pub use brute::gf2_rank;
pub use invariants::invariants;
pub use laws::{
    compose, concat_ins, concat_outs, divide_left, divide_right, inverse, invert_and_compose,
    is_trivial_over, product, remove_zero_bases, rename_in, reshape_ins, reshape_outs, resize_out,
    restriction, same_values, square_sublayout_is_identity, sublayout_is_zero,
};
pub use step::{Step, StepOutput};

/// Layouts with at most this many input bits (output bits, for inverses)
/// are compared input by input; bigger ones skip that part of a check.
pub const BRUTE_BITS: u32 = 12;

/// Which promise a result broke.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Law {
    /// A layout's own invariants: one basis per input bit, components below
    /// their out-dim's size, rank and surjectivity as an independent
    /// elimination finds them, `apply` = XOR of the bases, free-variable
    /// masks, `num_consecutive_in_out`, the text round trip, and errors (not
    /// answers) for out-of-range inputs.
    Invariant,
    /// The result has the in-dims and out-dims the operation promises.
    Dims,
    /// The result agrees, input by input, with the reference built on the
    /// operands' `apply`.
    Values,
    /// `a(inv(y)) = y` for every `y` (and `inv(a(x)) = x` for `invert`).
    Inverse,
    /// A quotient multiplies back: `b × c = a` (left) or `c × b = a` (right).
    Factorization,
    /// The operation succeeds on every input meeting its documented
    /// preconditions (for `invert` and `pseudoinvert`: exactly on those).
    Domain,
}

impl std::fmt::Display for Law {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Law::Invariant => "layout invariant",
            Law::Dims => "result dims",
            Law::Values => "values against the brute-force reference",
            Law::Inverse => "inverse",
            Law::Factorization => "factorization",
            Law::Domain => "domain",
        })
    }
}

/// A result that breaks a law: which law, in which operation, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{op}: {law} broken: {detail}")]
pub struct Violation {
    /// The operation whose result (or refusal) is wrong, as `eval` names it.
    pub op: &'static str,
    /// The law broken.
    pub law: Law,
    /// Where: the input, what came out and what should have.
    pub detail: String,
}

impl Violation {
    /// The same violation, attributed to `op` (a result's invariants are
    /// checked on behalf of the operation that produced it).
    pub fn in_op(self, op: &'static str) -> Self {
        Violation { op, ..self }
    }
}

/// Checks on behalf of one operation: builds its violations.
#[derive(Copy, Clone)]
pub(crate) struct Ctx {
    pub(crate) op: &'static str,
}

impl Ctx {
    pub(crate) fn fail(self, law: Law, detail: impl Into<String>) -> Violation {
        Violation {
            op: self.op,
            law,
            detail: detail.into(),
        }
    }

    /// `Ok` when `ok`; the detail is only formatted on failure.
    pub(crate) fn ensure(
        self,
        ok: bool,
        law: Law,
        detail: impl FnOnce() -> String,
    ) -> Result<(), Violation> {
        if ok {
            Ok(())
        } else {
            Err(self.fail(law, detail()))
        }
    }

    /// `ensure(got == want)`, with both in the detail.
    pub(crate) fn same<T: PartialEq + std::fmt::Debug>(
        self,
        got: T,
        want: T,
        law: Law,
        what: impl FnOnce() -> String,
    ) -> Result<(), Violation> {
        self.ensure(got == want, law, || {
            format!("{}: got {got:?}, want {want:?}", what())
        })
    }
}

#[cfg(test)]
mod tests;
