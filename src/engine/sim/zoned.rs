//! The simulated device's zoned mode (docs/sim.md, "Zoned mode"): a host-managed
//! device of equal zones, the first `sim_conv_zones` conventional, the rest
//! sequential-write-required with a write pointer, a capacity (writable bytes) and a
//! condition, enforcing what a real zoned device (the kernel's null_blk) enforces:
//!
//! - a write to a sequential zone must start at its write pointer and end within its
//!   capacity, and a full zone takes no write: else EIO;
//! - a write may not cross from a zone into the next: EIO;
//! - a write to an empty or closed zone opens it implicitly; at the open limit an
//!   implicitly open zone is closed to make room (as null_blk), and when every open
//!   zone was opened explicitly the write fails with ETOOMANYREFS;
//! - open and closed zones with data are active; a write that would make one more
//!   active zone than the limit fails with EOVERFLOW;
//! - reset (zone aligned, sequential zones only, else EINVAL/EIO) empties zones,
//!   finish fills them.
//!
//! Checks happen when a command is queued, in submission order, as a device sees them.
//! One device serves every job that targets it (the engine shares it by file name,
//! src/engine/sim/mod.rs), so the rules hold across jobs; the device counts the most
//! zones open and active at once and the writes it refused ([`ZoneCounters`]).

use crate::engine::zone::{ZoneCond, ZoneCounters, ZoneInfo, ZoneType, ZonedDevice};
use ferrio_config::ext::SimZoneSpec;
use std::io;

#[derive(Clone, Debug)]
struct Zone {
    wp: u64,
    cond: ZoneCond,
    conventional: bool,
}

/// The zones of one simulated device.
#[derive(Clone, Debug)]
pub struct Zones {
    size: u64,
    cap: u64,
    max_open: u32,
    max_active: u32,
    zones: Vec<Zone>,
    counters: ZoneCounters,
}

fn err(errno: i32) -> io::Error {
    io::Error::from_raw_os_error(errno)
}

impl Zones {
    /// A device of `capacity` bytes with the given geometry; a message naming the
    /// option when it cannot be built.
    pub fn new(spec: &SimZoneSpec, capacity: u64) -> Result<Zones, String> {
        let size = spec.size;
        if size < 512 || !size.is_multiple_of(512) {
            return Err(format!(
                "sim_zonesize={size} must be a multiple of 512 bytes"
            ));
        }
        if spec.cap() > size {
            return Err(format!(
                "sim_zonecap={} is larger than sim_zonesize={size}",
                spec.cap()
            ));
        }
        if capacity < size || !capacity.is_multiple_of(size) {
            return Err(format!(
                "the zoned device's capacity {capacity} (sim_capacity=, else offset + size) is not a whole number of zones of sim_zonesize={size}"
            ));
        }
        let n = capacity / size;
        let conv = spec.conventional as u64;
        if conv >= n {
            return Err(format!(
                "sim_conv_zones={conv} leaves no sequential zone on a device of {n} zones"
            ));
        }
        let zones = (0..n)
            .map(|i| Zone {
                wp: i * size,
                cond: if i < conv {
                    ZoneCond::NotWp
                } else {
                    ZoneCond::Empty
                },
                conventional: i < conv,
            })
            .collect();
        Ok(Zones {
            size,
            cap: spec.cap(),
            max_open: spec.max_open,
            max_active: spec.max_active,
            zones,
            counters: ZoneCounters::default(),
        })
    }

    fn count(&self, f: impl Fn(ZoneCond) -> bool) -> u32 {
        self.zones.iter().filter(|z| f(z.cond)).count() as u32
    }

    fn open_count(&self) -> u32 {
        self.count(|c| matches!(c, ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen))
    }

    fn active_count(&self) -> u32 {
        self.count(|c| {
            matches!(
                c,
                ZoneCond::ImplicitOpen | ZoneCond::ExplicitOpen | ZoneCond::Closed
            )
        })
    }

    /// Make room to open zone `i` (empty or closed): the active limit for an empty
    /// zone, then the open limit, closing an implicitly open zone if one is.
    fn make_open(&mut self, i: usize) -> io::Result<()> {
        if self.zones[i].cond == ZoneCond::Empty
            && self.max_active > 0
            && self.active_count() >= self.max_active
        {
            return Err(err(libc::EOVERFLOW));
        }
        if self.max_open > 0 && self.open_count() >= self.max_open {
            let victim = self
                .zones
                .iter()
                .position(|z| z.cond == ZoneCond::ImplicitOpen)
                .ok_or_else(|| err(libc::ETOOMANYREFS))?;
            self.zones[victim].cond = ZoneCond::Closed;
        }
        Ok(())
    }

    /// The device's size in bytes.
    pub fn capacity(&self) -> u64 {
        self.zones.len() as u64 * self.size
    }

    /// Whether `spec` describes this device's geometry and limits.
    pub fn is(&self, spec: &SimZoneSpec) -> bool {
        let conv = self.zones.iter().filter(|z| z.conventional).count() as u32;
        (self.size, self.cap, self.max_open, self.max_active, conv)
            == (
                spec.size,
                spec.cap(),
                spec.max_open,
                spec.max_active,
                spec.conventional,
            )
    }

    /// A write of `len` bytes at `offset`: checked and applied, or the errno a real
    /// zoned device returns (and counted as refused).
    pub fn write(&mut self, offset: u64, len: u64) -> io::Result<()> {
        let r = self.apply_write(offset, len);
        if r.is_err() {
            self.counters.refused += 1;
        }
        let (open, active) = (self.open_count(), self.active_count());
        let c = &mut self.counters;
        c.max_open = c.max_open.max(open);
        c.max_active = c.max_active.max(active);
        r
    }

    fn apply_write(&mut self, offset: u64, len: u64) -> io::Result<()> {
        let i = (offset / self.size) as usize;
        let Some(z) = self.zones.get(i) else {
            return Err(err(libc::EIO));
        };
        let start = i as u64 * self.size;
        if offset + len > start + self.size {
            return Err(err(libc::EIO));
        }
        if z.conventional {
            return Ok(());
        }
        if z.cond == ZoneCond::Full || offset != z.wp || offset + len > start + self.cap {
            return Err(err(libc::EIO));
        }
        if matches!(z.cond, ZoneCond::Empty | ZoneCond::Closed) {
            self.make_open(i)?;
            self.zones[i].cond = ZoneCond::ImplicitOpen;
        }
        let z = &mut self.zones[i];
        z.wp += len;
        if z.wp == start + self.cap {
            z.cond = ZoneCond::Full;
        }
        Ok(())
    }

    /// A read: anywhere on the device (beyond a write pointer it returns zeroes, as
    /// null_blk), but not past its end.
    pub fn read(&self, offset: u64, len: u64) -> io::Result<()> {
        if offset + len > self.zones.len() as u64 * self.size {
            return Err(err(libc::EIO));
        }
        Ok(())
    }

    /// A trim (discard): on sequential zones only whole zones from their start, which
    /// it empties (as a zone reset); EINVAL otherwise.
    pub fn trim(&mut self, offset: u64, len: u64) -> io::Result<()> {
        let i = (offset / self.size) as usize;
        match self.zones.get(i) {
            None => Err(err(libc::EIO)),
            Some(z) if z.conventional => self.read(offset, len),
            Some(_) => self.reset(offset, len),
        }
    }

    /// Fill zone `start` (its write pointer to the end of its capacity).
    pub fn finish(&mut self, start: u64) -> io::Result<()> {
        let i = self.aligned(start)?;
        let z = &mut self.zones[i];
        z.wp = start + self.cap;
        z.cond = ZoneCond::Full;
        Ok(())
    }

    fn aligned(&self, start: u64) -> io::Result<usize> {
        let i = (start / self.size) as usize;
        if !start.is_multiple_of(self.size) || i >= self.zones.len() {
            return Err(err(libc::EINVAL));
        }
        if self.zones[i].conventional {
            return Err(err(libc::EIO));
        }
        Ok(i)
    }
}

impl ZonedDevice for Zones {
    fn report(&self) -> Vec<ZoneInfo> {
        self.zones
            .iter()
            .enumerate()
            .map(|(i, z)| ZoneInfo {
                start: i as u64 * self.size,
                len: self.size,
                capacity: if z.conventional { self.size } else { self.cap },
                wp: z.wp,
                kind: if z.conventional {
                    ZoneType::Conventional
                } else {
                    ZoneType::SeqWriteRequired
                },
                cond: z.cond,
            })
            .collect()
    }

    fn limits(&self) -> (u32, u32) {
        (self.max_open, self.max_active)
    }

    fn counters(&self) -> ZoneCounters {
        self.counters
    }

    fn reset(&mut self, start: u64, len: u64) -> io::Result<()> {
        if !len.is_multiple_of(self.size) {
            return Err(err(libc::EINVAL));
        }
        let first = self.aligned(start)?;
        for i in first..first + (len / self.size) as usize {
            let z = self.zones.get_mut(i).ok_or_else(|| err(libc::EINVAL))?;
            if z.conventional {
                return Err(err(libc::EIO));
            }
            z.wp = i as u64 * self.size;
            z.cond = ZoneCond::Empty;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: u64 = 1024;

    fn dev(max_open: u32, max_active: u32) -> Zones {
        let spec = SimZoneSpec {
            size: 64 * K,
            capacity: 48 * K,
            max_open,
            max_active,
            conventional: 1,
        };
        Zones::new(&spec, 8 * 64 * K).unwrap()
    }

    fn errno(r: io::Result<()>) -> i32 {
        r.unwrap_err().raw_os_error().unwrap()
    }

    #[test]
    fn writes_only_at_the_write_pointer_within_the_capacity() {
        let mut d = dev(0, 0);
        let z1 = 64 * K;
        assert_eq!(errno(d.write(z1 + 4 * K, 4 * K)), libc::EIO);
        d.write(z1, 16 * K).unwrap();
        assert_eq!(errno(d.write(z1, 4 * K)), libc::EIO);
        d.write(z1 + 16 * K, 16 * K).unwrap();
        // Past the capacity (48k of 64k).
        assert_eq!(errno(d.write(z1 + 32 * K, 32 * K)), libc::EIO);
        d.write(z1 + 32 * K, 16 * K).unwrap();
        let r = d.report();
        assert_eq!((r[1].wp, r[1].cond), (z1 + 48 * K, ZoneCond::Full));
        assert_eq!(errno(d.write(z1 + 48 * K, 4 * K)), libc::EIO);
        // The conventional zone takes writes anywhere, but not across into zone 1.
        d.write(8 * K, 4 * K).unwrap();
        d.write(0, 4 * K).unwrap();
        assert_eq!(errno(d.write(60 * K, 8 * K)), libc::EIO);
        // Past the device's end.
        assert_eq!(errno(d.write(8 * 64 * K, 4 * K)), libc::EIO);
    }

    #[test]
    fn reset_and_finish() {
        let mut d = dev(0, 0);
        d.write(2 * 64 * K, 8 * K).unwrap();
        d.reset(2 * 64 * K, 64 * K).unwrap();
        assert_eq!(d.report()[2].cond, ZoneCond::Empty);
        d.write(2 * 64 * K, 8 * K).unwrap();
        assert_eq!(errno(d.reset(2 * 64 * K + 512, 64 * K)), libc::EINVAL);
        assert_eq!(errno(d.reset(0, 64 * K)), libc::EIO);
        d.finish(3 * 64 * K).unwrap();
        assert_eq!(errno(d.write(3 * 64 * K, 4 * K)), libc::EIO);
        assert_eq!(d.report()[3].wp, 3 * 64 * K + 48 * K);
        // A trim of a whole zone resets it; of part of one, EINVAL.
        d.trim(3 * 64 * K, 64 * K).unwrap();
        assert_eq!(d.report()[3].cond, ZoneCond::Empty);
        assert_eq!(errno(d.trim(3 * 64 * K + 4 * K, 4 * K)), libc::EINVAL);
        d.trim(4 * K, 4 * K).unwrap();
    }

    #[test]
    fn the_open_limit_closes_an_implicitly_open_zone() {
        let mut d = dev(2, 0);
        for z in 1..=3 {
            d.write(z * 64 * K, 4 * K).unwrap();
        }
        let conds: Vec<ZoneCond> = d.report().iter().map(|z| z.cond).collect();
        assert_eq!(
            &conds[1..4],
            [
                ZoneCond::Closed,
                ZoneCond::ImplicitOpen,
                ZoneCond::ImplicitOpen
            ]
        );
        assert_eq!(d.open_count(), 2);
        assert_eq!(d.counters().max_open, 2);
    }

    #[test]
    fn the_active_limit_fails_the_write_with_eoverflow() {
        let mut d = dev(0, 2);
        d.write(64 * K, 4 * K).unwrap();
        d.write(2 * 64 * K, 4 * K).unwrap();
        assert_eq!(errno(d.write(3 * 64 * K, 4 * K)), libc::EOVERFLOW);
        // A full zone is no longer active.
        d.write(64 * K + 4 * K, 44 * K).unwrap();
        d.write(3 * 64 * K, 4 * K).unwrap();
        let c = d.counters();
        assert_eq!((c.max_active, c.refused), (2, 1));
    }

    #[test]
    fn geometry_is_checked() {
        let spec = SimZoneSpec {
            size: 64 * K,
            ..Default::default()
        };
        assert!(Zones::new(&spec, 100 * K)
            .unwrap_err()
            .contains("whole number of zones"));
        let spec = SimZoneSpec {
            size: 64 * K,
            capacity: 128 * K,
            ..Default::default()
        };
        assert!(Zones::new(&spec, 128 * K)
            .unwrap_err()
            .contains("sim_zonecap"));
    }
}
