//! The zbd logic against a scripted loop: one job, and jobs sharing a table.

use super::*;
use crate::engine::zone::{SharedZoned, ZoneInfo, ZonedDevice};
use crate::runner::region::Region;
use crate::runner::zones::table::{Zone, ZoneTable};
use crate::runner::zones::zbd::FileZbd;
use std::sync::atomic::AtomicU32;
use std::sync::Mutex;

const K: u64 = 1024;

type Log = Arc<Mutex<Vec<String>>>;

/// Records what the zbd logic asked of the loop.
#[derive(Default)]
struct Host {
    calls: Log,
    done: Vec<(usize, u64, u64)>,
    inflight: bool,
}

impl ZoneHost for Host {
    fn quiesce(&mut self) {
        self.calls.lock().unwrap().push("quiesce".into());
        self.inflight = false;
    }
    fn in_flight(&self) -> bool {
        self.inflight
    }
    fn completed(&mut self) -> Vec<(usize, u64, u64)> {
        std::mem::take(&mut self.done)
    }
}

/// A device that logs its resets where the host logs its calls.
struct Dev(Log);

impl ZonedDevice for Dev {
    fn report(&self) -> Vec<ZoneInfo> {
        Vec::new()
    }
    fn limits(&self) -> (u32, u32) {
        (0, 0)
    }
    fn reset(&mut self, start: u64, _len: u64) -> std::io::Result<()> {
        self.0.lock().unwrap().push(format!("reset {}", start / K));
        Ok(())
    }
}

/// Four 64k zones of a device, `max_open` zones.
fn table(max_open: u32) -> Arc<ZoneTable> {
    let zones = (0..4)
        .map(|i| Zone {
            start: i * 64 * K,
            capacity: 64 * K,
            wp: i * 64 * K,
            has_wp: true,
            ..Default::default()
        })
        .collect();
    Arc::new(ZoneTable::new(64 * K, zones, max_open, true))
}

/// Job `id` on `table`, random I/O over the whole device.
fn job(table: &Arc<ZoneTable>, id: u64, job_max_open: u32, h: &Host) -> Zbd {
    let dev: SharedZoned = Arc::new(Mutex::new(Dev(h.calls.clone())));
    let mut z = Zbd {
        files: vec![FileZbd {
            table: table.clone(),
            device: Some(dev),
            min: 0,
            max: 4,
            region: Region {
                start: 0,
                len: 256 * K,
            },
            inflight: 0,
            trace: Default::default(),
        }],
        cfg: JobCfg {
            pass_bytes: 256 * K,
            job_max_open,
            min_bs: [4 * K; 3],
            random: true,
            mixed: false,
            read_beyond_wp: false,
            reset_threshold: 0.0,
            reset_frequency: 0.0,
        },
        job: JobState {
            id,
            open: Arc::new(AtomicU32::new(0)),
            open_max: 0,
            held: None,
            stash: Vec::new(),
            resets: 0,
        },
    };
    z.file_reset();
    z
}

fn zbd(max_open: u32, h: &Host) -> Zbd {
    job(&table(max_open), 0, 0, h)
}

fn io(op: IoOp, offset: u64) -> NextIo {
    NextIo {
        op,
        file: 0,
        offset,
        len: 4 * K,
        follow_up: false,
    }
}

fn write(z: &mut Zbd, h: &mut Host, off: u64) -> NextIo {
    let Adjusted::Io(a) = z.adjust(io(IoOp::Write, off), h) else {
        panic!("no write for {off}");
    };
    z.queued(&a);
    z.issued();
    h.done.push((0, a.offset, a.len));
    a
}

fn calls(h: &Host) -> Vec<String> {
    h.calls.lock().unwrap().clone()
}

#[test]
fn writes_go_to_write_pointers_of_at_most_max_open_zones() {
    let mut h = Host::default();
    let mut z = zbd(2, &h);
    assert_eq!(write(&mut z, &mut h, 130 * K).offset, 128 * K);
    assert_eq!(write(&mut z, &mut h, 10 * K).offset, 0);
    // A third zone would exceed the limit: an open zone takes it, at its pointer.
    let a = write(&mut z, &mut h, 200 * K);
    assert!(a.offset == 4 * K || a.offset == 132 * K, "{a:?}");
    assert_eq!(z.files[0].table.lock().open.len(), 2);
}

#[test]
fn a_full_zone_is_reset_after_the_writes_in_flight_complete() {
    let mut h = Host::default();
    let mut z = zbd(0, &h);
    for _ in 0..16 {
        write(&mut z, &mut h, 0);
    }
    assert_eq!(z.files[0].table.lock().zones[0].wp, 64 * K);
    h.inflight = true;
    assert_eq!(write(&mut z, &mut h, 8 * K).offset, 0);
    assert_eq!(calls(&h), ["quiesce", "reset 0"]);
    let st = z.files[0].table.lock();
    assert_eq!((z.job.resets, st.zones[0].wp, st.data), (1, 4 * K, 4 * K));
}

#[test]
fn reads_stay_below_the_write_pointer() {
    let mut h = Host::default();
    let mut z = zbd(0, &h);
    // Nothing written: no read.
    assert_eq!(z.adjust(io(IoOp::Read, 0), &mut h), Adjusted::End);
    for _ in 0..3 {
        write(&mut z, &mut h, 64 * K);
    }
    // A read of the empty zone 0 goes to zone 1, within its 12k of data.
    for off in [0, 20 * K, 60 * K] {
        let Adjusted::Io(r) = z.adjust(io(IoOp::Read, off), &mut h) else {
            panic!()
        };
        assert!(r.offset >= 64 * K && r.offset + r.len <= 76 * K, "{r:?}");
    }
    z.cfg.read_beyond_wp = true;
    assert_eq!(
        z.adjust(io(IoOp::Read, 0), &mut h),
        Adjusted::Io(io(IoOp::Read, 0))
    );
}

#[test]
fn zone_reset_frequency_resets_every_nth_write() {
    // zone_reset_frequency=0.5 with threshold 0: every second write resets its zone.
    let mut h = Host::default();
    let mut z = zbd(0, &h);
    z.cfg.reset_frequency = 0.5;
    z.file_reset();
    write(&mut z, &mut h, 0);
    assert!(calls(&h).is_empty(), "{:?}", calls(&h));
    write(&mut z, &mut h, 0);
    assert_eq!(calls(&h), ["quiesce", "reset 0"]);
    write(&mut z, &mut h, 0);
    assert_eq!(calls(&h).len(), 2);
}

#[test]
fn jobs_share_write_pointers_and_the_devices_open_limit() {
    let t = table(3);
    let (mut ha, mut hb) = (Host::default(), Host::default());
    let (mut a, mut b) = (job(&t, 1, 2, &ha), job(&t, 2, 2, &hb));
    // Job a opens zones 0 and 2; its own limit is 2.
    assert_eq!(write(&mut a, &mut ha, 0).offset, 0);
    assert_eq!(write(&mut a, &mut ha, 130 * K).offset, 128 * K);
    let w = write(&mut a, &mut ha, 64 * K);
    assert!(w.offset == 4 * K || w.offset == 132 * K, "{w:?}");
    // Job b writes zone 0 after a's writes there, and opens the device's third.
    let at0 = t.lock().zones[0].wp;
    assert_eq!(write(&mut b, &mut hb, 0).offset, at0);
    assert_eq!(write(&mut b, &mut hb, 200 * K).offset, 192 * K);
    assert_eq!(t.lock().open.len(), 3);
    // No fourth zone, for either job.
    let w = write(&mut b, &mut hb, 70 * K);
    assert_ne!(w.offset / (64 * K), 1, "{w:?}");
    assert_eq!(
        (a.job.open_max, b.job.open_max, t.lock().open_max),
        (2, 1, 3)
    );
}

#[test]
fn a_zone_held_by_another_thread_is_written_after_its_io_is_queued() {
    let t = table(1);
    let mut ha = Host::default();
    let mut a = job(&t, 1, 0, &ha);
    let Adjusted::Io(first) = a.adjust(io(IoOp::Write, 0), &mut ha) else {
        panic!()
    };
    // b wants the only open zone while a holds it: it gets the pointer after a's
    // write, however the threads interleave.
    let tb = t.clone();
    let b = std::thread::spawn(move || {
        let mut hb = Host::default();
        let mut b = job(&tb, 2, 0, &hb);
        let Adjusted::Io(w) = b.adjust(io(IoOp::Write, 0), &mut hb) else {
            panic!()
        };
        b.queued(&w);
        b.issued();
        w.offset
    });
    a.queued(&first);
    a.issued();
    assert_eq!(first.offset, 0);
    assert_eq!(b.join().unwrap(), 4 * K);
}
