//! The `convert --batch` protocol: one JSON request per line,
//! `{"attr", "shape", "elem_bits"?, "triton"?, "defs"?, "defs_file"?}`,
//! answered with `{"ok": LAYOUT_JSON}`, `{"none": REASON}` (the release has
//! no linear layout for it) or `{"error": {"kind", "message"}}`.

use super::convert::{Conversion, to_linear_layout};
use super::parse::{Defs, parse_attr};
use super::release::Release;
use linear_layout::format::json::LayoutJson;
use serde::Deserialize;
use serde_json::{Value, json};

/// One conversion request.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ConvertRequest {
    /// The attribute text (or `#alias` defined in `defs`).
    pub attr: String,
    /// The tensor shape.
    pub shape: Vec<u64>,
    /// Element bit width, for layouts that need it.
    #[serde(default)]
    pub elem_bits: Option<u64>,
    /// The release (default: the latest).
    #[serde(default)]
    pub triton: Option<String>,
    /// TTGIR text holding `#name = ...` definitions.
    #[serde(default)]
    pub defs: Option<String>,
    /// A TTGIR file holding `#name = ...` definitions.
    #[serde(default)]
    pub defs_file: Option<String>,
}

fn error(kind: &str, message: impl std::fmt::Display) -> Value {
    json!({ "error": { "kind": kind, "message": message.to_string() } })
}

/// The most a `defs_file` may hold (as the command line reads any file:
/// 32 MiB).
pub const MAX_DEFS_FILE: u64 = 32 << 20;

/// Answers one request line (read strictly: a key given twice is an
/// error).
pub fn convert_line(line: &str) -> Value {
    match linear_layout::eval::parse_strict(line) {
        Ok(request) => convert_request(&request),
        Err(e) => error("bad_json", e),
    }
}

/// A `defs_file`: a regular file of at most [`MAX_DEFS_FILE`] bytes of
/// UTF-8 (a device or a pipe, which could be endless, is refused).
fn read_defs_file(path: &str) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let mut bytes = Vec::new();
    file.take(MAX_DEFS_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_DEFS_FILE {
        return Err(format!("more than {} MiB", MAX_DEFS_FILE >> 20));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Answers one parsed request.
pub fn convert_request(request: &Value) -> Value {
    let request = match linear_layout::eval::typed::<ConvertRequest>(request) {
        Ok(r) => r,
        Err(e) => return error("bad_request", e),
    };
    let version = match request
        .triton
        .as_deref()
        .map(str::parse::<Release>)
        .transpose()
    {
        Ok(v) => v.unwrap_or(Release::LATEST),
        Err(e) => return error("bad_request", e),
    };
    let text = match (&request.defs, &request.defs_file) {
        (Some(_), Some(_)) => {
            return error(
                "bad_request",
                "give `defs` (text) or `defs_file` (a path), not both",
            );
        }
        (Some(text), None) => Some(text.clone()),
        (None, Some(path)) => match read_defs_file(path) {
            Ok(t) => Some(t),
            Err(e) => return error("bad_request", format!("cannot read defs file {path}: {e}")),
        },
        (None, None) => None,
    };
    let defs = match text.as_deref().map(Defs::from_module) {
        None => Defs::new(),
        Some(Ok(defs)) => defs,
        Some(Err(e)) => return error(e.kind(), e),
    };
    let attr = match parse_attr(&request.attr, &defs) {
        Ok(a) => a,
        Err(e) => return error(e.kind(), e),
    };
    match to_linear_layout(&attr, &request.shape, version, request.elem_bits) {
        Ok(Conversion::Layout(l)) => json!({ "ok": LayoutJson::from(&l) }),
        Ok(Conversion::NoLayout(reason)) => json!({ "none": reason }),
        Err(e) => error(e.kind(), e),
    }
}
