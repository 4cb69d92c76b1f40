//! fio options for drop-in use (issue 14), each run by ferrio and, where fio 3.33 is
//! installed, by fio on the same input: file_append, unlink_each_loop, stats=0,
//! disable_bw_measurement, lockmem, uid/gid, cpumask, io_submit_mode and the options
//! fio 3.33 accepts without effect (write_barrier, log_entries).

mod common;
use common::*;
use std::path::Path;
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

/// The write lines of a write_iolog, without the file name: "write OFFSET LEN".
fn iolog_writes(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // fio 3 iologs: [time] file action [offset len]
            let at = f.iter().position(|w| *w == "write")?;
            Some(f[at..].join(" "))
        })
        .collect()
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

/// (fio's, ferrio's) results of the same job over two copies of `initial` (None: the
/// file does not exist); `job` gets filename= and write_iolog= appended.
fn both_on_copies(
    dir: &Path,
    initial: Option<&[u8]>,
    job: &[&str],
) -> [(Output, std::path::PathBuf, std::path::PathBuf); 2] {
    ["fio", "ferrio"].map(|who| {
        let file = dir.join(format!("{who}.dat"));
        let log = dir.join(format!("{who}.iolog"));
        if let Some(bytes) = initial {
            std::fs::write(&file, bytes).unwrap();
        }
        let mut args: Vec<String> = job.iter().map(|s| s.to_string()).collect();
        args.push(format!("--filename={}", path_str(&file)));
        args.push(format!("--write_iolog={}", path_str(&log)));
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = if who == "fio" {
            fio_out(&a)
        } else {
            ferrio_out(&a)
        };
        assert!(out.status.success(), "{who} {a:?}: {}", text(&out.stderr));
        (out, file, log)
    })
}

#[test]
fn file_append_writes_past_the_end_as_fio_does() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let old = pattern(1 << 20);
    let job = [
        "--name=app",
        "--rw=randwrite",
        "--bs=4k",
        "--size=256k",
        "--file_append=1",
        // Where fio 3.33 and ferrio seed alike (tests/differential_sequence.rs).
        "--randrepeat=0",
        "--randseed=1234",
    ];
    let [fio, ours] = both_on_copies(d.path(), Some(&old), &job);
    for (_, file, _) in [&fio, &ours] {
        let now = std::fs::read(file).unwrap();
        assert_eq!(now.len(), (1 << 20) + (256 << 10), "{}", file.display());
        assert!(now[..1 << 20] == old[..], "the old bytes changed");
    }
    // The same offsets, all at or past the old end, in the same order.
    let (a, b) = (iolog_writes(&fio.2), iolog_writes(&ours.2));
    assert_eq!(a.len(), 64);
    assert_eq!(a, b);
    assert!(b.iter().all(|l| {
        let off: u64 = l.split(' ').nth(1).unwrap().parse().unwrap();
        off >= 1 << 20
    }));
    // A missing file is created and written from 0, with fio's layout line.
    for (_, file, log) in [&fio, &ours] {
        std::fs::remove_file(file).unwrap();
        std::fs::remove_file(log).unwrap();
    }
    let [fio, ours] = both_on_copies(d.path(), None, &job);
    for (out, file, _) in [&fio, &ours] {
        assert_eq!(std::fs::metadata(file).unwrap().len(), 256 << 10);
        assert!(text(&out.stdout).contains("app: Laying out IO file (1 file / 0MiB)"));
    }
    assert_eq!(iolog_writes(&fio.2), iolog_writes(&ours.2));
}

#[test]
fn unlink_each_loop_removes_the_files_between_passes() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    for (who, run) in [
        ("fio", fio_out as fn(&[&str]) -> Output),
        ("ferrio", ferrio_out),
    ] {
        // A writer recreates its file every pass and ends with a whole new one.
        let f = file_in(d.path(), &format!("{who}.w"));
        let fa = format!("--filename={f}");
        let w = [
            "--name=w",
            &fa,
            "--rw=write",
            "--bs=64k",
            "--size=1m",
            "--loops=3",
            "--unlink_each_loop=1",
            "--output-format=json",
        ];
        let out = run(&w);
        assert!(out.status.success(), "{who}: {}", text(&out.stderr));
        let v = parse_json(&out.stdout);
        assert_eq!(v["jobs"][0]["write"]["total_ios"], 48, "{who}");
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 1 << 20, "{who}");
        // A reader finds its file gone after the first pass: ENOENT, as in fio.
        let f = file_in(d.path(), &format!("{who}.r"));
        let fa = format!("--filename={f}");
        let r = [
            "--name=r",
            &fa,
            "--rw=read",
            "--bs=64k",
            "--size=1m",
            "--loops=3",
            "--unlink_each_loop=1",
            "--output-format=json",
        ];
        let out = run(&r);
        let v = parse_json(&out.stdout);
        assert_eq!(v["jobs"][0]["error"], libc::ENOENT, "{who}: {v}");
        assert_eq!(v["jobs"][0]["read"]["total_ios"], 16, "{who}");
        assert!(!Path::new(&f).exists(), "{who}");
    }
}

/// create_on_open=1 opens every file with O_CREAT, a read job's too (fio's
/// generic_open_file): a missing file is created empty, and the first read fails with
/// EIO. ferrio opened a read job's file without O_CREAT and failed with ENOENT.
/// Without create_on_open a missing file is still ENOENT (unlink_each_loop above).
#[test]
fn create_on_open_creates_a_read_jobs_missing_file_as_fio() {
    let d = scratch();
    let mut runs = vec![("ferrio", ferrio_out as fn(&[&str]) -> Output)];
    if have_fio() {
        runs.push(("fio", fio_out));
    }
    for (who, run) in runs {
        for (extra, errno, ios, created) in [
            ("--create_on_open=1", libc::EIO, 1, true),
            ("--allow_file_create=0", libc::ENOENT, 0, false),
        ] {
            let f = file_in(d.path(), &format!("{who}{extra}"));
            let fa = format!("--filename={f}");
            let args = [
                "--name=r",
                &fa,
                "--rw=read",
                "--size=1m",
                "--create_on_open=1",
                extra,
                "--output-format=json",
            ];
            let v = parse_json(&run(&args).stdout);
            let job = &v["jobs"][0];
            assert_eq!(job["error"], errno, "{who} {extra}: {v}");
            assert_eq!(job["read"]["total_ios"], ios, "{who} {extra}");
            assert_eq!(Path::new(&f).exists(), created, "{who} {extra}");
        }
    }
}

#[test]
fn stats_0_leaves_the_job_out_of_the_report() {
    let jobs = [
        "--name=hidden",
        "--ioengine=null",
        "--size=1m",
        "--bs=4k",
        "--stats=0",
        "--name=shown",
        "--ioengine=null",
        "--size=2m",
        "--bs=4k",
    ];
    let v = run_json(&jobs);
    let names: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shown"]);
    // The group sums only the shown job, as in fio's normal output.
    let mut a = jobs.to_vec();
    a.push("--output-format=normal");
    let ours = text(&run_ok(&a).stdout);
    assert!(!ours.contains("hidden: (groupid"), "{ours}");
    assert!(ours.contains("io=2048KiB"), "{ours}");
    if have_fio() {
        let fio = text(&fio_out(&a).stdout);
        assert!(
            !fio.contains("hidden: (groupid") && fio.contains("io=2048KiB"),
            "{fio}"
        );
    }
    // Its failure still fails the run.
    let d = scratch();
    let missing = format!("--filename={}", file_in(d.path(), "none"));
    let out = ferrio_out(&[
        "--name=h",
        "--stats=0",
        "--rw=read",
        "--size=64k",
        &missing,
        "--allow_file_create=0",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}

#[test]
fn disable_bw_measurement_drops_per_io_log_entries_as_fio() {
    let d = scratch();
    let cases: [(&[&str], [usize; 2]); 4] = [
        (&[], [16, 16]),
        (&["--disable_bw_measurement=1"], [0, 16]),
        (
            &["--disable_bw=1", "--disable_clat=1", "--disable_slat=1"],
            [0, 0],
        ),
        (&["--gtod_reduce=1"], [0, 0]),
    ];
    let fio = have_fio();
    for (extra, want) in cases {
        for who in ["fio", "ferrio"] {
            if who == "fio" && !fio {
                continue;
            }
            let prefix = file_in(d.path(), who);
            let bw = format!("--write_bw_log={prefix}");
            let iops = format!("--write_iops_log={prefix}");
            let mut a = vec![
                "--name=l",
                "--ioengine=null",
                "--size=64k",
                "--bs=4k",
                &bw,
                &iops,
            ];
            a.extend_from_slice(extra);
            let out = if who == "fio" {
                fio_out(&a)
            } else {
                ferrio_out(&a)
            };
            assert!(out.status.success(), "{who}: {}", text(&out.stderr));
            let lines = |kind: &str| {
                std::fs::read_to_string(format!("{prefix}_{kind}.1.log"))
                    .unwrap()
                    .lines()
                    .count()
            };
            assert_eq!([lines("bw"), lines("iops")], want, "{who} {extra:?}");
        }
    }
}

fn vm_locked_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let l = s.lines().find(|l| l.starts_with("VmLck:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn lockmem_pins_memory_while_the_job_runs() {
    // A job that runs until stopped; its thread pins 16 MiB before it starts.
    let child = ferrio()
        .args([
            "--name=p",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=60s",
            "--lockmem=16m",
            "--output-format=json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(50);
    let mut seen = 0;
    while std::time::Instant::now() < deadline {
        seen = vm_locked_kib(child.id()).unwrap_or(0);
        if seen >= 16 << 10 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    assert!(
        seen >= 16 << 10,
        "VmLck was {seen} KiB: {}",
        text(&out.stderr)
    );
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn uid_and_gid_switch_the_job_thread_only() {
    if !is_root() {
        skip::skip("uid=/gid= need root to switch to another user");
        return;
    }
    let d = scratch();
    let private = file_in(d.path(), "private");
    std::fs::write(&private, vec![0u8; 64 << 10]).unwrap();
    let shared = file_in(d.path(), "shared");
    std::fs::write(&shared, vec![0u8; 64 << 10]).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let fp = format!("--filename={private}");
    let fs = format!("--filename={shared}");
    let nobody = ["--uid=65534", "--gid=65534"];
    for who in ["fio", "ferrio"] {
        if who == "fio" && !have_fio() {
            continue;
        }
        let run = |a: &[&str]| {
            if who == "fio" {
                fio_out(a)
            } else {
                ferrio_out(a)
            }
        };
        // nobody cannot open root's 0644 file for writing: EACCES, exit 1.
        let mut a = vec![
            "--name=u",
            &fp,
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--output-format=json",
        ];
        a.extend_from_slice(&nobody);
        let out = run(&a);
        assert_eq!(out.status.code(), Some(1), "{who}");
        assert_eq!(
            parse_json(&out.stdout)["jobs"][0]["error"],
            libc::EACCES,
            "{who}"
        );
        // ... but can write a 0666 one, and a job without uid= beside it stays root.
        let mut a = vec!["--name=u", &fs, "--rw=write", "--bs=4k", "--size=64k"];
        a.extend_from_slice(&nobody);
        a.extend_from_slice(&[
            "--name=root",
            &fp,
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--output-format=json",
        ]);
        let out = run(&a);
        assert!(out.status.success(), "{who}: {}", text(&out.stderr));
        let v = parse_json(&out.stdout);
        assert_eq!(v["jobs"][0]["write"]["total_ios"], 16, "{who}");
        assert_eq!(v["jobs"][1]["write"]["total_ios"], 16, "{who}");
    }
}

#[test]
fn cpumask_sets_the_cpus_and_refuses_missing_ones() {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    let ok = ferrio_out(&["--name=c", "--ioengine=null", "--size=64k", "--cpumask=1"]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    if n < 32 {
        let too_big = format!("--cpumask={}", 1u64 << n);
        let out = ferrio_out(&["--name=c", "--ioengine=null", "--size=64k", &too_big]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            text(&out.stderr).contains(&format!("CPU {n}")),
            "{}",
            text(&out.stderr)
        );
        if have_fio() {
            assert_eq!(
                fio_out(&["--name=c", "--ioengine=null", "--size=64k", &too_big])
                    .status
                    .code(),
                Some(1)
            );
        }
    }
}

#[test]
fn fio_no_ops_and_io_submit_mode() {
    let job = [
        "--parse-only",
        "--name=n",
        "--ioengine=null",
        "--size=1m",
        "--write_barrier=8",
        "--log_entries=4096",
        "--io_submit_mode=inline",
    ];
    assert!(ferrio_out(&job).status.success());
    if have_fio() {
        assert!(fio_out(&job).status.success());
    }
    // offload is accepted (pacing: a rate wait does not empty the queue first);
    // anything else is refused, naming the option.
    let offload = [
        "--parse-only",
        "--name=n",
        "--size=1m",
        "--io_submit_mode=offload",
    ];
    assert!(ferrio_out(&offload).status.success());
    let out = ferrio_out(&["--parse-only", "--name=n", "--io_submit_mode=threads"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("io_submit_mode"),
        "{}",
        text(&out.stderr)
    );
}

/// (jobname, groupid, io_kbytes read, job_runtime ms) of each job of a JSON report.
fn job_rows(v: &serde_json::Value) -> Vec<(String, u64, u64, u64)> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
                j["read"]["io_kbytes"].as_u64().unwrap(),
                j["job_runtime"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn exit_what_chooses_which_jobs_exitall_stops() {
    let fio = have_fio();
    // a (exitall, 1 s) and b (60 s) in group 0; c after a stonewall.
    let stonewalled = [
        "--name=a",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=1",
        "--exitall",
        "--name=b",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=60",
        "--name=c",
        "--stonewall",
        "--ioengine=null",
        "--size=1m",
        "--output-format=json",
    ];
    // Every run below is independent and mostly waits for its jobs' runtimes: they
    // all run at once (the bounds on b's runtime are far from the times involved).
    let whos: Vec<&str> = ["fio", "ferrio"]
        .into_iter()
        .filter(|w| *w == "ferrio" || fio)
        .collect();
    let run = |who: &str, what: &str, job: &[&str]| {
        let w = format!("--exit_what={what}");
        let mut a = vec![w.as_str()];
        a.extend_from_slice(job);
        let out = if who == "fio" {
            fio_out(&a)
        } else {
            ferrio_out(&a)
        };
        assert!(out.status.success(), "{who} {what}: {}", text(&out.stderr));
        job_rows(&parse_json(&out.stdout))
    };
    let stonewall_cases = [("group", 1024), ("stonewall", 1024), ("all", 0)];
    let concurrent_cases = [("group", true), ("stonewall", false)];
    let (stonewall_rows, concurrent_rows) = std::thread::scope(|s| {
        let mut first = Vec::new();
        for &(what, c_kib) in &stonewall_cases {
            for &who in &whos {
                let h = s.spawn(move || run(who, what, &stonewalled));
                first.push((who, what, c_kib, h));
            }
        }
        let mut second = Vec::new();
        for &(what, b_full) in &concurrent_cases {
            for &who in &whos {
                let h = s.spawn(move || run(who, what, &CONCURRENT));
                second.push((who, what, b_full, h));
            }
        }
        let join = |h: std::thread::ScopedJoinHandle<'_, Vec<_>>| {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
        };
        (
            first
                .into_iter()
                .map(|(who, what, c, h)| (who, what, c, join(h)))
                .collect::<Vec<_>>(),
            second
                .into_iter()
                .map(|(who, what, b, h)| (who, what, b, join(h)))
                .collect::<Vec<_>>(),
        )
    });
    for (who, what, c_kib, rows) in stonewall_rows {
        // b was stopped long before its 60 s, and c ran unless exit_what=all.
        assert!(rows[1].3 < 30_000, "{who} {what}: {rows:?}");
        let c = rows.iter().find(|r| r.0 == "c").unwrap();
        assert_eq!(c.2, c_kib, "{who} {what}: {rows:?}");
    }
    for (who, what, b_full, rows) in concurrent_rows {
        assert_eq!(rows[1].3 >= 6000, b_full, "{who} {what}: {rows:?}");
    }
}

/// Two groups at once (new_group, no stonewall): exit_what=group leaves the other
/// running.
const CONCURRENT: [&str; 13] = [
    "--name=a",
    "--ioengine=null",
    "--size=1m",
    "--time_based",
    "--runtime=1",
    "--exitall",
    "--name=b",
    "--new_group",
    "--ioengine=null",
    "--size=1m",
    "--time_based",
    "--runtime=6",
    "--output-format=json",
];

#[test]
fn opendir_adds_every_regular_file_below_it_as_fio() {
    let d = scratch();
    let root = d.path().join("tree");
    std::fs::create_dir_all(root.join("sub/deeper")).unwrap();
    for (name, kib) in [("a", 64), ("sub/b", 128), ("sub/deeper/c", 8), ("d", 16)] {
        std::fs::write(root.join(name), vec![1u8; kib << 10]).unwrap();
    }
    std::os::unix::fs::symlink("a", root.join("link")).unwrap();
    let od = format!("--opendir={}", path_str(&root));
    let fio = have_fio();
    let mut seen = Vec::new();
    for who in ["fio", "ferrio"] {
        if who == "fio" && !fio {
            continue;
        }
        let log = d.path().join(format!("{who}.iolog"));
        let wl = format!("--write_iolog={}", path_str(&log));
        let a = [
            "--name=o",
            &od,
            "--rw=read",
            "--bs=4k",
            &wl,
            "--output-format=json",
        ];
        let out = if who == "fio" {
            fio_out(&a)
        } else {
            ferrio_out(&a)
        };
        assert!(out.status.success(), "{who}: {}", text(&out.stderr));
        assert_eq!(
            parse_json(&out.stdout)["jobs"][0]["read"]["io_kbytes"],
            216,
            "{who}"
        );
        // The files, in the order fio adds them (directory order, depth first).
        let added: Vec<String> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter(|l| l.ends_with(" add"))
            .map(|l| l.split_whitespace().rev().nth(1).unwrap().to_string())
            .collect();
        assert_eq!(added.len(), 4, "{who}: {added:?}");
        seen.push(added);
    }
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1]);
    }
    let out = ferrio_out(&["--name=o", "--opendir=/nonexistent-ferrio-dir", "--rw=read"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("opendir(/nonexistent-ferrio-dir)"),
        "{}",
        text(&out.stderr)
    );
}

fn clock_ms(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec the call writes.
    assert_eq!(unsafe { libc::clock_gettime(id, &mut ts) }, 0);
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

#[test]
fn log_alternate_epoch_stamps_logs_from_the_chosen_clock() {
    let d = scratch();
    let fio = have_fio();
    let cases: [(&[&str], libc::clockid_t); 3] = [
        (
            &[
                "--log_alternate_epoch=1",
                "--log_alternate_epoch_clock_id=1",
            ],
            libc::CLOCK_MONOTONIC,
        ),
        (&["--log_alternate_epoch=1"], libc::CLOCK_REALTIME),
        // fio 3.33: the clock id applies to log_unix_epoch too.
        (
            &["--log_unix_epoch=1", "--log_alternate_epoch_clock_id=1"],
            libc::CLOCK_MONOTONIC,
        ),
    ];
    for (extra, clock) in cases {
        for who in ["fio", "ferrio"] {
            if who == "fio" && !fio {
                continue;
            }
            let prefix = file_in(d.path(), who);
            let bw = format!("--write_bw_log={prefix}");
            let mut a = vec!["--name=e", "--ioengine=null", "--size=64k", "--bs=4k", &bw];
            a.extend_from_slice(extra);
            let before = clock_ms(clock);
            let out = if who == "fio" {
                fio_out(&a)
            } else {
                ferrio_out(&a)
            };
            let after = clock_ms(clock);
            assert!(out.status.success(), "{who}: {}", text(&out.stderr));
            let log = std::fs::read_to_string(format!("{prefix}_bw.1.log")).unwrap();
            let t: u64 = log.split(',').next().unwrap().trim().parse().unwrap();
            assert!(
                (before..=after).contains(&t),
                "{who} {extra:?}: {t} not in {before}..={after}"
            );
        }
    }
}

#[test]
fn numa_options_accept_and_refuse_what_fio_does() {
    let fio = have_fio();
    let have_node1 = Path::new("/sys/devices/system/node/node1").exists();
    let mut cases = vec![
        ("--numa_cpu_nodes=0", true),
        ("--numa_mem_policy=bind:0", true),
        ("--numa_mem_policy=interleave:0", true),
        ("--numa_mem_policy=prefer:0", true),
        ("--numa_mem_policy=local", true),
        ("--numa_mem_policy=default", true),
        ("--numa_mem_policy=bind", false),
        ("--numa_mem_policy=local:0", false),
        ("--numa_mem_policy=prefer:0-1", false),
        ("--numa_mem_policy=spread:0", false),
    ];
    if !have_node1 {
        cases.push(("--numa_cpu_nodes=0-1", false));
        cases.push(("--numa_mem_policy=interleave:0-1", false));
    }
    // The null engine touches no file: the cases run a few at a time.
    common::cases::each_case(&cases, |&(opt, ok)| {
        let a = ["--name=n", "--ioengine=null", "--size=64k", opt];
        let ours = ferrio_out(&a);
        assert_eq!(
            ours.status.success(),
            ok,
            "ferrio {opt}: {}",
            text(&ours.stderr)
        );
        if fio {
            // fio 3.33 reports a refused value but may still exit 0: compare what it ran.
            let theirs = fio_out(&a);
            let ran = text(&theirs.stdout).contains("n: (groupid=0");
            assert_eq!(ran, ok, "fio {opt}: {}", text(&theirs.stderr));
        }
    });
    // Nodes this machine lacks are a run's error, not --parse-only's (fio's
    // parse-only accepts them: a job written for a larger machine).
    if !have_node1 {
        for opt in ["--numa_cpu_nodes=0-1", "--numa_mem_policy=interleave:0-1"] {
            let a = [
                "--parse-only",
                "--name=n",
                "--ioengine=null",
                "--size=64k",
                opt,
            ];
            let ours = ferrio_out(&a);
            assert!(ours.status.success(), "{opt}: {}", text(&ours.stderr));
            let run = ferrio_out(&a[1..]);
            let e = text(&run.stderr);
            assert!(
                !run.status.success() && e.contains("NUMA node 1 does not exist"),
                "{opt}: {e}"
            );
            if fio {
                assert!(fio_out(&a).status.success(), "fio {opt}");
            }
        }
    }
}

#[test]
fn numa_mem_policy_is_the_job_threads_policy() {
    let child = ferrio()
        .args([
            "--name=nm",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--runtime=60s",
            "--numa_mem_policy=interleave:0",
            "--output-format=json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let tasks = format!("/proc/{}/task", child.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(50);
    let mut seen = None;
    while seen.is_none() && std::time::Instant::now() < deadline {
        for t in std::fs::read_dir(&tasks).into_iter().flatten().flatten() {
            let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            let maps = std::fs::read_to_string(t.path().join("numa_maps")).unwrap_or_default();
            if comm.trim() == "nm.0" && maps.contains("interleave:0") {
                // The main thread keeps the default policy.
                let main = std::fs::read_to_string(format!("/proc/{}/numa_maps", child.id()))
                    .unwrap_or_default();
                seen = Some(main.contains("interleave"));
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        seen,
        Some(false),
        "job thread policy not seen: {}",
        text(&out.stderr)
    );
}
