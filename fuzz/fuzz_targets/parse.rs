//! Arbitrary bytes into every layout parser; whatever parses must print and
//! parse back to itself (in Triton's text only when its dim names fit that
//! format: no line breaks, no surrounding spaces, no ` (size `). The same
//! bytes, read as a TTGIR module, go through `check-ttgir`'s site models for
//! every release: a finding or a typed error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linear_layout_triton::finder::check_ttgir;
use linear_layout_triton::Release;
use linear_layout::{LinearLayout, format};

fn text_safe(l: &LinearLayout) -> bool {
    l.in_dim_names().chain(l.out_dim_names()).all(|d| {
        let n = d.name();
        !n.contains(|c: char| c.is_control())
            && n.trim() == n
            && !n.contains(" (size ")
            && !n.ends_with(" is a size 1 dimension")
            && !n.starts_with("(empty layout")
            && !n.starts_with("where out dims are:")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for release in Release::ALL {
        let _ = check_ttgir::check(text, release);
    }
    let Ok(layout) = format::parse_any(text) else { return };
    if text_safe(&layout) {
        let printed = layout.to_string();
        let again: LinearLayout = printed.parse().expect("printed text parses");
        assert_eq!(again, layout);
    }
    let json = format::json::to_json_string(&layout);
    assert_eq!(format::json::from_json_str(&json).expect("printed JSON parses"), layout);
    if let Ok(attr) = format::ttgir::print_linear_attr(&layout, "ttg") {
        assert_eq!(format::ttgir::parse_linear_attr(&attr).expect("printed attribute parses"), layout);
    }
});
