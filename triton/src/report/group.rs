//! The failures at one site in one build: how many, the smallest
//! configurations, the failure of the smallest, how each is fixed, and what
//! reproduces it.

use super::{MinimalModule, Reproducer};
use crate::finder::search::Fix;
use crate::{Failure, Site, Verdict};

/// The failures at one site in one build.
#[derive(Clone, Debug)]
pub struct SiteGroup {
    /// Index into the report's builds.
    pub build: usize,
    /// The site.
    pub site: &'static Site,
    /// How a compile from source ends there.
    pub verdict: Verdict,
    /// How many configurations fail here.
    pub count: u64,
    /// Indices into the report's configurations, smallest first: every one
    /// (a scan), or the smallest few (a search). Never empty.
    pub configs: Vec<usize>,
    /// The smallest configuration's failure.
    pub failure: Failure,
    /// Where that failure sits in the smallest configuration's TTGIR, when
    /// the report read TTGIR.
    pub op: Option<TtgirOp>,
    /// How many fail per place (`dot on sm90`), in the producer's order;
    /// empty when not counted.
    pub places: Vec<(String, u64)>,
    /// Each way the group's configurations are fixed and how many it
    /// applies to, commonest first.
    pub fixes: Vec<(Fix, u64)>,
    /// How to reproduce the smallest configuration.
    pub reproducer: Option<Reproducer>,
    /// Its module reduced to the failing op, where written.
    pub minimal_module: Option<MinimalModule>,
}

/// An op of a TTGIR module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TtgirOp {
    /// Its 1-based line.
    pub line: usize,
    /// Its name (`local_alloc`).
    pub op: String,
}
