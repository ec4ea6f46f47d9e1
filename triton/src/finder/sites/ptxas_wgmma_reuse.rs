//! Two wgmma dots with a shared buffer written between them, assembled by
//! ptxas 12.8: a risk of wrong values (3.6 and 3.7 on sm90).
//!
//! The GPU campaigns found chains of two `warp_group_dot`s whose second
//! operands (or a shared round trip between the dots) are written to
//! shared memory after the first dot, where the first dot's operands were:
//! with Triton 3.6.0 and 3.7.1 such kernels compute wrong values or fault
//! on an H100 and an H200, deterministically, in some configurations only
//! (`notes/findings/gpu-wgmma-operand-reuse.md`: 123 campaign kernels; in
//! plain Triton, `tl.dot(tl.trans(tl.dot(a, b).to(bf16)), c)` is wrong in
//! 12 of 384 configurations). The fault follows the assembler: the same
//! PTX assembled by ptxas 12.9 or 13.x computes right, and 3.5.1's PTX
//! (which sets the descriptors' leading and stride offsets that 3.6 leaves
//! 0) is right with ptxas 12.8. So the risk is where a release from 3.6
//! assembles a Hopper target with a 12.8 ptxas — read from the release
//! table ([`crate::Release::ptxas`]): 3.6 and 3.7 on sm90; 3.8 bundles
//! 12.9, and 3.9 assembles sm90 with its Blackwell ptxas (13.4). The
//! workaround is the release's own knob for another assembler,
//! `TRITON_PTXAS_PATH`.
//!
//! Not a layout rule, and not every such kernel is wrong: a finding here
//! is a [`Risk`](crate::Ending::Risk), reported beside the compile's
//! verdict (`check_ttgir::risks`), never as it.

use super::Failure;
use crate::Release;
use crate::finder::op::Op;
use crate::release::Span;
use crate::{Ending, Location, Site, SiteKind};

static PTXAS_12_8: Location = Location {
    releases: Span::until(Release::V3_6, Release::V3_8),
    ending: Ending::Risk,
    function: "ptxas 12.8 (the wheel's bundled assembler for sm90), on the PTX of two wgmma dots with a shared buffer written between them",
    file: "third_party/nvidia/backend/compiler.py",
    line: None,
    message: "",
};

/// The site.
pub(crate) static SITE: Site = Site {
    id: "ptxas_wgmma_reuse",
    kind: SiteKind::Bug,
    title: "two wgmma dots with a shared buffer written between them, assembled by ptxas 12.8 (may compute wrong values)",
    locations: &[&PTXAS_12_8],
    changes: &[crate::Change {
        release: Release::V3_8,
        pr: None,
        what: "the wheel bundles ptxas 12.9 for sm90 (3.9: its Blackwell ptxas 13.4)",
    }],
    workaround: "TRITON_PTXAS_PATH=/path/to/ptxas of CUDA 12.9 or later, or Triton 3.8",
};

/// The SSA value an op line defines (`%p_33` of `%p_33 = ttg.local_alloc
/// %p …`).
fn defined(line: &str) -> Option<&str> {
    let (lhs, _) = line.trim_start().split_once(" = ")?;
    lhs.starts_with('%')
        .then(|| lhs.split(':').next().unwrap_or(lhs))
}

/// Whether `line` stores a register value into a new shared buffer
/// (`local_alloc %v`, as opposed to an empty allocation a pipeline fills).
fn writes_buffer(line: &str) -> bool {
    line.contains(".local_alloc %") || line.contains(".local_store %")
}

/// Whether `line` is a wgmma dot (not its `_wait`).
fn is_wgmma(line: &str) -> bool {
    line.contains(".warp_group_dot ")
}

/// The risk `release` takes assembling the dot `op` (on line `index` of
/// `lines`): an earlier wgmma dot, and a shared buffer written between the
/// two.
pub(crate) fn assemble(
    op: &Op<'_>,
    lines: &[&str],
    index: usize,
    release: Release,
) -> Result<(), Failure> {
    let Some(capability) = op.module.capability else {
        return Ok(());
    };
    let ptxas = release.ptxas(capability);
    let at_risk = PTXAS_12_8.releases.contains(release)
        && (90..100).contains(&capability)
        && ptxas.version.starts_with("12.8");
    if !at_risk || !is_wgmma(op.line) {
        return Ok(());
    }
    let before = &lines[..index.min(lines.len())];
    let Some(first) = before.iter().rposition(|l| is_wgmma(l)) else {
        return Ok(());
    };
    let Some(written) = before[first + 1..].iter().find(|l| writes_buffer(l)) else {
        return Ok(());
    };
    let buffer = defined(written).unwrap_or("a shared buffer");
    Err(Failure::at(
        &SITE,
        &PTXAS_12_8,
        release,
        format!(
            "a wgmma dot on line {} and this one, with {buffer} written to shared memory between them; Triton {release} assembles sm{capability} with its bundled ptxas {} ({} replaces it)",
            first + 1,
            ptxas.version,
            ptxas.env
        ),
    ))
}

/// This site's model, registered in [`super::MODELS`].
pub(crate) struct Model;

impl super::SiteModel for Model {
    fn site(&self) -> &'static Site {
        &SITE
    }

    fn events(&self) -> &'static [super::EventKind] {
        &[super::EventKind::Assemble]
    }

    fn check(
        &self,
        event: &super::Event<'_>,
        release: Release,
        _: &mut crate::finder::verdict::Trace,
    ) -> Result<(), Failure> {
        match event {
            super::Event::Assemble { op, lines, index } => assemble(op, lines, *index, release),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Release;
    use crate::finder::check_ttgir::{check, risks};

    /// Two wgmma dots with P stored to shared memory between them, in the
    /// shape 3.6's front end writes (trimmed to the ops that matter).
    fn module(target: &str) -> String {
        format!(
            r#"#mma = #ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}}>
#shared = #ttg.nvmma_shared<{{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "{target}", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k() {{
    %p = ttng.warp_group_dot %a, %b, %c {{inputPrecision = 0 : i32}} : !ttg.memdesc<64x64xbf16, #shared, #smem> * !ttg.memdesc<64x64xbf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    %q = ttg.local_alloc %pb : (tensor<64x64xbf16, #mma>) -> !ttg.memdesc<64x64xbf16, #shared, #smem>
    %o = ttng.warp_group_dot %q, %d, %c {{inputPrecision = 0 : i32}} : !ttg.memdesc<64x64xbf16, #shared, #smem> * !ttg.memdesc<64x64xbf16, #shared, #smem> -> tensor<64x64xf32, #mma>
    tt.return
  }}
}}
"#
        )
    }

    #[test]
    fn the_risk_follows_the_bundled_assembler() {
        let sm90 = module("cuda:90");
        for (release, expected) in [
            (Release::V3_5, false),
            (Release::V3_6, true),
            (Release::V3_7, true),
            (Release::V3_8, false),
            (Release::V3_9, false),
        ] {
            let found = risks(&sm90, release).unwrap();
            assert_eq!(found.len(), usize::from(expected), "{release}: {found:?}");
            // Never a compile failure.
            assert!(
                check(&sm90, release)
                    .unwrap()
                    .iter()
                    .all(|f| f.failure.site.id != "ptxas_wgmma_reuse")
            );
        }
        let found = risks(&sm90, Release::V3_6).unwrap();
        assert_eq!((found[0].line, found[0].verdict), (8, crate::Verdict::Risk));
        // Not on Blackwell, whose assembler 3.6 bundles is 12.9.
        assert!(
            risks(&module("cuda:100"), Release::V3_6)
                .unwrap()
                .is_empty()
        );
        // One dot alone takes no risk.
        let one = sm90.replace("    %o = ttng.warp_group_dot", "    %o = ttng.other_op");
        assert!(risks(&one, Release::V3_6).unwrap().is_empty());
    }
}
