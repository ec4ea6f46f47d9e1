//! Colours.

/// 32 light colours for warps, black text readable on each (contrast at
/// least 6.7:1): 12 hues at three lightness levels of OKLCH, ordered so
/// that each next colour is the farthest (in OKLab) from those before it.
/// The first 8 are at least 0.14 apart, all 32 at least 0.05.
pub(super) const PALETTE: [&str; 32] = [
    "#b0deff", "#df7b07", "#a67fec", "#04b199", "#fe8fb6", "#aec353", "#fecca6", "#02a3eb",
    "#a9eab3", "#04cee5", "#fdc0f9", "#9ab5fe", "#e46897", "#f99f54", "#8fa506", "#cc70c9",
    "#ea6c5d", "#40b25d", "#6f91fa", "#bb9205", "#18d4b8", "#dcb23a", "#e896e4", "#72d084",
    "#ff9688", "#c2a5fe", "#09abbe", "#61c2ff", "#ddcffe", "#81eafb", "#fec5d7", "#d0e195",
];
/// Hatch patterns laid over the colour for warps 32 and up.
pub(super) const PATTERNS: u128 = 6;
pub(super) const NOBODY_FILL: &str = "#e6e6e6";

/// The fill of a warp: a palette colour and, past the palette, a pattern
/// (1..=PATTERNS; 0: none). Distinct for the first 32 × 7 warps.
pub(super) fn paint(group: u128) -> (&'static str, u128) {
    let colour = PALETTE[(group % PALETTE.len() as u128) as usize];
    (colour, (group / PALETTE.len() as u128) % (PATTERNS + 1))
}

pub(super) fn pattern_def(p: u128) -> String {
    let stroke = r##"stroke="#000" stroke-opacity="0.45" stroke-width="1.2""##;
    let body = match p {
        1 => format!(r#"<path d="M-1 1L1 -1M0 6L6 0M5 7L7 5" {stroke}/>"#),
        2 => format!(r#"<path d="M-1 5L1 7M0 0L6 6M5 -1L7 1" {stroke}/>"#),
        3 => format!(r#"<path d="M0 3H6" {stroke}/>"#),
        4 => format!(r#"<path d="M3 0V6" {stroke}/>"#),
        5 => r##"<circle cx="3" cy="3" r="1.3" fill="#000" fill-opacity="0.45"/>"##.to_string(),
        _ => format!(r#"<path d="M0 3H6M3 0V6" {stroke}/>"#),
    };
    format!(
        r#"<pattern id="hatch{p}" patternUnits="userSpaceOnUse" width="6" height="6">{body}</pattern>"#
    )
}

/// The colour of offset `o` of `n`: light blue through green and yellow
/// to orange, so the order of memory reads off the picture.
pub(super) fn ramp(o: u64, n: u128) -> String {
    const STOPS: [(u8, u8, u8); 4] = [
        (0xc6, 0xdb, 0xef),
        (0xc7, 0xe9, 0xc0),
        (0xff, 0xf3, 0xb0),
        (0xfd, 0xc0, 0x8a),
    ];
    let span = (n.max(2) - 1) as f64;
    let t = (o as f64 / span).clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (t.floor() as usize).min(STOPS.len() - 2);
    let f = t - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}
