//! Helpers the recipes share: refusing a malformed attribute, the tile
//! and warp builders of the MMA families, Triton's matrix order.

use crate::error::ConvertError;
use crate::error::Result;
use crate::failure::Failure;
use crate::release::Release;
use crate::site::{Location, Site};
use linear_layout::Dim;
use linear_layout::LayoutError;
use linear_layout::LinearLayout;

/// An attribute the recipe refuses (`kind` is its TTGIR name).
pub(crate) fn invalid(kind: &str, message: impl Into<String>) -> ConvertError {
    ConvertError::InvalidAttribute {
        kind: kind.into(),
        message: message.into(),
    }
}

/// Refuses a `warpsPerCTA` whose length is not the shape's rank (`whose`
/// names the attribute that holds it, for the message).
pub(crate) fn check_warps_len(kind: &str, whose: &str, warps: &[u64], rank: usize) -> Result<()> {
    if warps.len() == rank {
        Ok(())
    } else {
        Err(invalid(
            kind,
            format!(
                "{whose}warpsPerCTA has {} entries for a rank-{rank} shape",
                warps.len()
            ),
        ))
    }
}

/// The K dim of operand `op_idx` of a rank-`rank` dot.
pub(crate) fn k_dim(op_idx: u64, rank: usize) -> usize {
    if op_idx == 0 { rank - 1 } else { rank - 2 }
}

/// Triton's `getMatrixOrder`: the two matrix dims (the last one first when
/// row-major, else the one before it), then the batch dims, outermost last.
pub(crate) fn matrix_order(rank: usize, row_major: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rank).rev().collect();
    if !row_major && rank >= 2 {
        order.swap(0, 1);
    }
    order
}

/// Warps of a dot operand: the parent's warps, walking `order`, with the
/// ones along K broadcasting (`broadcastedDotOperandLayout`).
pub(crate) fn broadcasted_warps(
    in_dim: Dim,
    warps: &[u64],
    order: &[usize],
    k: usize,
) -> Result<LinearLayout> {
    let mut l = LinearLayout::empty();
    for &d in order {
        let count = *warps.get(d).ok_or(LayoutError::IndexOutOfRange {
            op: "dot operand warps",
            index: d,
            len: warps.len(),
        })?;
        let factor = if d == k {
            LinearLayout::zeros_1d(count, in_dim, Dim::standard(d), 1)?
        } else {
            LinearLayout::identity_1d(count, in_dim, Dim::standard(d))?
        };
        l = l.product(&factor)?;
    }
    Ok(l)
}

/// Triton's `nvidiaMmaTile`: on an `outer × inner` tile, `k_width`
/// registers then 4 lanes along `inner`, 8 lanes then `outer / 8` registers
/// along `outer`, then `inner / (4·k_width)` registers along `inner`. The
/// other dims of a rank-`rank` tensor get size 1. Out order: inner, outer,
/// then the rest from the highest dim down.
pub(crate) fn mma_tile(
    rank: usize,
    outer: usize,
    inner: usize,
    outer_size: u64,
    inner_size: u64,
    k_width: u64,
) -> Result<LinearLayout> {
    let (o, i) = (Dim::standard(outer), Dim::standard(inner));
    let per_thread_inner = 4 * k_width;
    let mut l = LinearLayout::identity_1d(k_width, Dim::REGISTER, i)?
        .product(&LinearLayout::identity_1d(4, Dim::LANE, i)?)?
        .product(&LinearLayout::identity_1d(8, Dim::LANE, o)?)?
        .product(&LinearLayout::identity_1d(
            (outer_size / 8).max(1),
            Dim::REGISTER,
            o,
        )?)?;
    if inner_size % per_thread_inner != 0 {
        return Err(invalid(
            "#ttg.nvidia_mma",
            format!(
                "the tile's inner size {inner_size} is not a multiple of 4·kWidth = {per_thread_inner}"
            ),
        ));
    }
    l = l.product(&LinearLayout::identity_1d(
        inner_size / per_thread_inner,
        Dim::REGISTER,
        i,
    )?)?;
    for d in (0..rank).rev().filter(|&d| d != outer && d != inner) {
        l = l.product(&LinearLayout::identity_1d(
            1,
            Dim::REGISTER,
            Dim::standard(d),
        )?)?;
    }
    Ok(l)
}

/// Multiplies `tile` by `warps`, first putting `warps`' out-dims in the
/// tile's order (Triton merges the orders; the tile's wins).
pub(crate) fn times_in_tile_order(
    tile: &LinearLayout,
    warps: &LinearLayout,
) -> Result<LinearLayout> {
    let order: Vec<Dim> = tile.out_dim_names().collect();
    Ok(tile.product(&warps.transpose_outs(&order)?)?)
}

/// Triton builds every factor with `identity1D`, which asserts a power of
/// two (and its sizes are `int32`); `site` is the recipe's, `location` its
/// entry for that assertion.
pub(crate) fn check_pow2(
    site: &'static Site,
    location: &'static Location,
    release: Release,
    what: &str,
    values: &[u64],
) -> Result<()> {
    match values
        .iter()
        .find(|&&v| !v.is_power_of_two() || v > 1 << 30)
    {
        None => Ok(()),
        Some(v) => Err(Failure::at(
            site,
            location,
            release,
            format!("{what} = {v} is not a power of two"),
        )
        .into()),
    }
}
