//! `#ttg.nvidia_mma`: the accumulator tile of `mma.sync` (v2) and `wgmma`
//! (v3). 3.1 and 3.2 build it by hand per version and assert on the
//! instruction shapes they do not know ([`SITE`]); later releases build
//! every version with the generic `nvidiaMmaTile`.

use super::Conversion;
use super::cga::combine_cta_cga_with_shape;
use super::common::{invalid, matrix_order, mma_tile, times_in_tile_order};
use crate::attr::NvidiaMma;
use crate::error::Result;
use crate::failure::Failure;
use crate::release::{Release, Since, Span};
use crate::site::{Change, Ending, Location, Site, SiteKind};
use linear_layout::Dim;

const FILE: &str = "lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp";

/// An assertion of the hand-built MMA layouts (3.1 and 3.2).
const fn hand_built(
    release: Release,
    function: &'static str,
    line: u32,
    message: &'static str,
) -> Location {
    Location::assertion(release, FILE, line, function, message)
}

static AMPERE_INSTR_3_1: Location = hand_built(
    Release::V3_1,
    "ampereMmaToLinearLayout",
    344,
    "Assertion `(rank == 2 && mma.getInstrShape() == ArrayRef<unsigned>({16, 8})) || (rank == 3 && mma.getInstrShape() == ArrayRef<unsigned>({1, 16, 8}))' failed.",
);
static AMPERE_INSTR_3_2: Location = hand_built(
    Release::V3_2,
    "ampereMmaToLinearLayout",
    279,
    "Assertion `instrShape == ArrayRef<unsigned>({16, 8}) || instrShape == ArrayRef<unsigned>({1, 16, 8})' failed.",
);
static HOPPER_RANK_3_1: Location = hand_built(
    Release::V3_1,
    "hopperMmaToLinearLayout",
    366,
    "Assertion `rank == 2' failed.",
);
static HOPPER_RANK_3_2: Location = hand_built(
    Release::V3_2,
    "hopperMmaToLinearLayout",
    301,
    "Assertion `rank == 2' failed.",
);
static HOPPER_WARPS_3_1: Location = hand_built(
    Release::V3_1,
    "hopperMmaToLinearLayout",
    369,
    "Assertion `product(mma.getWarpsPerCTA()) % 4 == 0' failed.",
);
static HOPPER_WARPS_3_2: Location = hand_built(
    Release::V3_2,
    "hopperMmaToLinearLayout",
    304,
    "Assertion `product(mma.getWarpsPerCTA()) % 4 == 0' failed.",
);
static HOPPER_M_3_1: Location = hand_built(
    Release::V3_1,
    "hopperMmaToLinearLayout",
    376,
    "Assertion `m == 16' failed.",
);
static HOPPER_M_3_2: Location = hand_built(
    Release::V3_2,
    "hopperMmaToLinearLayout",
    311,
    "Assertion `m == 16' failed.",
);
static HOPPER_N_3_1: Location = hand_built(
    Release::V3_1,
    "hopperMmaToLinearLayout",
    377,
    "Assertion `n == 16 || n == 32 || n == 64 || n == 128 || n == 256' failed.",
);
static HOPPER_N_3_2: Location = hand_built(
    Release::V3_2,
    "hopperMmaToLinearLayout",
    312,
    "Assertion `n == 8 || n == 16 || n == 32 || n == 64 || n == 128 || n == 256' failed.",
);
static HOPPER_K_3_1: Location = hand_built(
    Release::V3_1,
    "hopperMmaToLinearLayout",
    378,
    "Assertion `k == 8 || k == 16 || k == 32' failed.",
);
static HOPPER_K_3_2: Location = hand_built(
    Release::V3_2,
    "hopperMmaToLinearLayout",
    313,
    "Assertion `k == 8 || k == 16 || k == 32' failed.",
);
/// The generic tile of 3.3 on asks the instruction shape for the tensor's
/// rank (3.1 and 3.2 ask `rank == 2` of a Hopper layout first).
static TILE_RANK: Location = Location {
    releases: Span::since(Release::V3_3),
    ending: Ending::Assertion,
    function: "nvidiaMmaTile",
    file: FILE,
    line: None,
    message: "Assertion `tileShape.size() == rank' failed.",
};

/// The site: converting an NVIDIA MMA accumulator.
pub(crate) static SITE: Site = Site {
    id: "nvidia_mma",
    kind: SiteKind::Bug,
    title: "an NVIDIA MMA accumulator layout with an instruction shape or warp count the release's builder does not accept",
    locations: &[
        &AMPERE_INSTR_3_1,
        &AMPERE_INSTR_3_2,
        &HOPPER_RANK_3_1,
        &HOPPER_RANK_3_2,
        &HOPPER_WARPS_3_1,
        &HOPPER_WARPS_3_2,
        &HOPPER_M_3_1,
        &HOPPER_M_3_2,
        &HOPPER_N_3_1,
        &HOPPER_N_3_2,
        &HOPPER_K_3_1,
        &HOPPER_K_3_2,
        &TILE_RANK,
    ],
    changes: &[
        Change {
            release: Release::V3_2,
            pr: Some("#4283"),
            what: "the Hopper MMA conversion admits instruction N = 8",
        },
        Change {
            release: Release::V3_3,
            pr: None,
            what: "MMA layouts are built by the generic nvidiaMmaTile, without per-shape assertions",
        },
    ],
    workaround: "num_warps of at least 4 for a Hopper dot, and (3.1) a tile whose per-warp-group N is at least 16",
};

/// Each hand-built assertion, per release.
type Check = Since<&'static Location>;
const AMPERE_INSTR: Check = Since(&[
    (Release::V3_1, &AMPERE_INSTR_3_1),
    (Release::V3_2, &AMPERE_INSTR_3_2),
]);
const HOPPER_RANK: Check = Since(&[
    (Release::V3_1, &HOPPER_RANK_3_1),
    (Release::V3_2, &HOPPER_RANK_3_2),
]);
const HOPPER_WARPS: Check = Since(&[
    (Release::V3_1, &HOPPER_WARPS_3_1),
    (Release::V3_2, &HOPPER_WARPS_3_2),
]);
const HOPPER_M: Check = Since(&[
    (Release::V3_1, &HOPPER_M_3_1),
    (Release::V3_2, &HOPPER_M_3_2),
]);
const HOPPER_N: Check = Since(&[
    (Release::V3_1, &HOPPER_N_3_1),
    (Release::V3_2, &HOPPER_N_3_2),
]);
const HOPPER_K: Check = Since(&[
    (Release::V3_1, &HOPPER_K_3_1),
    (Release::V3_2, &HOPPER_K_3_2),
]);

/// The accumulator layout (newest: `nvidiaMmaTile([m, n], 2, row-major)`;
/// the bases are the same as 3.2's hand-built tile).
pub(crate) fn nvidia_mma(m: &NvidiaMma, shape: &[u64], release: Release) -> Result<Conversion> {
    let rank = shape.len();
    let instr = &m.instr_shape;
    if instr.len() < 2 {
        return Err(invalid(
            "#ttg.nvidia_mma",
            format!("instrShape {instr:?} needs at least [M, N]"),
        ));
    }
    let (tile_m, tile_n) = match m.version_major {
        2 => (instr[instr.len() - 2], instr[instr.len() - 1]),
        3 => (instr[0], instr[1]),
        v => {
            return Ok(Conversion::NoLayout(format!(
                "MMA version {v} has no linear layout"
            )));
        }
    };
    if release.has_hand_built_mma_layouts() {
        hand_built_asserts(m, release)?;
    }
    if m.version_major == 3 && (rank != 2 || instr.len() != 3) {
        return Err(Failure::at(
            &SITE,
            &TILE_RANK,
            release,
            format!(
                "a rank-{rank} tensor with a {}-entry instrShape",
                instr.len()
            ),
        )
        .into());
    }
    let tile = mma_tile(rank, rank - 2, rank - 1, tile_m, tile_n, 2)?;
    // v2 numbers warps N first (row-major), v3 M first.
    let warp_order = matrix_order(rank, m.version_major != 3);
    let warps =
        linear_layout::utils::identity_standard_nd(Dim::WARP, &m.warps_per_cta, &warp_order)?;
    let cta = times_in_tile_order(&tile, &warps)?;
    combine_cta_cga_with_shape(cta, &m.cga, shape, release).map(Conversion::Layout)
}

/// The shape checks of 3.1's and 3.2's hand-built MMA layouts, which later
/// releases dropped for the generic tile.
fn hand_built_asserts(m: &NvidiaMma, release: Release) -> Result<()> {
    let fail = |check: &Check, explanation: String| -> Result<()> {
        match check.at(release) {
            Some(location) => Err(Failure::at(&SITE, location, release, explanation).into()),
            None => Ok(()),
        }
    };
    let instr = &m.instr_shape;
    if m.version_major == 2 {
        let ok = instr.as_slice() == [16, 8] || instr.as_slice() == [1, 16, 8];
        return if ok {
            Ok(())
        } else {
            fail(&AMPERE_INSTR, format!("instrShape is {instr:?}"))
        };
    }
    let warps: u64 = m.warps_per_cta.iter().product();
    if m.warps_per_cta.len() != 2 || instr.len() != 3 {
        return fail(
            &HOPPER_RANK,
            format!(
                "warpsPerCTA has {} entries and instrShape {}",
                m.warps_per_cta.len(),
                instr.len()
            ),
        );
    }
    if warps % 4 != 0 {
        return fail(
            &HOPPER_WARPS,
            format!("{warps} warps are not whole warp groups"),
        );
    }
    let (mm, n, k) = (instr[0], instr[1], instr[2]);
    if mm != 16 {
        return fail(&HOPPER_M, format!("instruction M is {mm}"));
    }
    let n_ok = matches!(n, 16 | 32 | 64 | 128 | 256) || (n == 8 && release.hopper_mma_admits_n8());
    if !n_ok {
        return fail(&HOPPER_N, format!("instruction N is {n}"));
    }
    if !matches!(k, 8 | 16 | 32) {
        return fail(&HOPPER_K, format!("instruction K is {k}"));
    }
    Ok(())
}
