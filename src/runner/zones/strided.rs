//! `zonemode=strided`: fio's setup_strided_zone_mode. The job does `zonesize` bytes of
//! I/O inside a window of `zonerange` bytes, then moves the window on by
//! `zonerange + zoneskip` (back to the start past the end of the file). Offsets are
//! drawn inside the window: sequential ones continue from the last position (back to
//! the window's start when it leaves the window), random ones are blocks of the
//! window, with the random map covering one window and cleared each time the window
//! was done once over.

/// One thread's strided state (fio's td->zone_bytes and the file's moving offset).
#[derive(Clone, Debug)]
pub struct Strided {
    size: u64,
    range: u64,
    skip: u64,
    /// Bytes issued in the current window (fio's zone_bytes).
    bytes: u64,
    /// The window's start, relative to the region's start.
    window: u64,
    /// The file's end relative to the region's start: the window wraps there.
    end: u64,
}

impl Strided {
    /// `end`: where the file ends, relative to the region's start.
    pub fn new(size: u64, range: u64, skip: u64, end: u64) -> Strided {
        Strided {
            size: size.max(1),
            range: range.max(1),
            skip,
            bytes: 0,
            window: 0,
            end,
        }
    }

    /// The window's start, relative to the region.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// The window's length: what random offsets are drawn in.
    pub fn range(&self) -> u64 {
        self.range
    }

    /// Before an offset is chosen in a direction whose next sequential position is
    /// `pos`: move to the next window once zonesize bytes are done, keep `pos` inside
    /// the window. True when the file's positions and random map start over at the
    /// window (each time a window's worth was issued).
    pub fn before(&mut self, pos: &mut u64) -> bool {
        if self.bytes >= self.size {
            self.bytes = 0;
            self.window += self.range + self.skip;
            if self.window >= self.end {
                self.window = 0;
            }
            *pos = self.window;
        }
        if *pos >= self.window + self.range {
            *pos = self.window;
        }
        self.bytes.is_multiple_of(self.range)
    }

    /// An I/O of `len` bytes was generated.
    pub fn issued(&mut self, len: u64) {
        self.bytes += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sequential offsets fio 3.33 prints for rw=read bs=4k size=128k with
    /// zonesize=8k zonerange=32k (tests/differential_zones.rs checks it against fio).
    #[test]
    fn sequential_windows_wrap_at_the_end() {
        let mut s = Strided::new(8192, 32768, 0, 131072);
        let mut pos = 0;
        let mut got = Vec::new();
        for _ in 0..10 {
            s.before(&mut pos);
            got.push(pos / 1024);
            pos += 4096;
            s.issued(4096);
        }
        assert_eq!(got, [0, 4, 32, 36, 64, 68, 96, 100, 0, 4]);
    }

    #[test]
    fn a_window_smaller_than_the_zone_is_done_over() {
        let mut s = Strided::new(16384, 8192, 0, 65536);
        let mut pos = 0;
        let mut got = Vec::new();
        for _ in 0..6 {
            s.before(&mut pos);
            got.push(pos / 1024);
            pos += 4096;
            s.issued(4096);
        }
        assert_eq!(got, [0, 4, 0, 4, 8, 12]);
    }
}
