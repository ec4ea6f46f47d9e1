//! The scripting protocol: one JSON request in, one JSON answer out.
//!
//! A request is an object `{"op": NAME, ...arguments}`; layouts are written
//! in the [JSON shape](crate::format::json) of Triton's binding. The answer is
//! `{"ok": VALUE}` or `{"error": {"kind": KIND, "message": TEXT}}`, where
//! `KIND` is [`LayoutError::kind`] or one of `bad_json`, `bad_request`,
//! `unknown_op`, [`WRONG_RESULT`]. The CLI's `eval` command runs this over
//! JSON Lines; the oracle tests replay recorded Triton results through it.
//!
//! A request may add `"check": true`: after answering, the result is checked
//! against the brute-force [`reference`](crate::reference) (the operation's
//! laws, the invariants of every layout it returns, and that it did not
//! refuse operands meeting its preconditions). A violation is answered with
//! the kind [`WRONG_RESULT`] and the violation as message, instead of the
//! answer. For an operation that only reads its layout `a` (`apply`,
//! `is_injective`, …), the check is `a`'s invariants, which compare those
//! queries with the reference; constructors check the layout they build.
//! The operations of a [`Step`](crate::reference::Step) are the ones the `ops` fuzz target runs;
//! [`step_of`] and [`request`] convert between the two.
//!
//! ```
//! use linear_layout::eval::eval_line;
//! let answer = eval_line(r#"{"op": "identity_1d", "size": 4, "in_dim": "lane", "out_dim": "dim0"}"#);
//! assert_eq!(answer.to_string(), r#"{"ok":{"bases":[["lane",[[1],[2]]]],"out_dims":[["dim0",4]]}}"#);
//! ```

mod json;
mod ops;
mod steps;

use crate::dim::Dim;
use crate::error::LayoutError;
use crate::format::json::LayoutJson;
use crate::layout::LinearLayout;
use crate::reference::{Violation, invariants};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

pub use json::{parse_strict, typed};
pub use ops::{Arg, OpSpec, SPECS, describe};
pub use steps::{request, step_of};

/// The error kind of a `"check": true` request whose result breaks a law.
pub const WRONG_RESULT: &str = "wrong_result";

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

impl From<Violation> for EvalError {
    fn from(v: Violation) -> Self {
        EvalError {
            kind: WRONG_RESULT,
            message: v.to_string(),
        }
    }
}

fn bad(message: impl Into<String>) -> EvalError {
    EvalError {
        kind: "bad_request",
        message: message.into(),
    }
}

/// Answers one parsed request with one JSON value: `{"ok": VALUE}` or
/// `{"error": {"kind", "message"}}`.
pub fn answer(request: &Value) -> Value {
    match eval(request) {
        Ok(value) => json!({ "ok": value }),
        Err(e) => json!({ "error": { "kind": e.kind, "message": e.message } }),
    }
}

/// Answers one line of input (a JSON request) with one JSON value. The
/// line is read strictly ([`parse_strict`]): a key given twice is a
/// `bad_json` error, not the last one silently winning.
pub fn eval_line(line: &str) -> Value {
    let answer = match parse_strict(line) {
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

/// The names of the operations `eval` understands, for help texts.
pub fn op_names() -> Vec<&'static str> {
    SPECS.iter().map(|s| s.name).collect()
}

struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl Args<'_> {
    fn get<T: DeserializeOwned>(&self, key: &str) -> Result<T, EvalError> {
        let v = self
            .map
            .get(key)
            .ok_or_else(|| bad(format!("missing argument `{key}`")))?;
        typed(v).map_err(|e| match e.strip_prefix('`') {
            // `a` + `bases[0]`: one path from the request's top
            Some(path) if path.starts_with('[') => bad(format!("argument `{key}{path}")),
            Some(path) => bad(format!("argument `{key}.{path}")),
            None => bad(format!("argument `{key}`: {e}")),
        })
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
        named(&self.get::<String>(key)?)
    }

    fn dims(&self, key: &str) -> Result<Vec<Dim>, EvalError> {
        self.get::<Vec<String>>(key)?
            .iter()
            .map(|s| named(s))
            .collect()
    }

    fn dim_sizes(&self, key: &str) -> Result<Vec<(Dim, u64)>, EvalError> {
        self.get::<Vec<(String, u64)>>(key)?
            .iter()
            .map(|(s, n)| Ok((named(s)?, *n)))
            .collect()
    }
}

/// A dim name from a request, interned within the process's bound
/// ([`Dim::try_new`]).
fn named(name: &str) -> Result<Dim, EvalError> {
    Ok(Dim::try_new(name)?)
}

/// Named bases from a request.
fn named_bases(bases: Vec<(String, Vec<Vec<u64>>)>) -> Result<crate::Bases, EvalError> {
    bases
        .into_iter()
        .map(|(n, v)| Ok((named(&n)?, v)))
        .collect()
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

/// A request's `op` and its arguments; a request that is not an object,
/// has no string `op`, names an unknown one or an argument the operation
/// does not take, is an error.
fn op_and_args(request: &Value) -> Result<(&str, Args<'_>), EvalError> {
    let map = request
        .as_object()
        .ok_or_else(|| bad("a request must be a JSON object"))?;
    let op = map
        .get("op")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("missing string field `op`"))?;
    let spec = ops::spec(op).ok_or_else(|| EvalError {
        kind: "unknown_op",
        message: format!("unknown op `{op}`; known ops: {}", op_names().join(", ")),
    })?;
    if let Some(key) = ops::unknown_key(spec, map.keys()) {
        let takes: Vec<&str> = spec.args.iter().map(|a| a.name).collect();
        return Err(bad(format!(
            "`{op}` takes no argument `{key}` (it takes {}; `eval --describe` lists every op's)",
            takes.join(", ")
        )));
    }
    Ok((op, Args { map }))
}

/// Evaluates one parsed request (checking the result when it asks for
/// `"check": true`).
pub fn eval(request: &Value) -> Result<Value, EvalError> {
    let (op, args) = op_and_args(request)?;
    let check = args.opt::<bool>("check")?.unwrap_or(false);
    if let Some(step) = steps::parse(op, &args)? {
        let outcome = step.run();
        if check {
            step.check(&outcome)?;
        }
        return Ok(steps::outcome_value(outcome?));
    }
    let answer = other(op, &args)?;
    if check {
        let checked = match &answer {
            Answer::Layout(l) => invariants(l),
            // A query's invariants compare the queries on `a` with the
            // reference.
            Answer::Query(a, _) => invariants(a),
        };
        checked.map_err(|v| v.in_op(ops::spec(op).map_or("eval", |s| s.name)))?;
    }
    Ok(match answer {
        Answer::Layout(l) => layout_value(&l),
        Answer::Query(_, v) => v,
    })
}

/// The answer of an operation that is not a step.
enum Answer {
    /// A constructed layout.
    Layout(LinearLayout),
    /// A query's value, with the layout `a` it was asked of.
    Query(LinearLayout, Value),
}

/// A query of the request's layout `a`: its value, kept with `a` for the
/// check.
fn query(
    args: &Args<'_>,
    ask: impl FnOnce(&LinearLayout) -> Result<Value, EvalError>,
) -> Result<Answer, EvalError> {
    let a = args.layout("a")?;
    let value = ask(&a)?;
    Ok(Answer::Query(a, value))
}

/// The operations that are not steps: constructors and queries.
fn other(op: &str, args: &Args<'_>) -> Result<Answer, EvalError> {
    let l = |v: LinearLayout| Ok(Answer::Layout(v));
    match op {
        "from_bases" => {
            // With `out_dim_sizes`, a `Step` (see `steps::parse`).
            let bases: Vec<(String, Vec<Vec<u64>>)> = args.get("bases")?;
            let names: Vec<String> = args.get("out_dim_names")?;
            // counted before any name is interned
            LinearLayout::check_dim_counts("from_bases", bases.len(), names.len())?;
            let bases = named_bases(bases)?;
            let names = names
                .iter()
                .map(|n| named(n))
                .collect::<Result<Vec<_>, _>>()?;
            let require_surjective = args.opt::<bool>("require_surjective")?.unwrap_or(true);
            // Like Triton's binding: inferred sizes always require a
            // surjective layout, so asking for anything else is an error.
            if !require_surjective {
                return Err(bad(
                    "out_dim_sizes must be provided when require_surjective is false",
                ));
            }
            l(LinearLayout::from_bases(&bases, &names)?)
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
        "apply" => query(args, |a| {
            Ok(dim_values(a.apply(&args.dim_sizes("input")?)?))
        }),
        "free_variable_masks" => query(args, |a| Ok(dim_values(a.free_variable_masks()))),
        "num_consecutive_in_out" => query(args, |a| Ok(json!(a.num_consecutive_in_out()))),
        "is_surjective" => query(args, |a| Ok(json!(a.is_surjective()))),
        "is_injective" => query(args, |a| Ok(json!(a.is_injective()))),
        "is_invertible" => query(args, |a| Ok(json!(a.is_invertible()))),
        "to_string" => query(args, |a| Ok(json!(a.to_string()))),
        "parse" => l(crate::format::parse_any(&args.get::<String>("text")?)?),
        other => Err(EvalError {
            kind: "unknown_op",
            message: format!("unknown op `{other}`; known ops: {}", op_names().join(", ")),
        }),
    }
}
