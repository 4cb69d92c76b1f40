//! Option-family tests: each option through the table onto a JobSpec, plus defaults
//! and cross-option validation.

use super::*;
use crate::spec::*;
use crate::values::dist::RandomDistribution;
use crate::values::size::SizeOrPercent;

mod bad_values;
mod block_sizes;
mod prio;
mod sections;

fn raw(line: &str, n: usize) -> RawOpt {
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.to_string(), Some(v.to_string())),
        None => (line.to_string(), None),
    };
    RawOpt {
        key,
        value,
        loc: Loc::File {
            path: "t.fio".into(),
            line: n + 2,
        },
    }
}

fn job_ov(lines: &[&str], ov: &Overrides) -> Result<JobSpec, ConfigError> {
    let own: Vec<RawOpt> = lines.iter().enumerate().map(|(n, l)| raw(l, n)).collect();
    let chain: Vec<Applied> = own
        .iter()
        .map(|o| Applied {
            opt: o,
            section: "j",
        })
        .collect();
    build(
        "j",
        &Loc::File {
            path: "t.fio".into(),
            line: 1,
        },
        &chain,
        &own,
        ov,
    )
}

fn job(lines: &[&str]) -> JobSpec {
    job_ov(lines, &Overrides::default()).unwrap()
}

fn bad(lines: &[&str]) -> String {
    job_ov(lines, &Overrides::default()).unwrap_err().0
}

#[test]
fn defaults_match_fio() {
    let j = job(&[]);
    assert_eq!(j.name, "j");
    assert_eq!(j.origin, "t.fio:1");
    assert_eq!(j.ioengine, "psync");
    assert_eq!(j.iodepth, 1);
    assert_eq!(
        j.rw,
        RwMode {
            kind: RwKind::Read,
            random: false,
            nr: 1,
            text: "read".into()
        }
    );
    assert_eq!(
        j.bs[0],
        BlockSize {
            min: 4096,
            max: 4096,
            split: vec![]
        }
    );
    assert_eq!(j.bs[2].max, 4096);
    assert_eq!(j.rwmixread, 50);
    assert_eq!(j.percentage_random, [100; 3]);
    assert_eq!(j.kb_base, 1024);
    assert_eq!(j.unit_base, 0);
    assert_eq!(j.randseed, 0x89);
    assert!(j.randrepeat);
    assert_eq!(j.filename_format, "$jobname.$jobnum.$filenum");
    assert_eq!((j.nrfiles, j.loops, j.numjobs), (1, 1, 1));
    assert_eq!((j.bw_avg_time_ms, j.iops_avg_time_ms), (500, 500));
    assert!(j.clat_percentiles && !j.lat_percentiles && !j.slat_percentiles);
    assert_eq!(j.percentile_list, DEFAULT_PERCENTILES.to_vec());
    assert!(j.allow_file_create && j.invalidate && !j.overwrite && j.scramble_buffers);
    assert_eq!(j.fallocate, Fallocate::Native);
    assert_eq!(j.offset, SizeOrPercent::Bytes(0));
    assert_eq!(j.size, None);
    assert_eq!(j.runtime_us, None);
    assert_eq!(j.random_distribution, RandomDistribution::Random);
    assert_eq!(j.random_generator, RandomGenerator::Tausworthe);
    assert!(j.job_options.is_empty());
}

#[test]
fn table_defaults_agree_with_spec_defaults() {
    // Every option's documented default, applied explicitly, must not change the job.
    let base = format!("{:?}", job(&[]));
    for o in crate::table::all()
        .filter(|o| o.support == crate::table::Support::Yes && !o.default.is_empty())
    {
        let line = format!("{}={}", o.name, o.default);
        let j = job_ov(&[&line], &Overrides::default()).unwrap_or_else(|e| panic!("{line}: {e}"));
        let mut j = j;
        j.job_options.clear();
        // Which buffer options (and iodepth) were given is, like job_options, a
        // record, not a value.
        (
            j.buffers.zero_set,
            j.buffers.refill_set,
            j.buffers.scramble_set,
            j.iodepth_set,
        ) = (false, false, false, false);
        (j.sprandom.generator_set, j.sprandom.norandommap_set) = (false, false);
        j.rw.text = "read".into();
        assert_eq!(
            format!("{j:?}"),
            base,
            "default of {} differs from JobSpec::with_defaults",
            o.name
        );
    }
}

#[test]
fn rw_modes() {
    let cases = [
        ("read", RwKind::Read, false),
        ("write", RwKind::Write, false),
        ("trim", RwKind::Trim, false),
        ("randread", RwKind::Read, true),
        ("randwrite", RwKind::Write, true),
        ("randtrim", RwKind::Trim, true),
        ("rw", RwKind::ReadWrite, false),
        ("readwrite", RwKind::ReadWrite, false),
        ("randrw", RwKind::ReadWrite, true),
        ("trimwrite", RwKind::TrimWrite, false),
    ];
    for (text, kind, random) in cases {
        let j = job(&[&format!("rw={text}")]);
        assert_eq!(
            j.rw,
            RwMode {
                kind,
                random,
                nr: 1,
                text: text.into()
            },
            "{text}"
        );
    }
    let j = job(&["readwrite=randread:8"]);
    assert_eq!(
        (j.rw.kind, j.rw.random, j.rw.nr, j.rw.text.as_str()),
        (RwKind::Read, true, 8, "randread:8")
    );
    assert_eq!(job(&["rw=write:4k"]).rw.nr, 4096);
    assert_eq!(job(&["rw=randread:0"]).rw.nr, 1);
    // fio's backwards-read.fio: a negative step reads backwards.
    assert_eq!(job(&["rw=read:-8k"]).rw.nr, -8192);
    assert!(bad(&["rw=randread:-8"]).contains("sequential"));
    assert!(bad(&["rw=randread:x"]).contains("bad ':N' suffix"));
    let j = job(&["rw=randtrimwrite:4"]);
    assert_eq!(
        (j.rw.kind, j.rw.random, j.rw.nr),
        (RwKind::TrimWrite, true, 4)
    );
    assert!(bad(&["rw=randreadx"]).contains("allowed: read, write"));
}

#[test]
fn rw_sequencer_and_mix() {
    assert_eq!(
        job(&["rw_sequencer=identical"]).rw_sequencer,
        RwSequencer::Identical
    );
    assert_eq!(job(&["rwmixread=70"]).rwmixread, 70);
    assert_eq!(job(&["rwmixwrite=30"]).rwmixread, 70);
    // The later of the two wins (fio's rule).
    assert_eq!(job(&["rwmixread=10", "rwmixwrite=30"]).rwmixread, 70);
    assert_eq!(job(&["rwmixwrite=30", "rwmixread=10"]).rwmixread, 10);
    assert_eq!(bad(&["rwmixread=101"]), "job 'j': bad value '101' for option 'rwmixread' (at t.fio:2): 101 is out of range; allowed: 0..100");
    assert!(bad(&["rw_sequencer=random"]).contains("allowed: sequential, identical"));
}

#[test]
fn kb_base_applies_to_every_size_in_the_job() {
    // kb_base is found first, so an earlier bs uses it too (fio gives kb_base priority).
    let j = job(&["bs=4k", "size=1m", "kb_base=1000"]);
    assert_eq!(j.bs[0].min, 4000);
    assert_eq!(j.size, Some(SizeOrPercent::Bytes(1_000_000)));
    assert_eq!(j.kb_base, 1000);
    let j = job(&["kb_base=1000", "bs=4KiB"]);
    assert_eq!(j.bs[0].min, 4096);
    assert!(bad(&["kb_base=1001"]).contains("allowed: 1024, 1000"));
}

#[test]
fn files_and_sizes() {
    let j = job(&[
        "filename=/dev/sda:/dev/sdb",
        "directory=/mnt",
        "nrfiles=4",
        "size=50%",
        "filesize=1m-2m",
        "io_limit=10m",
        "offset=25%",
        "offset_increment=1g",
        "number_ios=100",
        "fill_fs=1",
    ]);
    assert_eq!(j.filenames, vec!["/dev/sda", "/dev/sdb"]);
    assert_eq!(j.directory, Some("/mnt".into()));
    assert_eq!(j.nrfiles, 4);
    assert_eq!(j.size, Some(SizeOrPercent::Percent(50.0)));
    assert_eq!(j.filesize, Some((1 << 20, 2 << 20)));
    assert_eq!(j.io_size, Some(10 << 20));
    assert_eq!(j.offset, SizeOrPercent::Percent(25.0));
    assert_eq!(j.offset_increment, 1 << 30);
    assert_eq!(j.number_ios, Some(100));
    assert!(j.fill_device);
    assert_eq!(job(&["filename=a\\:b"]).filenames, vec!["a:b"]);
    assert_eq!(job(&["filesize=4k"]).filesize, Some((4096, 4096)));
    assert_eq!(job(&["size=1m", "size=0"]).size, None);
    assert_eq!(job(&["io_size=0"]).io_size, None);
    assert_eq!(
        job(&["size=(1024*1024)"]).size,
        Some(SizeOrPercent::Bytes(1 << 20))
    );
    assert!(bad(&["nrfiles=0"]).contains("allowed: 1 or more"));
    let j = job(&["directory=a:b\\:c:d"]);
    assert_eq!(j.directory, Some("a".into()));
    assert_eq!(
        j.directories,
        vec![std::path::PathBuf::from("a"), "b:c".into(), "d".into()]
    );
    assert!(job(&["directory=a"]).directories.is_empty());
    assert!(bad(&["directory=:"]).contains("empty directory"));
    assert!(bad(&["size=1.5g"]).contains("fractional"));
    assert!(bad(&["size=4q"]).contains("malformed size '4q'"));
    assert!(bad(&["filesize=0"]).contains("> 0"));
}

#[test]
fn file_handling_booleans() {
    let j = job(&[
        "direct=1",
        "sync=1",
        "fsync=8",
        "fdatasync=4",
        "end_fsync=1",
        "fsync_on_close=1",
        "create_on_open=1",
        "create_only=0",
        "allow_file_create=0",
        "overwrite=1",
        "unlink=1",
        "invalidate=0",
    ]);
    assert!(
        j.direct && j.sync && j.end_fsync && j.fsync_on_close && j.create_on_open && !j.create_only
    );
    assert!(job(&["create_only=1"]).create_only);
    assert!(bad(&["create_only=maybe"]).contains("malformed boolean 'maybe'"));
    assert!(!j.allow_file_create && j.overwrite && j.unlink && !j.invalidate);
    assert_eq!((j.fsync, j.fdatasync), (8, 4));
    assert!(!job(&["direct=1", "buffered=1"]).direct);
    assert!(job(&["buffered=0"]).direct);
    assert!(!job(&["sync=none"]).sync);
    assert!(job(&["sync=sync"]).sync && !job(&["sync=1"]).dsync);
    let j = job(&["sync=dsync"]);
    assert!(j.sync && j.dsync);
    let j = job(&["sync=dsync", "sync=0"]);
    assert!(!j.sync && !j.dsync);
    assert!(bad(&["sync=osync"]).contains("allowed: none, sync, dsync, 0, 1"));
    assert_eq!(job(&["fallocate=none"]).fallocate, Fallocate::None);
    assert_eq!(job(&["fallocate=posix"]).fallocate, Fallocate::Posix);
    assert_eq!(job(&["fallocate=keep"]).fallocate, Fallocate::Keep);
    assert_eq!(job(&["fallocate=truncate"]).fallocate, Fallocate::Truncate);
    assert_eq!(job(&["fallocate=0"]).fallocate, Fallocate::None);
    // Plain booleans need a value and only take 0/1 (fio 3.33).
    assert_eq!(
        bad(&["direct"]),
        "job 'j': option 'direct' needs a value (at t.fio:2); expected boolean (opt=1 or opt=0)"
    );
    assert!(bad(&["direct=2"]).contains("out of range"));
    assert!(bad(&["direct=true"]).contains("malformed boolean"));
}

#[test]
fn engine() {
    for e in [
        "null", "sync", "psync", "vsync", "pvsync", "pvsync2", "io_uring", "libaio", "mmap",
    ] {
        assert_eq!(job(&[&format!("ioengine={e}")]).ioengine, e);
    }
    // An engine ferrio cannot run parses (--parse-only accepts it, as fio does);
    // the job carries the reason a run refuses it with.
    let sg = job(&["ioengine=sg"]);
    assert_eq!(sg.ioengine, "sg");
    let e = sg.foreign.refusal().unwrap();
    assert!(
        e.contains("I/O engine 'sg' is not supported by ferrio yet: it sends SCSI commands"),
        "{e}"
    );
    assert_eq!(
        job(&["ioengine=sg", "ioengine=psync"]).foreign.refusal(),
        None
    );
    let e = bad(&["ioengine=bogus"]);
    assert!(
        e.contains("allowed: psync, sync, vsync, pvsync, pvsync2, null"),
        "{e}"
    );
    for name in ["io_uring", "libaio", "mmap"] {
        assert!(e.contains(name), "{e}");
    }
    assert_eq!(job(&["iodepth=32"]).iodepth, 32);
    assert!(bad(&["iodepth=0"]).contains("allowed: 1 or more"));
    assert_eq!(job(&["iodepth=70000"]).iodepth, 70000);
    assert!(job(&["ioengine=pvsync2", "hipri"]).hipri);
    assert!(bad(&["hipri"]).contains("needs ioengine=pvsync2 or io_uring"));
    assert!(job(&["ioengine=io_uring", "hipri"]).hipri);
    assert!(bad(&["clocksource=virtual"]).contains("needs ioengine=sim"));
    assert_eq!(
        job(&["ioengine=sim", "clocksource=virtual"]).clocksource,
        Some(crate::spec::ClockSource::Virtual)
    );
    assert!(
        job(&["threads=1"]).thread,
        "fio accepts 'threads' for 'thread'"
    );
}

#[test]
fn jobs_and_groups() {
    let j = job(&[
        "numjobs=4",
        "thread",
        "group_reporting",
        "wait_for_previous",
        "new_group",
        "wait_for=other",
        "exitall",
    ]);
    assert_eq!(j.numjobs, 4);
    assert!(j.thread && j.group_reporting && j.stonewall && j.new_group && j.exitall);
    assert_eq!(j.wait_for.as_deref(), Some("other"));
    assert!(!job(&["thread=0"]).thread);
    // Flags accept any integer, like fio's "set" options.
    assert!(job(&["time_based=2", "runtime=1"]).time_based);
    // Without a runtime, fio warns and runs size-based.
    let j = job(&["time_based"]);
    assert!(!j.time_based);
    assert!(j.warnings[0].contains("runtime"), "{:?}", j.warnings);
    assert!(bad(&["numjobs=0"]).contains("allowed: 1..4096"));
}

#[test]
fn times() {
    let j = job(&[
        "time_based",
        "runtime=10",
        "ramp_time=500ms",
        "startdelay=1-5",
        "loops=3",
    ]);
    assert!(j.time_based);
    assert_eq!(j.runtime_us, Some(10_000_000));
    assert_eq!(j.ramp_time_us, 500_000);
    assert_eq!(j.startdelay_us, (1_000_000, 5_000_000));
    assert_eq!(j.loops, 3);
    assert_eq!(job(&["timeout=1m"]).runtime_us, Some(60_000_000));
    assert_eq!(job(&["runtime=10", "runtime=0"]).runtime_us, None);
    assert_eq!(
        job(&["startdelay=2s"]).startdelay_us,
        (2_000_000, 2_000_000)
    );
    assert!(bad(&["runtime=1.5"]).contains("malformed time"));
    assert_eq!(job(&["loops=0"]).loops, 1);
}

#[test]
fn randomness() {
    let j = job(&[
        "randrepeat=0",
        "randseed=1234",
        "norandommap",
        "random_generator=lfsr",
        "random_distribution=zipf:1.2",
        "percentage_random=50,10",
    ]);
    // fio seeds from a given randseed even with randrepeat=0: the run repeats (the plan
    // seeds from randseed when randrepeat or randseed_set holds).
    assert!(!j.randrepeat && j.randseed_set && j.norandommap);
    assert!(!job(&["randrepeat=0"]).randseed_set);
    assert_eq!(j.randseed, 1234);
    assert_eq!(j.random_generator, RandomGenerator::Lfsr);
    assert_eq!(
        j.random_distribution,
        RandomDistribution::Zipf {
            theta: 1.2,
            center: None
        }
    );
    assert_eq!(j.percentage_random, [50, 10, 10]);
    assert_eq!(
        job(&["random_generator=tausworthe64"]).random_generator,
        RandomGenerator::Tausworthe64
    );
    assert!(bad(&["percentage_random=101"]).contains("out of range"));
    assert!(bad(&["random_distribution=zipf:1"]).contains("not 1.0"));
    assert!(bad(&["random_generator=xorshift"]).contains("allowed: tausworthe, lfsr, tausworthe64"));
}

#[test]
fn buffers() {
    let j = job(&[
        "buffer_pattern=0xdeadbeef",
        "zero_buffers",
        "refill_buffers",
        "scramble_buffers=0",
    ]);
    assert!(j.zero_buffers && j.refill_buffers && !j.scramble_buffers);
    assert_eq!(j.buffer_pattern, Some(vec![0xde, 0xad, 0xbe, 0xef]));
    // As fio's option callback: a pattern turns zeroing and scrambling off, and
    // refilling on only when the job reads (as far as the options so far say).
    let j = job(&["zero_buffers", "rw=write", "buffer_pattern=0xdeadbeef"]);
    assert!(!j.zero_buffers && !j.refill_buffers && !j.scramble_buffers);
    let j = job(&[
        "rw=randrw",
        "buffer_pattern=0xdeadbeef",
        "scramble_buffers=1",
    ]);
    assert!(j.refill_buffers && j.scramble_buffers && j.buffers.scramble_set);
    let j = job(&[
        "buffer_compress_percentage=40",
        "buffer_compress_chunk=4k",
        "dedupe_percentage=10",
    ]);
    assert_eq!(
        (j.buffers.compress_percentage, j.buffers.compress_chunk),
        (40, 4096)
    );
    assert!(j.buffers.compress_given && j.refill_buffers && !j.buffers.refill_set);
    assert_eq!(
        job(&["buffer_pattern=\"ab\""]).buffer_pattern,
        Some(b"ab".to_vec())
    );
    // A pattern file that cannot be read is named in the error.
    assert!(bad(&["buffer_pattern='/nonexistent/p'"]).contains("cannot read pattern file"));
    assert!(bad(&["buffer_pattern=%o"]).contains("not supported"));
}

#[test]
fn statistics() {
    let j = job(&[
        "percentile_list=99:50:99.99",
        "lat_percentiles=1",
        "slat_percentiles=1",
        "clat_percentiles=0",
        "bwavgtime=1000",
        "iopsavgtime=2s",
        "unit_base=8",
        "clocksource=clock_gettime",
    ]);
    assert_eq!(j.percentile_list, vec![99.0, 50.0, 99.99]);
    assert!(j.lat_percentiles && j.slat_percentiles && !j.clat_percentiles);
    assert_eq!((j.bw_avg_time_ms, j.iops_avg_time_ms), (1000, 2000));
    assert_eq!(j.unit_base, 8);
    assert_eq!(j.clocksource, Some(crate::spec::ClockSource::ClockGettime));
    let j = job(&["disable_lat=1", "disable_clat=1", "disable_slat=1"]);
    assert!(j.disable_lat && j.disable_clat && j.disable_slat && !j.gtod_reduce);
    let j = job(&["gtod_reduce=1"]);
    assert!(
        j.gtod_reduce && j.disable_lat && j.disable_clat && j.disable_slat && !j.clat_percentiles
    );
    // A later explicit setting wins; gtod_reduce=0 leaves the others alone (fio).
    assert!(job(&["gtod_reduce=1", "clat_percentiles=1"]).clat_percentiles);
    let j = job(&["disable_clat=1", "lat_percentiles=1", "gtod_reduce=0"]);
    assert!(j.disable_clat && j.lat_percentiles && !j.gtod_reduce);
    assert_eq!(
        job(&["percentile_list=0:100"]).percentile_list,
        vec![0.0, 100.0]
    );
    assert!(
        bad(&["percentile_list=-1"]).contains("out of range")
            || bad(&["percentile_list=-1"]).contains("malformed")
    );
    assert!(bad(&["percentile_list=101"]).contains("out of range"));
    let many = format!(
        "percentile_list={}",
        (1..=21)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(":")
    );
    assert!(bad(&[&many]).contains("at most 20"));
    assert!(bad(&["bwavgtime=0"]).contains("at least 1"));
    assert!(bad(&["unit_base=2"]).contains("allowed: 0, 8, 1"));
    assert!(bad(&["clocksource=tsc"]).contains("allowed: cpu, clock_gettime, gettimeofday"));
    assert_eq!(job(&[]).sig_figs, 4);
    assert_eq!(job(&["significant_figures=10"]).sig_figs, 10);
    assert!(bad(&["significant_figures=0"]).contains("significant_figures"));
    assert!(bad(&["significant_figures=11"]).contains("significant_figures"));
}

#[test]
fn sync_file_range_flags_and_count() {
    assert_eq!(job(&[]).sync_file_range, None);
    // fio's SYNC_FILE_RANGE_* bits; N defaults to 1
    assert_eq!(
        job(&["sync_file_range=write"]).sync_file_range,
        Some((2, 1))
    );
    assert_eq!(
        job(&["sync_file_range=wait_before,write,wait_after:8"]).sync_file_range,
        Some((7, 8))
    );
    assert_eq!(
        job(&["sync_file_range=wait_after:3"]).sync_file_range,
        Some((4, 3))
    );
    assert!(bad(&["sync_file_range=foo:4"]).contains("allowed: wait_before, write, wait_after"));
    assert!(bad(&["sync_file_range=write:x"]).contains("not a number"));
}

#[test]
fn placement() {
    let j = job(&["cpus_allowed=0-3,5", "nice=-5"]);
    assert_eq!(j.cpus_allowed, Some(vec![0, 1, 2, 3, 5]));
    assert_eq!(j.nice, -5);
    assert!(bad(&["nice=20"]).contains("out of range"));
    assert!(bad(&["cpus_allowed=3-1"]).contains("start > end"));
}

#[test]
fn description_and_name() {
    let j = job(&["description=hello world", "name=renamed"]);
    assert_eq!(j.description.as_deref(), Some("hello world"));
    assert_eq!(j.name, "renamed");
}

#[test]
fn readonly() {
    assert!(job(&["readonly", "rw=read"]).readonly);
    let e = bad(&["readonly", "rw=randwrite"]);
    assert_eq!(e, "job 'j': rw=randwrite writes or trims, but read-only mode is on (--readonly or readonly=1) (at t.fio:1)");
    let e = job_ov(
        &["rw=trim"],
        &Overrides {
            readonly: true,
            ..Default::default()
        },
    )
    .unwrap_err()
    .0;
    assert!(e.contains("read-only"), "{e}");
    assert!(
        job_ov(
            &["rw=randread"],
            &Overrides {
                readonly: true,
                ..Default::default()
            }
        )
        .unwrap()
        .readonly
    );
}

#[test]
fn options_fio_removed_are_errors_that_say_so() {
    // fio 3.33 fails with "failed parsing rwmixcycle=10" (FIO_OPT_DEPRECATED).
    for (o, instead) in [
        ("rwmixcycle=10", "rwmixread"),
        ("percentage_sequential=30", "percentage_random"),
    ] {
        let e = bad(&[o]);
        let name = o.split('=').next().unwrap();
        assert!(
            e.contains(&format!("option {name} was removed from fio")) && e.contains(instead),
            "{e}"
        );
        assert!(e.contains("(at t.fio:2)"), "{e}");
    }
}

#[test]
fn fio_3_42_options_are_applied_checked_or_refused() {
    assert_eq!(job(&["ramp_size=4M"]).ramp_size, 4 << 20);
    assert!(bad(&["ramp_size=0"]).contains("ramp_size"));
    assert!(bad(&["ramp_size=4k", "ramp_time=1"]).contains("cannot both be given"));
    assert_eq!(job(&["comm=w1"]).comm.as_deref(), Some("w1"));
    assert!(job(&[]).comm.is_none());
    assert!(bad(&["comm="]).contains("a thread name must be non-empty"));
    assert!(bad(&["ioengine=libaio", "libaio_vectored=2"]).contains("libaio_vectored"));
    assert!(
        job(&["ioengine=libaio", "libaio_vectored=1"])
            .engine
            .libaio_vectored
    );
    // Accepted and checked (they change nothing ferrio measures or reports).
    job(&["filetype=block", "job_start_clock_id=1"]);
    assert!(bad(&["filetype=pipe"]).contains("allowed: none, file, block, char"));
    assert!(bad(&["job_start_clock_id=x"]).contains("job_start_clock_id"));
    // zbd options whose non-default ferrio does not do are refused, not ignored.
    job(&["recover_zbd_write_error=0", "write_zone_remainder=0"]);
    for o in ["recover_zbd_write_error=1", "write_zone_remainder=1"] {
        assert!(bad(&[o]).contains("is not supported by ferrio yet"), "{o}");
    }
}

#[test]
fn unknown_unsupported_and_noop() {
    assert_eq!(
        bad(&["iodepht=4"]),
        "job 'j': unknown option 'iodepht' (at t.fio:2); did you mean 'iodepth'?"
    );
    let j = job(&["cgroup=/fio/a", "cgroup_weight=200", "cgroup_nodelete=1"]);
    assert_eq!(
        (j.cgroup.name.as_deref(), j.cgroup.weight, j.cgroup.nodelete),
        (Some("fio/a"), 200, true)
    );
    assert_eq!(job(&["cgroup_weight=100"]).cgroup.target("j"), Some("j"));
    assert_eq!(job(&[]).cgroup.target("j"), None);
    assert!(job(&["profile=tiobench"]).job_options.len() == 1);
    assert_eq!(job(&["profile=tiobench"]).compat.act_report, None);
    assert_eq!(job(&["profile=act"]).compat.act_report, Some(0));
    assert_eq!(job(&[]).compat.act_report, None);
    assert!(bad(&["profile=acts"]).contains("act"));
    let j = job(&["verify_state_load=1", "verify_state_save=0"]);
    assert!(j.verify.state_load && !j.verify.state_save);
    assert!(bad(&["create_serialize=maybe"]).contains("malformed boolean"));
    let j = job(&[
        "merge_blktrace_file=m.bin",
        "merge_blktrace_scalars=50:100.7",
        "merge_blktrace_iters=2:1",
    ]);
    assert_eq!(j.logs.merge.file.as_deref(), Some("m.bin"));
    assert_eq!(
        (j.logs.merge.scalars.clone(), j.logs.merge.iters.clone()),
        (vec![50, 100], vec![2, 1])
    );
    assert!(!job(&["disk_util=0"]).disk_util);
    let j = job(&["create_serialize=0", "unique_filename=0"]);
    assert_eq!(j.job_options.len(), 2);
    assert!(!j.local.create_serialize && !j.local.unique_filename);
    let d = job(&[]);
    assert!(d.local.create_serialize && d.local.unique_filename);
    assert!(bad(&["zonemode=zbd", "zonesize=1m", "create_serialize=0"])
        .contains("zonemode=zbd and create_serialize=0 are not compatible"));
}

#[test]
fn job_options_as_given() {
    let j = job(&["rw=randread", "time_based", "bs=4k", "bs=8k"]);
    let want: Vec<(String, String)> = [("rw", "randread"), ("bs", "4k"), ("bs", "8k")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(j.job_options, want);
}

proptest::proptest! {
    #[test]
    fn any_option_with_any_value_never_panics(idx in 0usize..500, value in proptest::option::of("[-a-z0-9:,/%.()*+\"x ]{0,16}")) {
        let names: Vec<&str> = crate::table::all().map(|o| o.name).collect();
        let name = names[idx % names.len()];
        let line = match &value {
            Some(v) => format!("{name}={v}"),
            None => name.to_string(),
        };
        if let Err(e) = job_ov(&[&line], &Overrides::default()) {
            // Every error names the job, the option and where it came from.
            proptest::prop_assert!(e.0.starts_with("job 'j': "), "{}", e.0);
            proptest::prop_assert!(e.0.contains(name), "{}", e.0);
            proptest::prop_assert!(e.0.contains("t.fio:"), "{}", e.0);
        }
    }
}

#[test]
fn pacing_options() {
    let j = job(&[
        "rate=1m,500k",
        "rate_min=,100k",
        "thinktime=2ms",
        "thinktime_blocks_type=issue",
    ]);
    assert_eq!(j.pacing.rate, [1 << 20, 500 << 10, 500 << 10]);
    assert_eq!(j.pacing.rate_min, [0, 100 << 10, 100 << 10]);
    assert_eq!(j.pacing.thinktime_us, 2000);
    assert_eq!(j.pacing.thinktime_blocks, 1);
    assert_eq!(j.pacing.blocks_type, crate::ext::pacing::ThinkBlocks::Issue);
    let j = job(&["rate_iops=,300", "ratecycle=500", "rate_process=poisson"]);
    assert_eq!(j.pacing.rate_iops, [0, 300, 300]);
    assert_eq!(j.pacing.cycle_ms, 500);
    assert_eq!(j.pacing.process, crate::ext::pacing::RateProcess::Poisson);
    // rate=,500k paces writes only; rate=500k, reads only (fio's HOWTO).
    assert_eq!(job(&["rate=500k,"]).pacing.rate, [500 << 10, 0, 0]);
    // fio's cross-option rules.
    assert_eq!(
        bad(&["rate=1m", "rate_min=2m"]),
        "job 'j': minimum rate exceeds rate for read (rate_min=2097152 > rate=1048576) (at t.fio:1)"
    );
    assert!(bad(&["rate_iops=100", "rate_iops_min=200"]).contains("minimum rate exceeds rate"));
    assert!(bad(&["rate=1m", "rate_iops=100"]).contains("mutually exclusive"));
    let e = bad(&["rate_process=bursty"]);
    assert!(
        e.contains("rate_process") && e.contains("linear, poisson"),
        "{e}"
    );
    let e = bad(&["thinktime_blocks_type=both"]);
    assert!(e.contains("complete, issue"), "{e}");
}

#[test]
fn dropin_options_reach_the_spec() {
    let d = job(&[]).dropin;
    assert!(d.stats && !d.file_append && !d.unlink_each_loop && !d.disable_bw);
    assert_eq!((d.lockmem, d.uid, d.gid), (0, None, None));
    let j = job(&[
        "file_append=1",
        "unlink_each_loop=1",
        "stats=0",
        "disable_bw=1",
        "lockmem=2m",
        "uid=65534",
        "gid=65534",
        "cpumask=34",
        "io_submit_mode=inline",
        "write_barrier=8",
        "log_entries=4096",
    ]);
    let d = &j.dropin;
    assert!(!d.stats && d.file_append && d.unlink_each_loop && d.disable_bw);
    assert_eq!(
        (d.lockmem, d.uid, d.gid),
        (2 << 20, Some(65534), Some(65534))
    );
    assert_eq!(j.cpus_allowed, Some(vec![1, 5]));
    assert!(job(&["disable_bw_measurement=1"]).dropin.disable_bw);
    assert!(bad(&["io_submit_mode=threads"]).contains("io_submit_mode"));
    assert!(bad(&["log_entries=10"]).contains("out of range"));
    assert!(bad(&["cpumask=0"]).contains("no CPU"));
    assert!(bad(&["uid=x"]).contains("'uid'"));
}

#[test]
fn unlink_each_loop_is_refused_with_engines_that_hold_the_files() {
    assert!(bad(&["unlink_each_loop=1", "ioengine=mmap"]).contains("unlink_each_loop=1"));
    let e = bad(&["unlink_each_loop=1", "ioengine=io_uring", "registerfiles=1"]);
    assert!(e.contains("registerfiles"), "{e}");
    assert!(
        job(&["unlink_each_loop=1", "ioengine=io_uring"])
            .dropin
            .unlink_each_loop
    );
    assert!(
        job(&["unlink_each_loop=1", "ioengine=psync"])
            .dropin
            .unlink_each_loop
    );
}
