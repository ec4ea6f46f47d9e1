//! The requests that are [`Step`]s: parsing them, writing them back, and
//! answering with an [`StepOutput`].

use super::{Args, EvalError, layout_value};
use crate::dim::Dim;
use crate::error::LayoutError;
use crate::layout::LinearLayout;
use crate::reference::{Step, StepOutput};
use serde_json::{Map, Value, json};

/// The step a request asks for; `None` for an operation that is not a
/// [`Step`] (a constructor other than `from_bases` with sizes, or a query
/// such as `apply`). A request that is not an object, or has no `op`, is a
/// `bad_request`.
pub fn step_of(request: &Value) -> Result<Option<Step>, EvalError> {
    let (op, args) = super::op_and_args(request)?;
    parse(op, &args)
}

pub(super) fn parse(op: &str, args: &Args<'_>) -> Result<Option<Step>, EvalError> {
    let a = || args.layout("a");
    let b = || args.layout("b");
    Ok(Some(match op {
        "from_bases" => {
            let Some(sizes) = args.opt::<Vec<u64>>("out_dim_sizes")? else {
                return Ok(None);
            };
            let bases: Vec<(String, Vec<Vec<u64>>)> = args.get("bases")?;
            LinearLayout::check_dim_counts("from_bases", bases.len(), sizes.len())?;
            let names = args.dims("out_dim_names")?;
            if sizes.len() != names.len() {
                return Err(LayoutError::WrongLength {
                    op: "from_bases",
                    what: "out_dim_sizes".into(),
                    got: sizes.len(),
                    expected: names.len(),
                }
                .into());
            }
            Step::FromBases {
                bases: super::named_bases(bases)?,
                out_dims: names.into_iter().zip(sizes).collect(),
                require_surjective: args.opt::<bool>("require_surjective")?.unwrap_or(true),
            }
        }
        "compose" => Step::Compose { a: a()?, b: b()? },
        "invert_and_compose" => Step::InvertAndCompose { a: a()?, b: b()? },
        "product" => Step::Product { a: a()?, b: b()? },
        "invert" => Step::Invert { a: a()? },
        "pseudoinvert" => Step::Pseudoinvert { a: a()? },
        "reshape_ins" => Step::ReshapeIns {
            a: a()?,
            dims: args.dim_sizes("dims")?,
        },
        "reshape_outs" => Step::ReshapeOuts {
            a: a()?,
            dims: args.dim_sizes("dims")?,
        },
        "flatten_ins" => Step::FlattenIns { a: a()? },
        "flatten_outs" => Step::FlattenOuts { a: a()? },
        "transpose_ins" => Step::TransposeIns {
            a: a()?,
            order: args.dims("order")?,
        },
        "transpose_outs" => Step::TransposeOuts {
            a: a()?,
            order: args.dims("order")?,
        },
        "sublayout" => Step::Sublayout {
            a: a()?,
            ins: args.dims("ins")?,
            outs: args.dims("outs")?,
        },
        "concat_ins" => Step::ConcatIns { a: a()?, b: b()? },
        "concat_outs" => Step::ConcatOuts { a: a()?, b: b()? },
        "divide_left" => Step::DivideLeft { a: a()?, b: b()? },
        "divide_right" => Step::DivideRight { a: a()?, b: b()? },
        "product_then_divide" => Step::ProductThenDivide { a: a()?, b: b()? },
        "quotient" => Step::Quotient {
            a: a()?,
            dims: args.dims("dims")?,
        },
        "remove_zero_bases_along_dim" => Step::RemoveZeroBases {
            a: a()?,
            dim: args.dim("dim")?,
        },
        "squeeze_ins" => Step::SqueezeIns {
            a: a()?,
            dim: args.dim("dim")?,
        },
        "squeeze_outs" => Step::SqueezeOuts {
            a: a()?,
            dim: args.dim("dim")?,
        },
        "resize_in_dim" => Step::ResizeIn {
            a: a()?,
            dim: args.dim("dim")?,
            size: args.get("size")?,
        },
        "resize_out_dim" => Step::ResizeOut {
            a: a()?,
            dim: args.dim("dim")?,
            size: args.get("size")?,
        },
        "rename_in_dim" => Step::RenameIn {
            a: a()?,
            old: args.dim("old")?,
            new: args.dim("new")?,
        },
        "sublayout_is_zero" => Step::SublayoutIsZero {
            a: a()?,
            ins: args.dims("ins")?,
            outs: args.dims("outs")?,
        },
        "square_sublayout_is_identity" => Step::SquareSublayoutIsIdentity {
            a: a()?,
            dims: args.dims("dims")?,
        },
        "is_trivial_over" => Step::IsTrivialOver {
            a: a()?,
            dims: args.dims("dims")?,
        },
        _ => return Ok(None),
    }))
}

fn names(dims: &[Dim]) -> Value {
    dims.iter().map(|d| d.name()).collect()
}

fn sizes(dims: &[(Dim, u64)]) -> Value {
    dims.iter().map(|(d, s)| json!([d.name(), s])).collect()
}

/// The `eval` request for `step` (with `"check": true` when `check`).
/// [`step_of`] reads it back as the same step.
pub fn request(step: &Step, check: bool) -> Value {
    let mut m = Map::new();
    m.insert("op".into(), json!(step.op()));
    let mut put = |k: &str, v: Value| {
        m.insert(k.into(), v);
    };
    let lay = |l: &LinearLayout| layout_value(l);
    match step {
        Step::FromBases {
            bases,
            out_dims,
            require_surjective,
        } => {
            put(
                "bases",
                bases.iter().map(|(d, v)| json!([d.name(), v])).collect(),
            );
            put(
                "out_dim_names",
                out_dims.iter().map(|(d, _)| d.name()).collect(),
            );
            put("out_dim_sizes", out_dims.iter().map(|d| d.1).collect());
            put("require_surjective", json!(require_surjective));
        }
        Step::Compose { a, b }
        | Step::InvertAndCompose { a, b }
        | Step::Product { a, b }
        | Step::ConcatIns { a, b }
        | Step::ConcatOuts { a, b }
        | Step::DivideLeft { a, b }
        | Step::DivideRight { a, b }
        | Step::ProductThenDivide { a, b } => {
            put("a", lay(a));
            put("b", lay(b));
        }
        Step::Invert { a }
        | Step::Pseudoinvert { a }
        | Step::FlattenIns { a }
        | Step::FlattenOuts { a } => put("a", lay(a)),
        Step::ReshapeIns { a, dims } | Step::ReshapeOuts { a, dims } => {
            put("a", lay(a));
            put("dims", sizes(dims));
        }
        Step::TransposeIns { a, order } | Step::TransposeOuts { a, order } => {
            put("a", lay(a));
            put("order", names(order));
        }
        Step::Sublayout { a, ins, outs } | Step::SublayoutIsZero { a, ins, outs } => {
            put("a", lay(a));
            put("ins", names(ins));
            put("outs", names(outs));
        }
        Step::Quotient { a, dims }
        | Step::SquareSublayoutIsIdentity { a, dims }
        | Step::IsTrivialOver { a, dims } => {
            put("a", lay(a));
            put("dims", names(dims));
        }
        Step::RemoveZeroBases { a, dim }
        | Step::SqueezeIns { a, dim }
        | Step::SqueezeOuts { a, dim } => {
            put("a", lay(a));
            put("dim", json!(dim.name()));
        }
        Step::ResizeIn { a, dim, size } | Step::ResizeOut { a, dim, size } => {
            put("a", lay(a));
            put("dim", json!(dim.name()));
            put("size", json!(size));
        }
        Step::RenameIn { a, old, new } => {
            put("a", lay(a));
            put("old", json!(old.name()));
            put("new", json!(new.name()));
        }
    }
    if check {
        put("check", json!(true));
    }
    Value::Object(m)
}

/// The `ok` value of an outcome.
pub(super) fn outcome_value(outcome: StepOutput) -> Value {
    let maybe = |l: Option<LinearLayout>| l.map_or(Value::Null, |l| layout_value(&l));
    match outcome {
        StepOutput::Layout(l) => layout_value(&l),
        StepOutput::Maybe(l) => maybe(l),
        StepOutput::Bool(b) => json!(b),
        StepOutput::Divided {
            product,
            left,
            right,
        } => json!({"product": layout_value(&product), "left": maybe(left), "right": maybe(right)}),
    }
}
