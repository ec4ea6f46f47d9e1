//! Front-end rejections of a kernel's own code that are no layout site: the
//! language changed under the kernel, so the release's Python front end
//! raises before any TTGIR exists. `scan` meets them on public kernels (they
//! are the front-end failures its report keeps apart), and users paste them,
//! so `explain` names them instead of calling them unknown. Each entry was
//! read in the wheels' own source (`triton/language/…` of each release).

use crate::Release;

/// A message the front end raises for code a release no longer (or not yet)
/// accepts.
#[derive(Debug)]
pub struct Rejection {
    /// A short name (`block_pointers_removed`).
    pub id: &'static str,
    /// The exact text the release raises.
    pub message: &'static str,
    /// The first release that raises it (every later modelled release does
    /// too).
    pub since: Release,
    /// Where, in that release's wheel.
    pub location: &'static str,
    /// What it means for the kernel.
    pub meaning: &'static str,
    /// What to do.
    pub workaround: &'static str,
}

impl Rejection {
    /// The modelled releases that raise it.
    pub fn releases(&self) -> Vec<Release> {
        Release::ALL
            .into_iter()
            .filter(|&r| r >= self.since)
            .collect()
    }
}

/// The known rejections.
pub static REJECTIONS: [Rejection; 1] = [Rejection {
    id: "block_pointers_removed",
    // 3.9.0: `make_block_ptr` and `advance` raise it; 3.8.0 and earlier
    // build block pointers (flash-linear-attention 0.2.0's kernels compile
    // on 3.1-3.4 and fail so on 3.9, tests/data/kernels)
    message: "Block pointers have been removed in favor of the tensor descriptor API",
    since: Release::V3_9,
    location: "python/triton/language/core.py:2523 (make_block_ptr), :2538 (advance)",
    meaning: "the kernel builds block pointers (`tl.make_block_ptr`, `tl.advance`), which this \
              release removed; no layout is involved, the front end stops before any TTGIR",
    workaround: "rewrite the loads and stores with tensor descriptors \
                 (`tl.make_tensor_descriptor`), or stay on Triton 3.8 or earlier",
}];

/// The rejection whose message is in `log` (whitespace normalised).
pub fn find(normalized_log: &str) -> Option<&'static Rejection> {
    REJECTIONS
        .iter()
        .find(|r| normalized_log.contains(r.message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removed_feature_is_named_with_its_releases() {
        let log = "NotImplementedError: Block pointers have been removed in favor of the tensor \
                   descriptor API";
        let r = find(log).expect("known");
        assert_eq!(r.id, "block_pointers_removed");
        assert_eq!(r.releases(), [Release::V3_9]);
        assert!(find("NotImplementedError: something else").is_none());
    }
}
