//! The kernel-configuration fields as callers give them: the command line
//! (`predict`, `shrink`, `repro`) and the Python extension (`predict`,
//! `fix_for`) take a configuration field by field, with defaults for the
//! fields left out, and build a [`Config`].
//!
//! The fields are [`Config`]'s, by the names of its JSON form
//! ([`config_fields`], derived from it); the defaults and the rules for a
//! field a pattern does not take (`k` for `scan`, `x` outside the chains)
//! are [`KernelFields::config`]'s, here only.

use crate::Release;
use crate::finder::{Arch, Config, Dtype, Pattern, Variant};
use std::sync::OnceLock;

/// The value of each field a caller may leave out.
#[derive(Debug)]
pub struct Defaults {
    /// The pattern (the command line's; Python names one).
    pub pattern: Pattern,
    /// The block sizes `m`, `n`, `k` (the command line's; Python gives
    /// them).
    pub size: u64,
    /// The chain patterns' second size.
    pub x: u64,
    /// The element type.
    pub dtype: Dtype,
    /// Warps per program.
    pub num_warps: u64,
    /// Pipeline stages.
    pub num_stages: u64,
    /// The target.
    pub arch: Arch,
    /// CTAs per program.
    pub num_ctas: u64,
}

/// The defaults: flash-linear-attention's chained dots (`chain-b`, 64 ×
/// 64 × 64, bf16, 8 warps, 2 stages) on Hopper, one CTA.
pub const DEFAULTS: Defaults = Defaults {
    pattern: Pattern::ChainB,
    size: 64,
    x: 64,
    dtype: Dtype::Bf16,
    num_warps: 8,
    num_stages: 2,
    arch: Arch::Sm90,
    num_ctas: 1,
};

/// A configuration without its release, each field as given (`None`: left
/// out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelFields {
    /// The pattern.
    pub pattern: Pattern,
    /// Block size M.
    pub m: u64,
    /// Block size N.
    pub n: u64,
    /// Block size K; a pattern that takes none (`scan`) ignores it.
    pub k: u64,
    /// The chain patterns' second size (default [`Defaults::x`] for them).
    pub x: Option<u64>,
    /// The element type.
    pub dtype: Option<Dtype>,
    /// Warps per program.
    pub num_warps: Option<u64>,
    /// Pipeline stages.
    pub num_stages: Option<u64>,
    /// The target.
    pub arch: Option<Arch>,
    /// CTAs per program.
    pub num_ctas: Option<u64>,
    /// A development build on top of the release.
    pub variant: Option<Variant>,
}

impl KernelFields {
    /// The configuration in `triton`, the defaults filled in: `k` is 0
    /// for a pattern that takes none, `x` defaults for the chain patterns
    /// only.
    pub fn config(&self, triton: Release) -> Config {
        Config {
            pattern: self.pattern,
            m: self.m,
            n: self.n,
            k: if self.pattern.takes_k() { self.k } else { 0 },
            x: self.x.or(self.pattern.is_chain().then_some(DEFAULTS.x)),
            dtype: self.dtype.unwrap_or(DEFAULTS.dtype),
            num_warps: self.num_warps.unwrap_or(DEFAULTS.num_warps),
            num_stages: self.num_stages.unwrap_or(DEFAULTS.num_stages),
            arch: self.arch.unwrap_or(DEFAULTS.arch),
            num_ctas: self.num_ctas.unwrap_or(DEFAULTS.num_ctas),
            triton,
            variant: self.variant,
        }
    }
}

/// The names of [`Config`]'s fields in its JSON form, in its order
/// (`pattern`, `m`, ..., `triton`, `variant`): read off the JSON text of a
/// configuration with every field set, so that a field added to it is here
/// too.
pub fn config_fields() -> &'static [String] {
    static FIELDS: OnceLock<Vec<String>> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let full = Config {
            pattern: Pattern::ChainB,
            m: 64,
            n: 64,
            k: 64,
            x: Some(64),
            dtype: Dtype::Bf16,
            num_warps: 8,
            num_stages: 2,
            arch: Arch::Sm90,
            num_ctas: 2,
            triton: Release::V3_3,
            variant: Some(Variant::Pre5905),
        };
        serde_json::to_string(&full)
            .and_then(|text| serde_json::from_str::<Keys>(&text))
            .map(|keys| keys.0)
            .unwrap_or_default()
    })
}

/// The keys of a JSON object, in the order of its text.
struct Keys(Vec<String>);

impl<'de> serde::Deserialize<'de> for Keys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> serde::de::Visitor<'de> for InOrder {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        d.deserialize_map(InOrder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_are_those_of_the_json_form_in_order() {
        let fields: Vec<&str> = config_fields().iter().map(String::as_str).collect();
        assert_eq!(
            fields,
            [
                "pattern",
                "m",
                "n",
                "k",
                "x",
                "dtype",
                "num_warps",
                "num_stages",
                "arch",
                "num_ctas",
                "triton",
                "variant"
            ]
        );
        let cfg = KernelFields {
            pattern: Pattern::Dot,
            m: 64,
            n: 32,
            k: 16,
            x: None,
            dtype: None,
            num_warps: None,
            num_stages: None,
            arch: None,
            num_ctas: Some(2),
            variant: None,
        }
        .config(Release::V3_9);
        let json = serde_json::to_value(&cfg).unwrap();
        for key in json.as_object().unwrap().keys() {
            assert!(fields.contains(&key.as_str()), "{key}");
        }
        // and the JSON form reads back with every field
        let back: Config = serde_json::from_value(json).unwrap();
        assert_eq!(back, cfg);
    }

    #[test]
    fn defaults_fill_what_a_pattern_takes() {
        let scan = KernelFields {
            pattern: Pattern::Scan,
            m: 32,
            n: 32,
            k: 99,
            x: None,
            dtype: None,
            num_warps: None,
            num_stages: None,
            arch: None,
            num_ctas: None,
            variant: None,
        };
        let cfg = scan.config(Release::V3_4);
        assert_eq!((cfg.k, cfg.x), (0, None));
        assert_eq!(cfg.dtype, DEFAULTS.dtype);
        assert_eq!(cfg.num_warps, DEFAULTS.num_warps);
        let chain = KernelFields {
            pattern: Pattern::ChainA,
            k: 16,
            ..scan
        };
        let cfg = chain.config(Release::V3_4);
        assert_eq!((cfg.k, cfg.x), (16, Some(DEFAULTS.x)));
    }
}
