//! The scripting protocol: one JSON request in, one JSON answer out.
//!
//! A request is an object `{"op": NAME, ...arguments}`; layouts are written
//! in the [JSON shape](crate::format::json) of Triton's binding. The answer is
//! `{"ok": VALUE}` or `{"error": {"kind": KIND, "message": TEXT}}`, where
//! `KIND` is [`LayoutError::kind`] or one of `bad_json`, `bad_request`,
//! `unknown_op`. The CLI's `eval` command runs this over JSON Lines; the
//! oracle tests replay recorded Triton results through it.
//!
//! ```
//! use linear_layout::eval::eval_line;
//! let answer = eval_line(r#"{"op": "identity_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0"}"#);
//! assert_eq!(answer.to_string(), r#"{"ok":{"bases":[["lane",[[1],[2]]]],"out_dims":[["dim0",4]]}}"#);
//! ```

use crate::dim::{Dim, dim};
use crate::error::LayoutError;
use crate::format::json::LayoutJson;
use crate::layout::LinearLayout;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Why a request failed.
#[derive(Debug)]
pub struct EvalError {
    /// A machine-readable kind.
    pub kind: &'static str,
    /// A message for people.
    pub message: String,
}

impl From<LayoutError> for EvalError {
    fn from(e: LayoutError) -> Self {
        EvalError {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

fn bad(message: impl Into<String>) -> EvalError {
    EvalError {
        kind: "bad_request",
        message: message.into(),
    }
}

/// Answers one line of input (a JSON request) with one JSON value.
pub fn eval_line(line: &str) -> Value {
    let answer = match serde_json::from_str::<Value>(line) {
        Ok(request) => eval(&request),
        Err(e) => Err(EvalError {
            kind: "bad_json",
            message: e.to_string(),
        }),
    };
    match answer {
        Ok(value) => json!({ "ok": value }),
        Err(e) => json!({ "error": { "kind": e.kind, "message": e.message } }),
    }
}

/// The operations `eval` understands, for help texts.
pub const OPS: &[&str] = &[
    "from_bases",
    "identity_1d",
    "strided_1d",
    "zeros_1d",
    "product",
    "compose",
    "invert_and_compose",
    "invert",
    "pseudoinvert",
    "apply",
    "reshape_ins",
    "reshape_outs",
    "flatten_ins",
    "flatten_outs",
    "transpose_ins",
    "transpose_outs",
    "sublayout",
    "concat_ins",
    "concat_outs",
    "divide_left",
    "divide_right",
    "quotient",
    "free_variable_masks",
    "num_consecutive_in_out",
    "is_surjective",
    "is_injective",
    "is_invertible",
    "to_string",
    "parse",
];

struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl Args<'_> {
    fn get<T: DeserializeOwned>(&self, key: &str) -> Result<T, EvalError> {
        let v = self
            .map
            .get(key)
            .ok_or_else(|| bad(format!("missing argument `{key}`")))?;
        serde_json::from_value(v.clone()).map_err(|e| bad(format!("argument `{key}`: {e}")))
    }

    fn opt<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, EvalError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.get(key).map(Some),
        }
    }

    fn layout(&self, key: &str) -> Result<LinearLayout, EvalError> {
        let j: LayoutJson = self.get(key)?;
        Ok(LinearLayout::try_from(j)?)
    }

    fn dim(&self, key: &str) -> Result<Dim, EvalError> {
        Ok(dim(&self.get::<String>(key)?))
    }

    fn dims(&self, key: &str) -> Result<Vec<Dim>, EvalError> {
        Ok(self
            .get::<Vec<String>>(key)?
            .iter()
            .map(|s| dim(s))
            .collect())
    }

    fn dim_sizes(&self, key: &str) -> Result<Vec<(Dim, u64)>, EvalError> {
        Ok(self
            .get::<Vec<(String, u64)>>(key)?
            .iter()
            .map(|(s, n)| (dim(s), *n))
            .collect())
    }
}

fn layout_value(l: &LinearLayout) -> Value {
    serde_json::to_value(LayoutJson::from(l)).unwrap_or(Value::Null)
}

fn dim_values(pairs: impl IntoIterator<Item = (Dim, u64)>) -> Value {
    Value::Array(
        pairs
            .into_iter()
            .map(|(d, v)| json!([d.name(), v]))
            .collect(),
    )
}

/// Evaluates one parsed request.
pub fn eval(request: &Value) -> Result<Value, EvalError> {
    let map = request
        .as_object()
        .ok_or_else(|| bad("a request must be a JSON object"))?;
    let op = map
        .get("op")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("missing string field `op`"))?;
    let args = Args { map };
    let l = |v: LinearLayout| Ok(layout_value(&v));
    match op {
        "from_bases" => {
            let bases: Vec<(String, Vec<Vec<u64>>)> = args.get("bases")?;
            let bases: Vec<_> = bases.into_iter().map(|(n, v)| (dim(&n), v)).collect();
            let names = args.dims("out_dim_names")?;
            let require_surjective = args.opt::<bool>("require_surjective")?.unwrap_or(true);
            match args.opt::<Vec<u64>>("out_dim_sizes")? {
                // Like Triton's binding: inferred sizes always require a
                // surjective layout, so asking for anything else is an error.
                None if !require_surjective => Err(bad(
                    "out_dim_sizes must be provided when require_surjective is false",
                )),
                None => l(LinearLayout::from_bases(&bases, &names)?),
                Some(sizes) => {
                    if sizes.len() != names.len() {
                        return Err(LayoutError::WrongLength {
                            op: "from_bases",
                            what: "out_dim_sizes".into(),
                            got: sizes.len(),
                            expected: names.len(),
                        }
                        .into());
                    }
                    let outs: Vec<_> = names.into_iter().zip(sizes).collect();
                    l(LinearLayout::from_bases_with_sizes(
                        &bases,
                        &outs,
                        require_surjective,
                    )?)
                }
            }
        }
        "identity_1d" => l(LinearLayout::identity_1d(
            args.get("size")?,
            args.dim("in_dim")?,
            args.dim("out_dim")?,
        )?),
        "strided_1d" => l(LinearLayout::strided_1d(
            args.get("size")?,
            args.get("stride")?,
            args.dim("in_dim")?,
            args.dim("out_dim")?,
        )?),
        "zeros_1d" => l(LinearLayout::zeros_1d(
            args.get("size")?,
            args.dim("in_dim")?,
            args.dim("out_dim")?,
            args.opt("out_dim_size")?.unwrap_or(1),
        )?),
        "product" => l(args.layout("a")?.product(&args.layout("b")?)?),
        "compose" => l(args.layout("a")?.compose(&args.layout("b")?)?),
        "invert_and_compose" => l(args.layout("a")?.invert_and_compose(&args.layout("b")?)?),
        "invert" => l(args.layout("a")?.invert()?),
        "pseudoinvert" => l(args.layout("a")?.pseudoinvert()?),
        "apply" => {
            let a = args.layout("a")?;
            let input = args.dim_sizes("input")?;
            Ok(dim_values(a.apply(&input)?))
        }
        "reshape_ins" => l(args.layout("a")?.reshape_ins(&args.dim_sizes("dims")?)?),
        "reshape_outs" => l(args.layout("a")?.reshape_outs(&args.dim_sizes("dims")?)?),
        "flatten_ins" => l(args.layout("a")?.flatten_ins()?),
        "flatten_outs" => l(args.layout("a")?.flatten_outs()?),
        "transpose_ins" => l(args.layout("a")?.transpose_ins(&args.dims("order")?)?),
        "transpose_outs" => l(args.layout("a")?.transpose_outs(&args.dims("order")?)?),
        "sublayout" => l(args
            .layout("a")?
            .sublayout(&args.dims("ins")?, &args.dims("outs")?)?),
        "concat_ins" => l(args.layout("a")?.concat_ins(&args.layout("b")?)?),
        "concat_outs" => l(args.layout("a")?.concat_outs(&args.layout("b")?)?),
        "divide_left" => Ok(args
            .layout("a")?
            .divide_left(&args.layout("b")?)?
            .map_or(Value::Null, |c| layout_value(&c))),
        "divide_right" => Ok(args
            .layout("a")?
            .divide_right(&args.layout("b")?)?
            .map_or(Value::Null, |c| layout_value(&c))),
        "quotient" => Ok(args
            .layout("a")?
            .quotient(&args.dims("dims")?)?
            .map_or(Value::Null, |c| layout_value(&c))),
        "free_variable_masks" => Ok(dim_values(args.layout("a")?.free_variable_masks())),
        "num_consecutive_in_out" => Ok(json!(args.layout("a")?.num_consecutive_in_out())),
        "is_surjective" => Ok(json!(args.layout("a")?.is_surjective())),
        "is_injective" => Ok(json!(args.layout("a")?.is_injective())),
        "is_invertible" => Ok(json!(args.layout("a")?.is_invertible())),
        "to_string" => Ok(json!(args.layout("a")?.to_string())),
        "parse" => l(crate::format::parse_any(&args.get::<String>("text")?)?),
        other => Err(EvalError {
            kind: "unknown_op",
            message: format!("unknown op `{other}`; known ops: {}", OPS.join(", ")),
        }),
    }
}
