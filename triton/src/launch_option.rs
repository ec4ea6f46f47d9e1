//! The launch options a kernel may be given (`kernel[grid](…, maxnreg=128,
//! launch_pdl=True)`), and which releases' NVIDIA back end knows each: the
//! fields of `CUDAOptions` (`triton/backends/nvidia/compiler.py`) that a
//! launch sets, read from each wheel 3.1.0–3.9.0. A launch with a field
//! the release's `CUDAOptions` lacks fails there (the JIT's "Keyword
//! argument … was specified but unrecognised"). `num_warps`,
//! `num_stages` and `num_ctas` are every release's and have their own
//! axes; the fields a back end fills itself (`ptx_version`, `arch`,
//! `backend_name`, the fp8 lists, `extern_libs`, …) are left out.
//!
//! This table is the one place that says which option exists from which
//! release; `scan` validates option names against it, and
//! `tests/oracle/launch_options.py` checks it against the wheels.

use crate::{Release, Span};

/// The value an option takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer (`maxnreg=128`).
    Int,
    /// `True` / `False`.
    Bool,
    /// A string (`default_dot_input_precision="ieee"`).
    Str,
}

/// One launch option of the NVIDIA back end.
#[derive(Debug)]
pub struct LaunchOption {
    /// The keyword, as the launch spells it.
    pub name: &'static str,
    /// The releases whose `CUDAOptions` has the field.
    pub releases: Span,
    /// The value it takes.
    pub kind: OptionKind,
    /// What it does, in a few words.
    pub what: &'static str,
}

const fn opt(
    name: &'static str,
    releases: Span,
    kind: OptionKind,
    what: &'static str,
) -> LaunchOption {
    LaunchOption {
        name,
        releases,
        kind,
        what,
    }
}

use OptionKind::{Bool, Int, Str};
use Release::{V3_1, V3_2, V3_3, V3_4, V3_5, V3_6, V3_9};

/// Every launch option, by the release that added it.
pub const LAUNCH_OPTIONS: &[LaunchOption] = &[
    opt(
        "maxnreg",
        Span::since(V3_1),
        Int,
        "registers per thread, at most",
    ),
    opt(
        "enable_fp_fusion",
        Span::since(V3_1),
        Bool,
        "fuse multiply-adds",
    ),
    opt("debug", Span::since(V3_1), Bool, "device assertions"),
    opt(
        "default_dot_input_precision",
        Span::since(V3_1),
        Str,
        "tl.dot's default input precision",
    ),
    opt(
        "max_num_imprecise_acc_default",
        Span::since(V3_1),
        Int,
        "fp8 dot accumulation",
    ),
    opt(
        "sanitize_overflow",
        Span::since(V3_2),
        Bool,
        "check integer overflow",
    ),
    opt(
        "num_buffers_warp_spec",
        Span::until(V3_2, V3_4),
        Int,
        "warp specialisation buffers",
    ),
    opt(
        "num_consumer_groups",
        Span::until(V3_2, V3_4),
        Int,
        "warp specialisation consumers",
    ),
    opt(
        "reg_dec_producer",
        Span::until(V3_2, V3_4),
        Int,
        "producer registers released",
    ),
    opt(
        "reg_inc_consumer",
        Span::until(V3_2, V3_4),
        Int,
        "consumer registers added",
    ),
    opt(
        "launch_cooperative_grid",
        Span::since(V3_3),
        Bool,
        "a cooperative launch",
    ),
    opt(
        "launch_pdl",
        Span::since(V3_4),
        Bool,
        "programmatic dependent launch",
    ),
    opt(
        "instrumentation_mode",
        Span::since(V3_5),
        Str,
        "instrumentation",
    ),
    opt(
        "enable_reflect_ftz",
        Span::since(V3_6),
        Bool,
        "flush denormals in libdevice",
    ),
    opt(
        "sched4reg",
        Span::since(V3_9),
        Bool,
        "schedule for register pressure",
    ),
    opt("clc", Span::since(V3_9), Bool, "cluster launch control"),
    opt(
        "min_shared_mem",
        Span::since(V3_9),
        Int,
        "shared memory to reserve, at least",
    ),
];

/// The option named `name`.
pub fn launch_option(name: &str) -> Option<&'static LaunchOption> {
    LAUNCH_OPTIONS.iter().find(|o| o.name == name)
}

/// `maxnreg (3.1+), …, launch_pdl (3.4+), …`, for help and errors.
pub fn launch_options_list() -> String {
    LAUNCH_OPTIONS
        .iter()
        .map(|o| format!("{} ({})", o.name, o.releases))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_spans_hold_a_release() {
        for (i, o) in LAUNCH_OPTIONS.iter().enumerate() {
            assert!(
                LAUNCH_OPTIONS[..i].iter().all(|p| p.name != o.name),
                "{}",
                o.name
            );
            assert!(o.releases.releases().next().is_some(), "{}", o.name);
        }
        assert!(launch_option("launch_pdl").is_some_and(|o| !o.releases.contains(Release::V3_3)));
        assert!(launch_options_list().contains("launch_pdl (3.4+)"));
        assert!(launch_option("num_warps").is_none());
    }
}
