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

/// A job whose thread fails after the layout (here its exec_prerun) still removes its
/// laid-out file under unlink=1, as fio's close_and_free_files does on every path.
#[test]
fn unlink_removes_the_files_of_a_job_whose_setup_failed_like_fio() {
    let d = scratch();
    let mut tools = vec![("ferrio", ferrio())];
    if have_fio() {
        tools.push(("fio", std::process::Command::new("fio")));
    }
    for (tool, mut cmd) in tools {
        let path = d.path().join(format!("gone-{tool}"));
        let out = cmd
            .current_dir(d.path())
            .args([
                "--name=t",
                "--rw=read",
                "--size=256k",
                "--unlink=1",
                "--exec_prerun=false",
                "--output-format=terse",
                &format!("--filename={}", path.display()),
            ])
            .output()
            .unwrap();
        assert!(out.status.code().is_some(), "{tool}");
        assert!(!path.exists(), "{tool} left its file behind");
    }
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

/// A loop device over a file in a scratch directory, with what was done to it undone on
/// drop (even when the test fails): unmount, swapoff, detach.
struct LoopDev {
    dev: String,
    mount: Option<std::path::PathBuf>,
    swap: bool,
    _dir: tempfile::TempDir,
}

fn sh(cmd: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd}: {e}"))
}

fn sh_ok(cmd: &str, args: &[&str]) -> String {
    let o = sh(cmd, args);
    assert!(
        o.status.success(),
        "{cmd} {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

impl LoopDev {
    /// A 64 MiB loop device, or None (with the reason printed) where this machine cannot
    /// make one; with CI set, that is a failure instead.
    fn new() -> Option<LoopDev> {
        let dir = scratch();
        let img = dir.path().join("disk.img");
        std::fs::File::create(&img)
            .and_then(|f| f.set_len(64 << 20))
            .unwrap();
        match loopdev::attach(&img) {
            Ok(dev) => Some(LoopDev {
                dev,
                mount: None,
                swap: false,
                _dir: dir,
            }),
            Err(why) => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI is set but no loop device can be made (needs root and losetup): {why}"
                );
                eprintln!("SKIP: cannot make a loop device (needs root and losetup): {why}");
                None
            }
        }
    }

    fn mkfs_and_mount(&mut self) -> std::path::PathBuf {
        sh_ok("mkfs.ext4", &["-q", "-F", &self.dev]);
        self.mount()
    }

    fn mount(&mut self) -> std::path::PathBuf {
        let mnt = self._dir.path().join("mnt");
        std::fs::create_dir_all(&mnt).unwrap();
        sh_ok("mount", &[&self.dev, &path_str(&mnt)]);
        self.mount = Some(mnt.clone());
        mnt
    }

    fn umount(&mut self) {
        if let Some(m) = self.mount.take() {
            sh_ok("umount", &[&path_str(&m)]);
        }
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        if let Some(m) = self.mount.take() {
            let _ = sh("umount", &[&path_str(&m)]);
        }
        if self.swap {
            let _ = sh("swapoff", &[&self.dev]);
        }
        loopdev::detach(&self.dev);
    }
}

/// Run a job against `dev`; return (exit code, stdout, stderr).
fn job_on(dev: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec![
        "--name=victim".to_string(),
        format!("--filename={dev}"),
        "--bs=4k".into(),
        "--size=4m".into(),
        "--output-format=json".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let o = ferrio().args(&args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn writes_to_a_mounted_filesystem_are_refused_and_it_stays_intact() {
    let Some(mut lo) = LoopDev::new() else { return };
    let mnt = lo.mkfs_and_mount();
    let keep = mnt.join("keep.txt");
    std::fs::write(&keep, "precious\n").unwrap();
    sh_ok("sync", &[]);
    for rw in ["write", "randwrite", "trim", "randrw", "trimwrite"] {
        let (code, stdout, stderr) = job_on(&lo.dev, &[&format!("--rw={rw}")]);
        assert_eq!(code, Some(1), "rw={rw}: {stderr}");
        assert!(
            stderr.contains(&format!("{} appears mounted", lo.dev))
                && stderr.contains("'allow_mounted_write' isn't set"),
            "rw={rw}: {stderr}"
        );
        assert!(
            stdout.trim().is_empty(),
            "rw={rw}: no report expected: {stdout}"
        );
    }
    // --parse-only refuses it too, before any I/O.
    let (code, _, stderr) = job_on(&lo.dev, &["--rw=write", "--parse-only"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("allow_mounted_write"), "{stderr}");
    // A replay read at its job's start (its log is written by an earlier job of the
    // run) is checked then: redirected onto the mounted device, its writes are refused.
    let d = scratch();
    let job = d.path().join("j.fio");
    std::fs::write(
        &job,
        format!(
            "[w]\nfilename={0}/data\nrw=write\nbs=4k\nsize=1m\nwrite_iolog={0}/rec.log\n\
             [r]\nstonewall\nfilename={0}/data\nsize=1m\nread_iolog={0}/rec.log\n\
             replay_redirect={1}\n",
            d.path().display(),
            lo.dev
        ),
    )
    .unwrap();
    let o = ferrio().arg(&job).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("job 'r'") && stderr.contains("'allow_mounted_write' isn't set"),
        "{stderr}"
    );
    // Reading a mounted device is harmless and allowed, as in fio.
    let (code, _, stderr) = job_on(&lo.dev, &["--rw=read"]);
    assert_eq!(code, Some(0), "{stderr}");
    lo.umount();
    sh_ok("fsck.ext4", &["-n", "-f", &lo.dev]);
    let mnt = lo.mount();
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), "precious\n");
    // With allow_mounted_write=1 the user takes responsibility: the write runs (past
    // the data of this nearly empty file system).
    let (code, stdout, stderr) = job_on(
        &lo.dev,
        &["--rw=write", "--offset=56m", "--allow_mounted_write=1"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        dir_counts(&parse_json(stdout.as_bytes()), "write").0,
        4 << 20
    );
    assert!(mnt.exists());
}

#[test]
fn writes_to_an_active_swap_device_are_refused() {
    let Some(mut lo) = LoopDev::new() else { return };
    sh_ok("mkswap", &["-q", &lo.dev]);
    let on = sh("swapon", &[&lo.dev]);
    if !on.status.success() {
        // Containers commonly forbid swapon; the mount test covers the same path.
        common::skip::skip(&format!(
            "swapon refused here: {}",
            String::from_utf8_lossy(&on.stderr)
        ));
        return;
    }
    lo.swap = true;
    let (code, _, stderr) = job_on(&lo.dev, &["--rw=write"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("in use as swap") && stderr.contains("allow_mounted_write"),
        "{stderr}"
    );
}

#[test]
fn allow_mounted_write_is_a_boolean_option() {
    for (v, ok) in [("0", true), ("1", true), ("2", false), ("yes", false)] {
        let o = ferrio()
            .args([
                "--parse-only",
                "--name=t",
                "--ioengine=null",
                "--size=1m",
                &format!("--allow_mounted_write={v}"),
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.success(), ok, "allow_mounted_write={v}");
    }
}

#[test]
fn a_device_another_program_claims_exclusively_is_refused() {
    // Nothing in mountinfo, holders or swaps shows this claim: the kernel's exclusive
    // open does (as for ZFS pools or a program holding the device with O_EXCL).
    let Some(lo) = LoopDev::new() else { return };
    use std::os::unix::fs::OpenOptionsExt;
    let claim = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&lo.dev)
        .expect("exclusive open of a free loop device");
    let (code, _, stderr) = job_on(&lo.dev, &["--rw=write"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("is in use") && stderr.contains("allow_mounted_write"),
        "{stderr}"
    );
    drop(claim);
    let (code, _, stderr) = job_on(&lo.dev, &["--rw=write"]);
    assert_eq!(code, Some(0), "free again, the write runs: {stderr}");
}

/// Unmounts the small tmpfs at the end of a test.
struct Unmount(String);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = sh("umount", &[&self.0]);
    }
}

/// A tmpfs of `size` mounted under `d`, or None (with a SKIP line) where mounting
/// needs root this test does not have (never in CI).
fn small_tmpfs(d: &std::path::Path, size: &str) -> Option<(std::path::PathBuf, Unmount)> {
    let mnt = d.join("small");
    std::fs::create_dir(&mnt).unwrap();
    let opts = format!("size={size}");
    let ok = sh(
        "mount",
        &["-t", "tmpfs", "-o", &opts, "tmpfs", &path_str(&mnt)],
    );
    if !ok.status.success() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but tmpfs cannot be mounted: {}",
            String::from_utf8_lossy(&ok.stderr)
        );
        eprintln!("SKIP: cannot mount a tmpfs (needs root)");
        return None;
    }
    let guard = Unmount(path_str(&mnt));
    Some((mnt, guard))
}

#[test]
fn a_layout_that_runs_out_of_space_leaves_nothing_behind() {
    // A 1 MiB tmpfs cannot hold a 4 MiB file: the layout fails with ENOSPC, and the
    // file it started is removed (an existing file would be cut back to its length).
    let d = scratch();
    let Some((mnt, _guard)) = small_tmpfs(d.path(), "1m") else {
        return;
    };
    let f = mnt.join("data");
    let o = ferrio()
        .args([
            "--name=t",
            "--rw=read",
            "--size=4m",
            &format!("--filename={}", f.display()),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot lay out") && stderr.contains("space"),
        "{stderr}"
    );
    assert!(!f.exists(), "the partial file must be removed");
    // An existing file is cut back to its own length, its bytes unchanged.
    std::fs::write(&f, vec![9u8; 64 << 10]).unwrap();
    let o = ferrio()
        .args([
            "--name=t",
            "--rw=read",
            "--size=4m",
            &format!("--filename={}", f.display()),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read(&f).unwrap(), vec![9u8; 64 << 10]);
}

#[test]
fn a_file_the_system_will_not_lay_out_fails_its_job_and_the_others_run_like_fio() {
    // As fio's setup: the job whose file cannot be laid out (ENOSPC on a 1 MiB tmpfs)
    // reports the error and does no I/O, the other job runs (for its whole runtime:
    // a job that never started stops no one under exitall_on_error), and the run
    // exits 1. fio also leaves the partial file and prints a line into its JSON;
    // ferrio removes the file and its report parses.
    let d = scratch();
    let Some((mnt, _guard)) = small_tmpfs(d.path(), "1m") else {
        return;
    };
    let full = mnt.join("data");
    let args = |other: &str| {
        [
            "--output-format=json".to_string(),
            "--exitall_on_error=1".into(),
            "--name=j".into(),
            "--rw=read".into(),
            "--size=4m".into(),
            format!("--filename={}", full.display()),
            "--name=k".into(),
            "--rw=write".into(),
            "--size=64k".into(),
            "--time_based".into(),
            "--runtime=1".into(),
            format!("--filename={}", d.path().join(other).display()),
        ]
    };
    let check = |tool: &str, o: std::process::Output| {
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{tool}: {stderr}");
        let json = &stdout[stdout.find('{').unwrap_or(0)..];
        let v: serde_json::Value = serde_json::from_str(json).expect("a JSON report");
        let j = job_named(&v, "j");
        assert_eq!(j["error"], libc::ENOSPC, "{tool}: {j}");
        assert_eq!(j["read"]["io_bytes"], 0, "{tool}");
        let k = job_named(&v, "k");
        assert_eq!(k["error"], 0, "{tool}: {k}");
        assert!(k["write"]["io_bytes"].as_u64() > Some(0), "{tool}");
        assert!(k["write"]["runtime"].as_u64() >= Some(900), "{tool}: {k}");
        (json.len() == stdout.len(), stderr.into_owned())
    };
    let (whole, stderr) = check("ferrio", ferrio().args(args("ours")).output().unwrap());
    assert!(whole, "nothing before the JSON report");
    assert!(
        stderr.contains("job 'j': cannot lay out") && stderr.contains("No space left"),
        "{stderr}"
    );
    assert!(!full.exists(), "the partial file must be removed");
    if have_fio() {
        check(
            "fio",
            std::process::Command::new("fio")
                .args(args("theirs"))
                .output()
                .unwrap(),
        );
        let _ = std::fs::remove_file(&full);
    }
}

#[test]
fn a_write_that_runs_out_of_space_midway_names_the_rest_that_failed_like_fio() {
    // 21 writes of 48 KiB fill 1008 KiB of a 1 MiB tmpfs; the 22nd finds room for
    // 16 KiB, and its rest (32 KiB at 1 MiB) fails with ENOSPC. fio's error line
    // names that rest, as its io_u describes it after the short write.
    let d = scratch();
    let Some((mnt, _guard)) = small_tmpfs(d.path(), "1m") else {
        return;
    };
    let f = mnt.join("data");
    let args = [
        "--name=t".to_string(),
        "--rw=write".to_string(),
        "--bs=48k".to_string(),
        "--size=2m".to_string(),
        "--fallocate=none".to_string(),
        format!("--filename={}", f.display()),
    ];
    let line = |out: &std::process::Output| {
        let text = String::from_utf8_lossy(&out.stderr).to_string()
            + &String::from_utf8_lossy(&out.stdout);
        text.lines()
            .find(|l| l.contains("io_u error on file"))
            .map(|l| l[l.find("io_u error").unwrap()..].to_string())
            .unwrap_or_else(|| panic!("no error line in {text}"))
    };
    let o = ferrio().args(&args).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let ours = line(&o);
    assert!(
        ours.ends_with("No space left on device: write offset=1048576, buflen=32768"),
        "{ours}"
    );
    let _ = std::fs::remove_file(&f);
    if have_fio() {
        let o = std::process::Command::new("fio")
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(line(&o), ours, "fio's line");
    }
}

/// A file that a read-only run or allow_file_create=0 may not make fails only the
/// jobs that use it, as in fio; the others run. With --readonly (fio 3.33: "refusing
/// extend of file due to read-only") a missing file fails its job as its open does
/// (ENOENT, no I/O), and a short one is read up to its end, where the next read
/// fails (EIO, "full resid"), after 4 KiB in 2 I/Os; the run exits 2 (two failed
/// threads). Without --readonly, allow_file_create=0 on a missing file fails that
/// job (fio reports error 0 for it; ferrio ENOENT) and exits 1. Both left nothing
/// created. ferrio stopped the whole run before any job started, with no report.
#[test]
fn a_file_a_read_only_run_or_allow_file_create_0_may_not_make_fails_only_its_job_like_fio() {
    let d = scratch();
    let run_in = |tool: &str, extra: &[&str], jobs: &str| {
        let dir = d.path().join(tool).join(extra.len().to_string());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("full"), vec![0u8; 1 << 20]).unwrap();
        std::fs::write(dir.join("short"), vec![0u8; 4096]).unwrap();
        let job = dir.join("j.fio");
        std::fs::write(&job, jobs).unwrap();
        let mut cmd = if tool == "fio" {
            std::process::Command::new("fio")
        } else {
            ferrio()
        };
        let o = cmd
            .current_dir(&dir)
            .args(extra)
            .arg("--output-format=json")
            .arg(&job)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let json = &stdout[stdout.find('{').expect("a JSON report")..];
        let v: serde_json::Value = serde_json::from_str(json).expect("a JSON report");
        let files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        (o.status.code(), v, files, dir)
    };
    let read_only = "[missing]\nfilename=missing\nsize=1m\nrw=read\n\
                     [full]\nfilename=full\nsize=1m\nrw=read\n\
                     [short]\nfilename=short\nsize=1m\nrw=read\n";
    let no_create = "[missing]\nfilename=missing\nsize=1m\nrw=read\nallow_file_create=0\n\
                     [other]\nfilename=other\nsize=1m\nrw=write\n";
    let mut tools = vec!["ferrio"];
    if have_fio() {
        tools.push("fio");
    }
    for tool in tools {
        let (rc, v, files, dir) = run_in(tool, &["--readonly"], read_only);
        assert_eq!(rc, Some(2), "{tool}: {v}");
        let ios = |name: &str, dir: &str| {
            let j = job_named(&v, name);
            (
                j["error"].as_i64().unwrap(),
                j[dir]["io_bytes"].as_u64().unwrap(),
                j[dir]["total_ios"].as_u64().unwrap(),
            )
        };
        assert_eq!(
            ios("missing", "read"),
            (libc::ENOENT as i64, 0, 0),
            "{tool}"
        );
        assert_eq!(ios("full", "read"), (0, 1 << 20, 256), "{tool}");
        assert_eq!(ios("short", "read"), (libc::EIO as i64, 4096, 2), "{tool}");
        assert!(!files.contains(&"missing".to_string()), "{tool}: {files:?}");
        assert_eq!(std::fs::metadata(dir.join("short")).unwrap().len(), 4096);

        let (rc, v, files, _) = run_in(tool, &[], no_create);
        assert_eq!(rc, Some(1), "{tool}: {v}");
        let missing = job_named(&v, "missing");
        let want = if tool == "fio" { 0 } else { libc::ENOENT };
        assert_eq!(missing["error"], want, "{tool}: {missing}");
        assert_eq!(missing["read"]["io_bytes"], 0, "{tool}");
        let other = job_named(&v, "other");
        assert_eq!(
            (other["error"].as_i64(), other["write"]["io_bytes"].as_u64()),
            (Some(0), Some(1 << 20)),
            "{tool}"
        );
        assert!(!files.contains(&"missing".to_string()), "{tool}: {files:?}");
    }
}
