//! Triton releases whose layout behaviour this crate models.

use std::fmt;
use std::str::FromStr;

/// A Triton release. `Newest` is the behaviour of the 3.9.0 wheel (and of
/// `main` as of mid-2026), which 3.5 through 3.9 share for everything this
/// crate models.
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
    /// 3.5 and later; checked against the 3.9.0 wheel.
    Newest,
}

impl TritonVersion {
    /// Every modelled release, oldest first.
    pub const ALL: [TritonVersion; 5] = [
        TritonVersion::V3_1,
        TritonVersion::V3_2,
        TritonVersion::V3_3,
        TritonVersion::V3_4,
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
            TritonVersion::Newest => "newest",
        })
    }
}

/// An unknown release name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown Triton release `{0}`; expected one of 3.1, 3.2, 3.3, 3.4, newest (3.5 to 3.9 behave as newest)"
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
            ("3", m) if m.parse::<u32>().is_ok_and(|m| (5..=9).contains(&m)) => {
                Ok(TritonVersion::Newest)
            }
            _ => Err(UnknownVersion(t.to_string())),
        }
    }
}
