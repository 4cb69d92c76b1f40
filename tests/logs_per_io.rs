//! log_avg_msec=0 (fio's default): one log entry per I/O, in fio's line format.

mod common;
use common::*;

fn lines(path: &std::path::Path) -> Vec<Vec<u64>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| {
            l.split(", ")
                .map(|f| f.parse().expect("a number"))
                .collect()
        })
        .collect()
}

#[test]
fn every_io_gets_an_entry_with_its_latency_size_and_offset() {
    let d = scratch();
    let v = run_json_in(
        d.path(),
        &[
            "--name=t",
            "--ioengine=sim",
            "--clocksource=virtual",
            "--sim_lat=fixed:100us",
            "--sim_bw=0",
            "--rw=randread",
            "--bs=4k",
            "--size=1M",
            "--write_lat_log=p",
            "--write_bw_log=p",
            "--write_iops_log=p",
            "--log_offset=1",
        ],
    );
    let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert_eq!(ios, 256);
    let clat = lines(&d.path().join("p_clat.1.log"));
    let bw = lines(&d.path().join("p_bw.1.log"));
    let iops = lines(&d.path().join("p_iops.1.log"));
    assert_eq!(clat.len() as u64, ios);
    assert_eq!(bw.len() as u64, ios);
    assert_eq!(iops.len() as u64, ios);
    let mut offsets: Vec<u64> = clat.iter().map(|l| l[4]).collect();
    offsets.sort_unstable();
    offsets.dedup();
    assert_eq!(offsets.len(), 256, "every block once (random map)");
    for (c, (b, i)) in clat.iter().zip(bw.iter().zip(&iops)) {
        // time, value, ddir, bs, offset, prio
        assert_eq!(c.len(), 6, "{c:?}");
        assert_eq!(c[1], 100_000, "fixed 100 us service time");
        assert_eq!((c[2], c[3]), (0, 4096));
        assert_eq!(c[4] % 4096, 0);
        assert_eq!(b[1], 4096 * 1_000_000 / c[1], "bw = bytes * 10^6 / clat_ns");
        assert_eq!(i[1], 1);
        assert_eq!((b[4], i[4]), (c[4], c[4]), "same I/O on the same line");
    }
    // Virtual time: entry k completes at k * 100 us; the time column is in ms.
    assert_eq!(clat.last().unwrap()[0], 25);
}

#[test]
fn same_line_count_and_columns_as_fio() {
    if !have_fio() {
        return;
    }
    let d = scratch();
    let args = |prefix: &str, file: &str| {
        vec![
            "--name=t".to_string(),
            "--rw=randrw".to_string(),
            "--bs=4k".to_string(),
            "--size=256k".to_string(),
            format!("--filename={file}"),
            format!("--write_lat_log={prefix}"),
            format!("--write_iops_log={prefix}"),
            "--output-format=json".to_string(),
        ]
    };
    let f = file_in(d.path(), "data");
    let run = |cmd: &str, prefix: &str| {
        let out = std::process::Command::new(cmd)
            .args(args(prefix, &f))
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run("fio", "theirs");
    run(env!("CARGO_BIN_EXE_ferrio"), "ours");
    for kind in ["clat", "lat", "slat", "iops"] {
        let a = lines(&d.path().join(format!("ours_{kind}.1.log")));
        let b = lines(&d.path().join(format!("theirs_{kind}.1.log")));
        assert_eq!(a.len(), b.len(), "{kind}: entries");
        if let (Some(x), Some(y)) = (a.first(), b.first()) {
            assert_eq!(x.len(), y.len(), "{kind}: columns");
        }
    }
}
