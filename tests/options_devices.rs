//! Drop-in job options that act on devices or are refused by mode (issue 14):
//! ioscheduler= on a loop device, against fio 3.33; lockfile=.

mod common;
use common::*;
use std::process::{Command, Output};

fn fio_out(args: &[&str]) -> Output {
    Command::new("fio").args(args).output().expect("run fio")
}

fn ferrio_out(args: &[&str]) -> Output {
    ferrio().args(args).output().expect("run ferrio")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A loop device over a sparse file, detached at the end; None (skipped) where none
/// can be made outside CI.
struct Loop {
    dev: String,
    _dir: tempfile::TempDir,
}

impl Loop {
    fn new() -> Option<Loop> {
        let dir = scratch();
        let img = dir.path().join("disk.img");
        std::fs::File::create(&img)
            .and_then(|f| f.set_len(16 << 20))
            .unwrap();
        match loopdev::attach(&img) {
            Ok(dev) => Some(Loop { dev, _dir: dir }),
            Err(e) => {
                skip::skip(&format!(
                    "cannot make a loop device (needs root and losetup): {e}"
                ));
                None
            }
        }
    }

    fn scheduler(&self) -> String {
        let name = self.dev.trim_start_matches("/dev/");
        std::fs::read_to_string(format!("/sys/block/{name}/queue/scheduler")).unwrap_or_default()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        loopdev::detach(&self.dev);
    }
}

#[test]
fn ioscheduler_switches_a_block_devices_scheduler_as_fio() {
    let Some(lo) = Loop::new() else { return };
    let list = lo.scheduler();
    // Two schedulers this kernel offers for the device, to switch between.
    let names: Vec<String> = list
        .split_whitespace()
        .map(|s| s.trim_matches(['[', ']']).to_string())
        .collect();
    if names.len() < 2 {
        skip::skip(&format!(
            "the loop device offers one I/O scheduler only: {list}"
        ));
        return;
    }
    let fio = have_fio();
    let fname = format!("--filename={}", lo.dev);
    for who in ["fio", "ferrio"] {
        if who == "fio" && !fio {
            continue;
        }
        let run = |a: &[&str]| {
            if who == "fio" {
                fio_out(a)
            } else {
                ferrio_out(a)
            }
        };
        for want in &names[..2] {
            let s = format!("--ioscheduler={want}");
            let out = run(&["--name=s", &fname, "--rw=read", "--bs=4k", "--size=1m", &s]);
            assert!(out.status.success(), "{who} {want}: {}", text(&out.stderr));
            assert!(
                lo.scheduler().contains(&format!("[{want}]")),
                "{who} {want}: {}",
                lo.scheduler()
            );
        }
        let out = run(&[
            "--name=s",
            &fname,
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--ioscheduler=no-such-sched",
            "--output-format=json",
        ]);
        assert_eq!(out.status.code(), Some(1), "{who}");
        assert_eq!(
            parse_json(&out.stdout)["jobs"][0]["error"],
            libc::EINVAL,
            "{who}"
        );
    }
    // A file on a file system leaves its disk's scheduler alone (ferrio only).
    let d = scratch();
    let f = format!("--filename={}", file_in(d.path(), "f"));
    let out = ferrio_out(&[
        "--name=s",
        &f,
        "--rw=read",
        "--bs=4k",
        "--size=64k",
        "--ioscheduler=no-such-sched",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn lockfile_modes_are_accepted_and_a_bad_one_names_them() {
    for m in ["none", "exclusive", "readwrite"] {
        let l = format!("--lockfile={m}");
        let ok = ferrio_out(&[
            "--parse-only",
            "--name=l",
            "--ioengine=null",
            "--size=64k",
            &l,
        ]);
        assert!(ok.status.success(), "{m}: {}", text(&ok.stderr));
    }
    let out = ferrio_out(&[
        "--parse-only",
        "--name=l",
        "--ioengine=null",
        "--size=64k",
        "--lockfile=shared",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let e = text(&out.stderr);
    assert!(
        e.contains("lockfile") && e.contains("none, exclusive, readwrite"),
        "{e}"
    );
}
