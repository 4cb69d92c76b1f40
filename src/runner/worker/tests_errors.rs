//! The error policy in the loop (continue_on_error, ignore_error, fill_device's
//! ENOSPC) through the scripted engine: which errors stop the job, what is counted
//! (total, first error, failed I/Os as issued), with synchronous and asynchronous
//! engines.

use super::scripted::{Outcome, Script, Step};
use super::tests::{queued_offsets, run, K4};

/// Error policy: a sync script where queue calls number `at` (0-based) fail with
/// `errno`, every other I/O is whole.
fn failing_at(at: &[usize], errno: i32) -> Script {
    let steps: Vec<Step> = (0..=at.iter().copied().max().unwrap_or(0))
        .map(|i| {
            let o = if at.contains(&i) {
                Outcome::Errno(errno)
            } else {
                Outcome::Full
            };
            Step::Now(100, o)
        })
        .collect();
    Script::sync(100).first(&steps)
}

#[test]
fn continue_on_error_counts_non_fatal_errors_and_goes_on() {
    let o = run(
        "rw=read\nbs=4k\nsize=64k\ncontinue_on_error=all",
        failing_at(&[1, 3], libc::EIO),
        0,
    );
    assert!(o.result.error.is_none(), "{:?}", o.result.error);
    assert_eq!(
        (o.result.stats.errors.total, o.result.stats.errors.first),
        (2, libc::EIO)
    );
    let d = &o.result.stats.dir[0];
    // Every I/O of the pass was issued; the failed ones moved no bytes.
    assert_eq!(queued_offsets(&o.calls).len(), 16);
    assert_eq!((d.total_ios, d.failed_ios, d.io_bytes), (14, 2, 14 * K4));
}

#[test]
fn continue_on_error_types_decide_which_direction_goes_on() {
    // (continue_on_error, a read's EIO goes on, a write's EIO goes on)
    let cases = [
        ("none", false, false),
        ("0", false, false),
        ("read", true, false),
        ("write", false, true),
        ("io", true, true),
        ("verify", false, false),
        ("all", true, true),
        ("1", true, true),
    ];
    for (coe, read_on, write_on) in cases {
        for (rw, d, goes_on) in [("read", 0, read_on), ("write", 1, write_on)] {
            let opts = format!("rw={rw}\nbs=4k\nsize=64k\ncontinue_on_error={coe}");
            let o = run(&opts, failing_at(&[2], libc::EIO), 0);
            let s = &o.result.stats.dir[d];
            let what = format!("continue_on_error={coe} rw={rw}");
            if goes_on {
                assert!(o.result.error.is_none(), "{what}");
                assert_eq!((s.total_ios, s.failed_ios), (15, 1), "{what}");
                assert_eq!(
                    (o.result.stats.errors.total, o.result.stats.errors.first),
                    (1, 5),
                    "{what}"
                );
            } else {
                assert_eq!(o.result.error.as_ref().map(|e| e.0), Some(5), "{what}");
                assert_eq!((s.total_ios, s.failed_ios), (2, 1), "{what}");
                // Not counted: continue_on_error does not cover the type.
                assert_eq!(o.result.stats.errors.total, 0, "{what}");
            }
        }
    }
}

#[test]
fn an_error_outside_the_ignore_list_stops_the_job_and_is_counted() {
    // continue_on_error=write ignores EIO only: ENOSPC stops the job, counted (fio's
    // break_on_this_error counts a fatal error of a covered type).
    let o = run(
        "rw=write\nbs=4k\nsize=64k\ncontinue_on_error=write",
        failing_at(&[1, 4], libc::ENOSPC),
        0,
    );
    assert_eq!(o.result.error.as_ref().map(|e| e.0), Some(libc::ENOSPC));
    assert_eq!(
        (o.result.stats.errors.total, o.result.stats.errors.first),
        (1, 28)
    );
    assert_eq!(o.result.stats.dir[1].total_ios, 1);
    assert_eq!(queued_offsets(&o.calls).len(), 2);
}

#[test]
fn ignore_error_lists_replace_the_default_and_turn_continuing_on() {
    // A write list: ENOSPC goes on (no continue_on_error needed) ...
    let o = run(
        "rw=write\nbs=4k\nsize=64k\nignore_error=,ENOSPC:EDQUOT",
        failing_at(&[0, 5, 6], libc::ENOSPC),
        0,
    );
    assert!(o.result.error.is_none());
    assert_eq!(
        (o.result.stats.errors.total, o.result.stats.errors.first),
        (3, 28)
    );
    assert_eq!(o.result.stats.dir[1].total_ios, 13);
    // ... but EIO on a write is fatal now (the list replaced EIO:EILSEQ), counted.
    let o = run(
        "rw=write\nbs=4k\nsize=64k\nignore_error=,ENOSPC",
        failing_at(&[3], libc::EIO),
        0,
    );
    assert_eq!(o.result.error.as_ref().map(|e| e.0), Some(libc::EIO));
    assert_eq!(o.result.stats.errors.total, 1);
    // A read list by number; a later continue_on_error=none turns it off again.
    let read = |extra: &str| {
        let opts = format!("rw=read\nbs=4k\nsize=64k\nignore_error=6:5\n{extra}");
        run(&opts, failing_at(&[1, 2], libc::ENXIO), 0).result
    };
    let r = read("");
    assert!(r.error.is_none());
    assert_eq!(
        (r.stats.errors.total, r.stats.errors.first),
        (2, libc::ENXIO)
    );
    let r = read("continue_on_error=none");
    assert_eq!(r.error.as_ref().map(|e| e.0), Some(libc::ENXIO));
    assert_eq!(r.stats.errors.total, 0);
}

#[test]
fn the_first_error_counted_is_first_error() {
    let script = Script::sync(100).first(&[
        Step::Now(100, Outcome::Full),
        Step::Now(100, Outcome::Errno(libc::ENXIO)),
        Step::Now(100, Outcome::Errno(libc::EIO)),
        Step::Now(100, Outcome::Errno(libc::ENXIO)),
    ]);
    let o = run(
        "rw=read\nbs=4k\nsize=64k\nignore_error=EIO:ENXIO",
        script,
        0,
    );
    assert!(o.result.error.is_none());
    assert_eq!(
        (o.result.stats.errors.total, o.result.stats.errors.first),
        (3, libc::ENXIO)
    );
}

#[test]
fn asynchronous_errors_continue_with_every_io_reaped() {
    let script = Script::asynchronous(1_000).first(&[
        Step::Later(1_000, Outcome::Full),
        Step::Later(1_000, Outcome::Errno(libc::EIO)),
        Step::Later(2_000, Outcome::Full),
        Step::Later(1_000, Outcome::Errno(libc::EIO)),
        Step::Later(1_000, Outcome::Errno(libc::EIO)),
    ]);
    let o = run(
        "rw=randread\nbs=4k\nsize=64k\niodepth=4\ncontinue_on_error=io",
        script,
        0,
    );
    assert!(o.result.error.is_none());
    assert_eq!(
        (o.result.stats.errors.total, o.result.stats.errors.first),
        (3, libc::EIO)
    );
    let d = &o.result.stats.dir[0];
    assert_eq!((d.total_ios, d.failed_ios, d.io_bytes), (13, 3, 13 * K4));
    assert_eq!(queued_offsets(&o.calls).len(), 16);
}

#[test]
fn a_zero_byte_transfer_is_a_non_fatal_eio_under_continue_on_error() {
    let script = Script::sync(100).first(&[
        Step::Now(100, Outcome::Full),
        Step::Now(100, Outcome::Short(0)),
        Step::Now(100, Outcome::Full),
    ]);
    let o = run(
        "rw=read\nbs=4k\nsize=64k\ncontinue_on_error=read",
        script,
        0,
    );
    assert!(o.result.error.is_none());
    assert_eq!(
        (o.result.stats.errors.total, o.result.stats.errors.first),
        (1, libc::EIO)
    );
    let d = &o.result.stats.dir[0];
    assert_eq!((d.total_ios, d.failed_ios, d.io_bytes), (15, 1, 15 * K4));
    // The depth map counts the failed I/O too (fio marks depth at queue time).
    assert_eq!(o.result.stats.depth.total_submit, 16);
}

#[test]
fn fill_device_ends_at_enospc_without_an_error() {
    for (opts, error) in [
        ("fill_device=1", None),
        ("fill_device=1\ncontinue_on_error=write", None),
        ("fill_device=0", Some(libc::ENOSPC)),
    ] {
        let job = format!("rw=write\nbs=4k\nsize=64k\n{opts}");
        let o = run(&job, failing_at(&[3], libc::ENOSPC), 0);
        assert_eq!(o.result.error.as_ref().map(|e| e.0), error, "{opts}");
        // Not counted even under continue_on_error (fio's break_on_this_error).
        assert_eq!(o.result.stats.errors.total, 0, "{opts}");
        assert_eq!(o.result.stats.dir[1].total_ios, 3, "{opts}");
        assert_eq!(queued_offsets(&o.calls).len(), 4, "{opts}");
    }
}

#[test]
fn errors_during_ramp_time_stay_counted() {
    // fio counts errors per thread, not in the statistics ramp_time discards.
    let o = run(
        "rw=read\nbs=4k\nsize=64k\nramp_time=1us\ncontinue_on_error=read",
        failing_at(&[1, 14], libc::EIO),
        0,
    );
    assert!(o.result.error.is_none());
    assert_eq!(o.result.stats.errors.total, 2);
    // The statistics restarted after the ramp: the first failed read is not in them.
    let d = &o.result.stats.dir[0];
    assert_eq!(d.failed_ios, 1);
    assert!(d.total_ios < 14, "{}", d.total_ios);
}
