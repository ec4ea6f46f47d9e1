//! The `ops` fuzz target's input and interpreter (cargo feature `fuzzing`,
//! on by default).
//!
//! An [`Input`] is a starting layout and up to [`MAX_OPS`] operations, in a
//! form `arbitrary` decodes from any bytes. Running it turns each operation
//! into concrete [`Step`]s (building any second operand first, as a
//! `from_bases` step) against the current layout, runs each step, and
//! checks it with [`Step::check`]: the brute-force references of
//! [`reference`](crate::reference). The fuzz target panics on the first
//! [`BrokenLaw`]; `linear-layout shrink-trace` reads a crashing input back,
//! finds the failing step and shrinks it as an `eval` request.
//!
//! The types are the fuzz target's wire format: `arbitrary` decodes fields
//! in declaration order and enum variants by index, so reordering fields or
//! variants (or changing a field's type) changes what every committed
//! corpus file (`fuzz/corpus/ops/`) means. Add variants only at the end.
//!
//! ```
//! use linear_layout::fuzzing::{Input, run};
//!
//! let input = Input::decode(&[7u8; 64]).ok_or("too few bytes for an input")?;
//! assert!(run(&input).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod concretize;

use crate::layout::LinearLayout;
use crate::reference::{Step, StepOutput, Violation};
use arbitrary::{Arbitrary, Unstructured};

/// At most this many operations of an [`Input`] run.
pub const MAX_OPS: usize = 8;

/// Where a layout's in-dims or out-dims come from.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub enum DimSource {
    /// `(name, log2 size)` pairs from the name pool (at most 4; sizes
    /// reduced modulo the side's limit).
    Random(Vec<(u8, u8)>),
    /// The current layout's in-dims, rotated by `perm` (reversed when its
    /// top bit is set) and one of them resized by `tweak`.
    CurrentIns {
        /// Which dim to resize (`tweak >> 2`) and how (`tweak % 4`: 2
        /// doubles, 3 halves, else keeps).
        tweak: u8,
        /// Rotation, and reversal when the top bit is set.
        perm: u8,
    },
    /// The current layout's out-dims, reordered and one resized as above.
    CurrentOuts {
        /// As for [`DimSource::CurrentIns`].
        tweak: u8,
        /// As for [`DimSource::CurrentIns`].
        perm: u8,
    },
}

/// A layout: its dims, and bases drawn from `comps` in turn (each
/// component a power of two, zero, or the raw value masked into range,
/// by its top two bits).
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The in-dims.
    pub ins: DimSource,
    /// The out-dims.
    pub outs: DimSource,
    /// Raw components, reused cyclically.
    pub comps: Vec<u16>,
    /// Passed to `from_bases_with_sizes`.
    pub require_surjective: bool,
}

/// A dim of the current layout (`pick < 0xf0`, by position) or from the
/// name pool (possibly unknown to the layout).
pub type Pick = u8;

/// One operation on the current layout. Dims are named through the pool
/// of Triton's names (`register`, `lane`, `warp`, `block`, `dim0`, `dim1`,
/// `dim2`, `offset`), so in-dims and out-dims sometimes share a name.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // each variant is the method of the same name
pub enum Op {
    Compose(Spec),
    ComposeSelf,
    InvertAndCompose(Spec),
    InvertAndComposeSelf,
    Product(Spec),
    /// The built layout times the current one.
    ProductAsOuter(Spec),
    Invert,
    Pseudoinvert,
    /// New in-dims splitting the total bits by `cuts` (or, when `raw`,
    /// sized by `cuts` alone).
    ReshapeIns {
        names: Vec<u8>,
        cuts: Vec<u8>,
        raw: bool,
    },
    /// As `ReshapeIns`, for out-dims.
    ReshapeOuts {
        names: Vec<u8>,
        cuts: Vec<u8>,
        raw: bool,
    },
    FlattenIns,
    FlattenOuts,
    /// The in-dims sorted by `keys` (or, when `raw`, pool names).
    TransposeIns {
        keys: Vec<u8>,
        raw: bool,
    },
    /// As `TransposeIns`, for out-dims.
    TransposeOuts {
        keys: Vec<u8>,
        raw: bool,
    },
    /// The dims selected by the masks, plus an `extra` pool in-dim.
    Sublayout {
        in_mask: u8,
        out_mask: u8,
        extra: Option<u8>,
    },
    ConcatIns(Spec),
    ConcatOuts(Spec),
    DivideLeft(Spec),
    DivideRight(Spec),
    /// `p = current × built`, then both divisions of `p`.
    ProductThenDivide(Spec),
    Quotient {
        mask: u8,
        extra: Option<u8>,
    },
    RemoveZeroBases(Pick),
    SqueezeIns(Pick),
    SqueezeOuts(Pick),
    /// To size `2^(bits % 8)`.
    ResizeIn(Pick, u8),
    /// To size `2^(bits % 8)`.
    ResizeOut(Pick, u8),
    /// To a pool name.
    RenameIn(Pick, u8),
    /// `sublayout_is_zero`, `square_sublayout_is_identity` and
    /// `is_trivial_over` on the selected dims; the layout stays.
    Queries {
        in_mask: u8,
        out_mask: u8,
    },
    /// A new layout replaces the current one.
    Replace(Spec),
}

/// A fuzz input: the starting layout and the operations.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The starting layout (built against the empty layout).
    pub start: Spec,
    /// The operations; only the first [`MAX_OPS`] run.
    pub ops: Vec<Op>,
}

impl Input {
    /// Decodes bytes as the fuzz target does (libFuzzer skips inputs
    /// shorter than the size hint; `arbitrary` takes the rest).
    pub fn decode(bytes: &[u8]) -> Option<Input> {
        if bytes.len() < <Input as Arbitrary>::size_hint(0).0 {
            return None;
        }
        Input::arbitrary_take_rest(Unstructured::new(bytes)).ok()
    }
}

/// The first step of a run that broke a law.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{violation}\n  as an eval request: {}", crate::eval::request(.step, true))]
pub struct BrokenLaw {
    /// The step, with its concrete operands.
    pub step: Step,
    /// What it broke.
    pub violation: Violation,
}

/// Runs `step` and checks it; the layout a run continues with, if any.
pub fn check_step(step: &Step) -> Result<Option<LinearLayout>, Violation> {
    let outcome = step.run();
    step.check(&outcome)?;
    Ok(outcome.ok().and_then(StepOutput::into_layout))
}

/// Runs `input`, checking every step; the first failure.
pub fn run(input: &Input) -> Result<(), Box<BrokenLaw>> {
    run_with(input, |step| {
        check_step(step).map_err(|violation| {
            Box::new(BrokenLaw {
                step: step.clone(),
                violation,
            })
        })
    })
}

/// Runs `input`, handing every concrete step to `exec`, which runs (and
/// may judge) it and returns the layout the run continues with: for a
/// `from_bases` step, the built operand; `None` when the step failed or
/// answered a query. The first `Err` ends the run.
pub fn run_with<E>(
    input: &Input,
    mut exec: impl FnMut(&Step) -> Result<Option<LinearLayout>, E>,
) -> Result<(), E> {
    let Some(mut layout) = exec(&start(&input.start))? else {
        return Ok(());
    };
    for op in input.ops.iter().take(MAX_OPS) {
        if let Some(next) = apply(op, &layout, &mut exec)? {
            layout = next;
        }
    }
    Ok(())
}

/// The `from_bases` step that builds the starting layout (an `Input`'s
/// `start`; against the empty layout, so `Current*` dim sources give none).
pub fn start(spec: &Spec) -> Step {
    concretize::build(spec, &LinearLayout::empty())
}

/// One operation of a run on the current layout `a`, through `exec` (as in
/// [`run_with`]): first the `from_bases` step of a second operand, if the
/// operation has one, then the operation's own steps. Returns the layout
/// the run continues with (`None`: keep `a`).
pub fn apply<E>(
    op: &Op,
    a: &LinearLayout,
    exec: &mut impl FnMut(&Step) -> Result<Option<LinearLayout>, E>,
) -> Result<Option<LinearLayout>, E> {
    concretize::apply(op, a, exec)
}
