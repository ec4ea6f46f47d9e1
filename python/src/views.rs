//! The printed views of Triton's binding: `get_matrix_view` (the bit
//! matrix), `get_distributed_view` and `get_shared_view` (which thread or
//! shared-memory offset holds each tensor element, Triton's
//! `getDistributedLayoutStr` / `getSharedLayoutStr`), character for
//! character.
//!
//! Triton aborts (or reads past a vector) when the layout lacks the in-dims
//! a view enumerates; those inputs raise `LayoutError` here. The views
//! enumerate every input and every element, so they are refused above
//! [`MAX_VIEW_BITS`] bits on either side, where Triton would build strings
//! of gigabytes.

use crate::errors::{from_crate, guard_infallible, layout_error};
use crate::layout::PyLayout;
use linear_layout::{Dim, DimList, LayoutError, LinearLayout, Side};
use pyo3::prelude::*;
use std::fmt::Write;

/// The most input bits, and separately tensor (output) bits, a view prints.
pub(crate) const MAX_VIEW_BITS: u32 = 24;

#[pymethods]
impl PyLayout {
    /// The bit matrix over GF(2): row ``i`` is output bit ``i``, column ``j``
    /// input bit ``j`` (dims in order, the first one's bits lowest).
    ///
    /// >>> LinearLayout.identity_1d(4, "lane", "dim0").get_matrix_view()
    /// [[1, 0], [0, 1]]
    fn get_matrix_view(&self) -> PyResult<Vec<Vec<i32>>> {
        guard_infallible(|| matrix(&self.inner))
    }

    /// Which thread and register hold each tensor element (Triton's
    /// ``getDistributedLayoutStr``). The layout's in-dims must be exactly
    /// ``register``, ``lane``, ``warp`` and ``block``.
    ///
    /// With ``use_hw_point_of_view=False``, the tensor is printed row by row
    /// and each element shows ``T<thread>:<register>`` (thread = lane +
    /// warp * lanes-per-warp, with ``B<block>:`` in front when there are
    /// several blocks); otherwise each warp lists, register by register, the
    /// element every lane holds.
    #[pyo3(signature = (use_hw_point_of_view, /))]
    fn get_distributed_view(&self, use_hw_point_of_view: bool) -> PyResult<String> {
        guard_infallible(|| distributed(&self.inner, use_hw_point_of_view))?
    }

    /// Which shared-memory offset holds each tensor element (Triton's
    /// ``getSharedLayoutStr``). The layout's in-dims must be exactly
    /// ``offset`` and ``block``.
    ///
    /// With ``use_hw_point_of_view=False`` the tensor is printed row by row;
    /// otherwise each block lists, offset by offset, the element stored
    /// there.
    #[pyo3(signature = (use_hw_point_of_view, /))]
    fn get_shared_view(&self, use_hw_point_of_view: bool) -> PyResult<String> {
        guard_infallible(|| shared(&self.inner, use_hw_point_of_view))?
    }
}

/// Rows are output bits, columns input bits.
fn matrix(l: &LinearLayout) -> Vec<Vec<i32>> {
    let cols: Vec<u64> = (0..l.total_in_bits())
        .map(|j| l.apply_flat(1 << j))
        .collect();
    (0..l.total_out_bits())
        .map(|i| cols.iter().map(|&c| (c >> i & 1) as i32).collect())
        .collect()
}

/// Where one in-dim's value goes in a flat input, and its size.
#[derive(Clone, Copy)]
struct Field {
    shift: u32,
    bits: u32,
}

impl Field {
    fn size(self) -> u64 {
        1 << self.bits
    }

    /// `value` in place, keeping only the bits the in-dim has (as Triton's
    /// `apply` does).
    fn place(self, value: u64) -> u64 {
        (value & (self.size() - 1)) << self.shift
    }
}

/// The fields of the in-dims `wanted` (in that order): the first missing
/// one is an `unknown_dim` error, as Triton's `getInDimSize` asserts.
fn fields<const N: usize>(
    l: &LinearLayout,
    op: &'static str,
    wanted: [Dim; N],
) -> Result<[Field; N], LayoutError> {
    let mut out = [Field { shift: 0, bits: 0 }; N];
    for (slot, d) in out.iter_mut().zip(wanted) {
        let mut shift = 0;
        let mut found = None;
        for (name, size) in l.in_dims() {
            let bits = size.trailing_zeros();
            if name == d {
                found = Some(Field { shift, bits });
            }
            shift += bits;
        }
        *slot = found.ok_or_else(|| LayoutError::UnknownDim {
            op,
            side: Side::In,
            dim: d,
            available: DimList(l.in_dim_names().collect()),
        })?;
    }
    Ok(out)
}

/// Triton's `apply` asserts that the input names exactly the in-dims.
fn exactly(l: &LinearLayout, op: &'static str, dims: &[Dim]) -> Result<(), LayoutError> {
    if l.num_in_dims() == dims.len() && dims.iter().all(|&d| l.has_in_dim(d)) {
        return Ok(());
    }
    Err(LayoutError::DimSetMismatch {
        op,
        what: "the in-dims the view enumerates and the layout's in-dims",
        left: DimList(dims.to_vec()),
        right: DimList(l.in_dim_names().collect()),
    })
}

/// At most [`MAX_VIEW_BITS`] bits of what a view enumerates.
fn limit(op: &'static str, what: &str, bits: u32) -> Result<(), LayoutError> {
    if bits <= MAX_VIEW_BITS {
        return Ok(());
    }
    Err(LayoutError::TooLarge {
        op,
        what: format!("the number of {what} to print"),
        value: 1 << bits.min(63),
        limit: 1 << MAX_VIEW_BITS,
    })
}

/// Triton reads the last out-dim of the shape; with none it aborts. (The
/// crate has no algebra error for this; the kind is the one a shape gets.)
fn no_out_dims(op: &str) -> PyErr {
    layout_error(
        "invalid_shape",
        format!(
            "{op}: the layout has no out-dims, and the view needs one (Triton reads past an empty shape)"
        ),
    )
}

/// The number of decimal digits of `v`.
fn digits(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Spaces to pad `value` to the width of `max` (none when it is wider).
fn pad(out: &mut String, value: u64, max: u64) {
    for _ in 0..digits(max).saturating_sub(digits(value)) {
        out.push(' ');
    }
}

/// The out-dim sizes and the packed output split into components.
struct Outs {
    sizes: Vec<u64>,
}

impl Outs {
    fn of(l: &LinearLayout) -> Self {
        Outs {
            sizes: l.out_dims().map(|(_, s)| s).collect(),
        }
    }

    fn components(&self, packed: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sizes.iter().scan(packed, |rest, &size| {
            let c = *rest & (size - 1);
            *rest >>= size.trailing_zeros();
            Some((c, size))
        })
    }

    /// Row-major index (the last out-dim fastest).
    fn linear(&self, packed: u64) -> usize {
        self.components(packed)
            .fold(0u64, |acc, (c, size)| acc * size + c) as usize
    }

    /// `(c0,c1,...)` with each component padded to its dim's size, joined
    /// with `sep`.
    fn tuple(&self, out: &mut String, packed: u64, sep: char) {
        out.push('(');
        for (i, (c, size)) in self.components(packed).enumerate() {
            if i > 0 {
                out.push(sep);
            }
            pad(out, c, size);
            let _ = write!(out, "{c}");
        }
        out.push(')');
    }

    fn total(&self) -> usize {
        self.sizes.iter().product::<u64>() as usize
    }

    /// The tensor printed row by row, `cells` in row-major order, nested in
    /// brackets per dim, as Triton's two layout printers do.
    fn grid(&self, cells: &[String], sep: &str) -> String {
        let shape = &self.sizes;
        let rank = shape.len();
        let mut out = String::new();
        let mut new_line = true;
        // Row-major index digits of element `i`, kept incrementally.
        let mut index = vec![0u64; rank];
        for cell in cells {
            let open = index.iter().rev().take_while(|&&x| x == 0).count();
            out.extend(std::iter::repeat_n('[', open));
            if new_line {
                out.extend(std::iter::repeat_n(' ', rank - open));
                new_line = false;
            }
            out.push_str(cell);
            // Advance to the next element.
            for j in (0..rank).rev() {
                index[j] += 1;
                if index[j] < shape[j] {
                    break;
                }
                index[j] = 0;
            }
            let close = index.iter().rev().take_while(|&&x| x == 0).count();
            out.extend(std::iter::repeat_n(']', close));
            if index[rank - 1] == 0 {
                out.push('\n');
                new_line = true;
            } else {
                out.push_str(sep);
            }
        }
        out
    }
}

/// `getDistributedLayoutStr`.
fn distributed(l: &LinearLayout, hw: bool) -> PyResult<String> {
    const OP: &str = "get_distributed_view";
    let [lane, warp, block, register] =
        fields(l, OP, [Dim::LANE, Dim::WARP, Dim::BLOCK, Dim::REGISTER]).map_err(from_crate)?;
    exactly(l, OP, &[Dim::BLOCK, Dim::WARP, Dim::LANE, Dim::REGISTER]).map_err(from_crate)?;
    limit(OP, "inputs", l.total_in_bits()).map_err(from_crate)?;
    if !hw {
        limit(OP, "tensor elements", l.total_out_bits()).map_err(from_crate)?;
    }
    let outs = Outs::of(l);
    if !hw && outs.sizes.is_empty() {
        return Err(no_out_dims(OP));
    }
    let (lanes, warps, blocks, regs) = (lane.size(), warp.size(), block.size(), register.size());
    let threads = warps * lanes;
    let mut cells = vec![String::new(); if hw { 0 } else { outs.total() }];
    let mut text = String::new();
    for b in 0..blocks {
        if hw && blocks > 1 {
            let _ = writeln!(text, "Block{b}:");
        }
        for w in 0..warps {
            if hw {
                let _ = writeln!(text, "Warp{w}:");
                // Register by register, every lane.
                for r in 0..regs {
                    for t in 0..lanes {
                        let input =
                            block.place(b) | warp.place(w) | lane.place(t) | register.place(r);
                        outs.tuple(&mut text, l.apply_flat(input), ',');
                        if t + 1 < lanes {
                            text.push_str(", ");
                        }
                    }
                    text.push('\n');
                }
                continue;
            }
            for t in 0..lanes {
                for r in 0..regs {
                    let input = block.place(b) | warp.place(w) | lane.place(t) | register.place(r);
                    let cell = &mut cells[outs.linear(l.apply_flat(input))];
                    if !cell.is_empty() {
                        cell.push('|');
                    }
                    let thread = t + w * lanes;
                    let padding = digits(blocks) - digits(b) + digits(threads) - digits(thread)
                        + digits(regs)
                        - digits(r);
                    cell.extend(std::iter::repeat_n(' ', padding));
                    if blocks > 1 {
                        let _ = write!(cell, "B{b}:");
                    }
                    let _ = write!(cell, "T{thread}:{r}");
                }
            }
        }
    }
    Ok(if hw { text } else { outs.grid(&cells, ", ") })
}

/// `getSharedLayoutStr`.
fn shared(l: &LinearLayout, hw: bool) -> PyResult<String> {
    const OP: &str = "get_shared_view";
    let outs = Outs::of(l);
    if outs.sizes.is_empty() {
        return Err(no_out_dims(OP));
    }
    let [block] = fields(l, OP, [Dim::BLOCK]).map_err(from_crate)?;
    limit(OP, "tensor elements", l.total_out_bits()).map_err(from_crate)?;
    limit(OP, "blocks", block.bits).map_err(from_crate)?;
    let tensor = outs.total() as u64;
    let blocks = block.size();
    let per_block = tensor / blocks;
    // Triton's `apply` (and its dim check) runs once per offset: with no
    // offsets to print it never runs.
    let offset = if per_block > 0 {
        exactly(l, OP, &[Dim::BLOCK, Dim::OFFSET]).map_err(from_crate)?;
        fields(l, OP, [Dim::OFFSET]).map_err(from_crate)?[0]
    } else {
        Field { shift: 0, bits: 0 }
    };
    let mut text = String::new();
    let mut cells = Vec::new();
    for b in 0..blocks {
        if hw {
            let _ = writeln!(text, "Block: {b}:");
        }
        for o in 0..per_block {
            // Offsets past the in-dim's size wrap, as Triton's `apply` keeps
            // only the bits the dim has.
            let packed = l.apply_flat(block.place(b) | offset.place(o));
            if hw {
                let _ = write!(text, "Offset: {o} -> ");
                outs.tuple(&mut text, packed, ',');
                text.push('\n');
            } else {
                let mut cell = String::new();
                outs.tuple(&mut cell, packed, ':');
                cells.push(cell);
            }
        }
    }
    if hw {
        return Ok(text);
    }
    // The i-th element printed is the i-th (block, offset) enumerated, not
    // the element at that position: Triton's printer does the same.
    cells.resize(outs.total(), String::new());
    Ok(outs.grid(&cells, ","))
}
