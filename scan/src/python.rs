//! The Python side of a scan: which interpreter runs each Triton release
//! (managed virtual environments, created on demand, or ones the user
//! names), and the worker processes that drive each release's front end.

use super::ScanError;
use linear_layout_triton::finder::Arch;
use linear_layout_triton::{RELEASES, Release};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The worker script, embedded in the binary and written into the cache
/// directory when first needed.
pub const WORKER: &str = include_str!("worker.py");

/// Every Triton wheel a scan can run, oldest first, with the modelled
/// release its verdicts are checked with: each release's `wheels` in
/// [`RELEASES`].
pub fn wheels() -> Vec<(&'static str, Release)> {
    RELEASES
        .iter()
        .flat_map(|info| info.wheels.iter().map(move |w| (*w, info.release)))
        .collect()
}

/// `3.2.0` → `3.2`.
pub fn minor(wheel: &str) -> String {
    wheel.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// The interpreter that runs one wheel.
#[derive(Clone, Debug)]
pub struct Interpreter {
    /// The wheel (`3.2.0`), or the name the user gave with `--python`.
    pub wheel: String,
    /// The modelled release that checks its TTGIR.
    pub release: Release,
    /// The `python` executable.
    pub python: PathBuf,
    /// What identifies it in cache keys: the wheel of a managed
    /// environment, or the path and modification time of a named one.
    pub id: String,
}

/// Where interpreters come from.
#[derive(Clone, Debug, Default)]
pub struct PythonOptions {
    /// The managed environments' directory (`venv-X.Y.Z/` inside it).
    pub venv_dir: PathBuf,
    /// `--python NAME=PATH`: NAME is a wheel (`3.2.0`) or a minor (`3.2`).
    pub named: Vec<(String, PathBuf)>,
    /// Create missing environments (`pip install triton==X.Y.Z`).
    pub install: bool,
    /// Only these wheels or minors; `all` for every one; empty: the
    /// release installed beside `base_python`, the newest, and those
    /// `named` ([`crate::releases`]).
    pub only: Vec<String>,
    /// The interpreter that creates environments (`python3`).
    pub base_python: String,
}

/// The interpreters found, and the wheels that could not be scanned.
#[derive(Clone, Debug, Default)]
pub struct Interpreters {
    /// Found, oldest wheel first.
    pub found: Vec<Interpreter>,
    /// `(wheel, why)` for each wheel asked for but not available.
    pub missing: Vec<(String, String)>,
}

/// Whether `name` (`3.2`, `3.2.0`) names `wheel`.
pub(crate) fn matches(name: &str, wheel: &str) -> bool {
    name == wheel || name == minor(wheel) || (name.split('.').count() == 2 && minor(wheel) == name)
}

/// The python of a managed environment, if it looks installed.
fn managed(dir: &Path, wheel: &str) -> Option<PathBuf> {
    let venv = dir.join(format!("venv-{wheel}"));
    let python = venv.join("bin").join("python");
    let lib = venv.join("lib");
    let has_triton = std::fs::read_dir(&lib).ok()?.flatten().any(|py| {
        py.path()
            .join("site-packages")
            .join("triton")
            .join("__init__.py")
            .is_file()
    });
    (python.is_file() && has_triton).then_some(python)
}

/// Creates `venv-WHEEL` with `triton==WHEEL`; the python, or why not.
fn install(opts: &PythonOptions, wheel: &str, say: &dyn Fn(&str)) -> Result<PathBuf, ScanError> {
    let venv = opts.venv_dir.join(format!("venv-{wheel}"));
    std::fs::create_dir_all(&opts.venv_dir).map_err(|e| ScanError::create(&opts.venv_dir, e))?;
    say(&format!(
        "installing triton=={wheel} into {} …",
        venv.display()
    ));
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        let status = Command::new(&opts.base_python)
            .args(["-m", "venv"])
            .arg(&venv)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|source| ScanError::Spawn {
                program: opts.base_python.clone(),
                source,
            })?;
        if !status.status.success() {
            return Err(ScanError::Failed {
                command: format!("{} -m venv", opts.base_python),
                message: String::from_utf8_lossy(&status.stderr).trim().to_string(),
            });
        }
    }
    let out = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--retries",
            "1",
            "--timeout",
            "20",
        ])
        .arg(format!("triton=={wheel}"))
        .output()
        .map_err(|source| ScanError::Spawn {
            program: "pip".to_string(),
            source,
        })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(ScanError::Failed {
            command: format!("pip install triton=={wheel}"),
            message: last.trim().to_string(),
        });
    }
    managed(&opts.venv_dir, wheel).ok_or_else(|| ScanError::InstalledButMissing {
        wheel: wheel.to_string(),
    })
}

/// The interpreter of every wheel asked for, installing what is missing
/// when `opts.install` (progress lines through `say`).
pub fn resolve(opts: &PythonOptions, say: &dyn Fn(&str)) -> Interpreters {
    let mut out = Interpreters::default();
    let selected = super::releases::selected(opts);
    let named = |wheel: &str| opts.named.iter().rev().find(|(n, _)| matches(n, wheel));
    // Say what will be downloaded, and how big it is, before any of it is.
    if opts.install {
        let to_install: Vec<&str> = selected
            .iter()
            .copied()
            .filter(|w| named(w).is_none() && managed(&opts.venv_dir, w).is_none())
            .collect();
        if !to_install.is_empty() {
            let sizes = super::releases::downloads(&opts.base_python, &to_install);
            say(&super::releases::notice(&sizes, &opts.venv_dir));
        }
    }
    for (wheel, release) in wheels() {
        if !selected.contains(&wheel) {
            continue;
        }
        if let Some((name, path)) = named(wheel) {
            let mtime = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            out.found.push(Interpreter {
                wheel: wheel.to_string(),
                release,
                python: path.clone(),
                id: format!("{name}@{}:{mtime}", path.display()),
            });
            continue;
        }
        let python = match managed(&opts.venv_dir, wheel) {
            Some(p) => Ok(p),
            None if opts.install => install(opts, wheel, say),
            None => Err(ScanError::NotInstalled {
                venv_dir: opts.venv_dir.clone(),
                minor: minor(wheel),
            }),
        };
        match python {
            Ok(python) => out.found.push(Interpreter {
                wheel: wheel.to_string(),
                release,
                python,
                id: format!("triton=={wheel}"),
            }),
            Err(why) => out.missing.push((wheel.to_string(), why.to_string())),
        }
    }
    out
}

/// Writes the worker script into `dir` (once per script version) and
/// returns its path.
pub fn worker_script(dir: &Path) -> Result<PathBuf, ScanError> {
    let path = dir.join(format!(
        "worker-{}.py",
        &super::hash::hex(WORKER.as_bytes())[..12]
    ));
    if !path.is_file() {
        std::fs::create_dir_all(dir).map_err(|e| ScanError::create(dir, e))?;
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, WORKER).map_err(|e| ScanError::write(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| ScanError::write(&path, e))?;
    }
    Ok(path)
}

/// How a worker is started: the kernel, its import path and the target.
#[derive(Clone, Debug)]
pub struct WorkerSpec<'a> {
    /// The worker script.
    pub script: &'a Path,
    /// `path/file.py::name` or `module::name`.
    pub kernel: Option<&'a str>,
    /// Extra import directories.
    pub paths: &'a [PathBuf],
    /// The target (`sm_90`, `gfx942`, …); the worker gets
    /// [`Arch::ttgir_target`] (`cuda:90`, `hip:gfx942`).
    pub arch: Arch,
    /// Seconds per job.
    pub timeout: u64,
    /// Where the worker's own stderr goes (a file), if anywhere.
    pub log: Option<&'a Path>,
}

fn command(python: &Path, spec: &WorkerSpec, what: &str) -> Command {
    let mut cmd = Command::new(python);
    cmd.arg(spec.script).arg(what);
    if let Some(k) = spec.kernel {
        cmd.arg("--kernel").arg(k);
    }
    for p in spec.paths {
        cmd.arg("--path").arg(p);
    }
    cmd.arg("--target")
        .arg(spec.arch.ttgir_target())
        .arg("--timeout")
        .arg(spec.timeout.to_string())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("MLIR_ENABLE_DUMP")
        .env_remove("TRITON_KERNEL_OVERRIDE");
    cmd
}

fn stderr_to(log: Option<&Path>) -> Stdio {
    log.and_then(|p| std::fs::File::create(p).ok())
        .map_or_else(Stdio::null, Stdio::from)
}

/// Runs `inspect` once: the kernel's parameters, autotune configurations,
/// heuristics, code digest and standalone source.
pub fn inspect(python: &Path, spec: &WorkerSpec, args: &Value) -> Result<Value, ScanError> {
    let mut cmd = command(python, spec, "inspect");
    cmd.arg("--args").arg(args.to_string());
    run_once(python, cmd, spec)
}

/// Runs `capture`: calls `module:function`, which launches kernels, and
/// answers the first launch (`{"kernel", "args", "options", "file"}`).
pub fn capture(python: &Path, spec: &WorkerSpec, call: &str) -> Result<Value, ScanError> {
    let mut cmd = command(python, spec, "capture");
    cmd.arg("--call").arg(call);
    run_once(python, cmd, spec)
}

/// Runs a one-shot worker command: its last JSON line, unless that is an
/// error.
fn run_once(python: &Path, mut cmd: Command, spec: &WorkerSpec) -> Result<Value, ScanError> {
    let out = cmd
        .stdin(Stdio::null())
        .stderr(stderr_to(spec.log))
        .output()
        .map_err(|source| spawn_error(python, source))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let value: Value = text
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .and_then(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| ScanError::NoAnswer {
            python: python.to_path_buf(),
            status: out.status,
        })?;
    match value.get("error").and_then(Value::as_str) {
        Some(e) => Err(ScanError::Worker(e.to_string())),
        None => Ok(value),
    }
}

fn spawn_error(python: &Path, source: std::io::Error) -> ScanError {
    ScanError::Spawn {
        program: python.display().to_string(),
        source,
    }
}

/// A running `serve` worker: one release, one target, one kernel.
pub struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Its first line: `{"hello", "triton", "error", "torch"}`.
    pub hello: Value,
}

impl Worker {
    /// Starts the worker and reads its greeting.
    pub fn start(python: &Path, spec: &WorkerSpec) -> Result<Worker, ScanError> {
        let mut child = command(python, spec, "serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr_to(spec.log))
            .spawn()
            .map_err(|source| spawn_error(python, source))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().ok_or(ScanError::WorkerExited)?);
        let mut worker = Worker {
            child,
            stdin,
            stdout,
            hello: Value::Null,
        };
        worker.hello = worker.read()?;
        Ok(worker)
    }

    fn read(&mut self) -> Result<Value, ScanError> {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(ScanError::WorkerPipe)?;
            if n == 0 {
                return Err(ScanError::WorkerExited);
            }
            if line.trim_start().starts_with('{') {
                return serde_json::from_str(&line).map_err(ScanError::WorkerReply);
            }
        }
    }

    /// Sends one job and waits for its answer.
    pub fn request(&mut self, job: &Value) -> Result<Value, ScanError> {
        let stdin = self.stdin.as_mut().ok_or(ScanError::WorkerExited)?;
        writeln!(stdin, "{job}")
            .and_then(|()| stdin.flush())
            .map_err(ScanError::WorkerPipe)?;
        self.read()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}
