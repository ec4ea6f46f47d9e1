//! Layout attributes given as JSON, spelled the way a release writes them.
//!
//! Scripts that write TTGIR (the conformance fuzzer, the op-level grids,
//! the Gluon oracle) describe each attribute as data and let the crate
//! print it, so that the spelling of every release lives here and in
//! [`print_attr`](crate::print_attr) only. The JSON names the attribute's
//! `kind` as TTGIR does (`blocked`, `slice`, `nvidia_mma`, `dot_op`,
//! `amd_mfma`, `amd_wmma`, `linear`, `generic_linear`, `swizzled_shared`,
//! `nvmma_shared`, `shared_linear`, `padded_shared`, `partitioned_shared`,
//! `tensor_memory_encoding`, `tensor_memory_scales_encoding`,
//! `auto_encoding`, `coalesced_encoding`) and its parameters by their TTGIR
//! names; `{"kind": "alias", "name": "L0"}` is a reference to an alias the
//! module defines (`#L0`), for a `parent`:
//!
//! ```json
//! {"kind": "slice", "dim": 1, "parent": {"kind": "blocked", "sizePerThread": [1, 8],
//!  "threadsPerWarp": [4, 8], "warpsPerCTA": [8, 1], "order": [1, 0]}}
//! ```
//!
//! A CGA is `CGALayout` (bases) or `CTAsPerCGA`, `CTASplitNum` and
//! `CTAOrder`, printed as given. What depends on the release is chosen
//! here:
//!
//! - the dialect prefix ([`Release::dialect`], and
//!   [`Release::nvidia_dialect`] for tensor memory);
//! - up to 3.2 ([`Release::has_legacy_shared_layouts`]) `swizzled_shared`
//!   is `shared` with `hasLeadingOffset = false`, and `nvmma_shared` is
//!   `shared` with a leading offset: 128-bit vectors, the swizzle's
//!   `(perPhase, maxPhase)` and the rank's order, its two minor dims swapped
//!   when `transposed`;
//! - an `nvmma_shared` whose `rank` is not 2 and that has no CGA says its
//!   rank with `rank = N` where the CGA is spelled as bases
//!   ([`Release::spells_cga_as_bases`]), and with a one-CTA CGA of that
//!   rank where it is spelled as lists;
//! - a `padded_shared` names its `shape` from 3.6
//!   ([`Release::padded_shared_names_shape`]);
//! - an `amd_mfma` given a `version` writes it as `versionMajor` and
//!   `versionMinor = 0` up to 3.4
//!   ([`Release::spells_mfma_version_major_minor`]), and its `instrShape`
//!   `[M, N, K]` as `[M, N]` up to 3.5
//!   ([`Release::mfma_instr_shape_names_k`]);
//! - an `amd_wmma` given `warpsPerCTA` writes them as the `ctaLayout` warp
//!   bases that stand for them from 3.7 ([`Release::has_wmma_cta_layout`]),
//!   and 3.2 has no `isTranspose` ([`Release::wmma_names_transpose`]).
//!
//! Parameters Triton leaves out at their default are left out too: an
//! `amd_mfma`'s `tilesPerWarp` of ones and `elementBitWidth` of 32, an
//! `amd_wmma`'s `instrShape` of `[16, 16, 16]`, a `dot_op`'s `kWidth` of
//! 0; a `padded_shared` whose `offset` bases walk the identity in some
//! order is printed by that `order` and its `shape`.

use crate::Release;
use crate::attr::*;
use crate::print;
use linear_layout::Dim;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Why a JSON attribute cannot be printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("attribute JSON: {0}")]
pub struct AttrJsonError(pub String);

type Result<T> = std::result::Result<T, AttrJsonError>;

fn bad<T>(message: impl Into<String>) -> Result<T> {
    Err(AttrJsonError(message.into()))
}

/// The attribute `json` describes, spelled the way `release` writes it
/// (see the module docs); print it with `print_attr(&attr,
/// release.dialect())`, or use [`ttgir_attr`].
pub fn attr_from_json(json: &Value, release: Release) -> Result<Attr> {
    from_json(json, release, 0)
}

/// The TTGIR text of the attribute `json` describes, as `release` writes
/// it.
pub fn ttgir_attr(json: &Value, release: Release) -> Result<String> {
    Ok(print::print_attr(
        &attr_from_json(json, release)?,
        release.dialect(),
    ))
}

/// How deep attributes may nest (a slice of a dot operand of ...): the
/// parser's bound, so that whatever is printed reads back.
const MAX_DEPTH: usize = 64;

/// The fields of one attribute object, each read at most once; keys left
/// over are refused.
struct Fields<'a> {
    kind: &'a str,
    map: &'a Map<String, Value>,
    used: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    fn of(json: &'a Value) -> Result<Self> {
        let Some(map) = json.as_object() else {
            return bad(format!("an attribute is a JSON object, not {json}"));
        };
        let Some(kind) = map.get("kind").and_then(Value::as_str) else {
            return bad("an attribute needs a `kind` (a string)");
        };
        Ok(Fields {
            kind,
            map,
            used: vec!["kind"],
        })
    }

    fn opt(&mut self, key: &'static str) -> Option<&'a Value> {
        self.used.push(key);
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn req(&mut self, key: &'static str) -> Result<&'a Value> {
        let kind = self.kind;
        self.opt(key)
            .map_or_else(|| bad(format!("{kind} needs `{key}`")), Ok)
    }

    fn int(&mut self, key: &'static str) -> Result<u64> {
        let v = self.req(key)?;
        int(v, self.kind, key)
    }

    fn opt_int(&mut self, key: &'static str) -> Result<Option<u64>> {
        let kind = self.kind;
        self.opt(key).map(|v| int(v, kind, key)).transpose()
    }

    fn flag(&mut self, key: &'static str) -> Result<Option<bool>> {
        let kind = self.kind;
        match self.opt(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => bad(format!("{kind}'s `{key}` is true or false, not {v}")),
        }
    }

    fn list(&mut self, key: &'static str) -> Result<Vec<u64>> {
        let v = self.req(key)?;
        list(v, self.kind, key)
    }

    fn opt_list(&mut self, key: &'static str) -> Result<Option<Vec<u64>>> {
        let kind = self.kind;
        self.opt(key).map(|v| list(v, kind, key)).transpose()
    }

    fn order(&mut self, key: &'static str) -> Result<Vec<usize>> {
        Ok(self.list(key)?.into_iter().map(|x| x as usize).collect())
    }

    fn bases(&mut self, key: &'static str) -> Result<Option<Vec<Vec<u64>>>> {
        let kind = self.kind;
        self.opt(key).map(|v| bases(v, kind, key)).transpose()
    }

    /// The CGA, in whichever spelling is given.
    fn cga(&mut self) -> Result<Option<Cga>> {
        let bases = self.bases("CGALayout")?;
        let ctas = self.opt_list("CTAsPerCGA")?;
        let split = self.opt_list("CTASplitNum")?;
        let order = self.opt_list("CTAOrder")?;
        match (bases, ctas, split, order) {
            (None, None, None, None) => Ok(None),
            (Some(b), None, None, None) => Ok(Some(Cga::Bases(b))),
            (None, Some(c), Some(s), Some(o)) => Ok(Some(Cga::Split {
                ctas_per_cga: c,
                cta_split_num: s,
                cta_order: o.into_iter().map(|x| x as usize).collect(),
            })),
            _ => bad(format!(
                "{}: a CGA is `CGALayout`, or all three of `CTAsPerCGA`, `CTASplitNum`, `CTAOrder`",
                self.kind
            )),
        }
    }

    /// Refuses keys no field read.
    fn done(self) -> Result<()> {
        let extra: Vec<&str> = self
            .map
            .keys()
            .map(String::as_str)
            .filter(|k| !self.used.contains(k))
            .collect();
        if extra.is_empty() {
            Ok(())
        } else {
            bad(format!("{} has no field {}", self.kind, extra.join(", ")))
        }
    }
}

fn int(v: &Value, kind: &str, key: &str) -> Result<u64> {
    v.as_u64()
        .map_or_else(|| bad(format!("{kind}'s `{key}` is a count, not {v}")), Ok)
}

fn list(v: &Value, kind: &str, key: &str) -> Result<Vec<u64>> {
    let Some(items) = v.as_array() else {
        return bad(format!("{kind}'s `{key}` is a list of counts, not {v}"));
    };
    items.iter().map(|x| int(x, kind, key)).collect()
}

fn bases(v: &Value, kind: &str, key: &str) -> Result<Vec<Vec<u64>>> {
    let Some(items) = v.as_array() else {
        return bad(format!("{kind}'s `{key}` is a list of bases, not {v}"));
    };
    items.iter().map(|b| list(b, kind, key)).collect()
}

fn from_json(json: &Value, release: Release, depth: usize) -> Result<Attr> {
    if depth > MAX_DEPTH {
        return bad(format!("attributes nest deeper than {MAX_DEPTH} levels"));
    }
    let mut f = Fields::of(json)?;
    let parent = |f: &mut Fields<'_>| -> Result<Arc<Attr>> {
        Ok(Arc::new(from_json(f.req("parent")?, release, depth + 1)?))
    };
    let attr = match f.kind {
        "blocked" => Attr::Blocked(Blocked {
            size_per_thread: f.list("sizePerThread")?,
            threads_per_warp: f.list("threadsPerWarp")?,
            warps_per_cta: f.list("warpsPerCTA")?,
            order: f.order("order")?,
            cga: f.cga()?,
        }),
        "slice" => Attr::Slice(Slice {
            dim: f.int("dim")? as usize,
            parent: parent(&mut f)?,
        }),
        "nvidia_mma" => Attr::NvidiaMma(NvidiaMma {
            version_major: f.int("versionMajor")?,
            version_minor: f.opt_int("versionMinor")?.unwrap_or(0),
            warps_per_cta: f.list("warpsPerCTA")?,
            cga: f.cga()?,
            instr_shape: f.list("instrShape")?,
        }),
        "dot_op" => Attr::DotOperand(DotOperand {
            op_idx: f.int("opIdx")?,
            parent: parent(&mut f)?,
            k_width: f.opt_int("kWidth")?.filter(|&k| k != 0),
        }),
        "amd_mfma" => mfma(&mut f, release)?,
        "amd_wmma" => wmma(&mut f, release)?,
        kind @ ("linear" | "generic_linear") => {
            let mut bases = Vec::new();
            for (key, dim) in [
                ("register", Dim::REGISTER),
                ("lane", Dim::LANE),
                ("warp", Dim::WARP),
                ("block", Dim::BLOCK),
            ] {
                if let Some(b) = f.bases(key)? {
                    bases.push((dim, b));
                }
            }
            Attr::Linear(Linear {
                bases,
                generic: kind == "generic_linear",
            })
        }
        "swizzled_shared" => Attr::SwizzledShared(SwizzledShared {
            vec: f.int("vec")?,
            per_phase: f.int("perPhase")?,
            max_phase: f.int("maxPhase")?,
            order: f.order("order")?,
            cga: f.cga()?,
            has_leading_offset: release.has_legacy_shared_layouts().then_some(false),
        }),
        "nvmma_shared" => nvmma(&mut f, release)?,
        "shared_linear" => Attr::SharedLinear(SharedLinear {
            offset: f.bases("offset")?.unwrap_or_default(),
            block: f.bases("block")?.unwrap_or_default(),
            alignment: f.int("alignment")?,
        }),
        "padded_shared" => padded(&mut f, release)?,
        "partitioned_shared" => {
            let partitions = f.int("numPartitions")?;
            let groups = f.int("numGroups")?;
            let dim = f.int("partitionDim")?;
            let inner = from_json(f.req("partitionLayout")?, release, depth + 1)?;
            other(
                release.dialect(),
                "partitioned_shared",
                print::partitioned_shared(
                    release.dialect(),
                    partitions,
                    groups,
                    dim,
                    &print::print_attr(&inner, release.dialect()),
                ),
            )
        }
        "tensor_memory_encoding" => {
            let text = print::tensor_memory(
                release.nvidia_dialect(),
                f.int("blockM")?,
                f.int("blockN")?,
                f.int("colStride")?,
                f.cga()?.as_ref(),
                f.flag("twoCTAs")?.unwrap_or(false),
                f.flag("fp4Padded")?.unwrap_or(false),
            );
            other(release.nvidia_dialect(), "tensor_memory_encoding", text)
        }
        "tensor_memory_scales_encoding" => {
            let cga = f.cga()?;
            let order = match f.opt("blockRepOrder") {
                None => None,
                Some(Value::String(s)) if s == "mnThenK" => None,
                Some(Value::String(s)) => Some(s.as_str()),
                Some(v) => return bad(format!("blockRepOrder is a name, not {v}")),
            };
            let text = print::tensor_memory_scales(release.nvidia_dialect(), cga.as_ref(), order);
            other(
                release.nvidia_dialect(),
                "tensor_memory_scales_encoding",
                text,
            )
        }
        kind @ ("auto_encoding" | "coalesced_encoding") => {
            other("gluon", kind, format!("#gluon.{kind}"))
        }
        "alias" => {
            let Some(name) = f.req("name")?.as_str().filter(|n| is_alias_name(n)) else {
                return bad("an alias's `name` is an identifier (letters, digits, `_`)");
            };
            Attr::Other {
                name: "alias".into(),
                text: format!("#{name}"),
            }
        }
        other => return bad(format!("unknown attribute kind `{other}`")),
    };
    f.done()?;
    Ok(attr)
}

impl<'a> Fields<'a> {
    /// The fields of an object nested in an attribute (`ctaLayout`).
    fn of_nested(json: &'a Value, what: &'a str) -> Result<Self> {
        let Some(map) = json.as_object() else {
            return bad(format!("{what} is a JSON object, not {json}"));
        };
        Ok(Fields {
            kind: what,
            map,
            used: Vec::new(),
        })
    }
}

/// An `amd_mfma`: its `version` as `versionMajor`/`versionMinor` up to 3.4
/// ([`Release::spells_mfma_version_major_minor`]), its `instrShape`
/// without K up to 3.5 ([`Release::mfma_instr_shape_names_k`]). A
/// `versionMajor` given is printed as given.
fn mfma(f: &mut Fields<'_>, release: Release) -> Result<Attr> {
    let (version, version_minor) = match f.opt_int("version")? {
        Some(v) if release.spells_mfma_version_major_minor() => (v, Some(0)),
        Some(v) => (v, None),
        None => (f.int("versionMajor")?, Some(f.int("versionMinor")?)),
    };
    let mut instr_shape = f.list("instrShape")?;
    if instr_shape.len() == 3 && !release.mfma_instr_shape_names_k() {
        instr_shape.truncate(2);
    }
    Ok(Attr::AmdMfma(AmdMfma {
        version,
        version_minor,
        warps_per_cta: f.list("warpsPerCTA")?,
        instr_shape,
        is_transposed: f.flag("isTransposed")?.unwrap_or(false),
        cga: f.cga()?,
        tiles_per_warp: f
            .opt_list("tilesPerWarp")?
            .filter(|t| t.iter().any(|&x| x != 1)),
        element_bit_width: f.opt_int("elementBitWidth")?.filter(|&b| b != 32),
    }))
}

/// An `amd_wmma`: its `warpsPerCTA` written as the `ctaLayout` warp bases
/// that stand for them from 3.7 ([`Release::has_wmma_cta_layout`]), and no
/// `isTranspose` in 3.2 ([`Release::wmma_names_transpose`]). A `ctaLayout`
/// given is printed as given.
fn wmma(f: &mut Fields<'_>, release: Release) -> Result<Attr> {
    let (cta_register, mut cta_warp) = match f.opt("ctaLayout") {
        None => (Vec::new(), None),
        Some(cta) => {
            let mut c = Fields::of_nested(cta, "amd_wmma's ctaLayout")?;
            let register = c.bases("register")?.unwrap_or_default();
            let warp = c.bases("warp")?;
            c.done()?;
            (register, warp)
        }
    };
    let mut warps_per_cta = f.opt_list("warpsPerCTA")?;
    if release.has_wmma_cta_layout() && cta_warp.is_none() && cta_register.is_empty() {
        if let Some(wpc) = warps_per_cta.take() {
            cta_warp = Some(warp_bases(&wpc)?);
        }
    }
    let is_transpose = f.flag("isTranspose")?;
    Ok(Attr::AmdWmma(AmdWmma {
        version: f.int("version")?,
        is_transpose: is_transpose.filter(|_| release.wmma_names_transpose()),
        warps_per_cta,
        cta_register,
        cta_warp,
        cga: f.cga()?,
        instr_shape: f.opt_list("instrShape")?.filter(|i| i != &[16, 16, 16]),
        rank: f.opt_int("rank")?,
    }))
}

/// The `ctaLayout` warp bases of `warpsPerCTA`: one instruction tile per
/// warp, the warps walking the last dim first, as the releases before 3.7
/// place them (`convert::amd_wmma`'s CTA part).
fn warp_bases(wpc: &[u64]) -> Result<Vec<Vec<u64>>> {
    let rank = wpc.len();
    let mut out = Vec::new();
    for d in (0..rank).rev() {
        if !wpc[d].is_power_of_two() {
            return bad(format!(
                "amd_wmma's `warpsPerCTA` {wpc:?} is written as `ctaLayout` bases, so each count is a power of two"
            ));
        }
        for bit in 0..wpc[d].trailing_zeros() {
            let mut basis = vec![0; rank];
            basis[d] = 1 << bit;
            out.push(basis);
        }
    }
    Ok(out)
}

/// Whether `name` can follow `#` as an attribute alias (`#L0`, `#mma`).
fn is_alias_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn other(dialect: &str, kind: &str, text: String) -> Attr {
    Attr::Other {
        name: format!("{dialect}.{kind}"),
        text,
    }
}

/// `nvmma_shared`, or up to 3.2 the leading-offset `shared` layout that
/// stood for it.
fn nvmma(f: &mut Fields<'_>, release: Release) -> Result<Attr> {
    let swizzle = f.int("swizzlingByteWidth")?;
    let transposed = f.flag("transposed")?.unwrap_or(false);
    let bits = f.int("elementBitWidth")?;
    let fp4_padded = f.flag("fp4Padded")?.unwrap_or(false);
    let cga = f.cga()?;
    // Printed as given: whether the rank fits is the verifier's question.
    let rank = f.opt_int("rank")?.unwrap_or(2);
    if rank > 64 {
        return bad(format!("nvmma_shared's rank {rank} is past any tensor's"));
    }
    if release.has_legacy_shared_layouts() {
        let Some((per_phase, max_phase)) =
            swizzle_phases(swizzle).or((swizzle == 0).then_some((1, 1)))
        else {
            return bad(format!("no swizzle of {swizzle} bytes"));
        };
        if bits == 0 || 128 % bits != 0 || fp4_padded {
            return bad(format!(
                "release {release} has no leading-offset layout of {bits}-bit elements"
            ));
        }
        let mut order: Vec<usize> = (0..rank as usize).rev().collect();
        if transposed && order.len() >= 2 {
            order.swap(0, 1);
        }
        return Ok(Attr::SwizzledShared(SwizzledShared {
            vec: 128 / bits,
            per_phase,
            max_phase,
            order,
            cga,
            has_leading_offset: Some(true),
        }));
    }
    let (cga, rank) = match cga {
        Some(cga) => (Some(cga), None),
        None if rank == 2 => (None, None),
        None if release.spells_cga_as_bases() => (None, Some(rank)),
        None => (
            Some(Cga::Split {
                ctas_per_cga: vec![1; rank as usize],
                cta_split_num: vec![1; rank as usize],
                cta_order: (0..rank as usize).rev().collect(),
            }),
            None,
        ),
    };
    Ok(Attr::NvmmaShared(NvmmaShared {
        swizzling_byte_width: swizzle,
        transposed,
        element_bit_width: bits,
        fp4_padded,
        cga,
        rank,
    }))
}

/// `padded_shared`: its intervals and either `order` and `shape` or
/// `offset` bases (and `block`), the latter folded to the former when the
/// bases walk the identity in some dim order.
fn padded(f: &mut Fields<'_>, release: Release) -> Result<Attr> {
    let kind = f.kind;
    let intervals = f.req("intervals")?;
    let intervals: Vec<Vec<u64>> = bases(intervals, kind, "intervals")?;
    if intervals.iter().any(|p| p.len() != 2) {
        return bad("padded_shared's intervals are [interval, padding] pairs");
    }
    let pairs: Vec<(u64, u64)> = intervals.iter().map(|p| (p[0], p[1])).collect();
    let shape = f.opt_list("shape")?;
    let order = f.opt_list("order")?;
    let offset = f.bases("offset")?;
    let block = f.bases("block")?.unwrap_or_default();
    let form = match (order, offset, shape) {
        (Some(order), None, Some(shape)) if block.is_empty() => print::PaddedForm::Order {
            order: order.into_iter().map(|x| x as usize).collect(),
            shape: release.padded_shared_names_shape().then_some(shape),
        },
        (None, Some(offset), shape) => {
            match shape.filter(|_| block.is_empty()).and_then(|s| {
                identity_order(&offset, &s).map(|order| print::PaddedForm::Order {
                    order,
                    shape: release.padded_shared_names_shape().then_some(s),
                })
            }) {
                Some(form) => form,
                None => print::PaddedForm::Bases { offset, block },
            }
        }
        _ => {
            return bad(
                "padded_shared takes `order` and `shape`, or `offset` bases (with `block`, `shape`)",
            );
        }
    };
    let text = print::padded_shared(release.dialect(), &pairs, &form);
    Ok(other(release.dialect(), "padded_shared", text))
}

/// The dim order in which `offset` walks the identity of `shape` (each
/// dim's bases 1, 2, 4, ... in turn), if it does; dims of size 1 hold no
/// basis and come last, as Triton orders them.
fn identity_order(offset: &[Vec<u64>], shape: &[u64]) -> Option<Vec<usize>> {
    let rank = shape.len();
    let mut order = Vec::new();
    let mut i = 0;
    while i < offset.len() {
        let b = &offset[i];
        let nonzero: Vec<usize> = (0..rank)
            .filter(|&d| b.get(d).is_some_and(|&x| x != 0))
            .collect();
        let [d] = nonzero[..] else { return None };
        if b.len() != rank || b[d] != 1 || order.contains(&d) || !shape[d].is_power_of_two() {
            return None;
        }
        let bits = shape[d].trailing_zeros() as usize;
        for j in 0..bits {
            let want: Vec<u64> = (0..rank).map(|e| if e == d { 1 << j } else { 0 }).collect();
            if offset.get(i + j) != Some(&want) {
                return None;
            }
        }
        i += bits;
        order.push(d);
    }
    let unit: Vec<usize> = (0..rank)
        .filter(|d| !order.contains(d) && shape[*d] == 1)
        .collect();
    order.extend(unit);
    (order.len() == rank).then_some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Defs, parse_attr};
    use serde_json::json;

    fn text(json: Value, release: Release) -> String {
        ttgir_attr(&json, release).unwrap()
    }

    fn blocked() -> Value {
        json!({"kind": "blocked", "sizePerThread": [1, 8], "threadsPerWarp": [4, 8],
               "warpsPerCTA": [8, 1], "order": [1, 0]})
    }

    #[test]
    fn an_attribute_prints_in_each_release_dialect_and_reads_back() {
        let slice = json!({"kind": "slice", "dim": 1, "parent": blocked()});
        for r in Release::ALL {
            let t = text(slice.clone(), r);
            assert_eq!(
                t,
                format!(
                    "#{d}.slice<{{dim = 1, parent = #{d}.blocked<{{sizePerThread = [1, 8], \
                     threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}}>}}>",
                    d = r.dialect()
                )
            );
            let attr = attr_from_json(&slice, r).unwrap();
            assert_eq!(parse_attr(&t, &Defs::new()).unwrap(), attr);
        }
    }

    #[test]
    fn shared_layouts_take_the_legacy_spelling_up_to_3_2() {
        let swizzled = json!({"kind": "swizzled_shared", "vec": 4, "perPhase": 2, "maxPhase": 4,
                              "order": [0, 1]});
        assert_eq!(
            text(swizzled.clone(), Release::V3_2),
            "#triton_gpu.shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1], \
             hasLeadingOffset = false}>"
        );
        assert_eq!(
            text(swizzled, Release::V3_3),
            "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [0, 1]}>"
        );
        let nvmma = json!({"kind": "nvmma_shared", "swizzlingByteWidth": 64, "transposed": true,
                           "elementBitWidth": 16, "rank": 3});
        assert_eq!(
            text(nvmma.clone(), Release::V3_2),
            "#triton_gpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 2, 0], \
             hasLeadingOffset = true}>"
        );
        // The leading-offset layout reads back as the swizzle it stands for.
        let Attr::SwizzledShared(legacy) = attr_from_json(&nvmma, Release::V3_2).unwrap() else {
            panic!("a leading-offset shared layout")
        };
        assert_eq!(legacy.swizzle_bytes(), Some(64));
        // Rank 3 without a CGA: one CTA in three lists up to 3.5, `rank` from 3.6.
        assert_eq!(
            text(nvmma.clone(), Release::V3_5),
            "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16, \
             CTAsPerCGA = [1, 1, 1], CTASplitNum = [1, 1, 1], CTAOrder = [2, 1, 0]}>"
        );
        assert_eq!(
            text(nvmma, Release::V3_6),
            "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16, \
             rank = 3}>"
        );
        let rank2 = json!({"kind": "nvmma_shared", "swizzlingByteWidth": 0, "transposed": false,
                           "elementBitWidth": 8});
        assert_eq!(
            text(rank2.clone(), Release::V3_9),
            "#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 8}>"
        );
        assert_eq!(
            text(rank2, Release::V3_1),
            "#triton_gpu.shared<{vec = 16, perPhase = 1, maxPhase = 1, order = [1, 0], \
             hasLeadingOffset = true}>"
        );
    }

    #[test]
    fn every_modelled_kind_reads_back_as_the_same_attribute() {
        let cases = [
            json!({"kind": "nvidia_mma", "versionMajor": 3, "warpsPerCTA": [4, 2],
                   "instrShape": [16, 64, 16], "CGALayout": [[1, 0]]}),
            json!({"kind": "dot_op", "opIdx": 0, "kWidth": 2, "parent": {"kind": "nvidia_mma",
                   "versionMajor": 2, "versionMinor": 0, "warpsPerCTA": [2, 2], "instrShape": [16, 8]}}),
            json!({"kind": "amd_mfma", "version": 3, "warpsPerCTA": [2, 2], "instrShape": [32, 32, 8],
                   "isTransposed": true, "tilesPerWarp": [2, 1], "elementBitWidth": 64}),
            json!({"kind": "amd_wmma", "version": 2, "isTranspose": false,
                   "ctaLayout": {"register": [[1, 0]], "warp": [[0, 1]]}, "instrShape": [16, 16, 32]}),
            json!({"kind": "linear", "register": [[1, 0]], "lane": [[0, 1], [0, 2], [0, 4], [0, 8],
                   [0, 16]], "warp": [], "block": []}),
            json!({"kind": "generic_linear", "register": [[1, 1]], "lane": [], "warp": [], "block": []}),
            json!({"kind": "swizzled_shared", "vec": 8, "perPhase": 1, "maxPhase": 8, "order": [1, 0],
                   "CTAsPerCGA": [2, 1], "CTASplitNum": [2, 1], "CTAOrder": [1, 0]}),
            json!({"kind": "shared_linear", "offset": [[0, 1], [1, 0]], "block": [[0, 2]],
                   "alignment": 16}),
        ];
        for case in cases {
            let attr = attr_from_json(&case, Release::V3_9).unwrap();
            let t = print::print_attr(&attr, "ttg");
            assert_eq!(parse_attr(&t, &Defs::new()).unwrap(), attr, "{t}");
        }
    }

    #[test]
    fn amd_accumulators_take_each_release_spelling() {
        let mfma = json!({"kind": "amd_mfma", "version": 3, "warpsPerCTA": [2, 2],
                          "instrShape": [32, 32, 8], "isTransposed": true});
        let tail = "warpsPerCTA = [2, 2], instrShape = [32, 32";
        for (r, head, k) in [
            (
                Release::V3_2,
                "#triton_gpu.amd_mfma<{versionMajor = 3, versionMinor = 0",
                "",
            ),
            (
                Release::V3_4,
                "#ttg.amd_mfma<{versionMajor = 3, versionMinor = 0",
                "",
            ),
            (Release::V3_5, "#ttg.amd_mfma<{version = 3", ""),
            (Release::V3_6, "#ttg.amd_mfma<{version = 3", ", 8"),
            (Release::V3_9, "#ttg.amd_mfma<{version = 3", ", 8"),
        ] {
            let want = format!("{head}, {tail}{k}], isTransposed = true}}>");
            assert_eq!(text(mfma.clone(), r), want, "{r}");
        }
        let wmma = json!({"kind": "amd_wmma", "version": 2, "isTranspose": true,
                          "warpsPerCTA": [4, 2]});
        assert_eq!(
            text(wmma.clone(), Release::V3_2),
            "#triton_gpu.amd_wmma<{version = 2, warpsPerCTA = [4, 2]}>"
        );
        assert_eq!(
            text(wmma.clone(), Release::V3_6),
            "#ttg.amd_wmma<{version = 2, isTranspose = true, warpsPerCTA = [4, 2]}>"
        );
        assert_eq!(
            text(wmma.clone(), Release::V3_7),
            "#ttg.amd_wmma<{version = 2, isTranspose = true, \
             ctaLayout = {warp = [[0, 1], [1, 0], [2, 0]]}}>"
        );
        let odd = json!({"kind": "amd_wmma", "version": 2, "warpsPerCTA": [3, 1]});
        assert!(attr_from_json(&odd, Release::V3_9).is_err());
    }

    #[test]
    fn wmma_cta_bases_place_the_warps_as_warps_per_cta_did() {
        // The bases 3.7 is given must stand for the same warps: both
        // spellings convert to one layout (3.6's recipe reads either).
        for (wpc, shape) in [
            ([2u64, 2u64], [64u64, 32u64]),
            ([4, 1], [64, 64]),
            ([1, 4], [16, 64]),
            ([8, 2], [128, 32]),
        ] {
            let json = json!({"kind": "amd_wmma", "version": 2, "isTranspose": false,
                              "warpsPerCTA": wpc});
            let by_warps = attr_from_json(&json, Release::V3_6).unwrap();
            let by_bases = attr_from_json(&json, Release::V3_7).unwrap();
            assert!(matches!(&by_bases, Attr::AmdWmma(w) if w.cta_warp.is_some()));
            let convert = |a: &Attr| crate::to_linear_layout(a, &shape, Release::V3_6, Some(32));
            assert_eq!(
                convert(&by_warps).unwrap(),
                convert(&by_bases).unwrap(),
                "{wpc:?}"
            );
        }
    }

    #[test]
    fn defaults_are_left_out_as_triton_prints_them() {
        let mfma = json!({"kind": "amd_mfma", "version": 4, "warpsPerCTA": [1, 4],
                          "instrShape": [16, 16, 16], "isTransposed": false,
                          "tilesPerWarp": [1, 1], "elementBitWidth": 32});
        assert_eq!(
            text(mfma, Release::V3_9),
            "#ttg.amd_mfma<{version = 4, warpsPerCTA = [1, 4], instrShape = [16, 16, 16], \
             isTransposed = false}>"
        );
        let dot = json!({"kind": "dot_op", "opIdx": 1, "kWidth": 0, "parent": blocked()});
        assert!(!text(dot, Release::V3_9).contains("kWidth"));
    }

    #[test]
    fn padded_shared_prints_the_identity_by_its_order() {
        let by_order = json!({"kind": "padded_shared", "intervals": [[32, 4], [64, 8]],
                              "order": [1, 0], "shape": [16, 8]});
        let want = "#ttg.padded_shared<[32:+4, 64:+8] {order = [1, 0], shape = [16, 8]}>";
        assert_eq!(text(by_order.clone(), Release::V3_9), want);
        assert_eq!(
            text(by_order, Release::V3_5),
            "#ttg.padded_shared<[32:+4, 64:+8] {order = [1, 0]}>"
        );
        // the same by its offset bases: dim 1 (3 bits), then dim 0 (4 bits)
        let offset = json!([[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]);
        let by_bases = json!({"kind": "padded_shared", "intervals": [[32, 4], [64, 8]],
                              "offset": offset, "block": [], "shape": [16, 8]});
        assert_eq!(text(by_bases, Release::V3_9), want);
        let swizzled = json!({"kind": "padded_shared", "intervals": [[32, 4]],
                              "offset": [[0, 1], [1, 1]], "block": [], "shape": [2, 2]});
        assert_eq!(
            text(swizzled, Release::V3_9),
            "#ttg.padded_shared<[32:+4] {offset = [[0, 1], [1, 1]], block = []}>"
        );
    }

    #[test]
    fn the_kinds_without_a_model_print_too() {
        let tmem = json!({"kind": "tensor_memory_encoding", "blockM": 128, "blockN": 64,
                          "colStride": 1, "CGALayout": [[0, 1]], "twoCTAs": true});
        assert_eq!(
            text(tmem, Release::V3_9),
            "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1, \
             CGALayout = [[0, 1]], twoCTAs = true>"
        );
        let scales = json!({"kind": "tensor_memory_scales_encoding", "blockRepOrder": "kThenMN"});
        assert_eq!(
            text(scales, Release::V3_9),
            "#ttng.tensor_memory_scales_encoding<blockRepOrder = kThenMN>"
        );
        let part = json!({"kind": "partitioned_shared", "numPartitions": 2, "numGroups": 1,
                          "partitionDim": 0, "partitionLayout": {"kind": "swizzled_shared",
                          "vec": 1, "perPhase": 1, "maxPhase": 1, "order": [1, 0]}});
        assert_eq!(
            text(part, Release::V3_9),
            "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 1, partitionDim = 0, \
             partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, \
             order = [1, 0]}>}>"
        );
        assert_eq!(
            text(json!({"kind": "auto_encoding"}), Release::V3_9),
            "#gluon.auto_encoding"
        );
        let of_alias =
            json!({"kind": "slice", "dim": 0, "parent": {"kind": "alias", "name": "L0"}});
        assert_eq!(
            text(of_alias, Release::V3_2),
            "#triton_gpu.slice<{dim = 0, parent = #L0}>"
        );
        assert!(attr_from_json(&json!({"kind": "alias", "name": "L0>"}), Release::V3_9).is_err());
    }

    #[test]
    fn odd_ranks_print_as_given() {
        for rank in [0, 1, 3] {
            let nvmma = json!({"kind": "nvmma_shared", "swizzlingByteWidth": 32, "transposed": true,
                               "elementBitWidth": 16, "rank": rank});
            for r in Release::ALL {
                assert!(ttgir_attr(&nvmma, r).is_ok(), "rank {rank} in {r}");
            }
        }
        let huge = json!({"kind": "nvmma_shared", "swizzlingByteWidth": 32, "transposed": true,
                          "elementBitWidth": 16, "rank": 1u64 << 40});
        assert!(ttgir_attr(&huge, Release::V3_2).is_err());
    }

    #[test]
    fn bad_json_is_an_error_that_says_what_is_wrong() {
        for (json, needle) in [
            (json!([1]), "JSON object"),
            (json!({"dim": 1}), "`kind`"),
            (json!({"kind": "mystery"}), "unknown attribute kind"),
            (json!({"kind": "blocked"}), "needs `sizePerThread`"),
            (
                json!({"kind": "slice", "dim": -1, "parent": blocked()}),
                "a count",
            ),
            (
                json!({"kind": "swizzled_shared", "vec": 1, "perPhase": 1, "maxPhase": 1,
                       "order": [0], "colour": "red"}),
                "no field colour",
            ),
            (
                json!({"kind": "blocked", "sizePerThread": [1], "threadsPerWarp": [32],
                       "warpsPerCTA": [1], "order": [0], "CTAOrder": [0]}),
                "all three",
            ),
            (
                json!({"kind": "nvmma_shared", "swizzlingByteWidth": 48, "transposed": false,
                       "elementBitWidth": 16}),
                "no swizzle of 48",
            ),
        ] {
            let err = attr_from_json(&json, Release::V3_2)
                .unwrap_err()
                .to_string();
            assert!(err.contains(needle), "{json}: {err}");
        }
        let mut deep = blocked();
        for _ in 0..=MAX_DEPTH {
            deep = json!({"kind": "slice", "dim": 0, "parent": deep});
        }
        assert!(attr_from_json(&deep, Release::V3_9).is_err());
    }
}
