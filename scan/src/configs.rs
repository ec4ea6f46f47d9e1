//! Configurations as the user lists them, and launch options: a kernel's
//! real autotune list written out (`--config 'BLOCK_M=64, num_warps=4,
//! maxnreg=128'`, `--configs FILE.json`, `configs = [...]` in a spec), and
//! the option axes (`--option launch_pdl=True,False`). A key is a launch
//! option when [`linear_layout_triton::LAUNCH_OPTIONS`] names it (or
//! `num_warps`, `num_stages`, `num_ctas`), else a constexpr.

use super::args::{ArgError, ArgValue, parse_axis, split_top};
use super::space::Base;
use linear_layout_triton::{OptionKind, launch_option, launch_options_list};
use serde_json::Value;

/// Whether `value` suits the launch option `name`; the reason when not
/// (an option no release knows included).
pub fn check_option(name: &str, value: &ArgValue) -> Result<(), String> {
    let Some(option) = launch_option(name) else {
        return Err(format!(
            "unknown launch option `{name}` (num_warps, num_stages, num_ctas, {})",
            launch_options_list()
        ));
    };
    let fits = match option.kind {
        OptionKind::Int => matches!(value, ArgValue::Int { value: Some(n), .. } if *n >= 0),
        OptionKind::Bool => matches!(value, ArgValue::Bool(_)),
        OptionKind::Str => matches!(value, ArgValue::Str(_)),
    };
    if !fits {
        let want = match option.kind {
            OptionKind::Int => "a non-negative integer",
            OptionKind::Bool => "True or False",
            OptionKind::Str => "a quoted string",
        };
        return Err(format!(
            "launch option `{name}` takes {want}, not `{value}`"
        ));
    }
    Ok(())
}

/// `--option NAME=V1,V2`: a launch option's values, each checked.
pub fn parse_option_axis(text: &str) -> Result<(String, Vec<ArgValue>), ArgError> {
    let (name, values) = parse_axis(text)?;
    for v in &values {
        check_option(&name, v).map_err(|reason| ArgError {
            entry: text.to_string(),
            reason,
        })?;
    }
    Ok((name, values))
}

/// Puts one `key = value` into a configuration: warps, stages, CTAs,
/// `maxnreg`, another launch option, or a constexpr.
fn set(base: &mut Base, key: &str, value: ArgValue) -> Result<(), String> {
    let count = |v: &ArgValue| match v {
        ArgValue::Int { value: Some(n), .. } if *n > 0 => u32::try_from(*n).ok(),
        _ => None,
    };
    let positive =
        |v: &ArgValue| count(v).ok_or(format!("`{key}` takes a positive integer, not `{v}`"));
    match key {
        "num_warps" => base.num_warps = positive(&value)?,
        "num_stages" => base.num_stages = positive(&value)?,
        "num_ctas" => base.num_ctas = positive(&value)?,
        "maxnreg" => base.maxnreg = Some(positive(&value)?),
        _ if launch_option(key).is_some() => {
            check_option(key, &value)?;
            base.options.retain(|(k, _)| k != key);
            base.options.push((key.to_string(), value));
        }
        _ if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            base.kwargs.retain(|(k, _)| k != key);
            base.kwargs.push((key.to_string(), value));
        }
        _ => return Err(format!("`{key}` is not a parameter or option name")),
    }
    Ok(())
}

/// One configuration written as `BLOCK_M=64, num_warps=4, maxnreg=128`.
pub fn parse_config(text: &str) -> Result<Base, ArgError> {
    let err = |reason: String| ArgError {
        entry: text.trim().to_string(),
        reason,
    };
    let mut base = Base::default();
    let mut any = false;
    for entry in split_top(text) {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let (key, value) = entry
            .split_once('=')
            .ok_or_else(|| err(format!("`{entry}`: expected NAME=VALUE")))?;
        let value =
            ArgValue::parse(value).map_err(|e| err(format!("`{}`: {}", key.trim(), e.reason)))?;
        set(&mut base, key.trim(), value).map_err(err)?;
        any = true;
    }
    if !any {
        return Err(err("an empty configuration".into()));
    }
    Ok(base)
}

/// One configuration from JSON (a `--configs` file or a spec): either flat
/// (`{"BLOCK_M": 64, "num_warps": 4}`) or as `triton.Config` holds it
/// (`{"kwargs": {"BLOCK_M": 64}, "num_warps": 4}`).
pub fn config_from_json(v: &Value) -> Result<Base, ArgError> {
    let err = |reason: String| ArgError {
        entry: v.to_string(),
        reason,
    };
    let obj = v
        .as_object()
        .ok_or_else(|| err("expected an object of NAME: VALUE".into()))?;
    let mut base = Base::default();
    for (key, value) in obj {
        if key == "kwargs" {
            let inner = value
                .as_object()
                .ok_or_else(|| err("`kwargs` must be an object".into()))?;
            for (k, x) in inner {
                let x = ArgValue::from_json(x).map_err(|e| err(format!("`{k}`: {}", e.reason)))?;
                set(&mut base, k, x).map_err(err)?;
            }
            continue;
        }
        let x = ArgValue::from_json(value).map_err(|e| err(format!("`{key}`: {}", e.reason)))?;
        set(&mut base, key, x).map_err(err)?;
    }
    Ok(base)
}

/// A `--configs` file or a spec's `configs`: a list of configurations;
/// an error names the entry (1-based).
pub fn configs_from_json(v: &Value) -> Result<Vec<Base>, String> {
    let list = v.as_array().ok_or("expected a list of configurations")?;
    list.iter()
        .enumerate()
        .map(|(i, c)| config_from_json(c).map_err(|e| format!("configuration {}: {e}", i + 1)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_splits_into_constexprs_and_options() {
        let b = parse_config("BLOCK_M=64, num_warps=8, maxnreg=128, launch_pdl=True, num_stages=2")
            .unwrap();
        assert_eq!((b.num_warps, b.num_stages, b.maxnreg), (8, 2, Some(128)));
        assert_eq!(b.kwargs.len(), 1);
        assert_eq!(b.options, vec![("launch_pdl".into(), ArgValue::Bool(true))]);
        let j = config_from_json(
            &serde_json::json!({"kwargs": {"BLOCK_M": 64}, "num_warps": 8,
            "maxnreg": 128, "launch_pdl": true, "num_stages": 2}),
        )
        .unwrap();
        assert_eq!(j, b);
    }

    #[test]
    fn bad_lines_name_the_key() {
        let e = parse_config("BLOCK_M=64, num_warps=0").unwrap_err();
        assert!(e.to_string().contains("num_warps"), "{e}");
        let e = parse_config("BLOCK_M").unwrap_err();
        assert!(e.to_string().contains("NAME=VALUE"), "{e}");
        let e = parse_config("launch_pdl=4").unwrap_err();
        assert!(e.to_string().contains("True or False"), "{e}");
        assert!(parse_config(" , ").is_err());
        let e = parse_option_axis("lanch_pdl=True").unwrap_err();
        assert!(
            e.to_string().contains("unknown launch option `lanch_pdl`"),
            "{e}"
        );
        assert!(parse_option_axis("maxnreg=128,255").is_ok());
        let e = configs_from_json(&serde_json::json!([{"num_warps": 4}, {"num_warps": "x"}]))
            .unwrap_err();
        assert!(e.starts_with("configuration 2:"), "{e}");
    }
}
