//! `--debug=zbd` lines, in fio 3.33's words (zbd.c): `FILE: using max open zones
//! limit: N`, `zbd_file_reset(FILE): swd = N` (ferrio's swd: bytes below the write
//! pointers in the region), `FILE: opening zone N`, `FILE: closing zone N`, `FILE:
//! resetting wp of zone N.` and `FILE: queued I/O (OFFSET, LEN) for zone N` per write.
//! fio's lines about its zone locks and candidate searches have no counterpart.

use crate::runner::debug_hooks::say;
use ferrio_config::DebugCategory::Zbd;
use std::fmt::Arguments;

/// The file's name when --debug=zbd is on (one test per event when off).
#[derive(Clone, Debug, Default)]
pub struct ZbdTrace(Option<Box<str>>);

impl ZbdTrace {
    /// For `file`, writing when `on`.
    pub fn new(on: bool, file: &std::path::Path) -> ZbdTrace {
        ZbdTrace(on.then(|| file.display().to_string().into_boxed_str()))
    }

    #[cold]
    fn write(f: &str, msg: Arguments) {
        say(Zbd, format_args!("{f}{msg}"));
    }

    #[inline]
    fn say(&self, msg: Arguments) {
        if let Some(f) = &self.0 {
            Self::write(f, msg);
        }
    }

    /// The job's open-zone limit (0: none) and the data under its write pointers.
    pub fn setup(&self, max_open: u32, swd: u64) {
        if max_open > 0 {
            self.say(format_args!(": using max open zones limit: {max_open}"));
        }
        if let Some(f) = &self.0 {
            say(Zbd, format_args!("zbd_file_reset({f}): swd = {swd}"));
        }
    }

    pub fn opening(&self, zone: usize) {
        self.say(format_args!(": opening zone {zone}"));
    }

    pub fn closing(&self, zone: usize) {
        self.say(format_args!(": closing zone {zone}"));
    }

    pub fn resetting(&self, zone: usize) {
        self.say(format_args!(": resetting wp of zone {zone}."));
    }

    pub fn queued(&self, offset: u64, len: u64, zone: usize) {
        self.say(format_args!(
            ": queued I/O ({offset}, {len}) for zone {zone}"
        ));
    }
}
