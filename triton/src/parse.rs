//! Parsing TTGIR layout attributes.
//!
//! Two stages: a generic reader for MLIR's attribute syntax (integers,
//! booleans, names, `[...]` lists, `{k = v}` dictionaries, nested `#...`
//! attributes), then one builder per attribute kind that takes the fields it
//! knows. Both dialect spellings are accepted (`#triton_gpu.blocked` and
//! `#ttg.blocked`), and `#name` refers to a definition `#name = ...` read
//! from a TTGIR file with [`Defs::from_module`]. Errors carry the line and
//! column of the offending text.
//!
//! Parsing checks syntax only; whether a release accepts the attribute (its
//! verifier) is checked by [`to_linear_layout`](super::to_linear_layout).
//!
//! Input is bounded: an attribute nests at most [`MAX_NESTING`] levels
//! (brackets, braces and attributes inside attributes, counting through
//! `#alias` references), and a module is read in time and memory linear in
//! its size: a definition refers to earlier ones by a shared pointer, never
//! by a copy.

use super::attr::*;
use linear_layout::dim;
use linear_layout::format::ttgir::Cursor;
use linear_layout::{LayoutError, Result};
use std::collections::HashMap;
use std::sync::Arc;

/// How deep an attribute may nest: brackets, braces and nested attributes,
/// counting through `#alias` references. Real TTGIR nests a handful of
/// levels (a slice of a dot operand of an MMA layout is 3); deeper text is
/// refused with an error naming the limit and the position.
pub const MAX_NESTING: usize = 256;

/// Attribute aliases defined at the top of a TTGIR module
/// (`#blocked = #ttg.blocked<{...}>`), by name without the `#`.
#[derive(Clone, Debug, Default)]
pub struct Defs {
    /// Each definition and how deep it nests.
    map: HashMap<String, (Attr, usize)>,
    /// Definitions in file order, for printing.
    order: Vec<String>,
}

impl Defs {
    /// No definitions.
    pub fn new() -> Self {
        Defs::default()
    }

    /// Reads every `#name = <attribute>` line of a TTGIR module. Lines that
    /// are not attribute definitions are skipped; a definition that does not
    /// parse is an error pointing at its line.
    pub fn from_module(text: &str) -> Result<Self> {
        let mut defs = Defs::new();
        for (index, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let Some(rest) = trimmed.strip_prefix('#') else {
                continue;
            };
            let Some((name, value)) = rest.split_once('=') else {
                continue;
            };
            let name = name.trim();
            if name.is_empty() || name.contains(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            {
                continue;
            }
            let value = value.trim();
            // Location aliases (`#loc = loc(...)`) and other non-attribute
            // definitions are not layouts.
            if !value.starts_with('#') {
                continue;
            }
            let column = line.len() - value.len() + 1;
            let (attr, depth) =
                parse_nested(value, &defs).map_err(|e| shift_error(e, index, column))?;
            defs.insert_nested(name, attr, depth);
        }
        Ok(defs)
    }

    /// Defines `#name`.
    pub fn insert(&mut self, name: &str, attr: Attr) {
        let depth = attr.depth();
        self.insert_nested(name, attr, depth);
    }

    fn insert_nested(&mut self, name: &str, attr: Attr, depth: usize) {
        if self.map.insert(name.to_string(), (attr, depth)).is_none() {
            self.order.push(name.to_string());
        }
    }

    /// The definition of `#name`.
    pub fn get(&self, name: &str) -> Option<&Attr> {
        self.map.get(name).map(|(a, _)| a)
    }

    /// All definitions, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Attr)> {
        self.order
            .iter()
            .filter_map(|n| self.map.get(n).map(|(a, _)| (n.as_str(), a)))
    }

    /// The number of definitions.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// Moves an error found in a sub-string to its place in the whole text.
fn shift_error(e: LayoutError, line_index: usize, column: usize) -> LayoutError {
    match e {
        LayoutError::Parse {
            format,
            line,
            column: c,
            message,
        } => LayoutError::Parse {
            format,
            line: line + line_index,
            column: if line == 1 { c + column - 1 } else { c },
            message,
        },
        other => other,
    }
}

/// Parses one attribute, resolving `#alias` references through `defs`.
pub fn parse_attr(text: &str, defs: &Defs) -> Result<Attr> {
    parse_nested(text, defs).map(|(attr, _)| attr)
}

/// [`parse_attr`], with how deep the attribute nests.
fn parse_nested(text: &str, defs: &Defs) -> Result<(Attr, usize)> {
    let mut c = Cursor::new(text, "TTGIR attribute");
    let mut depth = Depth::default();
    let attr = attribute(&mut c, defs, &mut depth)?;
    c.finish()?;
    Ok((attr, depth.deepest))
}

/// The nesting seen while parsing: where the reader is, and how deep it
/// went (an alias counts with its own depth).
#[derive(Default)]
struct Depth {
    now: usize,
    deepest: usize,
}

impl Depth {
    /// One level deeper at `c` (plus `extra` levels an alias brings), or the
    /// error that names the limit.
    fn enter(&mut self, c: &Cursor<'_>, extra: usize) -> Result<()> {
        let reached = self.now + 1 + extra;
        if reached > MAX_NESTING {
            return Err(c.error(format!(
                "nesting deeper than {MAX_NESTING} levels (brackets, braces and attributes inside \
                 attributes, counting through aliases)"
            )));
        }
        self.now += 1;
        self.deepest = self.deepest.max(reached);
        Ok(())
    }

    fn leave(&mut self) {
        self.now = self.now.saturating_sub(1);
    }
}

/// A value in an attribute's parameter list.
#[derive(Clone, Debug)]
enum Value {
    Int(u64),
    Bool(bool),
    List(Vec<Value>),
    Dict(Fields),
    Attr(Attr),
}

type Fields = Vec<(String, Value, usize)>;

/// `#dialect.kind<...>` or `#alias`.
fn attribute(c: &mut Cursor<'_>, defs: &Defs, depth: &mut Depth) -> Result<Attr> {
    c.require("#")?;
    let start = c.rest();
    let name = c.ident()?;
    let Some((dialect, kind)) = name.split_once('.') else {
        let (attr, nested) = defs
            .map
            .get(name)
            .ok_or_else(|| c.error(format!("`#{name}` is not defined")))?;
        // An alias is as deep as its definition, wherever it is used.
        depth.enter(c, nested.saturating_sub(1))?;
        depth.leave();
        return Ok(attr.clone());
    };
    depth.enter(c, 0)?;
    let attr = attribute_body(c, defs, depth, start, name, dialect, kind);
    depth.leave();
    attr
}

/// The rest of `#dialect.kind<...>` after its name.
fn attribute_body(
    c: &mut Cursor<'_>,
    defs: &Defs,
    depth: &mut Depth,
    start: &str,
    name: &str,
    dialect: &str,
    kind: &str,
) -> Result<Attr> {
    let known = matches!(dialect, "ttg" | "triton_gpu")
        && matches!(
            kind,
            "blocked"
                | "slice"
                | "nvidia_mma"
                | "dot_op"
                | "amd_mfma"
                | "amd_wmma"
                | "linear"
                | "generic_linear"
                | "swizzled_shared"
                | "shared"
                | "nvmma_shared"
                | "shared_linear"
        );
    if !known {
        skip_balanced(c)?;
        let consumed = start.len() - c.rest().len();
        return Ok(Attr::Other {
            name: name.to_string(),
            text: format!("#{}", &start[..consumed]),
        });
    }
    c.require("<")?;
    let mut fields = Fields::new();
    loop {
        if c.eat("{") {
            fields.extend(dict_body(c, defs, depth)?);
        } else {
            let at = c.rest().len();
            let key = c.ident()?.to_string();
            c.require("=")?;
            fields.push((key, value(c, defs, depth)?, at));
        }
        if c.eat(">") {
            break;
        }
        c.require(",")?;
    }
    build(
        c,
        kind,
        Params {
            fields,
            text_len: c.rest().len(),
        },
    )
}

/// Skips an optional `<...>` with nested brackets (for attributes kept
/// verbatim).
fn skip_balanced(c: &mut Cursor<'_>) -> Result<()> {
    if !c.eat("<") {
        return Ok(());
    }
    let mut depth = 1;
    while depth > 0 {
        let rest = c.rest();
        let Some(ch) = rest.chars().next() else {
            return Err(c.error("unterminated `<`"));
        };
        match ch {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ => {}
        }
        c.advance(ch.len_utf8());
    }
    Ok(())
}

/// The inside of `{k = v, ...}` after the `{`.
fn dict_body(c: &mut Cursor<'_>, defs: &Defs, depth: &mut Depth) -> Result<Fields> {
    depth.enter(c, 0)?;
    let fields = dict_fields(c, defs, depth);
    depth.leave();
    fields
}

fn dict_fields(c: &mut Cursor<'_>, defs: &Defs, depth: &mut Depth) -> Result<Fields> {
    let mut fields = Fields::new();
    if c.eat("}") {
        return Ok(fields);
    }
    loop {
        let at = c.rest().len();
        let key = c.ident()?.to_string();
        c.require("=")?;
        fields.push((key, value(c, defs, depth)?, at));
        if c.eat("}") {
            return Ok(fields);
        }
        c.require(",")?;
    }
}

fn value(c: &mut Cursor<'_>, defs: &Defs, depth: &mut Depth) -> Result<Value> {
    c.skip_ws();
    let rest = c.rest();
    if rest.starts_with('[') {
        c.require("[")?;
        depth.enter(c, 0)?;
        let list = list_items(c, defs, depth);
        depth.leave();
        list
    } else if rest.starts_with('{') {
        c.require("{")?;
        Ok(Value::Dict(dict_body(c, defs, depth)?))
    } else if rest.starts_with('#') {
        Ok(Value::Attr(attribute(c, defs, depth)?))
    } else if rest.starts_with(|ch: char| ch.is_ascii_digit()) {
        let v = c.integer()?;
        // An optional MLIR type suffix such as `: i32`.
        if c.rest().trim_start().starts_with(':') {
            c.require(":")?;
            c.ident()?;
        }
        Ok(Value::Int(v))
    } else if rest.starts_with('-') {
        Err(c.error("negative values are not valid here"))
    } else {
        match c.ident()? {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            other => Err(c.error(format!(
                "expected a number, list, `true`, `false` or attribute, found `{other}`"
            ))),
        }
    }
}

/// The items of `[a, b, ...]` after the `[`.
fn list_items(c: &mut Cursor<'_>, defs: &Defs, depth: &mut Depth) -> Result<Value> {
    let mut items = Vec::new();
    if c.eat("]") {
        return Ok(Value::List(items));
    }
    loop {
        items.push(value(c, defs, depth)?);
        if c.eat("]") {
            return Ok(Value::List(items));
        }
        c.require(",")?;
    }
}

/// The fields of one attribute, consumed by name.
struct Params {
    fields: Fields,
    text_len: usize,
}

impl Params {
    fn take(&mut self, key: &str) -> Option<(Value, usize)> {
        let i = self.fields.iter().position(|f| f.0 == key)?;
        let (_, v, at) = self.fields.remove(i);
        Some((v, at))
    }
}

/// Builds the typed attribute from its fields.
fn build(c: &Cursor<'_>, kind: &str, mut p: Params) -> Result<Attr> {
    let full = c.clone();
    let err = |at: usize, msg: String| -> LayoutError { error_at(&full, at, msg) };
    let at_end = p.text_len;
    macro_rules! req {
        ($key:expr, $conv:ident) => {{
            let (v, at) = p
                .take($key)
                .ok_or_else(|| err(at_end, format!("`#{kind}` needs `{}`", $key)))?;
            $conv(v).ok_or_else(|| err(at, format!("`{}` has the wrong type", $key)))?
        }};
    }
    macro_rules! opt {
        ($key:expr, $conv:ident) => {{
            match p.take($key) {
                None => None,
                Some((v, at)) => Some(
                    $conv(v).ok_or_else(|| err(at, format!("`{}` has the wrong type", $key)))?,
                ),
            }
        }};
    }
    let attr = match kind {
        "blocked" => Attr::Blocked(Blocked {
            size_per_thread: req!("sizePerThread", ints),
            threads_per_warp: req!("threadsPerWarp", ints),
            warps_per_cta: req!("warpsPerCTA", ints),
            order: req!("order", indices),
            cga: cga(&mut p, &err)?,
        }),
        "slice" => Attr::Slice(Slice {
            dim: req!("dim", index),
            parent: Arc::new(req!("parent", attr_value)),
        }),
        "nvidia_mma" => Attr::NvidiaMma(NvidiaMma {
            version_major: req!("versionMajor", int),
            version_minor: opt!("versionMinor", int).unwrap_or(0),
            warps_per_cta: req!("warpsPerCTA", ints),
            cga: cga(&mut p, &err)?,
            instr_shape: opt!("instrShape", ints).unwrap_or_default(),
        }),
        "dot_op" => Attr::DotOperand(DotOperand {
            op_idx: req!("opIdx", int),
            parent: Arc::new(req!("parent", attr_value)),
            k_width: opt!("kWidth", int),
        }),
        "amd_mfma" => {
            let version = match opt!("version", int) {
                Some(v) => v,
                None => req!("versionMajor", int),
            };
            Attr::AmdMfma(AmdMfma {
                version,
                version_minor: opt!("versionMinor", int),
                warps_per_cta: req!("warpsPerCTA", ints),
                instr_shape: req!("instrShape", ints),
                is_transposed: req!("isTransposed", boolean),
                cga: cga(&mut p, &err)?,
                tiles_per_warp: opt!("tilesPerWarp", ints),
                element_bit_width: opt!("elementBitWidth", int),
            })
        }
        "amd_wmma" => {
            let (cta_register, cta_warp) = match p.take("ctaLayout") {
                None => (Vec::new(), None),
                Some((Value::Dict(fields), _)) => {
                    let mut inner = Params {
                        fields,
                        text_len: at_end,
                    };
                    let reg = match inner.take("register") {
                        None => Vec::new(),
                        Some((v, at)) => bases(v)
                            .ok_or_else(|| err(at, "`register` must be a list of bases".into()))?,
                    };
                    let warp = match inner.take("warp") {
                        None => None,
                        Some((v, at)) => Some(
                            bases(v)
                                .ok_or_else(|| err(at, "`warp` must be a list of bases".into()))?,
                        ),
                    };
                    if let Some((key, _, at)) = inner.fields.first() {
                        return Err(err(*at, format!("unexpected `{key}` in `ctaLayout`")));
                    }
                    (reg, warp)
                }
                Some((_, at)) => {
                    return Err(err(
                        at,
                        "`ctaLayout` must be `{register = [...], warp = [...]}`".into(),
                    ));
                }
            };
            Attr::AmdWmma(AmdWmma {
                version: req!("version", int),
                is_transpose: opt!("isTranspose", boolean),
                warps_per_cta: opt!("warpsPerCTA", ints),
                cta_register,
                cta_warp,
                cga: cga(&mut p, &err)?,
                instr_shape: opt!("instrShape", ints),
                rank: opt!("rank", int),
            })
        }
        "linear" | "generic_linear" => {
            let mut list = Vec::new();
            for name in ["register", "lane", "warp", "block"] {
                if let Some((v, at)) = p.take(name) {
                    list.push((
                        dim(name),
                        bases(v)
                            .ok_or_else(|| err(at, format!("`{name}` must be a list of bases")))?,
                    ));
                } else {
                    return Err(err(at_end, format!("`#{kind}` needs `{name}` bases")));
                }
            }
            Attr::Linear(Linear {
                bases: list,
                generic: kind == "generic_linear",
            })
        }
        "swizzled_shared" | "shared" => Attr::SwizzledShared(SwizzledShared {
            vec: req!("vec", int),
            per_phase: req!("perPhase", int),
            max_phase: req!("maxPhase", int),
            order: req!("order", indices),
            cga: cga(&mut p, &err)?,
            has_leading_offset: if kind == "shared" {
                Some(opt!("hasLeadingOffset", boolean).unwrap_or(false))
            } else {
                None
            },
        }),
        "nvmma_shared" => Attr::NvmmaShared(NvmmaShared {
            swizzling_byte_width: req!("swizzlingByteWidth", int),
            transposed: opt!("transposed", boolean).unwrap_or(false),
            element_bit_width: req!("elementBitWidth", int),
            fp4_padded: opt!("fp4Padded", boolean).unwrap_or(false),
            cga: cga(&mut p, &err)?,
            rank: opt!("rank", int),
        }),
        "shared_linear" => Attr::SharedLinear(SharedLinear {
            offset: opt!("offset", bases).unwrap_or_default(),
            block: opt!("block", bases).unwrap_or_default(),
            alignment: opt!("alignment", int).unwrap_or(16),
        }),
        other => return Err(err(at_end, format!("unknown attribute kind `{other}`"))),
    };
    if let Some((key, _, at)) = p.fields.first() {
        return Err(err(*at, format!("`#{kind}` has no field `{key}`")));
    }
    Ok(attr)
}

/// The CGA fields, in either spelling.
fn cga(p: &mut Params, err: &dyn Fn(usize, String) -> LayoutError) -> Result<Option<Cga>> {
    if let Some((v, at)) = p.take("CGALayout") {
        return Ok(Some(Cga::Bases(bases(v).ok_or_else(|| {
            err(at, "`CGALayout` must be a list of bases".into())
        })?)));
    }
    let ctas = p.take("CTAsPerCGA");
    let split = p.take("CTASplitNum");
    let order = p.take("CTAOrder");
    match (ctas, split, order) {
        (None, None, None) => Ok(None),
        (Some((a, at)), Some((b, _)), Some((o, _))) => {
            let bad = || {
                err(
                    at,
                    "`CTAsPerCGA`, `CTASplitNum` and `CTAOrder` must be integer lists".into(),
                )
            };
            Ok(Some(Cga::Split {
                ctas_per_cga: ints(a).ok_or_else(bad)?,
                cta_split_num: ints(b).ok_or_else(bad)?,
                cta_order: indices(o).ok_or_else(bad)?,
            }))
        }
        (a, b, o) => {
            let at = a.or(b).or(o).map_or(p.text_len, |x| x.1);
            Err(err(
                at,
                "`CTAsPerCGA`, `CTASplitNum` and `CTAOrder` go together".into(),
            ))
        }
    }
}

fn error_at(c: &Cursor<'_>, remaining: usize, message: String) -> LayoutError {
    c.error_at_remaining(remaining, message)
}

fn int(v: Value) -> Option<u64> {
    match v {
        Value::Int(i) => Some(i),
        _ => None,
    }
}

fn index(v: Value) -> Option<usize> {
    int(v).and_then(|i| usize::try_from(i).ok())
}

fn boolean(v: Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(b),
        _ => None,
    }
}

fn ints(v: Value) -> Option<Vec<u64>> {
    match v {
        Value::List(items) => items.into_iter().map(int).collect(),
        _ => None,
    }
}

fn indices(v: Value) -> Option<Vec<usize>> {
    match v {
        Value::List(items) => items.into_iter().map(index).collect(),
        _ => None,
    }
}

fn bases(v: Value) -> Option<Vec<Vec<u64>>> {
    match v {
        Value::List(items) => items.into_iter().map(ints).collect(),
        _ => None,
    }
}

fn attr_value(v: Value) -> Option<Attr> {
    match v {
        Value::Attr(a) => Some(a),
        _ => None,
    }
}
