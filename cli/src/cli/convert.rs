//! `linear-layout convert`: a Triton layout attribute as a linear layout.

use super::batch::{self, Answer};
use super::input::read_arg;
use clap::Args;
use linear_layout::format::json::to_json_string;
use linear_layout_triton::release::release_help;
use linear_layout_triton::request::convert_request;
use linear_layout_triton::view;
use linear_layout_triton::{Conversion, Defs, Release, parse_attr, to_linear_layout};

#[derive(Args)]
#[command(after_help = "Example:\n  linear-layout convert --shape 64x256 \
    '#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>' --view\n\n\
    With --batch, each stdin line is {\"attr\", \"shape\", \"elem_bits\"?, \"triton\"?, \"defs\"? (TTGIR text), \
    \"defs_file\"? (a path)} and each output line {\"ok\": LAYOUT_JSON}, {\"none\": REASON} or {\"error\": {\"kind\", \
    \"message\"}}; a request's \"id\" is echoed in its answer, and every line gets one answer.\n\n\
    Exit status: 0 on success (an error answer in --batch included), 2 on bad input or usage \
    (it predicts nothing, so never 1).")]
pub struct ConvertArgs {
    /// The attribute: TTGIR text such as `#ttg.blocked<{...}>`, or `#name`
    /// defined in --defs. `-` reads stdin, `@FILE` reads a file.
    attr: Option<String>,
    /// The tensor shape, e.g. `64x256`.
    #[arg(long)]
    shape: Option<String>,
    #[arg(long, default_value = "latest", help = release_help())]
    triton: Release,
    /// A TTGIR file whose `#name = ...` definitions the attribute may use.
    #[arg(long)]
    defs: Option<String>,
    /// Element bit width (3.2's leading-offset shared layouts need it).
    #[arg(long)]
    elem_bits: Option<u64>,
    /// Print the layout as JSON.
    #[arg(long, conflicts_with_all = ["view", "svg"])]
    json: bool,
    /// Print which (warp, lane, register) — or shared offset — holds each element.
    #[arg(long, conflicts_with = "svg")]
    view: bool,
    /// Draw the same as an SVG picture into FILE (legend, axis names, a
    /// colour per warp, marks on elements held more than once). FILE is
    /// written atomically (a temporary file renamed into place); an empty
    /// name, or a FILE that is a symbolic link or a directory, is refused.
    #[arg(long, value_name = "FILE")]
    svg: Option<String>,
    /// With --view or --svg: only the rows (dim0) A..B (A up to B-1), for a
    /// layout too large to show whole.
    #[arg(long, value_name = "A..B")]
    rows: Option<String>,
    /// With --view or --svg: only the columns (dim1) A..B.
    #[arg(long, value_name = "A..B")]
    cols: Option<String>,
    /// With --svg: the cell size in pixels (default: what keeps the picture
    /// readable).
    #[arg(long, value_name = "PIXELS")]
    zoom: Option<u32>,
    /// Read JSON Lines requests from stdin instead.
    #[arg(long, conflicts_with_all = ["attr", "shape", "json", "view", "svg"])]
    batch: bool,
}

fn parse_shape(s: &str) -> Result<Vec<u64>, String> {
    s.split(['x', 'X', ','])
        .map(|p| {
            let p = p.trim();
            p.parse::<u64>().map_err(|e| match e.kind() {
                std::num::IntErrorKind::PosOverflow => format!(
                    "bad shape `{s}`: `{p}` is too large (a tensor holds at most 2^30 elements)"
                ),
                _ => format!("bad shape `{s}`: `{p}` is not a number (write e.g. 64x256)"),
            })
        })
        .collect()
}

pub fn run(args: ConvertArgs) -> Result<(), String> {
    if args.batch {
        return batch::run(|request| Answer::plain(convert_request(request))).map(|_| ());
    }
    let attr_text = read_arg(
        args.attr
            .as_deref()
            .ok_or("give an attribute (or --batch); see --help")?,
    )?;
    let shape = parse_shape(
        args.shape
            .as_deref()
            .ok_or("give --shape, e.g. --shape 64x256")?,
    )?;
    let version = args.triton;
    let defs = match &args.defs {
        Some(path) => {
            let text = super::input::read_file(path)?;
            Defs::from_module(&text).map_err(|e| format!("{path}: {e}"))?
        }
        None => Defs::new(),
    };
    let attr = parse_attr(attr_text.trim(), &defs).map_err(|e| e.to_string())?;
    let layout = match to_linear_layout(&attr, &shape, version, args.elem_bits)
        .map_err(|e| e.to_string())?
    {
        Conversion::Layout(l) => l,
        Conversion::NoLayout(reason) => {
            super::print_out(&format!(
                "Triton {version} has no linear layout for this attribute: {reason}\n"
            ))?;
            return Ok(());
        }
    };
    let window = view::Window::parse(args.rows.as_deref(), args.cols.as_deref())?;
    if window.is_some() && !(args.view || args.svg.is_some()) {
        return Err("--rows and --cols choose what --view or --svg show; give one of them".into());
    }
    if args.zoom.is_some() && args.svg.is_none() {
        return Err("--zoom sizes the cells of an --svg picture; give --svg FILE".into());
    }
    if args.json {
        super::print_out(&format!("{}\n", to_json_string(&layout)))?;
    } else if let Some(path) = &args.svg {
        let opts = view::SvgOptions {
            window,
            cell_px: args.zoom,
            ..view::SvgOptions::default()
        };
        super::output::plain_path(path, "--svg")?;
        let svg = view::svg(&layout, &opts)?;
        super::output::write_file(std::path::Path::new(path), svg.as_bytes())?;
        super::print_out(&format!("wrote {path}\n"))?;
    } else if args.view {
        super::print_out(&view::holders_table(&layout, window.as_ref())?)?;
    } else {
        super::print_out(&format!("{layout}\n"))?;
    }
    Ok(())
}
