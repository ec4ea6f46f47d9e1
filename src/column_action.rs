//! Permutations and selections of one in-dim's bases (Triton's
//! `ColumnAction`).
//!
//! Lowering code uses them to reorder a thread's registers so that a layout
//! factors nicely (for example so that the registers written by one vector
//! store come first), and then to reorder the register *values* the same way.

use crate::dim::Dim;
use crate::error::{DimList, LayoutError, Result};
use crate::layout::LinearLayout;
use std::fmt;

/// Reorders (or selects) the bases of one in-dim: basis `i` of the result is
/// basis `action[i]` of the input.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ColumnAction {
    action: Vec<usize>,
    in_dim: Dim,
    in_bits: u32,
}

impl ColumnAction {
    /// An action on in-dim `in_dim` of `log2` size `in_bits`. Every index must
    /// be below `in_bits`.
    pub fn new(action: Vec<usize>, in_dim: Dim, in_bits: u32) -> Result<Self> {
        if let Some(&index) = action.iter().find(|&&i| i >= in_bits as usize) {
            return Err(LayoutError::IndexOutOfRange {
                op: "column_action",
                index,
                len: in_bits as usize,
            });
        }
        Ok(ColumnAction {
            action,
            in_dim,
            in_bits,
        })
    }

    /// The identity on `in_bits` bases.
    pub fn identity(in_dim: Dim, in_bits: u32) -> Self {
        ColumnAction {
            action: (0..in_bits as usize).collect(),
            in_dim,
            in_bits,
        }
    }

    /// The source index of each result basis.
    pub fn action(&self) -> &[usize] {
        &self.action
    }

    /// The in-dim acted on.
    pub fn in_dim(&self) -> Dim {
        self.in_dim
    }

    /// The `log2` size of the in-dim acted on.
    pub fn in_bits(&self) -> u32 {
        self.in_bits
    }

    /// Whether the action leaves every basis in place.
    pub fn is_identity(&self) -> bool {
        self.action.len() == self.in_bits as usize
            && self.action.iter().enumerate().all(|(i, &a)| i == a)
    }

    /// Applies the action to a layout, whose in-dim must have `in_bits`
    /// bases. The result need not be surjective (a selection drops bases).
    pub fn apply(&self, layout: &LinearLayout) -> Result<LinearLayout> {
        const OP: &str = "column_action_apply";
        let bits = layout.in_dim_size_log2(self.in_dim)?;
        if bits != self.in_bits {
            return Err(LayoutError::WrongLength {
                op: OP,
                what: format!("in-dim {} of the layout", self.in_dim),
                got: bits as usize,
                expected: self.in_bits as usize,
            });
        }
        let bases: Vec<_> = layout
            .bases()
            .into_iter()
            .map(|(d, v)| {
                if d == self.in_dim {
                    (d, self.action.iter().map(|&i| v[i].clone()).collect())
                } else {
                    (d, v)
                }
            })
            .collect();
        let outs: Vec<_> = layout.out_dims().collect();
        LinearLayout::from_bases_with_sizes(&bases, &outs, false)
    }

    /// Reorders `2^in_bits` values (one per register, say) the way
    /// [`apply`](Self::apply) reorders bases: value `i` of the result is the
    /// source value at the index the permuted identity maps `i` to.
    pub fn apply_values<T: Clone>(&self, values: &[T]) -> Result<Vec<T>> {
        // Triton asserts that value lists are registers.
        if self.in_dim != Dim::REGISTER {
            return Err(LayoutError::DimSetMismatch {
                op: "column_action_apply_values",
                what: "the action's in-dim and the values' dim (register)",
                left: DimList(vec![self.in_dim]),
                right: DimList(vec![Dim::REGISTER]),
            });
        }
        let expected = 1usize.checked_shl(self.in_bits).unwrap_or(0);
        if values.len() != expected || self.in_bits >= 32 {
            return Err(LayoutError::WrongLength {
                op: "column_action_apply_values",
                what: "the value list".into(),
                got: values.len(),
                expected,
            });
        }
        let out_len = 1usize << self.action.len();
        Ok((0..out_len)
            .map(|i| {
                let mut src = 0usize;
                for (bit, &a) in self.action.iter().enumerate() {
                    if i >> bit & 1 == 1 {
                        src ^= 1 << a;
                    }
                }
                values[src].clone()
            })
            .collect())
    }

    /// The inverse: `inverse[action[i]] = i`, over `action.len()` entries
    /// (Triton's `inverse`). Every index must be below `action.len()` (Triton
    /// writes out of bounds otherwise); a selection such as `[1, 0]` on 3
    /// bases is accepted, as in Triton, and so is an action with repeated
    /// indices, whose unset entries stay 0.
    pub fn inverse(&self) -> Result<ColumnAction> {
        let n = self.action.len();
        if let Some(&index) = self.action.iter().find(|&&a| a >= n) {
            return Err(LayoutError::IndexOutOfRange {
                op: "column_action_inverse",
                index,
                len: n,
            });
        }
        let mut inv = vec![0usize; n];
        for (i, &a) in self.action.iter().enumerate() {
            inv[a] = i;
        }
        ColumnAction::new(inv, self.in_dim, self.in_bits)
    }

    /// `self.left_compose(other)[i] = self[other[i]]`: first `self`, then
    /// `other`, as one action. Triton asserts that both act on the same
    /// in-dim with the same size and have actions of the same length.
    pub fn left_compose(&self, other: &ColumnAction) -> Result<ColumnAction> {
        const OP: &str = "column_action_left_compose";
        if other.in_dim != self.in_dim {
            return Err(LayoutError::DimSetMismatch {
                op: OP,
                what: "the two actions' in-dims",
                left: DimList(vec![self.in_dim]),
                right: DimList(vec![other.in_dim]),
            });
        }
        if other.in_bits != self.in_bits {
            return Err(LayoutError::WrongLength {
                op: OP,
                what: format!("the second action's in-dim {} (log2 size)", other.in_dim),
                got: other.in_bits as usize,
                expected: self.in_bits as usize,
            });
        }
        if other.action.len() != self.action.len() {
            return Err(LayoutError::WrongLength {
                op: OP,
                what: "the second action".into(),
                got: other.action.len(),
                expected: self.action.len(),
            });
        }
        let mut action = Vec::with_capacity(other.action.len());
        for &i in &other.action {
            // Triton reads out of bounds here when `self` is a selection.
            let Some(&a) = self.action.get(i) else {
                return Err(LayoutError::IndexOutOfRange {
                    op: OP,
                    index: i,
                    len: self.action.len(),
                });
            };
            action.push(a);
        }
        ColumnAction::new(action, self.in_dim, self.in_bits)
    }
}

impl fmt::Display for ColumnAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = self.action.iter().map(|a| a.to_string()).collect();
        write!(
            f,
            "ColumnAction([{}], {}, {})",
            items.join(", "),
            self.in_dim,
            self.in_bits
        )
    }
}
