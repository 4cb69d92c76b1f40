//! Per-host log files in a multi-host run: each server writes its jobs' logs in a
//! private directory of its own and sends them back; the client writes them as
//! `<log>.<host>` (fio's client naming), wall-clock times shifted onto its clock by
//! each host's measured offset. The servers' working and temporary directories stay
//! empty.

mod common;
mod multihost_support;

use common::ferrio;
use multihost_support::{json, stderr, Lab};
use std::path::Path;

fn lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(String::from)
        .collect()
}

fn empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// One server's clock reads 1000 s ahead of the client's (the test hook
/// FERRIO_TEST_SERVER_CLOCK_SKEW_NS plays that host): the client measures it, and the
/// wall-clock times of that host's logs move back by it.
const SKEW_MS: i64 = 1_000_000;

#[test]
fn two_hosts_logs_come_back_per_host_with_wall_clock_times_on_the_clients_clock() {
    let Some(lab) = Lab::new() else { return };
    let mut servers = Vec::new();
    for (i, skew) in [0i64, SKEW_MS * 1_000_000].into_iter().enumerate() {
        let (cwd, tmp) = (lab.path(&format!("cwd{i}")), lab.path(&format!("tmp{i}")));
        std::fs::create_dir(&cwd).unwrap();
        std::fs::create_dir(&tmp).unwrap();
        let mut cmd = ferrio();
        cmd.current_dir(&cwd)
            .env("TMPDIR", &tmp)
            .env("FERRIO_TEST_SERVER_CLOCK_SKEW_NS", skew.to_string());
        servers.push((lab.server_cmd(cmd, &[]), cwd, tmp));
    }
    let out_dir = lab.path("client");
    std::fs::create_dir(&out_dir).unwrap();
    let job = lab.job(
        "logs.fio",
        "[j]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\nwrite_bw_log=j\n\
         write_lat_log=j\nlog_unix_epoch=1\nwrite_iolog=j.iolog\n",
    );
    let hosts: Vec<&str> = servers.iter().map(|s| s.0.addr.as_str()).collect();
    let before = unix_ms();
    let out = lab.client_in(
        &out_dir,
        &[
            &format!("--client={}", hosts.join(",")),
            &job,
            "--output-format=json",
        ],
    );
    let after = unix_ms();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    for (i, (server, cwd, tmp)) in servers.iter().enumerate() {
        // Both hosts are 127.0.0.1: the port tells their files apart.
        let port: u64 = server.addr.rsplit_once(':').unwrap().1.parse().unwrap();
        let stats = v["client_stats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["port"] == port)
            .unwrap_or_else(|| panic!("no stats for port {port}: {v}"));
        let ios = stats["read"]["total_ios"].as_u64().unwrap() as usize;
        assert_eq!(ios, 256);
        let tag = &server.addr;
        // A synchronous engine has no submission latency: an empty slat log, as fio's.
        assert!(lines(&out_dir.join(format!("j_slat.1.log.{tag}"))).is_empty());
        for kind in ["bw", "clat", "lat"] {
            let p = out_dir.join(format!("j_{kind}.1.log.{tag}"));
            let l = lines(&p);
            // log_avg_msec=0: one entry per I/O.
            assert_eq!(l.len(), ios, "{}", p.display());
            let shift = if i == 1 { SKEW_MS } else { 0 };
            for line in &l {
                let t: i64 = line.split(',').next().unwrap().trim().parse().unwrap();
                // Real wall-clock times (the log's own clock is not skewed), moved
                // back by the offset the client measured for this host.
                assert!(
                    t >= before - shift - 2000 && t <= after - shift + 2000,
                    "{}: {t} not within [{before}, {after}] - {shift}",
                    p.display()
                );
            }
        }
        let iolog = lines(&out_dir.join(format!("j.iolog.{tag}")));
        assert_eq!(iolog[0], "fio version 3 iolog");
        let reads = iolog.iter().filter(|l| l.contains(" read ")).count();
        assert_eq!(reads, ios);
        // The server wrote nowhere but its own private directory, now removed.
        assert!(empty(cwd), "server {i} left files in its working directory");
        assert!(empty(tmp), "server {i} left its private log directory");
    }
    assert!(empty(&lab.path("data")));
}

#[test]
fn log_files_are_named_after_the_host_as_fio_names_them() {
    let Some(lab) = Lab::new() else { return };
    let s = lab.server(&[]);
    let out_dir = lab.path("client");
    std::fs::create_dir(&out_dir).unwrap();
    // per_job_logs=0: one file of both threads, named without the thread number.
    let job = lab.job(
        "logs.fio",
        "[j]\nioengine=null\nrw=write\nbs=4k\nsize=64k\nnumjobs=2\n\
         write_iops_log=sub/i\nwrite_hist_log=sub/h\nper_job_logs=0\nlog_avg_msec=0\n",
    );
    std::fs::create_dir(out_dir.join("sub")).unwrap();
    let host = s.addr.rsplit_once(':').unwrap().0;
    let out = lab.client_in(&out_dir, &[&format!("--client={}", s.addr), &job]);
    assert!(out.status.success(), "{}", stderr(&out));
    let l = lines(&out_dir.join(format!("sub/i_iops.log.{host}")));
    assert_eq!(l.len(), 2 * 16, "{l:?}");
    let mut names: Vec<_> = std::fs::read_dir(out_dir.join("sub"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            format!("h_clat_hist.log.{host}"),
            format!("i_iops.log.{host}")
        ]
    );
}
