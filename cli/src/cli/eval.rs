//! `linear-layout eval`: JSON Lines in, JSON Lines out.

use clap::Args;
use linear_layout::eval::{OPS, eval_line};
use std::io::{BufRead, BufWriter, Write};

#[derive(Args)]
#[command(after_help = eval_help())]
pub struct EvalArgs {}

fn eval_help() -> String {
    format!(
        "Each input line is a request {{\"op\": NAME, ...}}; each output line is {{\"ok\": VALUE}} or \
         {{\"error\": {{\"kind\": ..., \"message\": ...}}}}. Layouts use Triton's JSON shape \
         {{\"bases\": [[in_dim, [[...], ...]], ...], \"out_dims\": [[name, size], ...]}}. With \
         \"check\": true the result is also checked against a brute-force reference built on \
         apply (layouts of at most {} input bits are checked value by value); a broken law is \
         answered with the kind wrong_result.\n\nOps: {}",
        linear_layout::reference::BRUTE_BITS,
        OPS.join(", ")
    )
}

pub fn run(_: EvalArgs) -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("cannot read stdin: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = eval_line(&line);
        writeln!(out, "{answer}").map_err(|e| format!("cannot write: {e}"))?;
    }
    out.flush().map_err(|e| format!("cannot write: {e}"))
}
