//! Triton releases whose layout behaviour this crate models.

use std::fmt;
use std::str::FromStr;

/// A Triton release. `Newest` is the behaviour of the 3.9.0 wheel (and of
/// `main` as of mid-2026). `V3_8` is 3.8: the newest behaviour except that
/// blocked layouts keep register bases that run past the shape as
/// duplicates (3.9.0 drops them) and two failure messages
/// (`notes/finder-agreement.md`). `V3_7` is 3.7: 3.8 except for some
/// conversions (no `generic_linear`; `linear` checked and shrunk the older
/// way; unswizzled transposed `nvmma_shared` in row-major order, and its
/// CGA rank 2 unless given; `amd_wmma` asserting on shapes below one
/// instruction, its operands' registers covering the whole K) and the
/// cp.async assertion's line. 3.5 and 3.6 are read as 3.7: those changes
/// all landed after 3.7 branched, and their compile verdicts equal 3.7's on
/// the op-level grid and sampled kernels.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum TritonVersion {
    /// 3.1.0.
    V3_1,
    /// 3.2.0 (branch `release/3.2.x`).
    V3_2,
    /// 3.3.x.
    V3_3,
    /// 3.4.0.
    V3_4,
    /// 3.7 (and 3.5, 3.6); conversions checked against the 3.7.1 wheel's
    /// Gluon, compiles against 3.5.1, 3.6.0 and 3.7.1.
    V3_7,
    /// 3.8; conversions checked against the 3.8.0 wheel's Gluon, compiles
    /// against 3.8.0.
    V3_8,
    /// 3.9, and `main` as of mid-2026; checked against the 3.9.0 wheel.
    Newest,
}

impl TritonVersion {
    /// Every modelled release, oldest first.
    pub const ALL: [TritonVersion; 7] = [
        TritonVersion::V3_1,
        TritonVersion::V3_2,
        TritonVersion::V3_3,
        TritonVersion::V3_4,
        TritonVersion::V3_7,
        TritonVersion::V3_8,
        TritonVersion::Newest,
    ];

    /// The dialect prefix this release prints: `triton_gpu` up to 3.2, `ttg`
    /// from 3.3 (PR #5266).
    pub fn dialect(self) -> &'static str {
        if self <= TritonVersion::V3_2 {
            "triton_gpu"
        } else {
            "ttg"
        }
    }

    /// The pip version of the wheel that represents this release.
    pub fn wheel(self) -> &'static str {
        match self {
            TritonVersion::V3_1 => "3.1.0",
            TritonVersion::V3_2 => "3.2.0",
            TritonVersion::V3_3 => "3.3.1",
            TritonVersion::V3_4 => "3.4.0",
            TritonVersion::V3_7 => "3.7.1",
            TritonVersion::V3_8 => "3.8.0",
            TritonVersion::Newest => "3.9.0",
        }
    }
}

impl fmt::Display for TritonVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TritonVersion::V3_1 => "3.1",
            TritonVersion::V3_2 => "3.2",
            TritonVersion::V3_3 => "3.3",
            TritonVersion::V3_4 => "3.4",
            TritonVersion::V3_7 => "3.7",
            TritonVersion::V3_8 => "3.8",
            TritonVersion::Newest => "newest",
        })
    }
}

/// An unknown release name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown Triton release `{0}`; expected one of 3.1, 3.2, 3.3, 3.4, 3.7, 3.8, newest (3.5 and 3.6 behave as 3.7, 3.9 as newest)"
)]
pub struct UnknownVersion(pub String);

impl FromStr for TritonVersion {
    type Err = UnknownVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let mut parts = t.split('.');
        let major = parts.next().unwrap_or("");
        let minor = parts.next().unwrap_or("");
        match (major, minor) {
            _ if t == "newest" || t == "main" || t == "latest" => Ok(TritonVersion::Newest),
            ("3", "1") => Ok(TritonVersion::V3_1),
            ("3", "2") => Ok(TritonVersion::V3_2),
            ("3", "3") => Ok(TritonVersion::V3_3),
            ("3", "4") => Ok(TritonVersion::V3_4),
            ("3", "5" | "6" | "7") => Ok(TritonVersion::V3_7),
            ("3", "8") => Ok(TritonVersion::V3_8),
            ("3", "9") => Ok(TritonVersion::Newest),
            _ => Err(UnknownVersion(t.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TritonVersion::{self, *};

    #[test]
    fn release_names_parse_to_the_modelled_release() {
        for (name, want) in [
            ("3.1", V3_1),
            ("3.2.0", V3_2),
            ("3.3.1", V3_3),
            ("3.4.0", V3_4),
            ("3.5.1", V3_7),
            ("3.6", V3_7),
            ("3.7.1", V3_7),
            ("3.8.0", V3_8),
            ("3.9.0", Newest),
            ("newest", Newest),
            ("main", Newest),
        ] {
            assert_eq!(name.parse::<TritonVersion>(), Ok(want), "{name}");
        }
        for bad in ["3.0", "3.10", "4.0", "", "3", "newer"] {
            assert!(bad.parse::<TritonVersion>().is_err(), "{bad}");
        }
    }

    #[test]
    fn each_release_prints_a_name_that_parses_back() {
        for v in TritonVersion::ALL {
            assert_eq!(v.to_string().parse::<TritonVersion>(), Ok(v));
            assert_eq!(v.wheel().parse::<TritonVersion>(), Ok(v));
        }
    }
}
