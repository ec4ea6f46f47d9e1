//! The kernel configurations the finder reasons about.

use crate::triton::Release;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A kernel pattern (single program, no masks, row-major contiguous inputs,
/// fp32 accumulation (int32 for int8), results cast back to the input
/// dtype).
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
}

impl Pattern {
    /// Every pattern.
    pub const ALL: [Pattern; 4] = [
        Pattern::Dot,
        Pattern::ChainA,
        Pattern::ChainB,
        Pattern::Inductor3d,
    ];

    /// Whether the pattern chains two dots (and so takes `x`).
    pub fn is_chain(self) -> bool {
        matches!(self, Pattern::ChainA | Pattern::ChainB)
    }

    /// The pattern's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Dot => "dot",
            Pattern::ChainA => "chain-a",
            Pattern::ChainB => "chain-b",
            Pattern::Inductor3d => "inductor-3d",
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
                format!("unknown pattern `{s}`; expected dot, chain-a, chain-b or inductor-3d")
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
    /// Block size K.
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
    /// Release.
    #[serde(with = "version_serde")]
    pub triton: Release,
    /// A development build modelled on top of `triton` (absent for releases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
}

/// Why a configuration is impossible.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("invalid configuration: {0}")]
pub struct ConfigError(pub String);

impl Config {
    /// Checks that the parameters are in the space the finder models.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError(m));
        for (name, v) in [("m", self.m), ("n", self.n), ("k", self.k)] {
            if !v.is_power_of_two() || !(16..=1024).contains(&v) {
                return bad(format!(
                    "{name} = {v} must be a power of two between 16 and 1024"
                ));
            }
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
        let base = self.m * self.k + self.k * self.n + self.m * self.n;
        base + self.x.map_or(0, |x| x * self.n + x * self.m)
    }
}

impl Config {
    /// The kernel and its launch, without the release: `chain-b m=64 n=64
    /// k=64 x=64 bf16 warps=8 stages=2 sm90`.
    pub fn kernel(&self) -> String {
        let x = self.x.map(|x| format!(" x={x}")).unwrap_or_default();
        format!(
            "{} m={} n={} k={}{x} {} warps={} stages={} {}",
            self.pattern.name(),
            self.m,
            self.n,
            self.k,
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

mod version_serde {
    use crate::triton::Release;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Release, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Release, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
