//! `ioengine=cpuio`: burns CPU instead of doing I/O (fio's cpuio). Each "I/O" is one
//! burn cycle — a busy loop of cpuchunks µs (cpumode=noop) or four sorts of 256 Ki
//! integers (cpumode=qsort) — and the think time after it (set from cpuload when the
//! job is built) idles the rest, so the thread uses cpuload percent of a CPU. In
//! qsort mode the think time follows how long the last sort took, as in fio. With
//! exit_on_io_done=1 the job ends once every thread that does I/O has finished.

use super::{EngineOptions, IoEngine, IoUnit, Queued};
use ferrio_config::ext::local::{CpuMode, LocalSpec};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// fio sorts this many 32-bit integers (1 MiB).
const QSORT_LEN: usize = 256 << 10;

pub struct CpuEngine {
    spec: LocalSpec,
    /// The sort's data (qsort mode), filled once like fio's.
    data: Vec<i32>,
    /// The think time the last sort asks for.
    think_ns: Option<u64>,
    /// exit_on_io_done: the run's count of unfinished I/O threads.
    io_left: Option<Arc<AtomicUsize>>,
    /// No I/O thread was left: the job is over.
    ended: bool,
}

impl CpuEngine {
    pub fn new(o: &EngineOptions) -> Self {
        let data = if o.local.cpumode == CpuMode::Qsort {
            fill(QSORT_LEN)
        } else {
            Vec::new()
        };
        CpuEngine {
            spec: o.local.clone(),
            data,
            think_ns: None,
            io_left: o
                .io_threads_left
                .clone()
                .filter(|_| o.local.exit_on_io_done),
            ended: false,
        }
    }

    fn qsort(&mut self) {
        let start = Instant::now();
        self.data.sort_unstable();
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        {
            let len = self.data.len() * 4;
            // SAFETY: the Vec's i32 storage is `len` initialised bytes, and every
            // byte pattern is a valid i32 afterwards; nothing else borrows it.
            let bytes =
                unsafe { std::slice::from_raw_parts_mut(self.data.as_mut_ptr().cast::<u8>(), len) };
            // fio re-orders by signed byte value.
            bytes.sort_unstable_by_key(|&b| b as i8);
        }
        self.data.sort_unstable_by(|a, b| b.cmp(a));
        let cycle_us = start.elapsed().as_micros() as u64;
        self.think_ns = Some(self.spec.cpu_think_us(cycle_us) * 1000);
    }
}

/// fio's multiply-with-carry generator, seeded as fio seeds it.
fn fill(n: usize) -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..n)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
            (z << 16).wrapping_add(w) as i32
        })
        .collect()
}

/// Keep the CPU busy for `us` microseconds.
fn spin(us: u64) {
    let end = Instant::now() + Duration::from_micros(us);
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

impl IoEngine for CpuEngine {
    fn queue(&mut self, _index: usize, u: &mut IoUnit) -> Queued {
        if let Some(left) = &self.io_left {
            if left.load(Ordering::SeqCst) == 0 {
                self.ended = true;
                u.result = u.len as i64;
                return Queued::Completed;
            }
        }
        match self.spec.cpumode {
            CpuMode::Noop => spin(self.spec.cpuchunks_us),
            CpuMode::Qsort => self.qsort(),
        }
        // Counted as an I/O, with no bytes (Accounting::NoData).
        u.result = u.len as i64;
        Queued::Completed
    }

    fn think_time_ns(&self) -> Option<u64> {
        self.think_ns
    }

    fn ended(&self) -> bool {
        self.ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sort_data_is_fios_generator_and_a_sort_sets_the_think_time() {
        let d = fill(2);
        // z = 36969*(362436069&65535) + (362436069>>16), w likewise (fio's mwc32).
        let z = 36969u32 * (362_436_069 & 65535) + (362_436_069 >> 16);
        let w = 18000u32 * (521_288_629 & 65535) + (521_288_629 >> 16);
        assert_eq!(d[0], (z << 16).wrapping_add(w) as i32);
        let o = EngineOptions {
            local: LocalSpec {
                cpumode: CpuMode::Qsort,
                cpuload: 50,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut e = CpuEngine::new(&o);
        assert_eq!(e.data.len(), QSORT_LEN);
        assert!(e.think_time_ns().is_none());
        e.qsort();
        assert!(e.think_time_ns().unwrap() > 0);
        assert!(
            e.data.windows(2).all(|p| p[0] >= p[1]),
            "ends sorted descending"
        );
    }
}
