//! Triton's layout attributes as data.
//!
//! One variant per attribute kind, with the fields of its TTGIR syntax.
//! Fields that only some releases print are `Option`s, so that an attribute
//! prints back the way it was written.

use linear_layout::Dim;
use std::sync::Arc;

/// How the CTAs of a cluster (CGA) split the tensor.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Cga {
    /// Up to 3.5: `CTAsPerCGA`, `CTASplitNum`, `CTAOrder`.
    Split {
        /// CTAs along each dim.
        ctas_per_cga: Vec<u64>,
        /// How many of those hold distinct tiles (the rest broadcast).
        cta_split_num: Vec<u64>,
        /// The order CTAs are numbered in, minor first.
        cta_order: Vec<usize>,
    },
    /// From 3.6: `CGALayout = [[...], ...]`, one basis per `block` bit, in
    /// units of tiles.
    Bases(Vec<Vec<u64>>),
}

/// `#ttg.blocked`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Blocked {
    /// Consecutive elements per thread, per dim.
    pub size_per_thread: Vec<u64>,
    /// Threads per warp, per dim.
    pub threads_per_warp: Vec<u64>,
    /// Warps per CTA, per dim.
    pub warps_per_cta: Vec<u64>,
    /// Dims from fastest- to slowest-varying.
    pub order: Vec<usize>,
    /// The CGA, when not the default single CTA.
    pub cga: Option<Cga>,
}

/// `#ttg.slice`: the parent layout with dim `dim` removed.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Slice {
    /// The removed dim.
    pub dim: usize,
    /// The parent layout (shared: aliases and clones do not copy it).
    pub parent: Arc<Attr>,
}

/// `#ttg.nvidia_mma`: the accumulator of an NVIDIA tensor-core MMA.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NvidiaMma {
    /// 2 (Ampere, `mma.sync`) or 3 (Hopper, `wgmma`); 1 is Volta.
    pub version_major: u64,
    /// Minor version.
    pub version_minor: u64,
    /// Warps per CTA, per dim.
    pub warps_per_cta: Vec<u64>,
    /// The CGA.
    pub cga: Option<Cga>,
    /// The instruction shape (`[16, 8]`, `[1, 16, 8]` or `[16, N, K]`).
    pub instr_shape: Vec<u64>,
}

/// `#ttg.dot_op`: operand `op_idx` of a dot whose result has layout `parent`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DotOperand {
    /// 0 for A, 1 for B.
    pub op_idx: u64,
    /// The dot's result layout (shared: aliases and clones do not copy it).
    pub parent: Arc<Attr>,
    /// Consecutive K elements per register group; `None` when not printed.
    pub k_width: Option<u64>,
}

/// `#ttg.amd_mfma`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AmdMfma {
    /// `version` (newest) or `versionMajor` (3.2).
    pub version: u64,
    /// `versionMinor`, printed by 3.2 only.
    pub version_minor: Option<u64>,
    /// Warps per CTA.
    pub warps_per_cta: Vec<u64>,
    /// `[M, N]` (3.2) or `[M, N, K]` (newest).
    pub instr_shape: Vec<u64>,
    /// Whether the result is transposed.
    pub is_transposed: bool,
    /// The CGA.
    pub cga: Option<Cga>,
    /// Tiles per warp (newest), when printed.
    pub tiles_per_warp: Option<Vec<u64>>,
    /// Element bit width (newest), when printed (32 otherwise).
    pub element_bit_width: Option<u64>,
}

/// `#ttg.amd_wmma`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AmdWmma {
    /// 1, 2 or 3.
    pub version: u64,
    /// `isTranspose` (newest).
    pub is_transpose: Option<bool>,
    /// Warps per CTA (3.2 syntax).
    pub warps_per_cta: Option<Vec<u64>>,
    /// The CTA layout's `register` bases (newest), in instruction tiles.
    pub cta_register: Vec<Vec<u64>>,
    /// The CTA layout's `warp` bases (newest), in instruction tiles.
    pub cta_warp: Option<Vec<Vec<u64>>>,
    /// The CGA.
    pub cga: Option<Cga>,
    /// The instruction shape, when printed (`[16, 16, 16]` otherwise).
    pub instr_shape: Option<Vec<u64>>,
    /// `rank`, when written.
    pub rank: Option<u64>,
}

/// `#ttg.linear` / `#ttg.generic_linear`: explicit bases.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Linear {
    /// The bases of `register`, `lane`, `warp`, `block`, in that order.
    pub bases: Vec<(Dim, Vec<Vec<u64>>)>,
    /// `#ttg.generic_linear` (3.9), whose bases need not be a permutation.
    pub generic: bool,
}

/// `#ttg.swizzled_shared`, and 3.2's `#triton_gpu.shared` (with or without
/// a leading offset).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SwizzledShared {
    /// Elements per swizzled vector.
    pub vec: u64,
    /// Rows sharing one phase.
    pub per_phase: u64,
    /// Number of distinct phases.
    pub max_phase: u64,
    /// Dims from fastest- to slowest-varying.
    pub order: Vec<usize>,
    /// The CGA.
    pub cga: Option<Cga>,
    /// 3.2's `hasLeadingOffset` (`None` for `#ttg.swizzled_shared`).
    pub has_leading_offset: Option<bool>,
}

/// The `(perPhase, maxPhase)` Triton pairs with a 32-, 64- or 128-byte
/// wgmma swizzle (`128 / bytes`, `bytes / 16`): (4, 2), (2, 4), (1, 8).
/// `None` for any other width.
pub fn swizzle_phases(bytes: u64) -> Option<(u64, u64)> {
    matches!(bytes, 32 | 64 | 128).then(|| (128 / bytes, bytes / 16))
}

impl SwizzledShared {
    /// The swizzle width in bytes that `(perPhase, maxPhase)` encode, as
    /// 3.2's leading-offset layouts read it (see [`swizzle_phases`]).
    pub fn swizzle_bytes(&self) -> Option<u64> {
        [32, 64, 128]
            .into_iter()
            .find(|&b| swizzle_phases(b) == Some((self.per_phase, self.max_phase)))
    }
}

/// `#ttg.nvmma_shared`: the wgmma / TMA shared layout.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NvmmaShared {
    /// 0, 32, 64 or 128 bytes.
    pub swizzling_byte_width: u64,
    /// Whether the contiguous dim is dim 0.
    pub transposed: bool,
    /// Element bit width.
    pub element_bit_width: u64,
    /// 4-bit elements padded to bytes.
    pub fp4_padded: bool,
    /// The CGA.
    pub cga: Option<Cga>,
    /// `rank`, when printed (2 otherwise).
    pub rank: Option<u64>,
}

impl NvmmaShared {
    /// The rank of the buffers it lays out: `rank` where printed, else the
    /// CGA's (its bases' or lists' length), else 2.
    pub fn layout_rank(&self) -> usize {
        self.rank.map_or_else(
            || match &self.cga {
                Some(Cga::Bases(b)) if !b.is_empty() => b[0].len(),
                Some(Cga::Split { ctas_per_cga, .. }) => ctas_per_cga.len(),
                _ => 2,
            },
            |r| r as usize,
        )
    }
}

/// `#ttg.shared_linear`: explicit shared-memory bases.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SharedLinear {
    /// `offset` bases.
    pub offset: Vec<Vec<u64>>,
    /// `block` bases.
    pub block: Vec<Vec<u64>>,
    /// Alignment in bytes.
    pub alignment: u64,
}

/// A layout attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Attr {
    /// `#ttg.blocked`.
    Blocked(Blocked),
    /// `#ttg.slice`.
    Slice(Slice),
    /// `#ttg.nvidia_mma`.
    NvidiaMma(NvidiaMma),
    /// `#ttg.dot_op`.
    DotOperand(DotOperand),
    /// `#ttg.amd_mfma`.
    AmdMfma(AmdMfma),
    /// `#ttg.amd_wmma`.
    AmdWmma(AmdWmma),
    /// `#ttg.linear` / `#ttg.generic_linear`.
    Linear(Linear),
    /// `#ttg.swizzled_shared` / `#triton_gpu.shared`.
    SwizzledShared(SwizzledShared),
    /// `#ttg.nvmma_shared`.
    NvmmaShared(NvmmaShared),
    /// `#ttg.shared_linear`.
    SharedLinear(SharedLinear),
    /// An attribute this crate reads but has no recipe for (tensor memory,
    /// padded or partitioned shared, memory spaces, …), kept verbatim.
    Other {
        /// `dialect.name`, e.g. `ttg.padded_shared`.
        name: String,
        /// The whole attribute text.
        text: String,
    },
}

impl Attr {
    /// How deep the attribute nests as text, at most: each attribute in the
    /// chain of parents brings itself, its `{...}` and a list
    /// (the parser's nesting bound, 256 levels, limits what is parsed).
    pub fn depth(&self) -> usize {
        let mut depth = 3;
        let mut attr = self;
        while let Attr::Slice(Slice { parent, .. }) | Attr::DotOperand(DotOperand { parent, .. }) =
            attr
        {
            depth += 3;
            attr = parent;
        }
        depth
    }

    /// The attribute's kind as TTGIR names it (without dialect).
    pub fn kind(&self) -> &str {
        match self {
            Attr::Blocked(_) => "blocked",
            Attr::Slice(_) => "slice",
            Attr::NvidiaMma(_) => "nvidia_mma",
            Attr::DotOperand(_) => "dot_op",
            Attr::AmdMfma(_) => "amd_mfma",
            Attr::AmdWmma(_) => "amd_wmma",
            Attr::Linear(l) => {
                if l.generic {
                    "generic_linear"
                } else {
                    "linear"
                }
            }
            Attr::SwizzledShared(s) => {
                if s.has_leading_offset.is_some() {
                    "shared"
                } else {
                    "swizzled_shared"
                }
            }
            Attr::NvmmaShared(_) => "nvmma_shared",
            Attr::SharedLinear(_) => "shared_linear",
            Attr::Other { name, .. } => name.rsplit('.').next().unwrap_or(name),
        }
    }

    /// Whether the attribute describes shared memory (in-dims `offset`,
    /// `block`) rather than registers.
    pub fn is_shared(&self) -> bool {
        matches!(
            self,
            Attr::SwizzledShared(_) | Attr::NvmmaShared(_) | Attr::SharedLinear(_)
        )
    }

    /// The rank of the tensors this attribute lays out, where it says.
    pub fn rank(&self) -> Option<usize> {
        match self {
            Attr::Blocked(b) => Some(b.order.len()),
            Attr::Slice(s) => s.parent.rank().map(|r| r.saturating_sub(1)),
            Attr::NvidiaMma(m) => Some(m.warps_per_cta.len()),
            Attr::DotOperand(d) => d.parent.rank(),
            Attr::AmdMfma(m) => Some(m.warps_per_cta.len()),
            Attr::AmdWmma(w) => w
                .rank
                .map(|r| r as usize)
                .or_else(|| w.warps_per_cta.as_ref().map(Vec::len))
                .or_else(|| {
                    w.cta_warp
                        .iter()
                        .flatten()
                        .chain(&w.cta_register)
                        .map(Vec::len)
                        .next()
                })
                .or(Some(2)),
            Attr::Linear(l) => l
                .bases
                .iter()
                .flat_map(|(_, v)| v.first())
                .map(Vec::len)
                .next(),
            Attr::SwizzledShared(s) => Some(s.order.len()),
            Attr::NvmmaShared(n) => Some(n.layout_rank()),
            Attr::SharedLinear(s) => s.offset.iter().chain(&s.block).map(Vec::len).next(),
            Attr::Other { .. } => None,
        }
    }
}
