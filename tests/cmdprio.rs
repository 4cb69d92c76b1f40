//! Per-command I/O priorities (cmdprio_percentage, cmdprio_class, cmdprio,
//! cmdprio_bssplit) with io_uring and libaio, against Debian's fio 3.33 on the same
//! jobs: fio decides which I/Os get the priority with one draw per read or write from
//! its prio stream, and ferrio draws the same numbers from the same seed, so the
//! per-priority I/O counts (JSON `prios`, the normal output's "% of IOs") are equal,
//! not just close. Both run with `fio_seeds=3.33` so the offsets are fio 3.33's too.
//!
//! Also: the refusals (other engines, both modes at once) and `uncached=1`
//! (RWF_DONTCACHE), whose outcome depends on the file system and is checked for both.

mod common;
use common::*;
use serde_json::Value;
use std::process::Command;

/// One direction's `prios`: job name, direction, (prioclass, prio, samples) each.
type DirPrios = (String, String, Vec<(u64, u64, u64)>);

/// Per job, per direction: (prioclass, prio, samples) of every `prios` entry.
fn prio_counts(v: &Value) -> Vec<DirPrios> {
    let mut out = Vec::new();
    for j in v["jobs"].as_array().expect("jobs") {
        for dir in ["read", "write", "mixed"] {
            let Some(prios) = j[dir]["prios"].as_array() else {
                continue;
            };
            let entries = prios
                .iter()
                .map(|p| {
                    let lat = if p["clat_ns"].is_object() {
                        &p["clat_ns"]
                    } else {
                        &p["lat_ns"]
                    };
                    (
                        p["prioclass"].as_u64().expect("prioclass"),
                        p["prio"].as_u64().expect("prio"),
                        lat["N"].as_u64().expect("N"),
                    )
                })
                .collect();
            out.push((
                j["jobname"].as_str().unwrap().to_string(),
                dir.to_string(),
                entries,
            ));
        }
    }
    out
}

/// Run fio and ferrio on the same command line (ferrio with fio 3.33's seeding).
fn both(dir: &std::path::Path, args: &[&str]) -> (Value, Value) {
    let fio = fio_json(args);
    let mut a = args.to_vec();
    a.push("--fio_seeds=3.33");
    let ours = run_json_in(dir, &a);
    (fio, ours)
}

fn assert_same_prios(args: &[&str], fio: &Value, ours: &Value) {
    let (f, o) = (prio_counts(fio), prio_counts(ours));
    assert!(!f.is_empty(), "fio printed no prios for {args:?}");
    assert_eq!(o, f, "per-priority counts differ from fio's for {args:?}");
}

#[test]
fn io_uring_percentage_picks_the_same_ios_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let f = file_in(d.path(), "f");
    let file = format!("--filename={f}");
    for extra in [
        &["--iodepth=1"][..],
        &["--iodepth=8", "--cmdprio_class=2", "--cmdprio=6"],
    ] {
        let mut args = vec![
            "--name=p",
            "--ioengine=io_uring",
            &file,
            "--size=1m",
            "--bs=4k",
            "--rw=randread",
            "--cmdprio_percentage=30",
            "--randseed=42",
        ];
        args.extend_from_slice(extra);
        let (fio, ours) = both(d.path(), &args);
        assert_same_prios(&args, &fio, &ours);
        // The split is the draw's, not a fixed share: 256 reads, about 30 % high.
        let high = prio_counts(&ours)[0].2[1].2;
        assert!((40..=115).contains(&high), "{high} of 256 at 30 %");
    }
}

#[test]
fn libaio_bssplit_with_classes_and_per_direction_values_match_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let f = file_in(d.path(), "f");
    let file = format!("--filename={f}");
    // Reads: 4k 20 % at the cmdprio class, 30 % at idle/7; writes: 8k half the time.
    let args = [
        "--name=b",
        "--ioengine=libaio",
        "--iodepth=4",
        &file,
        "--size=1m",
        "--bsrange=4k-8k",
        "--rw=randrw",
        "--cmdprio_bssplit=4k/20:4k/30/3/7,8k/50",
        "--cmdprio_class=2",
        "--randseed=7",
    ];
    let (fio, ours) = both(d.path(), &args);
    assert_same_prios(&args, &fio, &ours);
    // Per-direction percentages and levels, lat percentiles (the key turns lat_ns).
    let args = [
        "--name=r",
        "--ioengine=io_uring",
        &file,
        "--size=512k",
        "--bs=4k",
        "--rw=randrw",
        "--cmdprio_percentage=40,20",
        "--cmdprio=2,5",
        "--lat_percentiles=1",
        "--randseed=3",
    ];
    let (fio, ours) = both(d.path(), &args);
    assert_same_prios(&args, &fio, &ours);
    assert!(ours["jobs"][0]["write"]["prios"][0]["lat_ns"]["percentile"].is_object());
}

#[test]
fn group_reporting_merges_priorities_as_fio_does() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let f = file_in(d.path(), "f");
    // Threads at different process priorities, and cmdprio threads, in one group;
    // then the same without group_reporting (each job keeps its own).
    for group in ["group_reporting", ""] {
        let job = format!(
            "[global]\nfilename={f}\nsize=256k\nbs=4k\nrw=randread\nrandseed=5\n{group}\n\
             [a]\nioengine=psync\nprio=1\n[b]\nioengine=psync\nprio=5\n\
             [c]\nioengine=io_uring\ncmdprio_percentage=50\ncmdprio_class=2\nnumjobs=2\n"
        );
        let path = d.path().join("g.fio");
        std::fs::write(&path, job).unwrap();
        let p = path_str(&path);
        let (fio, ours) = both(d.path(), &[&p]);
        assert_same_prios(&[&p, group], &fio, &ours);
    }
}

/// The lines of fio's normal output that name a priority.
fn prio_lines(out: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| l.contains(" prio ") && l.contains("% of IOs"))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn normal_output_names_each_priority_and_its_share_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let f = file_in(d.path(), "f");
    let args = [
        "--name=n".to_string(),
        "--ioengine=io_uring".into(),
        format!("--filename={f}"),
        "--size=1m".into(),
        "--bs=4k".into(),
        "--rw=randrw".into(),
        "--cmdprio_percentage=30,10".into(),
        "--cmdprio=3".into(),
        "--cmdprio_class=2".into(),
        "--randseed=42".into(),
    ];
    let fio = Command::new("fio").args(&args).output().expect("run fio");
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let ours = run_ok(
        &[
            &args.iter().map(String::as_str).collect::<Vec<_>>()[..],
            &["--fio_seeds=3.33"],
        ]
        .concat(),
    );
    let want = prio_lines(&fio.stdout);
    assert_eq!(want.len(), 4, "fio printed {want:?}");
    // e.g. "clat prio 2/3 (28.44% of IOs) percentiles (nsec):" — the unit follows
    // each run's latencies, the rest is the draw's.
    let strip = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .map(|l| l.split(" percentiles").next().unwrap().to_string())
            .collect()
    };
    assert_eq!(strip(prio_lines(&ours.stdout)), strip(want));
    let text = String::from_utf8_lossy(&ours.stdout);
    for name in ["clat prio 0/0 (", "clat prio 2/3 ("] {
        assert_eq!(text.matches(name).count(), 4, "{name} in\n{text}");
    }
}

#[test]
fn no_percentage_means_no_priorities_and_no_draws() {
    let d = scratch();
    let f = file_in(d.path(), "f");
    let v = run_json_in(
        d.path(),
        &[
            "--name=z",
            "--ioengine=io_uring",
            &format!("--filename={f}"),
            "--size=256k",
            "--rw=randread",
            "--cmdprio_class=3",
            "--cmdprio=7",
        ],
    );
    assert!(
        v["jobs"][0]["read"].get("prios").is_none(),
        "{}",
        v["jobs"][0]["read"]
    );
    // 100 %: every read carries the cmdprio priority; one entry, so none printed.
    let v = run_json_in(
        d.path(),
        &[
            "--name=z",
            "--ioengine=libaio",
            &format!("--filename={f}"),
            "--size=256k",
            "--rw=randread",
            "--cmdprio_percentage=100",
            "--cmdprio_class=3",
        ],
    );
    assert!(v["jobs"][0]["read"].get("prios").is_none());
    assert_eq!(dir_counts(&v, "read").1, 64);
}

#[test]
fn cmdprio_is_refused_where_fio_refuses_it() {
    let d = scratch();
    let f = file_in(d.path(), "f");
    let file = format!("--filename={f}");
    for (args, want) in [
        (
            vec!["--ioengine=psync", "--cmdprio_percentage=10"],
            vec!["'cmdprio_percentage'", "io_uring, libaio", "psync"],
        ),
        (
            vec!["--ioengine=sync", "--cmdprio_bssplit=4k/10"],
            vec!["'cmdprio_bssplit'", "io_uring, libaio"],
        ),
        (
            vec!["--ioengine=libaio", "--uncached=1"],
            vec!["'uncached'", "io_uring, pvsync2"],
        ),
        (
            vec![
                "--ioengine=io_uring",
                "--cmdprio_percentage=10",
                "--cmdprio_bssplit=4k/10",
            ],
            vec!["mutually exclusive"],
        ),
        (
            vec!["--ioengine=io_uring", "--cmdprio_bssplit=4k/60:4k/50/1/0"],
            vec!["bs: 4096 exceeds 100"],
        ),
        (
            vec!["--ioengine=io_uring", "--cmdprio=8"],
            vec!["'cmdprio'", "allowed: 0..7"],
        ),
    ] {
        let mut a = vec!["--name=x", &file, "--size=64k"];
        a.extend(&args);
        let out = ferrio().args(&a).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{a:?}: {err}");
        for w in want {
            assert!(err.contains(w), "{a:?}: no {w:?} in {err}");
        }
        assert!(!std::path::Path::new(&f).exists(), "{a:?} made the file");
    }
}

/// Whether buffered I/O with RWF_DONTCACHE works on files in `dir`.
fn dontcache_works(dir: &std::path::Path) -> bool {
    use std::os::fd::AsRawFd;
    let p = dir.join(".dontcache-probe");
    std::fs::write(&p, vec![1u8; 4096]).unwrap();
    let f = std::fs::File::open(&p).unwrap();
    let mut buf = [0u8; 512];
    let iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: one valid iovec over a live buffer, a valid descriptor.
    let r = unsafe { libc::preadv2(f.as_raw_fd(), &iov, 1, 0, 0x80) };
    let errno = std::io::Error::last_os_error().raw_os_error();
    let _ = std::fs::remove_file(&p);
    assert!(
        r == 512 || errno == Some(libc::EOPNOTSUPP),
        "probe: {r} {errno:?}"
    );
    r == 512
}

#[test]
fn uncached_sends_rwf_dontcache_and_explains_where_it_cannot() {
    // The temporary directory, and tmpfs (/dev/shm) where there is one: each either
    // runs every I/O or fails with the reason, as the file system decides.
    let mut dirs = vec![scratch()];
    if std::path::Path::new("/dev/shm").is_dir() {
        if let Ok(t) = tempfile::Builder::new()
            .prefix("ferrio-test-")
            .tempdir_in("/dev/shm")
        {
            dirs.push(t);
        }
    }
    for d in &dirs {
        let works = dontcache_works(d.path());
        for (engine, rw) in [
            ("pvsync2", "write"),
            ("pvsync2", "read"),
            ("io_uring", "randwrite"),
        ] {
            let f = format!("--filename={}", file_in(d.path(), "u"));
            let a = [
                "--name=u",
                &format!("--ioengine={engine}"),
                &f,
                "--size=64k",
                &format!("--rw={rw}"),
                "--uncached=1",
                "--output-format=json",
            ];
            let out = ferrio().args(a).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            if works {
                assert!(out.status.success(), "{a:?}: {err}");
                assert_eq!(parse_json(&out.stdout)["jobs"][0]["error"], 0);
            } else {
                assert_eq!(
                    out.status.code(),
                    Some(1),
                    "{a:?} ran where RWF_DONTCACHE fails: {err}"
                );
                assert!(
                    err.contains("Operation not supported") && err.contains("RWF_DONTCACHE"),
                    "{a:?}: {err}"
                );
            }
            // psync never sends the flag: the same file always works.
            let out = ferrio()
                .args([
                    "--name=u",
                    "--ioengine=psync",
                    &f,
                    "--size=64k",
                    &format!("--rw={rw}"),
                ])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// (offset, priority column) of every entry of a per-I/O latency log, sorted.
fn log_prios(path: &std::path::Path) -> Vec<(u64, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v: Vec<(u64, String)> = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(", ").collect();
            (f[4].parse().unwrap(), f[5].to_string())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn per_io_logs_carry_each_ios_priority_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let f = file_in(d.path(), "f");
    for (extra, log_prio) in [
        (["--cmdprio_percentage=30", "--cmdprio=4"], "--log_prio=1"),
        (["--prioclass=1", "--prio=2"], "--log_prio=0"),
    ] {
        let mut logs = Vec::new();
        for who in ["fio", "ferrio"] {
            let base = file_in(d.path(), who);
            let mut a = vec![
                "--name=l".to_string(),
                "--ioengine=io_uring".into(),
                format!("--filename={f}"),
                "--size=256k".into(),
                "--rw=randread".into(),
                "--randseed=4".into(),
                format!("--write_lat_log={base}"),
                "--log_offset=1".into(),
                log_prio.into(),
            ];
            a.extend(extra.iter().map(|s| s.to_string()));
            let out = if who == "fio" {
                Command::new("fio").args(&a).output().unwrap()
            } else {
                a.push("--fio_seeds=3.33".into());
                ferrio().args(&a).output().unwrap()
            };
            assert!(
                out.status.success(),
                "{who} {a:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            logs.push(log_prios(&d.path().join(format!("{who}_clat.1.log"))));
        }
        assert_eq!(logs[0].len(), 64);
        assert_eq!(
            logs[1], logs[0],
            "{extra:?}: priority columns differ from fio's"
        );
        let distinct: std::collections::BTreeSet<&String> = logs[1].iter().map(|e| &e.1).collect();
        let want = if log_prio == "--log_prio=1" { 2 } else { 1 };
        assert_eq!(distinct.len(), want, "{distinct:?}");
    }
}
