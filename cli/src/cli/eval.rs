//! `linear-layout eval`: JSON Lines in, JSON Lines out.

use super::batch::{self, Answer};
use clap::Args;
use linear_layout::eval::{answer, describe, op_names};

#[derive(Args)]
#[command(after_help = eval_help())]
pub struct EvalArgs {
    /// List every op with its arguments, and exit.
    #[arg(long)]
    describe: bool,
}

fn eval_help() -> String {
    format!(
        "Each input line is a request {{\"op\": NAME, ...}}; each output line is {{\"ok\": VALUE}} or \
         {{\"error\": {{\"kind\": ..., \"message\": ...}}}}. Layouts use Triton's JSON shape \
         {{\"bases\": [[in_dim, [[...], ...]], ...], \"out_dims\": [[name, size], ...]}}. With \
         \"check\": true the result is also checked against a brute-force reference built on \
         apply (layouts of at most {} input bits are checked value by value); a broken law is \
         answered with the kind wrong_result. An argument the op does not take is an error.\n\n{}\n\n\
         Bounds: a layout in a request has at most {} in-dims and {} out-dims (too_large); the \
         process keeps at most {} distinct dim names, {} MiB of them (names live as long as the \
         process): past that, a request with a new name is answered too_many_names, and names \
         already seen still work.\n\n\
         Ops (--describe lists their arguments): {}\n\n\
         Exit status: 0 on success (error answers included), 2 on bad input or usage (it \
         predicts nothing, so never 1).",
        linear_layout::reference::BRUTE_BITS,
        batch::help(),
        linear_layout::MAX_DIMS,
        linear_layout::MAX_DIMS,
        linear_layout::MAX_NAMES,
        linear_layout::MAX_NAME_BYTES >> 20,
        op_names().join(", ")
    )
}

pub fn run(args: EvalArgs) -> Result<(), String> {
    if args.describe {
        return super::print_out(&describe());
    }
    batch::run(|request| Answer::plain(answer(request))).map(|_| ())
}
