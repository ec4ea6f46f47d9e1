//! Reading the structured arguments of Triton's constructors and of
//! `apply`: `from_bases`' bases and out-dim sizes, and `apply`'s inputs.
//! Values the crate cannot hold become the `LayoutError` the crate would
//! give for the same role (see `args`).

use crate::args::{self, Int};
use crate::errors::{guard, layout_error};
use linear_layout::{Dim, LinearLayout};
use pyo3::prelude::*;

/// The bases argument of `from_bases`: `(name, [[int, ...], ...])` pairs.
pub(crate) fn bases(obj: &Bound<'_, PyAny>, names: &[Dim]) -> PyResult<Vec<(Dim, Vec<Vec<u64>>)>> {
    const WHAT: &str = "bases";
    const EXPECTED: &str = "a sequence of (in-dim name, [[int, ...], ...]) pairs";
    let mut bases = Vec::new();
    args::each(obj, WHAT, EXPECTED, |entry| {
        let pair = args::items(entry, WHAT, EXPECTED)?;
        let [d, vectors] = pair.as_slice() else {
            return Err(args::type_error(WHAT, EXPECTED, entry));
        };
        let in_dim = args::any_name(d, "an in-dim name in bases")?;
        let mut out = Vec::new();
        args::each(
            vectors,
            "the bases of an in-dim",
            "a sequence of vectors",
            |vector| {
                let index = out.len();
                let mut components = Vec::with_capacity(names.len());
                args::each(vector, "a basis vector", "a sequence of ints", |c| {
                    match args::int(c, "a basis component")? {
                        Int::Fits(v) => components.push(v),
                        Int::Outside { text, negative } => {
                            let k = components.len();
                            return Err(bad_component(in_dim, index, k, names, &text, negative));
                        }
                    }
                    Ok(())
                })?;
                out.push(components);
                Ok(())
            },
        )?;
        bases.push((in_dim, out));
        Ok(())
    })?;
    Ok(bases)
}

/// A component below 0 or past `u64`: out of range on every out-dim.
fn bad_component(
    in_dim: Dim,
    index: usize,
    k: usize,
    names: &[Dim],
    text: &str,
    negative: bool,
) -> PyErr {
    let out_dim = names
        .get(k)
        .map_or_else(|| format!("#{k}"), |d| d.to_string());
    let why = if negative {
        "negative"
    } else {
        "past any out-dim size"
    };
    layout_error(
        "component_out_of_range",
        format!(
            "from_bases: basis {index} of in-dim {in_dim} has component {text} on out-dim {out_dim}, which is {why}"
        ),
    )
}

/// `out_dim_sizes`, paired with the names (the lengths must agree).
pub(crate) fn out_dim_sizes(obj: &Bound<'_, PyAny>, names: &[Dim]) -> PyResult<Vec<(Dim, u64)>> {
    let items = args::items(obj, "out_dim_sizes", "a sequence of ints")?;
    if items.len() != names.len() {
        return Err(layout_error(
            "wrong_length",
            format!(
                "from_bases: out_dim_sizes has {} entries, expected {} (one per out_dim_names entry)",
                items.len(),
                names.len()
            ),
        ));
    }
    items
        .iter()
        .zip(names)
        .map(|(s, &d)| {
            Ok((
                d,
                args::size("from_bases", &format!("the size of out-dim {d}"), s)?,
            ))
        })
        .collect()
}

/// `apply`'s inputs. A value outside `u64` is out of range for its in-dim;
/// when some dim is not an in-dim, the crate reports that first.
pub(crate) fn apply_inputs(
    layout: &LinearLayout,
    obj: &Bound<'_, PyAny>,
) -> PyResult<Vec<(Dim, u64)>> {
    let pairs = args::named_ints(obj, "inputs")?;
    let mut out = Vec::with_capacity(pairs.len());
    let mut outside = None;
    for (d, v) in pairs {
        match v {
            Int::Fits(v) => out.push((d, v)),
            Int::Outside { text, .. } => {
                outside.get_or_insert((d, text));
                out.push((d, 0));
            }
        }
    }
    if let Some((d, text)) = outside {
        // A dim that is not an in-dim (or a repeated one) is reported first,
        // by the crate, as for any other input.
        guard(|| layout.apply(&out))?;
        let size = guard(|| layout.in_dim_size(d))?;
        return Err(layout_error(
            "input_out_of_range",
            format!("apply: an input value for in-dim {d} is {text}, outside its size {size}"),
        ));
    }
    Ok(out)
}
