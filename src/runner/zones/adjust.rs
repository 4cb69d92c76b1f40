//! fio's zbd_adjust_block and what it needs: a write goes to the write pointer of an
//! open zone (opening one within max_open_zones / job_max_open_zones, or another
//! open zone when a limit is reached), a full zone is reset before it is written
//! again (and zone_reset_threshold / zone_reset_frequency reset zones early), a read
//! stays below a write pointer unless read_beyond_wp=1. Everything happens under the
//! lock of the file's shared zone table ([`View`]): write pointers move when a write
//! is accepted (it is queued next), a zone leaves the open list when a write that
//! fills it completes, whichever job's write it was. A zone another thread holds
//! (its write not yet queued), or no zone while other threads' writes are in flight,
//! makes the thread wait and look again. Nothing here ever asks the device for what
//! its rules forbid.

use super::table::State;
use super::zbd::{FileZbd, JobCfg, JobState, Zbd};
use crate::engine::IoOp;
use crate::runner::region::NextIo;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What the zbd logic needs from the I/O loop.
pub trait ZoneHost {
    /// Complete every I/O in flight (fio's io_u_quiesce).
    fn quiesce(&mut self);
    fn in_flight(&self) -> bool;
    /// Writes completed since the last call, as (file, offset, length).
    fn completed(&mut self) -> Vec<(usize, u64, u64)>;
}

/// The adjusted I/O, or why there is none.
#[derive(Debug, PartialEq, Eq)]
pub enum Adjusted {
    Io(NextIo),
    /// Nothing can be done (no zone to read or write): the job ends, as fio's.
    End,
    /// The job fails with this errno and message.
    Error(i32, String),
    /// Another thread must move first (inside this module only).
    Wait,
}

/// A zone chosen to write, none, or wait for other threads.
enum Pick {
    Zone(usize),
    None,
    Wait,
}

fn dir(op: IoOp) -> usize {
    match op {
        IoOp::Read => 0,
        IoOp::Write => 1,
        _ => 2,
    }
}

/// A completed write of `f` at `off`: no longer in flight; if it filled its zone, the
/// zone closes (fio's zbd_end_zone_io).
fn complete(st: &mut State, f: &mut FileZbd, off: u64, len: u64) {
    st.inflight = st.inflight.saturating_sub(1);
    f.inflight = f.inflight.saturating_sub(1);
    let z = ((off / st.zone_size) as usize).min(st.zones.len() - 1);
    if st.zones[z].has_wp && off + len >= st.zones[z].start + st.zones[z].capacity {
        if st.zones[z].open {
            f.trace.closing(z);
        }
        st.close_zone(z);
    }
}

impl Zbd {
    /// fio's zbd_file_reset at the start of the job: count the data (the device's,
    /// over the thread's zones, as fio), arm the reset frequency counter.
    pub(super) fn file_reset(&mut self) {
        for f in &self.files {
            let mut st = f.table.lock();
            let (mut data, mut wp_data) = (0, 0);
            for z in &st.zones[f.min..f.max] {
                data += z.wp - z.start;
                if z.has_wp {
                    wp_data += z.wp - z.start;
                }
            }
            st.data = data;
            st.wp_data = wp_data;
            arm_write_cnt(&mut st, &self.cfg);
        }
    }

    /// Writes seen complete (and those stashed): each under its own table's lock.
    pub fn finish(&mut self, done: Vec<(usize, u64, u64)>) {
        let mut all = std::mem::take(&mut self.job.stash);
        all.extend(done);
        for (file, off, len) in all {
            if let Some(f) = self.files.get_mut(file) {
                let table = f.table.clone();
                complete(&mut table.lock(), f, off, len);
                table.notify();
            }
        }
    }

    /// fio's zbd_adjust_ddir: a mixed job's read while nothing is written is a write.
    pub fn reads_become_writes(&self) -> bool {
        self.cfg.mixed
            && !self.cfg.read_beyond_wp
            && self.files.iter().all(|f| f.table.lock().data == 0)
    }

    /// Where the generated I/O `io` may go under the zone rules (fio's
    /// setup_zbd_zone_mode capacity jump, zbd_adjust_ddir and zbd_adjust_block); it
    /// waits for other threads when it must.
    pub fn adjust(&mut self, io: NextIo, host: &mut dyn ZoneHost) -> Adjusted {
        // A zone still held: its I/O never reached the engine.
        self.issued();
        if io.file >= self.files.len() {
            return Adjusted::Io(io);
        }
        self.finish(host.completed());
        let table = self.files[io.file].table.clone();
        let mut st = table.lock();
        loop {
            let mut v = View {
                st: &mut st,
                files: &mut self.files,
                fi: io.file,
                c: &self.cfg,
                j: &mut self.job,
            };
            match v.adjust(io, host) {
                Adjusted::Wait => st = table.wait(st),
                r => return r,
            }
        }
    }
}

fn arm_write_cnt(st: &mut State, c: &JobCfg) {
    st.write_cnt = if c.reset_frequency > 0.0 {
        (1.0 / c.reset_frequency).min(u32::MAX as f64) as u32
    } else {
        u32::MAX
    };
}

/// One adjustment: the thread's view of one file's table, under its lock.
struct View<'a> {
    st: &'a mut State,
    files: &'a mut [FileZbd],
    fi: usize,
    c: &'a JobCfg,
    j: &'a mut JobState,
}

impl View<'_> {
    fn f(&self) -> &FileZbd {
        &self.files[self.fi]
    }

    fn zone_of(&self, off: u64) -> usize {
        ((off / self.st.zone_size) as usize).min(self.st.zones.len() - 1)
    }

    fn cap_end(&self, z: usize) -> u64 {
        self.st.zones[z].start + self.st.zones[z].capacity
    }

    fn zone_end(&self, z: usize) -> u64 {
        self.st.zones[z + 1].start
    }

    /// Fewer than `required` bytes left below the capacity.
    fn full(&self, z: usize, required: u64) -> bool {
        self.st.zones[z].has_wp && self.st.zones[z].wp + required > self.cap_end(z)
    }

    fn valid(&self, off: u64) -> bool {
        let r = self.f().region;
        off.wrapping_sub(r.start) < r.len
    }

    /// Held by another thread (its write or trim not yet queued).
    fn held_by_other(&self, z: usize) -> bool {
        self.st.zones[z].held_by.is_some_and(|h| h != self.j.id)
    }

    fn hold(&mut self, z: usize) {
        self.st.zones[z].held_by = Some(self.j.id);
        self.j.held = Some((self.fi, z, self.st.zones[z].wp));
    }

    fn open_zone(&mut self, z: usize) -> bool {
        let was_open = self.st.zones[z].open;
        let ok = self.st.open_zone(z, &self.j.open, self.c.job_max_open);
        if ok && !was_open && self.st.zones[z].open {
            self.f().trace.opening(z);
        }
        let n = self.j.open.load(Ordering::Relaxed);
        self.j.open_max = self.j.open_max.max(n);
        ok
    }

    fn reset_zone(&mut self, z: usize) -> Result<(), Adjusted> {
        let start = self.st.zones[z].start;
        let data = self.st.zones[z].wp - start;
        if data == 0 {
            return Ok(());
        }
        self.f().trace.resetting(z);
        if self.st.device {
            if let Some(dev) = &self.f().device {
                let len = self.zone_end(z) - start;
                let mut dev = dev.lock().unwrap_or_else(|e| e.into_inner());
                dev.reset(start, len).map_err(|e| {
                    Adjusted::Error(
                        e.raw_os_error().unwrap_or(libc::EIO),
                        format!("resetting the write pointer of the zone at {start} failed: {e}"),
                    )
                })?;
            }
        }
        self.st.data = self.st.data.saturating_sub(data);
        self.st.wp_data = self.st.wp_data.saturating_sub(data);
        self.st.zones[z].wp = start;
        self.j.resets += 1;
        Ok(())
    }

    /// Completed writes of this table close the zones they filled; others wait for
    /// the next adjustment (their table's lock is not taken under this one).
    fn take_completions(&mut self, host: &mut dyn ZoneHost) {
        for (file, off, len) in host.completed() {
            let same = self
                .files
                .get(file)
                .is_some_and(|f| Arc::ptr_eq(&f.table, &self.files[self.fi].table));
            if same {
                complete(self.st, &mut self.files[file], off, len);
            } else {
                self.j.stash.push((file, off, len));
            }
        }
    }

    fn quiesce(&mut self, host: &mut dyn ZoneHost) {
        host.quiesce();
        self.take_completions(host);
    }

    /// fio's pick_random_zone_idx: an index into the open list from the I/O's offset.
    fn pick_open(&self, off: u64) -> usize {
        let r = self.f().region;
        let rel = off.saturating_sub(r.start) as u128;
        (rel * self.st.open.len() as u128 / r.len.max(1) as u128) as usize
    }

    /// fio's zbd_convert_to_open_zone: an open zone with room for a write, opening
    /// another when the limits allow; none when there is none, wait while other
    /// threads' writes may still close zones.
    fn convert_to_open_zone(&mut self, host: &mut dyn ZoneHost, off: u64, d: usize) -> Pick {
        let min_bs = self.c.min_bs[d];
        let (min, max) = (self.f().min, self.f().max);
        let limited = self.st.max_open > 0 || self.c.job_max_open > 0;
        let mut zi = if limited {
            self.st.open.get(self.pick_open(off)).copied().unwrap_or(0)
        } else {
            self.zone_of(off)
        };
        zi = zi.clamp(min, max - 1);
        let examine = loop {
            let z = &self.st.zones[zi];
            if z.has_wp {
                if !z.offline && !limited {
                    break true;
                }
                if self.st.open.is_empty() {
                    break false;
                }
            }
            let start = self.pick_open(off);
            let n = self.st.open.len();
            let Some(cand) = (0..n)
                .map(|i| (start + i) % n.max(1))
                .find(|&i| (min..max).contains(&self.st.open[i]))
            else {
                return Pick::None;
            };
            let new = self.st.open[cand];
            if new == zi {
                break true;
            }
            zi = new;
        };
        if examine && self.st.zones[zi].wp + min_bs <= self.cap_end(zi) {
            return Pick::Zone(zi);
        }
        let n = self.st.open.len() as u32;
        let wait_close = n as usize == max - min
            || (self.st.max_open > 0 && n == self.st.max_open)
            || (self.c.job_max_open > 0
                && self.j.open.load(Ordering::Relaxed) == self.c.job_max_open);
        if wait_close {
            self.quiesce(host);
        }
        let mut should_retry = true;
        loop {
            // The next zones after the full one, wrapping in the region.
            for _ in 0..self.f().region.len / self.st.zone_size {
                zi += 1;
                if !self.valid(self.st.zones[zi].start) {
                    zi = min;
                }
                if !self.st.zones[zi].has_wp || self.st.zones[zi].open {
                    continue;
                }
                if self.open_zone(zi) {
                    return Pick::Zone(zi);
                }
            }
            // Room in a zone already open?
            let room = self.st.open.iter().copied().find(|&o| {
                (min..max).contains(&o) && self.st.zones[o].wp + min_bs <= self.cap_end(o)
            });
            if let Some(z) = room {
                return Pick::Zone(z);
            }
            let in_flight = host.in_flight();
            if in_flight || should_retry {
                self.quiesce(host);
                should_retry = in_flight;
                continue;
            }
            // Other threads' writes in flight may still close a zone (fio's
            // any_io_in_flight covers every job).
            if self.st.inflight > self.f().inflight {
                return Pick::Wait;
            }
            return Pick::None;
        }
    }

    /// fio's zbd_find_zone: the next (sequential) or nearest (random) zone with at
    /// least `min_bytes` below its write pointer.
    fn find_zone(&self, zb: usize, min_bytes: u64) -> Option<usize> {
        let (min, max) = (self.f().min, self.f().max);
        let ok = |z: usize| {
            !self.st.zones[z].offline && self.st.zones[z].start + min_bytes <= self.st.zones[z].wp
        };
        let mut up = zb + 1;
        let mut down = zb as isize - 1;
        while up < max || down >= min as isize {
            if up < max {
                if ok(up) {
                    return Some(up);
                }
            } else if !self.c.random {
                break;
            }
            if self.c.random && down >= min as isize && ok(down as usize) {
                return Some(down as usize);
            }
            up += 1;
            down -= 1;
        }
        None
    }

    fn adjust(&mut self, mut io: NextIo, host: &mut dyn ZoneHost) -> Adjusted {
        self.take_completions(host);
        match io.op {
            IoOp::Read | IoOp::Write => {}
            IoOp::Trim => return self.trim(io),
            _ => return Adjusted::Io(io),
        }
        // A mixed job's read of nothing written yet becomes a write (the generator
        // draws it as one: reads_become_writes).
        if io.op == IoOp::Read && self.c.mixed && !self.c.read_beyond_wp && self.st.data == 0 {
            io.op = IoOp::Write;
        }
        let d = dir(io.op);
        let min_bs = self.c.min_bs[d];
        let region = self.f().region;
        // Sequential writes past a zone's capacity go on at the next zone.
        let z = self.zone_of(io.offset);
        if !self.c.random
            && io.op == IoOp::Write
            && io.offset >= self.cap_end(z)
            && z < self.f().max
        {
            io.offset = self.zone_end(z);
            if !self.valid(io.offset) {
                // The end of the file: fio's job ends there unless io_size asks for more.
                if self.c.pass_bytes <= region.len {
                    return Adjusted::End;
                }
                io.offset = region.start;
            }
        }
        let mut zb = self.zone_of(io.offset);
        let orig = zb;
        if !self.st.zones[zb].has_wp {
            return Adjusted::Io(self.conventional(io, zb, min_bs));
        }
        if io.op == IoOp::Read {
            return self.read(io, zb, orig, min_bs);
        }
        // A write.
        if io.len > self.st.zone_size {
            return Adjusted::Error(
                libc::EINVAL,
                format!(
                    "I/O length {} exceeds the zone size {}",
                    io.len, self.st.zone_size
                ),
            );
        }
        if !self.open_zone(zb) {
            match self.convert_to_open_zone(host, io.offset, d) {
                Pick::Zone(z) => zb = z,
                Pick::None => return Adjusted::End,
                Pick::Wait => return Adjusted::Wait,
            }
        }
        if self.held_by_other(zb) {
            return Adjusted::Wait;
        }
        let mut reset = false;
        if self.c.reset_frequency > 0.0
            && self.st.wp_data as f64 >= region.len as f64 * self.c.reset_threshold
        {
            self.st.write_cnt = self.st.write_cnt.saturating_sub(1);
            if self.st.write_cnt == 0 {
                arm_write_cnt(self.st, self.c);
                reset = true;
            }
        }
        if reset || self.full(zb, min_bs) {
            self.quiesce(host);
            if let Err(e) = self.reset_zone(zb) {
                return e;
            }
            if self.st.zones[zb].capacity < min_bs {
                return Adjusted::Error(
                    libc::EINVAL,
                    format!(
                        "zone capacity {} is smaller than the block size {min_bs}",
                        self.st.zones[zb].capacity
                    ),
                );
            }
        }
        io.offset = self.st.zones[zb].wp;
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
        self.hold(zb);
        Adjusted::Io(io)
    }

    /// A read stays below a write pointer (fio's DDIR_READ adjustment).
    fn read(&mut self, mut io: NextIo, mut zb: usize, orig: usize, min_bs: u64) -> Adjusted {
        let random = self.c.random;
        if self.c.read_beyond_wp && !self.st.zones[zb].offline {
            return Adjusted::Io(io);
        }
        let z = &self.st.zones[zb];
        let mut range = if z.offline { 0 } else { z.wp - z.start };
        if range < min_bs || (!random && io.offset + min_bs > z.wp) {
            let Some(found) = self.find_zone(zb, min_bs) else {
                return Adjusted::End;
            };
            zb = found;
            range = self.st.zones[zb].wp - self.st.zones[zb].start;
            if !random {
                io.offset = self.st.zones[zb].start;
            }
        }
        let start = self.st.zones[zb].start;
        if range <= io.len {
            io.offset = start;
        } else if random {
            let within = (io.offset - self.st.zones[orig].start) % (range - io.len);
            io.offset = start + within / min_bs * min_bs;
        }
        if !self.st.zones[zb].has_wp {
            return Adjusted::Io(io);
        }
        let len = io.len.min(self.st.zones[zb].wp - io.offset) / min_bs * min_bs;
        if len > 0 && len < io.len {
            io.len = len;
        }
        Adjusted::Io(io)
    }

    /// A trim resets its zone (fio's DDIR_TRIM adjustment and zbd_do_io_u_trim): a
    /// random one goes to a zone with data; it must start at its zone's start. The
    /// trim itself goes to the device, which empties the zone (the sim's zoned device
    /// takes a zone-aligned trim as a reset; a file has the range punched out).
    fn trim(&mut self, mut io: NextIo) -> Adjusted {
        let mut zb = self.zone_of(io.offset);
        if !self.st.zones[zb].has_wp {
            return Adjusted::Io(io);
        }
        if self.c.random && self.st.zones[zb].wp == self.st.zones[zb].start {
            match self.find_zone(zb, 1) {
                Some(z) => {
                    zb = z;
                    io.offset = self.st.zones[z].start;
                }
                None => return Adjusted::End,
            }
        }
        if io.offset != self.st.zones[zb].start {
            return Adjusted::Error(
                libc::EINVAL,
                format!("trim offset {} is not at its zone's start", io.offset),
            );
        }
        if self.held_by_other(zb) {
            return Adjusted::Wait;
        }
        let data = self.st.zones[zb].wp - self.st.zones[zb].start;
        if data > 0 {
            self.st.data = self.st.data.saturating_sub(data);
            self.st.wp_data = self.st.wp_data.saturating_sub(data);
            self.st.zones[zb].wp = self.st.zones[zb].start;
            self.j.resets += 1;
        }
        self.hold(zb);
        Adjusted::Io(io)
    }

    /// A conventional zone: reads as they are; a write may not run into a following
    /// sequential zone.
    fn conventional(&self, mut io: NextIo, zb: usize, min_bs: u64) -> NextIo {
        let Some(next) = self.st.zones.get(zb + 1) else {
            return io;
        };
        if io.op != IoOp::Write || !next.has_wp || io.offset + io.len <= next.start {
            return io;
        }
        let len = if io.offset + min_bs > next.start {
            io.offset = self.st.zones[zb].start + next.start - io.offset;
            io.len.min(next.start - io.offset)
        } else {
            next.start - io.offset
        };
        io.len = len / min_bs * min_bs;
        io
    }
}

#[cfg(test)]
mod tests;
