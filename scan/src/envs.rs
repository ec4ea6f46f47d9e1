//! The environments scans installed: listed with their size, removed on
//! request (`linear-layout envs`).
//!
//! A managed environment is a directory `venv-X.Y.Z` (a wheel of the
//! release table) holding a `pyvenv.cfg`, in the environments' directory.
//! Nothing else there is listed or removed, and a symbolic link is never
//! followed: a link named like an environment is reported, not entered.

use super::ScanError;
use super::python::{matches, wheels};
use std::path::{Path, PathBuf};

/// One managed environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Environment {
    /// Its wheel (`3.2.0`).
    pub wheel: String,
    /// Its directory.
    pub path: PathBuf,
    /// Bytes its files take (links counted as links).
    pub bytes: u64,
    /// Whether its Triton package is there (a half-made one is not).
    pub ready: bool,
}

/// Every managed environment in `dir`, oldest release first (none when
/// `dir` does not exist).
pub fn environments(dir: &Path) -> Result<Vec<Environment>, ScanError> {
    let mut found = Vec::new();
    for (wheel, _) in wheels() {
        let path = dir.join(format!("venv-{wheel}"));
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || !path.join("pyvenv.cfg").is_file() {
            continue;
        }
        let ready = std::fs::read_dir(path.join("lib")).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|py| py.path().join("site-packages/triton/__init__.py").is_file())
        });
        found.push(Environment {
            wheel: wheel.to_string(),
            bytes: size_of(&path),
            path,
            ready,
        });
    }
    Ok(found)
}

/// Removes the environments of `which` (`3.2`, `3.9.0`, or `all`) from
/// `dir`; the ones removed. Asking for a release with no environment is
/// not an error (it is not in the answer).
pub fn remove(dir: &Path, which: &[String]) -> Result<Vec<Environment>, ScanError> {
    let all = which.iter().any(|w| w == "all");
    let mut removed = Vec::new();
    for env in environments(dir)? {
        if all || which.iter().any(|w| matches(w, &env.wheel)) {
            std::fs::remove_dir_all(&env.path).map_err(|source| ScanError::Io {
                action: "remove",
                path: env.path.clone(),
                source,
            })?;
            removed.push(env);
        }
    }
    Ok(removed)
}

/// The bytes of the files under `dir`, links not followed.
fn size_of(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(meta) = e.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_env(dir: &Path, wheel: &str, with_triton: bool) {
        let env = dir.join(format!("venv-{wheel}"));
        std::fs::create_dir_all(env.join("lib/python3.12/site-packages")).unwrap();
        std::fs::write(env.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        if with_triton {
            let t = env.join("lib/python3.12/site-packages/triton");
            std::fs::create_dir_all(&t).unwrap();
            std::fs::write(t.join("__init__.py"), "x".repeat(100)).unwrap();
        }
    }

    #[test]
    fn environments_are_listed_and_removed_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("ll-envs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        fake_env(&dir, "3.2.0", true);
        fake_env(&dir, "3.9.0", false);
        // not ours: an unknown release, a plain directory, a link
        fake_env(&dir, "2.9.0", true);
        std::fs::create_dir_all(dir.join("venv-3.4.0")).unwrap();
        let victim = dir.join("victim");
        fake_env(&victim, "3.5.1", true);
        std::os::unix::fs::symlink(victim.join("venv-3.5.1"), dir.join("venv-3.5.1")).unwrap();

        let envs = environments(&dir).unwrap();
        let names: Vec<_> = envs.iter().map(|e| (e.wheel.as_str(), e.ready)).collect();
        assert_eq!(names, [("3.2.0", true), ("3.9.0", false)]);
        assert!(envs[0].bytes >= 100 + 16, "{}", envs[0].bytes);

        let removed = remove(&dir, &["3.2".to_string()]).unwrap();
        assert_eq!(removed.len(), 1);
        assert!(!dir.join("venv-3.2.0").exists());
        let removed = remove(&dir, &["all".to_string()]).unwrap();
        assert_eq!(removed.len(), 1);
        // what is not an environment of ours is still there
        assert!(dir.join("venv-2.9.0").is_dir());
        assert!(dir.join("venv-3.4.0").is_dir());
        assert!(victim.join("venv-3.5.1/pyvenv.cfg").is_file());
        assert!(environments(&dir.join("none")).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
