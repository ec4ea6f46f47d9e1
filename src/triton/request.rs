//! The `convert --batch` protocol: one JSON request per line,
//! `{"attr", "shape", "elem_bits"?, "triton"?, "defs"?}`, answered with
//! `{"ok": LAYOUT_JSON}`, `{"none": REASON}` (the release has no linear
//! layout for it) or `{"error": {"kind", "message"}}`.

use super::convert::{Conversion, to_linear_layout};
use super::parse::{Defs, parse_attr};
use super::release::Release;
use crate::format::json::LayoutJson;
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
    /// The release (default: newest).
    #[serde(default)]
    pub triton: Option<String>,
    /// TTGIR text holding `#name = ...` definitions, or a path to such a file.
    #[serde(default)]
    pub defs: Option<String>,
}

fn error(kind: &str, message: impl std::fmt::Display) -> Value {
    json!({ "error": { "kind": kind, "message": message.to_string() } })
}

/// Answers one request line.
pub fn convert_line(line: &str) -> Value {
    let request: ConvertRequest = match serde_json::from_str(line) {
        Ok(r) => r,
        Err(e) => return error("bad_request", e),
    };
    let version = match request
        .triton
        .as_deref()
        .map(str::parse::<Release>)
        .transpose()
    {
        Ok(v) => v.unwrap_or(Release::V3_9),
        Err(e) => return error("bad_request", e),
    };
    let defs = match &request.defs {
        None => Defs::new(),
        Some(d) => {
            let text = if d.contains('=') {
                d.clone()
            } else {
                match std::fs::read_to_string(d) {
                    Ok(t) => t,
                    Err(e) => {
                        return error("bad_request", format!("cannot read defs file {d}: {e}"));
                    }
                }
            };
            match Defs::from_module(&text) {
                Ok(defs) => defs,
                Err(e) => return error(e.kind(), e),
            }
        }
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
