//! The CTA-cluster (CGA) layout, and fitting a CTA tile to a tensor
//! (`combineCtaCgaWithShape`).

use super::common::invalid;
use crate::attr::Cga;
use crate::error::Result;
use crate::failure::Failure;
use crate::release::{Release, Span};
use crate::site::{Ending, Location, Site, SiteKind};
use linear_layout::Dim;
use linear_layout::LinearLayout;
use linear_layout::utils;

/// The shape check at the end of `combineCtaCgaWithShape`.
static SHAPE_CHECK: Location = Location {
    releases: Span::since(Release::V3_1),
    ending: Ending::Assertion,
    function: "combineCtaCgaWithShape",
    file: "lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp",
    line: None,
    message: "Assertion `ret.getOutDimSize(dim) == labeledShape[dim]' failed.",
};

/// The site: fitting a CTA tile and its CGA to the tensor's shape.
pub(crate) static SITE: Site = Site {
    id: "cga",
    kind: SiteKind::Bug,
    title: "a CTA tile and CGA layout that do not make exactly the tensor's shape",
    locations: &[&SHAPE_CHECK],
    changes: &[],
    workaround: "a CGA (CTAsPerCGA / CTASplitNum) that divides the tensor's shape",
};

/// The standard out-dims `dim0 … dim{rank-1}`.
pub(crate) fn standard_dims(rank: usize) -> Vec<Dim> {
    (0..rank).map(Dim::standard).collect()
}

/// `(dim_i, shape[i])` pairs.
pub(crate) fn shape_map(shape: &[u64]) -> Vec<(Dim, u64)> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (Dim::standard(i), s))
        .collect()
}

/// The `block → dim*` layout of a CGA, in units of tiles.
pub(crate) fn cga_layout(cga: &Option<Cga>, rank: usize) -> Result<LinearLayout> {
    let dims = standard_dims(rank);
    match cga {
        None => {
            let outs: Vec<(Dim, u64)> = dims.iter().map(|&d| (d, 1)).collect();
            Ok(LinearLayout::from_bases_with_sizes(
                &[(Dim::BLOCK, vec![])],
                &outs,
                true,
            )?)
        }
        Some(Cga::Bases(bases)) => {
            if bases.iter().any(|b| b.len() != rank) {
                return Err(invalid(
                    "CGALayout",
                    format!("every basis must have {rank} components"),
                ));
            }
            Ok(LinearLayout::from_bases(
                &[(Dim::BLOCK, bases.clone())],
                &dims,
            )?)
        }
        Some(Cga::Split {
            ctas_per_cga,
            cta_split_num,
            cta_order,
        }) => {
            if ctas_per_cga.len() != rank || cta_split_num.len() != rank || cta_order.len() != rank
            {
                return Err(invalid(
                    "CTALayout",
                    format!("CTAsPerCGA, CTASplitNum and CTAOrder must have {rank} entries"),
                ));
            }
            let mut l = LinearLayout::empty();
            for &d in cta_order {
                let (ctas, split) = (ctas_per_cga[d], cta_split_num[d]);
                if split == 0 || ctas % split != 0 {
                    return Err(invalid(
                        "CTALayout",
                        format!(
                            "CTAsPerCGA[{d}] = {ctas} is not a multiple of CTASplitNum[{d}] = {split}"
                        ),
                    ));
                }
                l = l.product(&LinearLayout::identity_1d(
                    split,
                    Dim::BLOCK,
                    Dim::standard(d),
                )?)?;
                l = l.product(&LinearLayout::zeros_1d(
                    ctas / split,
                    Dim::BLOCK,
                    Dim::standard(d),
                    1,
                )?)?;
            }
            Ok(l.transpose_outs(&dims)?)
        }
    }
}

/// The CGA of a dot operand: the parent's, with the K dim broadcast (every
/// CTA holds the whole K extent of its operand).
pub(crate) fn operand_cga(cga: &Option<Cga>, k: usize) -> Option<Cga> {
    match cga {
        None => None,
        Some(Cga::Bases(bases)) => Some(Cga::Bases(
            bases
                .iter()
                .map(|b| {
                    b.iter()
                        .enumerate()
                        .map(|(d, &c)| if d == k { 0 } else { c })
                        .collect()
                })
                .collect(),
        )),
        Some(Cga::Split {
            ctas_per_cga,
            cta_split_num,
            cta_order,
        }) => {
            let mut split = cta_split_num.clone();
            if let Some(s) = split.get_mut(k) {
                *s = 1;
            }
            Some(Cga::Split {
                ctas_per_cga: ctas_per_cga.clone(),
                cta_split_num: split,
                cta_order: cta_order.clone(),
            })
        }
    }
}

/// How many distinct tiles the CGA splits each dim into (`CTASplitNum`).
///
/// For CGA bases Triton counts each nonzero basis once, for the first dim
/// it moves (`basesPerDimImpl`, zero bases skipped). That is the layout's
/// out-dim size when the bases form a permutation matrix, which 3.8 and
/// later require; 3.6 and 3.7 accept others, such as `[[1, 1], [1, 0],
/// [2, 0]]`, which splits dim 0 eight ways although its layout is 4 × 2
/// (measured: the 3.7.1 wheel's Gluon).
pub(crate) fn split_num(cga: &Option<Cga>, rank: usize) -> Result<Vec<u64>> {
    if let Some(Cga::Bases(bases)) = cga {
        let mut split = vec![1u64; rank];
        for basis in bases {
            if let Some(d) = basis.iter().position(|&x| x != 0) {
                if let Some(s) = split.get_mut(d) {
                    *s = s.saturating_mul(2);
                }
            }
        }
        return Ok(split);
    }
    let l = cga_layout(cga, rank)?;
    standard_dims(rank)
        .into_iter()
        .map(|d| Ok(l.out_dim_size(d)?))
        .collect()
}

/// The shape each CTA holds.
pub(crate) fn shape_per_cta(cga: &Option<Cga>, shape: &[u64]) -> Result<Vec<u64>> {
    let split = split_num(cga, shape.len())?;
    Ok(shape
        .iter()
        .zip(split)
        .map(|(&s, k)| (s / k).max(1))
        .collect())
}

/// `ensureLayoutNotLargerThan` as the release has it.
pub(crate) fn not_larger(
    l: &LinearLayout,
    shape: &[(Dim, u64)],
    version: Release,
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    if version.trims_layouts_by_range() {
        Ok(utils::ensure_layout_not_larger_than(
            l,
            shape,
            broadcast_registers,
        )?)
    } else {
        Ok(utils::ensure_layout_not_larger_than_legacy(l, shape)?)
    }
}

/// Fits the CTA tile `cta` (whose out-dims are the standard dims in any
/// order; that order decides where repetitions go) to `shape`:
/// 1. the CGA layout is shrunk to the shape and put in `cta`'s out order;
/// 2. the per-CTA shape is the shape divided by the CGA's sizes;
/// 3. the tile is grown with register (or offset) repetitions, out-dim by
///    out-dim in its own order, then shrunk (out-of-range bits broadcast);
/// 4. the product with the CGA layout, transposed to `dim0 …`, must have
///    exactly the shape.
///
/// With `broadcast_registers = false` (3.9's blocked layouts), register
/// bases that run past the shape are dropped instead of kept as duplicates.
pub(crate) fn combine_cta_cga_with_shape(
    cta: LinearLayout,
    cga: &Option<Cga>,
    shape: &[u64],
    version: Release,
) -> Result<LinearLayout> {
    combine_with(cta, cga, shape, version, true)
}

/// [`combine_cta_cga_with_shape`] with the register policy spelled out.
pub(crate) fn combine_with(
    cta: LinearLayout,
    cga: &Option<Cga>,
    shape: &[u64],
    version: Release,
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    let rank = shape.len();
    let dims = standard_dims(rank);
    let shape_pairs = shape_map(shape);
    let cta_order: Vec<Dim> = cta.out_dim_names().collect();
    let cga_ll = not_larger(&cga_layout(cga, rank)?, &shape_pairs, version, true)?
        .transpose_outs(&cta_order)?;
    let cta_shape: Vec<(Dim, u64)> = shape_pairs
        .iter()
        .map(|&(d, s)| Ok((d, (s / cga_ll.out_dim_size(d)?).max(1))))
        .collect::<Result<_>>()?;
    let cta = utils::ensure_layout_not_smaller_than(&cta, &cta_shape)?;
    let cta = not_larger(&cta, &cta_shape, version, broadcast_registers)?;
    let out = cta.product(&cga_ll)?.transpose_outs(&dims)?;
    for (d, want) in shape_pairs {
        let got = out.out_dim_size(d)?;
        if got != want {
            return Err(Failure::at(
                &SITE,
                &SHAPE_CHECK,
                version,
                format!("out-dim {d} has size {got}, but the shape asks for {want}"),
            )
            .into());
        }
    }
    Ok(out)
}
