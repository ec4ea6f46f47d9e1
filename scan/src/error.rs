//! Why a scan, or a step of one, could not go on: one enum for the crate,
//! each variant carrying what the user needs to act on it.

use super::args::ArgError;
use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;

/// Why a scan (or one of its steps) could not go on.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// A file or directory could not be created or written.
    #[error("cannot {action} {}: {source}", .path.display())]
    Io {
        /// `create`, `write` or `remove`.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A program (an interpreter, pip) could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// The program, as it was named.
        program: String,
        /// Why.
        source: io::Error,
    },
    /// A program ran and failed (`python3 -m venv`, `pip install`).
    #[error("{command} failed: {message}")]
    Failed {
        /// The command, in short.
        command: String,
        /// The last line it printed.
        message: String,
    },
    /// A release is not installed where the scan looks, and it was told
    /// not to install it.
    #[error(
        "not installed in {} (scan installs it unless --no-install; or --python {minor}=PATH)",
        .venv_dir.display()
    )]
    NotInstalled {
        /// Where the managed environments are.
        venv_dir: PathBuf,
        /// The release (`3.2`).
        minor: String,
    },
    /// pip installed a release, but the environment still lacks it.
    #[error("triton=={wheel} installed but not found")]
    InstalledButMissing {
        /// The wheel (`3.2.0`).
        wheel: String,
    },
    /// A worker ended without a readable answer.
    #[error("the worker ({}) gave no answer ({status})", .python.display())]
    NoAnswer {
        /// Its interpreter.
        python: PathBuf,
        /// How it ended.
        status: ExitStatus,
    },
    /// A serving worker exited.
    #[error("the worker exited")]
    WorkerExited,
    /// A serving worker's pipes failed.
    #[error("worker: {0}")]
    WorkerPipe(#[source] io::Error),
    /// A worker's line is not the JSON it promises.
    #[error("worker: {0}")]
    WorkerReply(#[source] serde_json::Error),
    /// The worker's own error: the kernel's module does not import, has no
    /// such function, its callable raised, …
    #[error("{0}")]
    Worker(String),
    /// A worker's answer lacks something the scan needs.
    #[error("the worker's answer has no {0}")]
    Incomplete(&'static str),
    /// A step failed for the kernel named.
    #[error("{kernel}: {source}")]
    Kernel {
        /// The kernel as named.
        kernel: String,
        /// What failed.
        source: Box<ScanError>,
    },
    /// `--call`'s callable could not be run or launched no kernel.
    #[error("--call {call}: {source}")]
    Call {
        /// `module:function`.
        call: String,
        /// What failed.
        source: Box<ScanError>,
    },
    /// An argument as written cannot be read.
    #[error(transparent)]
    Arg(#[from] ArgError),
    /// An argument or constexpr names no parameter of the kernel.
    #[error("{kernel} has no parameter `{name}`; its parameters are {}", .params.join(", "))]
    UnknownParameter {
        /// The JIT function.
        kernel: String,
        /// The name given.
        name: String,
        /// Its parameters.
        params: Vec<String>,
    },
    /// `--dtype` was given, but no argument's type is `*T`.
    #[error("--dtype gives the values of `T`, but no argument's type uses it (write e.g. `x=*T`)")]
    UnusedDtype,
    /// An argument's type is `*T`, but `--dtype` was not given.
    #[error("an argument's type is `*T`: give its values with --dtype")]
    MissingDtype,
    /// Parameters without a default have no value.
    #[error(
        "no value for {} of {kernel}: give {} with --args (or --constexpr for constexprs)",
        .names.join(", "),
        if .names.len() == 1 { "it" } else { "them" }
    )]
    MissingValues {
        /// The JIT function.
        kernel: String,
        /// The parameters without a value.
        names: Vec<String>,
    },
    /// No release asked for can be scanned.
    #[error("no Triton release can be scanned:\n{}", lines(.not_scanned))]
    NoRelease {
        /// `(wheel, why)` per release asked for.
        not_scanned: Vec<(String, String)>,
    },
    /// No target was asked for.
    #[error("no target asked for (--arch)")]
    NoTarget,
}

/// `  wheel: why` lines.
fn lines(not_scanned: &[(String, String)]) -> String {
    not_scanned
        .iter()
        .map(|(wheel, why)| format!("  {wheel}: {why}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl ScanError {
    /// `cannot create PATH: …`.
    pub(crate) fn create(path: impl Into<PathBuf>, source: io::Error) -> ScanError {
        ScanError::Io {
            action: "create",
            path: path.into(),
            source,
        }
    }

    /// `cannot write PATH: …`.
    pub(crate) fn write(path: impl Into<PathBuf>, source: io::Error) -> ScanError {
        ScanError::Io {
            action: "write",
            path: path.into(),
            source,
        }
    }

    /// The same error, for the kernel named.
    pub(crate) fn for_kernel(self, kernel: &str) -> ScanError {
        ScanError::Kernel {
            kernel: kernel.to_string(),
            source: Box::new(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_to_do() {
        let one = ScanError::MissingValues {
            kernel: "attn".into(),
            names: vec!["K".into()],
        };
        assert_eq!(
            one.to_string(),
            "no value for K of attn: give it with --args (or --constexpr for constexprs)"
        );
        let two = ScanError::MissingValues {
            kernel: "attn".into(),
            names: vec!["K".into(), "N".into()],
        };
        assert!(
            two.to_string()
                .starts_with("no value for K, N of attn: give them")
        );
        let none = ScanError::NoRelease {
            not_scanned: vec![
                ("3.1.0".into(), "not installed".into()),
                ("3.2.0".into(), "pip failed".into()),
            ],
        };
        assert_eq!(
            none.to_string(),
            "no Triton release can be scanned:\n  3.1.0: not installed\n  3.2.0: pip failed"
        );
        let inner = ScanError::Worker("k.py has no nope".into());
        assert_eq!(
            inner.for_kernel("k.py::nope").to_string(),
            "k.py::nope: k.py has no nope"
        );
    }
}
