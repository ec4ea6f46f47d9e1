//! # linear-layout-scan
//!
//! `scan`: a user's kernel, as they use it, through every Triton release.
//!
//! For each release installed (managed virtual environments, or
//! interpreters the user names), a worker process running that release's
//! Python drives the real front end of the kernel's own JIT path, without a
//! GPU (a stand-in driver names the target), up to the TTGIR module handed
//! to the lowering, which is never run; the finder's
//! [`check_ttgir`](linear_layout_triton::finder::check_ttgir) checks each
//! module ([`check_module`]). A front-end failure is reported as the front
//! end's own. The answer is the report `search` gives too
//! ([`linear_layout_triton::report`], printed by its `render`).
//!
//! The whole surface:
//! - [`scan()`] runs a [`ScanRequest`] and gives a [`ScanReport`], or a
//!   [`ScanError`] saying why it could not.
//! - A request holds the kernel's arguments as written ([`parse_args`]:
//!   [`Args`] of [`ArgValue`]s, an [`ArgError`] when one cannot be read;
//!   [`DTYPES`]), the [`Axes`] that widen the kernel's own autotune
//!   configurations into [`ScanConfig`]s ([`parse_axis`] reads a constexpr
//!   axis), where interpreters come from ([`PythonOptions`]) and where
//!   results go ([`default_cache_dir`]).
//! - [`environments`] lists the managed environments scans installed
//!   ([`Environment`]); [`remove_environments`] removes them.
//! - [`check_module`]: the model's findings on one TTGIR module, as a
//!   compile from source meets them.
//!
//! ```
//! use linear_layout_scan::{Axes, PythonOptions, ScanRequest, check_module, parse_args};
//! use linear_layout_triton::finder::{self, Arch, repro};
//!
//! // What `linear-layout scan kernels/attn.py::attn_fwd --args '…' --dtype fp16,bf16`
//! // asks for; `scan(&req, &|line| eprintln!("{line}"))` runs it.
//! let cache = linear_layout_scan::default_cache_dir();
//! let req = ScanRequest {
//!     kernel: "kernels/attn.py::attn_fwd".into(),
//!     paths: Vec::new(),
//!     args: parse_args("q=*T, k=*T, v=*T, o=*T, sm_scale=0.5, N_CTX=4096")?,
//!     axes: Axes {
//!         dtypes: vec!["fp16".into(), "bf16".into()],
//!         archs: vec![Arch::Sm80, Arch::Sm90],
//!         autotune: true,
//!         ..Axes::default()
//!     },
//!     python: PythonOptions {
//!         venv_dir: cache.join("venvs"),
//!         install: true,
//!         base_python: "python3".into(),
//!         ..PythonOptions::default()
//!     },
//!     out_dir: cache.join("reports").join("attn_fwd"),
//!     cache_dir: cache,
//!     jobs: 4,
//!     timeout: 300,
//!     confirm: false,
//!     confirm_passing: 2,
//!     reduce: true,
//!     call: None,
//! };
//! assert_eq!(req.args.len(), 6);
//!
//! // Each module a release's front end gives is checked like this one:
//! // flash-linear-attention's chained dots at 8 warps on Hopper, 3.2.
//! let cfg: finder::Config = serde_json::from_str(r#"{"pattern": "chain-b", "m": 64,
//!     "n": 64, "k": 64, "x": 64, "dtype": "bf16", "num_warps": 8, "num_stages": 2,
//!     "arch": "sm90", "triton": "3.2"}"#)?;
//! let failure = finder::predict(&cfg)?.failure.ok_or("3.2 fails")?;
//! let module = repro::ttgir_module(&cfg, Some(failure.site)).ok_or("a one-op module")?;
//! let findings = check_module(&module, cfg.triton);
//! assert_eq!((findings[0].op.as_str(), findings[0].failure.site.id), ("local_alloc", "stmatrix"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Inside: `args` (the arguments as written), `space` (the configurations
//! and each one's cache key), `python` (interpreters per release, the
//! worker processes; the worker script `worker.py` is embedded), `cache`
//! (front-end results on disk, keyed on exactly what changes the TTGIR;
//! verdicts are recomputed on every scan), `driver` (the scan), `report`
//! (the outcomes grouped into the report), `reduce` (a failing module
//! reduced op by op), `reproducer` and `artefacts` (what is written per
//! site), `error`.

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod args;
mod artefacts;
mod cache;
mod configs;
mod driver;
mod envs;
mod error;
mod hash;
mod python;
mod reduce;
mod releases;
mod report;
mod reproducer;
mod request;
mod space;

pub use args::{ArgError, ArgValue, Args, DTYPES, Dim, parse_args, parse_axis};
pub use cache::default_dir as default_cache_dir;
pub use configs::{
    check_option, config_from_json, configs_from_json, parse_config, parse_option_axis,
};
pub use driver::{check_module, scan};
pub use envs::{Environment, environments, remove as remove_environments};
pub use error::ScanError;
pub use python::PythonOptions;
pub use request::{Progress, ScanRequest};
pub use space::{Axes, Base, ScanConfig};

/// What a scan found: the report `search` gives too, over the kernel's
/// configurations.
pub type ScanReport = linear_layout_triton::report::Report<ScanConfig>;
