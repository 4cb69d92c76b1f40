//! What a zoned device tells the runner and lets it do, whatever the engine: its zones
//! (start, size, capacity, write pointer, type, condition), its open/active limits,
//! and zone resets. An engine over a zoned device hands out a [`ZonedDevice`] through
//! [`super::IoEngine::zoned`]; the runner's zbd logic (src/runner/zones/) never names
//! the engine.

use std::io;

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

/// A zoned device's own operations.
pub trait ZonedDevice {
    /// Every zone, in address order.
    fn report(&self) -> Vec<ZoneInfo>;
    /// The device's limits: (max open zones, max active zones); 0 = none.
    fn limits(&self) -> (u32, u32);
    /// Reset the write pointers of the zones in [start, start + len) (zone aligned).
    fn reset(&mut self, start: u64, len: u64) -> io::Result<()>;
}
