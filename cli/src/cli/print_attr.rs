//! `linear-layout print-attr`: a layout attribute given as JSON, printed
//! the way a release spells it (for scripts that write TTGIR).

use super::batch::{self, Answer};
use super::input::read_arg;
use clap::Args;
use linear_layout_triton::release::release_help;
use linear_layout_triton::{Release, ttgir_attr};
use serde_json::{Value, json};

#[derive(Args)]
#[command(after_help = "Example:\n  linear-layout print-attr --triton 3.2 \
    '{\"kind\": \"nvmma_shared\", \"swizzlingByteWidth\": 128, \"transposed\": false, \"elementBitWidth\": 16}'\n\n\
    The JSON names the attribute's `kind` as TTGIR does (blocked, slice, nvidia_mma, dot_op, amd_mfma, \
    amd_wmma, linear, generic_linear, swizzled_shared, nvmma_shared, shared_linear, padded_shared, \
    partitioned_shared, tensor_memory_encoding, tensor_memory_scales_encoding, auto_encoding, \
    coalesced_encoding; alias, with a `name`: a reference `#name` to an alias the module defines) and its \
    parameters by their TTGIR names (`parent` holds a nested attribute). \
    With --batch, each stdin line is {\"attr\": JSON, \"triton\"?} and each output line {\"ok\": TEXT} or \
    {\"error\": {\"kind\", \"message\"}}, written as soon as it is made; a request's \"id\" is echoed.")]
pub struct PrintAttrArgs {
    /// The attribute as JSON. `-` reads stdin, `@FILE` reads a file.
    attr: Option<String>,
    #[arg(long, default_value = "latest", help = release_help())]
    triton: Release,
    /// Read JSON Lines requests from stdin instead.
    #[arg(long, conflicts_with = "attr")]
    batch: bool,
}

pub fn run(args: PrintAttrArgs) -> Result<(), String> {
    if args.batch {
        return batch::run(|request| Answer::plain(answer(request))).map(|_| ());
    }
    let text = read_arg(
        args.attr
            .as_deref()
            .ok_or("give an attribute as JSON (or --batch); see --help")?,
    )?;
    let json: Value =
        serde_json::from_str(&text).map_err(|e| format!("the attribute is not JSON: {e}"))?;
    let printed = ttgir_attr(&json, args.triton).map_err(|e| e.to_string())?;
    super::print_out(&format!("{printed}\n"))
}

/// One batch request: `{"attr": JSON, "triton"?: release}`.
fn answer(request: &Value) -> Value {
    let error = |kind: &str, message: String| json!({"error": {"kind": kind, "message": message}});
    let Some(attr) = request.get("attr") else {
        return error("bad_request", "a request needs `attr`".into());
    };
    let release = match request.get("triton") {
        None | Some(Value::Null) => Release::LATEST,
        Some(Value::String(name)) => match name.parse::<Release>() {
            Ok(r) => r,
            Err(e) => return error("bad_request", e.to_string()),
        },
        Some(other) => return error("bad_request", format!("`triton` is a name, not {other}")),
    };
    match ttgir_attr(attr, release) {
        Ok(text) => json!({ "ok": text }),
        Err(e) => error("bad_attr", e.to_string()),
    }
}
