//! The on-disk cache: what each release's front end made of each
//! configuration (the TTGIR, or how it failed), keyed on exactly what
//! changes the TTGIR ([`super::space::front_end_key`]), and each kernel's
//! inspection, keyed on the files it was read from. Verdicts are never
//! cached: the TTGIR is checked again on every scan, so a newer model
//! applies at once.

use super::ScanError;
use linear_layout_triton::report::RunStatus;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The default cache directory: `$LINEAR_LAYOUT_CACHE`, else
/// `$XDG_CACHE_HOME/linear-layout`, else `~/.cache/linear-layout`.
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LINEAR_LAYOUT_CACHE") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("linear-layout");
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join(".cache")
        .join("linear-layout")
}

/// How a worker's job ended.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    /// The front end finished: the TTGIR handed to the lowering.
    Ttgir,
    /// A full compile (or a module's) finished.
    Ok,
    /// Python raised.
    Error,
    /// The process died on a signal.
    Abort,
    /// No result in time.
    Timeout,
}

impl JobStatus {
    /// How the run ended, as a report says it (the front end finishing is
    /// `ok`).
    pub fn ended(self) -> RunStatus {
        match self {
            JobStatus::Ttgir | JobStatus::Ok => RunStatus::Ok,
            JobStatus::Error => RunStatus::Error,
            JobStatus::Abort => RunStatus::Abort,
            JobStatus::Timeout => RunStatus::Timeout,
        }
    }
}

/// What one release's front end (or full compile) made of a configuration.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobResult {
    /// How it ended.
    pub status: JobStatus,
    /// The key line of a failure (an assertion, a diagnostic, the Python
    /// exception).
    #[serde(default)]
    pub message: String,
    /// The Python exception, for an error.
    #[serde(default)]
    pub exception: Option<String>,
    /// The stage running when it ended (`ttir`, `ttgir`, `llir`, …).
    #[serde(default)]
    pub stage: Option<String>,
    /// The signal that ended the process, for an abort.
    #[serde(default)]
    pub signal: Option<i64>,
    /// Seconds the worker's child took.
    #[serde(default)]
    pub seconds: f64,
    /// The last lines of the child's stderr, for a failure.
    #[serde(default)]
    pub stderr_tail: Vec<String>,
    /// The constexprs `@triton.heuristics` computed.
    #[serde(default)]
    pub heuristics: BTreeMap<String, Value>,
    /// The TTGIR (kept in a file of its own beside the entry).
    #[serde(skip)]
    pub ttgir: Option<String>,
}

impl JobResult {
    /// A result of which only the ending is known (no child ran, or none
    /// answered).
    pub fn ended(status: JobStatus, message: String) -> JobResult {
        JobResult {
            status,
            message,
            exception: None,
            stage: None,
            signal: None,
            seconds: 0.0,
            stderr_tail: Vec::new(),
            heuristics: BTreeMap::new(),
            ttgir: None,
        }
    }

    /// The worker's answer as an entry.
    pub fn from_worker(v: &Value) -> JobResult {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let status = v
            .get("status")
            .and_then(|s| JobStatus::deserialize(s).ok())
            .unwrap_or(JobStatus::Error);
        JobResult {
            status,
            message: s("message").unwrap_or_default(),
            exception: s("exception"),
            stage: s("stage"),
            signal: v.get("signal").and_then(Value::as_i64),
            seconds: v.get("seconds").and_then(Value::as_f64).unwrap_or(0.0),
            stderr_tail: v
                .get("stderr_tail")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
            heuristics: v
                .get("heuristics")
                .and_then(Value::as_object)
                .map(|m| m.iter().map(|(k, x)| (k.clone(), x.clone())).collect())
                .unwrap_or_default(),
            ttgir: s("ttgir"),
        }
    }
}

/// The cache directory.
#[derive(Clone, Debug)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// The cache at `root` (created when first written).
    pub fn new(root: PathBuf) -> Cache {
        Cache { root }
    }

    /// Its directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, kind: &str, key: &str, ext: &str) -> PathBuf {
        self.root
            .join(kind)
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.{ext}"))
    }

    /// A front-end (or compile) entry, with its TTGIR, for a run whose
    /// time limit is `limit` seconds: an entry that ended on its limit (a
    /// timeout) is stored under that limit and never reused under another.
    pub fn get(&self, kind: &str, key: &str, limit: u64) -> Option<JobResult> {
        self.read(kind, key)
            .or_else(|| self.read(kind, &within_limit(key, limit)))
    }

    fn read(&self, kind: &str, key: &str) -> Option<JobResult> {
        let text = std::fs::read_to_string(self.path(kind, key, "json")).ok()?;
        let mut entry: JobResult = serde_json::from_str(&text).ok()?;
        let ttgir = self.path(kind, key, "ttgir");
        if ttgir.is_file() {
            entry.ttgir = Some(std::fs::read_to_string(ttgir).ok()?);
        }
        Some(entry)
    }

    /// Stores an entry (the TTGIR first, so that a reader never sees an
    /// entry without it).
    pub fn put(
        &self,
        kind: &str,
        key: &str,
        entry: &JobResult,
        limit: u64,
    ) -> Result<(), ScanError> {
        let limited;
        let key = if entry.status == JobStatus::Timeout {
            limited = within_limit(key, limit);
            limited.as_str()
        } else {
            key
        };
        if let Some(ttgir) = &entry.ttgir {
            self.write(&self.path(kind, key, "ttgir"), ttgir.as_bytes())?;
        }
        // An entry is plain data: it always serialises.
        let text = serde_json::to_value(entry)
            .unwrap_or(Value::Null)
            .to_string();
        self.write(&self.path(kind, key, "json"), text.as_bytes())
    }

    /// A JSON document stored under `kind`/`key`.
    pub fn get_json(&self, kind: &str, key: &str) -> Option<Value> {
        let text = std::fs::read_to_string(self.path(kind, key, "json")).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Stores a JSON document.
    pub fn put_json(&self, kind: &str, key: &str, value: &Value) -> Result<(), ScanError> {
        self.write(&self.path(kind, key, "json"), value.to_string().as_bytes())
    }

    /// Writes `path` whole or not at all (a temporary file renamed), its
    /// directory created first.
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), ScanError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ScanError::create(parent, e))?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, bytes).map_err(|e| ScanError::write(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| ScanError::write(path, e))
    }
}

/// The key of a result that depends on the time limit it ran under.
fn within_limit(key: &str, limit: u64) -> String {
    format!("{key}-limit-{limit}s")
}

/// The content hashes of `files` (a missing file hashes as missing).
pub fn file_hashes(files: &[String]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|f| {
            let h =
                std::fs::read(f).map_or_else(|_| "missing".to_string(), |b| super::hash::hex(&b));
            (f.clone(), h)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_is_reused_only_under_the_same_limit() {
        let dir = std::env::temp_dir().join(format!("ll-cache-limit-{}", std::process::id()));
        let cache = Cache::new(dir.clone());
        let timed_out =
            JobResult::from_worker(&serde_json::json!({"status": "timeout", "message": "slow"}));
        cache.put("front_end", "k", &timed_out, 5).unwrap();
        assert_eq!(
            cache.get("front_end", "k", 5).map(|e| e.status),
            Some(JobStatus::Timeout)
        );
        assert!(cache.get("front_end", "k", 300).is_none());
        // a finished result does not depend on the limit
        let done = JobResult::from_worker(&serde_json::json!({"status": "ttgir", "message": ""}));
        cache.put("front_end", "d", &done, 5).unwrap();
        assert!(cache.get("front_end", "d", 300).is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn statuses_read_as_the_worker_and_older_caches_write_them() {
        let read = |status: &str| {
            JobResult::from_worker(&serde_json::json!({"status": status, "message": "m"})).status
        };
        assert_eq!(read("ttgir"), JobStatus::Ttgir);
        assert_eq!(read("abort"), JobStatus::Abort);
        // a status no worker sends is a failure, not a success
        assert_eq!(read("exploded"), JobStatus::Error);
        // a front end that finished is a run that ended well
        assert_eq!(JobStatus::Ttgir.ended(), RunStatus::Ok);
        assert_eq!(JobStatus::Timeout.ended(), RunStatus::Timeout);
        // a cached entry keeps its spelling on disk
        let cached: JobResult = serde_json::from_str(r#"{"status": "ttgir"}"#).unwrap();
        assert_eq!(cached.status, JobStatus::Ttgir);
        let json = serde_json::to_value(&cached).unwrap();
        assert_eq!(json["status"], "ttgir");
    }
}
