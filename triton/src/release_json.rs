//! The release table as JSON: what `linear-layout releases --json` prints
//! and `linear_layout.releases()` returns. CI, the oracle scripts, the
//! Python tests and the conformance fuzzer read their wheel lists and each
//! release's TTGIR spelling from it instead of keeping their own.

use crate::release::{RELEASES, Release, ReleaseInfo};
use serde_json::{Value, json};

impl ReleaseInfo {
    /// This row as JSON: the table's fields (`name`, `minors`, `wheel`,
    /// `wheels`, `tag`, `dialect`), `latest` (whether it is the newest),
    /// `models_multi_cta` ([`Release::models_multi_cta`]), `gluon_oracle`
    /// ([`Release::has_gluon_layout_oracle`]), `catches_crashes`
    /// ([`Release::catches_crashes`]) and `ttgir`, how
    /// the release spells TTGIR beyond its layout attributes (which
    /// [`crate::print_attr`] prints): `dialect`, `nvidia_dialect`,
    /// `memdesc_dialect`, `memory_space` (whether a memdesc names one),
    /// `commit_tokens` (`async_commit_group tokens …`), `cga` (`"lists"` or
    /// `"bases"`), and which of the attributes and ops that came and went
    /// it has: `legacy_shared` (`shared` with `hasLeadingOffset`, not
    /// `swizzled_shared` / `nvmma_shared`), `linear`, `generic_linear`,
    /// `padded_shared` (`padded_shape`: whether it names its shape;
    /// `padded_lowers`: whether its lowering has a layout for it),
    /// `shared_linear`, `f8e4m3fn` (tensors of it), `gather`,
    /// `memdesc_trans`, and `wmma_v1_transposes` (whether a version-1
    /// `amd_wmma` may be transposed:
    /// [`Release::transposes_wmma_of_every_version`]).
    pub fn to_json(&self) -> Value {
        let r = self.release;
        json!({
            "name": self.name,
            "minors": self.minors,
            "wheel": self.wheel,
            "wheels": self.wheels,
            "tag": self.tag,
            "dialect": self.dialect,
            "latest": r == Release::LATEST,
            "models_multi_cta": r.models_multi_cta(),
            "models_amd": r.models_amd(),
            "gluon_oracle": r.has_gluon_layout_oracle(),
            "catches_crashes": r.catches_crashes(),
            "ttgir": {
                "dialect": r.dialect(),
                "nvidia_dialect": r.nvidia_dialect(),
                "memdesc_dialect": r.memdesc_dialect(),
                "memory_space": r.memdesc_names_memory_space(),
                "commit_tokens": r.commit_group_names_tokens(),
                "cga": if r.spells_cga_as_bases() { "bases" } else { "lists" },
                "legacy_shared": r.has_legacy_shared_layouts(),
                "linear": r.has_linear_attr(),
                "generic_linear": r.has_generic_linear(),
                "padded_shared": r.has_padded_shared(),
                "padded_shape": r.padded_shared_names_shape(),
                "padded_lowers": r.lowers_padded_shared(),
                "shared_linear": r.has_shared_linear(),
                "wmma_v1_transposes": r.transposes_wmma_of_every_version(),
                "f8e4m3fn": r.has_f8e4m3fn_tensors(),
                "gather": r.has_gather_and_memdesc_trans(),
                "memdesc_trans": r.has_gather_and_memdesc_trans(),
            },
        })
    }
}

/// Every row of [`RELEASES`], oldest first, as `{"releases": [...]}`.
pub fn releases_json() -> Value {
    json!({ "releases": RELEASES.iter().map(ReleaseInfo::to_json).collect::<Vec<_>>() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_in_the_json_in_order_with_its_fields() {
        let json = releases_json();
        let rows = json["releases"].as_array().expect("a list");
        assert_eq!(rows.len(), RELEASES.len());
        for (row, info) in rows.iter().zip(&RELEASES) {
            assert_eq!(row["name"], info.name);
            assert_eq!(row["wheel"], info.wheel);
            assert_eq!(row["wheels"], json!(info.wheels));
            assert_eq!(row["minors"], json!(info.minors));
            assert_eq!(row["tag"], info.tag);
            assert_eq!(row["dialect"], info.dialect);
            assert_eq!(row["ttgir"]["dialect"], info.dialect);
            assert_eq!(row["latest"], info.release == Release::LATEST);
            assert_eq!(
                row["models_multi_cta"],
                info.release.models_multi_cta(),
                "{}",
                info.name
            );
        }
    }

    #[test]
    fn the_spelling_changes_where_the_dialects_were_renamed() {
        for info in &RELEASES {
            let ttgir = &info.to_json()["ttgir"];
            let legacy = info.dialect == "triton_gpu";
            assert_eq!(ttgir["legacy_shared"], legacy, "{}", info.name);
            assert_eq!(ttgir["memdesc_dialect"], if legacy { "tt" } else { "ttg" });
            assert_eq!(
                ttgir["nvidia_dialect"],
                if legacy { "triton_nvidia_gpu" } else { "ttng" }
            );
        }
    }
}
