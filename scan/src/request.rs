//! What to scan: the kernel, its arguments, the space, where interpreters
//! come from, where results go.

use super::args::Args;
use super::python::PythonOptions;
use super::space::Axes;
use std::path::PathBuf;

/// What to scan.
#[derive(Clone, Debug)]
pub struct ScanRequest {
    /// `path/file.py::kernel`, `package.module::kernel` (or `module:kernel`).
    pub kernel: String,
    /// Extra import directories.
    pub paths: Vec<PathBuf>,
    /// The example arguments.
    pub args: Args,
    /// The axes (and whether the kernel's autotune configs are the base).
    pub axes: Axes,
    /// Where interpreters come from.
    pub python: PythonOptions,
    /// The cache directory.
    pub cache_dir: PathBuf,
    /// Where reproducers and minimal modules are written.
    pub out_dir: PathBuf,
    /// Worker processes at a time.
    pub jobs: usize,
    /// Seconds per front end or compile.
    pub timeout: u64,
    /// Compile failing configurations (and a sample of passing ones) for
    /// real, run the reproducers and compile the minimal modules.
    pub confirm: bool,
    /// How many passing configurations per release `confirm` compiles.
    pub confirm_passing: usize,
    /// Reduce each site's failing module (and confirm it where installed).
    pub reduce: bool,
    /// `module:function`: a callable that launches the kernel with example
    /// tensors; its first launch gives the kernel, the arguments (those not
    /// given in `args`) and, when no axis sets them, the options.
    pub call: Option<String>,
}

/// Progress, for the caller to show.
pub type Progress<'a> = &'a (dyn Fn(&str) + Sync);
