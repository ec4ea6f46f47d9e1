//! `linear-layout scan`: the user's kernel, every release.

use super::Found;
use super::input::read_file;
use clap::Args;
use linear_layout_scan::{
    ArgValue, Axes, DTYPES, PythonOptions, ScanRequest, check_option, configs_from_json,
    default_cache_dir, parse_args, parse_axis, parse_config, parse_option_axis, scan,
};
use linear_layout_triton::finder::Arch;
use linear_layout_triton::finder::check_ttgir;
use linear_layout_triton::finder::layouts::{self, TileLayout};
use linear_layout_triton::report::Report;
use linear_layout_triton::report::render::{self, TextOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Args)]
#[command(
    after_help = "The kernel is named as `path/file.py::kernel` or `package.module::kernel`; \
    --args gives its arguments as they are passed at launch: `x=*fp16` (a tensor; `*T` takes the \
    --dtype axis; `*fp16:unaligned`), `N=4096` (an integer, specialised as the launcher does), \
    `M=i32` (an integer of no known value), `eps=1e-5` or `fp32`, `True`, `None`, `tl.float32`, \
    `\"ieee\"`, `desc:*bf16[64,BLOCK_K]` (a host TensorDescriptor, Triton 3.4+, its block shape \
    powers of two or constexpr names); a constexpr takes its value the same way. The kernel's \
    @triton.autotune configs are the space (or an explicit list: --config 'BLOCK_M=64, \
    num_warps=4, maxnreg=128', --configs FILE.json); the axes replace their values (--num-warps \
    4,8 gives each config 4 and 8 warps; --option launch_pdl=True,False a launch option's; a \
    release whose back end lacks an option reports it as a front-end failure). A spec file (TOML \
    or JSON) holds the same: kernel, path, [args], configs, [space] with dtype, num_warps, \
    num_stages, num_ctas, arch, autotune, [space.constexpr] and [space.option]; options on the \
    command line add to it. Risks (a bundled assembler known to miscompile some modules) are \
    listed and change no verdict.\n\nExit status: 0 when no compiler failure is found (front-end \
    rejections do not count), 1 when one is, 2 on bad input."
)]
pub struct ScanArgs {
    /// The kernel: `path/file.py::kernel` or `package.module::kernel`.
    kernel: Option<String>,
    /// A spec file (`.toml` or `.json`): kernel, path, args, space.
    #[arg(long)]
    spec: Option<String>,
    /// Instead of naming the kernel: `module:function`, a callable that
    /// launches it with example (CPU) tensors; its first launch gives the
    /// kernel, its arguments and options (needs torch, or tensor-like
    /// objects, in the release's environment).
    #[arg(long, conflicts_with = "kernel")]
    call: Option<String>,
    /// The kernel's arguments: `x=*fp16, y=*fp16, N=4096, BLOCK=128`.
    #[arg(long)]
    args: Option<String>,
    /// A constexpr axis: `BLOCK=64,128` (repeatable).
    #[arg(long)]
    constexpr: Vec<String>,
    /// A launch option's values: `maxnreg=128,255`, `launch_pdl=True,False`
    /// (repeatable; a release whose back end lacks the option reports each
    /// configuration as a front-end failure that says so).
    #[arg(long, value_name = "NAME=V1,V2")]
    option: Vec<String>,
    /// One configuration of an explicit list: `BLOCK_M=64, num_warps=4,
    /// num_stages=3, maxnreg=128` (repeatable); the list replaces the
    /// kernel's autotune configs, and the axes widen each.
    #[arg(long, value_name = "K=V, …")]
    config: Vec<String>,
    /// A JSON file holding a configuration list: `[{"BLOCK_M": 64,
    /// "num_warps": 4}, …]` (or `{"kwargs": {…}, "num_warps": 4}` each).
    #[arg(long, value_name = "FILE")]
    configs: Option<String>,
    /// Warps (replacing each configuration's).
    #[arg(long, value_delimiter = ',')]
    num_warps: Vec<u32>,
    /// Stages.
    #[arg(long, value_delimiter = ',')]
    num_stages: Vec<u32>,
    /// CTAs per cluster (Hopper).
    #[arg(long, value_delimiter = ',')]
    num_ctas: Vec<u32>,
    /// The values of `T` in the argument types.
    #[arg(long, value_delimiter = ',')]
    dtype: Vec<String>,
    /// Targets (default sm80,sm90; AMD's gfx90a, gfx942, gfx950, gfx1100,
    /// gfx1201, gfx1250 from Triton 3.4).
    #[arg(long, value_delimiter = ',')]
    arch: Vec<Arch>,
    /// Ignore the kernel's @triton.autotune configs (start from Triton's
    /// defaults: 4 warps, 3 stages).
    #[arg(long)]
    no_autotune: bool,
    /// The releases to scan: `3.2`, `3.5.1`, … or `all` (3.1 to the
    /// newest). Default: the Triton installed beside `python3` (yours) and
    /// the newest, plus any named with --python. Missing ones are
    /// installed into managed environments, after a notice of what will be
    /// downloaded and its size (`linear-layout envs` lists and removes
    /// them).
    #[arg(long, value_delimiter = ',')]
    triton: Vec<String>,
    /// The interpreter of a release: `3.2=/path/to/python` (repeatable).
    #[arg(long)]
    python: Vec<String>,
    /// The managed environments' directory (`venv-X.Y.Z` inside it;
    /// default: the cache directory's `venvs`).
    #[arg(long)]
    venv_dir: Option<PathBuf>,
    /// Do not install missing releases (scan only those installed).
    #[arg(long)]
    no_install: bool,
    /// An extra import directory (repeatable).
    #[arg(long)]
    path: Vec<PathBuf>,
    /// The cache directory (default $LINEAR_LAYOUT_CACHE, else
    /// ~/.cache/linear-layout).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Where reproducers and minimal modules are written (default: the
    /// cache's reports/KERNEL).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker processes at a time, 1 to 256 (default: the CPUs).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
    /// Seconds per front end, compile or import of the kernel's module, 1
    /// to 86400.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    /// Compile the failing configurations (and a sample of passing ones)
    /// for real, run each reproducer, and say which predictions hold.
    #[arg(long)]
    confirm: bool,
    /// Passing configurations per release that --confirm compiles.
    #[arg(long, default_value_t = 2)]
    confirm_passing: usize,
    /// No minimal TTGIR modules.
    #[arg(long)]
    no_reduce: bool,
    /// Print the report as JSON (everything the text shows).
    #[arg(long)]
    json: bool,
    /// Also write the report as JUnit XML to FILE (one test case per
    /// configuration and release, failing with the site, Triton's message
    /// and the reproducer), for CI.
    #[arg(long, value_name = "FILE")]
    junit: Option<std::path::PathBuf>,
    /// Also write the report as one self-contained HTML page to FILE (the
    /// release × site table, each site's reproducer, fix and workaround,
    /// and pictures of the layouts its failing op reads and writes in the
    /// minimal TTGIR module; no script, no link out), to share. Written
    /// like --junit's FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<std::path::PathBuf>,
    /// List every failing configuration of a site (up to 4), not one per
    /// shape (those that differ only in element type, stages or target).
    #[arg(long)]
    all_variants: bool,
    /// No progress on stderr.
    #[arg(long)]
    quiet: bool,
}

/// A spec file's content.
#[derive(Default)]
struct Spec {
    kernel: Option<String>,
    paths: Vec<PathBuf>,
    args: Vec<(String, ArgValue)>,
    axes: Axes,
}

fn list<T>(
    v: Option<&Value>,
    what: &str,
    f: impl Fn(&Value) -> Option<T>,
) -> Result<Vec<T>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| f(x).ok_or_else(|| format!("{what}: cannot read `{x}`")))
            .collect(),
        Some(x) => f(x)
            .map(|v| vec![v])
            .ok_or_else(|| format!("{what}: cannot read `{x}`")),
    }
}

fn read_spec(path: &str) -> Result<Spec, String> {
    let text = read_file(path)?;
    let value: Value = if path.ends_with(".json") || text.trim_start().starts_with('{') {
        // strictly: a key given twice is an error, not the last one kept
        linear_layout::eval::parse_strict(&text).map_err(|e| format!("{path}: {e}"))?
    } else {
        toml::from_str(&text).map_err(|e| format!("{path}: {e}"))?
    };
    let base = Path::new(path).parent().unwrap_or(Path::new("."));
    let mut spec = Spec::default();
    let obj = value
        .as_object()
        .ok_or(format!("{path}: expected a table"))?;
    for key in obj.keys() {
        if !["kernel", "path", "args", "space", "configs"].contains(&key.as_str()) {
            return Err(format!(
                "{path}: unknown key `{key}` (kernel, path, args, space, configs)"
            ));
        }
    }
    spec.kernel = obj.get("kernel").and_then(Value::as_str).map(|k| {
        // a file path in the spec is relative to the spec
        match k.split_once("::") {
            Some((file, name)) if file.ends_with(".py") && !Path::new(file).is_absolute() => {
                format!("{}::{name}", base.join(file).display())
            }
            _ => k.to_string(),
        }
    });
    spec.paths = list(obj.get("path"), "path", |v| {
        v.as_str().map(|p| base.join(p))
    })?;
    if let Some(args) = obj.get("args") {
        let args = args
            .as_object()
            .ok_or(format!("{path}: [args] must be a table"))?;
        for (name, v) in args {
            let value = ArgValue::from_json(v).map_err(|e| format!("{path}: args.{name}: {e}"))?;
            spec.args.push((name.clone(), value));
        }
    }
    spec.axes.autotune = true;
    if let Some(configs) = obj.get("configs") {
        spec.axes.configs =
            configs_from_json(configs).map_err(|e| format!("{path}: configs: {e}"))?;
    }
    if let Some(space) = obj.get("space") {
        let space = space
            .as_object()
            .ok_or(format!("{path}: [space] must be a table"))?;
        let num = |v: &Value| v.as_u64().map(|n| n as u32);
        for (key, v) in space {
            match key.as_str() {
                "num_warps" => spec.axes.num_warps = list(Some(v), key, num)?,
                "num_stages" => spec.axes.num_stages = list(Some(v), key, num)?,
                "num_ctas" => spec.axes.num_ctas = list(Some(v), key, num)?,
                "dtype" => spec.axes.dtypes = list(Some(v), key, |x| x.as_str().map(String::from))?,
                "arch" => {
                    spec.axes.archs = list(Some(v), key, |x| x.as_str()?.parse::<Arch>().ok())?
                }
                "autotune" => spec.axes.autotune = v.as_bool().unwrap_or(true),
                "constexpr" => {
                    let table = v
                        .as_object()
                        .ok_or(format!("{path}: [space.constexpr] must be a table"))?;
                    for (name, values) in table {
                        let values = list(Some(values), name, |x| ArgValue::from_json(x).ok())?;
                        spec.axes.constexprs.push((name.clone(), values));
                    }
                }
                "option" => {
                    let table = v
                        .as_object()
                        .ok_or(format!("{path}: [space.option] must be a table"))?;
                    for (name, values) in table {
                        let values = list(Some(values), name, |x| ArgValue::from_json(x).ok())?;
                        for x in &values {
                            check_option(name, x)
                                .map_err(|e| format!("{path}: space.option.{name}: {e}"))?;
                        }
                        spec.axes.options.push((name.clone(), values));
                    }
                }
                other => {
                    return Err(format!(
                        "{path}: unknown [space] key `{other}` (dtype, num_warps, num_stages, num_ctas, arch, \
                         autotune, constexpr, option)"
                    ));
                }
            }
        }
    }
    Ok(spec)
}

fn request(a: &ScanArgs) -> Result<(ScanRequest, bool), String> {
    let mut spec = match &a.spec {
        Some(p) => read_spec(p)?,
        None => Spec {
            axes: Axes {
                autotune: true,
                ..Axes::default()
            },
            ..Spec::default()
        },
    };
    let kernel = a
        .kernel
        .clone()
        .or(spec.kernel.take())
        .or_else(|| a.call.as_ref().map(|c| format!("{c} (called)")))
        .ok_or("give the kernel: `linear-layout scan path/file.py::kernel` (or kernel = … in --spec, or --call module:function)")?;
    if a.call.as_ref().is_some_and(|c| !c.contains(':')) {
        return Err("--call: expected module:function".into());
    }
    if a.call.is_none() && !kernel.contains("::") && !kernel.contains(':') {
        return Err(format!(
            "`{kernel}`: name the kernel as path/file.py::kernel or package.module::kernel"
        ));
    }
    if let Some(text) = &a.args {
        for (n, v) in parse_args(text).map_err(|e| e.to_string())? {
            spec.args.retain(|(m, _)| *m != n);
            spec.args.push((n, v));
        }
    }
    for c in &a.constexpr {
        let (n, v) = parse_axis(c).map_err(|e| format!("--constexpr {e}"))?;
        spec.axes.constexprs.retain(|(m, _)| *m != n);
        spec.axes.constexprs.push((n, v));
    }
    for o in &a.option {
        let (n, v) = parse_option_axis(o).map_err(|e| format!("--option {e}"))?;
        spec.axes.options.retain(|(m, _)| *m != n);
        spec.axes.options.push((n, v));
    }
    if let Some(file) = &a.configs {
        let text = read_file(file)?;
        let value: Value = linear_layout::eval::parse_strict(&text)
            .map_err(|e| format!("--configs {file}: {e}"))?;
        spec.axes.configs =
            configs_from_json(&value).map_err(|e| format!("--configs {file}: {e}"))?;
    }
    for (i, c) in a.config.iter().enumerate() {
        let base = parse_config(c).map_err(|e| format!("--config #{}: {e}", i + 1))?;
        if i == 0 && a.configs.is_none() {
            spec.axes.configs.clear();
        }
        spec.axes.configs.push(base);
    }
    let or = |given: &[u32], spec: &mut Vec<u32>| {
        if !given.is_empty() {
            *spec = given.to_vec();
        }
    };
    or(&a.num_warps, &mut spec.axes.num_warps);
    or(&a.num_stages, &mut spec.axes.num_stages);
    or(&a.num_ctas, &mut spec.axes.num_ctas);
    for w in spec
        .axes
        .num_warps
        .iter()
        .chain(&spec.axes.num_stages)
        .chain(&spec.axes.num_ctas)
    {
        if *w == 0 {
            return Err("--num-warps, --num-stages and --num-ctas take positive values".into());
        }
    }
    if !a.dtype.is_empty() {
        spec.axes.dtypes = a.dtype.clone();
    }
    for d in &spec.axes.dtypes {
        if !DTYPES.contains(&d.as_str()) || d == "T" {
            return Err(format!("--dtype {d}: unknown element type"));
        }
    }
    if !a.arch.is_empty() {
        spec.axes.archs = a.arch.clone();
    }
    if spec.axes.archs.is_empty() {
        spec.axes.archs = vec![Arch::Sm80, Arch::Sm90];
    }
    if a.no_autotune {
        spec.axes.autotune = false;
    }
    let mut named = Vec::new();
    for p in &a.python {
        let (name, path) = p.split_once('=').ok_or_else(|| {
            format!("--python {p}: expected RELEASE=PATH (e.g. 3.2=/usr/bin/python3)")
        })?;
        if name.parse::<linear_layout_triton::Release>().is_err() {
            return Err(format!("--python {p}: `{name}` is not a Triton release"));
        }
        named.push((name.trim().to_string(), PathBuf::from(path.trim())));
    }
    for t in &a.triton {
        if t != "all" && t.parse::<linear_layout_triton::Release>().is_err() {
            return Err(format!(
                "--triton {t}: not a Triton release (3.1 … 3.9, a wheel such as 3.5.1, or all)"
            ));
        }
    }
    // A file that is not there is said before any release is installed
    // (a typo must not cost a download).
    if a.call.is_none() {
        if let Some((file, _)) = kernel.rsplit_once("::") {
            let named = std::path::Path::new(file);
            let found = named.is_file()
                || a.path.iter().any(|dir| dir.join(named).is_file())
                || !(file.ends_with(".py") || file.contains('/'));
            if !found {
                return Err(format!("{kernel}: no such file: {file}"));
            }
        }
    }
    let cache_dir = a.cache_dir.clone().unwrap_or_else(default_cache_dir);
    let name: String = kernel
        .split_whitespace()
        .next()
        .unwrap_or("kernel")
        .rsplit([':', '.', '/'])
        .next()
        .unwrap_or("kernel")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let jobs = a.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get),
        usize::from,
    );
    let mut paths = spec.paths;
    paths.extend(a.path.iter().cloned());
    let req = ScanRequest {
        kernel,
        paths,
        args: spec.args,
        axes: spec.axes,
        python: PythonOptions {
            venv_dir: a
                .venv_dir
                .clone()
                .unwrap_or_else(|| cache_dir.join("venvs")),
            named,
            install: !a.no_install,
            only: a.triton.clone(),
            base_python: "python3".into(),
        },
        out_dir: a
            .out
            .clone()
            .unwrap_or_else(|| cache_dir.join("reports").join(&name)),
        cache_dir,
        jobs: jobs.max(1),
        timeout: a.timeout.max(1),
        confirm: a.confirm,
        confirm_passing: a.confirm_passing,
        reduce: !a.no_reduce,
        call: a.call.clone(),
    };
    Ok((req, a.json))
}

pub fn run(a: ScanArgs) -> Result<Found, String> {
    if let Some(path) = &a.junit {
        let spelled = path.to_str().ok_or("--junit: the path is not UTF-8")?;
        super::output::plain_path(spelled, "--junit")?;
    }
    if let Some(path) = &a.html {
        let spelled = path.to_str().ok_or("--html: the path is not UTF-8")?;
        super::output::plain_path(spelled, "--html")?;
    }
    let (req, json) = request(&a)?;
    let quiet = a.quiet;
    let last = Mutex::new(Instant::now() - std::time::Duration::from_secs(10));
    let say = move |msg: &str| {
        if quiet {
            return;
        }
        let counter =
            msg.contains('/') && (msg.starts_with("front_end:") || msg.starts_with("compile:"));
        if counter {
            let mut l = last.lock().unwrap_or_else(|e| e.into_inner());
            if l.elapsed().as_secs_f64() < 1.0 {
                return;
            }
            *l = Instant::now();
        }
        eprintln!("scan: {msg}");
    };
    let report = scan(&req, &say).map_err(|e| e.to_string())?;
    let text = if json {
        format!("{}\n", render::json(&report))
    } else {
        // every configuration of a group is listed up to this many, and
        // rejections in full: a scan's space is the user's own
        let options = TextOptions {
            show: 4,
            all_rejections: true,
            all_variants: a.all_variants,
        };
        render::text(&report, &options)
    };
    if let Some(path) = &a.junit {
        super::output::write_file(path, render::junit(&report).as_bytes())?;
    }
    if let Some(path) = &a.html {
        let options = render::HtmlOptions {
            show: 4,
            layouts: failing_op_layouts(&report),
            ..render::HtmlOptions::default()
        };
        super::output::write_file(path, render::html(&report, &options).as_bytes())?;
    }
    super::print_out(&text)?;
    Ok(Found::when(report.found_failure()))
}

/// For the HTML page: the layouts of each group's failing op, read from its
/// minimal TTGIR module (the line `check-ttgir` blames for the group's
/// site). A group without a module, or whose module cannot be read or no
/// longer fails there, has none.
fn failing_op_layouts<C>(report: &Report<C>) -> Vec<(usize, String, Vec<TileLayout>)> {
    let mut out = Vec::new();
    for (i, g) in report.groups.iter().enumerate() {
        let Some(m) = &g.minimal_module else {
            continue;
        };
        let Some(path) = m.path.to_str() else {
            continue;
        };
        let Ok(text) = super::input::read_file(path) else {
            continue;
        };
        let release = report.builds[g.build].release;
        let Ok(findings) = check_ttgir::check(&text, release) else {
            continue;
        };
        if let Some(f) = findings.iter().find(|f| f.failure.site.id == g.site.id) {
            let source = format!("the failing {} of the minimal TTGIR module", f.op);
            out.push((i, source, layouts::op_layouts(&text, f.line, release)));
        }
    }
    out
}
