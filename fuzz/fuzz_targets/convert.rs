//! Layout attributes into every release's conversion.
//!
//! Half the inputs are structured: a small attribute (blocked, slice,
//! nvidia_mma, dot_op, amd_mfma, amd_wmma, linear, swizzled_shared,
//! nvmma_shared, shared_linear) with small parameters and a shape, printed
//! to TTGIR text in both dialect spellings, parsed back, and converted with
//! `to_linear_layout` for each of `Release::ALL`. The other half are
//! raw text for `parse_attr`, `Defs::from_module` and `check_ttgir`.
//!
//! Any `Err` or `NoLayout` is fine, a panic is a bug. A layout must have
//! out-dims `dim0..` sized by the shape, in-dims among Triton's hardware
//! dims, bases within range, a rank consistent with its queries, and cover
//! the whole tensor (be surjective). Printing a parsed attribute and parsing
//! that again gives the same text.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use linear_layout_triton::finder::check_ttgir;
use linear_layout_triton::attr::*;
use linear_layout_triton::print_attr;
use linear_layout_triton::{Conversion, Defs, Release, parse_attr, to_linear_layout};
use linear_layout::reference::gf2_rank;
use linear_layout::{Dim, LinearLayout, dim};

// --------------------------------------------------------------------------
// Structured attributes
// --------------------------------------------------------------------------

/// A small number: mostly a power of two up to 32, sometimes 0..16 raw.
#[derive(Arbitrary, Debug, Clone, Copy)]
struct Num(u8);

impl Num {
    fn get(self) -> u64 {
        if self.0 < 0xf0 {
            1 << (self.0 % 6)
        } else {
            (self.0 - 0xf0) as u64
        }
    }
}

/// One basis vector: a power of two along one dim, zero, or a raw value.
#[derive(Arbitrary, Debug, Clone, Copy)]
struct BasisSpec {
    dim: u8,
    value: u8,
}

#[derive(Arbitrary, Debug, Clone)]
enum CgaSpec {
    None,
    Split {
        ctas: Vec<Num>,
        split: Vec<Num>,
        order: Vec<u8>,
    },
    Bases(Vec<BasisSpec>),
}

#[derive(Arbitrary, Debug, Clone)]
enum AttrSpec {
    Blocked {
        spt: Vec<Num>,
        tpw: Vec<Num>,
        wpc: Vec<Num>,
        order: Vec<u8>,
        cga: CgaSpec,
    },
    Slice {
        dim: u8,
        parent: Box<AttrSpec>,
    },
    NvidiaMma {
        major: u8,
        minor: u8,
        wpc: Vec<Num>,
        cga: CgaSpec,
        instr: Vec<Num>,
    },
    DotOp {
        op_idx: u8,
        parent: Box<AttrSpec>,
        k_width: Option<Num>,
    },
    AmdMfma {
        version: u8,
        minor: Option<u8>,
        wpc: Vec<Num>,
        instr: Vec<Num>,
        transposed: bool,
        cga: CgaSpec,
        tiles: Option<Vec<Num>>,
        elem_bits: Option<u8>,
    },
    AmdWmma {
        version: u8,
        is_transpose: Option<bool>,
        wpc: Option<Vec<Num>>,
        register: Vec<BasisSpec>,
        warp: Option<Vec<BasisSpec>>,
        cga: CgaSpec,
        instr: Option<Vec<Num>>,
        rank: Option<u8>,
    },
    Linear {
        register: Vec<BasisSpec>,
        lane: Vec<BasisSpec>,
        warp: Vec<BasisSpec>,
        block: Vec<BasisSpec>,
        generic: bool,
    },
    SwizzledShared {
        vec: Num,
        per_phase: Num,
        max_phase: Num,
        order: Vec<u8>,
        cga: CgaSpec,
        leading_offset: Option<bool>,
    },
    NvmmaShared {
        swizzle: u8,
        transposed: bool,
        elem_bits: u8,
        fp4_padded: bool,
        cga: CgaSpec,
        rank: Option<u8>,
    },
    SharedLinear {
        offset: Vec<BasisSpec>,
        block: Vec<BasisSpec>,
        alignment: Num,
    },
}

#[derive(Arbitrary, Debug)]
struct Structured {
    /// Tensor rank 1..=3.
    rank: u8,
    /// Lists sized to the rank (otherwise as generated, which the verifiers
    /// must reject cleanly).
    exact: bool,
    attr: AttrSpec,
    /// `log2` of each shape dim (raw sizes when `raw_shape`).
    shape: Vec<u8>,
    raw_shape: bool,
    elem_bits: Option<u8>,
}

/// Builds attributes at a given rank.
struct Gen {
    exact: bool,
    depth: usize,
}

fn pick<T: Copy>(options: &[T], i: u8) -> T {
    options[i as usize % options.len()]
}

impl Gen {
    fn list(&self, v: &[Num], rank: usize) -> Vec<u64> {
        let mut out: Vec<u64> = v.iter().take(5).map(|n| n.get()).collect();
        if self.exact {
            out.resize(rank, 1);
        }
        out
    }

    fn order(&self, keys: &[u8], rank: usize) -> Vec<usize> {
        if !self.exact {
            return keys.iter().take(5).map(|&k| k as usize % 5).collect();
        }
        let mut v: Vec<(u8, usize)> = (0..rank)
            .map(|i| (keys.get(i).copied().unwrap_or(0), i))
            .collect();
        v.sort();
        v.into_iter().map(|x| x.1).collect()
    }

    fn basis(&self, b: BasisSpec, rank: usize) -> Vec<u64> {
        let len = if self.exact || rank == 0 {
            rank
        } else {
            rank + (b.dim as usize >> 6) % 2
        };
        let mut v = vec![0u64; len];
        if len == 0 {
            return v;
        }
        let k = b.dim as usize % len;
        v[k] = match b.value {
            0..=0xdf => 1 << (b.value % 6),
            0xe0..=0xef => (b.value - 0xe0) as u64,
            _ => 0,
        };
        v
    }

    fn bases(&self, v: &[BasisSpec], rank: usize) -> Vec<Vec<u64>> {
        v.iter().take(8).map(|&b| self.basis(b, rank)).collect()
    }

    fn cga(&self, c: &CgaSpec, rank: usize) -> Option<Cga> {
        match c {
            CgaSpec::None => None,
            CgaSpec::Split { ctas, split, order } => Some(Cga::Split {
                ctas_per_cga: self.list(ctas, rank),
                cta_split_num: self.list(split, rank),
                cta_order: self.order(order, rank),
            }),
            CgaSpec::Bases(b) => Some(Cga::Bases(self.bases(&b[..b.len().min(3)], rank))),
        }
    }

    fn attr(&mut self, spec: &AttrSpec, rank: usize) -> Attr {
        self.depth += 1;
        let deep = self.depth > 3;
        let a = match spec {
            AttrSpec::Slice { parent, .. } | AttrSpec::DotOp { parent, .. } if deep => {
                // Too deep: a plain blocked parent.
                let _ = parent;
                Attr::Blocked(Blocked {
                    size_per_thread: vec![1; rank],
                    threads_per_warp: vec![1; rank],
                    warps_per_cta: vec![1; rank],
                    order: (0..rank).rev().collect(),
                    cga: None,
                })
            }
            AttrSpec::Blocked {
                spt,
                tpw,
                wpc,
                order,
                cga,
            } => Attr::Blocked(Blocked {
                size_per_thread: self.list(spt, rank),
                threads_per_warp: self.list(tpw, rank),
                warps_per_cta: self.list(wpc, rank),
                order: self.order(order, rank),
                cga: self.cga(cga, rank),
            }),
            AttrSpec::Slice { dim, parent } => {
                let parent_rank = rank + 1;
                let d = if self.exact {
                    *dim as usize % parent_rank
                } else {
                    *dim as usize % 5
                };
                Attr::Slice(Slice {
                    dim: d,
                    parent: std::sync::Arc::new(self.attr(parent, parent_rank)),
                })
            }
            AttrSpec::NvidiaMma {
                major,
                minor,
                wpc,
                cga,
                instr,
            } => {
                let version_major = pick(&[2, 3, 1, 2, 3, 5], *major);
                let instr_shape = if self.exact {
                    match version_major {
                        3 => {
                            let n = 8 * (1 + (instr.first().map_or(0, |n| n.0) as u64 % 32));
                            vec![16, n, pick(&[8, 16, 32], instr.get(1).map_or(0, |n| n.0))]
                        }
                        _ if rank == 3 => vec![1, 16, 8],
                        _ => vec![16, 8],
                    }
                } else {
                    self.list(instr, 0)
                };
                Attr::NvidiaMma(NvidiaMma {
                    version_major,
                    version_minor: *minor as u64 % 2,
                    warps_per_cta: self.list(wpc, rank),
                    cga: self.cga(cga, rank),
                    instr_shape,
                })
            }
            AttrSpec::DotOp {
                op_idx,
                parent,
                k_width,
            } => Attr::DotOperand(DotOperand {
                op_idx: if self.exact {
                    *op_idx as u64 % 2
                } else {
                    *op_idx as u64 % 3
                },
                parent: std::sync::Arc::new(self.attr(parent, rank)),
                k_width: k_width.map(Num::get),
            }),
            AttrSpec::AmdMfma {
                version,
                minor,
                wpc,
                instr,
                transposed,
                cga,
                tiles,
                elem_bits,
            } => {
                let instr_shape = if self.exact {
                    let mn = pick(&[32, 16, 4, 64], instr.first().map_or(0, |n| n.0));
                    let k = pick(&[8, 16, 32, 64, 4], instr.get(1).map_or(0, |n| n.0));
                    if minor.is_some() {
                        vec![mn, mn]
                    } else {
                        vec![mn, mn, k]
                    }
                } else {
                    self.list(instr, 0)
                };
                Attr::AmdMfma(AmdMfma {
                    version: pick(&[3, 2, 4, 1, 0, 5], *version),
                    version_minor: minor.map(|m| m as u64 % 2),
                    warps_per_cta: self.list(wpc, rank),
                    instr_shape,
                    is_transposed: *transposed,
                    cga: self.cga(cga, rank),
                    tiles_per_warp: tiles.as_ref().map(|t| self.list(t, rank)),
                    element_bit_width: elem_bits.map(|e| pick(&[32, 64, 16, 8], e)),
                })
            }
            AttrSpec::AmdWmma {
                version,
                is_transpose,
                wpc,
                register,
                warp,
                cga,
                instr,
                rank: r,
            } => Attr::AmdWmma(AmdWmma {
                version: pick(&[1, 2, 3, 0, 4], *version),
                is_transpose: *is_transpose,
                warps_per_cta: wpc.as_ref().map(|w| self.list(w, rank)),
                cta_register: self.bases(register, rank),
                cta_warp: warp.as_ref().map(|w| self.bases(w, rank)),
                cga: self.cga(cga, rank),
                instr_shape: instr.as_ref().map(|i| {
                    if self.exact {
                        vec![
                            16,
                            16,
                            pick(&[16, 32, 64, 128], i.first().map_or(0, |n| n.0)),
                        ]
                    } else {
                        self.list(i, 0)
                    }
                }),
                rank: r.map(|x| {
                    if self.exact {
                        rank as u64
                    } else {
                        x as u64 % 5
                    }
                }),
            }),
            AttrSpec::Linear {
                register,
                lane,
                warp,
                block,
                generic,
            } => Attr::Linear(Linear {
                bases: vec![
                    (dim("register"), self.bases(register, rank)),
                    (dim("lane"), self.bases(lane, rank)),
                    (dim("warp"), self.bases(warp, rank)),
                    (dim("block"), self.bases(&block[..block.len().min(2)], rank)),
                ],
                generic: *generic,
            }),
            AttrSpec::SwizzledShared {
                vec,
                per_phase,
                max_phase,
                order,
                cga,
                leading_offset,
            } => Attr::SwizzledShared(SwizzledShared {
                vec: vec.get(),
                per_phase: per_phase.get(),
                max_phase: max_phase.get(),
                order: self.order(order, rank),
                cga: self.cga(cga, rank),
                has_leading_offset: *leading_offset,
            }),
            AttrSpec::NvmmaShared {
                swizzle,
                transposed,
                elem_bits,
                fp4_padded,
                cga,
                rank: r,
            } => Attr::NvmmaShared(NvmmaShared {
                swizzling_byte_width: pick(&[0, 32, 64, 128, 16, 256], *swizzle),
                transposed: *transposed,
                element_bit_width: pick(&[16, 8, 32, 4, 64, 0], *elem_bits),
                fp4_padded: *fp4_padded,
                cga: self.cga(cga, rank),
                rank: r.map(|x| {
                    if self.exact {
                        rank as u64
                    } else {
                        x as u64 % 5
                    }
                }),
            }),
            AttrSpec::SharedLinear {
                offset,
                block,
                alignment,
            } => Attr::SharedLinear(SharedLinear {
                offset: self.bases(offset, rank),
                block: self.bases(&block[..block.len().min(2)], rank),
                alignment: alignment.get() * 16,
            }),
        };
        self.depth -= 1;
        a
    }
}

// --------------------------------------------------------------------------
// Checks
// --------------------------------------------------------------------------

const HARDWARE_DIMS: [&str; 5] = ["register", "lane", "warp", "block", "offset"];

fn check_layout(attr: &Attr, shape: &[u64], version: Release, l: &LinearLayout) {
    let context = || format!("{attr:?} on {shape:?} in {version}:\n{l:?}");
    let outs: Vec<(Dim, u64)> = l.out_dims().collect();
    let want: Vec<(Dim, u64)> = shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (Dim::standard(i), s))
        .collect();
    assert_eq!(
        outs,
        want,
        "out-dims are dim0.. sized by the shape: {}",
        context()
    );
    for d in l.in_dim_names() {
        assert!(
            HARDWARE_DIMS.contains(&d.name()),
            "in-dim {d:?}: {}",
            context()
        );
    }
    let mut flat = Vec::new();
    for (d, vecs) in l.bases() {
        for v in vecs {
            assert_eq!(v.len(), outs.len());
            let mut packed = 0u128;
            let mut shift = 0;
            for (&c, &(od, size)) in v.iter().zip(&outs) {
                assert!(
                    c < size,
                    "{d:?} basis component {c} on {od:?}: {}",
                    context()
                );
                packed |= (c as u128) << shift;
                shift += size.trailing_zeros();
            }
            flat.push(packed);
        }
    }
    let rank = gf2_rank(flat);
    assert_eq!(l.rank(), rank, "rank: {}", context());
    assert_eq!(
        l.is_surjective(),
        rank == l.total_out_bits(),
        "{}",
        context()
    );
    assert!(
        l.is_surjective(),
        "the layout misses tensor elements: {}",
        context()
    );
}

/// Every release's conversion of `attr`; the layouts where there are some.
fn convert_all(attr: &Attr, shape: &[u64], elem_bits: Option<u64>) -> Vec<Option<LinearLayout>> {
    Release::ALL
        .iter()
        .map(|&v| match to_linear_layout(attr, shape, v, elem_bits) {
            Ok(Conversion::Layout(l)) => {
                check_layout(attr, shape, v, &l);
                Some(l)
            }
            Ok(Conversion::NoLayout(reason)) => {
                assert!(!reason.is_empty());
                None
            }
            Err(e) => {
                let _ = (e.kind(), e.to_string());
                None
            }
        })
        .collect()
}

/// Printing a parsed attribute and parsing that gives the same text.
fn check_reprint(attr: &Attr) {
    for dialect in ["ttg", "triton_gpu"] {
        let text = print_attr(attr, dialect);
        let again = parse_attr(&text, &Defs::new())
            .unwrap_or_else(|e| panic!("printed attribute does not parse: {e}\n{text}"));
        assert_eq!(print_attr(&again, dialect), text, "print ∘ parse ∘ print");
    }
}

fn structured(s: &Structured) {
    let rank = 1 + s.rank as usize % 3;
    let mut g = Gen {
        exact: s.exact,
        depth: 0,
    };
    let attr = g.attr(&s.attr, rank);
    let shape: Vec<u64> = if s.raw_shape {
        s.shape.iter().take(5).map(|&v| v as u64).collect()
    } else {
        let mut v: Vec<u64> = s
            .shape
            .iter()
            .take(rank)
            .map(|&b| 1u64 << (b % 8))
            .collect();
        v.resize(rank, 16);
        v
    };
    let elem_bits = s.elem_bits.map(|e| pick(&[16, 8, 32, 4, 64, 0, 7], e));

    if std::env::var_os("FUZZ_DEBUG").is_some() {
        eprintln!(
            "attr: {}\nshape: {shape:?}\nelem_bits: {elem_bits:?}",
            print_attr(&attr, "ttg")
        );
    }
    let direct = convert_all(&attr, &shape, elem_bits);
    for dialect in ["ttg", "triton_gpu"] {
        let text = print_attr(&attr, dialect);
        let parsed = match parse_attr(&text, &Defs::new()) {
            Ok(p) => p,
            Err(e) => panic!("printed attribute does not parse: {e}\n{text}"),
        };
        assert_eq!(print_attr(&parsed, dialect), text, "print ∘ parse ∘ print");
        let via_text = convert_all(&parsed, &shape, elem_bits);
        if parsed == attr {
            assert_eq!(via_text, direct, "the same attribute converts the same");
        }
    }
}

fn raw(text: &str, shape_seed: u8) {
    let shapes = |rank: usize| -> Vec<Vec<u64>> {
        vec![
            vec![16; rank],
            (0..rank)
                .map(|i| 1u64 << ((shape_seed as usize >> i) % 8))
                .collect(),
        ]
    };
    if let Ok(attr) = parse_attr(text, &Defs::new()) {
        check_reprint(&attr);
        let rank = attr.rank().unwrap_or(2).min(6);
        for shape in shapes(rank) {
            convert_all(&attr, &shape, Some(16));
        }
    }
    if let Ok(defs) = Defs::from_module(text) {
        for (_, attr) in defs.iter().take(4) {
            check_reprint(attr);
            let rank = attr.rank().unwrap_or(2).min(6);
            convert_all(attr, &shapes(rank)[1], None);
        }
        for v in Release::ALL {
            let _ = check_ttgir::check(text, v);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    if first & 1 == 1 {
        if let Ok(text) = std::str::from_utf8(rest) {
            raw(text, first >> 1);
        }
    } else if let Ok(s) = Structured::arbitrary_take_rest(Unstructured::new(rest)) {
        structured(&s);
    }
});
