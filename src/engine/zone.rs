//! What a zoned device tells the runner and lets it do, whatever the engine: its zones
//! (start, size, capacity, write pointer, type, condition), its open/active limits,
//! and zone resets. An engine over a zoned device hands out a [`SharedZoned`] through
//! [`super::IoEngine::zoned`]; the runner's zbd logic (src/runner/zones/) never names
//! the engine.
//!
//! A zoned target is one device however many jobs use it (fio's zbd_info is one per
//! device, refcounted): [`Targets`] is the run's registry of such shared state, keyed
//! by target (e.g. a file name), handed to every thread's plan and engine. It is
//! built once per run by the planner, so it is no global: two runs share nothing.

use std::any::Any;
use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

/// A zone's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneType {
    /// Written anywhere, no write pointer.
    Conventional,
    /// Sequential write required: writes only at the write pointer.
    SeqWriteRequired,
}

/// A zone's condition (the kernel's BLK_ZONE_COND_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneCond {
    NotWp,
    Empty,
    ImplicitOpen,
    ExplicitOpen,
    Closed,
    Full,
    Offline,
}

/// One zone as reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneInfo {
    pub start: u64,
    pub len: u64,
    /// Writable bytes from `start` (≤ len).
    pub capacity: u64,
    /// The write pointer (for a conventional zone: its start).
    pub wp: u64,
    pub kind: ZoneType,
    pub cond: ZoneCond,
}

/// What a zoned device counted over its life (the sim's extra statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZoneCounters {
    /// The most zones open (implicitly or explicitly) at once.
    pub max_open: u32,
    /// The most zones active (open or closed with data) at once.
    pub max_active: u32,
    /// Writes the device refused (off the write pointer, past the capacity, over a
    /// limit): a zbd job never causes one.
    pub refused: u64,
}

/// A zoned device's own operations.
pub trait ZonedDevice {
    /// Every zone, in address order.
    fn report(&self) -> Vec<ZoneInfo>;
    /// The device's limits: (max open zones, max active zones); 0 = none.
    fn limits(&self) -> (u32, u32);
    /// Reset the write pointers of the zones in [start, start + len) (zone aligned).
    fn reset(&mut self, start: u64, len: u64) -> io::Result<()>;
    /// What the device counted so far.
    fn counters(&self) -> ZoneCounters {
        ZoneCounters::default()
    }
}

/// A zoned device as every engine and job on it shares it.
pub type SharedZoned = Arc<Mutex<dyn ZonedDevice + Send>>;

/// The run's shared per-target state: one value per key, made by the first thread
/// that asks for it (see the module doc).
#[derive(Default)]
pub struct Targets {
    map: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
}

impl std::fmt::Debug for Targets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Targets")
    }
}

impl Targets {
    /// The value under `key`, made by `make` if there is none yet; a message when the
    /// key holds a value of another type or `make` fails.
    pub fn get_or_make<T: Any + Send + Sync>(
        &self,
        key: &str,
        make: impl FnOnce() -> Result<T, String>,
    ) -> Result<Arc<T>, String> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = map.get(key) {
            return v
                .clone()
                .downcast::<T>()
                .map_err(|_| format!("{key}: shared by targets of different kinds"));
        }
        let v = Arc::new(make()?);
        map.insert(key.to_string(), v.clone());
        Ok(v)
    }

    /// The value under `key`, if one was made.
    pub fn get<T: Any + Send + Sync>(&self, key: &str) -> Option<Arc<T>> {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.get(key).cloned()?.downcast::<T>().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_key_made_once() {
        let t = Targets::default();
        let a = t.get_or_make("a", || Ok(1u32)).unwrap();
        let b = t
            .get_or_make("a", || -> Result<u32, String> { panic!("made twice") })
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(t.get_or_make("a", || Ok(1u64)).is_err());
        assert_eq!(
            t.get_or_make("b", || Err::<u8, _>("no".into()))
                .unwrap_err(),
            "no"
        );
        assert!(t.get::<u8>("b").is_none());
        assert_eq!(*t.get::<u32>("a").unwrap(), 1);
    }
}
