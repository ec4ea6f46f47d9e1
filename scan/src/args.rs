//! A kernel's arguments as the user writes them (`--args 'x=*fp16, N=4096,
//! BLOCK=128'`), and what the worker is sent for each.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt;

/// One argument's value.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// A tensor: `*fp16` (16-byte aligned, as the launcher sees tensors),
    /// `*fp16:unaligned`; `*T` takes the `--dtype` axis.
    Ptr {
        /// The element type (`fp16`, `bf16`, `fp32`, `fp8e4nv`, `i8`, … or
        /// `T`).
        dtype: String,
        /// Whether the pointer is 16-byte aligned.
        aligned: bool,
    },
    /// An integer: a known value (specialised as Triton's launcher does: 1,
    /// a multiple of 16, or neither), or `i32` / `i64` with no value.
    Int {
        /// The value, when given.
        value: Option<i64>,
        /// `i64` when written so (or the value needs it).
        wide: bool,
    },
    /// A float (`fp32`, or a literal such as `1e-5`).
    Float(Option<f64>),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// A `tl` dtype (`tl.float32`) for a constexpr parameter.
    TlDtype(String),
    /// A string constexpr (`"ieee"`).
    Str(String),
    /// A host tensor descriptor (`triton.tools.tensor_descriptor.
    /// TensorDescriptor`, Triton 3.4+) over a tensor of `dtype`, with this
    /// block shape: `desc:*bf16[64,64]`, `desc:*T[BLOCK_M,BLOCK_K]` (a name
    /// is the configuration's constexpr of that name).
    Desc {
        /// The element type (or `T`).
        dtype: String,
        /// The block shape: 1 to 5 powers of two or constexpr names.
        block: Vec<Dim>,
    },
}

/// One dimension of a descriptor's block shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A power of two.
    Size(u64),
    /// The value of the configuration's constexpr of this name.
    Name(String),
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Size(n) => write!(f, "{n}"),
            Dim::Name(n) => f.write_str(n),
        }
    }
}

/// Reads `*bf16[64,BLOCK_K]`, the part of `desc:*bf16[64,BLOCK_K]` after
/// `desc:`.
fn read_desc(text: &str) -> Result<ArgValue, String> {
    let shape_err = || {
        format!(
            "`desc:{text}`: expected desc:*DTYPE[B1,B2,…] (1 to 5 block dimensions, each a \
             power of two or a constexpr name)"
        )
    };
    let inner = text.trim().strip_prefix('*').ok_or_else(shape_err)?;
    let (dtype, rest) = inner.split_once('[').ok_or_else(shape_err)?;
    let dims = rest.trim().strip_suffix(']').ok_or_else(shape_err)?;
    let dtype = dtype.trim();
    if !DTYPES.contains(&dtype) {
        return Err(format!(
            "unknown element type `{dtype}` (one of {})",
            DTYPES.join(", ")
        ));
    }
    let block = dims
        .split(',')
        .map(|d| {
            let d = d.trim();
            match d.parse::<u64>() {
                Ok(n) if n.is_power_of_two() => Ok(Dim::Size(n)),
                Ok(n) => Err(format!(
                    "`desc:{text}`: block dimension {n} is not a power of two"
                )),
                Err(_)
                    if !d.is_empty()
                        && !d.starts_with(|c: char| c.is_ascii_digit())
                        && d.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    Ok(Dim::Name(d.to_string()))
                }
                Err(_) => Err(format!(
                    "`desc:{text}`: block dimension `{d}` is neither a power of two nor a name"
                )),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !(1..=5).contains(&block.len()) {
        return Err(format!(
            "`desc:{text}`: a descriptor has 1 to 5 block dimensions, not {}",
            block.len()
        ));
    }
    Ok(ArgValue::Desc {
        dtype: dtype.to_string(),
        block,
    })
}

/// Named arguments, in the order given.
pub type Args = Vec<(String, ArgValue)>;

/// A malformed `--args` entry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("argument `{entry}`: {reason}")]
pub struct ArgError {
    /// The entry as written.
    pub entry: String,
    /// Why it cannot be read.
    pub reason: String,
}

/// The element types a pointer may name (besides `T`).
pub const DTYPES: [&str; 14] = [
    "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "fp8e4b15", "i1", "i8", "i16", "i32",
    "i64", "u8", "T",
];

impl ArgValue {
    /// Reads one value: `*fp16`, `*T`, `*bf16:unaligned`, `4096`, `i32`,
    /// `i64`, `fp32`, `1e-5`, `True`, `None`, `tl.float32`, `"ieee"`.
    pub fn parse(text: &str) -> Result<ArgValue, ArgError> {
        Self::read(text).map_err(|reason| ArgError {
            entry: text.trim().to_string(),
            reason,
        })
    }

    /// [`ArgValue::parse`], failing with the reason alone.
    fn read(text: &str) -> Result<ArgValue, String> {
        let t = text.trim();
        if let Some(desc) = t.strip_prefix("desc:") {
            return read_desc(desc);
        }
        if let Some(ptr) = t.strip_prefix('*') {
            let (dtype, flag) = match ptr.split_once(':') {
                Some((d, f)) => (d.trim(), Some(f.trim())),
                None => (ptr.trim(), None),
            };
            if !DTYPES.contains(&dtype) {
                return Err(format!(
                    "unknown element type `{dtype}` (one of {})",
                    DTYPES.join(", ")
                ));
            }
            let aligned = match flag {
                None | Some("aligned") => true,
                Some("unaligned") => false,
                Some(other) => return Err(format!("`:{other}`: expected `:unaligned`")),
            };
            return Ok(ArgValue::Ptr {
                dtype: dtype.to_string(),
                aligned,
            });
        }
        match t {
            "i32" | "int" => {
                return Ok(ArgValue::Int {
                    value: None,
                    wide: false,
                });
            }
            "i64" => {
                return Ok(ArgValue::Int {
                    value: None,
                    wide: true,
                });
            }
            "fp32" | "f32" | "float" => return Ok(ArgValue::Float(None)),
            "True" | "true" => return Ok(ArgValue::Bool(true)),
            "False" | "false" => return Ok(ArgValue::Bool(false)),
            "None" | "null" => return Ok(ArgValue::None),
            _ => {}
        }
        if let Some(d) = t.strip_prefix("tl.") {
            if d.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !d.is_empty() {
                return Ok(ArgValue::TlDtype(d.to_string()));
            }
        }
        if t.len() >= 2
            && ((t.starts_with('"') && t.ends_with('"'))
                || (t.starts_with('\'') && t.ends_with('\'')))
        {
            return Ok(ArgValue::Str(t[1..t.len() - 1].to_string()));
        }
        if let Ok(v) = t.parse::<i64>() {
            return Ok(ArgValue::Int {
                value: Some(v),
                wide: !(-(1i64 << 31)..(1i64 << 31)).contains(&v),
            });
        }
        if let Ok(v) = t.parse::<f64>() {
            return Ok(ArgValue::Float(Some(v)));
        }
        Err(
            "expected `*DTYPE`, an integer, `i32`/`i64`, a float or `fp32`, `True`/`False`, \
             `None`, `tl.DTYPE` or a quoted string"
                .to_string(),
        )
    }

    /// The value from a spec file's JSON/TOML: numbers, booleans and null
    /// are themselves; a string is read as [`ArgValue::parse`] reads text
    /// (so `"*fp16"`, `"i32"`, `"tl.float32"`), and `"'ieee'"` is a string.
    pub fn from_json(v: &Value) -> Result<ArgValue, ArgError> {
        match v {
            Value::Null => Ok(ArgValue::None),
            Value::Bool(b) => Ok(ArgValue::Bool(*b)),
            Value::Number(n) => match n.as_i64() {
                Some(i) => ArgValue::parse(&i.to_string()),
                None => Ok(ArgValue::Float(n.as_f64())),
            },
            Value::String(s) => ArgValue::parse(s).or_else(|_| Ok(ArgValue::Str(s.clone()))),
            _ => Err(ArgError {
                entry: v.to_string(),
                reason: "expected a number, a boolean, null or a string".to_string(),
            }),
        }
    }

    /// With `T` replaced by `dtype`.
    pub fn with_dtype(&self, dtype: Option<&str>) -> ArgValue {
        match (self, dtype) {
            (ArgValue::Ptr { dtype: d, aligned }, Some(t)) if d == "T" => ArgValue::Ptr {
                dtype: t.to_string(),
                aligned: *aligned,
            },
            (ArgValue::Desc { dtype: d, block }, Some(t)) if d == "T" => ArgValue::Desc {
                dtype: t.to_string(),
                block: block.clone(),
            },
            _ => self.clone(),
        }
    }

    /// With a descriptor's named block dimensions replaced by the integer
    /// constexprs of that name in `kwargs` (the others are left for the
    /// worker, which knows what heuristics compute).
    pub fn with_constexprs(&self, kwargs: &[(String, ArgValue)]) -> ArgValue {
        let ArgValue::Desc { dtype, block } = self else {
            return self.clone();
        };
        let block = block
            .iter()
            .map(|d| match d {
                Dim::Name(n) => kwargs
                    .iter()
                    .find_map(|(k, v)| match v {
                        ArgValue::Int { value: Some(x), .. } if k == n && *x > 0 => {
                            Some(Dim::Size(*x as u64))
                        }
                        _ => None,
                    })
                    .unwrap_or_else(|| d.clone()),
                size => size.clone(),
            })
            .collect();
        ArgValue::Desc {
            dtype: dtype.clone(),
            block,
        }
    }

    /// What the worker is sent.
    pub fn to_worker(&self) -> Value {
        match self {
            ArgValue::Ptr { dtype, aligned } => json!({"ptr": dtype, "aligned": aligned}),
            ArgValue::Int { value: Some(v), .. } => json!(v),
            ArgValue::Int { value: None, wide } => {
                json!({"int": if *wide { "i64" } else { "i32" }})
            }
            ArgValue::Float(Some(v)) => json!(v),
            ArgValue::Float(None) => json!({"float": "fp32"}),
            ArgValue::Bool(b) => json!(b),
            ArgValue::None => Value::Null,
            ArgValue::TlDtype(d) => json!({"tl": d}),
            ArgValue::Str(s) => json!(s),
            ArgValue::Desc { dtype, block } => json!({"desc": dtype, "block": block
                .iter()
                .map(|d| match d {
                    Dim::Size(n) => json!(n),
                    Dim::Name(n) => json!(n),
                })
                .collect::<Vec<_>>()}),
        }
    }

    /// What Triton's launcher specialises on, for the cache key: a
    /// pointer's type and alignment; an integer's width and whether it is
    /// 1, a multiple of 16 or neither (`exact`: the value itself, when
    /// heuristics may read it); a float's type only.
    pub fn key(&self, exact: bool) -> Value {
        match self {
            ArgValue::Int {
                value: Some(v),
                wide,
            } if !exact => {
                let class = if *v == 1 {
                    "one"
                } else if v % 16 == 0 {
                    "div16"
                } else {
                    "any"
                };
                json!({"int": if *wide { "i64" } else { "i32" }, "class": class})
            }
            ArgValue::Float(_) if !exact => json!({"float": "fp32"}),
            other => other.to_worker(),
        }
    }
}

impl fmt::Display for ArgValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgValue::Ptr { dtype, aligned } => {
                write!(f, "*{dtype}{}", if *aligned { "" } else { ":unaligned" })
            }
            ArgValue::Int { value: Some(v), .. } => write!(f, "{v}"),
            ArgValue::Int { value: None, wide } => f.write_str(if *wide { "i64" } else { "i32" }),
            ArgValue::Float(Some(v)) => write!(f, "{v:?}"),
            ArgValue::Float(None) => f.write_str("fp32"),
            ArgValue::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            ArgValue::None => f.write_str("None"),
            ArgValue::TlDtype(d) => write!(f, "tl.{d}"),
            ArgValue::Str(s) => write!(f, "{s:?}"),
            ArgValue::Desc { dtype, block } => {
                let dims: Vec<String> = block.iter().map(Dim::to_string).collect();
                write!(f, "desc:*{dtype}[{}]", dims.join(","))
            }
        }
    }
}

/// Reads `name=value, name=value, …` (commas inside quotes are kept).
pub fn parse_args(text: &str) -> Result<Args, ArgError> {
    let mut out: Args = Vec::new();
    for entry in split_top(text) {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let err = |reason: String| ArgError {
            entry: entry.to_string(),
            reason,
        };
        let (name, value) = entry
            .split_once('=')
            .ok_or_else(|| err("expected NAME=VALUE".into()))?;
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(err(format!("`{name}` is not a parameter name")));
        }
        let value = ArgValue::read(value).map_err(err)?;
        out.retain(|(n, _)| n != name);
        out.push((name.to_string(), value));
    }
    Ok(out)
}

/// Splits on commas outside quotes and brackets (a descriptor's block
/// shape, `desc:*bf16[64,64]`).
pub fn split_top(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    for c in text.chars() {
        match (quote, c) {
            (None, ',') if depth == 0 => out.push(String::new()),
            (None, '[') | (None, ']') => {
                depth = if c == '[' {
                    depth + 1
                } else {
                    depth.saturating_sub(1)
                };
                if let Some(s) = out.last_mut() {
                    s.push(c);
                }
            }
            (None, '"' | '\'') => {
                quote = Some(c);
                if let Some(s) = out.last_mut() {
                    s.push(c);
                }
            }
            (Some(q), c) if c == q => {
                quote = None;
                if let Some(s) = out.last_mut() {
                    s.push(c);
                }
            }
            _ => {
                if let Some(s) = out.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    out
}

/// Every constexpr axis value (`--constexpr BLOCK=64,128`): the values of
/// one parameter.
pub fn parse_axis(text: &str) -> Result<(String, Vec<ArgValue>), ArgError> {
    let err = |reason: &str| ArgError {
        entry: text.to_string(),
        reason: reason.to_string(),
    };
    let (name, values) = text
        .split_once('=')
        .ok_or_else(|| err("expected NAME=V1,V2,…"))?;
    let values = split_top(values)
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| ArgValue::read(v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| err(&e))?;
    if values.is_empty() {
        return Err(err("no values"));
    }
    Ok((name.trim().to_string(), values))
}

/// The arguments as a map for the worker, with `T` replaced and
/// descriptors' block shapes read from the constexprs.
pub fn to_worker(
    args: &Args,
    dtype: Option<&str>,
    kwargs: &[(String, ArgValue)],
) -> BTreeMap<String, Value> {
    args.iter()
        .map(|(n, v)| {
            let v = v.with_dtype(dtype).with_constexprs(kwargs);
            (n.clone(), v.to_worker())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads() {
        let args = parse_args(
            "x=*fp16, y=*T, z=*bf16:unaligned, N=4096, M=i32, L=i64, eps=1e-5, f=fp32, \
             b=True, bias=None, acc=tl.float32, prec=\"ieee\", BIG=4294967296",
        )
        .unwrap();
        let shown: Vec<String> = args.iter().map(|(n, v)| format!("{n}={v}")).collect();
        assert_eq!(
            shown.join(" "),
            "x=*fp16 y=*T z=*bf16:unaligned N=4096 M=i32 L=i64 eps=1e-5 f=fp32 b=True \
             bias=None acc=tl.float32 prec=\"ieee\" BIG=4294967296"
        );
        assert_eq!(
            args[12].1,
            ArgValue::Int {
                value: Some(1 << 32),
                wide: true
            }
        );
        let d = parse_args("a=desc:*bf16[64, BLOCK_K], b=desc:*T[128]").unwrap();
        assert_eq!(d[0].1.to_string(), "desc:*bf16[64,BLOCK_K]");
        assert_eq!(d.len(), 2);
        let kw = vec![("BLOCK_K".to_string(), ArgValue::parse("32").unwrap())];
        assert_eq!(
            d[0].1.with_constexprs(&kw).to_worker(),
            json!({"desc": "bf16", "block": [64, 32]})
        );
        for bad in [
            "desc:*bf16[48]",
            "desc:*bf16[]",
            "desc:*bf16[1,2,4,8,16,32]",
            "desc:bf16[64]",
            "desc:*bf17[64]",
            "desc:*bf16[64",
            "desc:*bf16[6x]",
        ] {
            let e = parse_args(&format!("a={bad}")).unwrap_err();
            assert!(
                e.to_string().contains("desc") || e.to_string().contains("bf17"),
                "{bad}: {e}"
            );
        }
        assert!(parse_args("x=*fp17").is_err());
        assert!(parse_args("x").is_err());
        assert!(parse_args("x=what").is_err());
    }

    #[test]
    fn keys_follow_the_launcher_specialisation() {
        let k = |s: &str| ArgValue::parse(s).unwrap().key(false);
        assert_eq!(k("4096"), k("8192"));
        assert_ne!(k("4096"), k("4097"));
        assert_ne!(k("1"), k("3"));
        assert_eq!(k("3"), k("5"));
        assert_eq!(k("1e-5"), k("0.5"));
        assert_ne!(ArgValue::parse("4096").unwrap().key(true), k("8192"));
    }
}
