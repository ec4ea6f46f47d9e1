//! The tcgen05 (MMA v5, sm100) op's verifier on its operands' CGA layouts.
//!
//! From 3.7, `TCGen5MMAOp::verify` (`lib/Dialect/TritonNvidiaGPU/IR/Ops.cpp`)
//! requires operand A's CGA not to split K (its dim 1) and operand B's not
//! to split K (its dim 0); from 3.8 also, for every `block` basis `i`
//! (outside two-CTA mode, which 3.8 and 3.9 never choose), the
//! accumulator's basis to be `(A's basis i along M, B's basis i along N)`.
//! It runs as soon as `AccelerateMatmul` has built the op, before any
//! lowering.
//!
//! `AccelerateMatmul` puts an operand in shared memory with the CGA of the
//! value it comes from: a loaded operand is reloaded in the dot's own CGA
//! (3.9's `CGARematerialization`), but a chained dot's P keeps the CGA of
//! the first dot's tiling. So chain-a (P is A) fails when the first dot
//! splits N (A's K), chain-b (P is B) when it splits M (B's K), and either
//! when the two dots split their shared dim differently.
//!
//! Measured: every chained kernel with 2 or 4 CTAs whose second dot takes
//! tcgen05 on the 3.9.0 wheel (`tests/data/compile/ctas-*`; the CTA report's
//! `model39.py` agrees with 150 of 150). 3.7 and 3.8 stop at CTA planning
//! first ([`super::plan_cta`]); 3.7.1 prints the RHS message for an mxfp4
//! `dot_scaled` with 2 CTAs on sm100, whose packed operand B keeps a split
//! along K (`families-triton-3.7.1`).

use super::Failure;
use crate::Release;
use crate::release::Span;
use crate::{Ending, Location, Site, SiteKind};

const fn verify(since: Release, message: &'static str) -> Location {
    Location {
        releases: Span::since(since),
        ending: Ending::Diagnostic,
        function: "TCGen5MMAOp::verify",
        file: "lib/Dialect/TritonNvidiaGPU/IR/Ops.cpp",
        line: None,
        message,
    }
}

// The two K checks came with Gluon's multi-CTA support (PR #8684, in 3.7:
// `v3.7.1:lib/Dialect/TritonNvidiaGPU/IR/Ops.cpp:553-560`); the block-basis
// check with the `block` dim of tensor-memory layouts (PR #9557, 3.8).
static LHS_K: Location = verify(Release::V3_7, "LHS CTASplit along K should be 1, but got ");
static RHS_K: Location = verify(Release::V3_7, "RHS CTASplit along K should be 1, but got ");
static BLOCK_BASIS: Location = verify(Release::V3_8, "expected block basis ");

/// The site.
pub(crate) static SITE: Site = Site {
    id: "tcgen05_cga",
    kind: SiteKind::Bug,
    title: "a tcgen05 dot whose shared-memory operand keeps a CTA split that does not match the dot's (a chained dot's P with num_ctas > 1)",
    locations: &[&LHS_K, &RHS_K, &BLOCK_BASIS],
    changes: &[],
    workaround: "num_ctas=1 for chained dots on sm100",
};

/// The op's three CGA layouts as `block` bases in element coordinates of
/// their own tensors: A `[M, K]`, B `[K, N]`, the accumulator `[M, N]`.
pub(crate) struct Operands<'a> {
    /// A's bases.
    pub a: &'a [[u64; 2]],
    /// B's bases.
    pub b: &'a [[u64; 2]],
    /// The accumulator's bases.
    pub d: &'a [[u64; 2]],
}

fn split_along(bases: &[[u64; 2]], dim: usize) -> u64 {
    1 << bases.iter().filter(|b| b[dim] != 0).count()
}

/// The verifier on a tcgen05 op.
pub(crate) fn verify_op(ops: &Operands<'_>, release: Release) -> Result<(), Failure> {
    if !SITE.fails_in(release) {
        return Ok(());
    }
    let op = "'ttng.tc_gen5_mma' op ";
    let lhs = split_along(ops.a, 1);
    if lhs > 1 {
        return Err(
            Failure::at(&SITE, &LHS_K, release, "operand A's CGA splits K")
                .with_message(format!("{op}{}{lhs}", LHS_K.message)),
        );
    }
    let rhs = split_along(ops.b, 0);
    if rhs > 1 {
        return Err(
            Failure::at(&SITE, &RHS_K, release, "operand B's CGA splits K")
                .with_message(format!("{op}{}{rhs}", RHS_K.message)),
        );
    }
    if !BLOCK_BASIS.releases.contains(release) {
        return Ok(());
    }
    for (i, d) in ops.d.iter().enumerate() {
        let want = [
            ops.a.get(i).map_or(0, |a| a[0]),
            ops.b.get(i).map_or(0, |b| b[1]),
        ];
        if *d != want {
            return Err(Failure::at(
                &SITE,
                &BLOCK_BASIS,
                release,
                "the accumulator's CTA split is not A's along M and B's along N",
            )
            .with_message(format!(
                "{op}expected block basis {}, {} at result index {i}, but got {}, {}",
                want[0], want[1], d[0], d[1]
            )));
        }
    }
    Ok(())
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::Tcgen05Verify]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> std::result::Result<(), Failure> {
        match event {
            super::Event::Tcgen05Verify(ops) => verify_op(ops, release),
            _ => Ok(()),
        }
    }
}
