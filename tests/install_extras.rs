//! `ferrio --install-extras DIR[,fio]`: a fresh directory gets the binary, the man
//! page and the completions (equal to the committed ones), `DIR/bin/ferrio --version`
//! runs from there, `,fio` adds the drop-in link; bad input touches nothing, exits 1.

mod common;

use common::ferrio;
use std::path::Path;
use std::process::Command;

const FILES: [(&str, &str); 4] = [
    ("share/man/man1/ferrio.1", "man/ferrio.1"),
    (
        "share/bash-completion/completions/ferrio",
        "completions/ferrio.bash",
    ),
    ("share/zsh/site-functions/_ferrio", "completions/_ferrio"),
    (
        "share/fish/vendor_completions.d/ferrio.fish",
        "completions/ferrio.fish",
    ),
];

fn committed(p: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).unwrap()
}

#[test]
fn installs_binary_man_page_completions_and_fio_link() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("prefix");
    let out = ferrio()
        .arg(format!("--install-extras={},fio", dir.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (installed, repo) in FILES {
        let text = std::fs::read_to_string(dir.join(installed)).unwrap();
        assert_eq!(text, committed(repo), "{installed} differs from {repo}");
        assert!(stdout.contains(installed), "{stdout}");
    }
    let bin = dir.join("bin/ferrio");
    let v = Command::new(&bin).arg("--version").output().unwrap();
    assert!(v.status.success());
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("ferrio-"));
    assert_eq!(
        std::fs::read_link(dir.join("bin/fio")).unwrap(),
        Path::new("ferrio")
    );
    // Installing again (the installed binary over itself) succeeds and keeps the link.
    let again = Command::new(&bin)
        .arg("--install-extras")
        .arg(format!("{},fio", dir.display()))
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let v = Command::new(&bin).arg("--version").output().unwrap();
    assert!(v.status.success());
    let left: Vec<_> = std::fs::read_dir(dir.join("bin"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "only ferrio and fio in bin: {left:?}");
}

#[test]
fn without_fio_no_link() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ferrio()
        .arg("--install-extras")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(tmp.path().join("bin/ferrio").is_file());
    assert!(std::fs::symlink_metadata(tmp.path().join("bin/fio")).is_err());
}

fn fails(args: &[&str], want: &str) {
    let out = ferrio().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn bad_input_is_refused_and_touches_nothing() {
    fails(&["--install-extras"], "--install-extras needs a value");
    fails(&["--install-extras="], "bad value '' for --install-extras");
    fails(&["--install-extras=,fio"], "a directory (DIR or DIR,fio)");
    // DIR under a regular file cannot be created.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let under = file.join("prefix");
    fails(
        &["--install-extras", under.to_str().unwrap()],
        &format!("cannot create {}", under.join("bin").display()),
    );
    // A real fio in DIR/bin is never replaced, and nothing else is written.
    let dir = tmp.path().join("p");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::write(dir.join("bin/fio"), "real fio").unwrap();
    fails(
        &["--install-extras", &format!("{},fio", dir.display())],
        "is not a link to ferrio",
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("bin/fio")).unwrap(),
        "real fio"
    );
    assert!(!dir.join("bin/ferrio").exists() && !dir.join("share").exists());
}

#[test]
fn help_lists_the_flag() {
    let out = ferrio().arg("--help").output().unwrap();
    let h = String::from_utf8_lossy(&out.stdout);
    assert!(h.contains("--install-extras=DIR[,fio]"), "{h}");
}
