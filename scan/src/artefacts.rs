//! What a scan writes per site group: a standalone reproducer of the
//! user's kernel with the group's smallest configuration (run with
//! `--confirm`), and its TTGIR module reduced op by op, compiled with the
//! release to confirm it.

use super::cache::{Cache, JobResult};
use super::python::Interpreter;
use super::space::Inspection;
use super::{Progress, ScanError, ScanReport, ScanRequest, reduce, reproducer};
use linear_layout_triton::finder::Arch;
use linear_layout_triton::report::{Compiled, MinimalModule, Reproducer, confirms};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// What writing the artefacts reads.
pub(crate) struct Inputs<'a> {
    pub(crate) req: &'a ScanRequest,
    pub(crate) cache: &'a Cache,
    pub(crate) script: &'a Path,
    pub(crate) interps: &'a [Interpreter],
    pub(crate) inspections: &'a BTreeMap<Arch, Inspection>,
    pub(crate) entries: &'a BTreeMap<(usize, usize), JobResult>,
}

/// Writes, per site group, the reproducer and the minimal module (and
/// confirms the module with its release; with `--confirm`, runs the
/// reproducer too).
pub(crate) fn write(rep: &mut ScanReport, at: &Inputs, say: Progress) -> Result<(), ScanError> {
    let req = at.req;
    if rep.groups.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(&req.out_dir).map_err(|e| ScanError::create(&req.out_dir, e))?;
    let name = match &rep.subject {
        linear_layout_triton::report::Subject::Kernel(k) => k.name.clone(),
        linear_layout_triton::report::Subject::Space { .. } => String::new(),
    };
    for g in &mut rep.groups {
        let c = g.configs[0];
        let cfg = &rep.configs[c];
        let build = &rep.builds[g.build];
        let Some(entry) = at.entries.get(&(g.build, c)) else {
            continue;
        };
        let insp = &at.inspections[&cfg.arch];
        let stem = format!("{name}-{}-{}", build.name, g.site.id);
        // the reproducer
        let args = super::args::to_worker(&req.args, cfg.dtype.as_deref(), &cfg.kwargs);
        let mut kwargs = cfg.kwargs_json();
        kwargs.extend(entry.heuristics.clone());
        let expect = format!(
            "{} at {}: {}",
            g.verdict, g.site.id, g.failure.triton_message
        );
        let text = reproducer::script(&reproducer::Script {
            kernel: &req.kernel,
            name: &insp.name,
            source: &insp.source,
            args: &args,
            kwargs: &kwargs,
            options: &cfg.options(),
            target: cfg.arch.gpu_target(),
            wheel: &build.name,
            config: &cfg.to_string(),
            expect: &expect,
        });
        let path = req.out_dir.join(format!("repro-{stem}.py"));
        std::fs::write(&path, text).map_err(|e| ScanError::write(&path, e))?;
        let ran = match (&build.python, req.confirm) {
            (Some(python), true) => {
                say(&format!("running {}", path.display()));
                let out = std::process::Command::new(python)
                    .arg(&path)
                    .env("PYTHONDONTWRITEBYTECODE", "1")
                    .output();
                out.ok().map(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_string()
                })
            }
            _ => None,
        };
        g.reproducer = Some(Reproducer::Script { path, ran });
        // the minimal module
        if !req.reduce {
            continue;
        }
        let (Some(ttgir), Some(op)) = (&entry.ttgir, &g.op) else {
            continue;
        };
        let red_key = super::hash::hex(
            json!({"reduce": reduce::VERSION, "text": ttgir, "release": build.release.to_string(),
                   "site": g.site.id, "line": op.line})
            .to_string()
            .as_bytes(),
        );
        let red = match at.cache.get_json("reduce", &red_key) {
            Some(v) => v
                .get("text")
                .and_then(Value::as_str)
                .map(|t| reduce::Reduced {
                    text: t.to_string(),
                    ops_before: v["ops_before"].as_u64().unwrap_or(0) as usize,
                    ops_after: v["ops_after"].as_u64().unwrap_or(0) as usize,
                    line: v["line"].as_u64().unwrap_or(0) as usize,
                }),
            None => {
                say(&format!(
                    "reducing the {} module of {}",
                    build.name, g.site.id
                ));
                let red = reduce::reduce(ttgir, build.release, g.site, op.line);
                if let Some(red) = &red {
                    let _ = at.cache.put_json(
                        "reduce",
                        &red_key,
                        &json!({"text": red.text, "ops_before": red.ops_before,
                                "ops_after": red.ops_after, "line": red.line}),
                    );
                }
                red
            }
        };
        let Some(red) = red else {
            continue;
        };
        let expected = linear_layout_triton::finder::check_ttgir::check(&red.text, build.release)
            .ok()
            .and_then(|fs| fs.into_iter().find(|f| f.failure.site.id == g.site.id))
            .map_or(g.verdict, |f| f.verdict);
        let path = req.out_dir.join(format!("min-{stem}.ttgir"));
        std::fs::write(&path, &red.text).map_err(|e| ScanError::write(&path, e))?;
        let compiled = at.interps.get(g.build).and_then(|interp| {
            say(&format!(
                "compiling {} with Triton {}",
                path.display(),
                build.name
            ));
            super::driver::compile_module(
                at.cache,
                at.script,
                interp,
                cfg.arch,
                &red.text,
                req.timeout,
            )
            .ok()
            .map(|e| Compiled {
                status: e.status.ended(),
                message: e.message,
            })
        });
        let confirmed = compiled
            .as_ref()
            .map(|c| confirms(expected, Some(g.site), c.status, &c.message));
        g.minimal_module = Some(MinimalModule {
            path,
            ops_before: red.ops_before,
            ops_after: red.ops_after,
            expected,
            compiled,
            confirmed,
        });
    }
    Ok(())
}
