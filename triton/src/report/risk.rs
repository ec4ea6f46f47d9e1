//! The assembler's risks in the modules a scan checked: ops of a shape the
//! assembler a release bundles is known to miscompile sometimes
//! ([`crate::Ending::Risk`] sites, found by
//! [`crate::finder::check_ttgir::risks`]). Listed beside the failures,
//! never a verdict: a configuration with a risk still passes.

use crate::Site;

/// One risk site met in one build, with the configurations whose modules
/// meet it.
#[derive(Clone, Debug)]
pub struct RiskGroup {
    /// Index into the report's builds.
    pub build: usize,
    /// The site (its workaround says the way out).
    pub site: &'static Site,
    /// The op that meets it, in the first configuration's module.
    pub op: String,
    /// Why, for the first configuration.
    pub explanation: String,
    /// Indices into the report's configurations, smallest first.
    pub configs: Vec<usize>,
}
