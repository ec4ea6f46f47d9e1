//! The scan itself: interpreters, the kernel's inspection and space,
//! every front end (from the cache or in workers), the model over every
//! module, the confirmations and the artefacts.

use super::args::{ArgValue, Dim};
use super::cache::{self, Cache, JobResult, JobStatus};
use super::python::{self, Interpreter, Worker, WorkerSpec};
use super::space::{self, Inspection, ScanConfig};
use super::{Progress, ScanError, ScanReport, ScanRequest, artefacts, hash, report};
use linear_layout_triton::finder::Arch;
use linear_layout_triton::finder::check_ttgir::{self, Finding};
use linear_layout_triton::report::{ConfigOutcome, Timing};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

/// The request with what `--call`'s launch says filled in.
fn with_capture(
    req: &ScanRequest,
    script: &std::path::Path,
    interp: &Interpreter,
    call: &str,
    say: Progress,
) -> Result<ScanRequest, ScanError> {
    say(&format!(
        "running {call} to capture its launch (Triton {})",
        interp.wheel
    ));
    let arch = req.axes.archs.first().copied().unwrap_or(Arch::Sm90);
    let spec = WorkerSpec {
        script,
        kernel: None,
        paths: &req.paths,
        arch,
        timeout: req.timeout,
        log: None,
    };
    let call_error = |e: ScanError| ScanError::Call {
        call: call.to_string(),
        source: Box::new(e),
    };
    let v = python::capture(&interp.python, &spec, call).map_err(call_error)?;
    let mut out = req.clone();
    out.kernel = v["kernel"]
        .as_str()
        .ok_or(call_error(ScanError::Incomplete("kernel")))?
        .to_string();
    if let Some(args) = v["args"].as_object() {
        for (name, value) in args {
            if out.args.iter().any(|(n, _)| n == name) {
                continue;
            }
            let value = match value {
                Value::Object(o) if o.contains_key("ptr") => ArgValue::Ptr {
                    dtype: o["ptr"].as_str().unwrap_or("fp32").to_string(),
                    aligned: o.get("aligned").and_then(Value::as_bool).unwrap_or(true),
                },
                Value::Object(o) if o.contains_key("desc") => ArgValue::Desc {
                    dtype: o["desc"].as_str().unwrap_or("fp32").to_string(),
                    block: o
                        .get("block")
                        .and_then(Value::as_array)
                        .map(|b| b.iter().filter_map(Value::as_u64).map(Dim::Size).collect())
                        .unwrap_or_default(),
                },
                Value::Object(o) if o.contains_key("tl") => {
                    ArgValue::TlDtype(o["tl"].as_str().unwrap_or("float32").to_string())
                }
                Value::String(s) => ArgValue::Str(s.clone()),
                other => ArgValue::from_json(other)?,
            };
            out.args.push((name.clone(), value));
        }
    }
    let opt = |k: &str| {
        v["options"]
            .get(k)
            .and_then(Value::as_u64)
            .map(|n| vec![n as u32])
    };
    if out.axes.num_warps.is_empty() {
        out.axes.num_warps = opt("num_warps").unwrap_or_default();
    }
    if out.axes.num_stages.is_empty() {
        out.axes.num_stages = opt("num_stages").unwrap_or_default();
    }
    if out.axes.num_ctas.is_empty() {
        out.axes.num_ctas = opt("num_ctas").unwrap_or_default();
    }
    // the launch's other options, one value each, where no axis sets them
    if let Some(options) = v["options"].as_object() {
        for (name, value) in options {
            if ["num_warps", "num_stages", "num_ctas"].contains(&name.as_str())
                || out.axes.options.iter().any(|(n, _)| n == name)
            {
                continue;
            }
            let value = ArgValue::from_json(value)?;
            if let Err(reason) = super::configs::check_option(name, &value) {
                say(&format!(
                    "the launch's option {name}={value} is not scanned: {reason}"
                ));
                continue;
            }
            out.axes.options.push((name.clone(), vec![value]));
        }
    }
    out.call = None;
    Ok(out)
}

/// One job for a worker.
struct Job {
    release: usize,
    config: usize,
    key: String,
    request: Value,
}

/// The jobs still to run, by (release, target). A worker serves one
/// group; several workers share a large one, so that one release and one
/// target still keep `--jobs` workers busy.
struct Pending {
    groups: Vec<PendingGroup>,
}

struct PendingGroup {
    release: usize,
    arch: Arch,
    jobs: std::collections::VecDeque<Job>,
    /// Workers serving the group now.
    servers: usize,
}

impl Pending {
    /// A worker's start-up (importing Triton and the kernel's module:
    /// 0.25–0.6 s) costs about as much as six front ends (70–110 ms each):
    /// another worker joins a group only for at least this many jobs each.
    const WORTH_A_WORKER: usize = 6;

    fn new(jobs: Vec<Job>, configs: &[ScanConfig]) -> Self {
        let mut by_group: BTreeMap<(usize, Arch), std::collections::VecDeque<Job>> =
            BTreeMap::new();
        for j in jobs {
            by_group
                .entry((j.release, configs[j.config].arch))
                .or_default()
                .push_back(j);
        }
        let groups = by_group
            .into_iter()
            .map(|((release, arch), jobs)| PendingGroup {
                release,
                arch,
                jobs,
                servers: 0,
            })
            .collect();
        Pending { groups }
    }

    fn len(&self) -> usize {
        self.groups.iter().map(|g| g.jobs.len()).sum()
    }

    /// The next job for a worker serving group `current` (None: no worker
    /// yet): from its own group while that has jobs, else from the group
    /// with the most jobs left per worker serving it, which a worker then
    /// has to be started for. A group already served is joined only while
    /// each of its workers would still have [`Pending::WORTH_A_WORKER`]
    /// jobs. None when nothing is left for this worker.
    fn next(&mut self, current: Option<usize>) -> Option<(Served, Job)> {
        if let Some(g) = current {
            if let Some(job) = self.groups[g].jobs.pop_front() {
                return Some((self.served(g), job));
            }
            self.groups[g].servers -= 1;
        }
        let g = (0..self.groups.len())
            .filter(|&g| {
                let grp = &self.groups[g];
                grp.servers == 0 && !grp.jobs.is_empty()
                    || grp.jobs.len() >= Self::WORTH_A_WORKER * (grp.servers + 1)
            })
            .max_by(|&a, &b| {
                let share = |g: usize| {
                    let grp = &self.groups[g];
                    // jobs per worker once this one joins, compared exactly
                    (grp.jobs.len(), grp.servers + 1)
                };
                let ((ja, sa), (jb, sb)) = (share(a), share(b));
                (ja * sb).cmp(&(jb * sa)).then(b.cmp(&a))
            })?;
        self.groups[g].servers += 1;
        let job = self.groups[g].jobs.pop_front()?;
        Some((self.served(g), job))
    }

    fn served(&self, group: usize) -> Served {
        let g = &self.groups[group];
        Served {
            group,
            release: g.release,
            arch: g.arch,
        }
    }
}

/// The group a job came from.
#[derive(Clone, Copy)]
struct Served {
    group: usize,
    release: usize,
    arch: Arch,
}

/// Runs every job in workers, `jobs` at a time, each worker serving one
/// (release, target) at a time; each answer is stored in the cache as it
/// comes.
fn run_jobs(run: &Run, kind: &str, jobs: Vec<Job>) -> BTreeMap<(usize, usize), JobResult> {
    let Run {
        req,
        cache,
        script,
        interps,
        configs,
        say,
        ..
    } = *run;
    let pending = Pending::new(jobs, configs);
    let total = pending.len();
    // more threads than jobs would only start workers that wait
    let threads = req.jobs.clamp(1, total.max(1));
    let done = Mutex::new((0usize, BTreeMap::new()));
    let pending = Mutex::new(pending);
    let started = Instant::now();
    std::thread::scope(|s| {
        for thread in 0..threads {
            let (pending, done) = (&pending, &done);
            s.spawn(move || {
                let mut serving: Option<(usize, Result<Worker, ScanError>)> = None;
                loop {
                    let current = serving.as_ref().map(|(g, _)| *g);
                    let next = pending
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .next(current);
                    let Some((
                        Served {
                            group: g,
                            release,
                            arch,
                        },
                        job,
                    )) = next
                    else {
                        return;
                    };
                    let interp = &interps[release];
                    let log = cache.root().join("logs").join(format!(
                        "worker-{}-{}-{thread}.log",
                        interp.wheel,
                        arch.name()
                    ));
                    let spec = WorkerSpec {
                        script,
                        kernel: Some(&req.kernel),
                        paths: &req.paths,
                        arch,
                        timeout: req.timeout,
                        log: Some(&log),
                    };
                    if current != Some(g) {
                        let _ = std::fs::create_dir_all(cache.root().join("logs"));
                        serving = Some((g, Worker::start(&interp.python, &spec)));
                    }
                    let Some((_, worker)) = serving.as_mut() else {
                        return;
                    };
                    let answer = match worker.as_mut() {
                        Ok(w) => w.request(&job.request).map_err(|e| e.to_string()),
                        Err(e) => Err(e.to_string()),
                    };
                    let entry = match answer {
                        Ok(v) => JobResult::from_worker(&v),
                        Err(e) => {
                            // the worker itself died: start a fresh one for the rest
                            *worker = Worker::start(&interp.python, &spec);
                            JobResult::ended(JobStatus::Abort, format!("the worker died: {e}"))
                        }
                    };
                    let transient = entry.message.starts_with("the worker died");
                    if !transient {
                        if let Err(e) = cache.put(kind, &job.key, &entry, req.timeout) {
                            say(&format!("warning: {e}"));
                        }
                    }
                    let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
                    d.0 += 1;
                    let n = d.0;
                    d.1.insert((job.release, job.config), entry);
                    drop(d);
                    let secs = started.elapsed().as_secs_f64();
                    say(&format!(
                        "{kind}: {n}/{total} (Triton {} {}) {:.0} s, about {:.0} s left",
                        interp.wheel,
                        arch.name(),
                        secs,
                        secs / n as f64 * (total - n) as f64
                    ));
                }
            });
        }
    });
    done.into_inner().unwrap_or_else(|e| e.into_inner()).1
}

/// Inspects the kernel for each target with the newest interpreter,
/// reusing the cached answer while the files it was read from are
/// unchanged.
fn inspect_all(
    req: &ScanRequest,
    cache: &Cache,
    script: &std::path::Path,
    interp: &Interpreter,
    say: Progress,
) -> Result<BTreeMap<Arch, Inspection>, ScanError> {
    let args_json: BTreeMap<String, Value> = req
        .args
        .iter()
        .map(|(n, v)| (n.clone(), v.to_worker()))
        .collect();
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut out = BTreeMap::new();
    for &arch in &req.axes.archs {
        let index_key = hash::hex(
            json!({"kernel": req.kernel, "cwd": cwd, "paths": req.paths, "arch": arch.name(),
                   "python": interp.id, "worker": hash::hex(python::WORKER.as_bytes())})
            .to_string()
            .as_bytes(),
        );
        let cached = cache.get_json("inspect", &index_key).and_then(|v| {
            let files: BTreeMap<String, String> =
                serde_json::from_value(v.get("files")?.clone()).ok()?;
            let names: Vec<String> = files.keys().cloned().collect();
            (cache::file_hashes(&names) == files).then(|| v.get("result").cloned())?
        });
        let result = match cached {
            Some(r) => r,
            None => {
                say(&format!(
                    "inspecting {} for {} with Triton {}",
                    req.kernel,
                    arch.name(),
                    interp.wheel
                ));
                let log = cache.root().join("logs").join("inspect.log");
                let _ = std::fs::create_dir_all(cache.root().join("logs"));
                let spec = WorkerSpec {
                    script,
                    kernel: Some(&req.kernel),
                    paths: &req.paths,
                    arch,
                    timeout: req.timeout,
                    log: Some(&log),
                };
                let r = python::inspect(&interp.python, &spec, &json!(args_json))
                    .map_err(|e| e.for_kernel(&req.kernel))?;
                let files: Vec<String> = r
                    .get("files")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                let _ = cache.put_json(
                    "inspect",
                    &index_key,
                    &json!({"files": cache::file_hashes(&files), "result": r}),
                );
                r
            }
        };
        out.insert(arch, Inspection::from_json(&result)?);
    }
    Ok(out)
}

/// Checks the arguments against the kernel's parameters: every name is a
/// parameter, every parameter without a default has a value somewhere.
fn check_args(
    req: &ScanRequest,
    insp: &Inspection,
    configs: &[ScanConfig],
) -> Result<(), ScanError> {
    let names: Vec<&str> = insp.params.iter().map(|p| p.0.as_str()).collect();
    let given = req
        .args
        .iter()
        .map(|(n, _)| n)
        .chain(req.axes.constexprs.iter().map(|(n, _)| n))
        .chain(
            req.axes
                .configs
                .iter()
                .flat_map(|b| b.kwargs.iter().map(|(n, _)| n)),
        );
    for n in given {
        if !names.contains(&n.as_str()) {
            return Err(ScanError::UnknownParameter {
                kernel: insp.name.clone(),
                name: n.clone(),
                params: names.iter().map(|p| p.to_string()).collect(),
            });
        }
    }
    // a descriptor's named block dimension is one of the kernel's
    // constexprs (given, or computed by heuristics)
    for (_, v) in &req.args {
        if let ArgValue::Desc { block, .. } = v {
            for d in block {
                if let Dim::Name(n) = d {
                    if !names.contains(&n.as_str()) && !insp.heuristics.contains(n) {
                        return Err(ScanError::UnknownParameter {
                            kernel: insp.name.clone(),
                            name: format!("{n} (a descriptor's block dimension)"),
                            params: names.iter().map(|p| p.to_string()).collect(),
                        });
                    }
                }
            }
        }
    }
    let uses_t = req
        .args
        .iter()
        .any(|(_, v)| matches!(v, ArgValue::Ptr { dtype, .. } | ArgValue::Desc { dtype, .. } if dtype == "T"));
    if !req.axes.dtypes.is_empty() && !uses_t {
        return Err(ScanError::UnusedDtype);
    }
    if uses_t && req.axes.dtypes.is_empty() {
        return Err(ScanError::MissingDtype);
    }
    let Some(first) = configs.first() else {
        return Ok(());
    };
    let missing: Vec<String> = insp
        .params
        .iter()
        .filter(|(n, _, default)| {
            default.is_none()
                && !req.args.iter().any(|(a, _)| a == n)
                && !first.kwargs.iter().any(|(k, _)| k == n)
                && !insp.heuristics.contains(n)
        })
        .map(|(n, _, _)| n.clone())
        .collect();
    if !missing.is_empty() {
        return Err(ScanError::MissingValues {
            kernel: insp.name.clone(),
            names: missing,
        });
    }
    Ok(())
}

/// The findings of the model on one module, as a compile from source
/// meets them: a layout definition the release's parser refuses only
/// matters when TTGIR text is parsed, and this module was printed by the
/// release itself.
pub fn check_module(text: &str, release: linear_layout_triton::Release) -> Vec<Finding> {
    check_ttgir::check(text, release)
        .map(|fs| fs.into_iter().filter(|f| !f.op.starts_with('#')).collect())
        .unwrap_or_default()
}

/// Scans the kernel: every configuration of its space, in every release
/// found. The pipeline, step by step: the interpreters, the kernel's own
/// launch (`--call`), its inspection and space, every front end (cached or
/// in workers), the model on every module, the confirming compiles, and
/// per failing site the reproducer and the minimal module.
pub fn scan(req: &ScanRequest, say: Progress) -> Result<ScanReport, ScanError> {
    let t0 = Instant::now();
    let cache = Cache::new(req.cache_dir.clone());
    let script = python::worker_script(req.cache_dir.as_path())?;
    let interps = python::resolve(&req.python, say);
    let Some(newest) = interps.found.last().cloned() else {
        return Err(ScanError::NoRelease {
            not_scanned: interps.missing,
        });
    };
    let captured;
    let req = match &req.call {
        Some(call) => {
            captured = with_capture(req, &script, &newest, call, say)?;
            &captured
        }
        None => req,
    };
    let inspections = inspect_all(req, &cache, &script, &newest, say)?;
    let configs = space::expand(&req.axes, &|arch| {
        inspections
            .get(&arch)
            .map(|i| i.autotune.clone())
            .unwrap_or_default()
    });
    let first = inspections.values().next().ok_or(ScanError::NoTarget)?;
    check_args(req, first, &configs)?;
    let run = Run {
        req,
        cache: &cache,
        script: &script,
        interps: &interps.found,
        inspections: &inspections,
        configs: &configs,
        say,
    };
    let inspect_s = t0.elapsed().as_secs_f64();
    let (entries, mut timing) = front_ends(&run);
    timing.inspect_s = inspect_s;

    let t_check = Instant::now();
    let outcomes = report::outcomes(&interps.found, &configs, &entries);
    let risks = report::risk_groups(&interps.found, &configs, &entries);
    timing.check_s = t_check.elapsed().as_secs_f64();
    let mut rep = report::build(req, &interps, first, &configs, outcomes, timing);
    rep.risks = risks;

    if req.confirm {
        confirm(&run, &mut rep);
    }
    let inputs = artefacts::Inputs {
        req,
        cache: &cache,
        script: &script,
        interps: &interps.found,
        inspections: &inspections,
        entries: &entries,
    };
    artefacts::write(&mut rep, &inputs, say)?;
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}

/// What every step after the inspection reads.
struct Run<'a> {
    req: &'a ScanRequest,
    cache: &'a Cache,
    script: &'a std::path::Path,
    interps: &'a [Interpreter],
    inspections: &'a BTreeMap<Arch, Inspection>,
    configs: &'a [ScanConfig],
    say: Progress<'a>,
}

/// Every (release, configuration)'s front end: from the cache, else run in
/// workers; configurations whose front ends are the same (a constexpr the
/// code never reads, an integer of the same specialisation) run once.
/// The timing's front-end part and counts are filled in.
fn front_ends(run: &Run) -> (BTreeMap<(usize, usize), JobResult>, Timing) {
    let mut entries: BTreeMap<(usize, usize), JobResult> = BTreeMap::new();
    let mut pending = Vec::new();
    let mut twins: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for (r, interp) in run.interps.iter().enumerate() {
        for (c, cfg) in run.configs.iter().enumerate() {
            let insp = &run.inspections[&cfg.arch];
            let key = space::front_end_key("front_end", insp, &run.req.args, cfg, &interp.id);
            match run.cache.get("front_end", &key, run.req.timeout) {
                Some(e) => {
                    entries.insert((r, c), e);
                }
                None => {
                    let same = twins.entry(key.clone()).or_default();
                    if same.is_empty() {
                        pending.push(Job {
                            release: r,
                            config: c,
                            key: key.clone(),
                            request: space::job("front_end", c, &run.req.args, cfg),
                        });
                    }
                    same.push((r, c));
                }
            }
        }
    }
    let cached = entries.len();
    let ran = pending.len();
    if ran > 0 {
        (run.say)(&format!(
            "{ran} front ends to run ({cached} cached), up to {} worker(s) at a time",
            run.req.jobs.clamp(1, ran)
        ));
    }
    let t_front = Instant::now();
    entries.extend(run_jobs(run, "front_end", pending));
    let front_end_s = t_front.elapsed().as_secs_f64();
    for same in twins.values() {
        if let Some(e) = same.first().and_then(|first| entries.get(first)).cloned() {
            for rc in &same[1..] {
                entries.insert(*rc, e.clone());
            }
        }
    }
    let timing = Timing {
        inspect_s: 0.0,
        front_end_s,
        check_s: 0.0,
        cached,
        ran,
    };
    (entries, timing)
}

/// Real compiles of the failing configurations and of a sample of the
/// passing ones (`confirm_passing` a release), each recorded in the report.
fn confirm(run: &Run, rep: &mut ScanReport) {
    let mut jobs = Vec::new();
    for (r, interp) in run.interps.iter().enumerate() {
        let mut passing = 0;
        for (c, cfg) in run.configs.iter().enumerate() {
            let wanted = match &rep.outcomes[r][c] {
                ConfigOutcome::Fails { .. } => true,
                ConfigOutcome::Passes => {
                    passing += 1;
                    passing <= run.req.confirm_passing
                }
                _ => false,
            };
            if !wanted {
                continue;
            }
            let insp = &run.inspections[&cfg.arch];
            let key = space::front_end_key("compile", insp, &run.req.args, cfg, &interp.id);
            match run.cache.get("compile", &key, run.req.timeout) {
                Some(e) => report::confirm(rep, r, c, &e),
                None => jobs.push(Job {
                    release: r,
                    config: c,
                    key,
                    request: space::job("compile", c, &run.req.args, cfg),
                }),
            }
        }
    }
    if !jobs.is_empty() {
        (run.say)(&format!("confirming: {} full compiles", jobs.len()));
    }
    for ((r, c), e) in run_jobs(run, "compile", jobs) {
        report::confirm(rep, r, c, &e);
    }
}

/// Compiles a TTGIR module with one release (in a worker), cached by text.
pub(crate) fn compile_module(
    cache: &Cache,
    script: &std::path::Path,
    interp: &Interpreter,
    arch: Arch,
    text: &str,
    timeout: u64,
) -> Result<JobResult, ScanError> {
    let key = hash::hex(
        json!({"kind": "compile_ir", "python": interp.id, "cap": super::space::target_key(arch), "text": text,
               "worker": hash::hex(python::WORKER.as_bytes())})
        .to_string()
        .as_bytes(),
    );
    if let Some(e) = cache.get("compile_ir", &key, timeout) {
        return Ok(e);
    }
    let spec = WorkerSpec {
        script,
        kernel: None,
        paths: &[],
        arch,
        timeout,
        log: None,
    };
    let mut w = Worker::start(&interp.python, &spec)?;
    let answer = w.request(&json!({"id": 0, "op": "compile_ir", "ttgir": text}))?;
    let mut e = JobResult::from_worker(&answer);
    e.ttgir = None;
    cache.put("compile_ir", &key, &e, timeout)?;
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(sizes: &[usize]) -> Pending {
        let groups = sizes
            .iter()
            .enumerate()
            .map(|(g, &n)| PendingGroup {
                release: g,
                arch: Arch::Sm90,
                jobs: (0..n)
                    .map(|c| Job {
                        release: g,
                        config: c,
                        key: String::new(),
                        request: Value::Null,
                    })
                    .collect(),
                servers: 0,
            })
            .collect();
        Pending { groups }
    }

    #[test]
    fn two_workers_share_one_group_and_take_each_job_once() {
        let mut p = pending(&[13]);
        let (mut a, mut b) = (None, None);
        let mut seen = Vec::new();
        while let Some((s, job)) = p.next(a) {
            a = Some(s.group);
            seen.push(job.config);
            if let Some((s, job)) = p.next(b) {
                b = Some(s.group);
                seen.push(job.config);
            }
        }
        assert_eq!(
            (a, b),
            (Some(0), Some(0)),
            "both workers served the one group"
        );
        assert_eq!(seen, (0..13).collect::<Vec<_>>(), "in order, each once");
        assert_eq!(p.len(), 0);
    }

    #[test]
    fn a_short_group_is_not_worth_a_second_worker() {
        let mut p = pending(&[12]);
        assert!(p.next(None).is_some());
        // 11 left: not 6 for each of two workers
        assert!(p.next(None).is_none());
        for _ in 0..11 {
            assert_eq!(p.next(Some(0)).unwrap().0.group, 0);
        }
        assert!(p.next(Some(0)).is_none());
        assert_eq!(p.len(), 0);
    }

    #[test]
    fn a_worker_keeps_its_group_and_a_new_one_goes_where_most_is_left() {
        let mut p = pending(&[2, 14]);
        let (first, _) = p.next(None).unwrap();
        assert_eq!(first.group, 1, "the larger group first");
        let (second, _) = p.next(None).unwrap();
        // group 1 has 13 left for 2 workers, group 0 has 2 for 1: 6.5 > 2
        assert_eq!(second.group, 1);
        let (third, _) = p.next(None).unwrap();
        // group 1: 12 left is not 6 for each of 3 workers; group 0 has no worker
        assert_eq!(third.group, 0);
        for _ in 0..12 {
            assert_eq!(p.next(Some(1)).unwrap().0.group, 1);
        }
        // group 1 is empty; group 0's last job is its own worker's
        assert!(p.next(Some(1)).is_none());
        assert_eq!(p.next(Some(0)).unwrap().0.group, 0);
        assert!(p.next(Some(0)).is_none());
        assert_eq!(p.len(), 0);
    }
}
