//! ferrio never destroys data it was not asked to write.

mod common;
use common::*;

#[test]
fn read_job_never_truncates_or_modifies_an_existing_larger_file() {
    let d = scratch();
    let path = d.path().join("keep");
    let data: Vec<u8> = (0..(3 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &data).unwrap();
    run_json(&[
        "--name=t",
        "--rw=randread",
        "--size=1M",
        &format!("--filename={}", path.display()),
    ]);
    assert_eq!(std::fs::read(&path).unwrap(), data);
}

#[test]
fn job_without_size_uses_the_existing_file_size() {
    let d = scratch();
    let path = d.path().join("sized");
    std::fs::write(&path, vec![7u8; 512 * 1024]).unwrap();
    let v = run_json(&[
        "--name=t",
        "--rw=read",
        &format!("--filename={}", path.display()),
    ]);
    assert_eq!(dir_counts(&v, "read"), (512 * 1024, 128));
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 512 * 1024);
}

#[test]
fn read_job_lays_out_a_missing_file_with_data() {
    let d = scratch();
    let path = d.path().join("laid");
    run_json(&[
        "--name=t",
        "--rw=read",
        "--size=1M",
        &format!("--filename={}", path.display()),
    ]);
    let content = std::fs::read(&path).unwrap();
    assert_eq!(content.len(), 1 << 20);
    assert!(
        content.iter().any(|&b| b != 0),
        "laid-out file should hold data, not a hole"
    );
}

#[test]
fn readonly_refuses_a_write_job_without_touching_the_file() {
    let d = scratch();
    let path = d.path().join("ro");
    std::fs::write(&path, vec![1u8; 1 << 20]).unwrap();
    let out = ferrio()
        .args([
            "--readonly",
            "--name=t",
            "--rw=write",
            "--size=1M",
            &format!("--filename={}", path.display()),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("read"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&path).unwrap(), vec![1u8; 1 << 20]);
}

#[test]
fn unlink_removes_the_files_afterwards() {
    let d = scratch();
    let path = d.path().join("gone");
    run_json(&[
        "--name=t",
        "--rw=write",
        "--size=256k",
        "--unlink=1",
        &format!("--filename={}", path.display()),
    ]);
    assert!(!path.exists());
}

#[test]
fn output_file_gets_the_report() {
    let d = scratch();
    let out = d.path().join("report.json");
    let o = ferrio()
        .args([
            "--name=t",
            "--ioengine=null",
            "--size=1M",
            "--output-format=json",
            &format!("--output={}", out.display()),
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    let v = parse_json(&std::fs::read(&out).unwrap());
    assert_eq!(dir_counts(&v, "read"), (1 << 20, 256));
}
