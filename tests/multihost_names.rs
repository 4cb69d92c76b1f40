//! unique_filename (fio's, on by default): a job run on a server names the relative
//! files in its `directory=` after the server's listening address
//! (`dir/127.0.0.1.job.0.0`), so clients sharing a directory do not collide;
//! `unique_filename=0` keeps the plain names, and a local run never prefixes.

mod common;
mod multihost_support;

use multihost_support::{exists, stderr, Lab};

#[test]
fn server_prefixes_names_in_the_directory_with_its_address() {
    let Some(lab) = Lab::new() else { return };
    let s = lab.server(&[]);
    let data = lab.p("data");
    let run = |name: &str, extra: &str| {
        let job = lab.job(
            &format!("{name}.fio"),
            &format!(
                "[{name}]\nioengine=sync\nrw=write\nbs=4k\nsize=8k\nnrfiles=2\ndirectory={data}\n{extra}"
            ),
        );
        let out = lab.client(&[&format!("--client={}", s.addr), &job]);
        assert!(out.status.success(), "{}", stderr(&out));
    };
    run("a", "");
    for f in ["127.0.0.1.a.0.0", "127.0.0.1.a.0.1"] {
        assert!(exists(&lab.path("data").join(f)), "{f} missing");
    }
    assert!(!exists(&lab.path("data/a.0.0")));
    // filename= names are prefixed too; unique_filename=0 turns it off.
    run("b", "filename=x\n");
    assert!(exists(&lab.path("data/127.0.0.1.x")));
    run("c", "unique_filename=0\n");
    assert!(exists(&lab.path("data/c.0.0")) && exists(&lab.path("data/c.0.1")));
    assert!(!exists(&lab.path("data/127.0.0.1.c.0.0")));
    // Run locally, the same job uses the plain names.
    let local = lab.job(
        "d.fio",
        &format!("[d]\nioengine=sync\nrw=write\nbs=4k\nsize=8k\ndirectory={data}\n"),
    );
    common::run_ok(&[&local]);
    assert!(exists(&lab.path("data/d.0.0")));
}
