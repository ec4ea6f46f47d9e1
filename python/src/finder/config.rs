//! Reading a kernel configuration and the releases to ask about from
//! Python arguments: keyword arguments as `linear-layout predict` takes
//! them, or one mapping in the JSON form of a configuration (what
//! `predict --batch` reads and every prediction's `config` holds).
//!
//! A value of the wrong type is a `TypeError`; a name no pattern, dtype,
//! arch, variant or release answers to, and a configuration outside the
//! finder's space, are `ValueError`s with the crate's message.

use super::records::is_record;
use crate::args::{self, Int};
use linear_layout_triton::Release;
use linear_layout_triton::finder::{Config, Pattern, Variant};
use linear_layout_triton::kernel_fields::{KernelFields, config_fields};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyMapping, PyString, PyTuple};
use std::str::FromStr;

/// The fields of a configuration, as the crate names them
/// (`kernel_fields::config_fields`): `linear_layout.CONFIG_FIELDS`.
pub(crate) fn fields_tuple(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(py, config_fields())
}

/// A configuration's fields as given (`None`: not given, or `None`).
#[derive(Default)]
pub(crate) struct Fields<'py> {
    pub pattern: Option<Bound<'py, PyAny>>,
    pub m: Option<Bound<'py, PyAny>>,
    pub n: Option<Bound<'py, PyAny>>,
    pub k: Option<Bound<'py, PyAny>>,
    pub x: Option<Bound<'py, PyAny>>,
    pub dtype: Option<Bound<'py, PyAny>>,
    pub num_warps: Option<Bound<'py, PyAny>>,
    pub num_stages: Option<Bound<'py, PyAny>>,
    pub arch: Option<Bound<'py, PyAny>>,
    pub num_ctas: Option<Bound<'py, PyAny>>,
    pub variant: Option<Bound<'py, PyAny>>,
    /// The release a mapping names (`triton`, or `release`).
    pub triton: Option<Bound<'py, PyAny>>,
}

impl<'py> Fields<'py> {
    /// The fields of a call: `first` is the pattern name, or a whole
    /// configuration (a mapping, a `Record`, or a prediction, whose
    /// `config` is taken); the keyword arguments go with a pattern name only.
    #[allow(clippy::too_many_arguments)]
    pub fn of_call(
        function: &str,
        first: &Bound<'py, PyAny>,
        m: Option<Bound<'py, PyAny>>,
        n: Option<Bound<'py, PyAny>>,
        k: Option<Bound<'py, PyAny>>,
        x: Option<Bound<'py, PyAny>>,
        dtype: Option<Bound<'py, PyAny>>,
        num_warps: Option<Bound<'py, PyAny>>,
        num_stages: Option<Bound<'py, PyAny>>,
        arch: Option<Bound<'py, PyAny>>,
        num_ctas: Option<Bound<'py, PyAny>>,
        variant: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        if first.is_instance_of::<PyString>() {
            return Ok(Fields {
                pattern: Some(first.clone()),
                m,
                n,
                k,
                x,
                dtype,
                num_warps,
                num_stages,
                arch,
                num_ctas,
                variant,
                triton: None,
            });
        }
        let given = [
            &m,
            &n,
            &k,
            &x,
            &dtype,
            &num_warps,
            &num_stages,
            &arch,
            &num_ctas,
            &variant,
        ];
        let mapping = as_mapping(first).map_err(|_| {
            args::type_error(
                &format!("{function}()'s first argument"),
                "a pattern name (str) or a configuration mapping",
                first,
            )
        })?;
        if given.iter().any(|a| a.is_some()) {
            return Err(PyTypeError::new_err(format!(
                "{function}() takes a configuration either as one mapping or as arguments \
                 (pattern, m, n, k, ...), not both"
            )));
        }
        Fields::of_mapping(function, &mapping)
    }

    /// The fields of a configuration mapping; unknown keys are refused.
    fn of_mapping(function: &str, mapping: &Bound<'py, PyMapping>) -> PyResult<Self> {
        let mut f = Fields::default();
        for item in mapping.items()?.iter() {
            let (key, value): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
            let key = key
                .cast::<PyString>()
                .map_err(|_| args::type_error("a configuration key", "a str", &key))?
                .to_cow()?
                .into_owned();
            let value = (!value.is_none()).then_some(value);
            if !config_fields().contains(&key) && key != "release" {
                return Err(PyValueError::new_err(format!(
                    "{function}(): unknown configuration field `{key}`; expected {}",
                    config_fields().join(", ")
                )));
            }
            let slot = match key.as_str() {
                "pattern" => &mut f.pattern,
                "m" => &mut f.m,
                "n" => &mut f.n,
                "k" => &mut f.k,
                "x" => &mut f.x,
                "dtype" => &mut f.dtype,
                "num_warps" => &mut f.num_warps,
                "num_stages" => &mut f.num_stages,
                "arch" => &mut f.arch,
                "num_ctas" => &mut f.num_ctas,
                "variant" => &mut f.variant,
                "triton" | "release" => {
                    if f.triton.is_some() {
                        return Err(PyValueError::new_err(format!(
                            "{function}(): the configuration names its release twice \
                             (`triton` and `release`)"
                        )));
                    }
                    &mut f.triton
                }
                other => {
                    return Err(PyValueError::new_err(format!(
                        "{function}(): the configuration field `{other}` is not read here"
                    )));
                }
            };
            *slot = value;
        }
        if f.pattern.is_none() {
            return Err(PyValueError::new_err(format!(
                "{function}(): the configuration has no `pattern`"
            )));
        }
        Ok(f)
    }

    /// The configuration without its release.
    pub fn kernel(&self, function: &str) -> PyResult<Kernel> {
        let pattern: Pattern = parsed(self.pattern.as_ref(), "pattern")?
            .ok_or_else(|| PyTypeError::new_err(format!("{function}() needs a pattern")))?;
        let size = |obj: &Option<Bound<'py, PyAny>>, name: &str| -> PyResult<u64> {
            match obj {
                Some(o) => config_int(o, name),
                None => Err(PyTypeError::new_err(format!(
                    "{function}() needs {name} (a block size of pattern {})",
                    pattern.name()
                ))),
            }
        };
        // `k` is 0 for a pattern that takes none (the crate's `null`)
        let k = match (&self.k, pattern.takes_k()) {
            (None, false) => 0,
            (k, _) => size(k, "k")?,
        };
        let optional = |obj: &Option<Bound<'py, PyAny>>, name: &str| {
            obj.as_ref().map(|o| config_int(o, name)).transpose()
        };
        Ok(Kernel(KernelFields {
            pattern,
            m: size(&self.m, "m")?,
            n: size(&self.n, "n")?,
            k,
            x: optional(&self.x, "x")?,
            dtype: parsed(self.dtype.as_ref(), "dtype")?,
            num_warps: optional(&self.num_warps, "num_warps")?,
            num_stages: optional(&self.num_stages, "num_stages")?,
            arch: parsed(self.arch.as_ref(), "arch")?,
            num_ctas: optional(&self.num_ctas, "num_ctas")?,
            variant: parsed::<Variant>(self.variant.as_ref(), "variant")?,
        }))
    }
}

/// A configuration without its release: the fields given, the crate's
/// defaults for the rest (`KernelFields::config`).
#[derive(Clone)]
pub(crate) struct Kernel(KernelFields);

impl Kernel {
    /// The configuration in `triton`.
    pub fn config(&self, triton: Release) -> Config {
        self.0.config(triton)
    }

    /// The release a development build is modelled on, if the configuration
    /// names one.
    pub fn variant_release(&self) -> Option<Release> {
        self.0.variant.map(Variant::release)
    }
}

/// A mapping, a `Record` (its data) or a prediction record (its `config`).
fn as_mapping<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyMapping>> {
    if is_record(obj)? {
        let data = obj.call_method0("to_dict")?;
        let data = match data.get_item("config") {
            Ok(config) if !config.is_none() => config,
            _ => data,
        };
        return Ok(data.cast_into::<PyMapping>()?);
    }
    Ok(obj.cast::<PyMapping>()?.clone())
}

/// A name field (`pattern`, `dtype`, ...) read with the crate's parser.
fn parsed<T: FromStr<Err = String>>(
    obj: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Option<T>> {
    let Some(obj) = obj else { return Ok(None) };
    let text = obj
        .cast::<PyString>()
        .map_err(|_| args::type_error(what, "a str", obj))?
        .to_cow()?;
    text.parse().map(Some).map_err(PyValueError::new_err)
}

/// An integer field; one outside `u64` is out of the finder's space.
fn config_int(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    match args::int(obj, name)? {
        Int::Fits(v) => Ok(v),
        Int::Outside { text, .. } => Err(PyValueError::new_err(format!(
            "invalid configuration: {name} = {text} is outside the modelled space"
        ))),
    }
}

/// One release: a name the crate parses (`"3.2"`, `"3.3.1"`, `"newest"`).
pub(crate) fn one_release(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Release> {
    let text = obj
        .cast::<PyString>()
        .map_err(|_| args::type_error(what, "a release name (str)", obj))?
        .to_cow()?;
    parse_release(&text)
}

fn parse_release(text: &str) -> PyResult<Release> {
    text.parse::<Release>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The releases asked about: `"all"`, one name, names separated by commas,
/// or a sequence of names; duplicates dropped, in the order given.
pub(crate) fn release_list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Release>> {
    let mut names: Vec<String> = Vec::new();
    if let Ok(s) = obj.cast::<PyString>() {
        names.extend(s.to_cow()?.split(',').map(|n| n.trim().to_string()));
    } else {
        args::each(
            obj,
            "release",
            "\"all\", a release name or a sequence of them",
            |item| {
                let s = item
                    .cast::<PyString>()
                    .map_err(|_| args::type_error("a release", "a release name (str)", item))?;
                names.push(s.to_cow()?.trim().to_string());
                Ok(())
            },
        )?;
    }
    if names.iter().any(|n| n == "all") {
        return Ok(Release::ALL.to_vec());
    }
    if names.is_empty() {
        return Err(PyValueError::new_err(
            "no release given (use \"all\" for every one)",
        ));
    }
    let mut out = Vec::new();
    for name in &names {
        let r = parse_release(name)?;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(out)
}
