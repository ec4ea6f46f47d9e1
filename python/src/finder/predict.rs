//! `predict` (one configuration in each release asked) and `fix_for` (the
//! first release that compiles a failing configuration).

use super::config::{Fields, Kernel, one_release, release_list};
use super::records::{record, records};
use crate::errors::guard_with;
use linear_layout_triton::Release;
use linear_layout_triton::finder::search::{Fix, fix_for as crate_fix_for};
use linear_layout_triton::report::render;
use linear_layout_triton::finder::{Config, ConfigError, predict as crate_predict};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::{Value, json};

/// The prediction of the real compiler for a kernel configuration, in each
/// release asked about.
///
/// The configuration is given as ``linear-layout predict`` takes it:
/// ``pattern`` (``"dot"``, ``"chain-a"``, ``"chain-b"``, ...: see
/// ``linear-layout predict --help``; an unknown name's error lists them),
/// the block sizes ``m``, ``n``, ``k`` (powers of two; ``k`` only for the
/// patterns that take it), ``x`` for the chain patterns (default 64),
/// ``dtype`` (default ``"bf16"``; also ``fp16``, ``fp32``, ``fp8e4nv``,
/// ``fp8e5``, ``int8``), ``num_warps`` (default 8), ``num_stages`` (default
/// 2), ``arch`` (default ``"sm90"``; also ``sm80``, ``sm86``, ``sm89``,
/// ``sm100``, ``sm120``), ``num_ctas`` (default 1) and ``variant`` (a
/// development build, ``"pre-5905"``). Or as
/// one mapping in the JSON form of a configuration (``predict --batch``'s
/// input; a prediction's ``config``, or the prediction itself, will do);
/// its ``triton`` key, when present, is the release.
///
/// ``release`` is ``"all"`` (the default: every modelled release that
/// models the configuration; several CTAs are modelled from 3.4), one
/// release name (``"3.2"``, ``"3.3.1"``, ``"newest"``), names separated by
/// commas, or a sequence of names.
///
/// Returns one ``Prediction`` per release, in the order asked: the JSON
/// line ``linear-layout predict --json`` prints, with ``verdict`` (``ok``,
/// ``abort`` or ``error``: how a compile from Python source ends),
/// ``failure`` (absent when ``ok``: ``site``, ``function``, ``location``,
/// ``triton_message``, ``explanation``...), ``steps`` (the decisions and
/// layouts that led there), ``release`` and ``config``.
///
/// Raises ``TypeError`` for an argument of the wrong type and
/// ``ValueError`` for an unknown name or a configuration outside the
/// finder's space (the crate's message).
///
/// >>> [p] = predict("chain-b", 64, 64, 64, num_warps=8, release="3.2")
/// >>> p.verdict, p.failure.site
/// ('abort', 'stmatrix')
#[pyfunction]
#[pyo3(signature = (pattern, m = None, n = None, k = None, x = None, dtype = None,
                    num_warps = None, num_stages = None, arch = None, num_ctas = None,
                    release = None, variant = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn predict<'py>(
    py: Python<'py>,
    pattern: &Bound<'py, PyAny>,
    m: Option<Bound<'py, PyAny>>,
    n: Option<Bound<'py, PyAny>>,
    k: Option<Bound<'py, PyAny>>,
    x: Option<Bound<'py, PyAny>>,
    dtype: Option<Bound<'py, PyAny>>,
    num_warps: Option<Bound<'py, PyAny>>,
    num_stages: Option<Bound<'py, PyAny>>,
    arch: Option<Bound<'py, PyAny>>,
    num_ctas: Option<Bound<'py, PyAny>>,
    release: Option<Bound<'py, PyAny>>,
    variant: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let fields = Fields::of_call(
        "predict", pattern, m, n, k, x, dtype, num_warps, num_stages, arch, num_ctas, variant,
    )?;
    let kernel = fields.kernel("predict")?;
    let (releases, every) = match (&fields.triton, &release) {
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(
                "predict(): the configuration names its release (`triton`); \
                 pass no `release` with it",
            ));
        }
        (Some(named), None) => (
            vec![one_release(named, "the configuration's `triton`")?],
            false,
        ),
        (None, Some(spec)) if is_all(spec) => (Release::ALL.to_vec(), true),
        (None, Some(spec)) => (release_list(spec)?, false),
        // A development build is modelled on one release only.
        (None, None) => match kernel.variant_release() {
            Some(r) => (vec![r], false),
            None => (Release::ALL.to_vec(), true),
        },
    };
    let lines = py.detach(|| predict_lines(&kernel, &releases, every))?;
    records(py, "Prediction", &lines)
}

/// Whether `release` is the word `"all"`.
fn is_all(release: &Bound<'_, PyAny>) -> bool {
    release.extract::<String>().is_ok_and(|s| s == "all")
}

/// The JSON line of each release's prediction. Asked for every release
/// (`every`), the releases where the configuration is not modelled (several
/// CTAs before 3.4) are left out, as `predict` prints them as "not
/// modelled"; when no release models it, or a release was named, the
/// configuration's error is the answer.
fn predict_lines(kernel: &Kernel, releases: &[Release], every: bool) -> PyResult<Vec<Value>> {
    let answers: Vec<PyResult<Value>> = releases
        .iter()
        .map(|&r| {
            let cfg = kernel.config(r);
            let p = guard_with(|| crate_predict(&cfg), config_error)?;
            Ok(p.to_json_line(&cfg))
        })
        .collect();
    if every && answers.iter().any(Result::is_ok) {
        return Ok(answers.into_iter().filter_map(Result::ok).collect());
    }
    answers.into_iter().collect()
}

fn config_error(e: ConfigError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The first modelled release that compiles a configuration, and the
/// change in Triton responsible.
///
/// Takes the configuration as ``predict`` does (arguments, or one mapping
/// such as a prediction or its ``config``), in one release: ``release`` (or
/// the mapping's ``triton``) names it.
///
/// Returns a ``Fix``: ``config`` and ``release`` (what was asked),
/// ``fixed_in`` (the first release from ``release`` on that compiles it, the
/// release itself when it compiles there, ``None`` when none does),
/// ``change`` (the change in words: the failing site's recorded change,
/// ``"PR #6609: ..."``), ``pr``, ``blocker`` (the site it fails at just
/// before ``fixed_in``) and ``broken_again`` (``{"release", "site"}`` of a
/// later release where it fails again, or where it still fails when nothing
/// fixes it): the fields of ``linear-layout search --json``'s fixes.
///
/// >>> fix = fix_for("chain-b", 64, 64, 64, num_warps=8, release="3.2")
/// >>> fix.fixed_in, fix.pr
/// ('3.4', '#6609')
#[pyfunction]
#[pyo3(signature = (pattern, m = None, n = None, k = None, x = None, dtype = None,
                    num_warps = None, num_stages = None, arch = None, num_ctas = None,
                    release = None, variant = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn fix_for<'py>(
    py: Python<'py>,
    pattern: &Bound<'py, PyAny>,
    m: Option<Bound<'py, PyAny>>,
    n: Option<Bound<'py, PyAny>>,
    k: Option<Bound<'py, PyAny>>,
    x: Option<Bound<'py, PyAny>>,
    dtype: Option<Bound<'py, PyAny>>,
    num_warps: Option<Bound<'py, PyAny>>,
    num_stages: Option<Bound<'py, PyAny>>,
    arch: Option<Bound<'py, PyAny>>,
    num_ctas: Option<Bound<'py, PyAny>>,
    release: Option<Bound<'py, PyAny>>,
    variant: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let fields = Fields::of_call(
        "fix_for", pattern, m, n, k, x, dtype, num_warps, num_stages, arch, num_ctas, variant,
    )?;
    let kernel = fields.kernel("fix_for")?;
    let triton = match (&fields.triton, &release) {
        (Some(named), None) => one_release(named, "the configuration's `triton`")?,
        (None, Some(named)) => one_release(named, "release")?,
        (Some(_), Some(_)) => {
            return Err(PyTypeError::new_err(
                "fix_for(): the configuration names its release (`triton`); \
                 pass no `release` with it",
            ));
        }
        (None, None) => match kernel.variant_release() {
            Some(r) => r,
            None => {
                return Err(PyTypeError::new_err(
                    "fix_for() needs the release the configuration fails in (release=\"3.2\")",
                ));
            }
        },
    };
    let cfg = kernel.config(triton);
    let value = py.detach(|| {
        guard_with(
            || cfg.validate().map(|()| crate_fix_for(&cfg)),
            config_error,
        )
        .map(|fix| fix_json(&cfg, &fix))
    })?;
    record(py, "Fix", &value)
}

/// A fix as `search --json` prints one (without its count), with the
/// configuration and its release.
fn fix_json(cfg: &Config, fix: &Fix) -> Value {
    let mut v = render::fix_json(fix);
    v["config"] = json!(cfg);
    v["release"] = json!(cfg.triton.to_string());
    v
}
