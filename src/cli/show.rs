//! `linear-layout show`: a layout three ways.

use super::input::read_arg;
use clap::Args;
use linear_layout::{Dim, LinearLayout, format};
use std::fmt::Write;

/// The layout shown when none is given: an NVIDIA MMA v2 accumulator tile
/// (16 × 8 per warp) for two warps stacked along dim0.
const EXAMPLE: &str = r#"{"bases": [["register", [[0, 1], [8, 0]]], ["lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]], ["warp", [[16, 0]]]], "out_dims": [["dim0", 32], ["dim1", 8]]}"#;

#[derive(Args)]
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
            println!(
                "(no layout given: showing the built-in example, an MMA v2 accumulator for 2 warps)"
            );
            EXAMPLE.to_string()
        }
    };
    let layout = format::parse_any(&text).map_err(|e| e.to_string())?;
    print!("{}", render(&layout));
    Ok(())
}

/// Everything `show` prints.
fn render(l: &LinearLayout) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Triton's text:{l}\n");
    let _ = writeln!(s, "JSON: {}\n", format::json::to_json_string(l));
    s.push_str(&matrix(l));
    if let Some(table) = holders_table(l) {
        s.push('\n');
        s.push_str(&table);
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

/// For register/lane/warp(/block) layouts onto at most two tensor dims: a
/// grid with the first (lowest) thread and register holding each element.
fn holders_table(l: &LinearLayout) -> Option<String> {
    let known = [Dim::REGISTER, Dim::LANE, Dim::WARP, Dim::BLOCK];
    if l.num_in_dims() == 0 || l.in_dim_names().any(|d| !known.contains(&d)) || l.num_out_dims() > 2
    {
        return None;
    }
    if l.total_in_bits() > 20 || l.total_out_bits() > 16 {
        return Some("(table omitted: layout too large to print)\n".into());
    }
    let size = |d: Dim| l.in_dim_size(d).unwrap_or(1);
    let (regs, lanes, warps) = (size(Dim::REGISTER), size(Dim::LANE), size(Dim::WARP));
    let outs: Vec<(Dim, u64)> = l.out_dims().collect();
    let (rows, cols) = match outs.len() {
        0 => (1, 1),
        1 => (1, outs[0].1),
        _ => (outs[0].1, outs[1].1),
    };
    let mut cells: Vec<Option<String>> = vec![None; (rows * cols) as usize];
    let mut copies = vec![0u32; (rows * cols) as usize];
    let in_dims: Vec<(Dim, u64)> = l.in_dims().collect();
    for flat in 0..(1u64 << l.total_in_bits()) {
        let mut rest = flat;
        let mut input = Vec::new();
        for &(d, s) in &in_dims {
            input.push((d, rest % s));
            rest /= s;
        }
        let Ok(out) = l.apply(&input) else {
            return None;
        };
        let (r, c) = match out.len() {
            0 => (0, 0),
            1 => (0, out[0].1),
            _ => (out[0].1, out[1].1),
        };
        let idx = (r * cols + c) as usize;
        copies[idx] += 1;
        if cells[idx].is_none() {
            let get = |d: Dim| input.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
            let thread = get(Dim::LANE) + lanes * get(Dim::WARP);
            let block = if size(Dim::BLOCK) > 1 {
                format!("B{}", get(Dim::BLOCK))
            } else {
                String::new()
            };
            cells[idx] = Some(format!("{block}T{thread}:{}", get(Dim::REGISTER)));
        }
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Who holds each element (T<thread>:<register>, thread = lane + {lanes}·warp; {regs} registers, {lanes} lanes, {warps} warps):"
    );
    let width = cells.iter().flatten().map(|c| c.len()).max().unwrap_or(1) + 1;
    let _ = write!(s, "{:>6}", "");
    for c in 0..cols {
        let _ = write!(s, "{c:>width$}");
    }
    s.push('\n');
    for r in 0..rows {
        let _ = write!(s, "{r:>6}");
        for c in 0..cols {
            let cell = cells[(r * cols + c) as usize].as_deref().unwrap_or("-");
            let _ = write!(s, "{cell:>width$}");
        }
        s.push('\n');
    }
    let max_copies = copies.iter().copied().max().unwrap_or(0);
    if max_copies > 1 {
        let _ = writeln!(
            s,
            "(elements are held by up to {max_copies} threads/registers; the first holder is shown)"
        );
    }
    if copies.contains(&0) {
        let _ = writeln!(s, "(`-`: no thread holds that element)");
    }
    Some(s)
}
