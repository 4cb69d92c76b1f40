//! The local engines that are not about metadata: cpuio, exec, falloc, ftruncate,
//! splice and e4defrag (on an ext4 file system the test makes on a loop device).
//! Where fio 3.33 has the engine, the I/O counts are compared with its run.

mod common;
use common::*;
use serde_json::Value;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn job0<'a>(v: &'a Value, d: &str) -> &'a Value {
    &v["jobs"][0][d]
}

/// (total_ios, io_bytes) per direction of every job.
fn counts(v: &Value) -> Vec<[(u64, u64); 3]> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            ["read", "write", "trim"].map(|d| {
                (
                    j[d]["total_ios"].as_u64().unwrap(),
                    j[d]["io_bytes"].as_u64().unwrap(),
                )
            })
        })
        .collect()
}

/// fio's JSON for `args`, or None without fio (skipped visibly).
fn fio(args: &[&str]) -> Option<Value> {
    have_fio().then(|| fio_json(args))
}

#[test]
fn cpuio_burns_cycles_counted_as_ios_without_bytes() {
    // 10 ms spin + 10 ms think per I/O (cpuload=50): at most one I/O per 20 ms of
    // the 1 s runtime, plus the one in progress when it ends.
    let args = [
        "--name=burn",
        "--ioengine=cpuio",
        "--cpuload=50",
        "--cpuchunks=10000",
        "--time_based",
        "--runtime=1",
    ];
    let v = run_json(&args);
    let r = job0(&v, "read");
    let ios = r["total_ios"].as_u64().unwrap();
    assert!((1..=51).contains(&ios), "{ios}");
    assert_eq!(r["io_bytes"].as_u64(), Some(0));
    assert_eq!(r["clat_ns"]["N"].as_u64(), Some(ios));
    assert!(
        r["clat_ns"]["min"].as_u64().unwrap() >= 10_000_000,
        "each cycle spins 10 ms"
    );
    if let Some(g) = fio(&args) {
        let f = &g["jobs"][0]["read"];
        assert_eq!(
            f["io_bytes"].as_u64(),
            Some(0),
            "fio counts no bytes either"
        );
        assert_eq!(f["clat_ns"]["N"], f["total_ios"]);
    }
    // qsort mode: the think time follows the sort's duration.
    let v = run_json(&[
        "--name=q",
        "--ioengine=cpuio",
        "--cpuload=90",
        "--cpumode=qsort",
        "--time_based",
        "--runtime=200ms",
    ]);
    assert!(job0(&v, "read")["total_ios"].as_u64().unwrap() >= 1);
}

#[test]
fn cpuio_needs_cpuload() {
    let out = ferrio()
        .args([
            "--name=c",
            "--ioengine=cpuio",
            "--runtime=1",
            "--cpumode=noop",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs cpuload="), "{err}");
}

#[test]
fn cpuio_with_exit_on_io_done_ends_when_the_io_jobs_have() {
    // A 60 s burner beside a small write job: it stops once the writer is done
    // (an I/O job later in the file, not yet started, would count too).
    let d = scratch();
    let dir = format!("--directory={}", path_str(d.path()));
    let args = [
        &dir,
        "--name=burn",
        "--ioengine=cpuio",
        "--cpuload=50",
        "--cpuchunks=10000",
        "--time_based",
        "--runtime=60",
        "--exit_on_io_done=1",
        "--name=io",
        "--ioengine=psync",
        "--size=1m",
        "--rw=write",
        "--bs=4k",
    ];
    let v = run_json(&args);
    let burn = &v["jobs"][0];
    assert_eq!(burn["error"].as_u64(), Some(0));
    assert!(burn["job_runtime"].as_u64().unwrap() < 60_000, "{burn}");
    assert_eq!(v["jobs"][1]["write"]["total_ios"].as_u64(), Some(256));
}

#[test]
fn exec_runs_the_program_for_the_runtime_then_terminates_it() {
    let d = scratch();
    // The script records its arguments and pid, then would run for a minute.
    let script = d.path().join("tool.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\necho \"$@\" > args\necho $$ > pid\necho out\necho err >&2\nexec sleep 60\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let program = format!("--program={}", path_str(&script));
    let v = run_json_in(
        d.path(),
        &[
            "--name=mon",
            "--ioengine=exec",
            &program,
            "--arguments=-t %r  %n",
            "--runtime=1",
            "--grace_time=0",
        ],
    );
    assert_eq!(v["jobs"][0]["error"].as_u64(), Some(0));
    assert_eq!(job0(&v, "read")["io_bytes"].as_u64(), Some(0));
    let args = std::fs::read_to_string(d.path().join("args")).unwrap();
    assert_eq!(
        args.trim(),
        "-t 1 mon",
        "%r and %n expanded, split at spaces"
    );
    let pid = std::fs::read_to_string(d.path().join("pid")).unwrap();
    assert!(
        !Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "the program was stopped and reaped when the job ended"
    );
    // std_redirect=1 (the default): its output went to JOB.stdout / JOB.stderr.
    assert_eq!(
        std::fs::read_to_string(d.path().join("mon.stdout")).unwrap(),
        "out\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("mon.stderr")).unwrap(),
        "err\n"
    );
}

#[test]
fn exec_needs_a_program_and_a_runtime() {
    for (a, want) in [
        (
            vec!["--name=e", "--ioengine=exec", "--runtime=1"],
            "needs program=",
        ),
        (
            vec!["--name=e", "--ioengine=exec", "--program=/bin/true"],
            "needs runtime=",
        ),
    ] {
        let out = ferrio().args(&a).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains(want));
    }
    let out = ferrio()
        .args([
            "--name=e",
            "--ioengine=exec",
            "--program=/nonexistent/x",
            "--runtime=1",
            "--std_redirect=0",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a program that cannot start fails the job"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run '/nonexistent/x'"));
}

#[test]
fn falloc_allocates_on_writes_and_reads_and_punches_holes_on_trims_like_fio() {
    let d = scratch();
    let f = file_in(d.path(), "fa");
    let write = [
        "--name=a",
        "--ioengine=falloc",
        &format!("--filename={f}"),
        "--size=1m",
        "--bs=64k",
        "--rw=write",
    ];
    let v = run_json(&write);
    assert_eq!(counts(&v)[0][1], (16, 1 << 20));
    let m = std::fs::metadata(&f).unwrap();
    assert_eq!(m.len(), 1 << 20);
    assert!(m.blocks() * 512 >= 1 << 20, "allocated");
    let trim = [
        "--name=t",
        "--ioengine=falloc",
        &format!("--filename={f}"),
        "--size=1m",
        "--bs=64k",
        "--rw=trim",
    ];
    let v = run_json(&trim);
    assert_eq!(counts(&v)[0][2], (16, 1 << 20));
    let m = std::fs::metadata(&f).unwrap();
    assert_eq!(
        (m.len(), m.blocks()),
        (1 << 20, 0),
        "every block punched, size kept"
    );
    if let Some(g) = fio(&write) {
        assert_eq!(counts(&g), counts(&run_json(&write)));
    }
}

#[test]
fn ftruncate_cuts_the_file_at_each_writes_offset_like_fio() {
    let d = scratch();
    let f = file_in(d.path(), "tr");
    let args = [
        "--name=t",
        "--ioengine=ftruncate",
        &format!("--filename={f}"),
        "--size=64k",
        "--bs=4k",
        "--rw=write",
    ];
    let v = run_json(&args);
    assert_eq!(counts(&v)[0][1], (16, 65536));
    // The last write is at 60 KiB: the file ends there.
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 61440);
    if let Some(g) = fio(&args) {
        assert_eq!(counts(&g), counts(&v));
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 61440);
    }
    let out = ferrio()
        .args([
            "--name=t",
            "--ioengine=ftruncate",
            &format!("--filename={f}"),
            "--size=64k",
            "--rw=read",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "reads are refused with EINVAL, as fio"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("Invalid argument"));
}

#[test]
fn splice_moves_the_data_through_a_pipe() {
    let d = scratch();
    let f = file_in(d.path(), "sp");
    let args = [
        "--name=s",
        "--ioengine=splice",
        &format!("--filename={f}"),
        "--size=1m",
        "--bs=128k",
        "--rw=write",
        "--buffer_pattern=0x5a",
    ];
    let v = run_json(&args);
    assert_eq!(
        counts(&v)[0][1],
        (8, 1 << 20),
        "128 KiB blocks, each two pipes' worth"
    );
    let data = std::fs::read(&f).unwrap();
    assert_eq!(data.len(), 1 << 20);
    assert!(
        data.iter().all(|&b| b == 0x5a),
        "every byte written through the pipe"
    );
    let read = [
        "--name=r",
        "--ioengine=splice",
        &format!("--filename={f}"),
        "--size=1m",
        "--bs=64k",
        "--rw=randread",
    ];
    let v = run_json(&read);
    assert_eq!(counts(&v)[0][0], (16, 1 << 20));
    if let Some(g) = fio(&read) {
        assert_eq!(counts(&g), counts(&v));
    }
}

/// A program in the system directories (mkfs.ext4 and filefrag live in sbin).
fn system_tool(name: &str) -> Option<PathBuf> {
    ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
}

/// An ext4 file system on a loop device, unmounted on drop.
struct Ext4 {
    mnt: PathBuf,
    _dir: tempfile::TempDir,
}

impl Ext4 {
    fn new() -> Option<Ext4> {
        let Some(mkfs) = system_tool("mkfs.ext4") else {
            skip::skip("mkfs.ext4 is not installed (e2fsprogs)");
            return None;
        };
        let dir = scratch();
        let img = dir.path().join("img");
        std::fs::File::create(&img)
            .unwrap()
            .set_len(64 << 20)
            .unwrap();
        let ok = Command::new(mkfs)
            .args(["-q", "-F", &path_str(&img)])
            .status();
        assert!(ok.unwrap().success(), "mkfs.ext4");
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        let o = Command::new("mount")
            .args(["-o", "loop", &path_str(&img), &path_str(&mnt)])
            .output()
            .unwrap();
        if !o.status.success() {
            skip::skip(&format!(
                "cannot loop-mount ext4: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
            return None;
        }
        Some(Ext4 { mnt, _dir: dir })
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mnt).status();
    }
}

/// The physical start of each extent of `path` (filefrag -v).
fn extents(path: &Path) -> Vec<String> {
    let tool = system_tool("filefrag").expect("filefrag (e2fsprogs, with mkfs.ext4)");
    let out = Command::new(tool).arg("-v").arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split(':').collect();
            (cols.len() >= 4 && cols[0].trim().parse::<u64>().is_ok())
                .then(|| cols[2].trim().to_string())
        })
        .collect()
}

#[test]
fn e4defrag_moves_the_files_blocks_and_keeps_its_data() {
    let Some(fs) = Ext4::new() else { return };
    let file = fs.mnt.join("file1");
    let data: Vec<u8> = (0..4u32 << 20)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(&file, &data).unwrap();
    let before = extents(&file);
    let dir = format!("--directory={}", path_str(&fs.mnt));
    for inplace in ["0", "1"] {
        let args = [
            "--name=d",
            "--ioengine=e4defrag",
            &dir,
            "--filename=file1",
            "--donorname=file.def",
            "--size=4m",
            "--filesize=4m",
            "--bs=32k",
            "--rw=write",
            &format!("--inplace={inplace}"),
        ];
        let v = run_json(&args);
        assert_eq!(v["jobs"][0]["error"].as_u64(), Some(0), "inplace={inplace}");
        assert_eq!(counts(&v)[0][1], (128, 4 << 20), "inplace={inplace}");
        assert_eq!(
            std::fs::read(&file).unwrap(),
            data,
            "defragmenting keeps the data"
        );
        if let Some(g) = fio(&args) {
            assert_eq!(counts(&g), counts(&v), "inplace={inplace}");
        }
    }
    assert_ne!(extents(&file), before, "the blocks moved to the donor's");
    assert!(
        fs.mnt.join("file.def").exists(),
        "the donor is in the job's directory"
    );
}

#[test]
fn e4defrag_outside_ext4_fails_the_io_and_needs_a_donor() {
    let d = scratch();
    let dir = format!("--directory={}", path_str(d.path()));
    let out = ferrio()
        .args([
            "--name=d",
            "--ioengine=e4defrag",
            &dir,
            "--size=64k",
            "--rw=write",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("donorname"));
    let out = ferrio()
        .args([
            "--name=d",
            "--ioengine=e4defrag",
            &dir,
            "--size=64k",
            "--rw=read",
            "--donorname=x",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "reads are refused (EINVAL), as fio"
    );
}

#[test]
fn cpuio_normal_output_has_no_header_and_no_bandwidth_like_fio() {
    let args = [
        "--name=burn",
        "--ioengine=cpuio",
        "--cpuload=50",
        "--cpuchunks=5000",
        "--time_based",
        "--runtime=200ms",
    ];
    let out = run_ok(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    let v = run_json(&args);
    assert_eq!(
        job0(&v, "read")["runtime"].as_u64(),
        Some(0),
        "no data, no runtime"
    );
    assert_eq!(job0(&v, "read")["bw"].as_u64(), Some(0));
    let mut outputs = vec![("ferrio", text.to_string())];
    if have_fio() {
        let o = Command::new("fio").args(args).output().unwrap();
        outputs.push(("fio", String::from_utf8_lossy(&o.stdout).to_string()));
    }
    for (who, text) in outputs {
        assert!(!text.contains("(g=0)"), "{who}: no job header:\n{text}");
        assert!(
            !text.contains("READ:"),
            "{who}: no group bandwidth line:\n{text}"
        );
        assert!(text.contains("issued rwts: total="), "{who}:\n{text}");
    }
}

/// fio's e4defrag2.fio patterns (tests/jobs/e4defrag2.fio): threads sharing one donor,
/// two threads each the other's donor, random in-place moves, and a libaio job that
/// inherits the e4defrag options from [global] without using them (as fio accepts).
#[test]
fn e4defrag2_example_runs_every_pattern() {
    let Some(fs) = Ext4::new() else { return };
    let src = std::fs::read_to_string(jobs_dir().join("e4defrag2.fio")).unwrap();
    let job = fs.mnt.join("e4defrag2.fio");
    std::fs::write(&job, adapt_example(&src, &path_str(&fs.mnt))).unwrap();
    // In the mount: its libaio verify job leaves a verify state file in the working directory.
    let v = run_json_in(&fs.mnt, &[&path_str(&job)]);
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["shared-donor", "swap-a", "inplace-random", "aio-after"]
    );
    for j in jobs {
        assert_eq!(j["error"].as_u64(), Some(0), "{}", j["jobname"]);
    }
    let written: Vec<u64> = jobs
        .iter()
        .map(|j| j["write"]["io_bytes"].as_u64().unwrap())
        .collect();
    // 4 files of 4 MiB, 2 of 4 MiB, then 4 MiB in 4k moves.
    assert_eq!(written[..3], [16 << 20, 8 << 20, 4 << 20]);
    assert!(written[3] > 0 && jobs[3]["read"]["io_bytes"].as_u64().unwrap() > 0);
    assert!(fs.mnt.join("file.def").exists() && fs.mnt.join("swap-a.0.0").exists());
}
