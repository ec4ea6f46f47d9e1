//! The `linear-layout` command line: a thin layer over the libraries.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(linear_layout_cli::run(std::env::args_os()))
}
