//! ioengine=mmap and pvsync2's RWF_* options on temporary files: every rw mode with
//! exact counts; writes land; buffer memory kinds.

mod common;
mod engines_support;
use common::*;
use engines_support::*;

#[test]
fn mmap_every_mode_exact_counts() {
    every_mode("mmap", &[]);
}

#[test]
fn mmap_writes_land_at_the_right_offsets() {
    writes_land("mmap", &[]);
}

#[test]
fn mmap_reads_what_psync_wrote() {
    let d = scratch();
    let file = file_in(d.path(), "m");
    run_ok(
        &job(
            &file,
            "psync",
            "write",
            128 << 10,
            4096,
            &["--buffer_pattern=0x11223344"],
        )
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>(),
    );
    let v = try_run(&job(&file, "mmap", "read", 128 << 10, 4096, &[])).unwrap();
    assert_eq!(counts(&v).0[0], 32);
}

#[test]
fn pvsync2_every_mode_and_flags() {
    every_mode("pvsync2", &[]);
    writes_land("pvsync2", &["--hipri", "--hipri_percentage=50"]);
    // RWF_NOWAIT on cached reads: completes (possibly short or EAGAIN on a cold cache,
    // so the file is read once first).
    let d = scratch();
    let file = file_in(d.path(), "n");
    try_run(&job(&file, "psync", "read", 64 << 10, 4096, &[])).unwrap();
    match try_run(&job(
        &file,
        "pvsync2",
        "read",
        64 << 10,
        4096,
        &["--nowait=1"],
    )) {
        Ok(v) => {
            let e = v["jobs"][0]["error"].as_i64().unwrap();
            assert!(e == 0 || e == libc::EAGAIN as i64, "{v}");
        }
        Err(e) => assert!(e.contains("Resource temporarily unavailable"), "{e}"),
    }
}

#[test]
fn buffer_memory_kinds() {
    let d = scratch();
    let backing = file_in(d.path(), "membuf");
    let mmap_file = format!("--mem=mmap:{backing}");
    for mem in [
        "--mem=malloc",
        "--mem=shm",
        "--mem=mmap",
        "--mem=mmapshared",
        "--iomem=mmap",
        mmap_file.as_str(),
        "--iomem_align=16k",
    ] {
        let file = file_in(d.path(), "f");
        let v = try_run(&job(&file, "psync", "randrw", 256 << 10, 4096, &[mem]))
            .unwrap_or_else(|e| panic!("{mem}: {e}"));
        let (ios, _) = counts(&v);
        assert_eq!(ios[0] + ios[1], 64, "{mem}");
    }
    // Huge pages: only where some are reserved.
    let reserved = std::fs::read_to_string("/proc/sys/vm/nr_hugepages")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let file = file_in(d.path(), "h");
    let r = try_run(&job(
        &file,
        "psync",
        "randread",
        64 << 10,
        4096,
        &["--mem=mmaphuge"],
    ));
    if reserved == 0 {
        if let Err(e) = r {
            assert!(e.contains("huge pages"), "unclear error: {e}");
        }
    } else {
        r.unwrap();
    }
}

#[test]
fn cpus_allowed_policy_split() {
    let v = run_json(&[
        "--name=s",
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
        "--numjobs=2",
        "--cpus_allowed=0",
        "--cpus_allowed_policy=split",
    ]);
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2);
    for j in v["jobs"].as_array().unwrap() {
        assert_eq!(j["error"].as_i64(), Some(0));
        assert_eq!(j["read"]["total_ios"].as_u64(), Some(256));
    }
}
