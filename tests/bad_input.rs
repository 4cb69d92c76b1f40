//! Bad input: one clear line on stderr naming the problem, exit code 1, no file touched.

mod common;
use common::*;

fn fails(args: &[&str]) -> String {
    let err = run_err(args);
    assert!(err.starts_with("ferrio: "), "stderr: {err}");
    err
}

#[test]
fn unknown_option_is_named_and_nothing_is_created() {
    let d = scratch();
    let f = file_in(d.path(), "never");
    let err = fails(&[
        "--name=t",
        "--rw=read",
        "--size=1M",
        "--blocksizee=4k",
        &format!("--filename={f}"),
    ]);
    assert!(err.contains("blocksizee"), "{err}");
    assert!(
        !std::path::Path::new(&f).exists(),
        "a file was created for bad input"
    );
}

#[test]
fn bad_value_names_option_and_allowed_values() {
    let d = scratch();
    let f = file_in(d.path(), "never");
    let err = fails(&[
        "--name=t",
        "--rw=rando",
        "--size=1M",
        &format!("--filename={f}"),
    ]);
    assert!(
        err.contains("rw") && err.contains("rando") && err.contains("randread"),
        "{err}"
    );
    assert!(!std::path::Path::new(&f).exists());
}

#[test]
fn malformed_size_is_rejected() {
    let err = fails(&["--name=t", "--ioengine=null", "--size=12q"]);
    assert!(err.contains("size") && err.contains("12q"), "{err}");
}

#[test]
fn job_file_errors_name_file_and_line() {
    let d = scratch();
    let job = d.path().join("bad.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=null\n\n[t]\nsize=1M\nrw=sideways\n",
    )
    .unwrap();
    let err = fails(&[job.to_str().unwrap()]);
    assert!(err.contains("bad.fio:6"), "{err}");
    assert!(err.contains("sideways"), "{err}");
}

#[test]
fn missing_job_file_and_missing_include() {
    let d = scratch();
    let err = fails(&[&file_in(d.path(), "nope.fio")]);
    assert!(err.contains("nope.fio"), "{err}");
    let job = d.path().join("inc.fio");
    std::fs::write(
        &job,
        "[global]\ninclude missing.fio\n[t]\nioengine=null\nsize=1M\n",
    )
    .unwrap();
    let err = fails(&[job.to_str().unwrap()]);
    assert!(err.contains("missing.fio"), "{err}");
}

#[test]
fn missing_size_for_a_new_file() {
    let d = scratch();
    let f = file_in(d.path(), "new");
    let err = fails(&["--name=t", "--rw=read", &format!("--filename={f}")]);
    assert!(err.contains("size"), "{err}");
    assert!(!std::path::Path::new(&f).exists());
}

#[test]
fn unknown_engine_lists_available_ones() {
    let err = fails(&["--name=t", "--ioengine=warpdrive", "--size=1M"]);
    assert!(err.contains("warpdrive") && err.contains("psync"), "{err}");
}

/// A job on a file in a scratch directory that must be refused before any I/O, by a
/// real run and by --parse-only alike: exit 1, stderr naming every word in `names`, and
/// no file created. Returns the message.
/// The message with the free-memory figure masked: it is read afresh by each run,
/// and a busy machine changes it between two runs ("21.1GiB" then "21.0GiB").
fn without_free_memory(msg: &str) -> String {
    let Some(end) = msg.find(" of memory available") else {
        return msg.to_string();
    };
    match msg[..end].rfind("the ") {
        Some(start) => format!("{}the N{}", &msg[..start], &msg[end..]),
        None => msg.to_string(),
    }
}

fn refused_before_io(job: &[&str], names: &[&str]) -> String {
    let d = scratch();
    let f = file_in(d.path(), "never");
    let mut args: Vec<String> = job.iter().map(|s| s.to_string()).collect();
    args.push(format!("--filename={f}"));
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let err = fails(&a);
    for n in names {
        assert!(err.contains(n), "message should name '{n}': {err}");
    }
    let mut p = a.clone();
    p.push("--parse-only");
    let perr = fails(&p);
    assert_eq!(
        without_free_memory(&perr),
        without_free_memory(&err),
        "--parse-only must refuse it the same way"
    );
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
    assert!(left.is_empty(), "files were created: {left:?}");
    err
}

#[test]
fn libaio_depth_beyond_aio_max_nr_is_refused_up_front() {
    let max: u64 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let depth = format!("--iodepth={}", max + 1);
    refused_before_io(
        &[
            "--name=t",
            "--rw=read",
            "--size=1m",
            "--ioengine=libaio",
            &depth,
        ],
        &["job 't'", &depth[2..], "aio-max-nr"],
    );
}

#[test]
fn io_uring_depth_beyond_the_ring_limit_is_refused() {
    refused_before_io(
        &[
            "--name=t",
            "--rw=read",
            "--size=1m",
            "--ioengine=io_uring",
            "--iodepth=65536",
        ],
        &["job 't'", "iodepth=65536", "32768"],
    );
}

#[test]
fn buffer_memory_beyond_what_the_machine_has_is_refused() {
    // 4M units × 1 MiB × 4 jobs = 16 TiB of buffers: more than any test machine has.
    refused_before_io(
        &[
            "--name=t",
            "--rw=read",
            "--size=1g",
            "--bs=1m",
            "--ioengine=posixaio",
            "--iodepth=4096k",
            "--numjobs=4",
        ],
        &[
            "job 't'",
            "iodepth=4194304",
            "bs=1MiB",
            "numjobs=4",
            "16TiB",
            "memory available",
        ],
    );
}

#[test]
fn size_smaller_than_the_block_size_names_both() {
    refused_before_io(
        &["--name=t", "--rw=read", "--size=4k", "--bs=8k"],
        &["job 't'", "size=4KiB", "bs=8KiB"],
    );
}

#[test]
fn offset_past_the_end_of_an_existing_file_names_both() {
    let d = scratch();
    let f = file_in(d.path(), "two-mib");
    std::fs::write(&f, vec![5u8; 2 << 20]).unwrap();
    for extra in [None, Some("--parse-only")] {
        let mut args = vec!["--name=t", "--rw=read", "--offset=1G"];
        let fa = format!("--filename={f}");
        args.push(&fa);
        args.extend(extra);
        let err = fails(&args);
        assert!(
            err.contains("offset=1GiB") && err.contains("2MiB") && err.contains(&f),
            "{err}"
        );
    }
    assert_eq!(std::fs::read(&f).unwrap(), vec![5u8; 2 << 20]);
}

#[test]
fn cpus_allowed_beyond_the_machine_is_refused_before_layout() {
    refused_before_io(
        &["--name=t", "--rw=read", "--size=1m", "--cpus_allowed=9999"],
        &["job 't'", "cpus_allowed", "CPU 9999"],
    );
}

#[test]
fn blockalign_zero_is_refused() {
    refused_before_io(
        &["--name=t", "--rw=randread", "--size=1m", "--blockalign=0"],
        &["job 't'", "blockalign", "'0'"],
    );
}

#[test]
fn an_unset_variable_in_a_job_file_is_named_and_the_option_then_refused() {
    // As in fio, an unset variable is replaced by nothing (docs/dropin.md); the
    // warning names it and its line, and the empty value is refused naming the option.
    let d = scratch();
    let job = d.path().join("env.fio");
    std::fs::write(
        &job,
        "[t]\nioengine=null\nsize=${FERRIO_TEST_SURELY_UNSET}\n",
    )
    .unwrap();
    let err = fails(&[job.to_str().unwrap()]);
    assert!(
        err.contains("warning: environment variable 'FERRIO_TEST_SURELY_UNSET' is not set")
            && err.contains("env.fio:3"),
        "{err}"
    );
    assert!(err.contains("for option 'size'"), "{err}");
    assert!(
        err.find("FERRIO_TEST_SURELY_UNSET") < err.find("for option 'size'"),
        "the warning comes first: {err}"
    );
}

#[test]
fn latin1_is_fine_in_comments_and_an_error_with_its_line_in_values() {
    let d = scratch();
    let job = d.path().join("latin1.fio");
    std::fs::write(
        &job,
        b"; r\xe9sum\xe9 of the job\n[t]\nioengine=null\nsize=1m # caf\xe9\n",
    )
    .unwrap();
    let out = ferrio()
        .args([job.to_str().unwrap(), "--output-format=json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(dir_counts(&parse_json(&out.stdout), "read").0, 1 << 20);
    std::fs::write(&job, b"[t]\nioengine=null\nsize=1m\ndescription=caf\xe9\n").unwrap();
    let err = fails(&[job.to_str().unwrap()]);
    assert!(
        err.contains("latin1.fio") && err.contains("line 4"),
        "{err}"
    );
}

#[test]
fn time_based_without_runtime_warns_and_runs_size_based() {
    let out = ferrio()
        .args([
            "--name=t",
            "--ioengine=null",
            "--size=1m",
            "--time_based",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("time_based") && err.contains("runtime"),
        "{err}"
    );
    assert_eq!(dir_counts(&parse_json(&out.stdout), "read"), (1 << 20, 256));
}

#[test]
fn character_devices_work_and_are_never_removed() {
    let v = run_json(&[
        "--name=t",
        "--filename=/dev/null",
        "--rw=write",
        "--size=1m",
    ]);
    assert_eq!(dir_counts(&v, "write"), (1 << 20, 256));
    let v = run_json(&[
        "--name=t",
        "--filename=/dev/zero",
        "--rw=randread",
        "--size=1m",
    ]);
    assert_eq!(dir_counts(&v, "read"), (1 << 20, 256));
    // unlink=1 must not remove a device node: tried on a null device of our own (never
    // on /dev/null: a regression would break the machine).
    let d = scratch();
    let node = file_in(d.path(), "null");
    let made = std::process::Command::new("mknod")
        .args([&node, "c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let v = run_json(&[
            "--name=t",
            &format!("--filename={node}"),
            "--rw=write",
            "--size=1m",
            "--unlink=1",
        ]);
        assert_eq!(dir_counts(&v, "write"), (1 << 20, 256));
        use std::os::unix::fs::FileTypeExt;
        let meta = std::fs::metadata(&node).expect("the device node is still there");
        assert!(meta.file_type().is_char_device());
    } else {
        common::skip::skip("the unlink part needs root (mknod)");
    }
    // Without size= a character device has no size to run over.
    let err = fails(&["--name=t", "--filename=/dev/null", "--rw=write"]);
    assert!(err.contains("/dev/null") && err.contains("size="), "{err}");
}

#[test]
fn huge_page_buffers_beyond_the_pool_are_refused() {
    // 65536 × 1 MiB = 64 GiB of huge pages: more than any test machine reserves.
    refused_before_io(
        &[
            "--name=t",
            "--rw=read",
            "--size=1g",
            "--bs=1m",
            "--ioengine=posixaio",
            "--iodepth=65536",
            "--mem=mmaphuge",
        ],
        &["job 't'", "mem=mmaphuge", "huge pages", "nr_hugepages"],
    );
}

#[test]
fn malformed_values_of_this_rounds_options_are_named_and_nothing_is_created() {
    // hugepage-size, verifysort, verifysort_nr, end_syncfs, thinkcycles, bsrange: a value
    // of the wrong kind is refused before any file is made, naming the option.
    let d = scratch();
    let file = file_in(d.path(), "f");
    for bad in [
        "--hugepage-size=big",
        "--verifysort=maybe",
        "--verifysort_nr=-3",
        "--end_syncfs=maybe",
        "--thinkcycles=lots",
        // fio 3.33: "failed parsing bsrange=4k" (one size is not a range)
        "--bsrange=4k",
    ] {
        let err = fails(&[
            "--name=t",
            "--rw=write",
            "--size=1m",
            &format!("--filename={file}"),
            bad,
        ]);
        let name = bad.trim_start_matches("--").split('=').next().unwrap();
        assert!(err.contains(name), "{bad}: {err}");
    }
    assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
}

/// A steady-state window of one check interval has no slope (fio 3.33: -nan, called
/// attained) and no deviation (0, met at once); fio 3.35 and later refuse it too.
#[test]
fn a_steadystate_window_of_one_interval_is_refused_for_every_criterion() {
    for criterion in ["iops_slope:1%", "iops:10%", "bw:5%"] {
        refused_before_io(
            &[
                "--name=t",
                "--rw=read",
                "--size=1M",
                "--steadystate_duration=2s",
                "--steadystate_check_interval=2s",
                &format!("--steadystate={criterion}"),
            ],
            &["job 't'", "steadystate_duration", "at least 2"],
        );
    }
}

#[test]
fn a_bssplit_entry_below_a_later_bsrange_is_refused() {
    // fio aligns the 512-byte entry down to 0 and ends the job, with no error, the
    // first time it draws it (13 of 256 I/Os); ferrio had issued zero-length I/Os.
    refused_before_io(
        &[
            "--name=t",
            "--rw=read",
            "--size=1M",
            "--bssplit=512/10:4k/90",
            "--bsrange=4k-64k",
        ],
        &["job 't'", "bssplit entry 512", "4096", "bsrange"],
    );
    // In the other order, or with bs_unaligned=1, the entry is a size of its own.
    for args in [
        ["--bsrange=4k-64k", "--bssplit=512/10:4k/90"],
        [
            "--bssplit=512/10:4k/90",
            "--bsrange=4k-64k --bs_unaligned=1",
        ],
    ] {
        let d = scratch();
        let mut a = vec![
            "--name=t".to_string(),
            "--rw=read".into(),
            "--size=64k".into(),
            format!("--filename={}", file_in(d.path(), "u.dat")),
        ];
        a.extend(args.iter().flat_map(|s| s.split(' ')).map(String::from));
        let o = ferrio().args(&a).output().unwrap();
        assert!(
            o.status.success(),
            "{a:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// fio's mmap engine refuses blocks smaller than a page with direct, fsync or
/// fdatasync, and libpmem with fsync or fdatasync (ferrio had flushed the page-aligned
/// mapping around them); whole pages,
/// or sub-page blocks without those options, run.
#[test]
fn mmap_with_sub_page_blocks_and_fsync_or_direct_is_refused_like_fio() {
    let base = ["--name=t", "--rw=write", "--size=64k", "--ioengine=mmap"];
    for (opts, named) in [
        (["--bs=512", "--fsync=4"], "fsync"),
        (["--bs=1k", "--fdatasync=1"], "fdatasync"),
        (["--bs=2k", "--direct=1"], "direct=1"),
    ] {
        let job: Vec<&str> = base.iter().chain(&opts).copied().collect();
        refused_before_io(
            &job,
            &[
                "job 't'",
                "ioengine=mmap",
                named,
                "page size",
                "smallest block size",
            ],
        );
    }
    // libpmem's init has the same check, for fsync and fdatasync.
    refused_before_io(
        &[
            "--name=t",
            "--rw=write",
            "--size=64k",
            "--ioengine=libpmem",
            "--bs=512",
            "--fsync=1",
        ],
        &["ioengine=libpmem with fsync", "page size"],
    );
    for opts in [["--bs=512", "--end_fsync=1"], ["--bs=8k", "--fsync=4"]] {
        let d = scratch();
        let f = format!("--filename={}", file_in(d.path(), "m.dat"));
        let o = ferrio().args(base).args(opts).arg(&f).output().unwrap();
        assert!(
            o.status.success(),
            "{opts:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn direct_io_on_something_without_it_says_so() {
    // /dev/zero takes no O_DIRECT (EINVAL at the open), as a file system without
    // direct I/O; fio says "destination does not support O_DIRECT".
    // (A job's error at its open: the run's report still goes to stdout.)
    let out = ferrio()
        .args([
            "--name=t",
            "--filename=/dev/zero",
            "--rw=read",
            "--size=64k",
            "--direct=1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot open '/dev/zero' with direct=1 (O_DIRECT)"),
        "{err}"
    );
}

#[test]
fn running_out_of_file_descriptors_says_so_and_names_openfiles() {
    // 200 files under a limit of 64 descriptors: the open that fails says how far it
    // got and what to change, as fio's "try reducing/setting openfiles (failed at N
    // of M)"; with openfiles=16 the same job runs.
    let d = scratch();
    let run = |extra: &str| {
        std::process::Command::new("sh")
            .current_dir(d.path())
            .arg("-c")
            .arg(format!(
                "ulimit -n 64 && exec {} --name=j --nrfiles=200 --size=2M --rw=randread {extra}",
                tool_path("ferrio")
            ))
            .output()
            .unwrap()
    };
    let out = run("");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Too many open files")
            && err.contains(" of 200 files held open: set openfiles="),
        "{err}"
    );
    let out = run("--openfiles=16");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn file_append_with_an_engine_that_cannot_grow_a_file_is_refused_like_fio() {
    // fio's fixup_options: "can't append/extent with IO engine mmap".
    for engine in ["mmap", "libpmem"] {
        let e = format!("--ioengine={engine}");
        refused_before_io(
            &[
                "--name=t",
                "--rw=write",
                "--size=64k",
                "--file_append=1",
                &e,
            ],
            &[
                "job 't'",
                "file_append=1",
                &format!("ioengine={engine}, which cannot grow a file"),
            ],
        );
    }
}

/// fio sizes a diskless engine's file as endless, so file_append's start is past any
/// filesize= and setup_files fails the job ("you need to specify valid offset=");
/// size= alone runs, in both.
#[test]
fn file_append_up_to_filesize_with_a_diskless_engine_is_refused_like_fio() {
    let job = [
        "--name=t",
        "--rw=write",
        "--filesize=128k",
        "--file_append=1",
        "--ioengine=null",
    ];
    refused_before_io(
        &job,
        &["job 't'", "ioengine=null keeps no file", "filesize="],
    );
    if have_fio() {
        let d = scratch();
        let out = tool_cmd("fio")
            .args(job)
            .arg(format!("--filename={}", file_in(d.path(), "f")))
            .output()
            .unwrap();
        assert!(!out.status.success(), "fio ran it");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("valid offset="),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_fifo_a_socket_or_stdin_as_the_file_is_refused_at_once_like_fio_fails_it() {
    // fio 3.33: "failed to get file size of ..." and exit 1. ferrio probed each file's
    // size with a blocking open: a FIFO with no writer hung the run before it began.
    let d = scratch();
    let fifo = d.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let sock = d.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    for (path, kind) in [(&fifo, "a FIFO"), (&sock, "a socket")] {
        for rw in ["read", "write"] {
            let child = ferrio()
                .args([
                    "--name=p",
                    &format!("--rw={rw}"),
                    "--size=64k",
                    &format!("--filename={}", path.display()),
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let what = format!("ferrio on {}", path.display());
            let out = wait_bounded(child, std::time::Duration::from_secs(60), &what);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{rw} {kind}: {err}");
            assert!(
                err.contains(&format!("'{}' is {kind}", path.display())),
                "{rw}: {err}"
            );
        }
    }
    // fio's "-" (stdin or stdout by its HOWTO; fio 3.33 fails the job) is not a file
    // named "-" in the working directory.
    let cwd = scratch();
    let out = ferrio()
        .current_dir(cwd.path())
        .args(["--name=s", "--filename=-", "--rw=write", "--size=16k"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("'-' is stdin or stdout"), "{err}");
    assert!(
        !cwd.path().join("-").exists(),
        "a file named '-' was written"
    );
    // Nothing replaced them.
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(std::fs::metadata(&sock).unwrap().file_type().is_socket());
}

/// An --output that cannot be written (its directory is missing) is refused before
/// any job file is laid out, as fio refuses it ("output file open error") before its
/// jobs set up: nothing is left behind. ferrio laid the job's file out first.
#[test]
fn an_output_that_cannot_be_written_is_refused_before_any_file_is_laid_out() {
    let d = scratch();
    let file = file_in(d.path(), "data");
    let output = format!("--output={}", file_in(d.path(), "missing/out.json"));
    let err = fails(&[
        "--name=t",
        "--rw=write",
        "--size=1m",
        &format!("--filename={file}"),
        &output,
    ]);
    assert!(
        err.contains("cannot write --output") && err.contains("missing/out.json"),
        "{err}"
    );
    assert!(
        std::fs::read_dir(d.path()).unwrap().next().is_none(),
        "a file was left"
    );
}
