//! `--debug=` categories through the real binary: each writes fio-shaped lines
//! (category padded to 8 columns, the thread id, the message) for a tiny job, and
//! where ferrio reproduces fio 3.33's text exactly (parse, verify, rate's poisson
//! gaps) the messages are compared with fio's own on the same job.

mod common;
mod multihost_support;
use common::{ferrio, file_in, have_fio, scratch};
use multihost_support::{stderr, stdout, Lab};
use std::process::Command;

/// ferrio's exit code and its stdout, where the debug lines go (as fio's), run in a
/// scratch directory (a verifying write job leaves its verify state file in the
/// working directory). Nothing of the debug lines may be on stderr.
fn run(args: &[&str]) -> (i32, String) {
    let cwd = scratch();
    let out = ferrio()
        .args(args)
        .current_dir(cwd.path())
        .output()
        .expect("run ferrio");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.lines().any(|l| l.len() > 9
            && l.as_bytes()[8] == b' '
            && l[9..].starts_with(char::is_numeric)),
        "debug lines on stderr: {err}"
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The messages of category `cat`'s lines (after the category and the thread id).
fn messages(text: &str, cat: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{cat:<8} ")))
        .map(|l| {
            let rest = l[cat.len().max(8) + 1..].trim_start();
            let (tid, msg) = rest.split_once(' ').unwrap_or((rest, ""));
            assert!(tid.parse::<u32>().is_ok(), "no thread id in: {l}");
            msg.trim_start().to_string()
        })
        .collect()
}

/// fio 3.33's debug lines (its stdout and stderr) for `args`.
fn fio_text(args: &[&str]) -> String {
    let cwd = scratch();
    let out = Command::new("fio")
        .args(args)
        .current_dir(cwd.path())
        .output()
        .expect("run fio");
    assert!(out.status.success(), "fio {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Buffer addresses differ between the tools: `0x...` becomes `ADDR`.
fn no_addresses(msgs: Vec<String>) -> Vec<String> {
    msgs.into_iter()
        .map(|m| {
            m.split(' ')
                .map(|w| match w.strip_prefix("0x") {
                    Some(h)
                        if h.trim_end_matches(',')
                            .chars()
                            .all(|c| c.is_ascii_hexdigit()) =>
                    {
                        if w.ends_with(',') {
                            "ADDR,"
                        } else {
                            "ADDR"
                        }
                    }
                    _ => w,
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn parse_writes_fios_handle_option_lines_for_the_command_line_and_job_files() {
    let d = scratch();
    let job = file_in(d.path(), "j.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=null\nsize=64k\n\n[a]\nrw=randread\nbs=4k\nnorandommap\n\n[b]\nrw=write\n",
    )
    .unwrap();
    let args = [
        "--debug=parse",
        "--parse-only",
        "--name=t",
        "--ioengine=null",
        "--size=4k",
        "--norandommap",
        job.as_str(),
    ];
    // With --parse-only the lines go to stdout, as fio's (nothing on stderr).
    let cwd = scratch();
    let out = ferrio()
        .args(args)
        .current_dir(cwd.path())
        .output()
        .expect("run ferrio");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success() && err.is_empty(), "{err}");
    let ours = messages(&String::from_utf8_lossy(&out.stdout), "parse");
    let want = [
        "dup options".to_string(),
        "handle_option=name, ptr=t".into(),
        "handle_option=ioengine, ptr=null".into(),
        "handle_option=size, ptr=4k".into(),
        "handle_option=norandommap, ptr=(null)".into(),
        "free options".into(),
        format!("Parsing ini file {job}"),
        "Parsing section [global]".into(),
        "handle_option=ioengine, ptr=null".into(),
        "handle_option=size, ptr=64k".into(),
        "Parsing section [a]".into(),
        "dup options".into(),
        "handle_option=rw, ptr=randread".into(),
        "handle_option=bs, ptr=4k".into(),
        "handle_option=norandommap, ptr=(null)".into(),
        "free options".into(),
        "Parsing section [b]".into(),
        "dup options".into(),
        "handle_option=rw, ptr=write".into(),
        "free options".into(),
    ];
    assert_eq!(ours, want, "{err}");
    if have_fio() {
        // fio's lines in between (__handle_option with C types, raw lines echoed)
        // are not ferrio's: the option lines and the sections must be the same.
        let keep = |m: &String| m.starts_with("handle_option=") || m.starts_with("Parsing ");
        let fio: Vec<String> = messages(&fio_text(&args), "parse")
            .into_iter()
            .filter(keep)
            .collect();
        let ours: Vec<String> = ours.into_iter().filter(keep).collect();
        assert_eq!(ours, fio);
    }
}

#[test]
fn verify_writes_fios_fill_and_check_lines_and_the_pass() {
    let d = scratch();
    let f = file_in(d.path(), "v");
    let args = [
        "--debug=verify",
        "--name=t",
        &format!("--filename={f}"),
        "--size=8k",
        "--bs=4k",
        "--rw=write",
        "--verify=md5",
        "--verify_interval=2k",
        "--output-format=terse",
    ];
    let (rc, err) = run(&args);
    assert_eq!(rc, 0, "{err}");
    let ours = no_addresses(messages(&err, "verify"));
    let fill = ["fill random bytes len=4096", "fill md5 io_u ADDR, len 2048"];
    let check = [
        "get_next_verify: ret io_u ADDR",
        "md5 verify io_u ADDR, len 2048",
    ];
    let want: Vec<&str> = [fill[0], fill[1], fill[1]]
        .repeat(2)
        .into_iter()
        .chain(["starting loop"])
        .chain([check[0], check[1], check[1]].repeat(2))
        .chain(["get_next_verify: empty", "exiting loop"])
        .collect();
    assert_eq!(ours, want, "{err}");
    if have_fio() {
        std::fs::remove_file(&f).unwrap();
        let fio = no_addresses(messages(&fio_text(&args), "verify"));
        assert_eq!(ours, fio);
    }
}

#[test]
fn rate_writes_fios_poisson_gaps_and_the_latency_target_search() {
    let args = [
        "--debug=rate",
        "--name=t",
        "--ioengine=null",
        "--size=64k",
        "--bs=4k",
        "--rate_iops=1000",
        "--rate_process=poisson",
        "--output-format=terse",
    ];
    let (rc, err) = run(&args);
    assert_eq!(rc, 0, "{err}");
    let ours = messages(&err, "rate");
    // One gap per I/O issued after the first (a gap under 1 µs is not written).
    assert!((10..=16).contains(&ours.len()), "{err}");
    assert!(
        ours.iter()
            .all(|m| m.starts_with("poisson rate iops=") && m.ends_with(", ddir=0")),
        "{err}"
    );
    // fio's generator and seeds: the very same gaps.
    assert_eq!(
        ours[..3],
        [
            "poisson rate iops=426, ddir=0",
            "poisson rate iops=2105, ddir=0",
            "poisson rate iops=3236, ddir=0"
        ]
    );
    if have_fio() {
        assert_eq!(ours, messages(&fio_text(&args), "rate"));
    }
    // latency_target: a target no null I/O misses, so the search is fixed: depth 1
    // succeeds, cannot grow (iodepth=1), the final window runs and the job ends.
    let (rc, err) = run(&[
        "--debug=rate",
        "--name=t",
        "--ioengine=null",
        "--size=1g",
        "--bs=4k",
        "--latency_target=10s",
        "--latency_window=20ms",
        "--time_based",
        "--runtime=60",
        "--output-format=terse",
    ]);
    assert_eq!(rc, 0, "{err}");
    let ok = "Success rate: 100.00% (target 100.00%)";
    assert_eq!(
        messages(&err, "rate"),
        [
            "Latency target=10000000000",
            ok,
            "Ramped up: 1 1 1",
            "Quiesce and final run",
            ok,
            "Ramped up: 1 1 1",
            "We are done"
        ],
        "{err}"
    );
}

#[test]
fn steadystate_writes_each_measurement_and_fios_judgement_values() {
    let (rc, err) = run(&[
        "--debug=steadystate",
        "--name=t",
        "--ioengine=sim",
        "--clocksource=virtual",
        "--size=1g",
        "--rw=randread",
        "--bs=4k",
        "--time_based",
        "--runtime=3",
        "--ss_dur=2",
        "--ss=iops:50%",
        "--output-format=terse",
    ]);
    assert_eq!(rc, 0, "{err}");
    let m = messages(&err, "steadystate");
    assert!(m.len() >= 3, "{err}");
    assert!(
        m[0].starts_with("steadystate_check() measurement: 0, iops: ")
            && m[0].ends_with("head: 0, tail: 0"),
        "{err}"
    );
    let iops = |s: &str| -> u64 {
        s.split("iops: ")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(
        m[1].starts_with("steadystate_check() measurement: 1, "),
        "{err}"
    );
    // The judgement sums the two measurements, as fio's sum_y.
    let sum = iops(&m[0]) + iops(&m[1]);
    assert!(
        m[2].starts_with(&format!("sum_y: {sum}, mean: "))
            && m[2].contains(", max diff: ")
            && m[2].ends_with(", limit: 50.000000"),
        "{err}"
    );
}

#[test]
fn zbd_writes_zones_opened_and_each_write_queued() {
    let d = scratch();
    let f = file_in(d.path(), "z");
    std::fs::write(&f, vec![0u8; 4 << 20]).unwrap();
    let (rc, err) = run(&[
        "--debug=zbd",
        "--name=t",
        &format!("--filename={f}"),
        "--size=4m",
        "--zonemode=zbd",
        "--zonesize=1m",
        "--bs=64k",
        "--rw=write",
        "--max_open_zones=2",
        "--io_size=256k",
        "--output-format=terse",
    ]);
    assert_eq!(rc, 0, "{err}");
    let m = messages(&err, "zbd");
    let at = |s: &str| {
        m.iter()
            .position(|x| x == s)
            .unwrap_or_else(|| panic!("no {s}: {err}"))
    };
    at(&format!("{f}: using max open zones limit: 2"));
    let reset = at(&format!("zbd_file_reset({f}): swd = 0"));
    let open = at(&format!("{f}: opening zone 0"));
    assert!(reset < open, "{err}");
    let queued: Vec<&String> = m.iter().filter(|x| x.contains("queued I/O")).collect();
    let want: Vec<String> = (0..4)
        .map(|i| format!("{f}: queued I/O ({}, 65536) for zone 0", i * 65536))
        .collect();
    assert_eq!(queued, want.iter().collect::<Vec<_>>(), "{err}");
}

#[test]
fn mutex_helperthread_compress_and_job_n() {
    let d = scratch();
    let log = file_in(d.path(), "l");
    let (rc, err) = run(&[
        "--debug=mutex,helperthread,compress,process,job:2",
        "--name=a",
        "--ioengine=null",
        "--size=64k",
        "--bs=4k",
        &format!("--write_bw_log={log}"),
        "--log_store_compressed=1",
        "--name=b",
        "--stonewall",
        "--ioengine=null",
        "--size=4k",
        "--output-format=terse",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        messages(&err, "mutex"),
        [
            "wait on stonewall",
            "done waiting on stonewall",
            "wait on job threads",
            "done waiting on job threads"
        ],
        "{err}"
    );
    let h = messages(&err, "helperthread");
    assert!(
        h.first()
            .is_some_and(|m| m.starts_with("helper thread started: tick")),
        "{err}"
    );
    assert_eq!(
        h.last().map(String::as_str),
        Some("helper thread exiting"),
        "{err}"
    );
    // job:2: job a is thread 1, so neither its compressed log nor its process lines
    // are written; job b's are.
    assert!(messages(&err, "compress").is_empty(), "{err}");
    let p = messages(&err, "process");
    assert_eq!(p.len(), 2, "{err}");
    assert!(p[0].contains("job 'b'"), "{err}");
    // Without job:N the compressed log's stream is written as fio's lines.
    let (rc, err) = run(&[
        "--debug=compress",
        "--name=a",
        "--ioengine=null",
        "--size=64k",
        "--bs=4k",
        &format!("--write_bw_log={log}"),
        "--log_store_compressed=1",
        "--output-format=terse",
    ]);
    assert_eq!(rc, 0, "{err}");
    let c = messages(&err, "compress");
    assert_eq!(c.len(), 3, "{err}");
    assert!(
        c[0].starts_with("deflate input size=")
            && c[0].ends_with(&format!(", seq=1, log={log}_bw.1.log")),
        "{err}"
    );
    let size = c[2]
        .strip_prefix("deflated to size=")
        .expect("deflated line");
    assert_eq!(c[1], format!("seq=1, chunk={size}"), "{err}");
    let on_disk = std::fs::metadata(format!("{log}_bw.1.log.fz"))
        .unwrap()
        .len();
    assert_eq!(size.parse::<u64>().unwrap(), on_disk, "{err}");
}

/// diskutil: the disks the report shows are the ones the lines name (a file on a
/// device-less file system, e.g. tmpfs, gives neither).
#[test]
fn diskutil_names_the_disks_the_report_shows() {
    let d = scratch();
    let f = file_in(d.path(), "f");
    let out = ferrio()
        .args([
            "--debug=diskutil",
            "--name=t",
            &format!("--filename={f}"),
            "--size=16k",
            "--bs=4k",
            "--rw=write",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    // The debug lines come first on stdout (as fio's), then the report.
    let err = String::from_utf8_lossy(&out.stdout).into_owned();
    let report: String = err
        .lines()
        .filter(|l| !l.starts_with("diskutil "))
        .map(|l| format!("{l}\n"))
        .collect();
    let json = common::parse_json(report.as_bytes());
    let disks: Vec<String> = json["disk_util"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default();
    let m = messages(&err, "diskutil");
    let added: Vec<String> = m
        .iter()
        .filter_map(|x| {
            x.strip_prefix("add ")?
                .strip_suffix(" to list")
                .map(String::from)
        })
        .collect();
    assert_eq!(added, disks, "{err}");
    if let Some(disk) = disks.first() {
        assert!(
            m[0].starts_with(&format!("{f} belongs to maj/min ")),
            "{err}"
        );
        let ok = format!("{disk}: stat read ok? 1");
        assert_eq!(m.iter().filter(|x| **x == ok).count(), 2, "{err}");
    }
}

/// net: the client names each host, its job file and the connection; the server
/// each connection it accepts.
#[test]
fn net_writes_client_and_server_lines() {
    let Some(lab) = Lab::new() else { return };
    let server = lab.server(&["--debug=net"]);
    let job = lab.job("n.fio", "[n]\nioengine=null\nsize=64k\n");
    let out = lab.client(&[
        "--debug=net",
        &format!("--client={}", server.addr),
        &job,
        "--output-format=terse",
    ]);
    let err = stdout(&out) + &stderr(&out);
    assert!(out.status.success(), "{err}");
    let h = &server.addr;
    assert_eq!(
        messages(&err, "net"),
        [
            format!("client: added <{h}>"),
            format!("client <{h}>: add ini {job}"),
            format!("client: connect to host {h}"),
            format!("client: {h} connected"),
        ],
        "{err}"
    );
    server.wait_for("server: connection from 127.0.0.1:");
    assert!(
        messages(&server.log(), "net")
            .iter()
            .all(|m| m.starts_with("server: connection from 127.0.0.1:")),
        "{}",
        server.log()
    );
}

/// `--debug=profile`: loading a built-in profile gives fio's line.
#[test]
fn profile_loading_is_written() {
    let (code, err) = run(&["--debug=profile", "--profile=tiobench", "--showcmd"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(messages(&err, "profile"), ["loading profile 'tiobench'"]);
}
