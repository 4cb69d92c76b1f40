//! ioengine=nbd against real NBD servers started here: qemu-nbd (qemu-utils) on a Unix
//! socket or loopback TCP, nbdkit's memory plugin. Data written is read back and
//! verified, counts are exact, the size is the export's, and the same jobs under fio
//! 3.33's nbd engine move the same bytes (and, with --fio_seeds=3.33, log the same
//! I/Os). Every server is a child process killed by a guard, even when a test fails.
//! A missing server program skips visibly (fails under CI=1; .ci/run installs them).

mod common;
mod net_support;
use common::skip::tool_or_skip;
use common::*;
use net_support::{bounded, free_port, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Whether libnbd (the library ferrio loads for ioengine=nbd) is installed; else skip.
fn have_libnbd() -> bool {
    // Where the dynamic loader finds it: a lib directory or its multiarch subdirectory.
    let found = ["/usr/lib", "/usr/lib64", "/lib", "/usr/local/lib"]
        .iter()
        .any(|d| {
            let d = Path::new(d);
            d.join("libnbd.so.0").exists()
                || std::fs::read_dir(d)
                    .is_ok_and(|rd| rd.flatten().any(|e| e.path().join("libnbd.so.0").exists()))
        });
    if !found {
        common::skip::skip("libnbd is not installed (apt-get install libnbd0)");
    }
    found
}

/// A running NBD server, killed and reaped on drop.
struct Server {
    child: Child,
    /// The libnbd URI of its export.
    uri: String,
    /// qemu-nbd's image file (None for nbdkit's memory plugin).
    image: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Start `cmd`, then wait (at most 30 s) until `ready` connects.
    fn start(
        mut cmd: Command,
        uri: String,
        image: Option<PathBuf>,
        dir: tempfile::TempDir,
        ready: impl Fn() -> bool,
    ) -> Result<Server, String> {
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the NBD server");
        let mut s = Server {
            child,
            uri,
            image,
            _dir: dir,
        };
        let until = Instant::now() + Duration::from_secs(30);
        while !ready() {
            if let Some(st) = s.child.try_wait().expect("wait") {
                return Err(format!("the NBD server exited before it was ready: {st}"));
            }
            assert!(
                Instant::now() < until,
                "the NBD server was not ready within 30 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(s)
    }

    /// qemu-nbd serving a new raw image of `size` bytes of zeros on a Unix socket.
    fn qemu_unix(size: u64) -> Option<Server> {
        if !have_libnbd() {
            return None;
        }
        let qemu = tool_or_skip("qemu-nbd")?;
        let dir = scratch();
        let image = dir.path().join("disk.img");
        std::fs::File::create(&image)
            .unwrap()
            .set_len(size)
            .unwrap();
        let sock = dir.path().join("nbd.sock");
        let mut cmd = Command::new(qemu);
        // --shared: each ferrio thread (and the size probe) opens its own connection.
        cmd.args([
            "-f",
            "raw",
            "--persistent",
            "--shared=16",
            "--discard=unmap",
            "-k",
        ])
        .arg(&sock)
        .arg(&image);
        let uri = format!("nbd+unix:///?socket={}", sock.display());
        let probe = sock.clone();
        let ready = move || std::os::unix::net::UnixStream::connect(&probe).is_ok();
        Some(Server::start(cmd, uri, Some(image), dir, ready).unwrap())
    }

    /// qemu-nbd on loopback TCP, with the export named `name`.
    fn qemu_tcp(size: u64, name: &str) -> Option<Server> {
        if !have_libnbd() {
            return None;
        }
        let qemu = tool_or_skip("qemu-nbd")?;
        // The free port may be taken before qemu-nbd binds it (then it exits at once):
        // another port, at most three times.
        let mut last = String::new();
        for _ in 0..3 {
            let dir = scratch();
            let image = dir.path().join("disk.img");
            std::fs::File::create(&image)
                .unwrap()
                .set_len(size)
                .unwrap();
            let port = free_port(1);
            let mut cmd = Command::new(&qemu);
            cmd.args([
                "-f",
                "raw",
                "--persistent",
                "--shared=16",
                "--bind=127.0.0.1",
            ])
            .arg(format!("--port={port}"))
            .arg(format!("--export-name={name}"))
            .arg(&image);
            let uri = format!("nbd://127.0.0.1:{port}/{name}");
            let ready = move || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
            match Server::start(cmd, uri, Some(image), dir, ready) {
                Ok(s) => return Some(s),
                Err(e) => last = e,
            }
        }
        panic!("qemu-nbd on loopback TCP: {last}");
    }

    /// nbdkit's memory plugin (`size` bytes, supports trim), in the foreground.
    fn nbdkit_memory(size: u64) -> Option<Server> {
        if !have_libnbd() {
            return None;
        }
        let nbdkit = tool_or_skip("nbdkit")?;
        let dir = scratch();
        let sock = dir.path().join("nbdkit.sock");
        let mut cmd = Command::new(nbdkit);
        cmd.args(["-f", "-U"])
            .arg(&sock)
            .arg("memory")
            .arg(size.to_string());
        let uri = format!("nbd+unix:///?socket={}", sock.display());
        let probe = sock.clone();
        let ready = move || std::os::unix::net::UnixStream::connect(&probe).is_ok();
        Some(Server::start(cmd, uri, None, dir, ready).unwrap())
    }
}

/// Run ferrio (bounded: a server that stops answering cannot hang the test) in a
/// working directory of its own, which must hold no file afterwards but a verify
/// job's state file: the engine is diskless, so nothing may create `n.0.0`.
fn ferrio_run(args: &[String]) -> Output {
    let cwd = scratch();
    let mut c = ferrio();
    c.args(args).current_dir(cwd.path());
    let out = bounded(c, 120, "ferrio");
    let made: Vec<String> = std::fs::read_dir(cwd.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with("-verify.state"))
        .collect();
    assert!(made.is_empty(), "{args:?} made files: {made:?}");
    out
}

fn ferrio_json(args: &[String]) -> Value {
    let mut a = args.to_vec();
    a.push("--output-format=json".into());
    let out = ferrio_run(&a);
    assert!(out.status.success(), "{}", text(&out));
    parse_json(&out.stdout)
}

fn args(uri: &str, extra: &[&str]) -> Vec<String> {
    let mut a = vec![
        "--name=n".to_string(),
        "--ioengine=nbd".into(),
        format!("--uri={uri}"),
    ];
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn n(v: &Value, dir: &str, key: &str) -> u64 {
    v["jobs"][0][dir][key]
        .as_u64()
        .unwrap_or_else(|| panic!("{dir}.{key} in {v}"))
}

#[test]
fn written_data_reaches_the_export_and_reads_back_verified_at_depth() {
    let Some(s) = Server::qemu_unix(1 << 20) else {
        return;
    };
    // No size=: the export's 1 MiB. Random writes at iodepth 16, then fio's verify
    // phase reads every block back through the engine and checks it.
    let v = ferrio_json(&args(
        &s.uri,
        &[
            "--rw=randwrite",
            "--bs=4k",
            "--iodepth=16",
            "--verify=crc32c",
            "--randseed=7",
        ],
    ));
    assert_eq!(v["jobs"][0]["error"], 0, "{v}");
    assert_eq!(
        (n(&v, "write", "io_bytes"), n(&v, "write", "total_ios")),
        (1 << 20, 256)
    );
    assert_eq!(
        (n(&v, "read", "io_bytes"), n(&v, "read", "total_ios")),
        (1 << 20, 256),
        "the verify pass"
    );
    // The blocks are in the image, not zeros: the data went over the wire.
    let img = std::fs::read(s.image.as_ref().unwrap()).unwrap();
    assert_eq!(img.len(), 1 << 20, "the export was never extended");
    assert!(
        img.chunks(4096).all(|b| b.iter().any(|&x| x != 0)),
        "a block stayed zero"
    );
}

#[test]
fn verify_is_real_a_read_of_an_export_that_was_never_written_fails() {
    let Some(s) = Server::qemu_unix(256 << 10) else {
        return;
    };
    let out = ferrio_run(&args(&s.uri, &["--rw=read", "--bs=4k", "--verify=crc32c"]));
    assert!(!out.status.success(), "zeros passed verify: {}", text(&out));
    let all = text(&out);
    assert!(all.contains("verify"), "{all}");
}

#[test]
fn randrw_counts_are_exact_and_sum_to_the_exports_size_over_tcp() {
    let Some(s) = Server::qemu_tcp(2 << 20, "disk0") else {
        return;
    };
    let v = ferrio_json(&args(
        &s.uri,
        &["--rw=randrw", "--bs=4k", "--iodepth=4", "--randseed=3"],
    ));
    let (rb, ri) = (n(&v, "read", "io_bytes"), n(&v, "read", "total_ios"));
    let (wb, wi) = (n(&v, "write", "io_bytes"), n(&v, "write", "total_ios"));
    assert_eq!((rb + wb, ri + wi), (2 << 20, 512), "{v}");
    assert_eq!((rb, wb), (ri * 4096, wi * 4096));
    assert!(ri > 0 && wi > 0);
}

#[test]
fn the_size_is_the_exports_and_size_beyond_it_stops_at_its_end() {
    let Some(s) = Server::qemu_unix(1 << 20) else {
        return;
    };
    let write = |extra: &[&str]| {
        let mut e = vec!["--rw=write", "--bs=64k"];
        e.extend_from_slice(extra);
        n(&ferrio_json(&args(&s.uri, &e)), "write", "io_bytes")
    };
    assert_eq!(write(&[]), 1 << 20);
    assert_eq!(write(&["--size=512k"]), 512 << 10);
    assert_eq!(
        write(&["--size=8m"]),
        1 << 20,
        "NBD exports are never extended (fio's FIO_NOEXTEND)"
    );
    assert_eq!(write(&["--offset=256k"]), 768 << 10);
    assert_eq!(write(&["--size=50%"]), 512 << 10);
    // A second file takes no size from the export: size= is needed, as in fio.
    let out = ferrio_run(&args(&s.uri, &["--rw=write", "--nrfiles=2"]));
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("size="),
        "{}",
        text(&out)
    );
}

#[test]
fn trims_and_flushes_reach_nbdkit() {
    let Some(s) = Server::nbdkit_memory(1 << 20) else {
        return;
    };
    let v = ferrio_json(&args(&s.uri, &["--rw=randtrim", "--bs=64k", "--iodepth=4"]));
    assert_eq!(
        (n(&v, "trim", "io_bytes"), n(&v, "trim", "total_ios")),
        (1 << 20, 16),
        "{v}"
    );
    // fsync=4 is an NBD flush after every 4th write, counted as fio counts syncs.
    let v = ferrio_json(&args(&s.uri, &["--rw=write", "--bs=64k", "--fsync=4"]));
    assert_eq!(n(&v, "write", "total_ios"), 16);
    assert_eq!(v["jobs"][0]["sync"]["total_ios"], 3, "{v}");
    // fio 3.33's nbd engine counts the same trims, writes and flushes.
    if have_fio() {
        let dir = scratch();
        let jobs: [&[&str]; 2] = [
            &["--rw=randtrim", "--bs=64k", "--iodepth=4"],
            &["--rw=write", "--bs=64k", "--fsync=4"],
        ];
        for job in jobs {
            let a = args(&s.uri, job);
            let (fv, ov) = (fio_nbd(dir.path(), &a), ferrio_json(&a));
            for d in ["write", "trim", "sync"] {
                let (f, o) = (&fv["jobs"][0][d], &ov["jobs"][0][d]);
                assert!(f["total_ios"].is_u64(), "{job:?} {d}: {fv}");
                assert_eq!(o["total_ios"], f["total_ios"], "{job:?} {d}");
                if d != "sync" {
                    assert_eq!(o["io_bytes"], f["io_bytes"], "{job:?} {d}");
                }
            }
        }
    }
    // NBD has no data-only flush: fdatasync fails with EINVAL, as under fio.
    let out = ferrio_run(&args(
        &s.uri,
        &[
            "--rw=write",
            "--bs=64k",
            "--fdatasync=4",
            "--output-format=json",
        ],
    ));
    assert!(!out.status.success());
    assert_eq!(
        parse_json(&out.stdout)["jobs"][0]["error"],
        22,
        "{}",
        text(&out)
    );
}

#[test]
fn a_missing_server_a_bad_uri_or_no_uri_fail_naming_uri() {
    let dir = scratch();
    let gone = format!(
        "nbd+unix:///?socket={}",
        dir.path().join("none.sock").display()
    );
    for (uri, why) in [
        (Some(gone.as_str()), "No such file"),
        (Some("bogus://host/x"), "scheme"),
        (Some("nbd://127.0.0.1:1/"), "refused"),
        (None, "needs uri="),
    ] {
        let mut a = vec![
            "--name=n".to_string(),
            "--ioengine=nbd".into(),
            "--rw=read".into(),
        ];
        if let Some(u) = uri {
            a.push(format!("--uri={u}"));
        }
        let out = ferrio_run(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{uri:?}: {}", text(&out));
        assert!(err.contains("uri") && err.contains(why), "{uri:?}: {err}");
        if let Some(u) = uri {
            assert!(err.contains(u), "the message names the uri: {err}");
        }
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file made"
    );
    // --parse-only connects to nothing, as fio's: the same jobs are accepted.
    for uri in [Some(gone.as_str()), None] {
        let mut a = vec![
            "--parse-only".to_string(),
            "--name=n".into(),
            "--ioengine=nbd".into(),
        ];
        a.extend(uri.map(|u| format!("--uri={u}")));
        let out = ferrio_run(&a);
        assert!(out.status.success(), "--parse-only {uri:?}: {}", text(&out));
    }
}

/// fio 3.33's run of the same job, its JSON written to a file (its nbd engine prints
/// "fio: connected to NBD server" on stdout).
fn fio_nbd(dir: &Path, a: &[String]) -> Value {
    let out_file = dir.join("fio.json");
    let mut c = Command::new("fio");
    c.args(a)
        .arg("--output-format=json")
        .arg(format!("--output={}", out_file.display()));
    let out = bounded(c, 120, "fio");
    assert!(out.status.success(), "{}", text(&out));
    parse_json(&std::fs::read(&out_file).unwrap())
}

fn iolog_ops(path: &Path) -> Vec<String> {
    // Drop each line's timestamp (the first field): the I/Os must match, not the times.
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split_once(' ').map_or(l, |(_, rest)| rest).to_string())
        .collect()
}

#[test]
fn fio_and_ferrio_move_the_same_bytes_and_log_the_same_ios() {
    if !have_fio() {
        return;
    }
    let Some(s) = Server::qemu_unix(512 << 10) else {
        return;
    };
    let dir = scratch();
    let job = |log: &str| {
        args(
            &s.uri,
            &[
                "--rw=randrw",
                "--bs=4k",
                "--rwmixread=60",
                "--randseed=11",
                &format!("--write_iolog={}", dir.path().join(log).display()),
            ],
        )
    };
    let fv = fio_nbd(dir.path(), &job("fio.log"));
    let mut ours = job("ferrio.log");
    ours.insert(0, "--fio_seeds=3.33".into());
    let ov = ferrio_json(&ours);
    for d in ["read", "write"] {
        let f = (n(&fv, d, "io_bytes"), n(&fv, d, "total_ios"));
        assert_eq!((n(&ov, d, "io_bytes"), n(&ov, d, "total_ios")), f, "{d}");
    }
    assert_eq!(
        n(&fv, "read", "io_bytes") + n(&fv, "write", "io_bytes"),
        512 << 10
    );
    let (f, o) = (
        iolog_ops(&dir.path().join("fio.log")),
        iolog_ops(&dir.path().join("ferrio.log")),
    );
    assert!(f.len() > 100, "{f:?}");
    assert_eq!(o, f, "write_iolog: the same files, offsets and directions");
    // At depth, the order of completions may differ; the totals may not.
    let deep = args(
        &s.uri,
        &[
            "--rw=randrw",
            "--bs=4k",
            "--iodepth=8",
            "--randseed=5",
            "--size=256k",
        ],
    );
    let fv = fio_nbd(dir.path(), &deep);
    let ov = ferrio_json(&[&["--fio_seeds=3.33".to_string()][..], &deep].concat());
    for d in ["read", "write"] {
        assert_eq!(
            (n(&ov, d, "io_bytes"), n(&ov, d, "total_ios")),
            (n(&fv, d, "io_bytes"), n(&fv, d, "total_ios")),
            "{d} at iodepth=8"
        );
    }
}
