//! The lowering sites that can fail, one file each. A site model takes the
//! layouts the release chose and runs the release's own layout steps
//! through the checked algebra; a violated precondition becomes a
//! [`Failure`] at the model's [`Site`], whose descriptor (a `SITE` static in
//! each file, its id the file's name) says where each release fails, how,
//! and what fixed it.
//!
//! Some failures happen inside a layout conversion the lowering asks for;
//! those carry the conversion's site ([`crate::CONVERSION_SITES`]).

pub(crate) mod acc_dtype;
pub(crate) mod accumulator_to_v2;
pub(crate) mod amd_chained_dot;
pub(crate) mod amd_fp8_arch;
pub(crate) mod amd_fp8_upcast;
pub(crate) mod amd_target;
pub(crate) mod amd_tdm_pipeline;
pub(crate) mod cga_spelling;
pub(crate) mod convert_8bit_shuffle;
pub(crate) mod cp_async;
pub(crate) mod cross_cta;
pub(crate) mod descriptor_rank_reduce_cta;
pub(crate) mod dot_k;
pub(crate) mod dsmem_mapa;
pub(crate) mod dsmem_no_scratch;
pub(crate) mod fp8_arch;
pub(crate) mod fp8_promotion;
pub(crate) mod gather_layout;
pub(crate) mod hopper_dot_operand;
pub(crate) mod join_split_cga;
pub(crate) mod language_feature;
pub(crate) mod local_load_rank3;
pub(crate) mod mma_operand_cga;
pub(crate) mod mma_to_mma_3_1;
pub(crate) mod mma_version;
pub(crate) mod nvmma_memdesc;
pub(crate) mod operand_shared;
pub(crate) mod plan_cta;
pub(crate) mod plan_cta_descriptor_gather;
pub(crate) mod plan_cta_rank3_dot;
pub(crate) mod plan_cta_reduce;
pub(crate) mod ptxas_wgmma_reuse;
pub(crate) mod scaled_dot_batched_scale;
pub(crate) mod scaled_dot_mn_packed;
pub(crate) mod scan_layout;
pub(crate) mod shared_linear_xor;
pub(crate) mod shared_tile;
pub(crate) mod stmatrix;
pub(crate) mod stmatrix_scratch;
pub(crate) mod tcgen05_cga;
pub(crate) mod tcgen05_operand_3_3;
pub(crate) mod tmem_cta_3_5;
pub(crate) mod tmem_lhs_cta;
pub(crate) mod unknown_target;
pub(crate) mod v2_shortcut_3_1;
pub(crate) mod warp_shuffle_3_3;
pub(crate) mod wgmma_operand_major;
pub(crate) mod ws_partition_attr;
pub(crate) mod ws_producer_commit;
pub(crate) mod ws_tma_block;

use super::amd::Loop;
use super::config::{Arch, Vendor};
use super::decisions::DotShape;
use super::op::{Op, hopper_mma};
use super::verdict::Trace;
use crate::attr::{Attr, Cga, NvidiaMma};
use crate::print_attr;
use crate::{Conversion, ConvertError, Release, to_linear_layout};
pub use crate::{Entry, Failure, Site};
use linear_layout::LinearLayout;
use std::sync::OnceLock;

/// One step of a release's compile that a site may trip on, as a hub hands
/// it to the sites: the finder's pattern pipeline (`predict`) names the
/// steps it models directly; `check-ttgir` hands over every definition and
/// layout-sensitive op it reads, and each site decides what the op means
/// for it. A step several sites model (a converted accumulator, a scan) is
/// modelled once per site, whichever hub reached it.
pub(crate) enum Event<'a> {
    /// A `#name = <attr>` definition of a TTGIR module, read as the module
    /// is parsed, before any op is lowered.
    Definition(&'a Attr),
    /// A layout-sensitive op of a TTGIR module, lowered.
    Op(&'a Op<'a>),
    /// A layout-sensitive op of a TTGIR module (on line `index` of
    /// `lines`) as the assembler meets it, after Triton is done: the risks
    /// of the bundled ptxas (`check_ttgir::risks`), never a failure of the
    /// compile.
    Assemble {
        op: &'a Op<'a>,
        lines: &'a [&'a str],
        index: usize,
    },
    /// A layout-sensitive op of a TTGIR module as the lowering's first
    /// pass sees it (`DecomposeUnsupportedNVIDIAConversions`, which
    /// rewrites conversions over the whole module before anything is
    /// allocated or lowered).
    Decompose(&'a Op<'a>),
    /// The front end's checks of a kernel's source (`semantic.py`), before
    /// any layout exists.
    FrontEnd(&'a FrontEnd),
    /// CTA planning of a kernel whose `dots` dots are tiled over
    /// `num_ctas` CTAs.
    PlanCtas { dots: u64, num_ctas: u64 },
    /// Choosing the MMA version of the kernel's dots on a GPU of compute
    /// capability `capability`.
    ChooseMma { capability: u32 },
    /// AccelerateMatmul giving a wgmma operand its shared encoding:
    /// `contiguous` elements of `bits` bits along the buffer's fastest dim.
    SharedOperand {
        name: &'a str,
        contiguous: u64,
        bits: u64,
    },
    /// A Hopper accumulator stored to shared memory (`local_alloc`).
    AccumulatorStore(&'a stmatrix::Store<'a>),
    /// A dot's accumulator converted to operand A of an MMA v2 dot;
    /// `same_attr`: the operand's parent is the source attribute itself.
    AccumulatorToOperand {
        p: &'a accumulator_to_v2::PConversion<'a>,
        same_attr: bool,
    },
    /// An fp8 operand of an MMA v2 dot promoted to fp16.
    Fp8Promotion(&'a fp8_promotion::Operand<'a>),
    /// A rank-`rank` shared → register load (`local_load`).
    LocalLoad { rank: usize, into_dot_operand: bool },
    /// A global → shared copy lowered to cp.async.
    AsyncCopy(&'a cp_async::AsyncCopy<'a>),
    /// A dot's operand B in the buffer 3.3 gives tcgen05 operands.
    Tcgen05OperandB { dot: &'a DotShape, num_warps: u64 },
    /// A tcgen05 accumulator tiled `tiling` over the CTAs, leaving tensor
    /// memory.
    TmemAccumulator { tiling: [u64; 2] },
    /// tcgen05 reading operand B, whose rows hold `cols_bytes` bytes, from
    /// a buffer in its producer's CGA.
    Tcgen05OperandBuffer { cols_bytes: u64 },
    /// The verifier of a tcgen05 op comparing its operands' CGAs.
    Tcgen05Verify(&'a tcgen05_cga::Operands<'a>),
    /// An MMA reading operand B (block bases `bases`) from shared memory.
    MmaOperandBuffer {
        bases: &'a [[u64; 2]],
        n: u64,
        instr_n: u64,
        swizzled: bool,
        reader: mma_operand_cga::Reader,
    },
    /// The loaders of an MMA's operands held in shared memory (A before
    /// B), built and walked as the dot is lowered.
    MmaOperandLoader {
        operands: &'a [mma_operand_cga::Operand],
        reader: mma_operand_cga::Reader,
    },
    /// A tcgen05 lhs promoted to tensor memory.
    TmemLhs {
        rows: u64,
        k: u64,
        split: [u64; 2],
        block_m: u64,
    },
    /// A value moved between two CGAs (block bases `from` → `to`).
    CrossCta {
        what: &'a str,
        from: &'a [[u64; 2]],
        to: &'a [[u64; 2]],
        from_shared: bool,
    },
    /// A `tt.scan` of an operand.
    Scan(&'a ScanOperand<'a>),
    /// A `tl.gather` along dim 1 of a `[rows, src]` source by a `[rows,
    /// idx]` index tensor, on warps of `lanes` threads.
    Gather {
        rows: u64,
        src: u64,
        idx: u64,
        num_warps: u64,
        lanes: u64,
        cga: Option<Cga>,
    },
    /// The lowering to LLVM IR starting on a module for `arch`
    /// (`ConvertTritonAMDGPUToLLVM` checks its target first).
    LowerModule { arch: Arch },
    /// AMD's stream pipeliner scheduling a loop.
    AmdLoop(&'a Loop),
    /// A dot of the module lowered for an AMD target: its operands'
    /// casts, after `AccelerateMatmul` chose its unit.
    AmdDot { dot: &'a DotShape, arch: Arch },
}

/// The kinds of [`Event`], for a site to say which steps it models.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum EventKind {
    /// [`Event::Definition`].
    Definition,
    /// [`Event::Op`].
    Op,
    /// [`Event::Assemble`].
    Assemble,
    /// [`Event::Decompose`].
    Decompose,
    /// [`Event::FrontEnd`].
    FrontEnd,
    /// [`Event::PlanCtas`].
    PlanCtas,
    /// [`Event::ChooseMma`].
    ChooseMma,
    /// [`Event::SharedOperand`].
    SharedOperand,
    /// [`Event::AccumulatorStore`].
    AccumulatorStore,
    /// [`Event::AccumulatorToOperand`].
    AccumulatorToOperand,
    /// [`Event::Fp8Promotion`].
    Fp8Promotion,
    /// [`Event::LocalLoad`].
    LocalLoad,
    /// [`Event::AsyncCopy`].
    AsyncCopy,
    /// [`Event::Tcgen05OperandB`].
    Tcgen05OperandB,
    /// [`Event::TmemAccumulator`].
    TmemAccumulator,
    /// [`Event::Tcgen05OperandBuffer`].
    Tcgen05OperandBuffer,
    /// [`Event::Tcgen05Verify`].
    Tcgen05Verify,
    /// [`Event::MmaOperandBuffer`].
    MmaOperandBuffer,
    /// [`Event::MmaOperandLoader`].
    MmaOperandLoader,
    /// [`Event::TmemLhs`].
    TmemLhs,
    /// [`Event::CrossCta`].
    CrossCta,
    /// [`Event::Scan`].
    Scan,
    /// [`Event::Gather`].
    Gather,
    /// [`Event::LowerModule`].
    LowerModule,
    /// [`Event::AmdLoop`].
    AmdLoop,
    /// [`Event::AmdDot`].
    AmdDot,
}

impl EventKind {
    /// Every kind, in [`Event`]'s order.
    const ALL: [EventKind; 26] = [
        EventKind::Definition,
        EventKind::Op,
        EventKind::Assemble,
        EventKind::Decompose,
        EventKind::FrontEnd,
        EventKind::PlanCtas,
        EventKind::ChooseMma,
        EventKind::SharedOperand,
        EventKind::AccumulatorStore,
        EventKind::AccumulatorToOperand,
        EventKind::Fp8Promotion,
        EventKind::LocalLoad,
        EventKind::AsyncCopy,
        EventKind::Tcgen05OperandB,
        EventKind::TmemAccumulator,
        EventKind::Tcgen05OperandBuffer,
        EventKind::Tcgen05Verify,
        EventKind::MmaOperandBuffer,
        EventKind::MmaOperandLoader,
        EventKind::TmemLhs,
        EventKind::CrossCta,
        EventKind::Scan,
        EventKind::Gather,
        EventKind::LowerModule,
        EventKind::AmdLoop,
        EventKind::AmdDot,
    ];
}

impl Event<'_> {
    /// This event's kind.
    fn kind(&self) -> EventKind {
        match self {
            Event::Definition(..) => EventKind::Definition,
            Event::Op(..) => EventKind::Op,
            Event::Assemble { .. } => EventKind::Assemble,
            Event::Decompose(..) => EventKind::Decompose,
            Event::FrontEnd(..) => EventKind::FrontEnd,
            Event::PlanCtas { .. } => EventKind::PlanCtas,
            Event::ChooseMma { .. } => EventKind::ChooseMma,
            Event::SharedOperand { .. } => EventKind::SharedOperand,
            Event::AccumulatorStore(..) => EventKind::AccumulatorStore,
            Event::AccumulatorToOperand { .. } => EventKind::AccumulatorToOperand,
            Event::Fp8Promotion(..) => EventKind::Fp8Promotion,
            Event::LocalLoad { .. } => EventKind::LocalLoad,
            Event::AsyncCopy(..) => EventKind::AsyncCopy,
            Event::Tcgen05OperandB { .. } => EventKind::Tcgen05OperandB,
            Event::TmemAccumulator { .. } => EventKind::TmemAccumulator,
            Event::Tcgen05OperandBuffer { .. } => EventKind::Tcgen05OperandBuffer,
            Event::Tcgen05Verify(..) => EventKind::Tcgen05Verify,
            Event::MmaOperandBuffer { .. } => EventKind::MmaOperandBuffer,
            Event::MmaOperandLoader { .. } => EventKind::MmaOperandLoader,
            Event::TmemLhs { .. } => EventKind::TmemLhs,
            Event::CrossCta { .. } => EventKind::CrossCta,
            Event::Scan(..) => EventKind::Scan,
            Event::Gather { .. } => EventKind::Gather,
            Event::LowerModule { .. } => EventKind::LowerModule,
            Event::AmdLoop(..) => EventKind::AmdLoop,
            Event::AmdDot { .. } => EventKind::AmdDot,
        }
    }

    /// Whose backend compiles the step, where it says: a TTGIR op's
    /// module's target, the front end's and the lowering's target; `None`
    /// for a step the pattern pipelines hand to the sites of their own
    /// backend (or one both share: a definition, a scan, a gather).
    fn vendor(&self) -> Option<Vendor> {
        match self {
            Event::Op(op) => Some(op.module.vendor()),
            Event::FrontEnd(front_end) => Some(front_end.arch.vendor()),
            Event::LowerModule { arch } => Some(arch.vendor()),
            Event::AmdLoop(_) => Some(Vendor::Amd),
            Event::AmdDot { .. } => Some(Vendor::Amd),
            _ => None,
        }
    }
}

/// What the front end checks of a kernel's source.
pub(crate) struct FrontEnd {
    /// The target.
    pub arch: Arch,
    /// The kernel calls `tl.gather`.
    pub gather: bool,
    /// Its dots, when it has any.
    pub dot: Option<FrontEndDot>,
}

/// What the front end checks of a kernel's dots.
pub(crate) struct FrontEndDot {
    /// The operands are fp8e4nv.
    pub fp8e4nv: bool,
    /// The target's compute capability (`None` on AMD).
    pub capability: Option<u32>,
    /// The operands are 8 bits wide.
    pub eight_bit: bool,
    /// The operands are int8.
    pub int8: bool,
    /// The smallest K among the dots.
    pub min_k: u64,
    /// A dot is handed an int32 accumulator and keeps the default
    /// `out_dtype`.
    pub int32_acc: bool,
}

/// A scan's operand.
pub(crate) struct ScanOperand<'a> {
    /// Its linear layout.
    pub layout: &'a LinearLayout,
    /// Its shape.
    pub shape: &'a [u64],
    /// Distinct tiles along each dim among the CTAs.
    pub split: &'a [u64],
    /// The scanned dim.
    pub axis: usize,
    /// The target's compute capability, when known.
    pub capability: Option<u32>,
}

/// A site's model: what a step of the compile means at this site.
pub(crate) trait SiteModel: Sync {
    /// The descriptor of the failures it reports.
    fn site(&self) -> &'static Site;

    /// The kinds of step it models; [`run`] hands it no other.
    fn events(&self) -> &'static [EventKind];

    /// The backends whose compiles it describes: a step that names its
    /// backend ([`Event`]'s target: a TTGIR op's module, the front end, the
    /// lowering) reaches only that backend's models. NVIDIA's, unless the
    /// model says otherwise: most sites are NVIDIA lowerings; a common pass
    /// or check lists both ([`EVERY_VENDOR`]).
    fn vendors(&self) -> &'static [Vendor] {
        &[Vendor::Nvidia]
    }

    /// The failure `release` meets at this site in `event`, if any; a step
    /// the site has nothing to do with is `Ok`.
    fn check(&self, event: &Event<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure>;

    /// Where in a compile the site fails, for the sites that say (`None`:
    /// not stated). A site of the TTGIR pass pipeline cannot be seen in a
    /// TTGIR module: the module `check-ttgir` reads is written after those
    /// passes ran.
    fn stage(&self) -> Option<Stage> {
        None
    }
}

/// The part of a compile a site fails in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The TTGIR pass pipeline (`make_ttgir`): the failure happens before
    /// the module `check-ttgir` reads exists, so only the real front end
    /// meets it. `scan` and the Python guard run that front end and report
    /// its failure, and `explain` names the site from the message; a TTGIR
    /// module has nothing to check.
    TtgirPasses,
    /// The LLVM lowering (`make_llir`) of the module `check-ttgir` reads:
    /// the site's model checks the ops of that module.
    Lowering,
    /// The verifier MLIR's pass manager runs on the module the LLVM
    /// lowering pass wrote, once that pass has converted every op: the
    /// site's model checks an op of the TTGIR module, but the op the
    /// lowering builds for it is refused only after the whole pass
    /// succeeded. A failure of the lowering itself (an op it cannot
    /// legalize, an assertion, a fatal error) anywhere in the module ends
    /// the compile first, whatever the order of the two ops.
    LoweredModuleVerifier,
}

impl Stage {
    /// Words for people.
    pub fn describe(self) -> &'static str {
        match self {
            Stage::TtgirPasses => {
                "the TTGIR passes (make_ttgir): named by `explain` from the message, reported by \
                 `scan` and the guard as the real front end's failure; no TTGIR module shows it"
            }
            Stage::Lowering => {
                "the LLVM lowering (make_llir): `check-ttgir` finds the op in the module"
            }
            Stage::LoweredModuleVerifier => {
                "the verifier of the lowered module, after the LLVM lowering pass (make_llir): \
                 `check-ttgir` finds the op in the module, and any failure of the lowering \
                 itself, anywhere in the module, ends the compile first"
            }
        }
    }
}

/// The stage the model of site `id` declares.
pub fn stage_of(id: &str) -> Option<Stage> {
    MODELS
        .iter()
        .find(|m| m.site().id == id)
        .and_then(|m| m.stage())
}

/// The model of a site that one kind of TTGIR op meets in a stage of the
/// lowering: the op's name and the check of one such op are all it needs.
pub(crate) struct OpModel {
    pub(crate) site: &'static Site,
    /// The op's name, without its dialect (`convert_layout`).
    pub(crate) op: &'static str,
    pub(crate) stage: Stage,
    pub(crate) check: fn(&super::op::Op<'_>, Release, &mut Trace) -> Result<(), Failure>,
}

impl SiteModel for OpModel {
    fn site(&self) -> &'static Site {
        self.site
    }

    fn events(&self) -> &'static [EventKind] {
        &[EventKind::Op]
    }

    fn check(&self, event: &Event<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
        match event {
            Event::Op(op) if op.name == self.op => (self.check)(op, release, trace),
            _ => Ok(()),
        }
    }

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }
}

/// The model of a site of the TTGIR pass pipeline: the descriptor is all
/// there is (see [`Stage::TtgirPasses`]), no event of a TTGIR module or of
/// the finder's patterns reaches it.
macro_rules! passes_only_model {
    () => {
        /// The model: nothing to check in a TTGIR module.
        pub(crate) struct Model;

        impl super::SiteModel for Model {
            fn site(&self) -> &'static crate::Site {
                &SITE
            }

            fn events(&self) -> &'static [super::EventKind] {
                &[]
            }

            fn check(
                &self,
                _event: &super::Event<'_>,
                _release: crate::Release,
                _trace: &mut crate::finder::verdict::Trace,
            ) -> Result<(), super::Failure> {
                Ok(())
            }

            fn stage(&self) -> Option<super::Stage> {
                Some(super::Stage::TtgirPasses)
            }
        }
    };
}
pub(crate) use passes_only_model;

/// Every site model, in the order a release meets them within one step:
/// a module's definitions, the front end, CTA planning, the MMA choice,
/// then per op its buffer's type and addressing before its lowering, and
/// within a conversion the scratch buffer (3.1), the layouts, the shuffle
/// plan, the operand shortcut and the byte permutes. Adding a site is
/// adding its file and a line here.
pub(crate) static MODELS: [&dyn SiteModel; 52] = [
    &cga_spelling::Model,
    // the TTGIR passes: named from their messages, never met in a module
    &scaled_dot_batched_scale::Model,
    &ws_partition_attr::Model,
    &ws_tma_block::Model,
    &ws_producer_commit::Model,
    &join_split_cga::Model,
    &plan_cta_reduce::Model,
    &plan_cta_rank3_dot::Model,
    &plan_cta_descriptor_gather::Model,
    &descriptor_rank_reduce_cta::Model,
    &language_feature::Model,
    &fp8_arch::Model,
    &amd_fp8_arch::Model,
    &dot_k::Model,
    &acc_dtype::Model,
    &plan_cta::Model,
    &mma_version::Model,
    &hopper_dot_operand::Model,
    &nvmma_memdesc::Model,
    &shared_tile::Model,
    &operand_shared::Model,
    &stmatrix::Model,
    &mma_to_mma_3_1::Model,
    &HopperMmaLayout,
    &warp_shuffle_3_3::Model,
    &stmatrix_scratch::MODEL,
    &accumulator_to_v2::Model,
    &v2_shortcut_3_1::Model,
    &convert_8bit_shuffle::Model,
    &cp_async::Model,
    &local_load_rank3::Model,
    &shared_linear_xor::Model,
    &fp8_promotion::Model,
    &tcgen05_operand_3_3::Model,
    &tmem_lhs_cta::Model,
    &cross_cta::Model,
    &dsmem_no_scratch::MODEL,
    &dsmem_mapa::MODEL,
    &wgmma_operand_major::MODEL,
    &scaled_dot_mn_packed::MODEL,
    &mma_operand_cga::Model,
    &tcgen05_cga::Model,
    &tmem_cta_3_5::Model,
    &scan_layout::Model,
    &unknown_target::Model,
    &gather_layout::Model,
    &ptxas_wgmma_reuse::Model,
    &amd_chained_dot::Model,
    &amd_tdm_pipeline::Model,
    &amd_target::Model,
    &amd_fp8_upcast::Model,
    &AmdMmaLayouts,
];

/// Runs every site's model of `event`'s kind on it: the first failure, in
/// [`MODELS`]' order.
pub(crate) fn run(event: &Event<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
    models_of(event.kind(), event.vendor())
        .iter()
        .try_for_each(|model| model.check(event, release, trace))
}

/// Both backends, for the models of common passes and checks.
pub(crate) const EVERY_VENDOR: &[Vendor] = &[Vendor::Nvidia, Vendor::Amd];

/// The models of each kind of event and backend, in [`MODELS`]' order (a
/// search runs millions of events; each goes to the few sites that model
/// its kind for its backend; a step that names no backend, to every model
/// of its kind).
fn models_of(kind: EventKind, vendor: Option<Vendor>) -> &'static [&'static dyn SiteModel] {
    type Table = Vec<[Vec<&'static dyn SiteModel>; 3]>;
    static BY_KIND: OnceLock<Table> = OnceLock::new();
    let by_kind = BY_KIND.get_or_init(|| {
        EventKind::ALL
            .iter()
            .map(|kind| {
                let of = |vendor: Option<Vendor>| -> Vec<&'static dyn SiteModel> {
                    MODELS
                        .iter()
                        .copied()
                        .filter(|model| model.events().contains(kind))
                        .filter(|model| vendor.is_none_or(|v| model.vendors().contains(&v)))
                        .collect()
                };
                [of(None), of(Some(Vendor::Nvidia)), of(Some(Vendor::Amd))]
            })
            .collect()
    });
    let column = match vendor {
        None => 0,
        Some(Vendor::Nvidia) => 1,
        Some(Vendor::Amd) => 2,
    };
    by_kind
        .get(kind as usize)
        .map_or(&[], |row| row[column].as_slice())
}

/// Every site the finder reports, its own and the conversions', sorted by
/// id.
pub fn all() -> Vec<&'static Site> {
    let mut sites: Vec<&'static Site> = MODELS.iter().map(|m| m.site()).collect();
    sites.extend(crate::CONVERSION_SITES);
    sites.sort_by_key(|s| s.id);
    sites.dedup_by_key(|s| s.id);
    sites
}

/// Where the lowering asks for an NVIDIA MMA layout's linear layout, the
/// conversion's own failure is the op's: converting to or from a Hopper
/// MMA, from 3.2 (3.1 converts through the legacy
/// `ConvertLayoutOpConversion`, which never does: notes/finder-lowering.md
/// §3; blocked ↔ Hopper MMA converts with instruction N 8, or one warp,
/// compile on 3.1.0); and emitting the indices of a `make_range` over a
/// slice of an MMA accumulator, or of a `tt.reduce` of one, in every
/// release (`emitIndices` goes through `toLinearLayout`: 3.1's
/// `MakeRangeOpToLLVM.cpp:27`, `ReduceOpToLLVM.cpp:161`; measured on
/// 3.1.0, whose Hopper conversion asserts on instruction N 8, with the
/// op-level `mma_indices` modules).
struct HopperMmaLayout;

/// The NVIDIA MMA accumulator `attr` is, or is a slice of.
fn mma_of(attr: &Attr) -> Option<&NvidiaMma> {
    match attr {
        Attr::NvidiaMma(m) => Some(m),
        Attr::Slice(s) => mma_of(&s.parent),
        _ => None,
    }
}

impl SiteModel for HopperMmaLayout {
    fn site(&self) -> &'static Site {
        &crate::NVIDIA_MMA_SITE
    }

    fn events(&self) -> &'static [EventKind] {
        &[EventKind::Op]
    }

    fn check(&self, event: &Event<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
        let Event::Op(op) = event else {
            return Ok(());
        };
        match op.name {
            "make_range" | "reduce" => {
                let Some((shape, _, enc)) = op.tensor.as_ref() else {
                    return Ok(());
                };
                let Some(attr) = op.attr(enc) else {
                    return Ok(());
                };
                if mma_of(&attr).is_none() {
                    return Ok(());
                }
                let text = || format!("the indices of {}", op.name);
                converted(&attr, shape, release, None, trace, text).map(|_| ())
            }
            "convert_layout" if release.lowers_with_linear_layouts() => {
                let Some((shape, _, src)) = op.tensor.as_ref() else {
                    return Ok(());
                };
                let [rows, cols] = shape[..] else {
                    return Ok(());
                };
                let mma = [Some(src.clone()), op.result.clone()]
                    .into_iter()
                    .flatten()
                    .find_map(|name| hopper_mma(op.attr(&name)?));
                match mma {
                    Some(mma) => mma_layout(&mma.attr(), [rows, cols], release, trace),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}

/// The AMD lowering converts every distributed tensor type of an op it
/// lowers through the type's linear layout (the type converter counts a
/// thread's values with it, from 3.4), so a layout that an AMD MMA's
/// conversion refuses fails on the first op that carries it: an
/// `amd_wmma` accumulator smaller than one instruction along M or N (and
/// more than 1 there) from 3.4 to 3.7 (triton #8931), a slice or a dot
/// operand of such a parent. The failure is the conversion's own (`amd_wmma`, `amd_mfma`).
struct AmdMmaLayouts;

/// Whether `attr` is an AMD MMA layout, or a slice or dot operand of one.
fn has_amd_mma(attr: &Attr) -> bool {
    match attr {
        Attr::AmdMfma(_) | Attr::AmdWmma(_) => true,
        Attr::Slice(s) => has_amd_mma(&s.parent),
        Attr::DotOperand(d) => has_amd_mma(&d.parent),
        _ => false,
    }
}

impl SiteModel for AmdMmaLayouts {
    fn site(&self) -> &'static Site {
        &crate::AMD_WMMA_SITE
    }

    fn events(&self) -> &'static [EventKind] {
        &[EventKind::Op]
    }

    fn vendors(&self) -> &'static [Vendor] {
        &[Vendor::Amd]
    }

    fn check(&self, event: &Event<'_>, release: Release, trace: &mut Trace) -> Result<(), Failure> {
        let Event::Op(op) = event else {
            return Ok(());
        };
        let Some((shape, _, src)) = op.tensor.as_ref() else {
            return Ok(());
        };
        for name in std::iter::once(src).chain(op.result.as_ref()) {
            let Some(attr) = op.attr(name).filter(has_amd_mma) else {
                continue;
            };
            let what = || format!("{} on {shape:?}", print_attr(&attr, release.dialect()));
            converted(&attr, shape, release, None, trace, what)?;
        }
        Ok(())
    }

    fn stage(&self) -> Option<Stage> {
        Some(Stage::Lowering)
    }
}

/// The site with this id.
pub fn by_id(id: &str) -> Option<&'static Site> {
    all().into_iter().find(|s| s.id == id)
}

/// `attr`'s linear layout on `shape` as `release` converts it, for a site
/// that needs it. The release failing in the conversion is that release's
/// failure. No layout, or our converter refusing the input (a shape that is
/// not a power of two, say), is no finding: `None`, with the reason traced
/// under `what`.
pub(crate) fn converted(
    attr: &Attr,
    shape: &[u64],
    release: Release,
    elem_bits: Option<u64>,
    trace: &mut Trace,
    what: impl Fn() -> String,
) -> Result<Option<LinearLayout>, Failure> {
    match to_linear_layout(attr, shape, release, elem_bits) {
        Ok(Conversion::Layout(l)) => Ok(Some(l)),
        Ok(Conversion::NoLayout(why)) => {
            trace.note(|| format!("{}: no linear layout ({why})", what()));
            Ok(None)
        }
        Err(ConvertError::Triton(failure)) => Err(*failure),
        Err(e) => {
            trace.note(|| format!("{}: not converted here ({e})", what()));
            Ok(None)
        }
    }
}

/// Builds an MMA accumulator's linear layout as `release` does, where the
/// lowering asks for it (3.1 to address a Hopper accumulator it stores,
/// 3.2 on for any conversion to or from one). 3.1's and 3.2's shape
/// assertions in the conversion (3.1 accepts instruction N only in {16,
/// …, 256}, triton #4264; PR #4283 in 3.2 admitted 8) surface as the
/// conversion site's [`Failure`]s.
pub(crate) fn mma_layout(
    mma: &NvidiaMma,
    shape: [u64; 2],
    release: Release,
    trace: &mut Trace,
) -> Result<(), Failure> {
    let attr = Attr::NvidiaMma(mma.clone());
    let text = || print_attr(&attr, release.dialect());
    if let Some(l) = converted(&attr, &shape, release, None, trace, text)? {
        trace.layout(
            || format!("linear layout of {} on {}x{}", text(), shape[0], shape[1]),
            &l,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `EventKind::ALL` lists the kinds in declaration order, so a kind
    /// indexes the table of models per kind; every model models some step.
    #[test]
    fn every_model_is_reached_by_some_event() {
        for (index, kind) in EventKind::ALL.iter().enumerate() {
            assert_eq!(*kind as usize, index, "{kind:?}");
        }
        for model in MODELS {
            // A site of the pass pipeline has no event: `explain` names it.
            let passes_only = model.stage() == Some(Stage::TtgirPasses);
            assert_eq!(
                model.events().is_empty(),
                passes_only,
                "{}",
                model.site().id
            );
            for kind in model.events() {
                let vendors = model.vendors().iter().map(|v| Some(*v));
                for vendor in std::iter::once(None).chain(vendors) {
                    assert!(
                        models_of(*kind, vendor)
                            .iter()
                            .any(|m| std::ptr::addr_eq(*m, model)),
                        "{} is not run on {kind:?} for {vendor:?}",
                        model.site().id
                    );
                }
            }
        }
    }

    /// Every descriptor: a unique id, the file name of its model, at least
    /// one location, changes in release order, a workaround.
    #[test]
    fn every_descriptor_is_complete() {
        let sites = all();
        let finder_files: Vec<String> =
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/src/finder/sites"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
                .filter(|stem| stem != "mod")
                .collect();
        for stem in &finder_files {
            assert!(
                sites.iter().any(|s| s.id == *stem),
                "triton/src/finder/sites/{stem}.rs has no descriptor with its name"
            );
        }
        for site in &sites {
            let recipe = format!(
                concat!(env!("CARGO_MANIFEST_DIR"), "/src/convert/{}.rs"),
                site.id
            );
            assert!(
                finder_files.contains(&site.id.to_string())
                    || std::path::Path::new(&recipe).exists(),
                "site {} is named after no model file",
                site.id
            );
            assert_eq!(
                sites.iter().filter(|s| s.id == site.id).count(),
                1,
                "{}",
                site.id
            );
            assert!(!site.locations.is_empty(), "{}", site.id);
            assert!(
                !site.title.is_empty() && !site.workaround.is_empty(),
                "{}",
                site.id
            );
            assert!(
                site.changes
                    .windows(2)
                    .all(|w| w[0].release <= w[1].release),
                "{}",
                site.id
            );
            for l in site.locations {
                assert!(
                    l.releases.releases().next().is_some(),
                    "{}: a location with no modelled release",
                    site.id
                );
                assert!(!l.function.is_empty() && !l.file.is_empty(), "{}", site.id);
            }
        }
    }
}
