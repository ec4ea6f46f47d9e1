//! The JSON shape of Triton's Python binding:
//! `{"bases": [["register", [[0, 1], [0, 2]]], ["lane", [[1, 0], [2, 0]]]],
//! "out_dims": [["dim0", 4], ["dim1", 4]]}` — the binding's `bases` and
//! `out_dims` properties, tuples as arrays.

use crate::dim::Dim;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;
use serde::{Deserialize, Serialize};

/// A layout as plain JSON data (validated only when converted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutJson {
    /// For each in-dim, in order: its name and its bases.
    pub bases: Vec<(String, Vec<Vec<u64>>)>,
    /// For each out-dim, in order: its name and its size.
    pub out_dims: Vec<(String, u64)>,
}

impl From<&LinearLayout> for LayoutJson {
    fn from(l: &LinearLayout) -> Self {
        LayoutJson {
            bases: l
                .bases()
                .into_iter()
                .map(|(d, v)| (d.name().to_string(), v))
                .collect(),
            out_dims: l
                .out_dims()
                .map(|(d, s)| (d.name().to_string(), s))
                .collect(),
        }
    }
}

impl From<LinearLayout> for LayoutJson {
    fn from(l: LinearLayout) -> Self {
        LayoutJson::from(&l)
    }
}

impl TryFrom<LayoutJson> for LinearLayout {
    type Error = LayoutError;

    /// Builds the layout with the given sizes, not requiring surjectivity
    /// (a layout read back must be the layout that was written).
    fn try_from(j: LayoutJson) -> Result<Self> {
        LinearLayout::check_dim_counts("from_bases", j.bases.len(), j.out_dims.len())?;
        let bases = j
            .bases
            .into_iter()
            .map(|(n, v)| Ok((Dim::try_new(&n)?, v)))
            .collect::<Result<Vec<_>>>()?;
        let outs = j
            .out_dims
            .into_iter()
            .map(|(n, s)| Ok((Dim::try_new(&n)?, s)))
            .collect::<Result<Vec<_>>>()?;
        LinearLayout::from_bases_with_sizes(&bases, &outs, false)
    }
}

impl Serialize for LinearLayout {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        LayoutJson::from(self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for LinearLayout {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let j = LayoutJson::deserialize(d)?;
        LinearLayout::try_from(j).map_err(serde::de::Error::custom)
    }
}

/// Parses the JSON shape, with errors that point at the line and column.
pub fn from_json_str(text: &str) -> Result<LinearLayout> {
    let j: LayoutJson = serde_json::from_str(text).map_err(|e| LayoutError::Parse {
        format: "layout JSON",
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    LinearLayout::try_from(j)
}

/// The JSON shape as a string.
pub fn to_json_string(l: &LinearLayout) -> String {
    serde_json::to_string(&LayoutJson::from(l)).unwrap_or_default()
}
