//! The profiles' jobs, options and refusals.

use super::super::tests::{err, inv, run};
use super::*;
use crate::cli::Command;
use crate::values::size::SizeOrPercent;
use crate::RwKind;

fn flat(args: &[&str]) -> Vec<String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut p = scan(&args).unwrap();
    for a in &args {
        if let Some((k, v)) = a.trim_start_matches('-').split_once('=') {
            if p.owns(k) {
                p.opts.push((k.to_string(), Some(v.to_string())));
            }
        } else if a == "--prep" {
            p.opts.push(("prep".into(), None));
        }
    }
    options(&p)
        .unwrap()
        .into_iter()
        .map(|(k, v)| v.map_or(k.clone(), |v| format!("{k}={v}")))
        .collect()
}

#[test]
fn tiobench_is_fios_four_stonewalled_jobs() {
    assert_eq!(
        flat(&["--profile=tiobench"]).join(" "),
        "buffered=0 size=4*1024*$mb_memory bs=4096 loops=1 directory=./ numjobs=1 runtime=600 group_reporting thread overwrite=1 filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4 ioengine=sync \
name=seqwrite rw=write end_fsync=1 name=randwrite stonewall rw=randwrite end_fsync=1 name=seqread stonewall rw=read name=randread stonewall rw=randread"
    );
    // Its options, which fio 3.33 loses, apply here.
    let i = inv(
        &[
            "--profile=tiobench",
            "--size=2",
            "--dir=/tmp/tio",
            "--block=8192",
            "--numruns=3",
            "--threads=2",
        ],
        &[],
    );
    let names: Vec<&str> = i.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["seqwrite", "randwrite", "seqread", "randread"]);
    let kinds: Vec<(RwKind, bool)> = i.jobs.iter().map(|j| (j.rw.kind, j.rw.random)).collect();
    assert_eq!(
        kinds,
        [
            (RwKind::Write, false),
            (RwKind::Write, true),
            (RwKind::Read, false),
            (RwKind::Read, true)
        ]
    );
    for (n, j) in i.jobs.iter().enumerate() {
        assert_eq!(j.size, Some(SizeOrPercent::Bytes(2 << 20)));
        assert_eq!(j.bs[0].min, 8192);
        assert_eq!((j.loops, j.numjobs), (3, 2));
        assert_eq!(
            j.directory.as_deref(),
            Some(std::path::Path::new("/tmp/tio"))
        );
        assert_eq!(j.filenames.len(), 4);
        assert!(j.direct && j.group_reporting, "buffered=0");
        assert_eq!((j.stonewall, j.end_fsync), (n > 0, n < 2));
        assert_eq!(j.runtime_us, Some(600_000_000));
    }
    // The default size is 4 KiB per MiB of memory (the tests' keywords: 1024 MiB).
    let i = inv(&["-p", "tiobench"], &[]);
    assert_eq!(i.jobs[0].size, Some(SizeOrPercent::Bytes(4 * 1024 * 1024)));
}

#[test]
fn act_writes_a_read_and_a_write_job_per_device() {
    assert_eq!(
        flat(&["--profile=act", "--device-names=/dev/a,/dev/b", "--test-duration=2h"]).join(" "),
        "direct=1 ioengine=sync random_generator=lfsr group_reporting=1 thread \
runtime=7200s time_based=1 name=act-read-/dev/a filename=/dev/a rw=randread numjobs=8 rate_iops=250 bs=1536 \
name=act-write-/dev/a filename=/dev/a rw=randwrite rate_iops=12 bs=131072 \
runtime=7200s time_based=1 name=act-read-/dev/b filename=/dev/b rw=randread numjobs=8 rate_iops=250 bs=1536 \
name=act-write-/dev/b filename=/dev/b rw=randwrite rate_iops=12 bs=131072"
    );
    let v = flat(&[
        "-pact",
        "--device-names=d",
        "--load=3",
        "--threads-per-queue=4",
        "--read-req-num-512-blocks=8",
        "--large-block-op-kbytes=65536",
    ]);
    // Reads: 3 * 2000 / 4 per thread, 4 KiB; writes: 3000 over 65536 / 4096 per write.
    assert!(v.join(" ").contains("numjobs=4 rate_iops=1500 bs=4096 name=act-write-d filename=d rw=randwrite rate_iops=188 bs=65536"), "{v:?}");
    assert_eq!(
        flat(&["--profile=act", "--device-names=d", "--prep"]).join(" "),
        "direct=1 ioengine=sync random_generator=lfsr group_reporting=1 thread \
name=act-prep-zeroes-d filename=d bs=1048576 zero_buffers rw=write \
name=act-prep-salt-d stonewall filename=d bs=4096 ioengine=libaio iodepth=64 rw=randwrite"
    );
    let i = inv(
        &[
            "--profile=act",
            "--device-names=/tmp/x",
            "--test-duration=90",
        ],
        &[],
    );
    assert_eq!(i.jobs.len(), 2);
    assert_eq!(
        (i.jobs[0].numjobs, i.jobs[0].runtime_us),
        (8, Some(90_000_000))
    );
    assert!(i.jobs.iter().all(|j| j.direct && j.time_based));
    // Every job of the run gets ACT's report, with the slices (hours) the
    // duration spans; not in the prep phase, nor with another profile.
    assert!(i.jobs.iter().all(|j| j.compat.act_report == Some(1)));
    let slices = |args: &[&str]| -> Vec<Option<u32>> {
        let i = inv(&[&["--name=mine", "--rw=read"], args].concat(), &[]);
        i.jobs.iter().map(|j| j.compat.act_report).collect()
    };
    let act = ["--profile=act", "--device-names=x"];
    assert_eq!(
        slices(&[&act[..], &["--test-duration=3601"]].concat()),
        [Some(2); 3]
    );
    assert_eq!(slices(&act), [Some(24); 3]);
    assert_eq!(slices(&[&act[..], &["--prep"]].concat()), [None; 3]);
    assert_eq!(slices(&["--profile=tiobench"]), [None; 5]);
}

#[test]
fn profiles_are_found_anywhere_and_checked() {
    // Options before --profile count too; the profile's jobs follow the line's own.
    // With tiobench, --size is its size in MiB.
    let i = inv(
        &[
            "--dir=/d",
            "--name=mine",
            "--rw=read",
            "--size=1",
            "--profile",
            "tiobench",
        ],
        &[],
    );
    assert_eq!((i.jobs[0].name.as_str(), i.jobs[0].size), ("mine", None));
    assert_eq!(
        i.jobs[1].directory.as_deref(),
        Some(std::path::Path::new("/d"))
    );
    assert_eq!(i.jobs[1].size, Some(SizeOrPercent::Bytes(1 << 20)));
    assert!(err(&["--profile=bogus"], &[])
        .contains("profile 'bogus' not found (at command line); allowed: tiobench, act"));
    assert!(err(&["--profile=act"], &[]).contains("device-names"));
    let e = err(&["--profile=tiobench", "--threads=0"], &[]);
    assert!(
        e.contains("bad value '0' for profile option '--threads'") && e.contains("at least 1"),
        "{e}"
    );
    let e = err(
        &["--profile=act", "--device-names=a", "--test-duration=soon"],
        &[],
    );
    assert!(e.contains("'--test-duration'"), "{e}");
    // Without a profile, --numruns is nobody's option; -parse-only is no profile.
    assert!(err(&["--name=j", "--numruns=1"], &[]).contains("unknown option '--numruns'"));
    assert!(scan(&["-parse-only".to_string()]).unwrap().def.is_none());
    // --showcmd prints the jobs; --cmdhelp the profile's options.
    match run(&["--profile=tiobench", "--showcmd"], &[]) {
        Ok(Command::Print(s)) => assert_eq!(
            s,
            "ferrio --name=global --buffered=0 --size=4194304 --bs=4096 --loops=1 --directory=./ --numjobs=1 --runtime=600 --group_reporting --thread --overwrite=1 --filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4 --ioengine=sync \
--name=seqwrite --rw=write --end_fsync=1 --name=randwrite --stonewall --rw=randwrite --end_fsync=1 --name=seqread --stonewall --rw=read --name=randread --stonewall --rw=randread\n"
        ),
        other => panic!("{other:?}"),
    }
    match run(&["--profile=act", "--cmdhelp"], &[]) {
        Ok(Command::Print(s)) => {
            assert!(s.contains("device-names") && s.contains("threads-per-queue"))
        }
        other => panic!("{other:?}"),
    }
}
