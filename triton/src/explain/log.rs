//! A crash log read once, in time linear in its length: its lines, its text
//! with whitespace collapsed (a message wrapped over several lines still
//! matches), the same text with line numbers masked (another release's
//! copy of a `file:line` message still matches), each knowing the line
//! every part came from, and whether the log shows it came from Triton.

/// The log as the matcher reads it.
pub(super) struct Log<'a> {
    /// The lines, as written.
    pub lines: Vec<&'a str>,
    /// The text with every run of whitespace as one space.
    pub norm: Text,
    /// [`Log::norm`] with the digits after a `:` masked ([`masked`]).
    pub masked: Text,
    /// Whether the log names Triton: a path or frame in a `triton`
    /// package, a `mlir::triton` function, Triton's dialects.
    pub from_triton: bool,
}

/// Transformed text, with the line each part came from.
pub(super) struct Text {
    /// The text.
    pub text: String,
    /// `(offset in text, line index)` where each non-blank line starts.
    starts: Vec<(usize, usize)>,
}

impl Text {
    /// Each line through `f`, joined by single spaces.
    fn build(lines: &[&str], f: impl Fn(&str) -> String) -> Text {
        // collapsing and masking only shorten: one allocation holds it
        let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        let mut starts = Vec::with_capacity(lines.len());
        for (index, line) in lines.iter().enumerate() {
            let part = f(line);
            if part.is_empty() {
                continue;
            }
            if !text.is_empty() {
                text.push(' ');
            }
            starts.push((text.len(), index));
            text.push_str(&part);
        }
        Text { text, starts }
    }

    /// The first occurrence of `needle`: its offset and the index of the
    /// line it starts on.
    pub fn find(&self, needle: &str) -> Option<(usize, usize)> {
        if needle.is_empty() {
            return None;
        }
        let at = self.text.find(needle)?;
        Some((at, self.line_at(at)))
    }

    /// The index of the line holding `offset`.
    fn line_at(&self, offset: usize) -> usize {
        let after = self.starts.partition_point(|&(start, _)| start <= offset);
        after
            .checked_sub(1)
            .and_then(|i| self.starts.get(i))
            .map_or(0, |&(_, line)| line)
    }
}

impl<'a> Log<'a> {
    /// Reads `log`.
    pub fn read(log: &'a str) -> Log<'a> {
        let lines: Vec<&str> = log.lines().collect();
        let norm = Text::build(&lines, |l| normalize(&unreachable_as_described(l)));
        let masked = Text::build(&lines, |l| masked(&normalize(&unreachable_as_described(l))));
        Log {
            from_triton: names_triton(log),
            lines,
            norm,
            masked,
        }
    }
}

/// Whether `log` names Triton (ASCII case ignored): `triton` anywhere (its
/// package path, `mlir::triton::`, `triton_gpu`), or a Triton dialect op.
fn names_triton(log: &str) -> bool {
    const NEEDLE: &[u8] = b"triton";
    let bytes = log.as_bytes();
    let lower_match = bytes
        .windows(NEEDLE.len())
        .any(|w| w.eq_ignore_ascii_case(NEEDLE));
    lower_match || ["ttg.", "ttng.", "tt.func"].iter().any(|d| log.contains(d))
}

/// `line` as a site descriptor writes it when it is `llvm_unreachable`'s
/// own line: the process prints the message on one line and `UNREACHABLE
/// executed at /build/path/File.inc:347!` on the next; a descriptor joins
/// them as `message -- UNREACHABLE executed at File.inc:347!` (the file
/// without the build machine's directories). Any other line as it is.
fn unreachable_as_described(line: &str) -> std::borrow::Cow<'_, str> {
    const AT: &str = "UNREACHABLE executed at ";
    let trimmed = line.trim_start();
    match trimmed.strip_prefix(AT) {
        Some(path) => {
            let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
            format!("-- {AT}{file}").into()
        }
        None => line.into(),
    }
}

/// `s` with every run of whitespace as one space, trimmed.
pub(super) fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `s` (normalized) with every run of digits after a `:` (a line number)
/// as `N`: an `UNREACHABLE executed at X.inc:385!` of one release matches
/// another release's `:400`.
pub(super) fn masked(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut after_colon = false;
    let mut in_digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() && (after_colon || in_digits) {
            if !in_digits {
                out.push('N');
            }
            in_digits = true;
            after_colon = false;
            continue;
        }
        in_digits = false;
        after_colon = c == ':';
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_knows_its_line_across_wrapping() {
        let log = Log::read("first line\n\n  an assertion\n   wrapped   here\nlast");
        assert_eq!(log.norm.text, "first line an assertion wrapped here last");
        assert_eq!(log.norm.find("assertion wrapped").map(|m| m.1), Some(2));
        assert_eq!(log.norm.find("last").map(|m| m.1), Some(4));
        assert_eq!(log.norm.find("first").map(|m| m.1), Some(0));
        assert_eq!(log.norm.find("absent"), None);
        assert!(!log.from_triton);
        assert!(Log::read("/site-packages/TRITON/x.py").from_triton);
        assert!(Log::read("%0 = ttg.local_alloc").from_triton);
    }

    #[test]
    fn an_unreachable_reads_as_its_descriptor_writes_it() {
        let log = Log::read(
            "SharedEncodingAttr builder when the MMAEncodingAttr is Hopper has not been implemented yet\n\
             UNREACHABLE executed at /project/python/build/include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.cpp.inc:347!",
        );
        assert!(log.norm.text.ends_with(
            "implemented yet -- UNREACHABLE executed at TritonGPUAttrDefs.cpp.inc:347!"
        ));
        assert_eq!(log.norm.find("-- UNREACHABLE").map(|m| m.1), Some(1));
        assert_eq!(
            Log::read("an UNREACHABLE executed at /x/y.cpp:1! mid-line")
                .norm
                .text,
            "an UNREACHABLE executed at /x/y.cpp:1! mid-line"
        );
    }

    #[test]
    fn masking_hides_line_numbers_only() {
        assert_eq!(masked("at X.inc:385! v3.2"), "at X.inc:N! v3.2");
        assert_eq!(
            Log::read("a.cpp:12:\n3 b").masked.text,
            "a.cpp:N: 3 b",
            "a line ends the digits"
        );
    }
}
