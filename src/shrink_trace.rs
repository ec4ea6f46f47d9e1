//! Shrinking a failing `eval` request to the smallest one that still fails
//! the same way, and printing it as a Rust test and as a Python snippet
//! against Triton's binding.
//!
//! "Failing" means: answering the request panics (a bug of ours, kind
//! [`PANIC`]: what an `eval` fuzz crash holds), or it is answered with an
//! error of a given kind. The shrinker removes in-dims, bases and out-dims
//! of the request's layouts one at a time, keeping a change whenever the
//! request still fails the same way, until no single removal does.
//!
//! A trace is JSON Lines of requests (or of `{"request", ...}` records, as
//! the oracle files hold), or one request spread over several lines, as an
//! `eval` fuzz artifact may be.

use crate::eval::{EvalError, eval};
use serde_json::{Value, json};

/// The failure kind of a request whose answer panicked.
pub const PANIC: &str = "panic";

/// How a request fails: [`PANIC`], or the error kind our `eval` answers
/// with. Panics are caught here; the caller may silence the panic hook
/// (the `shrink-trace` command does), since shrinking replays the panic many
/// times.
pub fn failure_kind(request: &Value) -> Option<String> {
    match std::panic::catch_unwind(|| eval(request)) {
        Err(_) => Some(PANIC.to_string()),
        Ok(Err(EvalError { kind, .. })) => Some(kind.to_string()),
        Ok(Ok(_)) => None,
    }
}

/// Every request one removal smaller than `req`.
fn smaller(req: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let Some(obj) = req.as_object() else {
        return out;
    };
    for (key, lay) in obj {
        let Some(bases) = lay.get("bases").and_then(Value::as_array) else {
            continue;
        };
        let out_dims = lay
            .get("out_dims")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        // Drop a whole in-dim.
        for d in 0..bases.len() {
            let mut r = req.clone();
            if let Some(b) = r[key]["bases"].as_array_mut() {
                b.remove(d);
            }
            out.push(r);
        }
        // Drop one basis.
        for (d, dim) in bases.iter().enumerate() {
            let n = dim.get(1).and_then(Value::as_array).map_or(0, Vec::len);
            for i in 0..n {
                let mut r = req.clone();
                if let Some(v) = r[key]["bases"][d][1].as_array_mut() {
                    v.remove(i);
                }
                out.push(r);
            }
        }
        // Drop an out-dim (and its component in every basis).
        for k in 0..out_dims.len() {
            let mut r = req.clone();
            if let Some(o) = r[key]["out_dims"].as_array_mut() {
                o.remove(k);
            }
            if let Some(b) = r[key]["bases"].as_array_mut() {
                for dim in b.iter_mut() {
                    if let Some(vs) = dim.get_mut(1).and_then(Value::as_array_mut) {
                        for v in vs.iter_mut() {
                            if let Some(c) = v.as_array_mut() {
                                if k < c.len() {
                                    c.remove(k);
                                }
                            }
                        }
                    }
                }
            }
            out.push(r);
        }
    }
    out
}

fn size(req: &Value) -> usize {
    req.to_string().len()
}

/// The smallest request (by removals) that still fails with `kind`.
pub fn shrink(request: &Value, kind: &str) -> Value {
    let mut best = request.clone();
    loop {
        let next = smaller(&best)
            .into_iter()
            .filter(|r| failure_kind(r).as_deref() == Some(kind))
            .min_by_key(size);
        match next {
            Some(r) if size(&r) < size(&best) => best = r,
            _ => return best,
        }
    }
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

/// The shrunk request as a Python snippet against Triton's binding.
pub fn as_python(req: &Value) -> String {
    let op = req["op"].as_str().unwrap_or("?");
    let mut s = String::from(
        "import json\nfrom triton._C.libtriton.linear_layout import LinearLayout as L\n\ndef build(j):\n    return L.from_bases(j['bases'], [n for n, _ in j['out_dims']], [s for _, s in j['out_dims']], False)\n\n",
    );
    s.push_str(&format!("req = json.loads(r'''{req}''')\n"));
    let call = match op {
        "product" => "build(req['a']) * build(req['b'])",
        "compose" => "build(req['a']).compose(build(req['b']))",
        "invert_and_compose" => "build(req['a']).invert_and_compose(build(req['b']))",
        "invert" => "build(req['a']).invert()",
        "pseudoinvert" => "build(req['a']).pseudoinvert()",
        "apply" => "build(req['a']).apply(dict(req['input']))",
        "is_surjective" | "is_injective" | "is_invertible" => {
            "getattr(build(req['a']), req['op'])()"
        }
        "to_string" => "str(build(req['a']))",
        _ => "build(req['a'])  # this op is not in Triton's binding",
    };
    s.push_str(&format!("print({call})\n"));
    s
}

/// Reads a trace (JSON Lines of requests, or of `{"request", ...}` records)
/// and returns the first failing request with its kind.
pub fn first_failure(text: &str) -> Option<(Value, String)> {
    let failing = |v: Value| {
        let req = v.get("request").cloned().unwrap_or(v);
        failure_kind(&req).map(|k| (req, k))
    };
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(Value::is_object)
        .collect();
    if lines.is_empty() {
        // Not JSON Lines: the whole text may be one request.
        return serde_json::from_str(text).ok().and_then(failing);
    }
    lines.into_iter().find_map(failing)
}

/// A JSON summary of a shrink.
pub fn summary(before: &Value, after: &Value, kind: &str) -> Value {
    json!({"kind": kind, "before_bytes": size(before), "after_bytes": size(after), "request": after})
}
