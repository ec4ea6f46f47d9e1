//! A kernel's configuration space: its own `@triton.autotune` configs by
//! default, widened by the axes asked for, per target; and the cache key of
//! each configuration's front end.

use super::ScanError;
use super::args::{ArgValue, Args, to_worker};
use linear_layout_triton::finder::Arch;
use linear_layout_triton::report::Configuration;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What `inspect` says about a kernel (for one target).
#[derive(Clone, Debug)]
pub struct Inspection {
    /// The JIT function's name.
    pub name: String,
    /// `import`, or `bare packages` when the package's `__init__` could not
    /// run in the release's environment.
    pub import: String,
    /// `torch`, or `stand-in` when torch is not installed there.
    pub torch: String,
    /// The parameters: (name, constexpr, default as JSON when it has one).
    pub params: Vec<(String, bool, Option<Value>)>,
    /// The autotune configurations.
    pub autotune: Vec<Base>,
    /// Whether `@triton.heuristics` computes some constexprs.
    pub heuristics: Vec<String>,
    /// The digest of the code the TTGIR depends on.
    pub digest: String,
    /// The names the kernel's body reads.
    pub used: BTreeSet<String>,
    /// A standalone copy of the kernel's code, for reproducers.
    pub source: String,
}

impl Inspection {
    /// Reads the worker's `inspect` answer.
    pub fn from_json(v: &Value) -> Result<Inspection, ScanError> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let strings = |k: &str| -> Vec<String> {
            v.get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let params = v
            .get("params")
            .and_then(Value::as_array)
            .ok_or(ScanError::Incomplete("params"))?
            .iter()
            .map(|p| {
                let name = p
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let constexpr = p.get("constexpr").and_then(Value::as_bool).unwrap_or(false);
                let default = p
                    .get("has_default")
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
                    .then(|| p.get("default").cloned().unwrap_or(Value::Null));
                (name, constexpr, default)
            })
            .collect();
        let autotune = v
            .get("autotune")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(Base::from_json).collect())
            .unwrap_or_default();
        let heuristics = v
            .get("heuristics")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .flat_map(|x| x.as_array().cloned().unwrap_or_default())
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Inspection {
            name: s("kernel"),
            import: s("import"),
            torch: s("torch"),
            params,
            autotune,
            heuristics,
            digest: s("digest"),
            used: strings("used").into_iter().collect(),
            source: s("source"),
        })
    }
}

/// One autotune configuration (or the default one).
#[derive(Clone, Debug, PartialEq)]
pub struct Base {
    /// Its constexpr values.
    pub kwargs: Vec<(String, ArgValue)>,
    /// Warps.
    pub num_warps: u32,
    /// Stages.
    pub num_stages: u32,
    /// CTAs.
    pub num_ctas: u32,
    /// `maxnreg`, when set.
    pub maxnreg: Option<u32>,
    /// The other launch options ([`linear_layout_triton::LAUNCH_OPTIONS`]).
    pub options: Vec<(String, ArgValue)>,
}

impl Default for Base {
    /// Triton's defaults on CUDA: 4 warps, 3 stages, 1 CTA.
    fn default() -> Self {
        Base {
            kwargs: Vec::new(),
            num_warps: 4,
            num_stages: 3,
            num_ctas: 1,
            maxnreg: None,
            options: Vec::new(),
        }
    }
}

/// A constexpr value as the worker reports it.
fn value_of(v: &Value) -> ArgValue {
    match v {
        Value::String(s) => {
            if let Some(d) = s
                .strip_prefix("triton.language.")
                .or_else(|| s.strip_prefix("tl."))
            {
                ArgValue::TlDtype(d.to_string())
            } else {
                ArgValue::Str(s.clone())
            }
        }
        other => ArgValue::from_json(other).unwrap_or(ArgValue::Str(other.to_string())),
    }
}

impl Base {
    fn from_json(v: &Value) -> Base {
        let n = |k: &str| v.get(k).and_then(Value::as_u64).map(|x| x as u32);
        let kwargs = v
            .get("kwargs")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, x)| (k.clone(), value_of(x))).collect())
            .unwrap_or_default();
        let d = Base::default();
        Base {
            kwargs,
            num_warps: n("num_warps").unwrap_or(d.num_warps),
            num_stages: n("num_stages").unwrap_or(d.num_stages),
            num_ctas: n("num_ctas").unwrap_or(d.num_ctas),
            maxnreg: n("maxnreg"),
            options: Vec::new(),
        }
    }
}

/// The axes a scan widens the space with.
#[derive(Clone, Debug, Default)]
pub struct Axes {
    /// `--constexpr NAME=V1,V2`.
    pub constexprs: Vec<(String, Vec<ArgValue>)>,
    /// `--num-warps`.
    pub num_warps: Vec<u32>,
    /// `--num-stages`.
    pub num_stages: Vec<u32>,
    /// `--num-ctas`.
    pub num_ctas: Vec<u32>,
    /// `--dtype`: the values of `T` in the arguments.
    pub dtypes: Vec<String>,
    /// `--arch`.
    pub archs: Vec<Arch>,
    /// `--option NAME=V1,V2`: a launch option's values (`maxnreg` among
    /// them).
    pub options: Vec<(String, Vec<ArgValue>)>,
    /// An explicit configuration list (`--config`, `--configs`, `configs`
    /// in a spec): the bases instead of the kernel's autotune configs.
    pub configs: Vec<Base>,
    /// Whether the kernel's own autotune configurations are the base.
    pub autotune: bool,
}

/// One configuration of the space.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanConfig {
    /// The target.
    pub arch: Arch,
    /// The value of `T`, when the arguments use it.
    pub dtype: Option<String>,
    /// Constexpr values (the autotune config's, then the axes').
    pub kwargs: Vec<(String, ArgValue)>,
    /// Warps.
    pub num_warps: u32,
    /// Stages.
    pub num_stages: u32,
    /// CTAs.
    pub num_ctas: u32,
    /// `maxnreg`.
    pub maxnreg: Option<u32>,
    /// The other launch options, as given.
    pub options: Vec<(String, ArgValue)>,
    /// Which autotune configuration (or listed one) it came from, if any.
    pub autotune: Option<usize>,
}

impl fmt::Display for ScanConfig {
    /// `BLOCK=64 num_warps=4 num_stages=2 sm90` (and `*T=bf16`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, v) in &self.kwargs {
            write!(f, "{k}={v} ")?;
        }
        // The element type of the `*T` pointer arguments, written as the
        // pointers are: a kernel parameter may itself be named `T`.
        if let Some(t) = &self.dtype {
            write!(f, "*T={t} ")?;
        }
        write!(
            f,
            "num_warps={} num_stages={}",
            self.num_warps, self.num_stages
        )?;
        if self.num_ctas != 1 {
            write!(f, " num_ctas={}", self.num_ctas)?;
        }
        if let Some(r) = self.maxnreg {
            write!(f, " maxnreg={r}")?;
        }
        for (k, v) in &self.options {
            write!(f, " {k}={v}")?;
        }
        write!(f, " {}", self.arch.name())
    }
}

impl ScanConfig {
    /// The worker's options.
    pub fn options(&self) -> Value {
        let mut o = json!({"num_warps": self.num_warps, "num_stages": self.num_stages,
                           "num_ctas": self.num_ctas});
        if let Some(r) = self.maxnreg {
            o["maxnreg"] = json!(r);
        }
        for (k, v) in &self.options {
            o[k.as_str()] = v.to_worker();
        }
        o
    }

    /// The constexprs for the worker.
    pub fn kwargs_json(&self) -> BTreeMap<String, Value> {
        self.kwargs
            .iter()
            .map(|(k, v)| (k.clone(), v.to_worker()))
            .collect()
    }

    /// How configurations are ranked for the minimal one: the product of
    /// the integer constexprs, then warps, stages and CTAs.
    pub fn rank(&self) -> (u128, u32, u32, u32) {
        let size = self
            .kwargs
            .iter()
            .filter_map(|(_, v)| match v {
                ArgValue::Int { value: Some(n), .. } if *n > 0 => Some(*n as u128),
                _ => None,
            })
            .fold(1u128, |a, b| a.saturating_mul(b));
        (size, self.num_warps, self.num_stages, self.num_ctas)
    }
}

impl Configuration for ScanConfig {
    /// Its values, and its text.
    fn to_json(&self) -> Value {
        json!({
            "arch": self.arch.name(),
            "dtype": self.dtype,
            "constexprs": self.kwargs.iter().map(|(k, v)| (k.clone(), json!(v.to_string()))).collect::<serde_json::Map<_, _>>(),
            "num_warps": self.num_warps,
            "num_stages": self.num_stages,
            "num_ctas": self.num_ctas,
            "maxnreg": self.maxnreg,
            "options": self.options.iter().map(|(k, v)| (k.clone(), v.to_worker())).collect::<serde_json::Map<_, _>>(),
            "autotune_config": self.autotune,
            "text": self.to_string(),
        })
    }

    /// The constexprs, warps, CTAs and `maxnreg`: not the element type,
    /// the stages or the target.
    fn shape(&self) -> String {
        let mut s: String = self
            .kwargs
            .iter()
            .map(|(k, v)| format!("{k}={v} "))
            .collect();
        s += &format!(
            "num_warps={} num_ctas={} maxnreg={:?}",
            self.num_warps, self.num_ctas, self.maxnreg
        );
        for (k, v) in &self.options {
            s += &format!(" {k}={v}");
        }
        s
    }
}

/// Every configuration: per target, the bases (the autotune configs, or
/// Triton's defaults), each with every combination of the axes' values
/// (an axis replaces the base's value), deduplicated, in order.
pub fn expand(axes: &Axes, bases_for: &dyn Fn(Arch) -> Vec<Base>) -> Vec<ScanConfig> {
    let mut out: Vec<ScanConfig> = Vec::new();
    let dtypes: Vec<Option<String>> = if axes.dtypes.is_empty() {
        vec![None]
    } else {
        axes.dtypes.iter().cloned().map(Some).collect()
    };
    for &arch in &axes.archs {
        let autotuned = if !axes.configs.is_empty() {
            axes.configs.clone()
        } else if axes.autotune {
            bases_for(arch)
        } else {
            Vec::new()
        };
        let bases: Vec<(Option<usize>, Base)> = if autotuned.is_empty() {
            vec![(None, Base::default())]
        } else {
            autotuned
                .into_iter()
                .enumerate()
                .map(|(i, b)| (Some(i), b))
                .collect()
        };
        for (index, base) in &bases {
            let mut kwarg_sets: Vec<Vec<(String, ArgValue)>> = vec![base.kwargs.clone()];
            for (name, values) in &axes.constexprs {
                kwarg_sets = kwarg_sets
                    .into_iter()
                    .flat_map(|set| {
                        values.iter().map(move |v| {
                            let mut s = set.clone();
                            match s.iter_mut().find(|(n, _)| n == name) {
                                Some(slot) => slot.1 = v.clone(),
                                None => s.push((name.clone(), v.clone())),
                            }
                            s
                        })
                    })
                    .collect();
            }
            let pick = |axis: &[u32], base: u32| -> Vec<u32> {
                if axis.is_empty() {
                    vec![base]
                } else {
                    axis.to_vec()
                }
            };
            let option_sets = option_sets(&axes.options, base);
            for kwargs in &kwarg_sets {
                for (maxnreg, options) in &option_sets {
                    for &w in &pick(&axes.num_warps, base.num_warps) {
                        for &s in &pick(&axes.num_stages, base.num_stages) {
                            for &c in &pick(&axes.num_ctas, base.num_ctas) {
                                for dtype in &dtypes {
                                    let cfg = ScanConfig {
                                        arch,
                                        dtype: dtype.clone(),
                                        kwargs: kwargs.clone(),
                                        num_warps: w,
                                        num_stages: s,
                                        num_ctas: c,
                                        maxnreg: *maxnreg,
                                        options: options.clone(),
                                        autotune: *index,
                                    };
                                    if !out.iter().any(|o| same(o, &cfg)) {
                                        out.push(cfg);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// `maxnreg` and the other launch options of one configuration.
type OptionSet = (Option<u32>, Vec<(String, ArgValue)>);

/// Every combination of the option axes' values over a base's options
/// (an axis replaces the base's value): `maxnreg`, and the rest in order.
fn option_sets(axes: &[(String, Vec<ArgValue>)], base: &Base) -> Vec<OptionSet> {
    let mut sets = vec![(base.maxnreg, base.options.clone())];
    for (name, values) in axes {
        sets = sets
            .into_iter()
            .flat_map(|(maxnreg, set)| {
                values.iter().map(move |v| {
                    let mut s = set.clone();
                    if name == "maxnreg" {
                        let n = match v {
                            ArgValue::Int { value: Some(n), .. } => u32::try_from(*n).ok(),
                            _ => None,
                        };
                        return (n, s);
                    }
                    match s.iter_mut().find(|(n, _)| n == name) {
                        Some(slot) => slot.1 = v.clone(),
                        None => s.push((name.clone(), v.clone())),
                    }
                    (maxnreg, s)
                })
            })
            .collect();
    }
    sets
}

fn same(a: &ScanConfig, b: &ScanConfig) -> bool {
    ScanConfig {
        autotune: None,
        ..a.clone()
    } == ScanConfig {
        autotune: None,
        ..b.clone()
    }
}

/// The cache key of a configuration's front end in one release: the code
/// (the digest of the kernel's source and of everything it calls or
/// reads), the arguments as the launcher specialises them (their exact
/// values when heuristics may read them), the constexprs the code reads,
/// the options, the target, the release's interpreter and the worker.
pub fn front_end_key(
    kind: &str,
    inspection: &Inspection,
    args: &Args,
    cfg: &ScanConfig,
    interpreter_id: &str,
) -> String {
    let exact = !inspection.heuristics.is_empty();
    let arg_keys: BTreeMap<&str, Value> = args
        .iter()
        .map(|(n, v)| {
            let v = v
                .with_dtype(cfg.dtype.as_deref())
                .with_constexprs(&cfg.kwargs);
            (n.as_str(), v.key(exact))
        })
        .collect();
    // A constexpr the code never reads cannot change the TTGIR.
    let kwargs: BTreeMap<&str, Value> = cfg
        .kwargs
        .iter()
        .filter(|(n, _)| exact || inspection.used.contains(n))
        .map(|(n, v)| (n.as_str(), v.to_worker()))
        .collect();
    let doc = json!({
        "kind": kind,
        "worker": super::hash::hex(super::python::WORKER.as_bytes()),
        "python": interpreter_id,
        "code": inspection.digest,
        "args": arg_keys,
        "kwargs": kwargs,
        "options": cfg.options(),
        "target": target_key(cfg.arch),
    });
    super::hash::hex(doc.to_string().as_bytes())
}

/// The worker job for a configuration.
pub fn job(op: &str, id: usize, args: &Args, cfg: &ScanConfig) -> Value {
    json!({
        "id": id,
        "op": op,
        "args": to_worker(args, cfg.dtype.as_deref(), &cfg.kwargs),
        "kwargs": cfg.kwargs_json(),
        "options": cfg.options(),
        "heuristics": true,
    })
}

/// A target in a cache key: the compute capability, as keys have always
/// said for NVIDIA; the processor name for AMD.
pub(crate) fn target_key(arch: Arch) -> Value {
    match arch.capability() {
        Some(cc) => json!(cc),
        None => json!(arch.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pointers_element_type_is_not_shown_as_a_parameter_named_t() {
        let cfg = ScanConfig {
            arch: "sm90".parse().unwrap(),
            dtype: Some("fp16".into()),
            kwargs: vec![(
                "T".into(),
                ArgValue::Int {
                    value: Some(4),
                    wide: false,
                },
            )],
            num_warps: 4,
            num_stages: 2,
            num_ctas: 1,
            maxnreg: None,
            options: Vec::new(),
            autotune: None,
        };
        assert_eq!(cfg.to_string(), "T=4 *T=fp16 num_warps=4 num_stages=2 sm90");
    }

    #[test]
    fn a_listed_configuration_list_replaces_the_autotune_one_and_option_axes_widen_it() {
        let listed = crate::parse_config("BLOCK=64, num_warps=8, maxnreg=128").unwrap();
        let axes = Axes {
            archs: vec!["sm90".parse().unwrap()],
            autotune: true,
            configs: vec![listed.clone(), Base::default()],
            options: vec![
                (
                    "launch_pdl".into(),
                    vec![ArgValue::Bool(true), ArgValue::Bool(false)],
                ),
                ("maxnreg".into(), vec![ArgValue::parse("255").unwrap()]),
            ],
            ..Axes::default()
        };
        let autotune = |_| {
            vec![Base {
                num_warps: 2,
                ..Base::default()
            }]
        };
        let cfgs = expand(&axes, &autotune);
        let shown: Vec<String> = cfgs.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "BLOCK=64 num_warps=8 num_stages=3 maxnreg=255 launch_pdl=True sm90",
                "BLOCK=64 num_warps=8 num_stages=3 maxnreg=255 launch_pdl=False sm90",
                "num_warps=4 num_stages=3 maxnreg=255 launch_pdl=True sm90",
                "num_warps=4 num_stages=3 maxnreg=255 launch_pdl=False sm90",
            ]
        );
        assert_eq!(cfgs[0].options()["launch_pdl"], json!(true));
        assert_eq!(cfgs[0].options()["maxnreg"], json!(255));
        // without a list, the kernel's own
        let plain = Axes {
            configs: Vec::new(),
            options: Vec::new(),
            ..axes
        };
        assert_eq!(expand(&plain, &autotune)[0].num_warps, 2);
        assert_eq!(listed.maxnreg, Some(128));
    }
}
