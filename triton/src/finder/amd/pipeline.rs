//! The loop of a pattern as AMD's stream pipeliner sees it: its `tt.dot`s
//! and the loads the pipeliner may stage (`loadOpsToIndirectionLevel`, the
//! common code in `lib/Dialect/TritonGPU/Transforms/Pipeliner/
//! AssignLatencies.cpp`): every load in the loop body's backward slice of a
//! dot's A or B operand (never the accumulator), at its distance from the
//! dot (0: it feeds the dot through ops that are no loads).

use crate::finder::config::{Arch, Config, Dtype, Pattern};
use crate::finder::decisions::coalesced_load_over;

/// A load in a pipelined loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LoopLoad {
    /// What it loads (`the K tile`).
    pub what: &'static str,
    /// The bits a thread loads contiguously: the pointers' contiguity per
    /// thread times the element width (`canBeConvertedToAsyncLoad`).
    pub width_bits: u64,
    /// Its distance to the dot it feeds (0 for a load whose value reaches
    /// the dot through ops that are no loads; 1 for a load whose value
    /// addresses such a load).
    pub distance: u64,
    /// Whether every user converts it to a dot operand's encoding, so that
    /// the pipeliner can deduce a shared encoding for it
    /// (`getSharedEncIfAllUsersAreDotEnc`).
    pub dot_operand_only: bool,
    /// Whether it is a `tt.descriptor_load` (a tensor descriptor's load,
    /// which the pipeliner always selects), not a `tt.load` of pointers.
    pub descriptor: bool,
}

/// A loop the stream pipeliner meets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Loop {
    /// The target.
    pub arch: Arch,
    /// The loop's `num_stages` (the kernel's, or `tl.range`'s).
    pub num_stages: u64,
    /// The `tt.dot`s in the loop body.
    pub dots: u64,
    /// Whether the first dot's result reaches the second (attention).
    pub chained: bool,
    /// The loads in the backward slices of the dots' A and B operands.
    pub loads: Vec<LoopLoad>,
}

/// The bits a thread of the coalesced load of `shape` (contiguous along
/// `contig`) reads contiguously: its elements along that dim (the
/// pattern's pointers are 16-byte aligned and contiguous there).
fn width(shape: &[u64], contig: usize, dtype_bits: u64, cfg: &Config) -> u64 {
    let blocked = coalesced_load_over(
        shape,
        contig,
        dtype_bits,
        cfg.num_warps,
        cfg.arch.warp_size(),
    );
    blocked.size_per_thread.get(contig).copied().unwrap_or(1) * dtype_bits
}

/// The pattern's loop, if it has one.
///
/// A tile loaded for a dot is a pure dot operand (every user a conversion
/// to its operand layout) unless the dot runs on FMA: the 16-bit operands
/// are then cast to fp32 between the load and the dot
/// ([`super::target::DotUnit::Fma`]).
pub(crate) fn pattern_loop(cfg: &Config) -> Option<Loop> {
    let bits = cfg.dtype.bits();
    let on_matrix_cores = !(matches!(cfg.dtype, Dtype::Fp16 | Dtype::Bf16)
        && super::target::dot_unit_16_bit(cfg.arch, cfg.triton)
            == Some(super::target::DotUnit::Fma));
    let loads = match cfg.pattern {
        // The rank-3 lhs `[1, M, K]` (contiguous along K) and rhs `[N, 1, K]`
        // (contiguous along N), reshaped (and the rhs transposed) into the
        // dot's operands.
        Pattern::Inductor3d => vec![
            LoopLoad {
                what: "the lhs tile",
                width_bits: width(&[1, cfg.m, cfg.k], 2, bits, cfg),
                distance: 0,
                dot_operand_only: on_matrix_cores,
                descriptor: false,
            },
            LoopLoad {
                what: "the rhs tile",
                width_bits: width(&[cfg.n, 1, cfg.k], 0, bits, cfg),
                distance: 0,
                dot_operand_only: on_matrix_cores,
                descriptor: false,
            },
        ],
        Pattern::Attention | Pattern::AttentionBias => {
            // K's tile `[K, N]` runs contiguously along the head dim (dim 0),
            // V's `[N, K]` along it too (dim 1).
            let mut loads = vec![
                LoopLoad {
                    what: "the K tile",
                    width_bits: width(&[cfg.k, cfg.n], 0, bits, cfg),
                    distance: 0,
                    dot_operand_only: on_matrix_cores,
                    descriptor: false,
                },
                LoopLoad {
                    what: "the V tile",
                    width_bits: width(&[cfg.n, cfg.k], 1, bits, cfg),
                    distance: 0,
                    dot_operand_only: on_matrix_cores,
                    descriptor: false,
                },
            ];
            if cfg.pattern == Pattern::AttentionBias {
                // fp32 whatever the operands' type; it reaches P, the second
                // dot's operand A, through the softmax.
                loads.push(LoopLoad {
                    what: "the key bias",
                    width_bits: width(&[cfg.n], 0, Dtype::Fp32.bits(), cfg),
                    distance: 0,
                    dot_operand_only: false,
                    descriptor: false,
                });
            }
            loads
        }
        // Both tiles through tensor descriptors: `tt.descriptor_load`s
        // where the target keeps descriptors (gfx1250 from 3.7), pointer
        // loads of 16-byte-aligned rows elsewhere (the descriptors are
        // rewritten to pointers before the TTGIR passes).
        Pattern::DescDot => {
            let descriptor = super::target::keeps_tensor_descriptors(cfg.arch, cfg.triton);
            vec![
                LoopLoad {
                    what: "the A tile",
                    width_bits: width(&[cfg.m, cfg.k], 1, bits, cfg),
                    distance: 0,
                    dot_operand_only: on_matrix_cores,
                    descriptor,
                },
                LoopLoad {
                    what: "the B tile",
                    width_bits: width(&[cfg.k, cfg.n], 1, bits, cfg),
                    distance: 0,
                    dot_operand_only: on_matrix_cores,
                    descriptor,
                },
            ]
        }
        _ => return None,
    };
    Some(Loop {
        arch: cfg.arch,
        num_stages: cfg.num_stages,
        dots: cfg.pattern.dots(),
        chained: cfg.pattern.is_attention(),
        loads,
    })
}
