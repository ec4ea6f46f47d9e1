//! Arbitrary bytes as one `eval` request: any answer is fine, a panic is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(line) = std::str::from_utf8(data) {
        let answer = linear_layout::eval::eval_line(line);
        assert!(answer.get("ok").is_some() || answer.get("error").is_some());
    }
});
