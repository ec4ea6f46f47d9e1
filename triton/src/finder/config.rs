//! The kernel configurations the finder reasons about.

use crate::Release;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A kernel pattern (single program, no masks, row-major contiguous inputs,
/// fp32 accumulation (int32 for int8), results cast back to the input
/// dtype). The kernels are `tests/oracle/compile/grid_kernels.py`.
///
/// The attention and descriptor patterns are modelled on AMD targets only:
/// their loops meet the AMD stream pipeliner, which the finder follows;
/// NVIDIA's software pipeliner and TMA lowering of such loops are not
/// modelled.
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
    /// Flash-attention's forward loop (AMD targets): `Q[M,K]` loaded once;
    /// per block of `N` keys out of 4096, `S = Q·Kᵀ` (the `[K,N]` tile of
    /// `K[4096,K]`) scaled, the online softmax, and `O += P·V` (`V[N,K]`):
    /// two chained dots in a loop, `num_stages` pipelined.
    Attention,
    /// [`Attention`](Pattern::Attention) with a per-key additive bias: an
    /// fp32 `bias[N]` loaded in the loop and added to the scaled scores (a
    /// key-padding mask or ALiBi-style offsets), a load that reaches the
    /// second dot through the softmax, not as a dot operand.
    AttentionBias,
    /// A matmul's K loop through tensor descriptors (AMD targets):
    /// `C[M,N] = Σ A[M,K]·B[K,N]` over a K of 4096 in steps of `K`, both
    /// tiles loaded with `tl.make_tensor_descriptor(...).load`, the result
    /// stored through one: gfx1250's tensor data mover from 3.7, pointer
    /// loads elsewhere.
    DescDot,
}

impl Pattern {
    /// Every pattern.
    pub const ALL: [Pattern; 9] = [
        Pattern::Dot,
        Pattern::ChainA,
        Pattern::ChainB,
        Pattern::Inductor3d,
        Pattern::Scan,
        Pattern::Gather,
        Pattern::Attention,
        Pattern::AttentionBias,
        Pattern::DescDot,
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
    /// sum or move fp16, bf16 or fp32 values), attention fp16 and bf16 (its
    /// probabilities are cast to the operands' type for the second dot).
    pub fn takes_dtype(self, dtype: Dtype) -> bool {
        match self {
            Pattern::Attention | Pattern::AttentionBias | Pattern::DescDot => {
                matches!(dtype, Dtype::Fp16 | Dtype::Bf16)
            }
            _ => self.has_dot() || matches!(dtype, Dtype::Fp16 | Dtype::Bf16 | Dtype::Fp32),
        }
    }

    /// Whether the pattern is modelled on AMD targets only.
    pub fn amd_only(self) -> bool {
        self.is_attention() || self == Pattern::DescDot
    }

    /// Whether the pattern is flash-attention's loop (with or without the
    /// key bias).
    pub fn is_attention(self) -> bool {
        matches!(self, Pattern::Attention | Pattern::AttentionBias)
    }

    /// The number of `tl.dot`s in the kernel.
    pub fn dots(self) -> u64 {
        match self {
            Pattern::ChainA | Pattern::ChainB | Pattern::Attention | Pattern::AttentionBias => 2,
            Pattern::Dot | Pattern::Inductor3d | Pattern::DescDot => 1,
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
            Pattern::Attention => "attention",
            Pattern::AttentionBias => "attention-bias",
            Pattern::DescDot => "desc-dot",
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
                let names: Vec<&str> = Pattern::ALL.iter().map(|p| p.name()).collect();
                format!(
                    "unknown pattern `{s}`; expected one of {}",
                    names.join(", ")
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

/// A GPU architecture: an NVIDIA compute capability or an AMD processor.
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
    /// AMD CDNA2 (MI200): MFMA version 2, 64-wide waves.
    Gfx90a,
    /// AMD CDNA3 (MI300): MFMA version 3, 64-wide waves.
    Gfx942,
    /// AMD CDNA4 (MI350): MFMA version 4, 64-wide waves.
    Gfx950,
    /// AMD RDNA3 (Radeon RX 7900): WMMA version 1, 32-wide waves.
    Gfx1100,
    /// AMD RDNA4 (Radeon RX 9070): WMMA version 2, 32-wide waves.
    Gfx1201,
    /// AMD gfx1250: WMMA version 3 and the tensor data mover, 32-wide
    /// waves; known to Triton from 3.6.
    Gfx1250,
}

/// Who makes an [`Arch`], which decides the Triton backend that compiles
/// for it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    /// NVIDIA: Triton's `cuda` backend.
    Nvidia,
    /// AMD: Triton's `hip` backend.
    Amd,
}

impl Arch {
    /// Every architecture, NVIDIA's first.
    pub const ALL: [Arch; 12] = [
        Arch::Sm80,
        Arch::Sm86,
        Arch::Sm89,
        Arch::Sm90,
        Arch::Sm100,
        Arch::Sm120,
        Arch::Gfx90a,
        Arch::Gfx942,
        Arch::Gfx950,
        Arch::Gfx1100,
        Arch::Gfx1201,
        Arch::Gfx1250,
    ];

    /// Who makes it.
    pub fn vendor(self) -> Vendor {
        match self {
            Arch::Sm80 | Arch::Sm86 | Arch::Sm89 | Arch::Sm90 | Arch::Sm100 | Arch::Sm120 => {
                Vendor::Nvidia
            }
            Arch::Gfx90a
            | Arch::Gfx942
            | Arch::Gfx950
            | Arch::Gfx1100
            | Arch::Gfx1201
            | Arch::Gfx1250 => Vendor::Amd,
        }
    }

    /// Whether it is an AMD processor (compiled by Triton's `hip` backend).
    pub fn is_amd(self) -> bool {
        self.vendor() == Vendor::Amd
    }

    /// The NVIDIA compute capability (`90`); `None` for an AMD processor.
    pub fn capability(self) -> Option<u32> {
        match self {
            Arch::Sm80 => Some(80),
            Arch::Sm86 => Some(86),
            Arch::Sm89 => Some(89),
            Arch::Sm90 => Some(90),
            Arch::Sm100 => Some(100),
            Arch::Sm120 => Some(120),
            _ => None,
        }
    }

    /// Threads per warp (a wave, on AMD): 32 on NVIDIA and RDNA, 64 on
    /// CDNA. The HIP backend derives it from the processor (`HIPOptions`:
    /// 32 from gfx10 on, 64 below), whatever `GPUTarget` says.
    pub fn warp_size(self) -> u64 {
        match self {
            Arch::Gfx90a | Arch::Gfx942 | Arch::Gfx950 => 64,
            _ => 32,
        }
    }

    /// The name (`sm90`, `gfx942`).
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm80 => "sm80",
            Arch::Sm86 => "sm86",
            Arch::Sm89 => "sm89",
            Arch::Sm90 => "sm90",
            Arch::Sm100 => "sm100",
            Arch::Sm120 => "sm120",
            Arch::Gfx90a => "gfx90a",
            Arch::Gfx942 => "gfx942",
            Arch::Gfx950 => "gfx950",
            Arch::Gfx1100 => "gfx1100",
            Arch::Gfx1201 => "gfx1201",
            Arch::Gfx1250 => "gfx1250",
        }
    }

    /// The backend Triton compiles it with: `cuda` or `hip`.
    pub fn backend(self) -> &'static str {
        match self.vendor() {
            Vendor::Nvidia => "cuda",
            Vendor::Amd => "hip",
        }
    }

    /// The module's target as TTGIR prints it (`ttg.target`): `cuda:90`,
    /// `hip:gfx942`.
    pub fn ttgir_target(self) -> String {
        match self.capability() {
            Some(cc) => format!("cuda:{cc}"),
            None => format!("hip:{}", self.name()),
        }
    }

    /// The Python expression of Triton's target:
    /// `GPUTarget("cuda", 90, 32)`, `GPUTarget("hip", "gfx942", 64)`.
    pub fn gpu_target(self) -> String {
        match self.capability() {
            Some(cc) => format!("GPUTarget(\"cuda\", {cc}, 32)"),
            None => format!(
                "GPUTarget(\"hip\", \"{}\", {})",
                self.name(),
                self.warp_size()
            ),
        }
    }

    /// The architecture a TTGIR module's target names (`cuda:90`,
    /// `hip:gfx942`), if it is a modelled one.
    pub fn from_ttgir_target(target: &str) -> Option<Arch> {
        let target = target.trim_matches('"');
        if let Some(cc) = target.strip_prefix("cuda:") {
            let cc: u32 = cc.parse().ok()?;
            return Arch::ALL.into_iter().find(|a| a.capability() == Some(cc));
        }
        let gfx = target.strip_prefix("hip:")?;
        Arch::ALL
            .into_iter()
            .find(|a| a.is_amd() && a.name() == gfx)
    }
}

impl std::str::FromStr for Arch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Arch::ALL.iter().map(|a| a.name()).collect();
                format!("unknown arch `{s}`; expected one of {}", names.join(", "))
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
        if self.pattern.amd_only() && !self.arch.is_amd() {
            return bad(format!(
                "pattern {} is modelled on AMD targets only (got {})",
                self.pattern.name(),
                self.arch.name()
            ));
        }
        if !NUM_CTAS.contains(&self.num_ctas) {
            return bad(format!("num_ctas = {} must be 1, 2, 4 or 8", self.num_ctas));
        }
        // Triton 3.5 and later refuse it up front (`ValueError: num_ctas >
        // 1 requires NVIDIA SM90+ (Hopper)`); earlier releases accept it and
        // break in lowerings written for Hopper, which are not modelled.
        if self.num_ctas > 1 && self.arch.is_amd() {
            return bad(format!(
                "num_ctas = {} needs an NVIDIA sm90 or later; AMD targets run one CTA a program (Triton 3.5+ raises `num_ctas > 1 requires NVIDIA SM90+`)",
                self.num_ctas
            ));
        }
        if self.num_ctas > 1 && self.arch.capability().is_none_or(|cc| cc < 90) {
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
        if self.arch.is_amd() && !self.triton.models_amd() {
            return bad(format!(
                "AMD targets ({}) are modelled from Triton 3.4 (got {})",
                self.arch.name(),
                self.triton
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
            // Q and O [M,K], the K and V tiles [K,N] and [N,K], S [M,N].
            Pattern::Attention | Pattern::AttentionBias => {
                2 * self.m * self.k + 2 * self.k * self.n + self.m * self.n
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(pattern: Pattern, arch: Arch, triton: Release) -> Config {
        Config {
            pattern,
            m: 64,
            n: 64,
            k: 64,
            x: pattern.is_chain().then_some(64),
            dtype: Dtype::Fp16,
            num_warps: 4,
            num_stages: 2,
            arch,
            num_ctas: 1,
            triton,
            variant: None,
        }
    }

    /// Every arch's name parses back, and its TTGIR target reads back as
    /// it; AMD's wave is 64 wide on CDNA (gfx9) and 32 on RDNA.
    #[test]
    fn arch_names_and_targets_round_trip() {
        for arch in Arch::ALL {
            assert_eq!(arch.name().parse::<Arch>(), Ok(arch));
            assert_eq!(Arch::from_ttgir_target(&arch.ttgir_target()), Some(arch));
            assert_eq!(arch.capability().is_none(), arch.is_amd());
            let wave = if arch.name().starts_with("gfx9") {
                64
            } else {
                32
            };
            assert_eq!(arch.warp_size(), wave, "{arch:?}");
        }
        assert_eq!(
            Arch::Gfx942.gpu_target(),
            r#"GPUTarget("hip", "gfx942", 64)"#
        );
        assert_eq!(Arch::Sm90.gpu_target(), r#"GPUTarget("cuda", 90, 32)"#);
        assert_eq!(Arch::from_ttgir_target("hip:gfx908"), None);
        assert!("gfx999".parse::<Arch>().is_err());
    }

    /// AMD targets from 3.4, one CTA; attention on AMD alone.
    #[test]
    fn amd_configurations_are_validated() {
        assert!(
            cfg(Pattern::Dot, Arch::Gfx942, Release::V3_4)
                .validate()
                .is_ok()
        );
        assert!(
            cfg(Pattern::Dot, Arch::Gfx942, Release::V3_3)
                .validate()
                .is_err()
        );
        let two_ctas = Config {
            num_ctas: 2,
            ..cfg(Pattern::Dot, Arch::Gfx950, Release::V3_9)
        };
        assert!(two_ctas.validate().is_err());
        assert!(
            cfg(Pattern::Attention, Arch::Gfx1201, Release::V3_6)
                .validate()
                .is_ok()
        );
        assert!(
            cfg(Pattern::AttentionBias, Arch::Sm90, Release::V3_6)
                .validate()
                .is_err()
        );
        let fp32 = Config {
            dtype: Dtype::Fp32,
            ..cfg(Pattern::Attention, Arch::Gfx942, Release::V3_9)
        };
        assert!(fp32.validate().is_err());
    }
}
