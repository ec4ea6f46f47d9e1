//! A TTGIR op as the site models read it.
//!
//! `check-ttgir` reads a module line by line; every layout-sensitive op it
//! finds becomes an [`Op`]: its name, the types written on it (shape,
//! element type, encoding) and the module's definitions to resolve
//! `#alias` encodings with. Each site's model decides from these what the
//! release's lowering of the op does ([`super::sites::Event::Op`]); the
//! reader knows no site.

use super::decisions::Mma;
use crate::attr::Attr;
use crate::{Defs, parse_attr};

/// A value's type as written on an op: shape, element type, encoding (an
/// alias such as `#blocked1`, or an attribute written inline).
pub(crate) type Typed = (Vec<u64>, String, String);

/// What the module says of itself (its `module attributes {…}`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Module {
    /// The compute capability of `target = "cuda:NN"` (`ttg.target`,
    /// `triton_gpu.target` up to 3.2). Triton prints it on every module it
    /// writes.
    pub capability: Option<u32>,
    /// `num-ctas`: the CTAs of a thread-block cluster (1 when not written).
    pub num_ctas: u64,
    /// The tensor-memory encodings it defines (`#tmem = #ttng.tensor_memory_encoding<…>`),
    /// by alias.
    pub tmem: Vec<(String, Tmem)>,
}

/// A tensor-memory encoding (`#ttng.tensor_memory_encoding<blockM = 128,
/// blockN = 64, …>`): the tile one tcgen05 instruction writes, and how the
/// accumulator is split among CTAs (`CTASplitM`/`CTASplitN` up to 3.7, a
/// `CGALayout` from 3.8).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tmem {
    /// `blockM`.
    pub block_m: u64,
    /// `blockN`.
    pub block_n: u64,
    /// CTAs along M and along N.
    pub split: [u64; 2],
    /// `twoCTAs = true`: one instruction spans a pair of CTAs.
    pub two_ctas: bool,
}

impl Tmem {
    /// Reads the body of `#ttng.tensor_memory_encoding<…>`.
    fn read(body: &str) -> Option<Tmem> {
        let field = |key: &str| -> Option<u64> {
            let pattern = format!("{key} = ");
            let at = body.find(&pattern)? + pattern.len();
            leading_number(&body[at..])
        };
        let mut split = [
            field("CTASplitM").unwrap_or(1),
            field("CTASplitN").unwrap_or(1),
        ];
        if let Some(at) = body.find("CGALayout = [") {
            // Bases in CTA coordinates: each nonzero one doubles its dim's split.
            let list = &body[at + "CGALayout = [".len()..];
            let list = &list[..list.find("]]").map_or(0, |e| e + 1)];
            for basis in list.split('[').skip(1) {
                let coords: Vec<u64> = basis
                    .trim_end_matches([']', ',', ' '])
                    .split(',')
                    .filter_map(|c| c.trim().parse().ok())
                    .collect();
                for (d, c) in coords.iter().enumerate().take(2) {
                    if *c != 0 {
                        split[d] *= 2;
                    }
                }
            }
        }
        Some(Tmem {
            block_m: field("blockM")?,
            block_n: field("blockN")?,
            split,
            two_ctas: body.contains("twoCTAs = true"),
        })
    }
}

/// Every `#name = #ttng.tensor_memory_encoding<…>` definition of `text`.
fn tmem_encodings(text: &str) -> Vec<(String, Tmem)> {
    text.lines()
        .filter_map(|line| {
            let (name, body) = line
                .trim_start()
                .split_once(" = #ttng.tensor_memory_encoding<")?;
            name.starts_with('#')
                .then(|| Some((name.to_string(), Tmem::read(body)?)))
                .flatten()
        })
        .collect()
}

impl Module {
    /// Reads the module attributes of `text`.
    pub(crate) fn read(text: &str) -> Module {
        Module {
            capability: capability(text),
            num_ctas: num_ctas(text).unwrap_or(1),
            tmem: tmem_encodings(text),
        }
    }

    /// The tensor-memory encoding named `name`.
    pub(crate) fn tmem(&self, name: &str) -> Option<&Tmem> {
        self.tmem.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
}

/// The `"ttg.num-ctas" = N` (`"triton_gpu.num-ctas"` up to 3.2) attribute.
fn num_ctas(text: &str) -> Option<u64> {
    let at = text.find(".num-ctas\" = ")? + ".num-ctas\" = ".len();
    leading_number(&text[at..])
}

/// The compute capability in the module's `target = "cuda:NN"` attribute.
fn capability(text: &str) -> Option<u32> {
    let at = text.find(".target = \"cuda:")? + ".target = \"cuda:".len();
    leading_number(&text[at..])
}

/// The decimal number at the start of `s`.
fn leading_number<T: std::str::FromStr>(s: &str) -> Option<T> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// One layout-sensitive op of a module.
pub(crate) struct Op<'a> {
    /// The op, as spelled after the dialect prefix (`local_alloc`,
    /// `convert_layout`, `scan`, …).
    pub name: &'static str,
    /// The op's first line.
    pub line: &'a str,
    /// The first `tensor<...>` on the line (a scan's: its first operand's,
    /// from the line that closes its region).
    pub tensor: Option<Typed>,
    /// The buffer: the first `memdesc<...>`, or an async copy's `-> <...>`.
    pub buffer: Option<Typed>,
    /// The result's encoding, when the op yields a tensor (`-> tensor<...>`,
    /// a conversion's destination).
    pub result: Option<String>,
    /// Every `tensor<...>` and `memdesc<...>` type on the line, in order
    /// (a dot's operands, then its result).
    pub types: Vec<Typed>,
    /// The module's `#alias` definitions.
    pub defs: &'a Defs,
    /// The module's own attributes.
    pub module: &'a Module,
}

impl Op<'_> {
    /// The attribute named `name` (an alias or inline text), if the release
    /// reads it.
    pub(crate) fn attr(&self, name: &str) -> Option<Attr> {
        parse_attr(name, self.defs).ok()
    }

    /// The operand and result types of a dot printed as `… : A * B -> D`
    /// (`ttng.warp_group_dot`) or `… : A, sa * B, sb -> D`
    /// (`tt.dot_scaled`): A's, B's (each the first type on its side of
    /// ` * `, a tensor or a buffer) and the result's.
    pub(crate) fn dot_types(&self) -> Option<DotTypes> {
        let types = &self.line[top_level(self.line, " : ")? + 3..];
        let star = top_level(types, " * ")?;
        let (lhs, rest) = (&types[..star], &types[star + 3..]);
        let arrow = top_level(rest, " -> ")?;
        let (rhs, result) = (&rest[..arrow], &rest[arrow + 4..]);
        let first = |side: &str| {
            let piece = &side[..top_level(side, ", ").unwrap_or(side.len())];
            typed(piece, "tensor<").or_else(|| typed(piece, "memdesc<"))
        };
        Some(DotTypes {
            a: first(lhs)?,
            a_in_memory: lhs.trim_start().starts_with('!'),
            b: first(rhs)?,
            b_in_memory: rhs.trim_start().starts_with('!'),
            d: typed(result, "tensor<")?,
        })
    }

    /// The integer attribute `key = N` written on the op's first line
    /// (`axis = 0`).
    pub(crate) fn int_attr(&self, key: &str) -> Option<usize> {
        let pattern = format!("{key} = ");
        let at = self.line.find(&pattern)? + pattern.len();
        leading_number(&self.line[at..])
    }
}

/// A dot's operand and result types ([`Op::dot_types`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DotTypes {
    /// Operand A.
    pub a: Typed,
    /// Whether A is a shared-memory buffer (`!ttg.memdesc`), not a tensor.
    pub a_in_memory: bool,
    /// Operand B.
    pub b: Typed,
    /// Whether B is a shared-memory buffer.
    pub b_in_memory: bool,
    /// The result.
    pub d: Typed,
}

/// The byte offset of the first `pat` in `s` outside any `<…>`, `(…)`,
/// `{…}` or `[…]` (the `>` of `->` closes nothing).
fn top_level(s: &str, pat: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in bytes.iter().enumerate() {
        if depth == 0 && s[i..].starts_with(pat) {
            return Some(i);
        }
        match c {
            b'<' | b'(' | b'{' | b'[' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' | b')' | b'}' | b']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `AxBxT` → (shape, element type).
fn split_type(s: &str) -> Option<(Vec<u64>, String)> {
    let mut parts: Vec<&str> = s.split('x').collect();
    let ty = parts.pop()?.trim().to_string();
    let shape = parts
        .iter()
        .map(|p| p.trim().parse().ok())
        .collect::<Option<Vec<u64>>>()?;
    Some((shape, ty))
}

/// The `(shape, type, encoding)` of the first `tensor<...>` / `memdesc<...>`
/// after `opener` in `line`.
pub(crate) fn typed(line: &str, opener: &str) -> Option<Typed> {
    let at = line.find(opener)? + opener.len();
    let body = &line[at..];
    let comma = body.find(", #")?;
    let (shape, ty) = split_type(&body[..comma])?;
    Some((shape, ty, attribute_text(&body[comma + 2..])))
}

/// Every `tensor<...>` and `memdesc<...>` type written on `line`, in the
/// order they appear.
pub(crate) fn all_typed(line: &str) -> Vec<Typed> {
    let mut starts: Vec<(usize, &str)> = ["tensor<", "memdesc<"]
        .into_iter()
        .flat_map(|opener| line.match_indices(opener).map(move |(at, _)| (at, opener)))
        .collect();
    starts.sort_unstable();
    starts
        .into_iter()
        .filter_map(|(at, opener)| typed(&line[at..], opener))
        .collect()
}

/// The attribute at the start of `s`: its alias name, or its whole inline
/// text up to the matching `>`.
fn attribute_text(s: &str) -> String {
    let name_len = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '#' | '.')))
        .unwrap_or(s.len());
    let (name, rest) = s.split_at(name_len);
    if !name.contains('.') || !rest.starts_with('<') {
        return name.to_string();
    }
    let mut depth = 0usize;
    for (i, ch) in s.char_indices().skip(name_len) {
        match ch {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return s[..=i].to_string();
                }
            }
            _ => {}
        }
    }
    s.to_string()
}

/// The width in bits of an element type (`f16` → 16, `f8E4M3FN` → 8); 32
/// where none is written.
pub(crate) fn bits_of(ty: &str) -> u64 {
    let digits: String = ty
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().unwrap_or(32)
}

/// The swizzle bytes of a shared attribute used for wgmma operands.
pub(crate) fn swizzle_of(attr: &Attr) -> Option<u64> {
    match attr {
        Attr::SwizzledShared(s) if s.has_leading_offset == Some(true) => s.swizzle_bytes(),
        Attr::NvmmaShared(n) => Some(n.swizzling_byte_width),
        _ => None,
    }
}

/// A well-formed Hopper MMA attribute (see [`Mma::from_hopper_attr`]).
pub(crate) fn hopper_mma(attr: Attr) -> Option<Mma> {
    match attr {
        Attr::NvidiaMma(m) => Mma::from_hopper_attr(&m),
        _ => None,
    }
}
