//! Printing attributes in TTGIR syntax, as Triton prints them.

use super::attr::*;
use std::fmt::Write;

fn list(v: &[u64]) -> String {
    let items: Vec<String> = v.iter().map(u64::to_string).collect();
    format!("[{}]", items.join(", "))
}

fn index_list(v: &[usize]) -> String {
    let items: Vec<String> = v.iter().map(usize::to_string).collect();
    format!("[{}]", items.join(", "))
}

fn bases(v: &[Vec<u64>]) -> String {
    let items: Vec<String> = v.iter().map(|b| list(b)).collect();
    format!("[{}]", items.join(", "))
}

fn cga(out: &mut String, cga: &Option<Cga>) {
    match cga {
        None => {}
        Some(Cga::Split {
            ctas_per_cga,
            cta_split_num,
            cta_order,
        }) => {
            let _ = write!(
                out,
                ", CTAsPerCGA = {}, CTASplitNum = {}, CTAOrder = {}",
                list(ctas_per_cga),
                list(cta_split_num),
                index_list(cta_order)
            );
        }
        Some(Cga::Bases(b)) if b.is_empty() => {}
        Some(Cga::Bases(b)) => {
            let _ = write!(out, ", CGALayout = {}", bases(b));
        }
    }
}

/// Prints `attr` with the given dialect prefix (`ttg` or `triton_gpu`),
/// nested attributes inline.
pub fn print_attr(attr: &Attr, dialect: &str) -> String {
    let mut s = String::new();
    match attr {
        Attr::Blocked(b) => {
            let _ = write!(
                s,
                "#{dialect}.blocked<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}",
                list(&b.size_per_thread),
                list(&b.threads_per_warp),
                list(&b.warps_per_cta),
                index_list(&b.order)
            );
            cga(&mut s, &b.cga);
            s.push_str("}>");
        }
        Attr::Slice(sl) => {
            let _ = write!(
                s,
                "#{dialect}.slice<{{dim = {}, parent = {}}}>",
                sl.dim,
                print_attr(&sl.parent, dialect)
            );
        }
        Attr::NvidiaMma(m) => {
            let _ = write!(
                s,
                "#{dialect}.nvidia_mma<{{versionMajor = {}, versionMinor = {}, warpsPerCTA = {}",
                m.version_major,
                m.version_minor,
                list(&m.warps_per_cta)
            );
            cga(&mut s, &m.cga);
            let _ = write!(s, ", instrShape = {}}}>", list(&m.instr_shape));
        }
        Attr::DotOperand(d) => {
            let _ = write!(
                s,
                "#{dialect}.dot_op<{{opIdx = {}, parent = {}",
                d.op_idx,
                print_attr(&d.parent, dialect)
            );
            if let Some(k) = d.k_width.filter(|&k| k != 0) {
                let _ = write!(s, ", kWidth = {k}");
            }
            s.push_str("}>");
        }
        Attr::AmdMfma(m) => {
            match m.version_minor {
                Some(minor) => {
                    let _ = write!(
                        s,
                        "#{dialect}.amd_mfma<{{versionMajor = {}, versionMinor = {minor}",
                        m.version
                    );
                }
                None => {
                    let _ = write!(s, "#{dialect}.amd_mfma<{{version = {}", m.version);
                }
            }
            let _ = write!(
                s,
                ", warpsPerCTA = {}, instrShape = {}, isTransposed = {}",
                list(&m.warps_per_cta),
                list(&m.instr_shape),
                m.is_transposed
            );
            cga(&mut s, &m.cga);
            if let Some(t) = &m.tiles_per_warp {
                let _ = write!(s, ", tilesPerWarp = {}", list(t));
            }
            if let Some(e) = m.element_bit_width {
                let _ = write!(s, ", elementBitWidth = {e}");
            }
            s.push_str("}>");
        }
        Attr::AmdWmma(w) => {
            let _ = write!(s, "#{dialect}.amd_wmma<{{version = {}", w.version);
            if let Some(t) = w.is_transpose {
                let _ = write!(s, ", isTranspose = {t}");
            }
            if let Some(wpc) = &w.warps_per_cta {
                let _ = write!(s, ", warpsPerCTA = {}", list(wpc));
            }
            if !w.cta_register.is_empty() || w.cta_warp.is_some() {
                let mut parts = Vec::new();
                if !w.cta_register.is_empty() {
                    parts.push(format!("register = {}", bases(&w.cta_register)));
                }
                if let Some(warp) = &w.cta_warp {
                    parts.push(format!("warp = {}", bases(warp)));
                }
                let _ = write!(s, ", ctaLayout = {{{}}}", parts.join(", "));
            }
            cga(&mut s, &w.cga);
            if let Some(i) = &w.instr_shape {
                let _ = write!(s, ", instrShape = {}", list(i));
            }
            if let Some(r) = w.rank {
                let _ = write!(s, ", rank = {r}");
            }
            s.push_str("}>");
        }
        Attr::Linear(l) => {
            let kind = if l.generic {
                "generic_linear"
            } else {
                "linear"
            };
            let parts: Vec<String> = l
                .bases
                .iter()
                .map(|(d, b)| format!("{d} = {}", bases(b)))
                .collect();
            let _ = write!(s, "#{dialect}.{kind}<{{{}}}>", parts.join(", "));
        }
        Attr::SwizzledShared(sh) => {
            let kind = if sh.has_leading_offset.is_some() {
                "shared"
            } else {
                "swizzled_shared"
            };
            let _ = write!(
                s,
                "#{dialect}.{kind}<{{vec = {}, perPhase = {}, maxPhase = {}, order = {}",
                sh.vec,
                sh.per_phase,
                sh.max_phase,
                index_list(&sh.order)
            );
            cga(&mut s, &sh.cga);
            if let Some(lead) = sh.has_leading_offset {
                let _ = write!(s, ", hasLeadingOffset = {lead}");
            }
            s.push_str("}>");
        }
        Attr::NvmmaShared(n) => {
            let _ = write!(
                s,
                "#{dialect}.nvmma_shared<{{swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}",
                n.swizzling_byte_width, n.transposed, n.element_bit_width
            );
            if n.fp4_padded {
                s.push_str(", fp4Padded = true");
            }
            cga(&mut s, &n.cga);
            if let Some(r) = n.rank {
                let _ = write!(s, ", rank = {r}");
            }
            s.push_str("}>");
        }
        Attr::SharedLinear(sl) => {
            let _ = write!(
                s,
                "#{dialect}.shared_linear<{{offset = {}",
                bases(&sl.offset)
            );
            if !sl.block.is_empty() {
                let _ = write!(s, ", block = {}", bases(&sl.block));
            }
            let _ = write!(s, "}}, alignment = {}>", sl.alignment);
        }
        Attr::Other { text, .. } => s.push_str(text),
    }
    s
}

// ---- Attributes the crate reads without a model (`Attr::Other`, kept
// verbatim when parsed), printed for scripts that write them
// (`attr_json`).

/// How a `padded_shared` names its linear component.
pub(crate) enum PaddedForm {
    /// The identity walked in `order` over `shape`.
    Order {
        /// Dims from fastest- to slowest-varying.
        order: Vec<usize>,
        /// The buffer's shape, where the release names it.
        shape: Option<Vec<u64>>,
    },
    /// Explicit `offset` (and `block`) bases.
    Bases {
        /// One basis per offset bit.
        offset: Vec<Vec<u64>>,
        /// One basis per block bit.
        block: Vec<Vec<u64>>,
    },
}

/// `#dialect.padded_shared<[interval:+padding, ...] {...}>`.
pub(crate) fn padded_shared(dialect: &str, pairs: &[(u64, u64)], form: &PaddedForm) -> String {
    let pairs: Vec<String> = pairs.iter().map(|(i, p)| format!("{i}:+{p}")).collect();
    let body = match form {
        PaddedForm::Order { order, shape } => match shape {
            Some(shape) => format!("order = {}, shape = {}", index_list(order), list(shape)),
            None => format!("order = {}", index_list(order)),
        },
        PaddedForm::Bases { offset, block } => {
            format!("offset = {}, block = {}", bases(offset), bases(block))
        }
    };
    format!(
        "#{dialect}.padded_shared<[{}] {{{body}}}>",
        pairs.join(", ")
    )
}

/// `#dialect.partitioned_shared<{...}>` around an inner shared layout
/// (already printed).
pub(crate) fn partitioned_shared(
    dialect: &str,
    partitions: u64,
    groups: u64,
    dim: u64,
    inner: &str,
) -> String {
    format!(
        "#{dialect}.partitioned_shared<{{numPartitions = {partitions}, numGroups = {groups}, \
         partitionDim = {dim}, partitionLayout = {inner}}}>"
    )
}

/// `#nvidia_dialect.tensor_memory_encoding<...>`.
pub(crate) fn tensor_memory(
    dialect: &str,
    block_m: u64,
    block_n: u64,
    col_stride: u64,
    cga_: Option<&Cga>,
    two_ctas: bool,
    fp4_padded: bool,
) -> String {
    let mut s = format!(
        "#{dialect}.tensor_memory_encoding<blockM = {block_m}, blockN = {block_n}, colStride = {col_stride}"
    );
    cga(&mut s, &cga_.cloned());
    if two_ctas {
        s.push_str(", twoCTAs = true");
    }
    if fp4_padded {
        s.push_str(", fp4Padded = true");
    }
    s.push('>');
    s
}

/// `#nvidia_dialect.tensor_memory_scales_encoding<...>`: the CGA and a
/// block repetition order other than the default `mnThenK`.
pub(crate) fn tensor_memory_scales(
    dialect: &str,
    cga_: Option<&Cga>,
    block_rep_order: Option<&str>,
) -> String {
    let mut parts = String::new();
    cga(&mut parts, &cga_.cloned());
    let mut parts: Vec<String> = parts
        .strip_prefix(", ")
        .map(str::to_string)
        .into_iter()
        .collect();
    if let Some(order) = block_rep_order {
        parts.push(format!("blockRepOrder = {order}"));
    }
    format!(
        "#{dialect}.tensor_memory_scales_encoding<{}>",
        parts.join(", ")
    )
}
