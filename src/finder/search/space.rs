//! The parameter space of a search: axes of values, checked up front with
//! [`Config::validate`]'s own rules, and enumerated lazily by index so that
//! memory does not grow with the space.

use crate::finder::config::{Arch, Config, Dtype, Pattern, Variant};
use crate::triton::Release;

/// The space to enumerate: every combination of the axes' values.
#[derive(Clone, Debug)]
pub struct Space {
    /// Patterns.
    pub patterns: Vec<Pattern>,
    /// Block sizes for M, N, K (and X for chains).
    pub sizes: Vec<u64>,
    /// Element types.
    pub dtypes: Vec<Dtype>,
    /// Warps.
    pub warps: Vec<u64>,
    /// Pipeline stages.
    pub stages: Vec<u64>,
    /// Targets.
    pub archs: Vec<Arch>,
    /// Releases whose failures are reported (each configuration's history
    /// is read over every later modelled release too).
    pub releases: Vec<Release>,
    /// A development build on top of every release (only 3.3 takes one).
    pub variant: Option<Variant>,
}

impl Default for Space {
    /// Every pattern, Ampere, Ada and Hopper (sm80, sm89, sm90), every
    /// release, sizes 16–128.
    fn default() -> Self {
        Space {
            patterns: Pattern::ALL.to_vec(),
            sizes: vec![16, 32, 64, 128],
            dtypes: Dtype::ALL.to_vec(),
            warps: vec![1, 2, 4, 8, 16, 32],
            stages: vec![1, 2, 3, 4],
            archs: vec![Arch::Sm80, Arch::Sm89, Arch::Sm90],
            releases: Release::ALL.to_vec(),
            variant: None,
        }
    }
}

/// A value on an axis that no configuration can take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--{axis} {value}: {reason}")]
pub struct InvalidValue {
    /// The axis (`sizes`, `num-warps`, …).
    pub axis: &'static str,
    /// The value as given.
    pub value: String,
    /// Why, in `predict`'s words.
    pub reason: String,
}

/// What validation removed from a space.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// The values dropped, with why.
    pub values: Vec<InvalidValue>,
}

impl Space {
    /// Checks every value of every axis with the rules `predict` applies
    /// ([`Config::validate`]), on a configuration that is valid in every
    /// other respect. With `skip_invalid`, invalid values are dropped from
    /// the space and reported; otherwise the first one is the error. An
    /// axis left empty is an error either way.
    pub fn validated(mut self, skip_invalid: bool) -> Result<(Space, Skipped), InvalidValue> {
        let probe = Config {
            pattern: Pattern::ChainA,
            m: 64,
            n: 64,
            k: 64,
            x: Some(64),
            dtype: Dtype::Fp16,
            num_warps: 4,
            num_stages: 2,
            arch: Arch::Sm80,
            triton: self.variant.map_or(Release::LATEST, |v| v.release()),
            variant: self.variant,
        };
        let mut skipped = Skipped::default();
        let mut keep =
            |axis: &'static str, value: String, cfg: Config| -> Result<bool, InvalidValue> {
                match cfg.validate() {
                    Ok(()) => Ok(true),
                    Err(e) => {
                        let invalid = InvalidValue {
                            axis,
                            value,
                            reason: e.0,
                        };
                        if skip_invalid {
                            skipped.values.push(invalid);
                            Ok(false)
                        } else {
                            Err(invalid)
                        }
                    }
                }
            };
        let mut sizes = Vec::new();
        for &s in &self.sizes {
            let cfg = Config {
                m: s,
                x: Some(s),
                ..probe.clone()
            };
            if keep("sizes", s.to_string(), cfg)? {
                sizes.push(s);
            }
        }
        let mut warps = Vec::new();
        for &w in &self.warps {
            let cfg = Config {
                num_warps: w,
                ..probe.clone()
            };
            if keep("num-warps", w.to_string(), cfg)? {
                warps.push(w);
            }
        }
        let mut stages = Vec::new();
        for &st in &self.stages {
            let cfg = Config {
                num_stages: st,
                ..probe.clone()
            };
            if keep("num-stages", st.to_string(), cfg)? {
                stages.push(st);
            }
        }
        let mut releases = Vec::new();
        for &r in &self.releases {
            let cfg = Config {
                triton: r,
                ..probe.clone()
            };
            if keep("triton", r.to_string(), cfg)? {
                releases.push(r);
            }
        }
        self.sizes = dedup(sizes);
        self.warps = dedup(warps);
        self.stages = dedup(stages);
        self.patterns = dedup(self.patterns);
        self.dtypes = dedup(self.dtypes);
        self.archs = dedup(self.archs);
        releases.sort();
        self.releases = dedup(releases);
        for (axis, empty) in [
            ("pattern", self.patterns.is_empty()),
            ("sizes", self.sizes.is_empty()),
            ("dtype", self.dtypes.is_empty()),
            ("num-warps", self.warps.is_empty()),
            ("num-stages", self.stages.is_empty()),
            ("arch", self.archs.is_empty()),
            ("triton", self.releases.is_empty()),
        ] {
            if empty {
                return Err(InvalidValue {
                    axis,
                    value: "(none)".into(),
                    reason: "no valid value left on this axis".into(),
                });
            }
        }
        Ok((self, skipped))
    }

    /// Combinations of everything but the release, for one pattern.
    fn per_pattern(&self, pattern: Pattern) -> u64 {
        let s = self.sizes.len() as u64;
        let sizes = if pattern.is_chain() {
            s.saturating_pow(4)
        } else {
            s.saturating_pow(3)
        };
        sizes
            .saturating_mul(self.dtypes.len() as u64)
            .saturating_mul(self.warps.len() as u64)
            .saturating_mul(self.stages.len() as u64)
            .saturating_mul(self.archs.len() as u64)
    }

    /// The number of configurations without their release.
    pub fn base_count(&self) -> u64 {
        self.patterns
            .iter()
            .fold(0u64, |n, &p| n.saturating_add(self.per_pattern(p)))
    }

    /// The number of configurations reported on: each base configuration
    /// in each release of the space.
    pub fn count(&self) -> u64 {
        self.base_count().saturating_mul(self.releases.len() as u64)
    }

    /// The `index`-th configuration without its release (`triton` is the
    /// first release of the space), in the order the axes are listed,
    /// releases aside; `None` past the end.
    pub fn base_config(&self, mut index: u64) -> Option<Config> {
        for &pattern in &self.patterns {
            let n = self.per_pattern(pattern);
            if index >= n {
                index -= n;
                continue;
            }
            let mut digit = |len: usize| {
                let d = (index % len as u64) as usize;
                index /= len as u64;
                d
            };
            // The last axis varies fastest.
            let arch = self.archs[digit(self.archs.len())];
            let stages = self.stages[digit(self.stages.len())];
            let warps = self.warps[digit(self.warps.len())];
            let dtype = self.dtypes[digit(self.dtypes.len())];
            let x = if pattern.is_chain() {
                Some(self.sizes[digit(self.sizes.len())])
            } else {
                None
            };
            let k = self.sizes[digit(self.sizes.len())];
            let n = self.sizes[digit(self.sizes.len())];
            let m = self.sizes[digit(self.sizes.len())];
            return Some(Config {
                pattern,
                m,
                n,
                k,
                x,
                dtype,
                num_warps: warps,
                num_stages: stages,
                arch,
                triton: *self.releases.first()?,
                variant: self.variant,
            });
        }
        None
    }
}

/// The values in their first order, each once.
fn dedup<T: PartialEq + Copy>(values: Vec<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(values.len());
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_decodes_to_a_distinct_configuration() {
        let space = Space {
            patterns: vec![Pattern::Dot, Pattern::ChainB],
            sizes: vec![16, 32],
            dtypes: vec![Dtype::Fp16, Dtype::Int8],
            warps: vec![4, 8],
            stages: vec![1],
            archs: vec![Arch::Sm80],
            releases: vec![Release::V3_2],
            variant: None,
        };
        let n = space.base_count();
        // dot: 2^3 sizes × 2 dtypes × 2 warps; chain-b: 2^4 sizes × the same.
        assert_eq!(n, 8 * 4 + 16 * 4);
        let mut seen = std::collections::HashSet::new();
        for i in 0..n {
            let c = space.base_config(i).unwrap();
            assert!(c.validate().is_ok(), "{c}");
            assert!(seen.insert(c));
        }
        assert_eq!(space.base_config(n), None);
    }

    #[test]
    fn invalid_values_are_named_or_skipped() {
        let space = Space {
            sizes: vec![16, 2048, 1],
            warps: vec![4, 64],
            stages: vec![0, 2],
            ..Space::default()
        };
        let err = space.clone().validated(false).unwrap_err();
        assert_eq!((err.axis, err.value.as_str()), ("sizes", "2048"));
        let (kept, skipped) = space.validated(true).unwrap();
        assert_eq!(kept.sizes, vec![16]);
        assert_eq!(kept.warps, vec![4]);
        assert_eq!(kept.stages, vec![2]);
        assert_eq!(skipped.values.len(), 4);
        let only_bad = Space {
            stages: vec![0],
            ..Space::default()
        };
        assert!(only_bad.validated(true).is_err());
    }

    #[test]
    fn a_huge_space_is_counted_without_being_built() {
        let space = Space {
            sizes: vec![16, 32, 64, 128, 256, 512, 1024],
            stages: vec![1, 2, 3, 4],
            ..Space::default()
        };
        assert!(space.count() > 10_000_000);
        assert!(space.base_config(space.base_count() - 1).is_some());
    }
}
