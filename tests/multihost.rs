//! Multi-host runs on loopback: several `ferrio --server`s, one `ferrio --client`.
//! Aggregates are exact sums of the hosts' results, percentiles come from merged
//! histograms, and fio's command-line semantics decide which host runs which file.

mod common;
mod multihost_support;

use multihost_support::{json, stderr, stdout, Lab};

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

#[test]
fn three_hosts_sum_exactly_and_percentiles_come_from_merged_histograms() {
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..3).map(|_| lab.server(&[])).collect();
    // h1 runs a.fio (2 threads, 1 MiB each), h2 and h3 run b.fio (1 thread, 2 MiB).
    let a = lab.job(
        "a.fio",
        "[a]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\nnumjobs=2\n",
    );
    let b = lab.job("b.fio", "[b]\nioengine=null\nrw=write\nbs=8k\nsize=2m\n");
    let h23 = format!("{},{}", servers[1].addr, servers[2].addr);
    let out = lab.client(&[
        &format!("--client={}", servers[0].addr),
        &a,
        &format!("--client={h23}"),
        &b,
        "--output-format=json+",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let stats = v["client_stats"].as_array().unwrap();
    // 2 jobs from h1, one each from h2 and h3, then All clients.
    assert_eq!(stats.len(), 5, "{v}");
    let all = stats.last().unwrap();
    assert_eq!(all["jobname"], "All clients");
    assert_eq!(all["hostname"], "All clients");
    let hosts: Vec<&str> = stats[..4]
        .iter()
        .map(|s| s["hostname"].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1"]);
    let names: Vec<&str> = stats[..4]
        .iter()
        .map(|s| s["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "a", "b", "b"]);
    for dir in ["read", "write"] {
        let ios: u64 = stats[..4].iter().map(|s| u(&s[dir]["total_ios"])).sum();
        let bytes: u64 = stats[..4].iter().map(|s| u(&s[dir]["io_bytes"])).sum();
        assert_eq!(u(&all[dir]["total_ios"]), ios, "{dir}");
        assert_eq!(u(&all[dir]["io_bytes"]), bytes, "{dir}");
    }
    assert_eq!(u(&all["read"]["total_ios"]), 2 * 256);
    assert_eq!(u(&all["write"]["io_bytes"]), 2 * 2 * 1024 * 1024);
    // json+ bins: the aggregate's histogram is the sum of the hosts' histograms, so
    // its percentiles are those of the pooled samples, not averages of percentiles.
    for dir in ["read", "write"] {
        let mut summed = std::collections::BTreeMap::<String, u64>::new();
        for s in &stats[..4] {
            if let Some(bins) = s[dir]["clat_ns"]["bins"].as_object() {
                for (k, n) in bins {
                    *summed.entry(k.clone()).or_default() += u(n);
                }
            }
        }
        let got: std::collections::BTreeMap<String, u64> = all[dir]["clat_ns"]["bins"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, n)| (k.clone(), u(n)))
            .collect();
        assert_eq!(got, summed, "{dir} bins");
        assert_eq!(u(&all[dir]["clat_ns"]["N"]), u(&all[dir]["total_ios"]));
    }
    assert!(v["start_skew_ms"].as_f64().is_some(), "{v}");
    // One machine, one clock: each estimated offset is ~0, within its own uncertainty
    // (half the best round trip; the server read its clock inside that round trip).
    let offsets = v["clock_offsets"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(offsets.len(), 3, "{v}");
    for o in offsets {
        let off = o["offset_ns"].as_i64().unwrap();
        let unc = u(&o["uncertainty_ns"]);
        assert!(unc > 0 && unc <= u(&o["rtt_ns"]), "{o}");
        // 100 us of slack for a wall clock slewed by NTP during the exchange.
        assert!(off.unsigned_abs() <= unc + 100_000, "{o}");
    }
}

#[test]
fn the_hosts_table_has_a_row_per_host_and_an_exact_total() {
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..2).map(|_| lab.server(&[])).collect();
    let job = lab.job("t.fio", "[t]\nioengine=null\nrw=read\nbs=4k\nsize=4m\n");
    let hosts = format!("--client={},{}", servers[0].addr, servers[1].addr);
    let out = lab.client(&[&hosts, &job, "--output-format=hosts-csv"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "host,kiops,bw_mib_s,avg_lat_us,p99_us,total_ios,io_bytes,error"
    );
    assert_eq!(lines.len(), 4, "{text}");
    for (i, s) in servers.iter().enumerate() {
        assert!(
            lines[1 + i].starts_with(&format!("\"{}\",", s.addr)),
            "{text}"
        );
        assert!(lines[1 + i].ends_with(",1024,4194304,"), "{text}");
    }
    assert!(lines[3].starts_with("\"Total\","), "{text}");
    assert!(lines[3].ends_with(",2048,8388608,"), "{text}");

    let out = lab.client(&[&hosts, &job, "--output-format=hosts,normal"]);
    let text = stdout(&out);
    assert!(text.starts_with("Host "), "{text}");
    assert!(text.contains("| kIOPS "), "{text}");
    assert!(text.contains("\nTotal "), "{text}");
    let tag = format!("<{}> t: (groupid=0, jobs=1): err= 0", servers[1].addr);
    assert!(text.contains(&tag), "{text}");
    assert!(
        text.contains("\nAll clients: (groupid=0, jobs=2): err= 0"),
        "{text}"
    );
    assert!(
        text.contains("All clients: 2 of 2 hosts finished; start skew"),
        "{text}"
    );

    let out = lab.client(&[&hosts, &job, "--output-format=terse"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.lines().last().unwrap().contains(";All clients;"),
        "{text}"
    );
}

#[test]
fn a_host_file_names_the_hosts() {
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..2).map(|_| lab.server(&[])).collect();
    let list = format!(
        "# the lab\n{}\n{} # second\n",
        servers[0].addr, servers[1].addr
    );
    std::fs::write(lab.path("hosts.list"), list).unwrap();
    let job = lab.job("t.fio", "[t]\nioengine=null\nrw=read\nbs=4k\nsize=1m\n");
    let out = lab.client(&[
        &format!("--client={}", lab.p("hosts.list")),
        &job,
        "--output-format=hosts-json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["hosts"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(u(&v["total"]["total_ios"]), 512, "{v}");
    assert_eq!(v["hosts"][1]["host"], servers[1].addr.as_str());
}

#[test]
fn sixteen_simulated_hosts_give_the_seeds_table() {
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..16).map(|_| lab.server(&[])).collect();
    // The seed's test: randread, QD 32, 128k, on a simulated target, in virtual time.
    let job = lab.job(
        "seed.fio",
        "[seed]\nioengine=sim\nclocksource=virtual\nrw=randread\nbs=128k\niodepth=32\n\
         size=1g\nsim_lat=fixed:360us\nsim_bw=0\ntime_based=1\nruntime=100ms\n",
    );
    let list: Vec<&str> = servers.iter().map(|s| s.addr.as_str()).collect();
    let out = lab.client(&[
        &format!("--client={}", list.join(",")),
        &job,
        "--output-format=hosts,hosts-csv",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let (table, csv) = text.split_at(text.find("host,kiops").unwrap());
    let lines: Vec<&str> = table.lines().collect();
    // Header, rule, 16 hosts, rule, Total.
    assert_eq!(lines.len(), 20, "{table}");
    assert!(lines[19].starts_with("Total "), "{table}");
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 17, "{csv}");
    // Virtual time: every host measures the same device exactly alike.
    let ios: u64 = rows[0][5].parse().unwrap();
    assert!(ios > 0, "{csv}");
    for r in &rows[..16] {
        assert_eq!(r[1..7], rows[0][1..7], "{csv}");
    }
    assert_eq!(rows[16][0], "\"Total\"");
    assert_eq!(rows[16][5].parse::<u64>().unwrap(), 16 * ios, "{csv}");
    assert_eq!(
        rows[16][6].parse::<u64>().unwrap(),
        16 * ios * 128 * 1024,
        "{csv}"
    );
}

#[test]
fn the_status_line_shows_every_hosts_state() {
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..2).map(|_| lab.server(&[])).collect();
    let job = lab.job("t.fio", "[t]\nioengine=null\nrw=write\nbs=4k\nsize=1m\n");
    let hosts = format!("--client={},{}", servers[0].addr, servers[1].addr);
    let out = lab.client(&[&hosts, &job, "--output-format=hosts-csv", "--eta=always"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // The last status line (after any periodic ones, ended by \r) shows both done.
    let (status, csv) = text.split_once("host,kiops").unwrap();
    let last = status.rsplit('\r').next().unwrap();
    assert!(
        last.starts_with("Hosts: 0 running: [DD][r=0B/s,w=0B/s][r=0,w=0 IOPS]"),
        "{status:?}"
    );
    assert!(csv.contains("\"Total\""), "{csv}");
    let out = lab.client(&[&hosts, &job, "--output-format=hosts-csv"]);
    assert!(
        !stdout(&out).contains("Hosts: "),
        "no status line off a terminal"
    );
}

/// `--sweep` (and `--repeat`) with `--client`: every point runs on every host with
/// the point's options, and the table has one "All clients" row per point.
#[test]
fn a_sweep_runs_each_point_on_every_host() {
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..2).map(|_| lab.server(&[])).collect();
    let hosts = format!("--client={},{}", servers[0].addr, servers[1].addr);
    let job = lab.job("s.fio", "[s]\nioengine=null\nrw=read\nbs=4k\nsize=4m\n");
    let out = lab.client(&[
        &hosts,
        &job,
        "--sweep=bs=4k,64k",
        "--repeat=2",
        "--output-format=json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("sweep point 2/2 bs=64k run 2/2"),
        "{}",
        stderr(&out)
    );
    let v = json(&out);
    assert_eq!(v["sweep"]["finished_points"], 2, "{v}");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    for (row, bs) in rows.iter().zip([4096.0, 65536.0]) {
        assert_eq!(row["job"], "All clients");
        assert_eq!(row["runs"], 2);
        // Each host's bytes are bs times its I/Os, so the summed rates' ratio is bs:
        // the point's block size reached the hosts.
        for (bw, iops) in row["bw_bytes"]["values"]
            .as_array()
            .unwrap()
            .iter()
            .zip(row["iops"]["values"].as_array().unwrap())
        {
            let ratio = bw.as_f64().unwrap() / iops.as_f64().unwrap();
            assert!((ratio - bs).abs() < bs * 1e-3, "{row}");
        }
    }
}

#[test]
fn all_clients_carries_the_hosts_extra_statistics() {
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..2).map(|_| lab.server(&[])).collect();
    // A simulated buffer pool publishes ferrio's extra statistics: the mean of
    // buffers in flight adds across hosts, the pool's size is the largest.
    let job = lab.job(
        "pool.fio",
        "[p]\nioengine=sim\nclocksource=virtual\nrw=randread\nbs=4k\nsize=1g\n\
         iodepth=8\nsim_lat=fixed:100us\nsim_bw=0\nsim_channels=8\nsim_buffers=2\n\
         time_based=1\nruntime=50ms\n",
    );
    let list: Vec<&str> = servers.iter().map(|s| s.addr.as_str()).collect();
    let out = lab.client(&[
        &format!("--client={}", list.join(",")),
        &job,
        "--output-format=json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let stats = v["client_stats"].as_array().unwrap();
    assert_eq!(stats.len(), 3, "{v}");
    let f =
        |s: &serde_json::Value, k: &str| s[k].as_f64().unwrap_or_else(|| panic!("no {k} in {s}"));
    let sum =
        f(&stats[0], "sim_buffers_in_flight_mean") + f(&stats[1], "sim_buffers_in_flight_mean");
    let all = &stats[2];
    assert_eq!(all["jobname"], "All clients");
    let got = f(all, "sim_buffers_in_flight_mean");
    assert!(
        sum > 3.0 && (got - sum).abs() < 1e-6 * sum,
        "{got} != {sum}"
    );
    assert_eq!(f(all, "sim_buffers"), 2.0);
}

/// `--status-interval` with `--client`: while the hosts run, the client prints their
/// latest cumulative reports and "All clients" summed from them. The run is long; the
/// test reads the client's output until an interval report covers both hosts (no
/// timing assumed), then stops it.
#[test]
fn status_interval_reports_every_hosts_progress_while_they_run() {
    use std::io::BufRead;
    let Some(lab) = Lab::new() else { return };
    let servers: Vec<_> = (0..2).map(|_| lab.server(&[])).collect();
    let job = lab.job(
        "slow.fio",
        "[s]\nioengine=null\nrw=read\nbs=4k\nsize=1g\nrate_iops=200\ntime_based=1\nruntime=60s\n",
    );
    let list: Vec<&str> = servers.iter().map(|s| s.addr.as_str()).collect();
    let mut child = common::ferrio()
        .args([
            &format!("--client={}", list.join(",")),
            &job,
            "--status-interval=1",
            &format!("--tls-ca={}", lab.p("ca.pem")),
            &format!("--auth-token-file={}", lab.p("token")),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    let mut found = false;
    for line in out.lines().map_while(Result::ok) {
        if line.starts_with("All clients: (groupid=0, jobs=2)") {
            found = true;
            break;
        }
        seen.push(line);
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        found,
        "no interval report of both hosts:\n{}",
        seen.join("\n")
    );
    for s in &servers {
        let host_job = format!("<{}> s: (groupid=0, jobs=1)", s.addr);
        assert!(
            seen.iter().any(|l| l.starts_with(&host_job)),
            "{host_job} missing:\n{}",
            seen.join("\n")
        );
    }
}
