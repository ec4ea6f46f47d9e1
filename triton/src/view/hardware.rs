//! Hardware side: which in-dims hold elements, and how a holder reads.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// register, lane, warp, block.
    Distributed,
    /// offset, block.
    Shared,
}

/// The in-dims, packed into one flat holder index in a fixed order
/// (register lowest, then lane, warp, block; or offset, then block), so
/// that the numerically lowest holder is the lowest block, warp, lane and
/// register, in that priority.
pub(super) struct Hw {
    pub(super) kind: Kind,
    /// (dim, first bit, bits).
    pub(super) fields: Vec<(Dim, u32, u32)>,
}

impl Hw {
    pub(super) fn read(l: &LinearLayout) -> Result<Hw, String> {
        let names: Vec<Dim> = l.in_dim_names().collect();
        if names.is_empty() {
            return Err(
                "the layout has no in-dims: no register, lane, warp or offset holds \
                        its elements, so there is nothing to draw"
                    .into(),
            );
        }
        let list = names
            .iter()
            .map(|d| d.name())
            .collect::<Vec<_>>()
            .join(", ");
        let distributed = [Dim::REGISTER, Dim::LANE, Dim::WARP, Dim::BLOCK];
        let shared = [Dim::OFFSET, Dim::BLOCK];
        let kind = if names.contains(&Dim::OFFSET) {
            Kind::Shared
        } else {
            Kind::Distributed
        };
        let order: &[Dim] = match kind {
            Kind::Shared => &shared,
            Kind::Distributed => &distributed,
        };
        if let Some(bad) = names.iter().find(|d| !order.contains(d)) {
            return Err(if kind == Kind::Shared && distributed.contains(bad) {
                format!(
                    "a shared-memory layout (offset, block) is drawn by offset, but this one's \
                     in-dims ({list}) also have {bad}; a picture shows either offset and block, \
                     or register, lane, warp and block"
                )
            } else {
                format!(
                    "the layout's in-dims ({list}) include `{bad}`, which is not a hardware dim; \
                     pictures show distributed layouts (register, lane, warp, block) and \
                     shared-memory ones (offset, block)"
                )
            });
        }
        let mut fields = Vec::new();
        let mut first = 0;
        for &d in order {
            if let Ok(bits) = l.in_dim_size_log2(d) {
                fields.push((d, first, bits));
                first += bits;
            }
        }
        Ok(Hw { kind, fields })
    }

    pub(super) fn bits_of(&self, d: Dim) -> u32 {
        self.fields.iter().find(|f| f.0 == d).map_or(0, |f| f.2)
    }

    pub(super) fn size(&self, d: Dim) -> u128 {
        1u128 << self.bits_of(d)
    }

    /// The value of in-dim `d` in the flat holder `x`.
    pub(super) fn get(&self, x: u64, d: Dim) -> u64 {
        match self.fields.iter().find(|f| f.0 == d) {
            Some(&(_, first, bits)) if bits > 0 => (x >> first) & low_mask(bits),
            _ => 0,
        }
    }

    pub(super) fn lanes(&self) -> u128 {
        self.size(Dim::LANE)
    }

    pub(super) fn thread(&self, x: u64) -> u128 {
        self.get(x, Dim::LANE) as u128 + self.lanes() * self.get(x, Dim::WARP) as u128
    }

    /// What a cell's colour tells apart: the warp, numbered across blocks.
    pub(super) fn group(&self, x: u64) -> u128 {
        self.get(x, Dim::BLOCK) as u128 * self.size(Dim::WARP) + self.get(x, Dim::WARP) as u128
    }

    pub(super) fn blocks(&self) -> bool {
        self.bits_of(Dim::BLOCK) > 0
    }

    /// The lines of a cell's label: `t33` over `r7` (with `b1` on top when
    /// there are several blocks), or the offset.
    pub(super) fn label_lines(&self, x: u64) -> Vec<String> {
        let mut lines = Vec::new();
        if self.blocks() {
            lines.push(format!("b{}", self.get(x, Dim::BLOCK)));
        }
        match self.kind {
            Kind::Distributed => {
                lines.push(format!("t{}", self.thread(x)));
                lines.push(format!("r{}", self.get(x, Dim::REGISTER)));
            }
            Kind::Shared => lines.push(self.get(x, Dim::OFFSET).to_string()),
        }
        lines
    }

    /// One line: `t33 r7`, `b1 t33 r7`, `140` or `b1 o140`.
    pub(super) fn compact(&self, x: u64) -> String {
        match self.kind {
            Kind::Distributed => self.label_lines(x).join(" "),
            Kind::Shared if self.blocks() => {
                format!("b{} o{}", self.get(x, Dim::BLOCK), self.get(x, Dim::OFFSET))
            }
            Kind::Shared => format!("o{}", self.get(x, Dim::OFFSET)),
        }
    }

    /// The text table's label: `T33:7` or `B1T33:7`; `140` or `B1:140`.
    pub(super) fn table_label(&self, x: u64) -> String {
        let block = if self.blocks() {
            format!("B{}", self.get(x, Dim::BLOCK))
        } else {
            String::new()
        };
        match self.kind {
            Kind::Distributed => {
                format!("{block}T{}:{}", self.thread(x), self.get(x, Dim::REGISTER))
            }
            Kind::Shared if self.blocks() => format!("{block}:{}", self.get(x, Dim::OFFSET)),
            Kind::Shared => self.get(x, Dim::OFFSET).to_string(),
        }
    }

    /// In words: `thread 33 (warp 1, lane 1), register 7`.
    pub(super) fn describe(&self, x: u64) -> String {
        let block = if self.blocks() {
            format!("block {}, ", self.get(x, Dim::BLOCK))
        } else {
            String::new()
        };
        match self.kind {
            Kind::Distributed => format!(
                "{block}thread {} (warp {}, lane {}), register {}",
                self.thread(x),
                self.get(x, Dim::WARP),
                self.get(x, Dim::LANE),
                self.get(x, Dim::REGISTER)
            ),
            Kind::Shared => format!("{block}offset {}", self.get(x, Dim::OFFSET)),
        }
    }

    /// "8 warps × 32 lanes × 4 registers" or "512 offsets".
    pub(super) fn sizes(&self) -> String {
        let mut parts = Vec::new();
        let mut push = |d: Dim, one: &str, many: &str| {
            let n = self.size(d);
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        };
        if self.blocks() {
            push(Dim::BLOCK, "block", "blocks");
        }
        match self.kind {
            Kind::Distributed => {
                push(Dim::WARP, "warp", "warps");
                push(Dim::LANE, "lane", "lanes");
                push(Dim::REGISTER, "register", "registers");
            }
            Kind::Shared => push(Dim::OFFSET, "offset", "offsets"),
        }
        parts.join(" × ")
    }
}

pub(super) fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}
