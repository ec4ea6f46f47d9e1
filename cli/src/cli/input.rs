//! Reading input, bounded: a file or stdin at most [`MAX_INPUT`] bytes, a
//! batch line at most [`MAX_LINE`] bytes. Anything larger is refused with a
//! message that names the limit, before it is read into memory.

use std::io::{BufRead, Read};

/// The most a file or stdin may hold (32 MiB: the largest TTGIR dumps of
/// real kernels are a few MiB).
pub const MAX_INPUT: u64 = 32 << 20;

/// The most one line of a batch may hold (1 MiB).
pub const MAX_LINE: usize = 1 << 20;

/// `-` reads stdin; `@path` reads a file; anything else is the text itself.
pub fn read_arg(arg: &str) -> Result<String, String> {
    if arg == "-" {
        read_stdin()
    } else if let Some(path) = arg.strip_prefix('@') {
        read_file(path)
    } else {
        Ok(arg.to_string())
    }
}

/// All of stdin, as text.
pub fn read_stdin() -> Result<String, String> {
    read_bounded(std::io::stdin().lock(), "stdin")
}

/// A file, as text.
pub fn read_file(path: &str) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    read_bounded(file, path)
}

/// A log (a file, or stdin for `-`), as bytes: a stray byte that is not
/// UTF-8 (a binary fragment, another encoding) is replaced by U+FFFD, not a
/// reason to refuse the log. Also how many invalid sequences were replaced.
pub fn read_log(path: Option<&str>) -> Result<(String, usize), String> {
    let bytes = match path {
        None | Some("-") => read_bytes(std::io::stdin().lock(), "stdin")?,
        Some(path) => read_file_bytes(path)?,
    };
    let replaced = bytes
        .utf8_chunks()
        .filter(|chunk| !chunk.invalid().is_empty())
        .count();
    Ok((String::from_utf8_lossy(&bytes).into_owned(), replaced))
}

/// A file, as bytes, bounded by [`MAX_INPUT`] as text is.
pub fn read_file_bytes(path: &str) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    read_bytes(file, path)
}

fn read_bytes(source: impl Read, name: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    source
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(format!(
            "{name} holds more than {} MiB, the most this command reads",
            MAX_INPUT >> 20
        ));
    }
    Ok(bytes)
}

fn read_bounded(source: impl Read, name: &str) -> Result<String, String> {
    let bytes = read_bytes(source, name)?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name} is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// One line of a batch, or why it cannot be read as one.
pub enum Line {
    /// The text of the line (without its newline).
    Text(String),
    /// A line that is not UTF-8 text, or longer than [`MAX_LINE`].
    Bad(String),
}

/// The lines of `source`, numbered from 1, each bounded by [`MAX_LINE`]: a
/// line too long is skipped to its end and reported, not kept in memory.
/// Reading stops at the end of the input or at a read error (reported as
/// the last line).
pub fn lines(source: impl BufRead) -> impl Iterator<Item = (usize, Line)> {
    let mut source = source;
    let mut number = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        number += 1;
        let mut bytes = Vec::new();
        let mut too_long = false;
        loop {
            let chunk = match source.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    done = true;
                    return Some((number, Line::Bad(format!("cannot read input: {e}"))));
                }
            };
            if chunk.is_empty() {
                done = true;
                if bytes.is_empty() && !too_long {
                    return None;
                }
                break;
            }
            let (take, newline) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            if bytes.len() + take > MAX_LINE {
                too_long = true;
            } else {
                bytes.extend_from_slice(&chunk[..take]);
            }
            source.consume(take + usize::from(newline));
            if newline {
                break;
            }
        }
        if too_long {
            return Some((
                number,
                Line::Bad(format!("the line is longer than {} MiB", MAX_LINE >> 20)),
            ));
        }
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        Some(match String::from_utf8(bytes) {
            Ok(text) => (number, Line::Text(text)),
            Err(e) => (
                number,
                Line::Bad(format!(
                    "the line is not UTF-8 text (invalid byte at column {})",
                    e.utf8_error().valid_up_to() + 1
                )),
            ),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8]) -> Vec<String> {
        lines(std::io::Cursor::new(input.to_vec()))
            .map(|(n, l)| match l {
                Line::Text(t) => format!("{n}:{t}"),
                Line::Bad(why) => format!("{n}!{why}"),
            })
            .collect()
    }

    #[test]
    fn every_line_is_numbered_and_bad_ones_are_reported() {
        let mut input = b"a\n\xff\xfe\nb\r\n\nc".to_vec();
        assert_eq!(
            read(&input),
            [
                "1:a",
                "2!the line is not UTF-8 text (invalid byte at column 1)",
                "3:b",
                "4:",
                "5:c"
            ]
        );
        input.clear();
        assert!(read(&input).is_empty());
    }

    #[test]
    fn a_long_line_is_skipped_not_kept() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\nok\n");
        let got = read(&input);
        assert_eq!(got.len(), 2);
        assert!(got[0].starts_with("1!the line is longer"));
        assert_eq!(got[1], "2:ok");
    }
}
