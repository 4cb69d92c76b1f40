//! Visible skips that are never silent in CI.
//!
//! A test may skip only for something this machine class can lack outside CI (fio's
//! plotting tools, pandas, O_DIRECT on the temporary file system, ...). `skip` writes
//! `SKIP <test>: <reason>` straight to the process's stderr, past libtest's capture,
//! so it shows in plain `cargo test` output; with `CI` set (CI runs `bash .ci/run`
//! with CI=true) it fails the test instead, because there everything must run.
//! Something that can never exist on this machine class is an `#[ignore = "..."]`.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Whether this is a CI run: `CI` set to anything but "", "0" or "false".
pub fn in_ci() -> bool {
    match std::env::var("CI") {
        Ok(v) => !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false")),
        Err(_) => false,
    }
}

/// Announce that the running test skips (the rest of) its checks because of
/// `reason`; panics in CI. Call it, then `return`.
pub fn skip(reason: &str) {
    // libtest names each test's thread after the test.
    let current = std::thread::current();
    let test = current.name().unwrap_or("a test");
    if in_ci() {
        panic!("{test}: CI must run this test, but it would be skipped: {reason}");
    }
    // Not eprintln!: libtest captures that, and a skip must show in cargo's output.
    let _ = writeln!(std::io::stderr().lock(), "SKIP {test}: {reason}");
}

/// `Some(path)` of an installed program (`/usr/bin` or `/usr/local/bin`), else skip.
pub fn tool_or_skip(name: &str) -> Option<PathBuf> {
    for dir in ["/usr/bin", "/usr/local/bin"] {
        let p = Path::new(dir).join(name);
        if p.exists() {
            return Some(p);
        }
    }
    skip(&format!("{name} is not installed"));
    None
}

/// Whether files in `dir` can be opened with O_DIRECT.
pub fn direct_ok(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let p = dir.join(".direct-probe");
    std::fs::write(&p, vec![0u8; 4096]).unwrap();
    let ok = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&p)
        .is_ok();
    let _ = std::fs::remove_file(&p);
    ok
}

/// A scratch directory on a file system that accepts O_DIRECT: the temporary
/// directory, else cargo's per-target scratch space (on the disk holding `target/`,
/// which tmpfs-backed /tmp is not). None (after a skip) when neither does.
pub fn direct_scratch() -> Option<tempfile::TempDir> {
    let candidates = [
        std::env::temp_dir(),
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
    ];
    for base in candidates {
        let _ = std::fs::create_dir_all(&base);
        let Ok(d) = tempfile::Builder::new()
            .prefix("ferrio-direct-")
            .tempdir_in(&base)
        else {
            continue;
        };
        if direct_ok(d.path()) {
            return Some(d);
        }
    }
    skip("neither the temporary directory nor target/ accepts O_DIRECT");
    None
}
