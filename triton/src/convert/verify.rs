//! The checks a release's attribute verifier (and parser) makes. A
//! malformed attribute is [`ConvertError::InvalidAttribute`]; two checks
//! stop the process instead ([`SITE`]).

use crate::attr::*;
use crate::error::ConvertError;
use crate::error::Result;
use crate::failure::Failure;
use crate::release::{Release, Span};
use crate::site::{Change, Ending, Location, Site, SiteKind};
use linear_layout::LayoutError;

fn invalid(kind: &str, message: impl Into<String>) -> ConvertError {
    super::common::invalid(&format!("#ttg.{kind}"), message)
}

/// Up to 3.7 the CGA bases are built into a `LinearLayout` whose
/// constructor stops the process when they are not surjective.
static CGA_SURJECTIVE: Location = Location {
    releases: Span::until(Release::V3_2, Release::V3_8),
    ending: Ending::FatalError,
    function: "LinearLayout::LinearLayout (from parseCGAAttr)",
    file: "lib/Tools/LinearLayout.cpp",
    line: None,
    message: "LLVM ERROR: Layout is expected to be surjective, i.e. every `out` coordinate can be reached by some `in` coordinate, but was not:",
};

/// 3.5 to 3.7 wrap every distributed layout's linear layout as a linear
/// encoding, whose verifier then runs ([`super::to_linear_layout`]).
pub(super) static LINEAR_ENCODING: Location = Location {
    releases: Span::until(Release::V3_5, Release::V3_8),
    ending: Ending::Assertion,
    function: "LinearEncodingAttr::verify (from toLinearEncoding)",
    file: "lib/Dialect/TritonGPU/IR/Dialect.cpp",
    line: None,
    message: "",
};

/// The site: attribute checks that stop the process.
pub(crate) static SITE: Site = Site {
    id: "verify",
    kind: SiteKind::Bug,
    title: "a CGA layout that is no bijection, caught where the release builds it instead of by a verifier",
    locations: &[&CGA_SURJECTIVE, &LINEAR_ENCODING],
    changes: &[Change {
        release: Release::V3_8,
        pr: None,
        what: "the CGA verifier requires a permutation matrix, a diagnosed error",
    }],
    workaround: "a CGALayout whose nonzero bases are distinct single bits",
};

/// The wrapped-encoding failure of 3.5 to 3.7, with the verifier's words.
pub(super) fn linear_encoding_failure(release: Release, verifier: ConvertError) -> ConvertError {
    let message = match verifier {
        ConvertError::InvalidAttribute { message, .. } => message,
        other => other.to_string(),
    };
    Failure::at(
        &SITE,
        &LINEAR_ENCODING,
        release,
        "the layout, wrapped as a linear encoding, fails its verifier",
    )
    .with_message(message)
    .into()
}

fn is_permutation(order: &[usize]) -> bool {
    let mut seen = vec![false; order.len()];
    order
        .iter()
        .all(|&i| i < seen.len() && !std::mem::replace(&mut seen[i], true))
}

fn check_order(kind: &str, order: &[usize]) -> Result<()> {
    if is_permutation(order) {
        Ok(())
    } else {
        Err(invalid(
            kind,
            format!("order must be a permutation of 0..(rank-1), but was {order:?}"),
        ))
    }
}

/// Up to 3.7 the parser builds the CGA bases into a layout whose out-dim
/// sizes it infers, which must be surjective (`LinearLayout`'s constructor
/// stops the process otherwise).
fn cga_bases_surjective(cga: &Option<Cga>, rank: usize, version: Release) -> Result<()> {
    match super::cga::cga_layout(cga, rank) {
        Err(ConvertError::Layout(LayoutError::NotSurjective { .. })) => Err(Failure::at(
            &SITE,
            &CGA_SURJECTIVE,
            version,
            "the CGALayout bases do not cover the out-dim sizes they imply",
        )
        .into()),
        Err(e) => Err(e),
        Ok(_) => Ok(()),
    }
}

/// From 3.8, after removing zero (broadcast) bases, the CGA bases must be a
/// permutation matrix: each moves one dim by one bit, no bit twice, and each
/// dim's bits are 1, 2, 4, … up to its size (in any order). 3.7's
/// `CGAEncodingAttr::verify` checks only the dim names (the 3.7.1 wheel's
/// Gluon builds `[[1, 1], [1, 0], [2, 0]]`).
fn check_cga(kind: &str, cga: &Option<Cga>, rank: usize, version: Release) -> Result<()> {
    match cga {
        Some(Cga::Bases(bases)) => {
            let bad = || {
                invalid(
                    kind,
                    "After removing broadcast bases the CGA encoding must be a permutation matrix",
                )
            };
            let mut bits: Vec<Vec<u32>> = vec![Vec::new(); rank];
            for b in bases {
                if b.len() != rank {
                    return Err(invalid(
                        kind,
                        format!("CGALayout bases must have {rank} components"),
                    ));
                }
            }
            if !version.verifies_cga_as_permutation() {
                return cga_bases_surjective(cga, rank, version);
            }
            for b in bases {
                let nonzero: Vec<usize> = (0..rank).filter(|&d| b[d] != 0).collect();
                match nonzero.as_slice() {
                    [] => {}
                    [d] if b[*d].is_power_of_two()
                        && !bits[*d].contains(&b[*d].trailing_zeros()) =>
                    {
                        bits[*d].push(b[*d].trailing_zeros())
                    }
                    _ => return Err(bad()),
                }
            }
            for dim_bits in &mut bits {
                dim_bits.sort_unstable();
                if dim_bits.iter().enumerate().any(|(i, &b)| b != i as u32) {
                    return Err(bad());
                }
            }
            Ok(())
        }
        Some(Cga::Split {
            ctas_per_cga,
            cta_split_num,
            cta_order,
        }) => {
            if ctas_per_cga.len() != rank
                || cta_split_num.len() != rank
                || !is_permutation(cta_order)
                || cta_order.len() != rank
            {
                return Err(invalid(
                    kind,
                    "CTAsPerCGA, CTASplitNum and CTAOrder must match the rank",
                ));
            }
            Ok(())
        }
        None => Ok(()),
    }
}

/// Whether a layout's nonzero bases are distinct single bits (after dropping
/// zero bases, a permutation matrix).
fn is_permutation_matrix(bases: &[(linear_layout::Dim, Vec<Vec<u64>>)]) -> bool {
    let mut seen: Vec<(usize, u64)> = Vec::new();
    for (_, vectors) in bases {
        for v in vectors {
            let nonzero: Vec<usize> = (0..v.len()).filter(|&d| v[d] != 0).collect();
            match nonzero.as_slice() {
                [] => {}
                [d] if v[*d].is_power_of_two() && !seen.contains(&(*d, v[*d])) => {
                    seen.push((*d, v[*d]))
                }
                _ => return false,
            }
        }
    }
    true
}

/// Whether the nonzero bases alone make an invertible layout (out-dim sizes
/// inferred from them), as 3.6 and 3.7 require of `#ttg.linear`.
fn bijective_without_zero_bases(bases: &[(linear_layout::Dim, Vec<Vec<u64>>)]) -> bool {
    let nonzero: Vec<(linear_layout::Dim, Vec<Vec<u64>>)> = bases
        .iter()
        .map(|(d, vectors)| {
            let kept = vectors.iter().filter(|v| v.iter().any(|&c| c != 0));
            (*d, kept.cloned().collect())
        })
        .collect();
    linear_layout::format::ttgir::layout_from_standard_bases(&nonzero)
        .is_ok_and(|l| l.is_invertible())
}

/// Whether a basis has at most one nonzero component.
fn moves_one_dim(basis: &[u64]) -> bool {
    basis.iter().filter(|&&c| c != 0).count() <= 1
}

/// `#ttg.linear`'s verifier: a permutation matrix once the zero bases are
/// dropped, from 3.8.0 (no release before has that check); up to 3.7 each
/// basis moves in at most one dim, and from 3.6 the nonzero bases must make
/// a bijection.
pub(crate) fn verify_linear(l: &Linear, version: Release) -> Result<()> {
    if version.verifies_linear_as_permutation() {
        if !is_permutation_matrix(&l.bases) {
            return Err(invalid(
                "linear",
                "LinearEncodingAttr requires a permutation matrix layout after removing broadcast bases",
            ));
        }
        return Ok(());
    }
    if !l
        .bases
        .iter()
        .all(|(_, vectors)| vectors.iter().all(|v| moves_one_dim(v)))
    {
        return Err(invalid(
            "linear",
            "In a distributed layout, each base must move in at most one dimension.",
        ));
    }
    // From 3.6 (the message is in the 3.6.0 wheel, not in 3.5.1's).
    if version.verifies_linear_bijection() && !bijective_without_zero_bases(&l.bases) {
        return Err(invalid(
            "linear",
            "After removing the zero bases the layout must be bijective",
        ));
    }
    Ok(())
}

/// `#ttg.generic_linear`'s verifier; the attribute exists from 3.8
/// (upstream #9765).
fn verify_generic_linear(l: &Linear, version: Release) -> Result<()> {
    if !version.has_generic_linear() {
        return Err(invalid(
            "generic_linear",
            format!(
                "unknown attribute `generic_linear` in dialect `ttg` (Triton {version} has no generic linear layouts)"
            ),
        ));
    }
    // Converting a register basis with several bits in one dim reaches
    // `llvm_unreachable` in 3.9 (Dialect.cpp).
    let registers = l
        .bases
        .iter()
        .filter(|(d, _)| *d == linear_layout::Dim::REGISTER);
    if registers
        .flat_map(|(_, v)| v)
        .flatten()
        .any(|&c| c != 0 && !c.is_power_of_two())
    {
        return Err(invalid(
            "generic_linear",
            "a register basis moves by more than one power of two (Triton 3.9 reaches llvm_unreachable)",
        ));
    }
    for (d, vectors) in &l.bases {
        if *d != linear_layout::Dim::WARP && !vectors.iter().all(|v| moves_one_dim(v)) {
            return Err(invalid(
                "generic_linear",
                format!(
                    "In a generic linear layout, register, lane, and block bases must move in at most one dimension. Swizzled bases found in '{d}'."
                ),
            ));
        }
    }
    Ok(())
}

/// Checks `attr` as `version`'s verifier would.
pub(crate) fn verify(attr: &Attr, version: Release) -> Result<()> {
    match attr {
        Attr::Blocked(b) => {
            let rank = b.order.len();
            if b.size_per_thread.len() != rank
                || b.threads_per_warp.len() != rank
                || b.warps_per_cta.len() != rank
            {
                return Err(invalid(
                    "blocked",
                    "sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same rank",
                ));
            }
            check_order("blocked", &b.order)?;
            if b.size_per_thread.iter().any(|s| !s.is_power_of_two()) {
                return Err(invalid(
                    "blocked",
                    "Every element in sizePerThread must be a power of two.",
                ));
            }
            if b.threads_per_warp
                .iter()
                .chain(&b.warps_per_cta)
                .any(|s| !s.is_power_of_two())
            {
                return Err(invalid(
                    "blocked",
                    "threadsPerWarp and warpsPerCTA must be powers of two",
                ));
            }
            check_cga("blocked", &b.cga, rank, version)
        }
        Attr::Slice(s) => {
            verify(&s.parent, version)?;
            if s.parent.is_shared() {
                return Err(invalid("slice", "the parent must be a distributed layout"));
            }
            let rank = s.parent.rank().unwrap_or(0);
            if s.dim >= rank {
                return Err(invalid(
                    "slice",
                    format!(
                        "slice dim={} must be less than the parent rank={rank}",
                        s.dim
                    ),
                ));
            }
            Ok(())
        }
        Attr::NvidiaMma(m) => {
            match m.version_major {
                1 => {
                    return Err(invalid(
                        "nvidia_mma",
                        "Volta (versionMajor = 1) is deprecated and no longer supported",
                    ));
                }
                2 | 3 => {}
                v => {
                    return Err(invalid(
                        "nvidia_mma",
                        format!("versionMajor must be 2 (Ampere) or 3 (Hopper), got {v}"),
                    ));
                }
            }
            if m.warps_per_cta.iter().any(|w| !w.is_power_of_two()) {
                return Err(invalid("nvidia_mma", "warpsPerCTA must be powers of two"));
            }
            if !(2..=3).contains(&m.warps_per_cta.len()) {
                return Err(invalid("nvidia_mma", "an MMA layout is rank 2 or 3"));
            }
            check_cga("nvidia_mma", &m.cga, m.warps_per_cta.len(), version)
        }
        Attr::DotOperand(d) => {
            verify(&d.parent, version)?;
            if d.parent.rank().is_none_or(|r| !(2..=3).contains(&r)) {
                return Err(invalid("dot_op", "a dot operand is rank 2 or 3"));
            }
            if d.op_idx > 1 {
                return Err(invalid(
                    "dot_op",
                    format!(
                        "ttg.dot_op opIdx parameter can be 0 or 1, got: {}",
                        d.op_idx
                    ),
                ));
            }
            let k = d.k_width.unwrap_or(0);
            match d.parent.as_ref() {
                Attr::Blocked(_) if k != 0 => Err(invalid(
                    "dot_op",
                    "ttg.dot_op kWidth parameter is not supported when the parent is a blocked layout",
                )),
                Attr::Blocked(_) => Ok(()),
                // 3.2 requires kWidth = 0 for a Hopper parent (its operand A
                // is then read from registers by legacy code).
                Attr::NvidiaMma(m)
                    if version.has_hand_built_mma_layouts() && m.version_major == 3 =>
                {
                    if k != 0 {
                        return Err(invalid(
                            "dot_op",
                            "kWidth must be 0 for a Hopper (MMA v3) parent in Triton 3.2",
                        ));
                    }
                    Ok(())
                }
                Attr::NvidiaMma(m) => {
                    if k == 0 {
                        return Err(invalid(
                            "dot_op",
                            "ttg.dot_op kWidth parameter is mandatory for Ampere or Hopper MMA parent",
                        ));
                    }
                    if m.version_major == 3 && d.op_idx != 0 {
                        return Err(invalid(
                            "dot_op",
                            "ttg.dot_op opIdx parameter must be 0 for Hopper MMA parent, since Hopper WGMMA only allows first operand to be in registers",
                        ));
                    }
                    Ok(())
                }
                Attr::AmdMfma(_) if k == 0 => Err(invalid(
                    "dot_op",
                    "ttg.dot_op kWidth parameter is mandatory for MFMA parent",
                )),
                Attr::AmdMfma(_) => Ok(()),
                Attr::AmdWmma(w) if version.has_hand_built_mma_layouts() => match (w.version, k) {
                    (1, 16) | (2, 8) => Ok(()),
                    _ => Err(invalid(
                        "dot_op",
                        "Triton 3.2 requires kWidth 16 for WMMA v1 and 8 for WMMA v2 parents",
                    )),
                },
                Attr::AmdWmma(w) => match w.version {
                    1 if k != 8 && k != 16 => Err(invalid(
                        "dot_op",
                        "ttg.dot_op kWidth parameter must be 8/16 for WMMA v1 (including packed cases for `scaled_dot`)",
                    )),
                    2 if k != 4 && k != 8 && k != 16 => Err(invalid(
                        "dot_op",
                        "ttg.dot_op kWidth parameter must be 4/8/16 for WMMA v2 (including packed cases for `scaled_dot`)",
                    )),
                    3 if k == 0 => Err(invalid(
                        "dot_op",
                        "ttg.dot_op kWidth parameter is mandatory for WMMA v3",
                    )),
                    _ => Ok(()),
                },
                other => Err(invalid(
                    "dot_op",
                    format!("a `{}` parent has no dot operands", other.kind()),
                )),
            }
        }
        Attr::AmdMfma(m) => {
            if m.version > 4 {
                return Err(invalid("amd_mfma", "version must be in the [0, 4] range"));
            }
            let (md, nd) = (
                m.instr_shape.first().copied().unwrap_or(0),
                m.instr_shape.get(1).copied().unwrap_or(0),
            );
            if !matches!((md, nd), (32, 32) | (16, 16) | (64, 4) | (4, 64)) {
                return Err(invalid(
                    "amd_mfma",
                    format!("invalid (mDim, nDim) combination: ({md}, {nd})"),
                ));
            }
            if let Some(e) = m.element_bit_width {
                if e != 32 && e != 64 {
                    return Err(invalid("amd_mfma", "elementBitWidth must be 32 or 64"));
                }
            }
            check_cga("amd_mfma", &m.cga, m.warps_per_cta.len(), version)
        }
        Attr::AmdWmma(w) => {
            let instr = w.instr_shape.clone().unwrap_or_else(|| vec![16, 16, 16]);
            let ok = match w.version {
                1 => instr == [16, 16, 16],
                2 => instr == [16, 16, 16] || instr == [16, 16, 32],
                3 => matches!(
                    instr.as_slice(),
                    [16, 16, 4] | [16, 16, 32] | [16, 16, 64] | [16, 16, 128]
                ),
                _ => false,
            };
            if !ok {
                return Err(invalid(
                    "amd_wmma",
                    format!("invalid WMMA v{} instruction shape", w.version),
                ));
            }
            check_cga("amd_wmma", &w.cga, attr.rank().unwrap_or(2), version)
        }
        Attr::Linear(l) if l.generic => verify_generic_linear(l, version),
        Attr::Linear(l) => verify_linear(l, version),
        Attr::SwizzledShared(s) => {
            check_order(
                if s.has_leading_offset.is_some() {
                    "shared"
                } else {
                    "swizzled_shared"
                },
                &s.order,
            )?;
            check_cga("swizzled_shared", &s.cga, s.order.len(), version)
        }
        Attr::NvmmaShared(n) => {
            if !matches!(n.swizzling_byte_width, 0 | 32 | 64 | 128) {
                return Err(invalid(
                    "nvmma_shared",
                    "swizzlingByteWidth must be 0, 32, 64, or 128",
                ));
            }
            // 3.7 takes the rank from `rank = N` or else 2, and checks the
            // CGA bases against it; 3.8 infers it from the CGA bases.
            if version.reads_nvmma_rank_field() {
                let rank = n.rank.unwrap_or(2);
                if let Some(Cga::Bases(bases)) = &n.cga {
                    if bases.iter().any(|b| b.len() as u64 != rank) {
                        return Err(invalid(
                            "nvmma_shared",
                            format!("'CGALayout' entry length does not match rank {rank}"),
                        ));
                    }
                }
            }
            check_cga("nvmma_shared", &n.cga, attr.rank().unwrap_or(2), version)
        }
        Attr::SharedLinear(_) | Attr::Other { .. } => Ok(()),
    }
}
