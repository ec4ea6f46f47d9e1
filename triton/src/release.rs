//! The Triton releases whose layout behaviour this crate models, as data.
//!
//! Every release-dependent decision in the crate goes through this module:
//!
//! - [`RELEASES`] is the one table of modelled releases: the name people
//!   type, the wheel each is checked against, the other minor versions a
//!   bucket stands for, the git tag its source lines are cited from, and the
//!   dialect spelling. CLI help, parsing and error text are generated from
//!   it.
//! - Cut points that several places depend on are named predicates on
//!   [`Release`] (`lowers_with_linear_layouts`, `catches_crashes`, …), each
//!   saying what changed and where.
//! - Behaviour that changes at a few releases in one place is a step
//!   function of the release, [`Since`]: a table of `(first release, value)`
//!   rows. A release added later inherits the last row until someone adds a
//!   row for it.
//!
//! Adding a release is therefore: a variant and a row of [`RELEASES`] here,
//! then a row in each [`Since`] table and site descriptor whose behaviour
//! the new wheel changes (`notes/releases.md` says how to find them).

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// A modelled Triton release. Ordered oldest first.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Release {
    /// 3.1 (the 3.1.0 wheel).
    V3_1,
    /// 3.2 (the 3.2.0 wheel).
    V3_2,
    /// 3.3 (the 3.3.1 wheel).
    V3_3,
    /// 3.4 (the 3.4.0 wheel).
    V3_4,
    /// 3.5 (the 3.5.1 wheel): the first release with the generic
    /// (`divideLeft`) stmatrix lowering and the three CGA lists still.
    V3_5,
    /// 3.6 (the 3.6.0 wheel): CGA layouts as linear bases (`CGALayout`).
    V3_6,
    /// 3.7 (the 3.7.1 wheel; conversions checked against its Gluon).
    V3_7,
    /// 3.8 (the 3.8.0 wheel).
    V3_8,
    /// 3.9 (the 3.9.0 wheel), and `main` as of mid-2026.
    V3_9,
}

/// One row of [`RELEASES`].
#[derive(Debug)]
pub struct ReleaseInfo {
    /// The release.
    pub release: Release,
    /// The name it is given and printed with (`3.7`).
    pub name: &'static str,
    /// Every `major.minor` it stands for (one, unless a row stands for a
    /// bucket of releases that behave alike).
    pub minors: &'static [&'static str],
    /// The wheel the model is checked against first (`3.7.1`).
    pub wheel: &'static str,
    /// Every wheel its compile verdicts were checked against.
    pub wheels: &'static [&'static str],
    /// The git tag Triton source lines are cited from (`v3.7.1`).
    pub tag: &'static str,
    /// The dialect prefix its TTGIR prints: `triton_gpu` up to 3.2, `ttg`
    /// from 3.3 (PR #5266).
    pub dialect: &'static str,
    /// The assemblers the wheel bundles and which targets each assembles,
    /// read from the wheel (`backends/nvidia/bin/`, `get_ptxas(arch)` in
    /// `backends/nvidia/compiler.py`): from the lowest compute capability
    /// each takes, oldest first.
    pub ptxas: &'static [Ptxas],
}

/// An assembler a wheel bundles: its version, the lowest compute capability
/// it assembles (up to the next one's), and the environment variable that
/// points Triton at another (`knobs.nvidia.ptxas`, `ptxas_blackwell`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ptxas {
    /// Assembles targets from this compute capability.
    pub from_capability: u32,
    /// `ptxas --version`'s release (`12.8.93`).
    pub version: &'static str,
    /// The variable that replaces it (`TRITON_PTXAS_PATH`).
    pub env: &'static str,
}

const PTXAS: &str = "TRITON_PTXAS_PATH";
const PTXAS_BLACKWELL: &str = "TRITON_PTXAS_BLACKWELL_PATH";

/// The wheel's one bundled assembler, for every target.
const fn one_ptxas(version: &'static str) -> [Ptxas; 1] {
    [Ptxas {
        from_capability: 0,
        version,
        env: PTXAS,
    }]
}

/// The wheel's two assemblers: `ptxas`, and `ptxas-blackwell` from
/// `blackwell_from`.
const fn two_ptxas(
    version: &'static str,
    blackwell_from: u32,
    blackwell: &'static str,
) -> [Ptxas; 2] {
    [
        Ptxas {
            from_capability: 0,
            version,
            env: PTXAS,
        },
        Ptxas {
            from_capability: blackwell_from,
            version: blackwell,
            env: PTXAS_BLACKWELL,
        },
    ]
}

/// Every modelled release, oldest first.
pub const RELEASES: [ReleaseInfo; 9] = [
    ReleaseInfo {
        release: Release::V3_1,
        name: "3.1",
        minors: &["3.1"],
        wheel: "3.1.0",
        wheels: &["3.1.0"],
        tag: "v3.1.0",
        dialect: "triton_gpu",
        ptxas: &one_ptxas("12.4.99"),
    },
    ReleaseInfo {
        release: Release::V3_2,
        name: "3.2",
        minors: &["3.2"],
        wheel: "3.2.0",
        wheels: &["3.2.0"],
        tag: "v3.2.0",
        dialect: "triton_gpu",
        ptxas: &one_ptxas("12.4.99"),
    },
    ReleaseInfo {
        release: Release::V3_3,
        name: "3.3",
        minors: &["3.3"],
        wheel: "3.3.1",
        wheels: &["3.3.1"],
        tag: "v3.3.1",
        dialect: "ttg",
        ptxas: &two_ptxas("12.4.99", 100, "12.8.61"),
    },
    ReleaseInfo {
        release: Release::V3_4,
        name: "3.4",
        minors: &["3.4"],
        wheel: "3.4.0",
        wheels: &["3.4.0"],
        tag: "v3.4.0",
        dialect: "ttg",
        ptxas: &one_ptxas("12.8.93"),
    },
    ReleaseInfo {
        release: Release::V3_5,
        name: "3.5",
        minors: &["3.5"],
        wheel: "3.5.1",
        wheels: &["3.5.1"],
        tag: "v3.5.1",
        dialect: "ttg",
        ptxas: &one_ptxas("12.8.93"),
    },
    ReleaseInfo {
        release: Release::V3_6,
        name: "3.6",
        minors: &["3.6"],
        wheel: "3.6.0",
        wheels: &["3.6.0"],
        tag: "v3.6.0",
        dialect: "ttg",
        ptxas: &two_ptxas("12.8.93", 100, "12.9.86"),
    },
    ReleaseInfo {
        release: Release::V3_7,
        name: "3.7",
        minors: &["3.7"],
        wheel: "3.7.1",
        wheels: &["3.7.1"],
        tag: "v3.7.1",
        dialect: "ttg",
        ptxas: &two_ptxas("12.8.93", 100, "13.1.80"),
    },
    ReleaseInfo {
        release: Release::V3_8,
        name: "3.8",
        minors: &["3.8"],
        wheel: "3.8.0",
        wheels: &["3.8.0"],
        tag: "v3.8.0",
        dialect: "ttg",
        ptxas: &two_ptxas("12.9.86", 100, "13.3.33"),
    },
    ReleaseInfo {
        release: Release::V3_9,
        name: "3.9",
        minors: &["3.9"],
        wheel: "3.9.0",
        wheels: &["3.9.0"],
        tag: "v3.9.0",
        dialect: "ttg",
        ptxas: &two_ptxas("12.9.86", 90, "13.4.59"),
    },
];

/// The names that mean the newest modelled release.
const LATEST_ALIASES: [&str; 3] = ["latest", "newest", "main"];

impl Release {
    /// Every modelled release, oldest first.
    pub const ALL: [Release; 9] = [
        Release::V3_1,
        Release::V3_2,
        Release::V3_3,
        Release::V3_4,
        Release::V3_5,
        Release::V3_6,
        Release::V3_7,
        Release::V3_8,
        Release::V3_9,
    ];

    /// The newest modelled release (what `latest`, `newest` and `main`
    /// mean).
    pub const LATEST: Release = Release::V3_9;

    /// The assembler the release's wheel uses for a target of compute
    /// capability `capability`.
    pub fn ptxas(self, capability: u32) -> Ptxas {
        let info = self.info();
        info.ptxas
            .iter()
            .rev()
            .find(|p| p.from_capability <= capability)
            .or(info.ptxas.first())
            .copied()
            .unwrap_or(Ptxas {
                from_capability: 0,
                version: "",
                env: PTXAS,
            })
    }

    /// This release's row of [`RELEASES`].
    pub fn info(self) -> &'static ReleaseInfo {
        &RELEASES[self as usize]
    }

    /// The name (`3.2`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The pip version of the wheel the model is checked against first.
    pub fn wheel(self) -> &'static str {
        self.info().wheel
    }

    /// The dialect prefix this release prints (`triton_gpu` or `ttg`).
    pub fn dialect(self) -> &'static str {
        self.info().dialect
    }

    /// The git tag this release's source is cited from.
    pub fn tag(self) -> &'static str {
        self.info().tag
    }

    /// The next modelled release, if any.
    pub fn next(self) -> Option<Release> {
        Release::ALL.get(self as usize + 1).copied()
    }

    // ---- Cut points that more than one model depends on. ----

    /// From 3.2, conversions and shared-memory transfers are lowered
    /// through linear layouts; 3.1 lowers them with hand-written index code
    /// (its `ConvertLayoutOpConversion`, `getSwizzledSharedPtrs`) and has no
    /// stmatrix path.
    pub fn lowers_with_linear_layouts(self) -> bool {
        self >= Release::V3_2
    }

    /// From 3.3, a failed assertion or `report_fatal_error` inside a pass
    /// pipeline is caught by MLIR's crash reproducer and the compile raises
    /// `RuntimeError: PassManager::run failed`; 3.1 and 3.2 die on SIGABRT.
    pub fn catches_crashes(self) -> bool {
        self >= Release::V3_3
    }

    /// From 3.5 the TritonGPU dialect verifies every distributed tensor
    /// type through its linear layout (`verifyTensorLayout` calls
    /// `toLinearLayout`; 3.4's checks blocked layouts alone). A TTGIR file
    /// is verified as it is parsed, before any pass manager runs, so a
    /// conversion's failed assertion there kills the process uncaught
    /// (measured: `amd_wmma` tensors smaller than one instruction abort the
    /// file compiles of 3.5.1, 3.6.0 and 3.7.1, and raise from source,
    /// where the verifier runs inside the pass manager).
    pub fn verifies_tensor_layouts_at_parse(self) -> bool {
        self >= Release::V3_5
    }

    /// 3.3 and 3.4, compiling a TTGIR file (not Python source), print the
    /// caught crash and still die on SIGABRT; 3.9.0 raises from a file too.
    pub fn file_compile_aborts_after_catch(self) -> bool {
        self.catches_crashes() && self <= Release::V3_4
    }

    /// Up to 3.2 shared layouts are the generic `shared` attribute
    /// (`hasLeadingOffset` marks wgmma buffers); 3.3 split out
    /// `nvmma_shared` and `swizzled_shared`.
    pub fn has_legacy_shared_layouts(self) -> bool {
        self <= Release::V3_2
    }

    /// Up to 3.2 `LinearLayoutConversions.cpp` builds MMA layouts (NVIDIA
    /// and AMD) by hand per instruction shape, asserting on the shapes it
    /// does not know, and has no linear layout for most dot operands (and
    /// slices of them); 3.3 builds them generically.
    pub fn has_hand_built_mma_layouts(self) -> bool {
        self <= Release::V3_2
    }

    /// From 3.2 the Hopper MMA conversion admits instruction N = 8 (PR
    /// #4283).
    pub fn hopper_mma_admits_n8(self) -> bool {
        self >= Release::V3_2
    }

    /// Up to 3.2, `warpsPerTileV2` splits warps by the ratio of tiles; 3.3
    /// splits by repetitions (16 × 8 instruction tiles).
    pub fn splits_v2_warps_by_tiles(self) -> bool {
        self <= Release::V3_2
    }

    /// Up to 3.2 a chained dot's operand A stays in registers only through
    /// `OptimizeDotOperands`' `MMAV3UseRegOperand` (one warp along N, 8- or
    /// 16-bit elements); later releases decide in AccelerateMatmul and keep
    /// any operand A that does not come from a load.
    pub fn keeps_v3_operand_a_by_pattern(self) -> bool {
        self <= Release::V3_2
    }

    /// From 3.2 `supportMMA` asks a v3 dot for K of at least 256 bits.
    pub fn v3_needs_wide_k(self) -> bool {
        self >= Release::V3_2
    }

    /// From 3.3 an 8-bit dot must have K ≥ 32 (front end); 3.1 asks it of
    /// int8 only.
    pub fn checks_8bit_dot_k(self) -> bool {
        self >= Release::V3_3
    }

    /// From 3.8, `ensureLayoutNotLargerThan` zeroes every component out of
    /// range (3.2–3.7 zero the largest components first), `#ttg.linear` is
    /// checked for bijectivity without zero bases and shrunk the newer way,
    /// and `generic_linear` exists.
    pub fn trims_layouts_by_range(self) -> bool {
        self >= Release::V3_8
    }

    /// From 3.8 the CGA verifier requires its nonzero bases to be a
    /// permutation matrix; up to 3.7 non-surjective bases stop the process
    /// where they are built.
    pub fn verifies_cga_as_permutation(self) -> bool {
        self >= Release::V3_8
    }

    /// From 3.8 `#ttg.linear`'s verifier requires a permutation matrix once
    /// the zero bases are dropped.
    pub fn verifies_linear_as_permutation(self) -> bool {
        self >= Release::V3_8
    }

    /// `#ttg.generic_linear` exists from 3.8 (upstream #9765).
    pub fn has_generic_linear(self) -> bool {
        self >= Release::V3_8
    }

    /// 3.5 to 3.7 read an `nvmma_shared`'s rank from its `rank = N` field
    /// (2 when absent) and check the CGA bases against it; 3.8 infers it
    /// from the CGA bases.
    pub fn reads_nvmma_rank_field(self) -> bool {
        (Release::V3_5..=Release::V3_7).contains(&self)
    }

    /// From 3.6 `#ttg.linear`'s nonzero bases must make a bijection (the
    /// verifier's message is in the 3.6.0 wheel, not in 3.5.1's).
    pub fn verifies_linear_bijection(self) -> bool {
        self >= Release::V3_6
    }

    /// 3.3 still builds every NVMMA shared layout with 3.2's leading-offset
    /// builder (keyed on the swizzle); 3.4 builds them from the TMA box.
    pub fn builds_nvmma_by_leading_offset(self) -> bool {
        self == Release::V3_3
    }

    /// An unswizzled `transposed` NVMMA layout: 3.4 to 3.7 ignore
    /// `transposed`; 3.8 honours it (upstream e4264c126), as 3.3 would.
    pub fn transposes_unswizzled_nvmma(self) -> bool {
        !(Release::V3_4..=Release::V3_7).contains(&self)
    }

    /// From 3.7 `amd_wmma` stores its CTA part as a linear layout
    /// (`ctaLayout`) instead of `warpsPerCTA` (checked on 3.7.1's Gluon;
    /// the 3.5.1 and 3.6.0 wheels still print and parse `warpsPerCTA`, as
    /// their TTGIR for gfx1100 and gfx1201 shows).
    pub fn has_wmma_cta_layout(self) -> bool {
        self >= Release::V3_7
    }

    /// 3.4 to 3.7 assert that a WMMA tensor covers one instruction along M
    /// and N (3.2 too, by its own recipe); 3.3 has no check and 3.8
    /// broadcasts instead (upstream 1299a3b8e).
    pub fn checks_wmma_shape(self) -> bool {
        (Release::V3_4..=Release::V3_7).contains(&self)
    }

    /// 3.5 to 3.7 repeat a WMMA operand's registers along K up to the
    /// tensor's K; 3.8 stops at the instruction's K.
    pub fn wmma_operands_cover_whole_k(self) -> bool {
        (Release::V3_5..=Release::V3_7).contains(&self)
    }

    /// 3.5 to 3.7 fit a WMMA operand with its parent's CGA; 3.8 with the
    /// operand's own (K projected away).
    pub fn wmma_operands_take_parent_cga(self) -> bool {
        (Release::V3_5..=Release::V3_7).contains(&self)
    }

    /// Whether the LLVM this release links knows the NVPTX processor of
    /// compute capability `capability` (`sm_100`, …). The backend hands
    /// LLVM `sm_{capability}` (`sm_90a`; 3.3 on `sm_{capability}a` from 90);
    /// for a processor it does not know, LLVM warns, ignores it and selects
    /// instructions for its default `sm_20`, where warp shuffles do not
    /// exist. The wheels' `libtriton.so` list the processors: 3.1.0 up to
    /// `sm_90a`, 3.2.0 adds `sm_100`, 3.3.1 `sm_100a` to `sm_120a`.
    pub fn llvm_knows_processor(self, capability: u32) -> bool {
        match self {
            Release::V3_1 => capability <= 90,
            Release::V3_2 => capability <= 100,
            _ => capability <= 120,
        }
    }

    /// From 3.5 fp8 `mma.sync` on consumer Blackwell (cc 120) takes fp8
    /// operands unpromoted (`mmav2SupportsFp8Operands`).
    pub fn sm120_has_fp8_mma(self) -> bool {
        self >= Release::V3_5
    }

    /// From 3.5 async copies are split by
    /// `largestVectorisation` after a pointer-width check; 3.2–3.4 count
    /// consecutive registers on consecutive offsets.
    pub fn vectorises_async_copies(self) -> bool {
        self >= Release::V3_5
    }

    /// 3.2 alone splits a shared offset into one in-dim per tensor dim
    /// before counting consecutive registers (`getNumConsecutiveInOut`).
    pub fn splits_shared_offsets_per_dim(self) -> bool {
        self == Release::V3_2
    }

    /// Up to 3.2 a slice's registers are padded with duplicate bases up to
    /// the legacy `getTotalElemsPerThread`.
    pub fn has_legacy_elems_per_thread(self) -> bool {
        self <= Release::V3_2
    }

    /// From 3.4 a swizzled shared layout is sized per CTA; up to 3.3 by the
    /// whole shape.
    pub fn sizes_swizzle_per_cta(self) -> bool {
        self >= Release::V3_4
    }

    /// 3.9 drops register bases that run past the shape in blocked layouts
    /// (`broadcastRegisters = false`); earlier releases keep them as
    /// duplicates.
    pub fn drops_blocked_duplicates(self) -> bool {
        self >= Release::V3_9
    }

    /// 3.5 to 3.7 wrap a distributed layout's linear layout as a linear
    /// encoding (`toLinearEncoding`, and Gluon's `to_linear_layout`), which
    /// is verified as `#ttg.linear` is.
    pub fn wraps_layouts_as_linear_encodings(self) -> bool {
        (Release::V3_5..=Release::V3_7).contains(&self)
    }

    /// Several CTAs a program are modelled from 3.4, the first release whose
    /// CTA planning the finder follows (3.1 to 3.3 break in lowerings of
    /// theirs that are not modelled).
    pub fn models_multi_cta(self) -> bool {
        self >= Release::V3_4
    }

    /// AMD targets are modelled from 3.4: the releases whose AMD backend
    /// was studied (the 3.4.0 to 3.9.0 wheels compiling for `hip` on the
    /// CPU, and their sources).
    pub fn models_amd(self) -> bool {
        self >= Release::V3_4
    }

    /// From 3.6 the AMD backend knows RDNA4 (gfx1200–gfx1201, RDNA3 before)
    /// and gfx1250 (before: an unknown ISA family, whose lowering refuses
    /// the target) (`deduceISAFamily`, `TargetUtils.cpp`).
    pub fn knows_rdna4_and_gfx1250(self) -> bool {
        self >= Release::V3_6
    }

    /// From 3.6 the AMD pipeliner stages loads narrower than 32 bits a
    /// thread on RDNA too (3.5 spares CDNA4 alone; `getIndirectLevel`'s
    /// `filterSmallVectors`, `ScheduleLoops.cpp`).
    pub fn amd_pipelines_small_loads_on_rdna(self) -> bool {
        self >= Release::V3_6
    }

    /// Up to 3.6 gfx1250's 16-bit dots run on FMA, their operands cast to
    /// fp32 (`TritonAMDGPUAccelerateMatmulPass`): 3.4 and 3.5 deduce no ISA
    /// family for it (`deduceISAFamily`), so no MFMA or WMMA pattern is
    /// added; 3.6's `GFX1250` case adds only the scaled-dot WMMA pattern.
    /// 3.7 gives it WMMA version 3 (measured: the 3.4.0, 3.5.1 and 3.6.0
    /// wheels' TTGIR for gfx1250 has no `amd_wmma`).
    pub fn gfx1250_dots_on_fma(self) -> bool {
        self <= Release::V3_6
    }

    /// From 3.7 the AMD backend keeps tensor descriptors on targets with a
    /// tensor data mover (gfx1250) instead of rewriting them to pointers
    /// (`make_ttir`, `third_party/amd/backend/compiler.py`).
    pub fn amd_keeps_descriptors_for_tdm(self) -> bool {
        self >= Release::V3_7
    }

    /// From 3.9 CTA planning tiles every dot of a program (up to 3.8 it
    /// asserts at the second dot, `PlanCTA`'s "CTA tiling is already
    /// determined"), and loaded operands are reloaded in the dot's CGA.
    pub fn plans_ctas_of_every_dot(self) -> bool {
        self >= Release::V3_9
    }

    /// Whether AccelerateMatmul stores an MMA's unstaged operand B to shared
    /// memory in its producer's CGA: from 3.5 for tcgen05, from 3.6 for
    /// wgmma. (`getSharedMemoryMMAOperand` serves tcgen05's operand A the
    /// same way, when `PromoteLHSToTMem` then leaves it there.)
    pub fn stores_operand_b_in_producer_cga(self, tcgen05: bool) -> bool {
        self >= if tcgen05 {
            Release::V3_5
        } else {
            Release::V3_6
        }
    }

    /// Whether `OptimizeDotOperands`' `FuseTransMMAV3Plus`, which turns an
    /// MMA operand stored from a `tt.trans` into a `memdesc_trans` of the
    /// untransposed buffer, keeps the order AccelerateMatmul gave the
    /// buffer (from 3.6: `inferTransOpEncoding`). 3.4 and 3.5 recompute it,
    /// and make an operand that is not f16 or bf16 contiguous along K
    /// (`v3.5.1:lib/Dialect/TritonGPU/Transforms/OptimizeDotOperands.cpp:120`),
    /// for tcgen05 as for wgmma.
    pub fn fused_transpose_keeps_order(self) -> bool {
        self >= Release::V3_6
    }

    /// tcgen05's operand rules of `supportMMA` (`lib/Analysis/Utility.cpp`):
    /// the N step (16 in 3.5 to 3.7, else 8), whether K must span 256 bits
    /// (from 3.5), and whether int8 × int8 → int32 is taken (from 3.8).
    pub fn tcgen05_n_step(self) -> u64 {
        if (Release::V3_5..=Release::V3_7).contains(&self) {
            16
        } else {
            8
        }
    }

    /// See [`Release::tcgen05_n_step`].
    pub fn tcgen05_needs_256_bit_k(self) -> bool {
        self >= Release::V3_5
    }

    /// Whether AccelerateMatmul's `BlockedToMMAv5` may give a tcgen05 dot
    /// to a pair of CTAs (`canUseTwoCTAs`, then `splitBOperand` and the
    /// op's `two_ctas`): 3.4 to 3.6
    /// (`v3.5.1:lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp:419,522`).
    /// 3.7 turns it off (`bool useTwoCTAs = false`, PR #8941: PTX 13 wants
    /// one CTA mode per kernel), and 3.8 and later keep it off.
    pub fn chooses_two_cta_mma(self) -> bool {
        (Release::V3_4..=Release::V3_6).contains(&self)
    }

    /// Whether the tcgen05 lowering reads a two-CTA dot's operand B with
    /// half the instruction's N, the columns each CTA of the pair holds
    /// (`v3.6.0:third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv5.cpp:448`,
    /// `mmaSizeN / (twoCTAs ? 2 : 1)`): from 3.6. 3.4 and 3.5 build B's
    /// loader with the whole `mmaSizeN` (`v3.5.1:…/MMAv5.cpp:463`).
    pub fn halves_two_cta_operand_b(self) -> bool {
        self >= Release::V3_6
    }

    /// See [`Release::tcgen05_n_step`].
    pub fn tcgen05_takes_int8(self) -> bool {
        self >= Release::V3_8
    }

    // ---- How the release spells TTGIR: what a script writing modules for
    // it needs (the conformance fuzzer, the op-level grids). Layout
    // attributes are printed by `print_attr` / `attr_json`; these are the
    // rest of the syntax. Each was measured by parsing or compiling modules
    // in both spellings with the wheels of the releases around the cut.

    /// The dialect prefix of the NVIDIA-specific ops: `triton_nvidia_gpu`
    /// up to 3.2, `ttng` from 3.3 (renamed with [`Release::dialect`], PR
    /// #5266).
    pub fn nvidia_dialect(self) -> &'static str {
        if self.has_legacy_dialect_names() {
            "triton_nvidia_gpu"
        } else {
            "ttng"
        }
    }

    /// The dialect of the shared-memory descriptor type: `!tt.memdesc` up
    /// to 3.2, `!ttg.memdesc` from 3.3.
    pub fn memdesc_dialect(self) -> &'static str {
        if self.has_legacy_dialect_names() {
            "tt"
        } else {
            "ttg"
        }
    }

    /// Up to 3.2 the dialects are `triton_gpu` and `triton_nvidia_gpu`, and
    /// the memdesc type is `tt`'s (the row's `dialect` says the same).
    fn has_legacy_dialect_names(self) -> bool {
        self.dialect() == "triton_gpu"
    }

    /// From 3.2 a memdesc type names its memory space
    /// (`#triton_gpu.shared_memory`, from 3.3 `#ttg.shared_memory`); 3.1's
    /// has none.
    pub fn memdesc_names_memory_space(self) -> bool {
        self >= Release::V3_2
    }

    /// From 3.5 `async_commit_group` names its input tokens after a
    /// `tokens` keyword (`TritonGPUOps.td`); before, they follow the op.
    pub fn commit_group_names_tokens(self) -> bool {
        self >= Release::V3_5
    }

    /// From 3.6 a layout writes its CGA as linear bases (`CGALayout`), and
    /// an `nvmma_shared` of another rank than 2 says so with `rank = N`; up
    /// to 3.5 as three lists (`CTAsPerCGA`, `CTASplitNum`, `CTAOrder`),
    /// whose length is the rank (PR #8770; each release's parser refuses
    /// the other spelling: the `cga_spelling` site).
    pub fn spells_cga_as_bases(self) -> bool {
        self >= Release::V3_6
    }

    /// `#ttg.linear` exists from 3.3 (3.2.0's parser refuses
    /// `#triton_gpu.linear`).
    pub fn has_linear_attr(self) -> bool {
        self >= Release::V3_3
    }

    /// `#ttg.padded_shared` exists from 3.5 (3.4.0's parser refuses it).
    pub fn has_padded_shared(self) -> bool {
        self >= Release::V3_5
    }

    /// From 3.7 the wheel's Gluon builds every layout class this crate
    /// converts and gives its linear layout (`to_linear_layout`): the oracle
    /// of the attribute conversions (`tests/oracle/encodings_oracle.py`).
    /// 3.6.0's Gluon has older `AMDWMMALayout` and `PaddedSharedLayout`
    /// signatures, 3.5.1's layout builder no `to_linear_layout`.
    pub fn has_gluon_layout_oracle(self) -> bool {
        self >= Release::V3_7
    }

    /// From 3.6 a `padded_shared` names its `shape` after its `order`
    /// (`{order = [1, 0], shape = [32, 64]}`); 3.5.1's parser refuses the
    /// key, 3.6.0's requires it.
    pub fn padded_shared_names_shape(self) -> bool {
        self >= Release::V3_6
    }

    /// From 3.6 a `padded_shared` buffer is lowered; 3.5 reads the
    /// attribute but has no linear layout for it, and a `local_alloc` into
    /// one aborts in `toLinearLayout` ("unknown layout",
    /// `v3.5.1:lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp:1311`;
    /// measured with the conformance fuzzer's shared-memory cases).
    pub fn lowers_padded_shared(self) -> bool {
        self >= Release::V3_6
    }

    /// `#ttg.shared_linear` exists from 3.6 (3.5.1's parser refuses it).
    pub fn has_shared_linear(self) -> bool {
        self >= Release::V3_6
    }

    /// Up to 3.4 an `amd_mfma` writes its version as `versionMajor` and
    /// `versionMinor`; from 3.5 as `version` (each of the 3.2.0 to 3.9.0
    /// wheels prints its own spelling back and reads the other's version
    /// as 0).
    pub fn spells_mfma_version_major_minor(self) -> bool {
        self <= Release::V3_4
    }

    /// From 3.6 an `amd_mfma`'s `instrShape` names the instruction's K
    /// (`[32, 32, 8]`); up to 3.5 it is `[M, N]` (the 3.2.0 to 3.5.1
    /// wheels read a K and print the attribute back without it).
    pub fn mfma_instr_shape_names_k(self) -> bool {
        self >= Release::V3_6
    }

    /// From 3.3 an `amd_wmma` says whether it is transposed
    /// (`isTranspose`); 3.2.0 reads the key and prints the attribute back
    /// without it.
    pub fn wmma_names_transpose(self) -> bool {
        self >= Release::V3_3
    }

    /// From 3.6 a WMMA of every version may be transposed; the 3.3.1 to
    /// 3.5.1 wheels refuse a transposed version 1 as they parse it
    /// ("Transposed WMMA is supported only for version 2").
    pub fn transposes_wmma_of_every_version(self) -> bool {
        self >= Release::V3_6
    }

    /// From 3.2 a tensor of `f8E4M3FN` (`tl.float8e4nv`) is a `tt` tensor;
    /// 3.1's float types are the `FNUZ` variants and `f8E5M2` (3.1.0's
    /// parser refuses a `tt.load` of `f8E4M3FN`, 3.2.0's takes it).
    pub fn has_f8e4m3fn_tensors(self) -> bool {
        self >= Release::V3_2
    }

    /// `tt.gather` and `ttg.memdesc_trans` exist from 3.3 (3.2.0's parser
    /// refuses both).
    pub fn has_gather_and_memdesc_trans(self) -> bool {
        self >= Release::V3_3
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad` honours a width (`{:<5}`) in tables.
        f.pad(self.name())
    }
}

/// A release name that no modelled release answers to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown Triton release `{0}`; expected one of {list}", list = release_list())]
pub struct UnknownRelease(pub String);

impl FromStr for Release {
    type Err = UnknownRelease;

    /// `3.2`, `3.2.0`, `3.5.1`, `latest`, `newest`, `main`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if LATEST_ALIASES.contains(&t) {
            return Ok(Release::LATEST);
        }
        let minor = match t.split('.').collect::<Vec<_>>()[..] {
            [major, minor] => format!("{major}.{minor}"),
            [major, minor, patch] if !patch.is_empty() => format!("{major}.{minor}"),
            _ => return Err(UnknownRelease(t.to_string())),
        };
        RELEASES
            .iter()
            .find(|info| info.minors.contains(&minor.as_str()))
            .map(|info| info.release)
            .ok_or_else(|| UnknownRelease(t.to_string()))
    }
}

/// The names accepted, generated from [`RELEASES`]: `3.1, 3.2, …, 3.9 (or
/// latest, newest, main)`; a row standing for several minors lists them
/// (`3.7 (also 3.5, 3.6)`).
pub fn release_list() -> &'static str {
    static LIST: OnceLock<String> = OnceLock::new();
    LIST.get_or_init(|| {
        let names: Vec<String> = RELEASES
            .iter()
            .map(|info| {
                let mut name = info.name.to_string();
                let others: Vec<&str> = info
                    .minors
                    .iter()
                    .copied()
                    .filter(|m| *m != info.name)
                    .collect();
                if !others.is_empty() {
                    name += &format!(" (also {})", others.join(", "));
                }
                if info.release == Release::LATEST {
                    name += &format!(" (or {})", LATEST_ALIASES.join(", "));
                }
                name
            })
            .collect();
        names.join(", ")
    })
}

/// Help text for a command-line option taking one release, generated from
/// [`RELEASES`].
pub fn release_help() -> &'static str {
    static HELP: OnceLock<String> = OnceLock::new();
    HELP.get_or_init(|| format!("Triton release: {}", release_list()))
}

/// Help text for a command-line option taking several releases (or
/// `all`), generated from [`RELEASES`].
pub fn releases_help() -> &'static str {
    static HELP: OnceLock<String> = OnceLock::new();
    HELP.get_or_init(|| {
        format!(
            "Triton releases, comma-separated, or `all` (each gets its own answer): {}",
            release_list()
        )
    })
}

/// A value that changes at some releases: rows of (first release, value),
/// oldest first. [`at`](Since::at) gives the value of the last row at or
/// before a release; a release older than the first row has none.
#[derive(Debug)]
pub struct Since<T: 'static>(pub &'static [(Release, T)]);

impl<T> Since<T> {
    /// The value in force at `release`.
    pub fn at(&self, release: Release) -> Option<&'static T> {
        self.0
            .iter()
            .rev()
            .find(|(from, _)| *from <= release)
            .map(|(_, value)| value)
    }
}

/// A span of releases: from `since` on, until (not including) `until`;
/// `until: None` is every later release, including ones not modelled yet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first release in the span.
    pub since: Release,
    /// The first release after it, if the span ends.
    pub until: Option<Release>,
}

impl Span {
    /// `since` and every later release.
    pub const fn since(since: Release) -> Span {
        Span { since, until: None }
    }

    /// From `since` up to, not including, `until`.
    pub const fn until(since: Release, until: Release) -> Span {
        Span {
            since,
            until: Some(until),
        }
    }

    /// Exactly one release.
    pub const fn only(release: Release) -> Span {
        let next = release as usize + 1;
        Span {
            since: release,
            // The newest release's next is not modelled yet: it inherits.
            until: if next < Release::ALL.len() {
                Some(Release::ALL[next])
            } else {
                None
            },
        }
    }

    /// Whether `release` is in the span.
    pub fn contains(&self, release: Release) -> bool {
        release >= self.since && self.until.is_none_or(|u| release < u)
    }

    /// The modelled releases in the span.
    pub fn releases(&self) -> impl Iterator<Item = Release> + '_ {
        Release::ALL.into_iter().filter(|&r| self.contains(r))
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let releases: Vec<Release> = self.releases().collect();
        match (releases.first(), releases.last(), self.until) {
            (Some(first), _, None) => write!(f, "{first}+"),
            (Some(first), Some(last), _) if first == last => write!(f, "{first}"),
            (Some(first), Some(last), _) => write!(f, "{first}–{last}"),
            _ => f.write_str("(none)"),
        }
    }
}

#[cfg(test)]
mod tests {

    /// The assembler per target, as read from each wheel: 3.5-3.7 use
    /// ptxas 12.8 for sm90, 3.8 12.9, and 3.9 its Blackwell ptxas from sm90.
    #[test]
    fn each_wheel_assembles_each_target_with_its_bundled_ptxas() {
        let at = |r: Release, cc| r.ptxas(cc);
        assert_eq!(at(Release::V3_5, 90).version, "12.8.93");
        assert_eq!(at(Release::V3_6, 90).version, "12.8.93");
        assert_eq!(at(Release::V3_6, 100).version, "12.9.86");
        assert_eq!(at(Release::V3_6, 100).env, "TRITON_PTXAS_BLACKWELL_PATH");
        assert_eq!(at(Release::V3_7, 90).env, "TRITON_PTXAS_PATH");
        assert_eq!(at(Release::V3_8, 90).version, "12.9.86");
        assert_eq!(at(Release::V3_9, 80).version, "12.9.86");
        assert_eq!(at(Release::V3_9, 90).version, "13.4.59");
        assert_eq!(at(Release::V3_9, 90).env, "TRITON_PTXAS_BLACKWELL_PATH");
        for info in &RELEASES {
            assert!(
                info.ptxas
                    .windows(2)
                    .all(|w| w[0].from_capability < w[1].from_capability)
                    && info.ptxas.first().is_some_and(|p| p.from_capability == 0),
                "{}",
                info.name
            );
        }
    }

    use super::Release::{self, *};
    use super::*;

    #[test]
    fn the_table_is_in_release_order() {
        for (i, info) in RELEASES.iter().enumerate() {
            assert_eq!(info.release as usize, i);
            assert_eq!(Release::ALL[i], info.release);
            assert!(info.minors.contains(&info.name), "{}", info.name);
            assert!(info.wheels.contains(&info.wheel), "{}", info.name);
            assert_eq!(info.tag, format!("v{}", info.wheel));
        }
        assert_eq!(Release::LATEST, *Release::ALL.last().unwrap());
    }

    #[test]
    fn release_names_parse_to_the_modelled_release() {
        for (name, want) in [
            ("3.1", V3_1),
            ("3.2.0", V3_2),
            ("3.3.1", V3_3),
            ("3.4.0", V3_4),
            ("3.5.1", V3_5),
            ("3.6", V3_6),
            ("3.7.1", V3_7),
            ("3.8.0", V3_8),
            ("3.9.0", V3_9),
            ("newest", V3_9),
            ("latest", V3_9),
            ("main", V3_9),
        ] {
            assert_eq!(name.parse::<Release>(), Ok(want), "{name}");
        }
        for bad in ["3.0", "3.10", "4.0", "", "3", "newer", "3.2.0.1", "3.2."] {
            assert!(bad.parse::<Release>().is_err(), "{bad}");
        }
    }

    #[test]
    fn each_release_prints_a_name_that_parses_back() {
        for r in Release::ALL {
            assert_eq!(r.to_string().parse::<Release>(), Ok(r));
            for wheel in r.info().wheels {
                assert_eq!(wheel.parse::<Release>(), Ok(r));
            }
        }
    }

    #[test]
    fn the_error_lists_every_name() {
        let text = "2.0".parse::<Release>().unwrap_err().to_string();
        for info in &RELEASES {
            for minor in info.minors {
                assert!(text.contains(minor), "{text}");
            }
        }
    }

    #[test]
    fn a_step_function_takes_the_last_row_at_or_before() {
        const STEPS: Since<u32> = Since(&[(V3_2, 2), (V3_4, 4)]);
        assert_eq!(STEPS.at(V3_1), None);
        assert_eq!(STEPS.at(V3_2), Some(&2));
        assert_eq!(STEPS.at(V3_3), Some(&2));
        assert_eq!(STEPS.at(V3_9), Some(&4));
    }

    #[test]
    fn spans_print_and_contain() {
        assert_eq!(Span::only(V3_3).to_string(), "3.3");
        assert_eq!(Span::until(V3_1, V3_3).to_string(), "3.1–3.2");
        assert_eq!(Span::since(V3_7).to_string(), "3.7+");
        assert!(Span::since(V3_7).contains(V3_9));
        assert!(!Span::until(V3_1, V3_3).contains(V3_3));
    }
}
