//! Dimension names.
//!
//! Triton names every input and output dimension of a layout with an MLIR
//! `StringAttr`: interned, so that copying and comparing names costs nothing.
//! [`Dim`] does the same with a process-wide interner: a `Dim` is a `u32`
//! handle, `Copy`, compared and hashed as an integer, and printed by name.
//!
//! The names Triton uses in its layouts (`register`, `lane`, `warp`, `block`,
//! `offset`, `dim0`, …) are interned first, in a fixed order, so they are
//! available as constants such as [`Dim::REGISTER`].
//!
//! Interned names live as long as the process (a `Dim` prints by name, so
//! its name cannot go away while a handle may exist). Names a program
//! chooses are few; names read from input are not, so every reader of input
//! (the text and JSON formats, `eval`, the Python package) interns with
//! [`Dim::try_new`], which stops taking new names once [`MAX_NAMES`] names
//! or [`MAX_NAME_BYTES`] bytes of names are interned: a long-running `eval`
//! fed fresh names keeps a bounded table and answers the excess requests
//! with an error instead of growing without end.

use crate::error::LayoutError;
use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

/// The name of a layout dimension, interned.
///
/// Two `Dim`s are equal exactly when their names are equal. The numeric handle
/// is private: it depends on the order in which names were first seen.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Dim(u32);

/// The most distinct names [`Dim::try_new`] lets the process intern (every
/// name the crate and Triton use, and tens of thousands more).
pub const MAX_NAMES: usize = 1 << 16;

/// The most bytes of names [`Dim::try_new`] lets the process intern
/// (Triton's names are a few letters each).
pub const MAX_NAME_BYTES: usize = 8 << 20;

/// Names interned before any other, so that their handles are known constants.
const WELL_KNOWN: [&str; 13] = [
    "register", "lane", "warp", "block", "offset", "dim0", "dim1", "dim2", "dim3", "dim4", "dim5",
    "dim6", "dim7",
];

impl Dim {
    /// `register`: the element within a thread.
    pub const REGISTER: Dim = Dim(0);
    /// `lane`: the thread within a warp.
    pub const LANE: Dim = Dim(1);
    /// `warp`: the warp within a CTA.
    pub const WARP: Dim = Dim(2);
    /// `block`: the CTA within a cluster.
    pub const BLOCK: Dim = Dim(3);
    /// `offset`: the element offset within a shared-memory buffer.
    pub const OFFSET: Dim = Dim(4);

    /// Interns `name` and returns its handle. For names the program
    /// chooses; a name read from input goes through [`Dim::try_new`], which
    /// keeps the table bounded.
    pub fn new(name: &str) -> Dim {
        let table = interner();
        if let Some(&id) = read(table).ids.get(name) {
            return Dim(id);
        }
        let mut guard = table
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.intern(name)
    }

    /// Interns a name read from input: the handle of a name already
    /// interned, else a new one while the table holds fewer than
    /// [`MAX_NAMES`] names and the name fits in [`MAX_NAME_BYTES`] with
    /// the others. A new name past the bound is an error
    /// (`too_many_names`); names already interned are always found.
    pub fn try_new(name: &str) -> Result<Dim, LayoutError> {
        if let Some(d) = Dim::lookup(name) {
            return Ok(d);
        }
        let mut guard = interner()
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let full = guard.names.len() >= MAX_NAMES
            || guard.bytes.saturating_add(name.len()) > MAX_NAME_BYTES;
        if full && !guard.ids.contains_key(name) {
            return Err(LayoutError::TooManyNames {
                names: MAX_NAMES,
                bytes: MAX_NAME_BYTES,
            });
        }
        Ok(guard.intern(name))
    }

    /// The handle of `name` if it is interned, without interning it: a
    /// query about a name never interned (no layout holds it) costs no
    /// memory.
    pub fn lookup(name: &str) -> Option<Dim> {
        read(interner()).ids.get(name).map(|&id| Dim(id))
    }

    /// The logical tensor dimension `dim{index}`, as Triton names out-dims.
    pub fn standard(index: usize) -> Dim {
        match index.checked_add(5).filter(|&i| i < WELL_KNOWN.len()) {
            Some(i) => Dim(i as u32),
            None => Dim::new(&format!("dim{index}")),
        }
    }

    /// The name this handle stands for.
    pub fn name(self) -> &'static str {
        read(interner())
            .names
            .get(self.0 as usize)
            .copied()
            .unwrap_or("?")
    }
}

/// Shorthand for [`Dim::new`], so that code reads `dim("register")`.
pub fn dim(name: &str) -> Dim {
    Dim::new(name)
}

impl From<&str> for Dim {
    fn from(name: &str) -> Dim {
        Dim::new(name)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.name())
    }
}

struct Interner {
    names: Vec<&'static str>,
    ids: HashMap<&'static str, u32>,
    /// The bytes of all names.
    bytes: usize,
}

impl Interner {
    fn intern(&mut self, name: &str) -> Dim {
        if let Some(&id) = self.ids.get(name) {
            return Dim(id);
        }
        // Names live as long as the process, like MLIR's uniqued attributes.
        let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
        let id = self.names.len() as u32;
        self.bytes += name.len();
        self.names.push(name);
        self.ids.insert(name, id);
        Dim(id)
    }
}

fn interner() -> &'static RwLock<Interner> {
    static TABLE: OnceLock<RwLock<Interner>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Interner {
            names: Vec::new(),
            ids: HashMap::new(),
            bytes: 0,
        };
        for name in WELL_KNOWN {
            table.intern(name);
        }
        RwLock::new(table)
    })
}

fn read(table: &RwLock<Interner>) -> std::sync::RwLockReadGuard<'_, Interner> {
    // No code path panics while holding the lock, but a poisoned lock still
    // holds a consistent table, so recover it rather than propagate.
    table
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_names_are_constants() {
        assert_eq!(dim("register"), Dim::REGISTER);
        assert_eq!(dim("offset"), Dim::OFFSET);
        assert_eq!(Dim::standard(1).name(), "dim1");
        assert_eq!(Dim::standard(12).name(), "dim12");
        assert_eq!(dim("in7"), dim("in7"));
        assert_ne!(dim("in7"), dim("in8"));
    }

    #[test]
    fn names_from_input_are_bounded() {
        assert_eq!(Dim::try_new("lane"), Ok(Dim::LANE));
        assert_eq!(Dim::lookup("never-interned-name-xyzzy"), None);
        let huge = "x".repeat(MAX_NAME_BYTES + 1);
        assert_eq!(
            Dim::try_new(&huge),
            Err(LayoutError::TooManyNames {
                names: MAX_NAMES,
                bytes: MAX_NAME_BYTES
            })
        );
        assert_eq!(Dim::lookup(&huge), None, "a refused name is not interned");
        let long = "y".repeat(4096);
        assert_eq!(Dim::try_new(&long).unwrap().name(), long);
    }
}
