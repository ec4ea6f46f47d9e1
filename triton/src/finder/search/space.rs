//! The parameter space of a search: axes of values, checked up front with
//! [`Config::validate`]'s own rules, and enumerated lazily by index so that
//! memory does not grow with the space.

use crate::Release;
use crate::finder::config::{Arch, Config, Dtype, Pattern, Variant};

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
    /// The patterns enumerated on the AMD targets among `archs` (a pattern
    /// of `patterns` not listed here runs on the NVIDIA targets only; the
    /// AMD-only patterns never run on NVIDIA's).
    pub amd_patterns: Vec<Pattern>,
    /// CTAs per program (more than one only where the target takes it:
    /// sm90 and later).
    pub ctas: Vec<u64>,
    /// Releases whose failures are reported (each configuration's history
    /// is read over every later modelled release too).
    pub releases: Vec<Release>,
    /// A development build on top of every release (only 3.3 takes one).
    pub variant: Option<Variant>,
}

impl Default for Space {
    /// Every pattern, Ampere, Ada and Hopper (sm80, sm89, sm90) and every
    /// AMD target (gfx90a to gfx1250, from 3.4), one CTA and a cluster of
    /// two (on sm90: below it, and on AMD, more than one CTA is refused),
    /// every release, sizes 16–128. On the AMD targets: `dot`, `gather`
    /// (the thread-locality pass is common code) and the AMD loops
    /// (`attention`, `attention-bias`, `desc-dot`); the chains,
    /// `inductor-3d` and `scan` meet nothing there that `dot` does not
    /// (the front end's fp8 types, the lowering's target: measured), at
    /// thirty times the count.
    fn default() -> Self {
        let amd = Arch::ALL.into_iter().filter(|a| a.is_amd());
        Space {
            patterns: Pattern::ALL.to_vec(),
            sizes: vec![16, 32, 64, 128],
            dtypes: Dtype::ALL.to_vec(),
            warps: vec![1, 2, 4, 8, 16, 32],
            stages: vec![1, 2, 3, 4],
            archs: [Arch::Sm80, Arch::Sm89, Arch::Sm90]
                .into_iter()
                .chain(amd)
                .collect(),
            amd_patterns: vec![
                Pattern::Dot,
                Pattern::Gather,
                Pattern::Attention,
                Pattern::AttentionBias,
                Pattern::DescDot,
            ],
            ctas: vec![1, 2],
            releases: Release::ALL.to_vec(),
            variant: None,
        }
    }
}

/// The CTA counts searched when none are asked for: those of
/// [`Space::default`] that `newest`, the space's newest release, models (one
/// alone before 3.4).
pub fn default_ctas(newest: Release) -> Vec<u64> {
    Space::default()
        .ctas
        .into_iter()
        .filter(|&c| {
            let probe = Config {
                pattern: Pattern::Dot,
                m: 64,
                n: 64,
                k: 64,
                x: None,
                dtype: Dtype::Fp16,
                num_warps: 4,
                num_stages: 2,
                arch: Arch::Sm90,
                num_ctas: c,
                triton: newest,
                variant: None,
            };
            probe.validate().is_ok()
        })
        .collect()
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
    /// other respect (a size with any of the space's patterns, a CTA count
    /// on sm90). With `skip_invalid`, invalid values are dropped from the
    /// space and reported; otherwise the first one is the error. An axis
    /// left empty is an error either way. Combinations of valid values
    /// that no configuration can take (a dot of size 1, several CTAs on
    /// sm80) are left out as the space is enumerated.
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
            // The space's first target: a space of AMD targets alone asks
            // for releases that model AMD.
            arch: self.archs.first().copied().unwrap_or(Arch::Sm80),
            num_ctas: 1,
            triton: self.variant.map_or(Release::LATEST, |v| v.release()),
            variant: self.variant,
        };
        // A size is kept if one of the space's patterns takes it.
        let size_probe = |s: u64| -> Config {
            let pattern = if s < 16 {
                self.patterns
                    .iter()
                    .copied()
                    .find(|p| !p.has_dot())
                    .unwrap_or(Pattern::ChainA)
            } else {
                Pattern::ChainA
            };
            Config {
                pattern,
                m: s,
                k: if pattern.takes_k() { 64 } else { 0 },
                x: pattern.is_chain().then_some(s),
                ..probe.clone()
            }
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
            if keep("sizes", s.to_string(), size_probe(s))? {
                sizes.push(s);
            }
        }
        // A CTA count is kept if the space's newest release models it.
        let newest = self.releases.iter().copied().max().unwrap_or(probe.triton);
        let mut ctas = Vec::new();
        for &c in &self.ctas {
            let cfg = Config {
                num_ctas: c,
                arch: Arch::Sm90,
                triton: newest,
                ..probe.clone()
            };
            if keep("num-ctas", c.to_string(), cfg)? {
                ctas.push(c);
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
            // A release is kept if one of the space's targets takes it (AMD
            // targets from 3.4).
            let arch = self
                .archs
                .iter()
                .copied()
                .find(|&arch| {
                    Config {
                        arch,
                        triton: r,
                        ..probe.clone()
                    }
                    .validate()
                    .is_ok()
                })
                .unwrap_or(probe.arch);
            let cfg = Config {
                arch,
                triton: r,
                ..probe.clone()
            };
            if keep("triton", r.to_string(), cfg)? {
                releases.push(r);
            }
        }
        self.sizes = dedup(sizes);
        self.ctas = dedup(ctas);
        self.warps = dedup(warps);
        self.stages = dedup(stages);
        self.patterns = dedup(self.patterns);
        self.dtypes = dedup(self.dtypes);
        self.archs = dedup(self.archs);
        self.amd_patterns = dedup(self.amd_patterns);
        releases.sort();
        self.releases = dedup(releases);
        for (axis, empty) in [
            ("pattern", self.patterns.is_empty()),
            ("sizes", self.sizes.is_empty()),
            // Each pattern enumerates the dtypes it takes (scan and gather
            // the 16- and 32-bit floats); none at all is an empty space.
            (
                "dtype",
                self.patterns
                    .iter()
                    .all(|&p| self.dtypes_of(p).next().is_none()),
            ),
            ("num-warps", self.warps.is_empty()),
            ("num-stages", self.stages.is_empty()),
            ("arch", self.archs.is_empty()),
            ("num-ctas", self.ctas.is_empty()),
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

    /// The space's element types that `pattern` takes (a scan of int8 is
    /// not enumerated at all).
    fn dtypes_of(&self, pattern: Pattern) -> impl Iterator<Item = Dtype> + '_ {
        self.dtypes
            .iter()
            .copied()
            .filter(move |&d| pattern.takes_dtype(d))
    }

    /// The space's targets `pattern` is enumerated on.
    fn archs_of(&self, pattern: Pattern) -> impl Iterator<Item = Arch> + '_ {
        self.archs.iter().copied().filter(move |a| {
            if a.is_amd() {
                self.amd_patterns.contains(&pattern)
            } else {
                !pattern.amd_only()
            }
        })
    }

    /// Combinations of everything but the release, for one pattern (some
    /// of which no configuration takes: [`Space::base_config`]).
    fn per_pattern(&self, pattern: Pattern) -> u64 {
        let s = self.sizes.len() as u64;
        let dims = 2 + u32::from(pattern.takes_k()) + u32::from(pattern.is_chain());
        s.saturating_pow(dims)
            .saturating_mul(self.dtypes_of(pattern).count() as u64)
            .saturating_mul(self.warps.len() as u64)
            .saturating_mul(self.stages.len() as u64)
            .saturating_mul(self.archs_of(pattern).count() as u64)
            .saturating_mul(self.ctas.len() as u64)
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
    /// releases aside; `None` past the end, and for a combination no
    /// configuration takes (a dot of size 1, several CTAs below sm90).
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
            let num_ctas = self.ctas[digit(self.ctas.len())];
            let archs = self.archs_of(pattern).count();
            let arch = self.archs_of(pattern).nth(digit(archs))?;
            let stages = self.stages[digit(self.stages.len())];
            let warps = self.warps[digit(self.warps.len())];
            let dtypes = self.dtypes_of(pattern).count();
            let dtype = self.dtypes_of(pattern).nth(digit(dtypes))?;
            let x = if pattern.is_chain() {
                Some(self.sizes[digit(self.sizes.len())])
            } else {
                None
            };
            let k = if pattern.takes_k() {
                self.sizes[digit(self.sizes.len())]
            } else {
                0
            };
            let n = self.sizes[digit(self.sizes.len())];
            let m = self.sizes[digit(self.sizes.len())];
            let cfg = Config {
                pattern,
                m,
                n,
                k,
                x,
                dtype,
                num_warps: warps,
                num_stages: stages,
                arch,
                num_ctas,
                triton: *self.releases.first()?,
                variant: self.variant,
            };
            // Valid in the space's newest release: an older one may not
            // model it (several CTAs before 3.4), and its history skips it.
            let newest = Config {
                triton: *self.releases.last()?,
                ..cfg.clone()
            };
            return newest.validate().is_ok().then_some(cfg);
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
            amd_patterns: vec![],
            ctas: vec![1],
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
        // Size 1 is no dot's, but the default space's scan and gather take
        // it; a space of dots alone drops it.
        let (kept, skipped) = space.clone().validated(true).unwrap();
        assert_eq!(kept.sizes, vec![16, 1]);
        assert_eq!(kept.warps, vec![4]);
        assert_eq!(kept.stages, vec![2]);
        assert_eq!(skipped.values.len(), 3);
        let dots = Space {
            patterns: vec![Pattern::Dot, Pattern::ChainA],
            ..space
        };
        let (kept, skipped) = dots.validated(true).unwrap();
        assert_eq!(kept.sizes, vec![16]);
        assert_eq!(kept.warps, vec![4]);
        assert_eq!(kept.stages, vec![2]);
        assert_eq!(skipped.values.len(), 4);
        let only_bad = Space {
            stages: vec![0],
            ..Space::default()
        };
        assert!(only_bad.validated(true).is_err());
        // A scan enumerates only the dtypes it takes; a scan of int8 alone
        // is an empty space.
        let scans = Space {
            patterns: vec![Pattern::Scan],
            ..Space::default()
        };
        let (kept, _) = scans.clone().validated(false).unwrap();
        // 4² sizes (M, N) × 3 dtypes × 6 warp counts × 4 stages × 3 targets
        // (the NVIDIA ones: the default space scans on AMD only when asked)
        // × 2 CTA counts.
        assert_eq!(kept.base_count(), 16 * 3 * 6 * 4 * 3 * 2);
        let amd_scans = Space {
            amd_patterns: vec![Pattern::Scan],
            ..scans.clone()
        };
        let (kept, _) = amd_scans.validated(false).unwrap();
        assert_eq!(kept.base_count(), 16 * 3 * 6 * 4 * 9 * 2);
        let int8_scans = Space {
            dtypes: vec![Dtype::Int8],
            ..scans
        };
        assert_eq!(int8_scans.validated(true).unwrap_err().axis, "dtype");
    }

    #[test]
    fn several_ctas_are_searched_where_the_release_models_them() {
        assert_eq!(default_ctas(Release::V3_3), vec![1]);
        assert_eq!(default_ctas(Release::V3_4), vec![1, 2]);
        assert_eq!(default_ctas(Release::LATEST), vec![1, 2]);
        // Asked for by name, a count no release of the space models is
        // named.
        let old = Space {
            ctas: vec![1, 2],
            releases: vec![Release::V3_2],
            ..Space::default()
        };
        assert_eq!(old.validated(false).unwrap_err().axis, "num-ctas");
    }

    #[test]
    fn a_huge_space_is_counted_without_being_built() {
        let space = Space {
            sizes: vec![16, 32, 64, 128, 256, 512, 1024],
            stages: vec![1, 2, 3, 4],
            ..Space::default()
        };
        assert!(space.count() > 10_000_000);
        // The last index is the last pattern's last combination, two CTAs
        // on the last target, gfx1250, which no configuration takes; the
        // one before it is a descriptor matmul of 1024s in its last dtype
        // (bf16) with 32 warps and one CTA.
        assert_eq!(space.base_config(space.base_count() - 1), None);
        let last = space.base_config(space.base_count() - 2).unwrap();
        assert_eq!(last.pattern, Pattern::DescDot);
        assert_eq!(
            (
                last.m,
                last.n,
                last.k,
                last.dtype,
                last.num_warps,
                last.arch,
                last.num_ctas
            ),
            (1024, 1024, 1024, Dtype::Bf16, 32, Arch::Gfx1250, 1)
        );
        assert_eq!(space.base_config(space.base_count()), None);
    }
}
