//! Storing a Hopper MMA accumulator into shared memory through `stmatrix`
//! (`local_alloc` of an `nvidia_mma` tensor, lowered in
//! `MemoryOpToLLVM.cpp` / `ConvertLayoutOpToLLVM.cpp`), per release:
//!
//! - 3.1: no stmatrix path.
//! - 3.2: `canUseStMatrix` does not check the instruction N against the
//!   swizzle width; the leading-offset builder multiplies by
//!   `identity1D(instrN / numCols, register, offset)` (empty when
//!   `instrN < numCols`) and then reshapes the outputs to
//!   `(instrN, 16·warpsM)` columns × rows, whose total no longer matches:
//!   the `reshapeOuts` assertion at `LinearLayout.cpp:562`.
//! - 3.3: the rewritten builder (PR #5407) asserts, in order, that each
//!   swizzle chunk is filled by one instruction, that the warps along N cover
//!   N, and that the warps along M fit in M.
//! - 3.4: `local_alloc` uses the generic layout-division lowering (PR #6609);
//!   PR #6340's `canUseStMatrix` guard only sits on scratch conversions,
//!   which pass swizzle 0.
//! - newest: stmatrix is found generically by `divideLeft`; nothing asserts.

use super::Failure;
use crate::Release;
use crate::attr::swizzle_phases;
use crate::finder::decisions::Mma;
use crate::finder::verdict::Trace;
use crate::release::{Since, Span};
use crate::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::Result;

static RESHAPE_3_2: Location = Location {
    releases: Span::only(Release::V3_2),
    ending: Ending::Assertion,
    function: "LinearLayout::reshapeOuts, from chooseStMatrixLayoutLeadingOffset",
    file: "lib/Tools/LinearLayout.cpp",
    line: Some(562),
    message: "Assertion `getTotalOutDimSize() == std::accumulate( newOutDims.begin(), newOutDims.end(), 1, [&](int32_t acc, auto &outDim) { return acc * outDim.second; })' failed.",
};
const fn builder_3_3(line: u32, message: &'static str) -> Location {
    Location {
        releases: Span::only(Release::V3_3),
        ending: Ending::Assertion,
        function: "chooseStMatrixLayoutLeadingOffset",
        file: "lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp",
        line: Some(line),
        message,
    }
}
static CHUNK_3_3: Location = builder_3_3(
    1155,
    "Assertion `instrN >= numColsPerChunk && \"Each chunk is filled in with a single warp\"' failed.",
);
static COLUMNS_3_3: Location = builder_3_3(
    1174,
    "Assertion `warpsPerCTA[1] * instrN >= shape[1] && \"There must be enough columns to use MMAv3\"' failed.",
);
static ROWS_3_3: Location = builder_3_3(
    1184,
    "Assertion `warpsPerCTA[0] * instrM <= shape[0] && \"There must be enough rows to use MMAv3\"' failed.",
);

/// The site.
pub(crate) static SITE: Site = Site {
    id: "stmatrix",
    kind: SiteKind::Bug,
    title: "a Hopper accumulator stored to a swizzled shared buffer by stmatrix with an instruction N narrower than a swizzle chunk (flash-linear-attention #196)",
    locations: &[&RESHAPE_3_2, &CHUNK_3_3, &COLUMNS_3_3, &ROWS_3_3],
    changes: &[
        Change {
            release: Release::V3_3,
            pr: Some("#5407"),
            what: "the leading-offset builder is rewritten; it fails the same tiles and more, on its own assertions",
        },
        Change {
            release: Release::V3_4,
            pr: Some("#6609"),
            what: "local_alloc finds stmatrix by layout division and falls back to plain stores; the hand-built chooser is no longer called",
        },
        Change {
            release: Release::V3_5,
            pr: Some("#7703"),
            what: "the hand-built stmatrix choosers are deleted",
        },
    ],
    workaround: "num_warps of 4 or fewer for a chained dot whose first result is 64 wide (the wgmma instruction N then fills a swizzle chunk), or Triton 3.4 or later",
};

/// How each release lowers the store.
#[derive(Clone, Copy)]
enum Lowering {
    /// 3.1: no stmatrix path.
    Plain,
    /// 3.2's leading-offset builder.
    LeadingOffset,
    /// 3.3's rewritten builder.
    Rewritten,
    /// 3.4: the generic division lowering (PR #6609).
    Division,
    /// From 3.5: found by `divideLeft`.
    Generic,
}

const LOWERING: Since<Lowering> = Since(&[
    (Release::V3_1, Lowering::Plain),
    (Release::V3_2, Lowering::LeadingOffset),
    (Release::V3_3, Lowering::Rewritten),
    (Release::V3_4, Lowering::Division),
    (Release::V3_5, Lowering::Generic),
]);

/// What `local_alloc` stores: an accumulator of `rows × cols` elements of
/// `bits` bits into an NVMMA (leading-offset) buffer with `swizzle` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Store<'a> {
    /// The accumulator's MMA.
    pub mma: &'a Mma,
    /// Tensor rows.
    pub rows: u64,
    /// Tensor columns (contiguous in shared memory).
    pub cols: u64,
    /// Element bit width.
    pub bits: u64,
    /// The shared layout's swizzle in bytes (0 for none).
    pub swizzle: u64,
}

/// Whether 3.2/3.3's `canUseStMatrix` takes the store: a Hopper MMA source
/// of 16-bit elements, rank 2, contiguous columns, a swizzle of 0/32/64/128
/// bytes, and columns in multiples of 8.
fn stmatrix_applies(s: &Store<'_>) -> bool {
    s.mma.version == 3 && s.bits == 16 && s.cols % 8 == 0 && matches!(s.swizzle, 0 | 32 | 64 | 128)
}

/// Runs the release's store lowering; steps record the layouts built.
pub(crate) fn store(
    s: &Store<'_>,
    release: Release,
    trace: &mut Trace,
) -> std::result::Result<(), Failure> {
    let lowering = LOWERING.at(release).copied().unwrap_or(Lowering::Generic);
    if matches!(lowering, Lowering::Plain) || !stmatrix_applies(s) {
        trace.note(|| "store to shared memory without stmatrix (st.shared)".to_string());
        return Ok(());
    }
    let num_cols = 8 * s.swizzle / s.bits;
    let instr_n = s.mma.instr_n();
    match lowering {
        Lowering::LeadingOffset => {
            if s.swizzle == 0 {
                trace.note(|| "stmatrix without leading offset (swizzle 0)".to_string());
                return Ok(());
            }
            match leading_offset_layout_3_2(s, num_cols) {
                Ok(l) => {
                    trace.layout(
                        || "stmatrix layout (3.2 leading-offset builder)".to_string(),
                        &l,
                    );
                    Ok(())
                }
                Err(e) => Err(Failure::at(
                    &SITE,
                    &RESHAPE_3_2,
                    release,
                    format!(
                        "{e}; wgmma instrN = {instr_n} < {num_cols} columns per {}-byte swizzle chunk",
                        s.swizzle
                    ),
                )),
            }
        }
        Lowering::Rewritten => {
            if s.swizzle == 0 {
                trace.note(|| {
                    "stmatrix without leading offset (swizzle 0): no assertions".to_string()
                });
                return Ok(());
            }
            // The rewritten builder's assertions, in the order it checks them.
            let (w0, w1) = (s.mma.warps[0], s.mma.warps[1]);
            let failed = if instr_n < num_cols {
                Some((
                    &CHUNK_3_3,
                    format!("instrN = {instr_n}, numColsPerChunk = {num_cols}"),
                ))
            } else if w1 * instr_n < s.cols {
                Some((
                    &COLUMNS_3_3,
                    format!("{w1} warps × instrN {instr_n} < {} columns", s.cols),
                ))
            } else if w0 * 16 > s.rows {
                Some((&ROWS_3_3, format!("{w0} warps × 16 rows > {} rows", s.rows)))
            } else {
                None
            };
            match failed {
                Some((location, why)) => Err(Failure::at(&SITE, location, release, why)),
                None => {
                    trace.note(|| "stmatrix layout (3.3 builder)".to_string());
                    Ok(())
                }
            }
        }
        Lowering::Division => {
            // 3.4 lowers local_alloc with the generic ld/stmatrix lowering of
            // PR #6609 (layout division); the hand-written chooser is no
            // longer called for swizzled buffers, and a failed division
            // falls back to ordinary stores.
            trace.note(|| "stmatrix by layout division (PR #6609), or plain stores when it does not divide".to_string());
            Ok(())
        }
        Lowering::Plain | Lowering::Generic => {
            trace.note(|| "stmatrix found by divideLeft (generic lowering)".to_string());
            Ok(())
        }
    }
}

/// 3.2's `chooseStMatrixLayoutLeadingOffset`, step by step, with out-dims
/// `(dim1 = column, dim0 = row)`:
/// 1. the 16 × 16 `stmatrix.x4` tile: registers on columns 1, 2, 4; lanes on
///    rows 1, 2, 4, 8 (each shifted by the swizzle phase `8·((r/perPhase) %
///    maxPhase)` columns), then column 8;
/// 2. more register columns up to one swizzle chunk of `numCols`;
/// 3. warps down the rows (`wpc0`), then across columns (`wpc1`);
/// 4. flattened, times `identity1D(instrN / numCols, register, offset)`
///    (integer division: empty when the instruction is narrower than a
///    chunk), and reshaped to `(instrN, 16·wpc0)`, which asserts the totals
///    agree.
fn leading_offset_layout_3_2(s: &Store<'_>, num_cols: u64) -> Result<LinearLayout> {
    // The caller has ruled out a swizzle of 0; the others are 32/64/128.
    let (per_phase, max_phase) = swizzle_phases(s.swizzle).unwrap_or((1, 8));
    let (col, row) = (Dim::standard(1), Dim::standard(0));
    let mut registers: Vec<Vec<u64>> = vec![vec![1, 0], vec![2, 0], vec![4, 0]];
    let mut c = 16;
    while c < num_cols {
        registers.push(vec![c, 0]);
        c *= 2;
    }
    let mut lanes: Vec<Vec<u64>> = [1u64, 2, 4, 8]
        .iter()
        .map(|&r| vec![8 * ((r / per_phase) % max_phase), r])
        .collect();
    lanes.push(vec![8, 0]);
    let tile = LinearLayout::from_bases_with_sizes(
        &[(Dim::REGISTER, registers), (Dim::LANE, lanes)],
        &[(col, num_cols), (row, 16)],
        false,
    )?;
    let warps = LinearLayout::identity_1d(s.mma.warps[0], Dim::WARP, row)?
        .product(&LinearLayout::identity_1d(s.mma.warps[1], Dim::WARP, col)?)?
        .transpose_outs(&[col, row])?;
    let layout = tile
        .product(&warps)?
        .flatten_outs()?
        .rename_out_first(Dim::OFFSET)?;
    let instr_n = s.mma.instr_n();
    let repeats = LinearLayout::identity_1d(instr_n / num_cols, Dim::REGISTER, Dim::OFFSET)?;
    layout
        .product(&repeats)?
        .reshape_outs(&[(col, instr_n), (row, 16 * s.mma.warps[0])])
}

/// Renames a single flattened out-dim (`reshape_outs` to the same size).
trait RenameOut {
    fn rename_out_first(&self, to: Dim) -> Result<LinearLayout>;
}

impl RenameOut for LinearLayout {
    fn rename_out_first(&self, to: Dim) -> Result<LinearLayout> {
        let size = self.out_dims().next().map_or(1, |d| d.1);
        self.reshape_outs(&[(to, size)])
    }
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::AccumulatorStore, super::EventKind::Op]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        trace: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::AccumulatorStore(s) => store(s, release, trace),
            super::Event::Op(op) if matches!(op.name, "local_alloc" | "local_store") => {
                // A Hopper accumulator stored into shared memory.
                use crate::finder::op::{bits_of, hopper_mma, swizzle_of};
                let Some((shape, ty, enc)) = op.tensor.as_ref() else {
                    return Ok(());
                };
                let (Some(mma), Some(shared)) = (
                    op.attr(enc).and_then(hopper_mma),
                    op.buffer.as_ref().and_then(|b| op.attr(&b.2)),
                ) else {
                    return Ok(());
                };
                let [rows, cols] = shape[..] else {
                    return Ok(());
                };
                let s = Store {
                    mma: &mma,
                    rows,
                    cols,
                    bits: bits_of(ty),
                    swizzle: swizzle_of(&shared).unwrap_or(0),
                };
                store(&s, release, trace)
            }
            _ => Ok(()),
        }
    }
}
