//! Terse (version 3) output: golden lines for hand-built reports, and a field-by-field
//! shape comparison with real `fio --output-format=terse` / `--minimal` captures.
//! Expected lines were assembled field by field from fio 3.33's terse rules
//! (stat.c show_thread_status_terse_all / show_ddir_status_terse) and checked numbers,
//! not copied from this crate's output.

mod normal_support;

use ferrio_report::model::*;
use ferrio_report::terse;
use normal_support::*;

#[test]
fn randrw_psync_line() {
    // comparable fio run: fio --name=t --ioengine=psync --rw=randrw --bs=4k --size=1M
    //   --output-format=terse (capture: golden/terse_fio333_randrw.txt)
    let mut r = randrw();
    r.version = "ferrio-0.1.0".into();
    assert_eq!(terse::render(&r), include_str!("golden/terse_randrw.txt"));
}

/// The time-based fixture plus: a description, a second (over-busy) disk, nsec buckets
/// (folded into the first usec bucket) and a read group bandwidth of 4 MB/s so that the
/// bw share is not capped at 100%.
fn timebased_desc() -> RunReport {
    let mut r = timebased();
    r.version = "ferrio-0.1.0".into();
    let j = &mut r.jobs[0];
    j.description = Some("my desc".into());
    j.lat_buckets.ns[9] = 20;
    r.groups[0].dir[DDIR_READ].agg_bw = 4_000_000;
    let mut sdb = vda(1, 2, 5, 6, 7, 130.0);
    sdb.name = "sdb".into();
    sdb.read_merges = 3;
    sdb.write_merges = 4;
    r.disk_util.push(sdb);
    r
}

#[test]
fn samples_share_description_and_disks() {
    // bw share = mean * 100 / (agg_bw / 1024) = 2002.67 * 100 / 3906 = 51.271548%;
    // the write share exceeds 100 and is capped; util 130% prints as 100.00%.
    assert_eq!(
        terse::render(&timebased_desc()),
        include_str!("golden/terse_timebased_desc.txt")
    );
}

#[test]
fn one_line_per_job_and_no_group_lines() {
    let r = two_groups();
    let out = terse::render(&r);
    assert_eq!(out.lines().count(), 2);
    assert!(out
        .lines()
        .next()
        .unwrap()
        .starts_with("3;fio-3.33;a;0;0;1024;"));
    assert!(out
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("3;fio-3.33;b;1;0;0;0;0;0;"));
    assert!(out.ends_with('\n'));
}

#[test]
fn percentiles_off_print_twenty_empty_fields() {
    let mut r = randrw();
    r.jobs[0].clat_percentiles = false;
    let out = terse::render(&r);
    assert_eq!(out.matches(";0%=0").count(), 40);
    assert!(!out.contains("1.000000%="));
}

#[test]
fn lat_percentiles_take_precedence() {
    let mut r = randrw();
    r.jobs[0].lat_percentiles = true;
    r.jobs[0].percentile_list = vec![50.0];
    let out = terse::render(&r);
    // read lat = clat + 30 ns: 55030 -> bucket 55040 -> 55 us, same bucket as clat;
    // write lat = clat + 40 ns: 3040 -> bucket 3056 -> 3 us (clat would give 2)
    let f: Vec<&str> = out.trim_end().split(';').collect();
    let p: Vec<&&str> = f.iter().filter(|x| x.starts_with("50.000000%=")).collect();
    assert_eq!(p, [&"50.000000%=55", &"50.000000%=3"]);
    assert_eq!(out.matches(";0%=0").count(), 38);
}

/// A field's shape: which printf conversion produced it.
fn shape(field: &str) -> &'static str {
    let num = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == '.');
    if let Some((p, v)) = field.split_once("%=") {
        if num(p) && num(v) {
            return "pct=val";
        }
    }
    if let Some(n) = field.strip_suffix('%') {
        if num(n) {
            return match n.split_once('.').map(|(_, d)| d.len()) {
                Some(6) => "%f%%",
                Some(2) => "%3.2f%%",
                Some(1) => "%3.1f%%",
                _ => "other%",
            };
        }
    }
    if num(field) {
        return match field.split_once('.').map(|(_, d)| d.len()) {
            None => "int",
            Some(6) => "%f",
            _ => "other-float",
        };
    }
    "text"
}

fn shapes(line: &str) -> Vec<&'static str> {
    line.trim_end().split(';').map(shape).collect()
}

#[test]
fn field_shapes_match_fio_captures() {
    // fio --name=t --ioengine=psync --rw=randrw --bs=4k --size=1M --output-format=terse
    let fio = include_str!("golden/terse_fio333_randrw.txt");
    let ours = terse::render(&randrw());
    assert_eq!(shapes(&ours), shapes(fio));
    assert_eq!(shapes(fio).len(), 130);

    // fio --name=t --ioengine=psync --rw=write --bs=4k --size=256k --minimal
    //     --description="my desc" --fsync=1
    let fio = include_str!("golden/terse_fio333_fsync_desc.txt");
    let mut r = fsync_desc();
    r.jobs[0].percentile_list = DEFAULT_PERCENTILES.to_vec();
    r.jobs[0].lat_percentiles = false;
    let ours = terse::render(&r);
    assert_eq!(shapes(&ours), shapes(fio));
    assert!(ours
        .trim_end()
        .ends_with(";vda;0;0;0;0;0;0;0;0.00%;my desc"));
    // the read direction of a write-only job: fio prints the percentile list with 0s
    assert!(fio.contains(";1.000000%=0;5.000000%=0;"));
    assert!(ours.contains(";1.000000%=0;5.000000%=0;"));
    // and the depth distribution over writes only (fsyncs not counted): 198.4%
    assert!(fio.contains(";198.4%;") && ours.contains(";198.4%;"));
}

#[test]
fn shape_classifier_distinguishes_formats() {
    assert_eq!(shape("1.000000%=55"), "pct=val");
    assert_eq!(shape("0%=0"), "pct=val");
    assert_eq!(shape("44.444444%"), "%f%%");
    assert_eq!(shape("0.78%"), "%3.2f%%");
    assert_eq!(shape("100.0%"), "%3.1f%%");
    assert_eq!(shape("67.703803"), "%f");
    assert_eq!(shape("528"), "int");
    assert_eq!(shape("vda"), "text");
}
