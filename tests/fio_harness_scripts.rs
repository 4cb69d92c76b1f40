//! What fio's own python test scripts (fio's t/*.py, run against ferrio as fio) rely
//! on, checked with ferrio's own small jobs: `--debug` lines go where fio's go (stdout,
//! or the `--output` file ahead of the report, never stderr), and `--debug=random`
//! lists each thread's seeds as fio 3.35 and later do, so seeds can be compared
//! across randseed/randrepeat settings.

mod common;
use common::{ferrio, scratch};

const GOLDEN: u64 = 0x9e37_0001;

/// Run a 32 KiB random-read null job with `extra`, its output in a file; the
/// file's text (ferrio's stdout and stderr must stay empty).
fn run_to_file(extra: &[&str]) -> String {
    let d = scratch();
    let out_file = d.path().join("out.txt");
    let out = ferrio()
        .current_dir(d.path())
        .args([
            "--debug=random",
            "--name=seeds",
            "--ioengine=null",
            "--filesize=32k",
            "--rw=randread",
            &format!("--output={}", out_file.display()),
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    std::fs::read_to_string(out_file).unwrap()
}

/// The `rand_seeds[i]=V` values of the `random` lines, in order.
fn seeds(text: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| l.starts_with("random "))
        .filter_map(|l| {
            l.split_once("rand_seeds[")?
                .1
                .split_once("]=")?
                .1
                .parse()
                .ok()
        })
        .collect()
}

#[test]
fn debug_lines_go_into_the_output_file_ahead_of_the_report() {
    let text = run_to_file(&["--randseed=1234"]);
    let first_debug = text.find("\nrandom ").expect("debug lines in the file");
    let report = text
        .find("seeds: (groupid=0")
        .expect("the report in the file");
    assert!(first_debug < report, "{text}");
    assert!(text.contains("FIO_RAND_NR_OFFS=24\n"), "{text}");
    // Every random line has fio's shape: category in 8 columns, a thread id.
    for l in text.lines().filter(|l| l.starts_with("random ")) {
        assert!(
            l[9..].split(' ').next().unwrap().parse::<u32>().is_ok(),
            "{l}"
        );
    }
}

#[test]
fn debug_random_lists_fios_seeds_for_randseed() {
    // fio (3.35 and later) for thread 1: randseed times the golden ratio four times,
    // then seed i = that chain's i-th value + i.
    let mut s = 1234u64;
    for _ in 0..4 {
        s = s.wrapping_mul(GOLDEN);
    }
    let want: Vec<u64> = (0..24u64)
        .map(|i| {
            let v = s.wrapping_add(i);
            s = s.wrapping_mul(GOLDEN);
            v
        })
        .collect();
    let text = run_to_file(&["--randseed=1234"]);
    assert_eq!(seeds(&text), want, "{text}");
    // randrepeat=0 with a randseed still follows it; another randseed differs.
    assert_eq!(
        seeds(&run_to_file(&["--randseed=1234", "--randrepeat=0"])),
        want
    );
    assert_ne!(seeds(&run_to_file(&["--randseed=67890"])), want);
}

#[test]
fn debug_random_says_when_seeds_come_from_the_system() {
    let a = run_to_file(&["--randrepeat=0"]);
    let b = run_to_file(&["--randrepeat=0"]);
    assert!(a.contains("using system RNG for random seeds"), "{a}");
    assert_eq!(seeds(&a).len(), 24, "{a}");
    assert_ne!(seeds(&a), seeds(&b));
    // randrepeat=1 (the default) without randseed: repeatable, from randseed's default.
    let c = run_to_file(&[]);
    assert!(!c.contains("system RNG"), "{c}");
    assert_eq!(seeds(&c), seeds(&run_to_file(&[])));
}

#[test]
fn without_output_debug_lines_are_on_stdout_with_the_report() {
    let d = scratch();
    let out = ferrio()
        .current_dir(d.path())
        .args([
            "--debug=random",
            "--name=s",
            "--ioengine=null",
            "--size=16k",
            "--rw=randread",
            "--randseed=7",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(seeds(&text).len(), 24, "{text}");
    assert!(text.contains("s: (groupid=0"), "{text}");
}

/// `--aux-path=DIR` (fio's t/verify_state_save.py): the write job saves its verify
/// state file in DIR, not in its working directory, and a verify pass run from
/// another directory loads it from there; fio 3.33 puts its file in the same place.
#[test]
fn aux_path_holds_the_verify_state_files() {
    let d = scratch();
    let (aux, w, r) = (d.path().join("aux"), d.path().join("w"), d.path().join("r"));
    for p in [&aux, &w, &r] {
        std::fs::create_dir(p).unwrap();
    }
    let data = d.path().join("v.dat");
    let run = |tool: &str, cwd: &std::path::Path, extra: &[&str]| {
        let mut c = if tool == "fio" {
            std::process::Command::new("fio")
        } else {
            ferrio()
        };
        let o = c
            .current_dir(cwd)
            .args([
                "--name=vs",
                &format!("--filename={}", data.display()),
                "--size=256k",
                "--bs=4k",
                "--rw=write",
                "--verify=crc32c",
                &format!("--aux-path={}", aux.display()),
                "--output-format=terse",
            ])
            .args(extra)
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let state = "local-vs-0-verify.state";
    let (ok, err) = run("ferrio", &w, &["--number_ios=10"]);
    assert!(ok, "{err}");
    assert!(!err.contains("aux-path"), "{err}");
    assert!(aux.join(state).exists());
    assert!(!w.join(state).exists());
    let (ok, err) = run("ferrio", &r, &["--verify_only=1", "--verify_state_load=1"]);
    assert!(ok, "{err}");
    // Without --aux-path the load looks in the working directory, and fails there.
    let o = ferrio()
        .current_dir(&r)
        .args([
            "--name=vs",
            &format!("--filename={}", data.display()),
            "--size=256k",
            "--rw=write",
            "--verify=crc32c",
            "--verify_only=1",
            "--verify_state_load=1",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    if common::have_fio() {
        std::fs::remove_file(aux.join(state)).unwrap();
        let (ok, err) = run("fio", &w, &["--number_ios=10"]);
        assert!(ok, "{err}");
        assert!(
            aux.join(state).exists(),
            "fio's state file is in the aux path too"
        );
    }
}
