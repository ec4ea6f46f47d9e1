//! Shrinking a failing `eval` request to the smallest one that still fails
//! the same way, and printing it as a Rust test and as a Python snippet
//! against Triton's binding.
//!
//! "Failing" means: answering the request panics (a bug of ours, kind
//! [`PANIC`]: what an `eval` fuzz crash holds), or it is answered with an
//! error of a given kind: for a request with `"check": true`,
//! [`WRONG_RESULT`] when the result breaks a law of the brute-force
//! [`reference`](crate::reference). The shrinker removes in-dims, bases and
//! out-dims of the request's layouts (under a key such as `a`, or at the top
//! of a `from_bases` request) and names from its dim-list arguments, one at
//! a time, keeping a change whenever the request still fails the same way,
//! until no single removal does.
//!
//! A trace is JSON Lines of requests (or of `{"request", ...}` records, as
//! the oracle files hold), or one request spread over several lines, as an
//! `eval` fuzz artifact may be. An `ops` fuzz artifact is binary: it is
//! decoded as a [`fuzzing::Input`](crate::fuzzing::Input) and run step by
//! step ([`Shrinker::first_ops_failure`]); the first step that panics or
//! breaks a law becomes an `eval` request with `"check": true`, shrunk like
//! any other.
//!
//! A [`Shrinker`] answers requests with [`eval`] unless given another
//! evaluator ([`Shrinker::with_evaluator`]): that is how tests exercise the
//! machinery with a deliberately wrong result, since the crate has no known
//! wrong answer to shrink.

use crate::eval::{EvalError, WRONG_RESULT, eval};
use serde_json::Value;
use std::panic::catch_unwind;

/// The failure kind of a request whose answer panicked.
pub const PANIC: &str = "panic";

/// Answers one request: [`eval`], or a stand-in in tests.
pub type Evaluator = fn(&Value) -> Result<Value, EvalError>;

/// The most answers one shrink asks for (a shrink of a real failing
/// request takes hundreds): a request with many removable parts stops
/// there, with the smallest failing request found.
pub const MAX_EVALUATIONS: usize = 100_000;

/// The largest request, as JSON text, the `shrink-trace` command shrinks:
/// each candidate is a copy of it, and a failing request worth shrinking
/// is a few kilobytes.
pub const MAX_SHRINK_BYTES: usize = 64 << 10;

/// A shrunk request.
#[derive(Clone, Debug, PartialEq)]
pub struct Shrunk {
    /// The smallest failing request found.
    pub request: Value,
    /// Whether no single removal keeps it failing (false: the budget ran
    /// out first).
    pub complete: bool,
}

/// One removal, applied to a copy of the request.
type Removal = Box<dyn Fn(&mut Value)>;

/// Finds and shrinks failing requests, answering them with an
/// [`Evaluator`].
#[derive(Clone, Copy)]
pub struct Shrinker {
    eval: Evaluator,
}

impl Default for Shrinker {
    fn default() -> Self {
        Shrinker { eval }
    }
}

impl Shrinker {
    /// A shrinker answering requests with `eval` instead of this crate's
    /// [`eval`] (for tests that inject a wrong result).
    pub fn with_evaluator(eval: Evaluator) -> Self {
        Shrinker { eval }
    }

    /// How a request fails: [`PANIC`], or the error kind of its answer.
    /// Panics are caught here; the caller may silence the panic hook (the
    /// `shrink-trace` command does), since shrinking replays the panic many
    /// times.
    pub fn failure_kind(&self, request: &Value) -> Option<String> {
        match self.answer(request) {
            Err(EvalError { kind, .. }) => Some(kind.to_string()),
            Ok(_) => None,
        }
    }

    /// The answer to `request`, a panic turned into an error of kind
    /// [`PANIC`].
    pub fn answer(&self, request: &Value) -> Result<Value, EvalError> {
        catch_unwind(|| (self.eval)(request)).unwrap_or_else(|_| {
            Err(EvalError {
                kind: PANIC,
                message: "answering the request panicked".into(),
            })
        })
    }

    /// The smallest request (by removals) that still fails with `kind`,
    /// within [`MAX_EVALUATIONS`] answers.
    pub fn shrink(&self, request: &Value, kind: &str) -> Value {
        self.shrink_within(request, kind, MAX_EVALUATIONS).request
    }

    /// Shrinks `request` as [`Shrinker::shrink`] does, answering at most
    /// `budget` candidates: each round tries every request one removal
    /// smaller, built one at a time (memory: two requests, not one per
    /// candidate), and keeps the smallest that still fails with `kind`.
    /// When the budget runs out, the smallest found so far, marked
    /// incomplete.
    pub fn shrink_within(&self, request: &Value, kind: &str, budget: usize) -> Shrunk {
        let mut best = request.clone();
        let mut best_size = size(&best);
        let mut left = budget;
        loop {
            let mut next: Option<(Value, usize)> = None;
            let mut complete = true;
            for change in removals(&best) {
                if left == 0 {
                    complete = false;
                    break;
                }
                left -= 1;
                let mut candidate = best.clone();
                change(&mut candidate);
                if self.failure_kind(&candidate).as_deref() != Some(kind) {
                    continue;
                }
                let candidate_size = size(&candidate);
                if next.as_ref().is_none_or(|(_, s)| candidate_size < *s) {
                    next = Some((candidate, candidate_size));
                }
            }
            match next {
                Some((r, s)) if s < best_size => {
                    best = r;
                    best_size = s;
                }
                _ => {
                    return Shrunk {
                        request: best,
                        complete,
                    };
                }
            }
            if !complete {
                return Shrunk {
                    request: best,
                    complete,
                };
            }
        }
    }

    /// Reads a trace (JSON Lines of requests, or of `{"request", ...}`
    /// records, or one request over several lines) and returns the first
    /// failing request with its kind.
    pub fn first_failure(&self, text: &str) -> Option<(Value, String)> {
        let failing = |v: Value| {
            let req = v.get("request").cloned().unwrap_or(v);
            self.failure_kind(&req).map(|k| (req, k))
        };
        json_requests(text).into_iter().find_map(failing)
    }

    /// Runs an `ops` fuzz input step by step, each step as an `eval`
    /// request with `"check": true`, and returns the first that panics or
    /// answers [`WRONG_RESULT`], with that kind. Errors are fine outcomes
    /// of a step, as in the fuzz target. `Err` when the interpreter itself
    /// panicked outside any step.
    #[cfg(feature = "fuzzing")]
    pub fn first_ops_failure(
        &self,
        input: &crate::fuzzing::Input,
    ) -> Result<Option<(Value, String)>, String> {
        use crate::reference::StepOutput;
        use std::panic::AssertUnwindSafe;
        let mut found = None;
        let run = catch_unwind(AssertUnwindSafe(|| {
            crate::fuzzing::run_with(input, |step| {
                let req = crate::eval::request(step, true);
                match self.failure_kind(&req) {
                    Some(k) if k == PANIC || k == WRONG_RESULT => {
                        found = Some((req, k));
                        Err(())
                    }
                    // The run goes on with the step's own result. (Through
                    // this crate's `eval` the step just ran without a panic;
                    // a custom evaluator's verdict says nothing about it.)
                    _ => Ok(step.run().ok().and_then(StepOutput::into_layout)),
                }
            })
        }));
        match run {
            Ok(_) => Ok(found),
            Err(_) => Err("the ops interpreter panicked outside any step".into()),
        }
    }
}

/// The requests of a JSON trace: one per line that parses as an object,
/// or the whole text as one value. Empty when the text is not JSON.
pub fn json_requests(text: &str) -> Vec<Value> {
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| crate::eval::parse_strict(l).ok())
        .filter(Value::is_object)
        .collect();
    if lines.is_empty() {
        // Not JSON Lines: the whole text may be one request.
        return crate::eval::parse_strict(text)
            .into_iter()
            .filter(Value::is_object)
            .collect();
    }
    lines
}

/// Every removal that makes `req` one part smaller, to apply to a copy of
/// it.
fn removals(req: &Value) -> Vec<Removal> {
    let mut out: Vec<Removal> = Vec::new();
    let Some(obj) = req.as_object() else {
        return out;
    };
    // Layouts sit under keys (`a`, `b`), or at the top of a `from_bases`
    // request; they are addressed by JSON pointer ("" is the request).
    let mut layouts: Vec<String> = Vec::new();
    if obj.contains_key("bases") {
        layouts.push(String::new());
    }
    for (key, value) in obj {
        if value.get("bases").is_some() {
            layouts.push(format!("/{}", key.replace('~', "~0").replace('/', "~1")));
        }
    }
    for path in &layouts {
        layout_removals(req, path, &mut out);
    }
    // Drop one name from a dim-list argument (`dims`, `ins`, `order`, ...).
    for (key, value) in obj {
        let Some(names) = value.as_array() else {
            continue;
        };
        if names.is_empty() || !names.iter().all(Value::is_string) {
            continue;
        }
        for i in 0..names.len() {
            let key = key.clone();
            out.push(Box::new(move |r: &mut Value| {
                if let Some(list) = r[&key].as_array_mut() {
                    list.remove(i);
                }
            }));
        }
    }
    out
}

/// Every removal of one in-dim, basis or out-dim of the layout at JSON
/// pointer `path`.
fn layout_removals(req: &Value, path: &str, out: &mut Vec<Removal>) {
    let bases_at = format!("{path}/bases");
    let Some(bases) = req.pointer(&bases_at).and_then(Value::as_array) else {
        return;
    };
    // The out-dims: `out_dims` pairs in a layout, or the parallel
    // `out_dim_names` and `out_dim_sizes` of a top-level `from_bases`.
    let out_lists: std::rc::Rc<Vec<String>> = std::rc::Rc::new(
        ["out_dims", "out_dim_names", "out_dim_sizes"]
            .iter()
            .map(|key| format!("{path}/{key}"))
            .filter(|at| req.pointer(at).is_some_and(Value::is_array))
            .collect(),
    );
    let out_dims = out_lists
        .first()
        .and_then(|at| req.pointer(at))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let bases_at = std::rc::Rc::new(bases_at);
    // Drop a whole in-dim.
    for d in 0..bases.len() {
        let bases_at = bases_at.clone();
        out.push(Box::new(move |r: &mut Value| {
            if let Some(b) = r.pointer_mut(&bases_at).and_then(Value::as_array_mut) {
                b.remove(d);
            }
        }));
    }
    // Drop one basis.
    for (d, dim) in bases.iter().enumerate() {
        let n = dim.get(1).and_then(Value::as_array).map_or(0, Vec::len);
        for i in 0..n {
            let at = format!("{bases_at}/{d}/1");
            out.push(Box::new(move |r: &mut Value| {
                if let Some(v) = r.pointer_mut(&at).and_then(Value::as_array_mut) {
                    v.remove(i);
                }
            }));
        }
    }
    // Drop an out-dim (and its component in every basis).
    for k in 0..out_dims {
        let (bases_at, out_lists) = (bases_at.clone(), out_lists.clone());
        out.push(Box::new(move |r: &mut Value| {
            for at in out_lists.iter() {
                if let Some(o) = r.pointer_mut(at).and_then(Value::as_array_mut) {
                    if k < o.len() {
                        o.remove(k);
                    }
                }
            }
            let Some(b) = r.pointer_mut(&bases_at).and_then(Value::as_array_mut) else {
                return;
            };
            for dim in b.iter_mut() {
                let Some(vs) = dim.get_mut(1).and_then(Value::as_array_mut) else {
                    continue;
                };
                for c in vs.iter_mut().filter_map(Value::as_array_mut) {
                    if k < c.len() {
                        c.remove(k);
                    }
                }
            }
        }));
    }
}

fn size(req: &Value) -> usize {
    req.to_string().len()
}

fn rust_layout(lay: &Value) -> String {
    let bases: Vec<String> = lay["bases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            let vecs: Vec<String> = d[1]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| format!("vec!{}", v.to_string().replace(',', ", ")))
                .collect();
            format!("(dim({}), vec![{}])", d[0], vecs.join(", "))
        })
        .collect();
    let outs: Vec<String> = lay["out_dims"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| format!("(dim({}), {})", o[0], o[1]))
        .collect();
    format!(
        "LinearLayout::from_bases_with_sizes(&[{}], &[{}], false)?",
        bases.join(", "),
        outs.join(", ")
    )
}

/// The shrunk request as a Rust test (against this crate's `eval`, which
/// covers every op, plus the layouts spelled out for reading).
pub fn as_rust_test(req: &Value, kind: &str) -> String {
    if kind == PANIC {
        // The regression test for a panic: any answer at all is right.
        return format!(
            "#[test]\nfn shrunk_trace_does_not_panic() {{\n    let request = serde_json::json!({req});\n    // This panicked; a layout or a typed error are both fine.\n    let _ = linear_layout::eval::eval(&request);\n}}\n"
        );
    }
    if kind == WRONG_RESULT {
        // The regression test for a broken law: the checked request must
        // not answer `wrong_result`. Any other answer (a layout, or an
        // error where the law allows one) is right, so the test fails
        // exactly while the result is wrong, whatever the fix looks like.
        return format!(
            "#[test]\nfn shrunk_trace_keeps_its_law() {{\n    // `\"check\": true` runs the brute-force reference on the result.\n    let request = serde_json::json!({req});\n    let answer = linear_layout::eval::eval(&request);\n    assert!(\n        !matches!(&answer, Err(e) if e.kind == linear_layout::eval::WRONG_RESULT),\n        \"{{answer:?}}\"\n    );\n}}\n"
        );
    }
    let mut s = String::from(
        "#[test]\nfn shrunk_trace() -> Result<(), linear_layout::LayoutError> {\n    use linear_layout::{LinearLayout, dim};\n",
    );
    if let Some(obj) = req.as_object() {
        for (key, v) in obj {
            if v.get("bases").is_some() {
                s.push_str(&format!("    let _{key} = {};\n", rust_layout(v)));
            }
        }
    }
    s.push_str(&format!(
        "    let request = serde_json::json!({req});\n    let err = linear_layout::eval::eval(&request).unwrap_err();\n    assert_eq!(err.kind, {kind:?});\n    Ok(())\n}}\n"
    ));
    s
}

/// Python that checks a law of the binding's result by brute force on
/// `apply`, for the ops the binding has; `r` is the result.
fn python_law(op: &str) -> Option<&'static str> {
    Some(match op {
        "compose" => {
            "a, b = build(req['a']), build(req['b'])\nfor x in inputs(a):\n    mid = dict(a.apply(x))\n    want = b.apply([(n, mid.get(n, 0)) for n, _ in b.bases])\n    assert r.apply(x) == want, (x, r.apply(x), want)\n"
        }
        "invert_and_compose" => {
            "a, b = build(req['a']), build(req['b'])\nfor x in inputs(a):\n    assert dict(b.apply(r.apply(x))) == dict(a.apply(x)), x\n"
        }
        "invert" | "pseudoinvert" => {
            "a = build(req['a'])\nfor y in itertools.product(*[[(n, v) for v in range(s)] for n, s in a.out_dims]):\n    assert dict(a.apply(r.apply(list(y)))) == dict(y), y\n"
        }
        _ => return None,
    })
}

/// The shrunk request as a Python snippet against Triton's binding. For a
/// `"check": true` request on `compose`, `invert_and_compose`, `invert` or
/// `pseudoinvert`, the snippet also checks the law by brute force.
pub fn as_python(req: &Value) -> String {
    let op = req["op"].as_str().unwrap_or("?");
    let mut s = String::from(
        "import itertools, json\nfrom triton._C.libtriton.linear_layout import LinearLayout as L\n\ndef build(j):\n    return L.from_bases(j['bases'], [n for n, _ in j['out_dims']], [s for _, s in j['out_dims']], False)\n\ndef inputs(lay):\n    return [list(x) for x in itertools.product(*[[(n, v) for v in range(1 << len(b))] for n, b in lay.bases])]\n\n",
    );
    s.push_str(&format!("req = json.loads(r'''{req}''')\n"));
    let call = match op {
        "from_bases" => {
            "L.from_bases(req['bases'], req['out_dim_names'], req.get('out_dim_sizes'), req.get('require_surjective', True))"
        }
        "product" => "build(req['a']) * build(req['b'])",
        "compose" => "build(req['a']).compose(build(req['b']))",
        "invert_and_compose" => "build(req['a']).invert_and_compose(build(req['b']))",
        "invert" => "build(req['a']).invert()",
        "pseudoinvert" => "build(req['a']).pseudoinvert()",
        "apply" => "build(req['a']).apply([tuple(p) for p in req['input']])",
        "is_surjective" | "is_injective" | "is_invertible" => {
            "getattr(build(req['a']), req['op'])()"
        }
        "to_string" => "str(build(req['a']))",
        _ => "build(req['a'])  # this op is not in Triton's binding",
    };
    s.push_str(&format!("r = {call}\nprint(r)\n"));
    if req.get("check") == Some(&Value::Bool(true)) {
        match python_law(op) {
            Some(law) => {
                s.push_str("# The law `check` tests, by brute force on apply:\n");
                s.push_str(law);
                s.push_str("print('law holds')\n");
            }
            None => s.push_str(
                "# `check`'s law for this op is not spelled out here: see linear_layout::reference.\n",
            ),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_top_level_from_bases_request_shrinks_bases_and_out_dims_together() {
        let sh = Shrinker::default();
        // dim0 needs 4 bits but the bases reach 3 of them: not surjective.
        let req = json!({
            "op": "from_bases",
            "bases": [["register", [[1, 0], [2, 0], [0, 1]]], ["lane", [[4, 0]]]],
            "out_dim_names": ["dim0", "dim1"],
            "out_dim_sizes": [16, 2],
        });
        let kind = sh.failure_kind(&req).expect("fails");
        assert_eq!(kind, "not_surjective");
        let small = sh.shrink(&req, &kind);
        assert_eq!(sh.failure_kind(&small).as_deref(), Some("not_surjective"));
        // No basis is needed, and one out-dim is enough; names, sizes and
        // components stayed parallel (else the kind would have changed).
        assert_eq!(small["bases"], json!([]), "{small}");
        assert_eq!(small["out_dim_names"].as_array().map(Vec::len), Some(1));
        assert_eq!(small["out_dim_sizes"].as_array().map(Vec::len), Some(1));
        assert!(as_python(&small).contains("L.from_bases(req['bases']"));
    }

    #[test]
    fn dim_list_arguments_shrink() {
        let sh = Shrinker::default();
        // Unknown dims in a sublayout's list. The shrinker keeps any request
        // that fails the same way, so it may find a smaller cause; the list
        // must at least have lost names.
        let req = json!({
            "op": "sublayout_is_zero",
            "a": {"bases": [["register", [[1]]]], "out_dims": [["dim0", 2]]},
            "ins": ["register", "nope1", "nope2"],
            "outs": ["dim0"],
        });
        let kind = sh.failure_kind(&req).expect("fails");
        let small = sh.shrink(&req, &kind);
        assert_eq!(sh.failure_kind(&small).as_deref(), Some(kind.as_str()));
        let left = small["ins"].as_array().map_or(3, Vec::len);
        assert!(left < 3, "{small}");
    }
}
