//! Arbitrary finder configurations into `predict`: never a panic, always a
//! verdict or a typed `ConfigError` (exactly when `validate` refuses the
//! configuration). A failing configuration shrinks to one failing at the
//! same site, and the release said to fix it does compile it.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use linear_layout_triton::finder::search::{fix_for, shrink};
use linear_layout_triton::finder::{
    Arch, Config, Dtype, Pattern, Variant, Verdict, check_ttgir, predict, predict_traced, repro,
};
use linear_layout_triton::Release;

/// A block size: mostly a power of two (1 to 2048), or any `u16`.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Size {
    Pow(u8),
    Raw(u16),
}

impl Size {
    fn get(self) -> u64 {
        match self {
            Size::Pow(v) => 1 << (v % 12),
            Size::Raw(v) => v as u64,
        }
    }
}

/// Warps: mostly a power of two (1 to 64), or any `u16`.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Warps {
    Pow(u8),
    Raw(u16),
}

#[derive(Arbitrary, Debug)]
struct Input {
    pattern: u8,
    m: Size,
    n: Size,
    k: Size,
    x: Option<Size>,
    dtype: u8,
    warps: Warps,
    stages: u8,
    arch: u8,
    ctas: u8,
    release: u8,
    pre_5905: bool,
}

fn pick<T: Copy>(options: &[T], i: u8) -> T {
    options[i as usize % options.len()]
}

impl Input {
    fn config(&self) -> Config {
        Config {
            pattern: pick(&Pattern::ALL, self.pattern),
            m: self.m.get(),
            n: self.n.get(),
            k: self.k.get(),
            x: self.x.map(Size::get),
            dtype: pick(&Dtype::ALL, self.dtype),
            num_warps: match self.warps {
                Warps::Pow(v) => 1 << (v % 7),
                Warps::Raw(v) => v as u64,
            },
            num_stages: if self.stages < 0xf0 {
                1 + self.stages as u64 % 4
            } else {
                (self.stages - 0xf0) as u64
            },
            arch: pick(&Arch::ALL, self.arch),
            // Mostly 1, 2, 4 or 8 CTAs; sometimes any count.
            num_ctas: if self.ctas < 0xf0 {
                1 << (self.ctas % 4)
            } else {
                (self.ctas - 0xf0) as u64
            },
            triton: pick(&Release::ALL, self.release),
            variant: self.pre_5905.then_some(Variant::Pre5905),
        }
    }
}

fuzz_target!(|input: Input| {
    let cfg = input.config();
    let valid = cfg.validate();
    let p = match predict(&cfg) {
        Err(e) => {
            assert!(
                valid.is_err(),
                "predict refused a valid configuration {cfg}: {e}"
            );
            assert!(!e.to_string().is_empty());
            return;
        }
        Ok(p) => p,
    };
    assert!(
        valid.is_ok(),
        "predict accepted an invalid configuration {cfg}"
    );

    // The verdict and its failure agree, traced or not, and the failure's
    // location is its site's, in its release.
    let failing = p.verdict != Verdict::Ok;
    assert_eq!(p.failure.is_some(), failing, "{cfg}: {p:?}");
    if let Some(f) = &p.failure {
        assert_eq!(f.release, cfg.triton, "{cfg}: {f}");
        assert!(f.location.releases.contains(f.release), "{cfg}: {f}");
        assert!(
            f.site.locations.iter().any(|l| std::ptr::eq(*l, f.location)),
            "{cfg}: {f}"
        );
    }
    let quiet = predict_traced(&cfg, false).expect("valid configuration");
    assert_eq!(
        (quiet.verdict, &quiet.failure),
        (p.verdict, &p.failure),
        "tracing changes the prediction of {cfg}"
    );

    // The configuration round-trips through JSON.
    let json = serde_json::to_string(&cfg).expect("serializes");
    let back: Config = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(back, cfg);

    // The reproducers render.
    let expect = p.verdict.to_string();
    assert!(!repro::python_script(&cfg, &expect).is_empty());
    // A module is written only for a failure it reproduces: check-ttgir
    // blames its one store at the same site.
    if let Some(module) = repro::ttgir_module(&cfg, p.failure.as_ref().map(|f| f.site)) {
        let findings = check_ttgir::check(&module, cfg.triton)
            .unwrap_or_else(|e| panic!("the reproducer module of {cfg} does not check: {e}\n{module}"));
        assert!(
            findings.iter().any(|f| Some(f.failure.site.id) == p.site_id()),
            "the reproducer module of {cfg} does not fail at {:?}: {findings:?}\n{module}",
            p.site_id()
        );
    }

    let Some(site) = p.site_id() else { return };
    let Some((small, sp)) = shrink(&cfg) else {
        panic!("shrink found nothing for failing {cfg} at {site}");
    };
    assert!(small.validate().is_ok(), "shrunk {small} is invalid");
    assert_eq!(sp.site_id(), Some(site), "shrunk {small} fails elsewhere");
    assert_eq!(sp.verdict, p.verdict, "shrunk {small} ends differently");
    let again = predict(&small).expect("valid");
    assert_eq!(again.site_id(), Some(site));
    assert!(
        small.elements() <= cfg.elements(),
        "shrunk {small} is larger than {cfg}"
    );
    assert!(small.num_warps <= cfg.num_warps && small.num_stages <= cfg.num_stages);
    assert_eq!(
        (small.pattern, small.dtype, small.arch, small.triton),
        (cfg.pattern, cfg.dtype, cfg.arch, cfg.triton)
    );

    let fix = fix_for(&cfg);
    assert!(!fix.describe().is_empty());
    if let Some(v) = fix.fixed_in {
        // A development build's own release may be the fix.
        assert!(v > cfg.triton || (cfg.variant.is_some() && v == cfg.triton));
        let fixed = Config {
            triton: v,
            variant: None,
            ..cfg.clone()
        };
        assert_eq!(predict(&fixed).expect("valid").verdict, Verdict::Ok);
    }
});
