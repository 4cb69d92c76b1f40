//! Where `--debug=` lines go: where fio's go (its dprint writes through log_info to
//! f_out), that is stdout, or the `--output=FILE` file when one is named (fio opens
//! that file while it parses the command line, so the lines land in it, before the
//! report). A leaf below the runner and verify, which both write lines through
//! [`line`].
//!
//! The destination is a process-wide fact, as stdout is: [`to_output_file`] installs
//! the file once, before any thread starts, and it never changes after (a set-once
//! cell, not mutable state).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The `--output` file the debug lines go to (unset: stdout).
static OUTPUT: OnceLock<(PathBuf, File)> = OnceLock::new();

/// Create (truncate) `path` for `--output` and send the debug lines there from now
/// on. Called once, by main, for a run with `--debug` and `--output`.
pub fn to_output_file(path: &Path) -> Result<(), String> {
    let file = File::create(path)
        .map_err(|e| format!("cannot write --output '{}': {e}", path.display()))?;
    // A second call (none today) keeps the first file: lines never split across two.
    let _ = OUTPUT.set((path.to_path_buf(), file));
    Ok(())
}

/// The report's writer for `--output=path`: a handle on the file the debug lines
/// already go to (sharing its offset, so the report follows them), or None when
/// the file is not open yet.
pub fn output_file(path: &Path) -> Option<File> {
    let (p, f) = OUTPUT.get()?;
    (p == path).then(|| f.try_clone().ok()).flatten()
}

/// One line in fio's shape: the category in 8 columns, the thread id in 5, the
/// message.
fn shape(category: &str, tid: u32, msg: std::fmt::Arguments) -> String {
    format!("{category:<8} {tid:<5} {msg}\n")
}

/// Write one line in fio's shape; one write per line, so lines of different
/// threads never mix.
pub fn line(category: &str, tid: u32, msg: std::fmt::Arguments) {
    write(&shape(category, tid, msg));
}

/// A free-form debug note (not in fio's category shape), where the lines go.
pub fn note(text: std::fmt::Arguments) {
    write(&format!("{text}\n"));
}

fn write(text: &str) {
    match OUTPUT.get() {
        Some((_, f)) => {
            let mut f: &File = f;
            let _ = f.write_all(text.as_bytes());
        }
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_have_fios_columns() {
        assert_eq!(
            shape("random", 42, format_args!("off rand {}", 7)),
            "random   42    off rand 7\n"
        );
        assert_eq!(
            shape("steadystate", 123456, format_args!("x")),
            "steadystate 123456 x\n"
        );
    }
}
