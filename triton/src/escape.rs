//! Text from input made safe to print on a terminal.
//!
//! A crash log, a TTGIR file or a request may hold control characters: an
//! escape sequence (`ESC ]0;…BEL` retitles the window, `ESC [2J` clears it,
//! OSC 52 writes the clipboard), a carriage return that overwrites the
//! line, a bidirectional override that shows text in another order than it
//! is. Everything the tools echo from input goes through [`controls`],
//! which writes each such character as `\uXXXX`: visible, and the same
//! escape JSON uses, so JSON output stays valid JSON with the same value.
//!
//! A command the tools suggest for the user to paste (`explain`'s `scan`
//! command, `repro`'s `python3 …`) holds paths from input: each is written
//! as one shell word ([`shell_word`]), so that a path such as `x.py; curl
//! … | sh` stays a path.

use std::borrow::Cow;

/// Whether `c` is written escaped: C0 controls but newline and tab, DEL,
/// C1 controls (U+0080–U+009F: 8-bit CSI and OSC), and the invisible
/// characters that reorder or split text (bidirectional marks, embeddings,
/// overrides and isolates; line and paragraph separators).
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// `text` with every [`is_unsafe`] character written as `\uXXXX`
/// (borrowed when there is none).
pub fn controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            out += &format!("\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` as one word of a POSIX shell: as it is when it holds only
/// characters no shell treats specially, else in single quotes (a single
/// quote inside written `'\''`).
pub fn shell_word(s: &str) -> Cow<'_, str> {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=,@%".contains(c));
    if plain {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("'{}'", s.replace('\'', r"'\''")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_stay_one_word() {
        assert_eq!(shell_word("repro/x.py::k"), "repro/x.py::k");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("x.py; curl e | sh"), "'x.py; curl e | sh'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn escape_sequences_are_shown_not_sent() {
        assert_eq!(
            controls("a\u{1b}]0;pwned\u{7}b\r\nc\td"),
            "a\\u001b]0;pwned\\u0007b\\u000d\nc\td"
        );
        assert_eq!(controls("\u{9b}2J \u{202e}txt"), "\\u009b2J \\u202etxt");
        assert!(matches!(controls("plain ünïcode\n"), Cow::Borrowed(_)));
        // JSON output stays JSON with the same value
        let json = serde_json::json!({"m": "x\u{85}y\u{2028}"}).to_string();
        let back: serde_json::Value = serde_json::from_str(&controls(&json)).unwrap();
        assert_eq!(back["m"], "x\u{85}y\u{2028}");
    }
}
