//! Command-line parsing and dispatch. Each subcommand lives in its own file
//! and only calls the library.

mod convert;
mod eval;
mod input;
mod predict;
mod show;
mod view;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Triton's linear layouts: inspect, compute, and check them against Triton.
#[derive(Parser)]
#[command(name = "linear-layout", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show a layout: Triton's text, its bit matrix, and who holds each element.
    Show(show::ShowArgs),
    /// Evaluate JSON Lines requests from stdin, one JSON answer per line.
    Eval(eval::EvalArgs),
    /// Convert a Triton layout attribute (TTGIR text) to its linear layout.
    Convert(convert::ConvertArgs),
    /// Predict how a Triton release compiles a kernel configuration.
    Predict(predict::PredictArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Show(args) => show::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Predict(args) => predict::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
