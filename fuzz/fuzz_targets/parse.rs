//! Arbitrary bytes into every layout parser; whatever parses must print and
//! parse back to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linear_layout::{LinearLayout, format};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(layout) = format::parse_any(text) else { return };
    let printed = layout.to_string();
    let again: LinearLayout = printed.parse().expect("printed text parses");
    assert_eq!(again, layout);
    let json = format::json::to_json_string(&layout);
    assert_eq!(format::json::from_json_str(&json).expect("printed JSON parses"), layout);
    if let Ok(attr) = format::ttgir::print_linear_attr(&layout, "ttg") {
        assert_eq!(format::ttgir::parse_linear_attr(&attr).expect("printed attribute parses"), layout);
    }
});
