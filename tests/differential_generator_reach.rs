//! Files past the 32-bit offset generator's reach (fio's check_rand_gen_limits,
//! docs/random.md): which generator draws their offsets, against fio 3.33 for its
//! mode, and where the note about it is printed.

mod common;
use common::iologs::*;
use common::*;
use std::path::Path;

/// ferrio's write_iolog lines for a job (no fio run).
fn ferrio_log(opts: &[&str]) -> Vec<String> {
    let d = scratch();
    let log = d.path().join("io.log");
    let o = ferrio()
        .current_dir(d.path())
        .args(["--name=j", "--randrepeat=0", "--randseed=1234"])
        .arg(format!("--write_iolog={}", log.display()))
        .args(opts)
        .output()
        .expect("run");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    normalized(&log, Path::new(""))
}

/// A file past the 32-bit generator's reach (2^40 one-byte blocks, as fio's
/// t/t64-switch.sh): with fio_seeds=3.33 the offsets are fio 3.33's, which says it
/// switches to tausworthe64 but keeps drawing 32-bit numbers (every offset a multiple
/// of 256 here); by default they are tausworthe64's, as fio 3.42 draws them (fio
/// issue #2036), and the same as when tausworthe64 is chosen.
#[test]
fn a_file_past_the_32_bit_generators_reach_switches_to_tausworthe64() {
    if !fio_available() {
        return;
    }
    let job = [
        "--ioengine=null",
        "--size=1T",
        "--bs=1",
        "--rw=randread",
        "--norandommap",
        "--number_ios=300",
    ];
    let base = ["--randrepeat=0", "--randseed=1234"];
    let (f, r) = both_with(&base, &job, &["--fio_seeds=3.33"]);
    let offsets = |lines: &[String]| -> Vec<u64> {
        lines
            .iter()
            .filter_map(|l| l.split(' ').nth(2)?.parse().ok())
            .collect()
    };
    assert_eq!(offsets(&f).len(), 300, "{f:?}");
    assert!(offsets(&f).iter().all(|o| o % 256 == 0), "{f:?}");
    assert_pair(&job, (f, r));
    let switched = ferrio_log(&job);
    assert_eq!(offsets(&switched).len(), 300);
    assert!(offsets(&switched).iter().any(|o| o % 256 != 0));
    let mut chosen = job.to_vec();
    chosen.push("--random_generator=tausworthe64");
    assert_eq!(switched, ferrio_log(&chosen));
    // Chosen explicitly, tausworthe stays (fio warns and keeps it).
    let mut kept = job.to_vec();
    kept.push("--random_generator=tausworthe");
    assert!(offsets(&ferrio_log(&kept)).iter().all(|o| o % 256 == 0));
}

/// The note about that switch goes on stdout after the Starting line in the normal
/// format (where fio prints it), and on stderr with JSON, which then still parses
/// (fio's own JSON does not: its note comes first on stdout).
#[test]
fn the_generator_note_is_printed_where_the_report_stays_parseable() {
    let job = [
        "--name=j",
        "--ioengine=null",
        "--size=1T",
        "--bs=1",
        "--rw=randread",
        "--norandommap",
        "--number_ios=10",
    ];
    let run = |extra: &[&str]| {
        let o = ferrio().args(job).args(extra).output().expect("run");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
        (text(&o.stdout), text(&o.stderr))
    };
    let (out, err) = run(&[]);
    let starting = out.find("Starting 1 ").expect("the Starting line");
    let note = out
        .find("drawn with tausworthe64")
        .expect("the note on stdout");
    assert!(
        starting < note && !err.contains("tausworthe"),
        "{out}\n{err}"
    );
    let (out, err) = run(&["--output-format=json"]);
    assert!(err.contains("drawn with tausworthe64"), "{err}");
    serde_json::from_str::<serde_json::Value>(&out).expect("the JSON parses");
    let (out, err) = run(&["--random_generator=tausworthe"]);
    assert!(out.contains("random_generator=lfsr or tausworthe64 reaches them all"));
    assert!(err.is_empty(), "{err}");
    // Within the generator's reach: no note.
    let (out, _) = run(&["--size=4294967295"]);
    assert!(!out.contains("tausworthe"), "{out}");
}

/// A job whose file another job creates is sized only when it starts
/// (runner/late_sizes.rs): past the generator's reach it switches as well, and its
/// note comes then, on stderr (the report has started), as fio prints its note when
/// that job sets its files up. The file is a sparse 1 TiB one (fallocate=truncate), which
/// w lays out as it starts (create_serialize=0), so no setup before r's makes it.
#[test]
fn a_job_sized_at_its_start_switches_and_notes_it_then() {
    let d = scratch();
    let run = |generator: &str| -> (Vec<u64>, String) {
        let log = d.path().join("r.log");
        let job = format!(
            "[w]\nfilename=big\nrw=write\nsize=1T\nio_size=4k\nfallocate=truncate\ncreate_serialize=0\n\n\
             [r]\nstonewall\nfilename=big\nrw=randread\nbs=1\nnorandommap\nnumber_ios=300\n\
             randrepeat=0\nrandseed=1234\nwrite_iolog={}\n{generator}\n",
            log.display()
        );
        std::fs::write(d.path().join("late.fio"), job).unwrap();
        let o = ferrio()
            .current_dir(d.path())
            .arg("late.fio")
            .output()
            .expect("run");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let offsets = normalized(&log, Path::new(""))
            .iter()
            .filter_map(|l| l.split(' ').nth(2)?.parse().ok())
            .collect();
        std::fs::remove_file(d.path().join("big")).unwrap();
        std::fs::remove_file(&log).unwrap(); // write_iolog appends, as fio's does
        (offsets, String::from_utf8_lossy(&o.stderr).to_string())
    };
    let (switched, err) = run("");
    assert_eq!(switched.len(), 300);
    assert!(switched.iter().any(|o| o % 256 != 0), "{switched:?}");
    assert!(
        err.contains("ferrio: job 'r': file big has 1099511627776 blocks")
            && err.contains("drawn with tausworthe64"),
        "{err}"
    );
    let (chosen, _) = run("random_generator=tausworthe64");
    assert_eq!(switched, chosen);
    let (kept, err) = run("random_generator=tausworthe");
    assert!(kept.iter().all(|o| o % 256 == 0), "{kept:?}");
    assert!(err.contains("random_generator=lfsr or tausworthe64 reaches them all"));
}
