//! Writing files as a careful tool does (`repro --out DIR`, `convert --svg
//! FILE`):
//!
//! - a path that is empty, blank, padded with spaces, holds control
//!   characters or is `-` is refused: it is a quoting mistake (or a wish
//!   for stdout), not a place (`--out ""` must not become `/repro.py`);
//! - a symbolic link the tool did not create is never followed: an output
//!   directory or file that is a link is refused, and a link planted in the
//!   directory under an output's name is replaced, not written through;
//! - every file is written to a new temporary file in its own directory
//!   (created exclusively, so nothing there can redirect it) and renamed
//!   over the target: a reader sees the old file or the whole new one, and
//!   an interrupted write leaves no half file behind.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A directory the tool writes its files into.
pub struct OutDir {
    path: PathBuf,
}

impl OutDir {
    /// The directory `arg` (the value of option `flag`), created with its
    /// parents when missing. It must not be a symbolic link.
    pub fn open(arg: &str, flag: &str) -> Result<OutDir, String> {
        plain_path(arg, flag)?;
        let path = PathBuf::from(arg);
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => Err(format!(
                "{flag} {arg}: is a symbolic link; name the directory itself (links are not \
                 followed)"
            )),
            Ok(m) if !m.is_dir() => Err(format!("{flag} {arg}: exists and is not a directory")),
            Ok(_) => Ok(OutDir { path }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                fs::create_dir_all(&path).map_err(|e| format!("cannot create {arg}: {e}"))?;
                Ok(OutDir { path })
            }
            Err(e) => Err(format!("{flag} {arg}: {e}")),
        }
    }

    /// Writes `contents` to the file `name` of the directory; its path.
    pub fn write(&self, name: &str, contents: &[u8]) -> Result<PathBuf, String> {
        let path = self.path.join(name);
        write_file(&path, contents)?;
        Ok(path)
    }
}

/// Refuses a path that is surely a mistake.
pub fn plain_path(arg: &str, flag: &str) -> Result<(), String> {
    if arg.trim().is_empty() {
        return Err(format!(
            "{flag}: the path is empty; name a file or directory"
        ));
    }
    if arg == "-" {
        return Err(format!(
            "{flag} -: `-` is no file here (this writes files, not stdout); name one"
        ));
    }
    if arg.trim() != arg {
        return Err(format!(
            "{flag} {arg:?}: the path starts or ends with spaces; quote it without them"
        ));
    }
    if arg
        .chars()
        .any(|c| c.is_control() || linear_layout_triton::escape::is_unsafe(c))
    {
        return Err(format!(
            "{flag} {}: the path holds control characters",
            arg.escape_debug()
        ));
    }
    Ok(())
}

/// Writes `contents` to `path` atomically. An existing symbolic link or
/// directory at `path` is refused; the parent directory must exist.
pub fn write_file(path: &Path, contents: &[u8]) -> Result<(), String> {
    let shown = path.display();
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(format!(
                "{shown} is a symbolic link; not writing through it (remove it or name another \
                 file)"
            ));
        }
        Ok(m) if m.is_dir() => return Err(format!("{shown} is a directory")),
        _ => {}
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| format!("{shown}: names no file"))?
        .to_string_lossy()
        .into_owned();
    let (temp, mut file) = new_temp(&dir, &name)?;
    let written = file
        .write_all(contents)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {shown}: {e}"))
        .and_then(|()| fs::rename(&temp, path).map_err(|e| format!("cannot write {shown}: {e}")));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// A new file `.NAME.PID-N.tmp` in `dir`, created exclusively (an
/// existing path there, a link included, is never opened).
fn new_temp(dir: &Path, name: &str) -> Result<(PathBuf, fs::File), String> {
    let pid = std::process::id();
    let mut last = None;
    for n in 0..100 {
        let temp = dir.join(format!(".{name}.{pid}-{n}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(format!("cannot write in {}: {e}", dir.display())),
        }
    }
    Err(format!(
        "cannot write in {}: no free temporary name ({})",
        dir.display(),
        last.map_or_else(String::new, |e| e.to_string())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surprising_paths_are_refused() {
        for bad in ["", "  ", " out", "out ", "a\nb", "a\u{1b}b", "-"] {
            assert!(plain_path(bad, "--out").is_err(), "{bad:?}");
        }
        assert!(plain_path("repro/out dir", "--out").is_ok());
    }
}
