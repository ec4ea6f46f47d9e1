//! The `linear-layout` command as a library: [`run`] takes the arguments
//! and returns the exit status, so the same command runs as the Rust
//! binary (`cargo install linear-layout-cli`) and as the Python wheel's
//! console script (`linear_layout._native.run_cli`).

mod cli;

/// Runs the command line `args` (the program name first) and returns its
/// exit status: 0 when nothing fails, 1 when a failure was found, 2 on bad
/// input or usage.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    cli::run(args)
}
