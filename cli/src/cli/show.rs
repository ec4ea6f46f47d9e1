//! `linear-layout show`: a layout three ways.

use super::input::read_arg;
use clap::Args;
use linear_layout::{Dim, LinearLayout, format};
use std::fmt::Write;

/// The layout shown when none is given: an NVIDIA MMA v2 accumulator tile
/// (16 × 8 per warp) for two warps stacked along dim0.
const EXAMPLE: &str = r#"{"bases": [["register", [[0, 1], [8, 0]]], ["lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]], ["warp", [[16, 0]]]], "out_dims": [["dim0", 32], ["dim1", 8]]}"#;

#[derive(Args)]
#[command(
    after_help = "Exit status: 0 on success, 2 on bad input or usage (it predicts nothing, so never 1)."
)]
pub struct ShowArgs {
    /// The layout: Triton's text, JSON ({"bases": ..., "out_dims": ...}) or
    /// `#ttg.linear<{...}>`. `-` reads stdin, `@FILE` reads a file. Without
    /// it, a built-in example (an MMA v2 accumulator tile) is shown.
    layout: Option<String>,
}

pub fn run(args: ShowArgs) -> Result<(), String> {
    let text = match &args.layout {
        Some(arg) => read_arg(arg)?,
        None => {
            super::print_out(
                "(no layout given: showing the built-in example, an MMA v2 accumulator for 2 warps)\n",
            )?;
            EXAMPLE.to_string()
        }
    };
    let layout = format::parse_any(&text).map_err(|e| e.to_string())?;
    super::print_out(&render(&layout))?;
    Ok(())
}

/// Everything `show` prints.
fn render(l: &LinearLayout) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Triton's text:{l}\n");
    let _ = writeln!(s, "JSON: {}\n", format::json::to_json_string(l));
    s.push_str(&matrix(l));
    match linear_layout_triton::view::holders_table(l, None) {
        Ok(table) => {
            s.push('\n');
            s.push_str(&table);
        }
        Err(why) => {
            let _ = writeln!(s, "\n(who holds each element is not shown: {why})");
        }
    }
    s
}

/// The bit matrix: one row per output bit, one column per input bit.
fn matrix(l: &LinearLayout) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Bit matrix (rows: output bits, columns: input bits, lowest first):"
    );
    let mut cols = Vec::new();
    for (d, size) in l.in_dims() {
        for i in 0..size.trailing_zeros() {
            cols.push(format!("{}{}", short(d), i));
        }
    }
    let width = cols.iter().map(|c| c.len()).max().unwrap_or(1).max(1);
    let _ = write!(s, "{:>10} ", "");
    for c in &cols {
        let _ = write!(s, "{c:>width$} ");
    }
    s.push('\n');
    let bases = l.bases();
    for (k, (d, size)) in l.out_dims().enumerate() {
        for bit in 0..size.trailing_zeros() {
            let _ = write!(s, "{:>10} ", format!("{d}[{bit}]"));
            for (_, vectors) in &bases {
                for v in vectors {
                    let _ = write!(s, "{:>width$} ", (v[k] >> bit) & 1);
                }
            }
            s.push('\n');
        }
    }
    if cols.is_empty() {
        s.push_str("  (no input bits)\n");
    }
    s
}

fn short(d: Dim) -> String {
    match d.name() {
        "register" => "r".into(),
        "lane" => "l".into(),
        "warp" => "w".into(),
        "block" => "b".into(),
        "offset" => "o".into(),
        other => other.to_string(),
    }
}
