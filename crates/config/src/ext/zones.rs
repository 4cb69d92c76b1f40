//! Zones: fio's `zonemode=none|strided|zbd` with zonesize, zonerange, zoneskip,
//! zonecapacity, the open-zone limits, zone_reset_threshold/frequency, read_beyond_wp,
//! ignore_zone_limits; values given in zones (`size=2z`); and the simulated device's
//! zoned geometry (`sim_zonesize=` and friends, docs/zones.md).

/// zonemode=.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ZoneMode {
    /// No zones (fio's default).
    #[default]
    None,
    /// zonesize bytes of I/O in each zonerange-sized window, then skip zoneskip.
    Strided,
    /// Zoned block device rules: writes go to write pointers.
    Zbd,
}

/// Options given in zone units (`size=2z`): fio resolves them with the zone size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZoneUnits {
    pub size: Option<u64>,
    pub io_size: Option<u64>,
    pub offset: Option<u64>,
    pub offset_increment: Option<u64>,
    pub skip: Option<u64>,
}

impl ZoneUnits {
    pub fn any(&self) -> bool {
        self.size.is_some()
            || self.io_size.is_some()
            || self.offset.is_some()
            || self.offset_increment.is_some()
            || self.skip.is_some()
    }
}

/// The job's zone options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZoneSpec {
    pub mode: ZoneMode,
    /// zonesize= (bytes; 0 = the device's, for zbd).
    pub size: u64,
    /// zonerange= (strided; 0 = zonesize).
    pub range: u64,
    /// zoneskip=.
    pub skip: u64,
    /// zonecapacity= (0 = zonesize).
    pub capacity: u64,
    /// max_open_zones= (0 = the device's limit, or none).
    pub max_open: u32,
    /// job_max_open_zones=.
    pub job_max_open: u32,
    /// zone_reset_threshold= (fraction of the region's write-pointer zones written).
    pub reset_threshold: f64,
    /// zone_reset_frequency= (fraction of writes that may reset a zone).
    pub reset_frequency: f64,
    pub read_beyond_wp: bool,
    pub ignore_limits: bool,
    pub units: ZoneUnits,
}

/// A value in zone units: `2z` → Some(2); anything else → None. `Err` for a 'z'
/// suffix after something that is not a whole number (fio: "unexpected zone value").
pub fn parse_zone_units(v: &str) -> Result<Option<u64>, String> {
    let t = v.trim();
    let Some(num) = t.strip_suffix('z').or_else(|| t.strip_suffix('Z')) else {
        return Ok(None);
    };
    num.parse::<u64>()
        .map(Some)
        .map_err(|_| format!("unexpected zone value '{t}' (a whole number of zones, e.g. 2z)"))
}

/// The simulated device's zoned geometry (sim_zonesize= ...). Not zoned when `size` is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimZoneSpec {
    /// Zone size in bytes (sim_zonesize=); 0 = a conventional (not zoned) device.
    pub size: u64,
    /// Writable bytes per zone (sim_zonecap=); 0 = the zone size.
    pub capacity: u64,
    /// Zones that may be open at once (sim_max_open_zones=); 0 = no limit.
    pub max_open: u32,
    /// Zones that may be open or closed with data at once (sim_max_active_zones=); 0 = no limit.
    pub max_active: u32,
    /// Conventional zones at the start of the device (sim_conv_zones=).
    pub conventional: u32,
}

impl SimZoneSpec {
    pub fn zoned(&self) -> bool {
        self.size > 0
    }
    /// The writable bytes of a zone.
    pub fn cap(&self) -> u64 {
        if self.capacity == 0 {
            self.size
        } else {
            self.capacity
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_units() {
        assert_eq!(parse_zone_units("2z").unwrap(), Some(2));
        assert_eq!(parse_zone_units("4k").unwrap(), None);
        assert!(parse_zone_units("1.5z")
            .unwrap_err()
            .contains("unexpected zone value"));
        assert!(parse_zone_units("z").is_err());
    }
}
