//! Reading a command-line argument that may be inline text, a file or stdin.

use std::io::Read;

/// `-` reads stdin; `@path` reads a file; anything else is the text itself.
pub fn read_arg(arg: &str) -> Result<String, String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(s)
    } else if let Some(path) = arg.strip_prefix('@') {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
    } else {
        Ok(arg.to_string())
    }
}
