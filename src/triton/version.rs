//! Triton releases whose layout behaviour this crate models.

use std::fmt;
use std::str::FromStr;

/// A Triton release. `Newest` is the behaviour of the 3.9.0 wheel (and of
/// `main` as of mid-2026), which 3.5 through 3.9 share for every verdict
/// this crate models: the 3.5.1, 3.6.0, 3.7.1 and 3.8.0 wheels give the
/// 3.9.0 verdict on every one-op module of the op-level grid and on sampled
/// kernels (`notes/finder-agreement.md`; CI compiles a sample with one of
/// them on every run). Two messages differ: the cp.async per-copy
/// assertion sits on another source line in each, and 3.5 and 3.6 refuse
/// an NVMMA buffer narrower than its swizzle row with a fatal error in the
/// lowering where 3.7 and later have the type verifier's diagnostic; the
/// messages reported are 3.9.0's.
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
    /// 3.5 and later; recorded against the 3.9.0 wheel, sampled against
    /// 3.5.1, 3.6.0, 3.7.1 and 3.8.0.
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
