//! One zone table per zoned target (fio's zoned_block_device_info, shared by every
//! job and file on a device): each zone's write pointer, capacity, whether it is open
//! and by whom, the device-wide open-zone list and limit, the data below write
//! pointers and the reset-frequency counter. Every thread that targets the file or
//! device holds the same table (an `Arc` from the run's [`Targets`] registry, keyed by
//! the file name as fio keys zbd_info), and changes it under its one lock.
//!
//! A thread that picks a zone to write (or trim) holds it until the I/O has reached
//! the engine ([`ZoneTable::release`]): another thread waits for the zone rather than
//! moving the write pointer behind the device's back, so a zoned device sees each
//! zone's writes in write-pointer order (fio holds its zone lock as long).
//!
//! [`Targets`]: crate::engine::zone::Targets

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// One zone of a table.
#[derive(Clone, Debug, Default)]
pub(super) struct Zone {
    pub start: u64,
    pub capacity: u64,
    /// Write pointer; for a conventional or full zone, the end of its capacity.
    pub wp: u64,
    /// Sequential write required (a conventional zone has no write pointer).
    pub has_wp: bool,
    pub offline: bool,
    /// In the device's open-zone list.
    pub open: bool,
    /// The open-zone count of the job that opened it (job_max_open_zones), given
    /// back when the zone closes, whoever closes it.
    pub opener: Option<Arc<AtomicU32>>,
    /// The thread that picked it for a write or trim not yet queued to the engine.
    pub held_by: Option<u64>,
}

/// The shared state of one zoned target.
#[derive(Debug)]
pub(super) struct State {
    pub zone_size: u64,
    /// Every zone, then a sentinel at the end.
    pub zones: Vec<Zone>,
    /// Zones open, in the order they were opened (tracked only under a limit).
    pub open: Vec<usize>,
    /// The device-wide open-zone limit (0: none), fixed by the first job.
    pub max_open: u32,
    /// Bytes below write pointers, all zones / write-pointer zones (fio's
    /// sectors_with_data and wp_sectors_with_data).
    pub data: u64,
    pub wp_data: u64,
    /// Writes until the next threshold-triggered reset (fio's write_cnt).
    pub write_cnt: u32,
    /// Writes queued by every thread and not yet seen complete.
    pub inflight: u64,
    /// The zones are a device's: resets go to it.
    pub device: bool,
    /// The most zones in the open list at once (the run's check of max_open_zones).
    pub open_max: u32,
}

/// A zoned target's table, shared by every thread on it.
#[derive(Debug)]
pub struct ZoneTable {
    state: Mutex<State>,
    /// Signalled when a held zone is released or writes complete.
    cv: Condvar,
}

impl ZoneTable {
    pub(super) fn new(zone_size: u64, mut zones: Vec<Zone>, max_open: u32, device: bool) -> Self {
        let nr = zones.len() as u64;
        zones.push(Zone {
            start: nr * zone_size,
            wp: nr * zone_size,
            offline: true,
            ..Default::default()
        });
        ZoneTable {
            state: Mutex::new(State {
                zone_size,
                zones,
                open: Vec::new(),
                max_open,
                data: 0,
                wp_data: 0,
                write_cnt: 0,
                inflight: 0,
                device,
                open_max: 0,
            }),
            cv: Condvar::new(),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait (the lock given up meanwhile) for another thread to release a zone or
    /// see its writes complete; a bounded wait, the caller looks again either way.
    pub(super) fn wait<'a>(&self, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        match self.cv.wait_timeout(g, Duration::from_millis(1)) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        }
    }

    pub(super) fn notify(&self) {
        self.cv.notify_all();
    }

    /// Thread `me` no longer holds zone `z` (its I/O reached the engine).
    pub(super) fn release(&self, z: usize, me: u64) {
        let mut st = self.lock();
        if st.zones[z].held_by == Some(me) {
            st.zones[z].held_by = None;
        }
        drop(st);
        self.notify();
    }
}

impl State {
    /// Take zone `z` into the open list for the job counting `job_open`, within the
    /// device's and the job's limits (fio's zbd_open_zone).
    pub(super) fn open_zone(&mut self, z: usize, job_open: &Arc<AtomicU32>, job_max: u32) -> bool {
        if self.zones[z].offline {
            return false;
        }
        if self.max_open == 0 {
            return true;
        }
        if self.zones[z].open {
            // Filled by writes in flight: treated as full.
            return self.zones[z].wp < self.zones[z].start + self.zones[z].capacity;
        }
        let n = self.open.len() as u32;
        if (job_max > 0 && job_open.load(Ordering::Relaxed) >= job_max) || n >= self.max_open {
            return false;
        }
        self.open.push(z);
        self.open_max = self.open_max.max(self.open.len() as u32);
        job_open.fetch_add(1, Ordering::Relaxed);
        self.zones[z].open = true;
        self.zones[z].opener = Some(job_open.clone());
        true
    }

    pub(super) fn close_zone(&mut self, z: usize) {
        if let Some(i) = self.open.iter().position(|&o| o == z) {
            self.open.remove(i);
        }
        self.zones[z].open = false;
        if let Some(c) = self.zones[z].opener.take() {
            c.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(max_open: u32) -> ZoneTable {
        let zones = (0..4)
            .map(|i| Zone {
                start: i * 64,
                capacity: 64,
                wp: i * 64,
                has_wp: true,
                ..Default::default()
            })
            .collect();
        ZoneTable::new(64, zones, max_open, false)
    }

    #[test]
    fn open_limits_are_the_devices_and_each_jobs() {
        let t = table(3);
        let (a, b) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
        let mut st = t.lock();
        // Job a may open 2, job b the device's remaining 1.
        assert!(st.open_zone(0, &a, 2) && st.open_zone(1, &a, 2));
        assert!(!st.open_zone(2, &a, 2));
        assert!(st.open_zone(2, &b, 2));
        assert!(!st.open_zone(3, &b, 2), "the device's limit");
        // A zone already open is writable by anyone.
        assert!(st.open_zone(0, &b, 2));
        assert_eq!((st.open.len(), st.open_max), (3, 3));
        // Whoever closes a zone, its opener's count goes down.
        st.close_zone(0);
        assert_eq!(a.load(Ordering::Relaxed), 1);
        assert!(st.open_zone(3, &b, 2));
        assert_eq!(b.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_held_zone_is_released_only_by_its_holder() {
        let t = table(0);
        t.lock().zones[1].held_by = Some(7);
        t.release(1, 8);
        assert_eq!(t.lock().zones[1].held_by, Some(7));
        t.release(1, 7);
        assert_eq!(t.lock().zones[1].held_by, None);
    }
}
