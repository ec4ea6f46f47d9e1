//! One concrete operation with its operands: runs itself and checks its
//! own outcome.
//!
//! A [`Step`] is what the `ops` fuzz target does at each point of a run, and
//! exactly what one `eval` request (`{"op": NAME, "a": ..., ...}`) asks
//! for, so a failing step can be replayed, shrunk and reported on its own.

use super::brute::{ins_of, log2, outs_of};
use super::{Ctx, Law, Violation, invariants, laws};
use crate::dim::Dim;
use crate::error::LayoutError;
use crate::layout::{Bases, LinearLayout};

/// An operation and its concrete operands. Variants are named after the
/// [`LinearLayout`] method they call; [`Step::op`] gives the `eval` name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are the method's arguments
pub enum Step {
    /// `from_bases_with_sizes(bases, out_dims, require_surjective)`.
    FromBases {
        bases: Bases,
        out_dims: Vec<(Dim, u64)>,
        require_surjective: bool,
    },
    Compose {
        a: LinearLayout,
        b: LinearLayout,
    },
    InvertAndCompose {
        a: LinearLayout,
        b: LinearLayout,
    },
    /// `a × b`.
    Product {
        a: LinearLayout,
        b: LinearLayout,
    },
    Invert {
        a: LinearLayout,
    },
    Pseudoinvert {
        a: LinearLayout,
    },
    ReshapeIns {
        a: LinearLayout,
        dims: Vec<(Dim, u64)>,
    },
    ReshapeOuts {
        a: LinearLayout,
        dims: Vec<(Dim, u64)>,
    },
    FlattenIns {
        a: LinearLayout,
    },
    FlattenOuts {
        a: LinearLayout,
    },
    TransposeIns {
        a: LinearLayout,
        order: Vec<Dim>,
    },
    TransposeOuts {
        a: LinearLayout,
        order: Vec<Dim>,
    },
    Sublayout {
        a: LinearLayout,
        ins: Vec<Dim>,
        outs: Vec<Dim>,
    },
    ConcatIns {
        a: LinearLayout,
        b: LinearLayout,
    },
    ConcatOuts {
        a: LinearLayout,
        b: LinearLayout,
    },
    DivideLeft {
        a: LinearLayout,
        b: LinearLayout,
    },
    DivideRight {
        a: LinearLayout,
        b: LinearLayout,
    },
    /// `p = a × b`, then `p.divide_left(a)` and `p.divide_right(b)`, which
    /// must both succeed and multiply back to `p`.
    ProductThenDivide {
        a: LinearLayout,
        b: LinearLayout,
    },
    Quotient {
        a: LinearLayout,
        dims: Vec<Dim>,
    },
    /// `remove_zero_bases_along_dim(dim)`.
    RemoveZeroBases {
        a: LinearLayout,
        dim: Dim,
    },
    SqueezeIns {
        a: LinearLayout,
        dim: Dim,
    },
    SqueezeOuts {
        a: LinearLayout,
        dim: Dim,
    },
    /// `resize_in_dim(dim, size)`.
    ResizeIn {
        a: LinearLayout,
        dim: Dim,
        size: u64,
    },
    /// `resize_out_dim(dim, size)`.
    ResizeOut {
        a: LinearLayout,
        dim: Dim,
        size: u64,
    },
    /// `rename_in_dim(old, new)`.
    RenameIn {
        a: LinearLayout,
        old: Dim,
        new: Dim,
    },
    SublayoutIsZero {
        a: LinearLayout,
        ins: Vec<Dim>,
        outs: Vec<Dim>,
    },
    SquareSublayoutIsIdentity {
        a: LinearLayout,
        dims: Vec<Dim>,
    },
    IsTrivialOver {
        a: LinearLayout,
        dims: Vec<Dim>,
    },
}

/// What a step returns when it succeeds.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // one short-lived value per step
pub enum StepOutput {
    /// A layout.
    Layout(LinearLayout),
    /// A layout or none (`divide_left`, `divide_right`, `quotient`).
    Maybe(Option<LinearLayout>),
    /// A query's answer.
    Bool(bool),
    /// [`Step::ProductThenDivide`]: the product and both quotients.
    Divided {
        /// `a × b`.
        product: LinearLayout,
        /// `product.divide_left(a)`.
        left: Option<LinearLayout>,
        /// `product.divide_right(b)`.
        right: Option<LinearLayout>,
    },
}

impl StepOutput {
    /// The layout a run continues with: the result, the quotient, or (for
    /// [`Step::ProductThenDivide`]) the right quotient; none for queries.
    pub fn into_layout(self) -> Option<LinearLayout> {
        match self {
            StepOutput::Layout(l) => Some(l),
            StepOutput::Maybe(l) | StepOutput::Divided { right: l, .. } => l,
            StepOutput::Bool(_) => None,
        }
    }
}

/// `true` when no two entries share a name.
fn distinct<T>(dims: &[T], name: impl Fn(&T) -> Dim) -> bool {
    dims.iter()
        .enumerate()
        .all(|(i, d)| dims[..i].iter().all(|e| name(e) != name(d)))
}

impl Step {
    /// The operation's name in `eval` requests.
    pub fn op(&self) -> &'static str {
        match self {
            Step::FromBases { .. } => "from_bases",
            Step::Compose { .. } => "compose",
            Step::InvertAndCompose { .. } => "invert_and_compose",
            Step::Product { .. } => "product",
            Step::Invert { .. } => "invert",
            Step::Pseudoinvert { .. } => "pseudoinvert",
            Step::ReshapeIns { .. } => "reshape_ins",
            Step::ReshapeOuts { .. } => "reshape_outs",
            Step::FlattenIns { .. } => "flatten_ins",
            Step::FlattenOuts { .. } => "flatten_outs",
            Step::TransposeIns { .. } => "transpose_ins",
            Step::TransposeOuts { .. } => "transpose_outs",
            Step::Sublayout { .. } => "sublayout",
            Step::ConcatIns { .. } => "concat_ins",
            Step::ConcatOuts { .. } => "concat_outs",
            Step::DivideLeft { .. } => "divide_left",
            Step::DivideRight { .. } => "divide_right",
            Step::ProductThenDivide { .. } => "product_then_divide",
            Step::Quotient { .. } => "quotient",
            Step::RemoveZeroBases { .. } => "remove_zero_bases_along_dim",
            Step::SqueezeIns { .. } => "squeeze_ins",
            Step::SqueezeOuts { .. } => "squeeze_outs",
            Step::ResizeIn { .. } => "resize_in_dim",
            Step::ResizeOut { .. } => "resize_out_dim",
            Step::RenameIn { .. } => "rename_in_dim",
            Step::SublayoutIsZero { .. } => "sublayout_is_zero",
            Step::SquareSublayoutIsIdentity { .. } => "square_sublayout_is_identity",
            Step::IsTrivialOver { .. } => "is_trivial_over",
        }
    }

    /// Runs the operation.
    pub fn run(&self) -> Result<StepOutput, LayoutError> {
        use StepOutput::{Bool, Layout, Maybe};
        Ok(match self {
            Step::FromBases {
                bases,
                out_dims,
                require_surjective,
            } => Layout(LinearLayout::from_bases_with_sizes(
                bases,
                out_dims,
                *require_surjective,
            )?),
            Step::Compose { a, b } => Layout(a.compose(b)?),
            Step::InvertAndCompose { a, b } => Layout(a.invert_and_compose(b)?),
            Step::Product { a, b } => Layout(a.product(b)?),
            Step::Invert { a } => Layout(a.invert()?),
            Step::Pseudoinvert { a } => Layout(a.pseudoinvert()?),
            Step::ReshapeIns { a, dims } => Layout(a.reshape_ins(dims)?),
            Step::ReshapeOuts { a, dims } => Layout(a.reshape_outs(dims)?),
            Step::FlattenIns { a } => Layout(a.flatten_ins()?),
            Step::FlattenOuts { a } => Layout(a.flatten_outs()?),
            Step::TransposeIns { a, order } => Layout(a.transpose_ins(order)?),
            Step::TransposeOuts { a, order } => Layout(a.transpose_outs(order)?),
            Step::Sublayout { a, ins, outs } => Layout(a.sublayout(ins, outs)?),
            Step::ConcatIns { a, b } => Layout(a.concat_ins(b)?),
            Step::ConcatOuts { a, b } => Layout(a.concat_outs(b)?),
            Step::DivideLeft { a, b } => Maybe(a.divide_left(b)?),
            Step::DivideRight { a, b } => Maybe(a.divide_right(b)?),
            Step::ProductThenDivide { a, b } => {
                let product = a.product(b)?;
                let left = product.divide_left(a)?;
                let right = product.divide_right(b)?;
                StepOutput::Divided {
                    product,
                    left,
                    right,
                }
            }
            Step::Quotient { a, dims } => Maybe(a.quotient(dims)?),
            Step::RemoveZeroBases { a, dim } => Layout(a.remove_zero_bases_along_dim(*dim)?),
            Step::SqueezeIns { a, dim } => Layout(a.squeeze_ins(*dim)?),
            Step::SqueezeOuts { a, dim } => Layout(a.squeeze_outs(*dim)?),
            Step::ResizeIn { a, dim, size } => Layout(a.resize_in_dim(*dim, *size)?),
            Step::ResizeOut { a, dim, size } => Layout(a.resize_out_dim(*dim, *size)?),
            Step::RenameIn { a, old, new } => Layout(a.rename_in_dim(*old, *new)?),
            Step::SublayoutIsZero { a, ins, outs } => Bool(a.sublayout_is_zero(ins, outs)?),
            Step::SquareSublayoutIsIdentity { a, dims } => {
                Bool(a.square_sublayout_is_identity(dims)?)
            }
            Step::IsTrivialOver { a, dims } => Bool(a.is_trivial_over(dims)?),
        })
    }

    /// Checks an outcome of [`run`](Self::run) (or a deliberately wrong
    /// one, in tests): the operation's laws, the invariants of every layout
    /// it returned, and, where the operands meet the operation's documented
    /// preconditions, that it did not fail. A failure outside those
    /// preconditions is fine. Violations are named after [`op`](Self::op).
    pub fn check(&self, outcome: &Result<StepOutput, LayoutError>) -> Result<(), Violation> {
        self.check_laws(outcome).map_err(|v| v.in_op(self.op()))
    }

    /// Whether the operands meet the preconditions under which the
    /// operation must succeed (`None`: no such promise is checked).
    fn must_succeed(&self) -> Option<bool> {
        let pow2_total = |dims: &[(Dim, u64)], bits: u32| {
            distinct(dims, |d| d.0)
                && dims.iter().all(|d| d.1.is_power_of_two())
                && dims.iter().map(|d| log2(d.1)).sum::<u32>() == bits
        };
        Some(match self {
            Step::FromBases {
                bases,
                out_dims,
                require_surjective,
            } => {
                let in_bits: usize = bases.iter().map(|b| b.1.len()).sum();
                let out_bits: u32 = out_dims.iter().map(|d| log2(d.1)).sum();
                !require_surjective
                    && distinct(bases, |b| b.0)
                    && distinct(out_dims, |d| d.0)
                    && in_bits <= 64
                    && out_bits <= 64
                    && out_dims.iter().all(|d| d.1.is_power_of_two())
                    && bases.iter().flat_map(|b| &b.1).all(|v| {
                        v.len() == out_dims.len() && v.iter().zip(out_dims).all(|(&c, d)| c < d.1)
                    })
            }
            Step::Invert { a } => a.is_invertible(),
            Step::Pseudoinvert { a } => a.is_surjective(),
            Step::ReshapeIns { a, dims } => pow2_total(dims, a.total_in_bits()),
            Step::ReshapeOuts { a, dims } => pow2_total(dims, a.total_out_bits()),
            Step::TransposeIns { a, order } => {
                order.len() == a.num_in_dims()
                    && distinct(order, |&d| d)
                    && order.iter().all(|&d| a.has_in_dim(d))
            }
            Step::TransposeOuts { a, order } => {
                order.len() == a.num_out_dims()
                    && distinct(order, |&d| d)
                    && order.iter().all(|&d| a.has_out_dim(d))
            }
            Step::Sublayout { a, ins, outs } | Step::SublayoutIsZero { a, ins, outs } => {
                ins.iter().all(|&d| a.has_in_dim(d)) && outs.iter().all(|&d| a.has_out_dim(d))
            }
            Step::ProductThenDivide { a, b } => a.product(b).is_ok(),
            Step::SqueezeIns { a, dim } => a.in_dim_size(*dim).ok() == Some(1),
            Step::SqueezeOuts { a, dim } => a.out_dim_size(*dim).ok() == Some(1),
            Step::ResizeIn { a, dim, size } => {
                size.is_power_of_two() && a.in_dim_size(*dim).is_ok_and(|s| *size <= s)
            }
            Step::ResizeOut { a, dim, size } => {
                size.is_power_of_two() && a.out_dim_size(*dim).is_ok_and(|s| *size <= s)
            }
            Step::SquareSublayoutIsIdentity { a, dims } | Step::IsTrivialOver { a, dims } => {
                dims.iter().all(|&d| a.has_in_dim(d) && a.has_out_dim(d))
            }
            _ => return None,
        })
    }

    fn check_laws(&self, outcome: &Result<StepOutput, LayoutError>) -> Result<(), Violation> {
        let ctx = Ctx { op: self.op() };
        // Computed only where an answer depends on it: for some steps it
        // reruns part of the operation.
        let must = || self.must_succeed();
        let value = match outcome {
            Err(e) => {
                return ctx.ensure(must() != Some(true), Law::Domain, || {
                    format!("refused operands that meet its preconditions: {e}")
                });
            }
            Ok(v) => v,
        };
        // Only invert and pseudoinvert promise to fail outside their domain.
        if matches!(self, Step::Invert { .. } | Step::Pseudoinvert { .. }) {
            ctx.ensure(must() != Some(false), Law::Domain, || {
                "succeeded on a layout outside its domain".into()
            })?;
        }
        match (self, value) {
            (
                Step::ProductThenDivide { a, b },
                StepOutput::Divided {
                    product,
                    left,
                    right,
                },
            ) => {
                invariants(product)?;
                laws::product(a, b, product)?;
                let no = |side: &str| {
                    ctx.fail(
                        Law::Domain,
                        format!("divide_{side} of a product by its own factor found no quotient"),
                    )
                };
                let left = left.as_ref().ok_or_else(|| no("left"))?;
                invariants(left)?;
                laws::divide_left(product, a, left)?;
                let right = right.as_ref().ok_or_else(|| no("right"))?;
                invariants(right)?;
                laws::divide_right(product, b, right)?;
                Ok(())
            }
            (_, StepOutput::Layout(r)) => {
                self.check_layout(ctx, r)?;
                invariants(r)
            }
            (_, StepOutput::Maybe(Some(c))) => {
                // The quotient's own invariants first, as a factorization
                // check multiplies it.
                invariants(c)?;
                self.check_layout(ctx, c)
            }
            (_, StepOutput::Maybe(None)) => Ok(()),
            // A query answered: its operand's invariants, then its law when
            // the dims are the operand's own.
            (Step::SublayoutIsZero { a, ins, outs }, &StepOutput::Bool(z)) => {
                invariants(a)?;
                if must() == Some(true) {
                    laws::sublayout_is_zero(a, ins, outs, z)?;
                }
                Ok(())
            }
            (Step::SquareSublayoutIsIdentity { a, dims }, &StepOutput::Bool(id)) => {
                invariants(a)?;
                if must() == Some(true) {
                    laws::square_sublayout_is_identity(a, dims, id)?;
                }
                Ok(())
            }
            (Step::IsTrivialOver { a, dims }, &StepOutput::Bool(t)) => {
                invariants(a)?;
                if must() == Some(true) {
                    laws::is_trivial_over(a, dims, t)?;
                }
                Ok(())
            }
            (_, StepOutput::Bool(_)) => Ok(()),
            (_, StepOutput::Divided { .. }) => {
                Err(ctx.fail(Law::Dims, "a product and two quotients"))
            }
        }
    }

    /// The laws of a step whose result is the layout `r`.
    fn check_layout(&self, ctx: Ctx, r: &LinearLayout) -> Result<(), Violation> {
        let dims_are = |got: Vec<Dim>, want: &[Dim], what: &str| {
            ctx.same(got, want.to_vec(), Law::Dims, || what.to_string())
        };
        match self {
            Step::FromBases { bases, .. } => ctx.same(&r.bases(), bases, Law::Invariant, || {
                "bases() against the bases it was built from".into()
            }),
            Step::Compose { a, b } => laws::compose(a, b, r),
            Step::InvertAndCompose { a, b } => laws::invert_and_compose(a, b, r),
            Step::Product { a, b } => laws::product(a, b, r),
            Step::Invert { a } => laws::inverse(a, r, true),
            Step::Pseudoinvert { a } => laws::inverse(a, r, false),
            Step::ReshapeIns { a, dims } => {
                ctx.same(ins_of(r), dims.clone(), Law::Dims, || "in-dims".into())?;
                laws::reshape_ins(a, r)
            }
            Step::ReshapeOuts { a, dims } => {
                ctx.same(outs_of(r), dims.clone(), Law::Dims, || "out-dims".into())?;
                laws::reshape_outs(a, r)
            }
            Step::FlattenIns { a } => {
                ctx.ensure(r.num_in_dims() <= 1, Law::Dims, || {
                    format!("{} in-dims", r.num_in_dims())
                })?;
                laws::reshape_ins(a, r)
            }
            Step::FlattenOuts { a } => {
                ctx.ensure(r.num_out_dims() <= 1, Law::Dims, || {
                    format!("{} out-dims", r.num_out_dims())
                })?;
                laws::reshape_outs(a, r)
            }
            Step::TransposeIns { a, order } => {
                dims_are(r.in_dim_names().collect(), order, "in-dim order")?;
                ctx.same(outs_of(r), outs_of(a), Law::Dims, || "out-dims".into())?;
                laws::same_values(a, r)
            }
            Step::TransposeOuts { a, order } => {
                dims_are(r.out_dim_names().collect(), order, "out-dim order")?;
                ctx.same(ins_of(r), ins_of(a), Law::Dims, || "in-dims".into())?;
                laws::same_values(a, r)
            }
            Step::Sublayout { a, ins, outs } => {
                for d in r.in_dim_names() {
                    ctx.ensure(ins.contains(&d), Law::Dims, || {
                        format!("in-dim {d} was not asked for")
                    })?;
                }
                for (d, s) in r.out_dims() {
                    ctx.ensure(outs.contains(&d), Law::Dims, || {
                        format!("out-dim {d} was not asked for")
                    })?;
                    ctx.same(Some(s), a.out_dim_size(d).ok(), Law::Dims, || {
                        format!("size of out-dim {d}")
                    })?;
                }
                laws::restriction(a, r)
            }
            Step::ConcatIns { a, b } => laws::concat_ins(a, b, r),
            Step::ConcatOuts { a, b } => laws::concat_outs(a, b, r),
            Step::DivideLeft { a, b } => laws::divide_left(a, b, r),
            Step::DivideRight { a, b } => laws::divide_right(a, b, r),
            Step::Quotient { a, dims } => {
                for d in dims {
                    ctx.ensure(!r.has_in_dim(*d) && !r.has_out_dim(*d), Law::Dims, || {
                        format!("{d} is still there")
                    })?;
                }
                laws::restriction(a, r)
            }
            Step::RemoveZeroBases { a, dim } => laws::remove_zero_bases(a, *dim, r),
            Step::SqueezeIns { a, dim } => {
                ctx.ensure(!r.has_in_dim(*dim), Law::Dims, || {
                    format!("{dim} is still there")
                })?;
                laws::restriction(a, r)
            }
            Step::SqueezeOuts { a, dim } => {
                ctx.ensure(!r.has_out_dim(*dim), Law::Dims, || {
                    format!("{dim} is still there")
                })?;
                laws::restriction(a, r)
            }
            Step::ResizeIn { a, dim, size } => {
                ctx.same(r.in_dim_size(*dim).ok(), Some(*size), Law::Dims, || {
                    format!("size of {dim}")
                })?;
                laws::restriction(a, r)
            }
            Step::ResizeOut { a, dim, size } => laws::resize_out(a, *dim, *size, r),
            Step::RenameIn { a, old, new } => laws::rename_in(a, *old, *new, r),
            Step::ProductThenDivide { .. }
            | Step::SublayoutIsZero { .. }
            | Step::SquareSublayoutIsIdentity { .. }
            | Step::IsTrivialOver { .. } => Err(ctx.fail(Law::Dims, "a layout, not an answer")),
        }
    }
}
