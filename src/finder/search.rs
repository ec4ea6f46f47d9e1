//! Enumerating the parameter space: which configurations fail where, the
//! smallest reproducer per site, and the release that fixes each failure.

use super::config::{Arch, Config, Dtype, Pattern, Variant};
use super::predict::predict_traced;
use super::verdict::{Prediction, Verdict};
use crate::triton::TritonVersion;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// The space to enumerate.
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
    /// Releases.
    pub releases: Vec<TritonVersion>,
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
            releases: TritonVersion::ALL.to_vec(),
            variant: None,
        }
    }
}

impl Space {
    /// Every configuration, releases innermost.
    pub fn configs(&self) -> Vec<Config> {
        let mut out = Vec::new();
        for &pattern in &self.patterns {
            let xs: Vec<Option<u64>> = if pattern.is_chain() {
                self.sizes.iter().map(|&x| Some(x)).collect()
            } else {
                vec![None]
            };
            for &m in &self.sizes {
                for &n in &self.sizes {
                    for &k in &self.sizes {
                        for &x in &xs {
                            for &dtype in &self.dtypes {
                                for &num_warps in &self.warps {
                                    for &num_stages in &self.stages {
                                        for &arch in &self.archs {
                                            for &triton in &self.releases {
                                                out.push(Config {
                                                    pattern,
                                                    m,
                                                    n,
                                                    k,
                                                    x,
                                                    dtype,
                                                    num_warps,
                                                    num_stages,
                                                    arch,
                                                    triton,
                                                    variant: self.variant,
                                                });
                                            }
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
}

/// The failures at one site in one release.
#[derive(Clone, Debug)]
pub struct SiteGroup {
    /// The release.
    pub release: TritonVersion,
    /// How the compile ends there.
    pub verdict: Verdict,
    /// The site.
    pub site: String,
    /// Every failing configuration.
    pub configs: Vec<Config>,
    /// The smallest (fewest elements, then fewest warps).
    pub minimal: Config,
    /// Its prediction, with steps.
    pub minimal_prediction: Prediction,
}

/// What became of a failing configuration in later releases.
#[derive(Clone, Debug)]
pub struct Fix {
    /// The first later release that compiles it, if any.
    pub fixed_in: Option<TritonVersion>,
    /// The modelled change responsible.
    pub change: String,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Report {
    /// Configurations predicted.
    pub total: usize,
    /// Failing ones.
    pub failing: usize,
    /// Failures grouped by (release, site).
    pub groups: Vec<SiteGroup>,
}

/// What removes each site's failures, keyed by a word of the site's name
/// (the first match wins; `{to}` is the release that compiles the
/// configuration). The stmatrix sites, fixed in two steps, are handled
/// before the table.
const FIXES: &[(&str, &str)] = &[
    (
        "nvidiaMma",
        "PR #4283 (3.2): the Hopper MMA conversion admits instruction N = 8",
    ),
    (
        "hopperMma",
        "PR #4283 (3.2): the Hopper MMA conversion admits instruction N = 8",
    ),
    (
        "MemoryOpToLLVM",
        "{to}: rank-3 local_load is lowered through linear layouts",
    ),
    (
        "AsyncCopyGlobalToLocal",
        "PR #5905 (3.3): a pipelined rank-3 load's shared buffer keeps the load's order, so the copy vectorises again",
    ),
    (
        "dot shape check",
        "{to}: the front end no longer asks this dot for K >= 32 (3.2 moved the size check to the target, whose int8 test misses block types)",
    ),
    (
        "MMA v5 operand",
        "{to}: the NVMMA encoding builder no longer gives up on an MMA v5 operand narrower than 32 bytes",
    ),
    (
        "getMMAVersionSafe",
        "3.3: the MMA version chooser knows Blackwell (v5 then v2 below cc 110, v2 alone below 130)",
    ),
    (
        "lowerMmaToDotOperand",
        "{to}: the MMA v2 → operand A shortcut packs P into 32-bit words and no longer reorders them in groups of four",
    ),
    (
        "dot accumulator check",
        "{to}: `tl.dot`'s `out_dtype` defaults to the accumulator's type",
    ),
    ("semantic", "none: fp8e4nv needs sm89+ in every release"),
];

/// The change that makes a site's failures go away, as modelled.
pub fn fix_note(site: &str, from: TritonVersion, to: TritonVersion) -> String {
    if site.contains("reshapeOuts") || site.contains("chooseStMatrixLayout") {
        return if to == TritonVersion::V3_4 {
            "PR #6609 (3.4): local_alloc finds stmatrix by layout division and falls back to plain stores; the hand-built leading-offset chooser is no longer called".into()
        } else {
            "PR #7703 (3.5): the hand-built stmatrix choosers are deleted".into()
        };
    }
    match FIXES.iter().find(|(word, _)| site.contains(word)) {
        Some((_, note)) => note.replace("{to}", &to.to_string()),
        None => format!("{from} → {to}: the site no longer fails"),
    }
}

/// For a failing configuration, the first later release that compiles it
/// (for a development build, its own release counts: it came later).
pub fn fix_for(cfg: &Config, site: &str) -> Fix {
    let later = TritonVersion::ALL
        .into_iter()
        .filter(|&v| v > cfg.triton || (cfg.variant.is_some() && v == cfg.triton));
    for v in later {
        let c = Config {
            triton: v,
            variant: None,
            ..cfg.clone()
        };
        if let Ok(p) = predict_traced(&c, false) {
            if p.verdict == Verdict::Ok {
                return Fix {
                    fixed_in: Some(v),
                    change: fix_note(site, cfg.triton, v),
                };
            }
        }
    }
    Fix {
        fixed_in: None,
        change: "no modelled release compiles it".into(),
    }
}

/// Predicts every configuration of `space` (in parallel), calling
/// `progress(done)` now and then.
pub fn search(space: &Space, progress: &(dyn Fn(usize) + Sync)) -> Report {
    let configs = space.configs();
    let total = configs.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<(Config, Verdict, String)> = configs
        .par_chunks(4096)
        .flat_map_iter(|chunk| {
            let out: Vec<(Config, Verdict, String)> = chunk
                .iter()
                .filter_map(|c| {
                    let p = predict_traced(c, false).ok()?;
                    (p.verdict != Verdict::Ok)
                        .then(|| (c.clone(), p.verdict, p.site.unwrap_or_default()))
                })
                .collect();
            let n = done.fetch_add(chunk.len(), std::sync::atomic::Ordering::Relaxed) + chunk.len();
            progress(n);
            out
        })
        .collect();
    let failing = failures.len();
    let mut by_site: BTreeMap<(TritonVersion, String), (Verdict, Vec<Config>)> = BTreeMap::new();
    for (c, v, site) in failures {
        by_site
            .entry((c.triton, site))
            .or_insert((v, Vec::new()))
            .1
            .push(c);
    }
    let groups = by_site
        .into_iter()
        .map(|((release, site), (verdict, mut configs))| {
            configs.sort_by_key(|c| (c.elements(), c.num_warps, c.num_stages));
            let minimal = configs[0].clone();
            let minimal_prediction =
                predict_traced(&minimal, true).unwrap_or_else(|_| Prediction::ok(Vec::new()));
            SiteGroup {
                release,
                verdict,
                site,
                configs,
                minimal,
                minimal_prediction,
            }
        })
        .collect();
    Report {
        total,
        failing,
        groups,
    }
}

/// The smallest configuration failing at the same site as `cfg`: shrinks
/// the sizes, warps and stages one step at a time while the site stays the
/// same.
pub fn shrink(cfg: &Config) -> Option<(Config, Prediction)> {
    let start = predict_traced(cfg, false).ok()?;
    let site = start.site.clone()?;
    let same = |c: &Config| {
        predict_traced(c, false)
            .ok()
            .is_some_and(|p| p.site.as_deref() == Some(site.as_str()))
    };
    let mut best = cfg.clone();
    loop {
        let mut candidates: Vec<Config> = Vec::new();
        let halve = |v: u64| (v / 2).max(16);
        for field in 0..6 {
            let mut c = best.clone();
            match field {
                0 => c.m = halve(c.m),
                1 => c.n = halve(c.n),
                2 => c.k = halve(c.k),
                3 => c.x = c.x.map(halve),
                4 => c.num_warps = (c.num_warps / 2).max(1),
                _ => c.num_stages = (c.num_stages - 1).max(1),
            }
            if c != best && same(&c) {
                candidates.push(c);
            }
        }
        match candidates
            .into_iter()
            .min_by_key(|c| (c.elements(), c.num_warps, c.num_stages))
        {
            Some(c) => best = c,
            None => break,
        }
    }
    let p = predict_traced(&best, true).ok()?;
    Some((best, p))
}
