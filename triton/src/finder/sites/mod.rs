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
pub(crate) mod cga_spelling;
pub(crate) mod convert_8bit_shuffle;
pub(crate) mod cp_async;
pub(crate) mod cross_cta;
pub(crate) mod dot_k;
pub(crate) mod fp8_arch;
pub(crate) mod fp8_promotion;
pub(crate) mod gather_layout;
pub(crate) mod language_feature;
pub(crate) mod local_load_rank3;
pub(crate) mod mma_operand_cga;
pub(crate) mod mma_to_mma_3_1;
pub(crate) mod mma_version;
pub(crate) mod nvmma_memdesc;
pub(crate) mod operand_shared;
pub(crate) mod plan_cta;
pub(crate) mod scan_layout;
pub(crate) mod shared_linear_xor;
pub(crate) mod shared_tile;
pub(crate) mod stmatrix;
pub(crate) mod tcgen05_cga;
pub(crate) mod tcgen05_operand_3_3;
pub(crate) mod tmem_cta_3_5;
pub(crate) mod tmem_lhs_cta;
pub(crate) mod unknown_target;
pub(crate) mod v2_shortcut_3_1;
pub(crate) mod warp_shuffle_3_3;

use super::verdict::Trace;
use crate::attr::{Attr, NvidiaMma};
use crate::print_attr;
use crate::{Conversion, ConvertError, Release, to_linear_layout};
pub use crate::{Entry, Failure, Site};
use linear_layout::LinearLayout;

/// Every site the finder reports, its own and the conversions', sorted by
/// id.
pub fn all() -> Vec<&'static Site> {
    let mut sites: Vec<&'static Site> = vec![
        &acc_dtype::SITE,
        &accumulator_to_v2::SITE,
        &cga_spelling::SITE,
        &convert_8bit_shuffle::SITE,
        &cp_async::SITE,
        &cross_cta::SITE,
        &dot_k::SITE,
        &fp8_arch::SITE,
        &fp8_promotion::SITE,
        &gather_layout::SITE,
        &language_feature::SITE,
        &local_load_rank3::SITE,
        &mma_operand_cga::SITE,
        &mma_to_mma_3_1::SITE,
        &mma_version::SITE,
        &nvmma_memdesc::SITE,
        &operand_shared::SITE,
        &plan_cta::SITE,
        &scan_layout::SITE,
        &shared_linear_xor::SITE,
        &shared_tile::SITE,
        &stmatrix::SITE,
        &tcgen05_cga::SITE,
        &tcgen05_operand_3_3::SITE,
        &tmem_cta_3_5::SITE,
        &tmem_lhs_cta::SITE,
        &unknown_target::SITE,
        &v2_shortcut_3_1::SITE,
        &warp_shuffle_3_3::SITE,
    ];
    sites.extend(crate::CONVERSION_SITES);
    sites.sort_by_key(|s| s.id);
    sites
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
