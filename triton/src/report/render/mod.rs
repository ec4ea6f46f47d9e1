//! A [`Report`](super::Report) printed, one function per format, the
//! same for `search` and `scan`: [`text()`] for people, [`json()`] for
//! tools (everything the text shows, and more), [`junit()`] for CI (one
//! test case per configuration and build of a scan), [`html()`] for
//! sharing (one self-contained page: the summary table, each site group
//! with its reproducer, fix and workaround, and pictures of the layouts
//! its smallest configuration holds its tiles in).
//!
//! Both print the same sections in the same order: what was looked at
//! (the [`Subject`](super::Subject)'s own header), the lowering's failures
//! by build and site, the regressions, the front-end rejections and
//! failures, the assembler's risks, the confirmations. The text leaves out a section with nothing
//! in it (saying so only for the failures); the JSON keeps it, empty. A
//! new format is one more function of the report here; a new text layout,
//! one more field of [`TextOptions`].

mod html;
mod json;
mod junit;
mod risks;
mod text;

pub use html::{HtmlOptions, html};
pub use json::{fix_json, json};
pub use junit::junit;
pub use text::{TextOptions, text};

/// `1 configuration`, `2 configurations`.
fn configurations(n: u64) -> String {
    if n == 1 {
        "1 configuration".to_string()
    } else {
        format!("{n} configurations")
    }
}
