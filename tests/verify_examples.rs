//! fio's verify sample jobs (tests/jobs: basic-verify.fio, surface-scan.fio, the
//! same options as fio's) on real storage: a loop device for the first, a small
//! tmpfs filled to the last block for the second. Both need root (losetup,
//! mount): skipped without it, but never in CI. With fio installed, fio then
//! verifies what ferrio wrote.

mod common;
use common::skip::skip;
use common::*;
use std::process::Command;

struct Loop {
    dev: String,
    _dir: tempfile::TempDir,
}

impl Loop {
    fn new(bytes: u64) -> Option<Loop> {
        let dir = scratch();
        let img = dir.path().join("disk.img");
        std::fs::File::create(&img)
            .and_then(|f| f.set_len(bytes))
            .unwrap();
        match loopdev::attach(&img) {
            Ok(dev) => Some(Loop { dev, _dir: dir }),
            Err(e) => {
                skip(&e);
                None
            }
        }
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        loopdev::detach(&self.dev);
    }
}

struct Tmpfs {
    mnt: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmpfs {
    fn new(size: &str) -> Option<Tmpfs> {
        let dir = scratch();
        let mnt = dir.path().join("m");
        std::fs::create_dir(&mnt).unwrap();
        let o = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "tmpfs",
                &path_str(&mnt),
            ])
            .output()
            .unwrap();
        if !o.status.success() {
            skip(&format!(
                "mount tmpfs: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
            return None;
        }
        Some(Tmpfs { mnt, _dir: dir })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mnt).output();
    }
}

#[test]
fn basic_verify_on_a_loop_device() {
    let Some(lo) = Loop::new(16 << 20) else {
        return;
    };
    let d = scratch();
    let text = std::fs::read_to_string(jobs_dir().join("basic-verify.fio")).unwrap();
    let job = d.path().join("basic-verify.fio");
    std::fs::write(&job, text.replace("DEVICE", &lo.dev)).unwrap();
    let v = run_json_in(d.path(), &[&path_str(&job)]);
    let j = &v["jobs"][0];
    assert_eq!(j["error"], 0, "{j}");
    assert_eq!(j["write"]["io_bytes"].as_u64(), Some(16 << 20));
    assert_eq!(
        j["read"]["io_bytes"].as_u64(),
        Some(16 << 20),
        "every block verified"
    );
    if !have_fio() {
        return;
    }
    let o = Command::new("fio")
        .args([
            "--name=write-and-verify",
            "--rw=randwrite",
            "--bs=4k",
            "--direct=1",
            "--verify=crc32c",
            "--verify_only=1",
            "--verify_state_save=0",
            &format!("--filename={}", lo.dev),
            "--output-format=json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let f = parse_json(&o.stdout);
    assert_eq!(f["jobs"][0]["error"], 0);
    assert_eq!(f["jobs"][0]["read"]["io_bytes"].as_u64(), Some(16 << 20));
}

#[test]
fn surface_scan_fills_a_file_system_and_checks_every_interval() {
    let Some(fs) = Tmpfs::new("4m") else {
        return;
    };
    let job = jobs_dir().join("surface-scan.fio");
    // One run, as fio runs it: the verify phase (no size=) is sized when it starts,
    // from the file the write phase filled.
    let o = ferrio()
        .args([&path_str(&job), "--output-format=json"])
        .current_dir(&fs.mnt)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    let v = parse_json(&o.stdout);
    let w = v["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
    assert!(w >= 3 << 20, "filled: {w}");
    let r = &v["jobs"][1];
    assert_eq!(r["jobname"], "verify-phase");
    assert_eq!(r["error"], 0, "{r}");
    assert_eq!(
        r["read"]["io_bytes"].as_u64(),
        Some(w),
        "every byte written is checked"
    );
    // A flipped byte in the middle of the file is found at its interval.
    let data = fs.mnt.join("datafile.tmp");
    let mut b = std::fs::read(&data).unwrap();
    b[(1 << 20) + 700] ^= 0x40;
    std::fs::write(&data, b).unwrap();
    let o = ferrio()
        .args(["--name=scan", "--rw=read", "--bs=64k", "--verify=meta"])
        .args(["--verify_pattern=0xaa555aa5", "--verify_interval=512"])
        .arg(format!("--filename={}", path_str(&data)))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("fio: got pattern '") && err.contains("offset 1049088"),
        "{err}"
    );
}
