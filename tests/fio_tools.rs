//! fio's own tools read ferrio's output.

mod common;
use common::*;

#[test]
fn fio_jsonplus_clat2csv_accepts_json_plus() {
    if !have_fio() {
        return;
    }
    let tool = std::path::Path::new("/usr/bin/fio_jsonplus_clat2csv");
    if !tool.exists() {
        panic!("fio is installed but fio_jsonplus_clat2csv is missing");
    }
    let d = scratch();
    let f = file_in(d.path(), "x");
    let out = run_ok(&[
        "--name=t",
        "--rw=randrw",
        "--bs=4k",
        "--size=2M",
        &format!("--filename={f}"),
        "--output-format=json+",
    ]);
    let json = d.path().join("out.json");
    std::fs::write(&json, &out.stdout).unwrap();
    let csv = d.path().join("out.csv");
    let r = std::process::Command::new("python3")
        .arg(tool)
        .arg(&json)
        .arg(&csv)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // The tool writes one CSV per job: out_job0.csv.
    let produced = d.path().join("out_job0.csv");
    let text = std::fs::read_to_string(&produced).expect("tool output");
    let rows = text.lines().count();
    assert!(rows > 2, "CSV has only {rows} lines:\n{text}");
    assert!(text.lines().next().unwrap().contains("clat"), "{text}");
}
