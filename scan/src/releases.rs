//! Which Triton releases a scan runs, and what installing them downloads.
//!
//! Asked for nothing, a scan runs the release the user's own Python has
//! installed (their Triton) and the newest one the table knows (whether
//! upgrading helps), plus any release named with `--python`; `--triton
//! all` runs every one, `--triton 3.2,3.9` those. Before any environment
//! is created, the scan says which wheels it will download and their real
//! size, read from the package index for this interpreter's platform.

use super::python::{PythonOptions, matches, wheels};
use std::process::Command;

/// The wheels `opts` selects, oldest first.
pub fn selected(opts: &PythonOptions) -> Vec<&'static str> {
    let all = wheels();
    if opts.only.iter().any(|o| o == "all") {
        return all.into_iter().map(|(w, _)| w).collect();
    }
    if !opts.only.is_empty() {
        return all
            .into_iter()
            .filter(|(w, _)| opts.only.iter().any(|o| matches(o, w)))
            .map(|(w, _)| w)
            .collect();
    }
    let installed = installed_wheel(&opts.base_python);
    let newest = all.last().map(|(w, _)| *w);
    all.into_iter()
        .map(|(w, _)| w)
        .filter(|w| {
            Some(*w) == newest
                || Some(*w) == installed
                || opts.named.iter().any(|(n, _)| matches(n, w))
        })
        .collect()
}

/// The wheel of the table that the Triton installed beside `python` is
/// (`3.4.0`, or `3.4.0+gitabc` read as its release's wheel), if any.
pub fn installed_wheel(python: &str) -> Option<&'static str> {
    let out = Command::new(python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('triton'))",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let base = version.split(['+', '-']).next().unwrap_or("");
    let all = wheels();
    all.iter()
        .find(|(w, _)| *w == base)
        .or_else(|| {
            let minor = super::python::minor(base);
            all.iter().find(|(w, _)| super::python::minor(w) == minor)
        })
        .map(|(w, _)| *w)
}

/// The wheel pip would download for `wheel` on this interpreter: its file
/// name and size in bytes, or why it is not known.
pub type Download = Result<(String, u64), String>;

/// Reads the size of each wheel's file for `python`'s platform from the
/// package index (PyPI's JSON API, one request), through `python` itself
/// so that the platform tags are the ones pip will use. Fifteen seconds at
/// most; an index that cannot be reached gives reasons, not an error.
pub fn downloads(python: &str, wheels: &[&str]) -> Vec<(String, Download)> {
    let unknown = |why: &str| -> Vec<(String, Download)> {
        wheels
            .iter()
            .map(|w| (w.to_string(), Err(why.to_string())))
            .collect()
    };
    let out = match Command::new(python)
        .arg("-c")
        .arg(SIZES)
        .args(wheels)
        .stderr(std::process::Stdio::null())
        .output()
    {
        Ok(out) if out.status.success() => out,
        Ok(_) => return unknown("the package index could not be read"),
        Err(e) => return unknown(&format!("cannot run {python}: {e}")),
    };
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else {
        return unknown("the package index gave no answer");
    };
    wheels
        .iter()
        .map(|w| {
            let got = match &answer[*w] {
                serde_json::Value::Array(a) => match (a.first(), a.get(1)) {
                    (Some(name), Some(size)) => name
                        .as_str()
                        .zip(size.as_u64())
                        .map(|(n, s)| (n.to_string(), s))
                        .ok_or_else(|| "an unreadable answer".to_string()),
                    _ => Err("an unreadable answer".into()),
                },
                serde_json::Value::String(why) => Err(why.clone()),
                _ => Err("no wheel for this platform".into()),
            };
            (w.to_string(), got)
        })
        .collect()
}

/// The notice printed before installing: what, how big, where.
pub fn notice(downloads: &[(String, Download)], venv_dir: &std::path::Path) -> String {
    let mut total = 0u64;
    let mut lines = Vec::new();
    for (wheel, got) in downloads {
        match got {
            Ok((file, bytes)) => {
                total += bytes;
                lines.push(format!("  triton=={wheel}: {} ({file})", megabytes(*bytes)));
            }
            Err(why) => lines.push(format!("  triton=={wheel}: size unknown ({why})")),
        }
    }
    let known = downloads.iter().filter(|(_, d)| d.is_ok()).count();
    let total = match known {
        0 => "size unknown".to_string(),
        k if k == downloads.len() => format!("{} in all", megabytes(total)),
        _ => format!("at least {} in all", megabytes(total)),
    };
    format!(
        "will download and install {} Triton release(s) with pip, {total} (and their \
         small dependencies), each into {}/venv-X.Y.Z; pip's own download cache is shared by \
         them all:\n{}\n(--no-install scans only what is installed; `linear-layout envs` lists \
         and removes these environments)",
        downloads.len(),
        venv_dir.display(),
        lines.join("\n")
    )
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// Asks the index for each wheel's file for this interpreter, with pip's
/// own tag rules (the tags in priority order, the best-ranked file).
const SIZES: &str = r#"
import json, sys, urllib.request
from pip._vendor.packaging.tags import sys_tags
from pip._vendor.packaging.utils import parse_wheel_filename
rank = {t: i for i, t in enumerate(sys_tags())}
out = {}
try:
    with urllib.request.urlopen("https://pypi.org/pypi/triton/json", timeout=15) as r:
        releases = json.load(r)["releases"]
except Exception as e:
    releases, failed = {}, f"{type(e).__name__}: {e}"[:200]
else:
    failed = "not on the index"
for v in sys.argv[1:]:
    best = None
    for f in releases.get(v, []):
        if not f["filename"].endswith(".whl"):
            continue
        tags = parse_wheel_filename(f["filename"])[3]
        r = min((rank[t] for t in tags if t in rank), default=None)
        if r is not None and (best is None or r < best[0]):
            best = (r, f["filename"], f["size"])
    if best:
        out[v] = [best[1], best[2]]
    else:
        out[v] = failed if v not in releases else None
print(json.dumps(out))
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_sums_what_it_knows_and_says_what_it_does_not() {
        let d = vec![
            (
                "3.9.0".to_string(),
                Ok(("t-3.9.0.whl".to_string(), 285_674_620)),
            ),
            ("3.2.0".to_string(), Err("offline".to_string())),
        ];
        let n = notice(&d, std::path::Path::new("/c/venvs"));
        assert!(n.contains("2 Triton release(s)"), "{n}");
        assert!(n.contains("at least 285.7 MB in all"), "{n}");
        assert!(n.contains("triton==3.2.0: size unknown (offline)"), "{n}");
        assert!(n.contains("/c/venvs/venv-X.Y.Z"), "{n}");
    }

    #[test]
    fn asking_for_all_or_some_releases_selects_them_in_order() {
        let mut opts = PythonOptions {
            only: vec!["all".into()],
            base_python: "python3".into(),
            ..PythonOptions::default()
        };
        let all = selected(&opts);
        assert_eq!(all.len(), wheels().len());
        opts.only = vec!["3.9".into(), "3.2".into()];
        assert_eq!(selected(&opts), ["3.2.0", "3.9.0"]);
    }

    #[test]
    fn by_default_the_newest_and_the_named_releases_are_selected() {
        // an interpreter that does not exist has no Triton installed
        let opts = PythonOptions {
            base_python: "/nonexistent/python".into(),
            named: vec![("3.3".into(), "/x/python".into())],
            ..PythonOptions::default()
        };
        let newest = wheels().last().map(|(w, _)| *w).unwrap();
        assert_eq!(selected(&opts), ["3.3.1", newest]);
        assert_eq!(installed_wheel("/nonexistent/python"), None);
    }
}
