//! The kernel configurations the finder reasons about.

use crate::Release;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A kernel pattern (single program, no masks, row-major contiguous inputs,
/// fp32 accumulation (int32 for int8), results cast back to the input
/// dtype). The kernels are `tests/oracle/compile/grid_kernels.py`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// `C[M,N] = A[M,K] · B[K,N]`.
    Dot,
    /// `P = A·B` cast to dtype; `O[M,X] = P · C[N,X]` (P is operand A).
    ChainA,
    /// `P = A·B` cast to dtype; `O[X,N] = D[X,M] · P` (P is operand B; FLA's
    /// shape).
    ChainB,
    /// triton #5882: M = XBLOCK, N = YBLOCK, K = R0_BLOCK; a K loop over 8192
    /// with 3-D loads reshaped and transposed into a dot.
    #[serde(rename = "inductor-3d")]
    Inductor3d,
    /// `O[M,N] = cumsum(X[M,N], axis=0)`, in fp32 (no K): `tl.cumsum`'s
    /// lowering per CTA split.
    Scan,
    /// `O[M,K] = gather(S[M,N], I[M,K], axis=1)` with in-range indices:
    /// `tl.gather`'s warp-local layout (triton #11600), from 3.3.
    Gather,
}

impl Pattern {
    /// Every pattern.
    pub const ALL: [Pattern; 6] = [
        Pattern::Dot,
        Pattern::ChainA,
        Pattern::ChainB,
        Pattern::Inductor3d,
        Pattern::Scan,
        Pattern::Gather,
    ];

    /// Whether the pattern chains two dots (and so takes `x`).
    pub fn is_chain(self) -> bool {
        matches!(self, Pattern::ChainA | Pattern::ChainB)
    }

    /// Whether the pattern holds a `tl.dot` (its sizes start at 16, its
    /// dtypes are every [`Dtype`]).
    pub fn has_dot(self) -> bool {
        !matches!(self, Pattern::Scan | Pattern::Gather)
    }

    /// Whether the pattern takes `k` (every pattern but `scan`).
    pub fn takes_k(self) -> bool {
        self != Pattern::Scan
    }

    /// Whether the pattern takes `dtype`: a dot every [`Dtype`], `scan` and
    /// `gather` the floating-point types of 16 and 32 bits (their kernels
    /// sum or move fp16, bf16 or fp32 values).
    pub fn takes_dtype(self, dtype: Dtype) -> bool {
        self.has_dot() || matches!(dtype, Dtype::Fp16 | Dtype::Bf16 | Dtype::Fp32)
    }

    /// The number of `tl.dot`s in the kernel.
    pub fn dots(self) -> u64 {
        match self {
            Pattern::ChainA | Pattern::ChainB => 2,
            Pattern::Dot | Pattern::Inductor3d => 1,
            Pattern::Scan | Pattern::Gather => 0,
        }
    }

    /// The pattern's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Dot => "dot",
            Pattern::ChainA => "chain-a",
            Pattern::ChainB => "chain-b",
            Pattern::Inductor3d => "inductor-3d",
            Pattern::Scan => "scan",
            Pattern::Gather => "gather",
        }
    }
}

impl std::str::FromStr for Pattern {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Pattern::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown pattern `{s}`; expected dot, chain-a, chain-b, inductor-3d, scan or gather"
                )
            })
    }
}

/// An element type, in Triton's spelling.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// `fp16`.
    Fp16,
    /// `bf16`.
    Bf16,
    /// `fp32` (dots use tf32).
    Fp32,
    /// `fp8e4nv` (compute capability 89 and up: Ada, Hopper, Blackwell).
    Fp8e4nv,
    /// `fp8e5` (E5M2; Ampere too, where dots promote it to fp16).
    Fp8e5,
    /// `int8` (dots accumulate in int32, on MMA v2 without promotion).
    Int8,
}

impl Dtype {
    /// Every dtype.
    pub const ALL: [Dtype; 6] = [
        Dtype::Fp16,
        Dtype::Bf16,
        Dtype::Fp32,
        Dtype::Fp8e4nv,
        Dtype::Fp8e5,
        Dtype::Int8,
    ];

    /// Bits per element.
    pub fn bits(self) -> u64 {
        match self {
            Dtype::Fp16 | Dtype::Bf16 => 16,
            Dtype::Fp32 => 32,
            Dtype::Fp8e4nv | Dtype::Fp8e5 | Dtype::Int8 => 8,
        }
    }

    /// Triton's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
            Dtype::Fp32 => "fp32",
            Dtype::Fp8e4nv => "fp8e4nv",
            Dtype::Fp8e5 => "fp8e5",
            Dtype::Int8 => "int8",
        }
    }

    /// Whether this is an 8-bit float (promoted to fp16 for an MMA v2 dot
    /// unless the target has an fp8 `mma.sync`: [`Config::promoted_on_v2`]).
    pub fn is_fp8(self) -> bool {
        matches!(self, Dtype::Fp8e4nv | Dtype::Fp8e5)
    }

    /// The element type in a kernel signature (`*i8` is a pointer to int8).
    pub fn signature(self) -> &'static str {
        match self {
            Dtype::Int8 => "i8",
            other => other.name(),
        }
    }

    /// The MLIR element type.
    pub fn mlir(self) -> &'static str {
        match self {
            Dtype::Fp16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::Fp32 => "f32",
            Dtype::Fp8e4nv => "f8E4M3FN",
            Dtype::Fp8e5 => "f8E5M2",
            Dtype::Int8 => "i8",
        }
    }

    /// The torch dtype.
    pub fn torch(self) -> &'static str {
        match self {
            Dtype::Fp16 => "float16",
            Dtype::Bf16 => "bfloat16",
            Dtype::Fp32 => "float32",
            Dtype::Fp8e4nv => "float8_e4m3fn",
            Dtype::Fp8e5 => "float8_e5m2",
            Dtype::Int8 => "int8",
        }
    }
}

impl std::str::FromStr for Dtype {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Dtype::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| {
                format!("unknown dtype `{s}`; expected fp16, bf16, fp32, fp8e4nv, fp8e5 or int8")
            })
    }
}

/// A GPU architecture.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    /// Ampere A100.
    Sm80,
    /// Ampere consumer parts.
    Sm86,
    /// Ada (fp8 without Hopper's wgmma).
    Sm89,
    /// Hopper.
    Sm90,
    /// Datacenter Blackwell (B200): no MMA in 3.1 and 3.2; from 3.3 tcgen05
    /// (MMA v5) with tensor memory, whose layouts the finder does not
    /// model beyond 3.3's operand buffer (and the front end's checks).
    Sm100,
    /// Consumer Blackwell (RTX 50 series): no MMA in 3.1 and 3.2, MMA v2
    /// from 3.3 (no wgmma), fp8 without promotion from 3.5.
    Sm120,
}

impl Arch {
    /// Every architecture.
    pub const ALL: [Arch; 6] = [
        Arch::Sm80,
        Arch::Sm86,
        Arch::Sm89,
        Arch::Sm90,
        Arch::Sm100,
        Arch::Sm120,
    ];

    /// The compute capability.
    pub fn capability(self) -> u32 {
        match self {
            Arch::Sm80 => 80,
            Arch::Sm86 => 86,
            Arch::Sm89 => 89,
            Arch::Sm90 => 90,
            Arch::Sm100 => 100,
            Arch::Sm120 => 120,
        }
    }

    /// The name (`sm90`).
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm80 => "sm80",
            Arch::Sm86 => "sm86",
            Arch::Sm89 => "sm89",
            Arch::Sm90 => "sm90",
            Arch::Sm100 => "sm100",
            Arch::Sm120 => "sm120",
        }
    }
}

impl std::str::FromStr for Arch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                format!("unknown arch `{s}`; expected sm80, sm86, sm89, sm90, sm100 or sm120")
            })
    }
}

/// A development build between two releases, modelled on top of one.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Variant {
    /// Triton between 3.2.0 and 3.3.0 (early 2025, triton #5882): 3.3's
    /// pipeliner and lowering, but the shared order of a pipelined rank-3
    /// load is still the load's order with dim 0 moved last, as before
    /// PR #5905. Use with `triton` 3.3. That its pipeliner staged both
    /// rank-3 loads with cp.async is an assumption read from the source
    /// history, not a measured build (`notes/finder-lowering.md`).
    #[serde(rename = "pre-5905")]
    Pre5905,
}

impl Variant {
    /// The name (`pre-5905`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Pre5905 => "pre-5905",
        }
    }

    /// The release the build is modelled on, the only one it combines with.
    pub fn release(self) -> Release {
        match self {
            Variant::Pre5905 => Release::V3_3,
        }
    }

    /// Why a configuration names this build with another release.
    pub fn wrong_release(self, got: Release) -> String {
        format!(
            "variant {} is a development build modelled on triton {}: use it with that release (got {got})",
            self.name(),
            self.release()
        )
    }
}

impl std::str::FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "pre-5905" => Ok(Variant::Pre5905),
            _ => Err(format!("unknown variant `{s}`; expected pre-5905")),
        }
    }
}

/// One configuration: a pattern at given sizes, dtype, launch options, arch
/// and Triton release.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The kernel pattern.
    pub pattern: Pattern,
    /// Block size M.
    pub m: u64,
    /// Block size N.
    pub n: u64,
    /// Block size K (the gather's index columns); 0 (`null`) for `scan`,
    /// which takes none.
    #[serde(default, with = "k_serde")]
    pub k: u64,
    /// The chain patterns' second dot size.
    #[serde(default)]
    pub x: Option<u64>,
    /// Element type.
    pub dtype: Dtype,
    /// Warps per program.
    pub num_warps: u64,
    /// Software pipelining stages.
    pub num_stages: u64,
    /// Target.
    pub arch: Arch,
    /// CTAs per program (a thread-block cluster from 2): 1, 2, 4 or 8;
    /// more than one needs sm90 or later. Absent in JSON means 1.
    #[serde(default = "one_cta", skip_serializing_if = "is_one_cta")]
    pub num_ctas: u64,
    /// Release.
    #[serde(with = "version_serde")]
    pub triton: Release,
    /// A development build modelled on top of `triton` (absent for releases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
}

fn one_cta() -> u64 {
    1
}

fn is_one_cta(n: &u64) -> bool {
    *n == 1
}

/// The CTA counts a configuration may take: thread-block clusters of up to
/// 8 CTAs (the portable cluster size).
pub const NUM_CTAS: [u64; 4] = [1, 2, 4, 8];

/// Why a configuration is impossible.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("invalid configuration: {0}")]
pub struct ConfigError(pub String);

impl Config {
    /// Checks that the parameters are in the space the finder models.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError(m));
        // A dot needs 16 along every dim in the releases that check sizes;
        // the other patterns take any power of two.
        let smallest = if self.pattern.has_dot() { 16 } else { 1 };
        let mut sizes = vec![("m", self.m), ("n", self.n)];
        if self.pattern.takes_k() {
            sizes.push(("k", self.k));
        } else if self.k != 0 {
            return bad(format!(
                "pattern {} takes no k (got {})",
                self.pattern.name(),
                self.k
            ));
        }
        for (name, v) in sizes {
            if !v.is_power_of_two() || !(smallest..=1024).contains(&v) {
                return bad(format!(
                    "{name} = {v} must be a power of two between {smallest} and 1024 for pattern {}",
                    self.pattern.name()
                ));
            }
        }
        if !self.pattern.takes_dtype(self.dtype) {
            return bad(format!(
                "pattern {} takes fp16, bf16 or fp32 (got {})",
                self.pattern.name(),
                self.dtype.name()
            ));
        }
        if !NUM_CTAS.contains(&self.num_ctas) {
            return bad(format!("num_ctas = {} must be 1, 2, 4 or 8", self.num_ctas));
        }
        // Triton 3.5 and later refuse it up front (`ValueError: num_ctas >
        // 1 requires NVIDIA SM90+ (Hopper)`); earlier releases accept it and
        // break in lowerings written for Hopper, which are not modelled.
        if self.num_ctas > 1 && self.arch.capability() < 90 {
            return bad(format!(
                "num_ctas = {} needs sm90 or later (Triton 3.5+ raises `num_ctas > 1 requires NVIDIA SM90+`; \
                 older releases' multi-CTA lowering below sm90 is not modelled)",
                self.num_ctas
            ));
        }
        match (self.pattern.is_chain(), self.x) {
            (true, None) => return bad(format!("pattern {} needs x", self.pattern.name())),
            (true, Some(x)) if !x.is_power_of_two() || !(16..=1024).contains(&x) => {
                return bad(format!(
                    "x = {x} must be a power of two between 16 and 1024"
                ));
            }
            (false, Some(x)) => {
                return bad(format!(
                    "pattern {} takes no x (got {x})",
                    self.pattern.name()
                ));
            }
            _ => {}
        }
        if !matches!(self.num_warps, 1 | 2 | 4 | 8 | 16 | 32) {
            return bad(format!(
                "num_warps = {} must be 1, 2, 4, 8, 16 or 32",
                self.num_warps
            ));
        }
        if !(1..=4).contains(&self.num_stages) {
            return bad(format!(
                "num_stages = {} must be 1, 2, 3 or 4",
                self.num_stages
            ));
        }
        // The CTA study behind the multi-CTA models covers 3.4 to 3.9; 3.1 to
        // 3.3 plan CTAs as 3.4 does, but then fail in lowerings of theirs
        // that are not modelled (MMA v2 operands: `reshapeIns`, 3.2 and 3.3;
        // `SmallVector` indices and SIGFPE, 3.1: measured).
        if self.num_ctas > 1 && !self.triton.models_multi_cta() {
            return bad(format!(
                "num_ctas = {} is modelled from Triton 3.4 (got {})",
                self.num_ctas, self.triton
            ));
        }
        if let Some(v) = self.variant.filter(|v| v.release() != self.triton) {
            return bad(v.wrong_release(self.triton));
        }
        Ok(())
    }

    /// Whether an MMA v2 dot takes this configuration's fp8 operands as
    /// they are. `decomposeMixedModeDotOp` promotes fp8 operands of a v2 dot
    /// to fp16 unless the target has an fp8 `mma.sync`: cc 89 in every
    /// release, and cc 120 from 3.5 (`mmav2SupportsFp8Operands`). (3.1 names
    /// E5M2 and E4M3FNUZ as the native types, and its fp8e4nv is E4M3FNUZ;
    /// later releases name E5M2 and E4M3FN, fp8e4nv's type there: every
    /// release spares both.)
    pub fn fp8_native_on_v2(&self) -> bool {
        let fp8_mma = match self.arch {
            Arch::Sm89 => true,
            Arch::Sm120 => self.triton.sm120_has_fp8_mma(),
            _ => false,
        };
        fp8_mma && self.dtype.is_fp8()
    }

    /// Whether an MMA v2 dot promotes this configuration's operands to fp16
    /// (fp8 that is not native, see [`fp8_native_on_v2`](Self::fp8_native_on_v2)).
    pub fn promoted_on_v2(&self) -> bool {
        self.dtype.is_fp8() && !self.fp8_native_on_v2()
    }

    /// The number of elements the kernel's tiles hold (for ranking repros).
    pub fn elements(&self) -> u64 {
        let base = match self.pattern {
            Pattern::Scan => self.m * self.n,
            Pattern::Gather => self.m * self.n + self.m * self.k,
            _ => self.m * self.k + self.k * self.n + self.m * self.n,
        };
        (base + self.x.map_or(0, |x| x * self.n + x * self.m)) * self.num_ctas.max(1)
    }
}

impl Config {
    /// The kernel and its launch, without the release: `chain-b m=64 n=64
    /// k=64 x=64 bf16 warps=8 stages=2 sm90`.
    pub fn kernel(&self) -> String {
        let x = self.x.map(|x| format!(" x={x}")).unwrap_or_default();
        let k = if self.pattern.takes_k() {
            format!(" k={}", self.k)
        } else {
            String::new()
        };
        let ctas = if self.num_ctas == 1 {
            String::new()
        } else {
            format!(" ctas={}", self.num_ctas)
        };
        format!(
            "{} m={} n={}{k}{x} {} warps={} stages={} {}{ctas}",
            self.pattern.name(),
            self.m,
            self.n,
            self.dtype.name(),
            self.num_warps,
            self.num_stages,
            self.arch.name(),
        )
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} triton={}", self.kernel(), self.triton)?;
        match self.variant {
            Some(v) => write!(f, " variant={}", v.name()),
            None => Ok(()),
        }
    }
}

/// `k` as JSON: a number, or `null` (or absent) for a pattern without K,
/// read as 0 and written back as `null`.
mod k_serde {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(k: &u64, s: S) -> Result<S::Ok, S::Error> {
        if *k == 0 {
            s.serialize_none()
        } else {
            s.serialize_u64(*k)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.unwrap_or(0))
    }
}

mod version_serde {
    use crate::Release;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Release, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Release, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
