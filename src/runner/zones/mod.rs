//! Zones in the runner (docs/zones.md): `zonemode=strided` (the offset generator does
//! zonesize bytes in a zonerange window, then moves on by zonerange + zoneskip, as fio's
//! setup_strided_zone_mode) and `zonemode=zbd` (every write goes to a zone's write
//! pointer, within the open-zone limits, with resets; reads stay below write
//! pointers, as fio's zbd.c), against a zoned device's state or, on a device without
//! zones, zones the runner emulates.

pub mod adjust;
pub mod strided;
pub mod table;
pub mod trace;
pub mod zbd;

pub use adjust::{Adjusted, ZoneHost};
pub use strided::Strided;
pub use table::ZoneTable;
pub use zbd::Zbd;

/// zonemode=zbd's hooks in the offset generator: a drawn read becomes a write while
/// nothing is written (fio's zbd_adjust_ddir), and the random map is marked once the
/// I/O is moved, at the drawn offset, for the moved length (as fio's fill_io_u).
#[derive(Clone, Debug, Default)]
pub struct GenHooks {
    pub reads_as_writes: bool,
    /// The drawn I/O's (file, direction, offset in the region) to mark.
    pub mark: Option<(usize, usize, u64)>,
}
