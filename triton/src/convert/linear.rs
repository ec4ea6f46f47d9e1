//! `#ttg.linear` / `#ttg.generic_linear` and `#ttg.shared_linear`: bases
//! given explicitly.

use super::cga::{shape_map, standard_dims};
use super::common::invalid;
use crate::attr::{Linear, SharedLinear};
use crate::error::Result;
use crate::release::Release;
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::utils;

/// The attribute's own layout (out sizes inferred, surjective).
pub(crate) fn linear_attr_layout(l: &Linear) -> Result<LinearLayout> {
    let rank = l
        .bases
        .iter()
        .flat_map(|(_, v)| v.first())
        .map(Vec::len)
        .next()
        .unwrap_or(0);
    Ok(LinearLayout::from_bases(&l.bases, &standard_dims(rank))?)
}

/// On its own shape the bases come back unchanged; on another shape the
/// layout grows by register repetitions and shrinks by dropping (not
/// zeroing) register bases that run past the shape.
pub(crate) fn linear(l: &Linear, shape: &[u64], version: Release) -> Result<LinearLayout> {
    let ll = linear_attr_layout(l)?;
    let order: Vec<Dim> = register_order(&ll).into_iter().map(Dim::standard).collect();
    let ll = ll.transpose_outs(&order)?;
    let pairs = shape_map(shape);
    let grown = utils::ensure_layout_not_smaller_than(&ll, &pairs)?;
    if !version.verifies_linear_as_permutation() {
        // Up to 3.7 the shrinking asserts that every component it may zero
        // is a power of two (`LayoutUtils.cpp`); from 3.8 `linear` bases are
        // a permutation, so they are. Where the assertions hold, both
        // shrinkings give the same layout.
        utils::ensure_layout_not_larger_than_legacy(&grown, &pairs)?;
    }
    Ok(utils::ensure_layout_not_larger_than(&grown, &pairs, false)?
        .transpose_outs(&standard_dims(shape.len()))?)
}

/// `LinearEncodingAttr::getOrder`: the dims in the order the register bases
/// first move along them (a basis counts for its first nonzero component),
/// then the remaining dims from the last one down. Repetitions follow it.
pub(crate) fn register_order(ll: &LinearLayout) -> Vec<usize> {
    let rank = ll.num_out_dims();
    let mut order: Vec<usize> = Vec::with_capacity(rank);
    let registers = ll
        .bases()
        .into_iter()
        .find(|(d, _)| *d == Dim::REGISTER)
        .map(|x| x.1)
        .unwrap_or_default();
    for basis in registers {
        if let Some(k) = basis.iter().position(|&c| c != 0) {
            if !order.contains(&k) {
                order.push(k);
            }
        }
    }
    for k in (0..rank).rev() {
        if !order.contains(&k) {
            order.push(k);
        }
    }
    order
}

/// Only on its own shape (Triton asserts `size == llSize`).
pub(crate) fn shared_linear(s: &SharedLinear, shape: &[u64]) -> Result<LinearLayout> {
    let bases = vec![
        (Dim::OFFSET, s.offset.clone()),
        (Dim::BLOCK, s.block.clone()),
    ];
    let inferred = LinearLayout::from_bases(&bases, &standard_dims(shape.len()))?;
    for (d, want) in shape_map(shape) {
        let got = inferred.out_dim_size(d)?;
        if got != want {
            return Err(invalid(
                "#ttg.shared_linear",
                format!(
                    "the layout's {d} has size {got}, but the shape asks for {want} (Triton asserts size == llSize)"
                ),
            ));
        }
    }
    Ok(inferred)
}
