//! fio's zbd_adjust_block and what it needs, for one thread: a write goes to the write
//! pointer of an open zone (opening one within max_open_zones / job_max_open_zones,
//! or another open zone when the limit is reached), a full zone is reset before it is
//! written again (and zone_reset_threshold / zone_reset_frequency reset zones early),
//! a read stays below a write pointer unless read_beyond_wp=1. Write pointers move
//! when a write is accepted (it is queued next); a zone leaves the open list when a
//! write that fills it completes. Nothing here ever asks the device for what its
//! rules forbid.

use super::zbd::Zbd;
use crate::engine::IoOp;
use crate::runner::region::NextIo;
use std::io;

/// What the zbd logic needs from the I/O loop.
pub trait ZoneHost {
    /// Complete every I/O in flight (fio's io_u_quiesce).
    fn quiesce(&mut self);
    fn in_flight(&self) -> bool;
    /// Writes completed since the last call, as (offset, length).
    fn completed(&mut self) -> Vec<(u64, u64)>;
    /// Reset the device's zones in [start, start + len).
    fn reset(&mut self, start: u64, len: u64) -> io::Result<()>;
}

/// The adjusted I/O, or why there is none.
#[derive(Debug, PartialEq, Eq)]
pub enum Adjusted {
    Io(NextIo),
    /// Nothing can be done (no zone to read or write): the job ends, as fio's.
    End,
    /// The job fails with this errno and message.
    Error(i32, String),
}

fn dir(op: IoOp) -> usize {
    match op {
        IoOp::Read => 0,
        IoOp::Write => 1,
        _ => 2,
    }
}

impl Zbd {
    pub(super) fn zone_of(&self, off: u64) -> usize {
        ((off / self.zone_size) as usize).min(self.zones.len() - 1)
    }

    fn cap_end(&self, z: usize) -> u64 {
        self.zones[z].start + self.zones[z].capacity
    }

    fn zone_end(&self, z: usize) -> u64 {
        self.zones[z + 1].start
    }

    /// Fewer than `required` bytes left below the capacity.
    fn full(&self, z: usize, required: u64) -> bool {
        self.zones[z].has_wp && self.zones[z].wp + required > self.cap_end(z)
    }

    fn valid(&self, off: u64) -> bool {
        off.wrapping_sub(self.region.start) < self.region.len
    }

    /// fio's zbd_file_reset at the start of the job: count the data, arm the reset
    /// frequency counter.
    pub(super) fn file_reset(&mut self) {
        self.data = 0;
        self.wp_data = 0;
        for z in &self.zones[self.min..self.max] {
            self.data += z.wp - z.start;
            if z.has_wp {
                self.wp_data += z.wp - z.start;
            }
        }
        self.arm_write_cnt();
    }

    fn arm_write_cnt(&mut self) {
        self.write_cnt = if self.reset_frequency > 0.0 {
            (1.0 / self.reset_frequency).min(u32::MAX as f64) as u32
        } else {
            u32::MAX
        };
    }

    /// Take a zone into the open list if the limits allow (fio's zbd_open_zone).
    fn open_zone(&mut self, z: usize) -> bool {
        if self.zones[z].offline {
            return false;
        }
        if self.max_open == 0 {
            return true;
        }
        if self.zones[z].open {
            // Filled by writes in flight: treated as full.
            return self.zones[z].wp < self.cap_end(z);
        }
        let n = self.open.len() as u32;
        if (self.job_max_open > 0 && n >= self.job_max_open) || n >= self.max_open {
            return false;
        }
        self.trace.opening(z);
        self.open.push(z);
        self.zones[z].open = true;
        true
    }

    fn close_zone(&mut self, z: usize) {
        if let Some(i) = self.open.iter().position(|&o| o == z) {
            self.trace.closing(z);
            self.open.remove(i);
        }
        self.zones[z].open = false;
    }

    fn reset_zone(&mut self, host: &mut dyn ZoneHost, z: usize) -> Result<(), Adjusted> {
        let start = self.zones[z].start;
        let data = self.zones[z].wp - start;
        if data == 0 {
            return Ok(());
        }
        self.trace.resetting(z);
        if self.device {
            host.reset(start, self.zone_end(z) - start).map_err(|e| {
                Adjusted::Error(
                    e.raw_os_error().unwrap_or(libc::EIO),
                    format!("resetting the write pointer of the zone at {start} failed: {e}"),
                )
            })?;
        }
        self.data -= data;
        self.wp_data -= data;
        self.zones[z].wp = start;
        self.resets += 1;
        Ok(())
    }

    /// Completed writes that filled their zone close it (fio's zbd_end_zone_io).
    fn take_completions(&mut self, host: &mut dyn ZoneHost) {
        for (off, len) in host.completed() {
            let z = self.zone_of(off);
            if self.zones[z].has_wp && off + len >= self.cap_end(z) {
                self.close_zone(z);
            }
        }
    }

    fn quiesce(&mut self, host: &mut dyn ZoneHost) {
        host.quiesce();
        self.take_completions(host);
    }

    /// fio's pick_random_zone_idx: an index into the open list from the I/O's offset.
    fn pick_open(&self, off: u64) -> usize {
        let rel = off.saturating_sub(self.region.start) as u128;
        (rel * self.open.len() as u128 / self.region.len.max(1) as u128) as usize
    }

    /// fio's zbd_convert_to_open_zone: an open zone with room for a write, opening
    /// another when the limits allow; None when there is none.
    fn convert_to_open_zone(
        &mut self,
        host: &mut dyn ZoneHost,
        off: u64,
        d: usize,
    ) -> Option<usize> {
        let min_bs = self.min_bs[d];
        let limited = self.max_open > 0 || self.job_max_open > 0;
        let mut zi = if limited {
            self.open.get(self.pick_open(off)).copied().unwrap_or(0)
        } else {
            self.zone_of(off)
        };
        zi = zi.clamp(self.min, self.max - 1);
        let examine = loop {
            let z = &self.zones[zi];
            if z.has_wp {
                if !z.offline && !limited {
                    break true;
                }
                if self.open.is_empty() {
                    break false;
                }
            }
            let start = self.pick_open(off);
            let n = self.open.len();
            let cand = (0..n)
                .map(|i| (start + i) % n.max(1))
                .find(|&i| (self.min..self.max).contains(&self.open[i]))?;
            let new = self.open[cand];
            if new == zi {
                break true;
            }
            zi = new;
        };
        if examine && self.zones[zi].wp + min_bs <= self.cap_end(zi) {
            return Some(zi);
        }
        let n = self.open.len() as u32;
        let wait_close = n as usize == self.max - self.min
            || (self.max_open > 0 && n == self.max_open)
            || (self.job_max_open > 0 && n == self.job_max_open);
        if wait_close {
            self.quiesce(host);
        }
        let mut should_retry = true;
        loop {
            // The next zones after the full one, wrapping in the region.
            for _ in 0..self.region.len / self.zone_size {
                zi += 1;
                if !self.valid(self.zones[zi].start) {
                    zi = self.min;
                }
                if !self.zones[zi].has_wp || self.zones[zi].open {
                    continue;
                }
                if self.open_zone(zi) {
                    return Some(zi);
                }
            }
            // Room in a zone already open?
            let room = self.open.iter().copied().find(|&o| {
                (self.min..self.max).contains(&o) && self.zones[o].wp + min_bs <= self.cap_end(o)
            });
            if room.is_some() {
                return room;
            }
            let in_flight = host.in_flight();
            if !(in_flight || should_retry) {
                return None;
            }
            self.quiesce(host);
            should_retry = in_flight;
        }
    }

    /// fio's zbd_find_zone: the next (sequential) or nearest (random) zone with at
    /// least `min_bytes` below its write pointer.
    fn find_zone(&self, zb: usize, min_bytes: u64) -> Option<usize> {
        let ok = |z: usize| {
            !self.zones[z].offline && self.zones[z].start + min_bytes <= self.zones[z].wp
        };
        let mut up = zb + 1;
        let mut down = zb as isize - 1;
        while up < self.max || down >= self.min as isize {
            if up < self.max {
                if ok(up) {
                    return Some(up);
                }
            } else if !self.random {
                break;
            }
            if self.random && down >= self.min as isize && ok(down as usize) {
                return Some(down as usize);
            }
            up += 1;
            down -= 1;
        }
        None
    }

    /// fio's zbd_adjust_ddir: a mixed job's read while nothing is written is a write.
    pub fn reads_become_writes(&self) -> bool {
        self.mixed && self.data == 0 && !self.read_beyond_wp
    }

    /// Where the generated I/O `io` may go under the zone rules (fio's
    /// setup_zbd_zone_mode capacity jump, zbd_adjust_ddir and zbd_adjust_block).
    pub fn adjust(&mut self, mut io: NextIo, host: &mut dyn ZoneHost) -> Adjusted {
        self.take_completions(host);
        match io.op {
            IoOp::Read | IoOp::Write => {}
            IoOp::Trim => return self.trim(io),
            _ => return Adjusted::Io(io),
        }
        // A mixed job's read of nothing written yet becomes a write (the generator
        // draws it as one: reads_become_writes).
        if io.op == IoOp::Read && self.reads_become_writes() {
            io.op = IoOp::Write;
        }
        let d = dir(io.op);
        let min_bs = self.min_bs[d];
        // Sequential writes past a zone's capacity go on at the next zone.
        let z = self.zone_of(io.offset);
        if !self.random && io.op == IoOp::Write && io.offset >= self.cap_end(z) && z < self.max {
            io.offset = self.zone_end(z);
            if !self.valid(io.offset) {
                // The end of the file: fio's job ends there unless io_size asks for more.
                if self.pass_bytes <= self.region.len {
                    return Adjusted::End;
                }
                io.offset = self.region.start;
            }
        }
        let mut zb = self.zone_of(io.offset);
        let orig = zb;
        if !self.zones[zb].has_wp {
            return Adjusted::Io(self.conventional(io, zb, min_bs));
        }
        if io.op == IoOp::Read {
            if self.read_beyond_wp && !self.zones[zb].offline {
                return Adjusted::Io(io);
            }
            let z = &self.zones[zb];
            let mut range = if z.offline { 0 } else { z.wp - z.start };
            if range < min_bs || (!self.random && io.offset + min_bs > z.wp) {
                let Some(found) = self.find_zone(zb, min_bs) else {
                    return Adjusted::End;
                };
                zb = found;
                range = self.zones[zb].wp - self.zones[zb].start;
                if !self.random {
                    io.offset = self.zones[zb].start;
                }
            }
            let start = self.zones[zb].start;
            if range <= io.len {
                io.offset = start;
            } else if self.random {
                let within = (io.offset - self.zones[orig].start) % (range - io.len);
                io.offset = start + within / min_bs * min_bs;
            }
            if !self.zones[zb].has_wp {
                return Adjusted::Io(io);
            }
            let len = io.len.min(self.zones[zb].wp - io.offset) / min_bs * min_bs;
            if len > 0 && len < io.len {
                io.len = len;
            }
            return Adjusted::Io(io);
        }
        // A write.
        if io.len > self.zone_size {
            return Adjusted::Error(
                libc::EINVAL,
                format!(
                    "I/O length {} exceeds the zone size {}",
                    io.len, self.zone_size
                ),
            );
        }
        if !self.open_zone(zb) {
            match self.convert_to_open_zone(host, io.offset, d) {
                Some(z) => zb = z,
                None => return Adjusted::End,
            }
        }
        let mut reset = false;
        if self.reset_frequency > 0.0
            && self.wp_data as f64 >= self.region.len as f64 * self.reset_threshold
        {
            self.write_cnt = self.write_cnt.saturating_sub(1);
            if self.write_cnt == 0 {
                self.arm_write_cnt();
                reset = true;
            }
        }
        if reset || self.full(zb, min_bs) {
            self.quiesce(host);
            if let Err(e) = self.reset_zone(host, zb) {
                return e;
            }
            if self.zones[zb].capacity < min_bs {
                return Adjusted::Error(
                    libc::EINVAL,
                    format!(
                        "zone capacity {} is smaller than the block size {min_bs}",
                        self.zones[zb].capacity
                    ),
                );
            }
        }
        io.offset = self.zones[zb].wp;
        if !self.valid(io.offset) {
            return Adjusted::Error(libc::EINVAL, format!("invalid write pointer {}", io.offset));
        }
        let room = self.cap_end(zb) - io.offset;
        let len = io.len.min(room) / min_bs * min_bs;
        if len < min_bs {
            return Adjusted::Error(
                libc::EIO,
                format!("zone remainder {room} is smaller than the block size {min_bs}"),
            );
        }
        io.len = len;
        Adjusted::Io(io)
    }

    /// The adjusted I/O is queued: a write moves its zone's write pointer now (fio's
    /// zbd_queue_io), so the next one goes after it.
    pub fn queued(&mut self, io: &NextIo) {
        let zb = self.zone_of(io.offset);
        if io.op != IoOp::Write || !self.zones[zb].has_wp {
            return;
        }
        self.trace.queued(io.offset, io.len, zb);
        let end = (io.offset + io.len).min(self.cap_end(zb));
        let moved = end.saturating_sub(self.zones[zb].wp);
        self.data += moved;
        self.wp_data += moved;
        self.zones[zb].wp = end;
    }

    /// A trim resets its zone (fio's DDIR_TRIM adjustment and zbd_do_io_u_trim): a
    /// random one goes to a zone with data; it must start at its zone's start. The
    /// trim itself goes to the device, which empties the zone (the sim's zoned device
    /// takes a zone-aligned trim as a reset; a file has the range punched out).
    fn trim(&mut self, mut io: NextIo) -> Adjusted {
        let mut zb = self.zone_of(io.offset);
        if !self.zones[zb].has_wp {
            return Adjusted::Io(io);
        }
        if self.random && self.zones[zb].wp == self.zones[zb].start {
            match self.find_zone(zb, 1) {
                Some(z) => {
                    zb = z;
                    io.offset = self.zones[z].start;
                }
                None => return Adjusted::End,
            }
        }
        if io.offset != self.zones[zb].start {
            return Adjusted::Error(
                libc::EINVAL,
                format!("trim offset {} is not at its zone's start", io.offset),
            );
        }
        let data = self.zones[zb].wp - self.zones[zb].start;
        if data > 0 {
            self.data -= data;
            self.wp_data -= data;
            self.zones[zb].wp = self.zones[zb].start;
            self.resets += 1;
        }
        Adjusted::Io(io)
    }

    /// A conventional zone: reads as they are; a write may not run into a following
    /// sequential zone.
    fn conventional(&self, mut io: NextIo, zb: usize, min_bs: u64) -> NextIo {
        let Some(next) = self.zones.get(zb + 1) else {
            return io;
        };
        if io.op != IoOp::Write || !next.has_wp || io.offset + io.len <= next.start {
            return io;
        }
        let len = if io.offset + min_bs > next.start {
            io.offset = self.zones[zb].start + next.start - io.offset;
            io.len.min(next.start - io.offset)
        } else {
            next.start - io.offset
        };
        io.len = len / min_bs * min_bs;
        io
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::region::Region;
    use crate::runner::zones::zbd::Zone;

    const K: u64 = 1024;

    /// Records what the zbd logic asked of the loop.
    #[derive(Default)]
    struct Host {
        calls: Vec<String>,
        done: Vec<(u64, u64)>,
        inflight: bool,
    }

    impl ZoneHost for Host {
        fn quiesce(&mut self) {
            self.calls.push("quiesce".into());
            self.inflight = false;
        }
        fn in_flight(&self) -> bool {
            self.inflight
        }
        fn completed(&mut self) -> Vec<(u64, u64)> {
            std::mem::take(&mut self.done)
        }
        fn reset(&mut self, start: u64, _len: u64) -> io::Result<()> {
            self.calls.push(format!("reset {}", start / K));
            Ok(())
        }
    }

    /// Four 64k zones (the device's), random I/O, `max_open` zones.
    fn zbd(max_open: u32) -> Zbd {
        let mut zones: Vec<Zone> = (0..5)
            .map(|i| Zone {
                start: i * 64 * K,
                capacity: 64 * K,
                wp: i * 64 * K,
                has_wp: i < 4,
                offline: i == 4,
                open: false,
            })
            .collect();
        zones[4].capacity = 0;
        let mut z = Zbd {
            zone_size: 64 * K,
            zones,
            min: 0,
            max: 4,
            region: Region {
                start: 0,
                len: 256 * K,
            },
            pass_bytes: 256 * K,
            open: Vec::new(),
            max_open,
            job_max_open: 0,
            min_bs: [4 * K; 3],
            random: true,
            mixed: false,
            read_beyond_wp: false,
            reset_threshold: 0.0,
            reset_frequency: 0.0,
            write_cnt: 0,
            data: 0,
            wp_data: 0,
            device: true,
            resets: 0,
            trace: Default::default(),
        };
        z.file_reset();
        z
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
        h.done.push((a.offset, a.len));
        a
    }

    #[test]
    fn writes_go_to_write_pointers_of_at_most_max_open_zones() {
        let (mut z, mut h) = (zbd(2), Host::default());
        assert_eq!(write(&mut z, &mut h, 130 * K).offset, 128 * K);
        assert_eq!(write(&mut z, &mut h, 10 * K).offset, 0);
        // A third zone would exceed the limit: an open zone takes it, at its pointer.
        let a = write(&mut z, &mut h, 200 * K);
        assert!(a.offset == 4 * K || a.offset == 132 * K, "{a:?}");
        assert_eq!(z.open.len(), 2);
    }

    #[test]
    fn a_full_zone_is_reset_after_the_writes_in_flight_complete() {
        let (mut z, mut h) = (zbd(0), Host::default());
        for _ in 0..16 {
            write(&mut z, &mut h, 0);
        }
        assert_eq!(z.zones[0].wp, 64 * K);
        h.inflight = true;
        assert_eq!(write(&mut z, &mut h, 8 * K).offset, 0);
        assert_eq!(h.calls, ["quiesce", "reset 0"]);
        assert_eq!((z.resets, z.zones[0].wp, z.data), (1, 4 * K, 4 * K));
    }

    #[test]
    fn reads_stay_below_the_write_pointer() {
        let (mut z, mut h) = (zbd(0), Host::default());
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
        z.read_beyond_wp = true;
        assert_eq!(
            z.adjust(io(IoOp::Read, 0), &mut h),
            Adjusted::Io(io(IoOp::Read, 0))
        );
    }

    #[test]
    fn zone_reset_frequency_resets_every_nth_write() {
        // zone_reset_frequency=0.5 with threshold 0: every second write resets its zone.
        let (mut z, mut h) = (zbd(0), Host::default());
        z.reset_frequency = 0.5;
        z.file_reset();
        write(&mut z, &mut h, 0);
        assert!(h.calls.is_empty(), "{:?}", h.calls);
        write(&mut z, &mut h, 0);
        assert_eq!(h.calls, ["quiesce", "reset 0"]);
        write(&mut z, &mut h, 0);
        assert_eq!(h.calls.len(), 2);
    }
}
