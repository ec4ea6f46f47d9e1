//! `#ttg.swizzled_shared` (and 3.2's `#triton_gpu.shared` without a leading
//! offset): an XOR swizzle of column vectors by row phase.

use super::Conversion;
use super::cga::{combine_cta_cga_with_shape, shape_per_cta};
use crate::attr::SwizzledShared;
use crate::error::Result;
use crate::release::Release;
use linear_layout::Dim;
use linear_layout::LinearLayout;

pub(crate) fn swizzled_shared(
    s: &SwizzledShared,
    shape: &[u64],
    version: Release,
    elem_bits: Option<u64>,
) -> Result<Conversion> {
    if s.has_leading_offset == Some(true) {
        return super::nvmma_shared::leading_offset_shared(s, shape, version, elem_bits);
    }
    let rank = shape.len();
    if rank == 1 {
        let cta = LinearLayout::identity_1d(
            shape_per_cta(&s.cga, shape)?[0],
            Dim::OFFSET,
            Dim::standard(0),
        )?;
        return combine_cta_cga_with_shape(cta, &s.cga, shape, version).map(Conversion::Layout);
    }
    // Up to 3.3 the swizzle is sized by the whole shape, later per CTA.
    let sizes = if !version.sizes_swizzle_per_cta() {
        shape.to_vec()
    } else {
        shape_per_cta(&s.cga, shape)?
    };
    let (col, row) = (s.order[0], s.order[1]);
    let (num_cols, num_rows) = (sizes[col], sizes[row]);
    let mut bases: Vec<Vec<u64>> = Vec::new();
    // Bases are written (row, col).
    let mut c = 1;
    while c < num_cols {
        bases.push(vec![0, c]);
        c *= 2;
    }
    let mut r = 1;
    while r < num_rows {
        let phase = (r / s.per_phase.max(1)) % s.max_phase.max(1);
        bases.push(vec![r, (s.vec * phase) % num_cols]);
        r *= 2;
    }
    let (row_dim, col_dim) = (Dim::standard(row), Dim::standard(col));
    let mut cta = LinearLayout::from_bases_with_sizes(
        &[(Dim::OFFSET, bases)],
        &[(row_dim, num_rows), (col_dim, num_cols)],
        false,
    )?;
    for &d in &s.order[2..] {
        cta = cta.product(&LinearLayout::identity_1d(
            sizes[d],
            Dim::OFFSET,
            Dim::standard(d),
        )?)?;
    }
    combine_cta_cga_with_shape(cta, &s.cga, shape, version).map(Conversion::Layout)
}
