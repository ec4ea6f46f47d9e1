//! `#ttg.blocked`: registers, then lanes, then warps, each walking `order`.

use super::cga::combine_with;
use crate::attr::Blocked;
use crate::error::Result;
use crate::release::Release;
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::utils::identity_standard_nd;

/// The same recipe in every release; only the fit to the shape differs.
pub(crate) fn blocked(b: &Blocked, shape: &[u64], version: Release) -> Result<LinearLayout> {
    let cta = identity_standard_nd(Dim::REGISTER, &b.size_per_thread, &b.order)?
        .product(&identity_standard_nd(
            Dim::LANE,
            &b.threads_per_warp,
            &b.order,
        )?)?
        .product(&identity_standard_nd(
            Dim::WARP,
            &b.warps_per_cta,
            &b.order,
        )?)?;
    // 3.9 drops register bases that run past the shape; 3.8 keeps them as
    // duplicates, as every other layout does (measured through Gluon on
    // 3.6.0, 3.7.1 and 3.8.0; 3.5.1's Gluon cannot convert a layout).
    let broadcast_registers = !version.drops_blocked_duplicates();
    combine_with(cta, &b.cga, shape, version, broadcast_registers)
}
