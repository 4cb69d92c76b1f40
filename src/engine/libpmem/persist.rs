//! The stores libpmem makes durable on x86-64, without libpmem: a copy followed by a
//! cache-line flush (CLWB, else CLFLUSHOPT, else CLFLUSH, picked from CPUID at run
//! time as libpmem picks them), or non-temporal stores (MOVNTDQ) that bypass the
//! cache, and a drain (SFENCE) that orders them. libpmem's environment variables that
//! steer the same choices are honoured: `PMEM_NO_CLWB`, `PMEM_NO_CLFLUSHOPT`,
//! `PMEM_NO_MOVNT` and `PMEM_NO_FLUSH` (all `=1`).
//!
//! Every flushed line, drain and non-temporal byte is counted, so a run shows (and a
//! test checks) that the durability path was taken.

/// The instruction that writes a cache line back to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flush {
    Clwb,
    Clflushopt,
    Clflush,
    /// PMEM_NO_FLUSH=1: the platform flushes caches on power loss (eADR); only drains.
    None,
}

impl Flush {
    pub fn name(self) -> &'static str {
        match self {
            Flush::Clwb => "clwb",
            Flush::Clflushopt => "clflushopt",
            Flush::Clflush => "clflush",
            Flush::None => "none",
        }
    }
}

/// What the durability path did, for the job's extra statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Cache lines written back with the flush instruction.
    pub lines: u64,
    /// Drains (SFENCE): after each write with sync=1, and for each fsync/fdatasync.
    pub drains: u64,
    /// Bytes written with non-temporal stores (direct=1).
    pub nt_bytes: u64,
}

const LINE: usize = 64;

/// The chosen instructions and what they did.
#[derive(Debug)]
pub struct Persist {
    pub flush: Flush,
    /// Non-temporal stores available and allowed (PMEM_NO_MOVNT unset).
    pub movnt: bool,
    pub counters: Counters,
}

impl Persist {
    /// The instructions this CPU has, less those `env` turns off (libpmem's variables).
    pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Persist {
        let on = |name: &str| env(name).is_some_and(|v| v.trim() == "1");
        // CPUID leaf 7, EBX: bit 23 CLFLUSHOPT, bit 24 CLWB (SSE2, and with it CLFLUSH
        // and MOVNTDQ, are part of x86-64 itself).
        let leaf7 = if std::arch::x86_64::__cpuid(0).eax >= 7 {
            std::arch::x86_64::__cpuid_count(7, 0).ebx
        } else {
            0
        };
        let flush = if on("PMEM_NO_FLUSH") {
            Flush::None
        } else if leaf7 & (1 << 24) != 0 && !on("PMEM_NO_CLWB") {
            Flush::Clwb
        } else if leaf7 & (1 << 23) != 0 && !on("PMEM_NO_CLFLUSHOPT") {
            Flush::Clflushopt
        } else {
            Flush::Clflush
        };
        Persist {
            flush,
            movnt: !on("PMEM_NO_MOVNT"),
            counters: Counters::default(),
        }
    }

    /// libpmem's pmem_memcpy: copy `len` bytes and make them durable; `nontemporal`
    /// (direct=1) streams them past the cache, else they are copied and flushed;
    /// `drain` (sync=1) waits for them with a fence before returning.
    ///
    /// # Safety
    /// `dst` must be valid for `len` bytes of writes, `src` for `len` bytes of reads,
    /// and the two must not overlap.
    pub unsafe fn memcpy(
        &mut self,
        dst: *mut u8,
        src: *const u8,
        len: usize,
        nontemporal: bool,
        drain: bool,
    ) {
        if nontemporal && self.movnt {
            // The unaligned head and tail go through the cache and are flushed; the
            // 16-byte aligned body is streamed.
            let head = (dst.align_offset(16)).min(len);
            let body = (len - head) & !15;
            // SAFETY: the caller vouches for [dst, dst+len) and [src, src+len); each
            // piece below lies inside them.
            unsafe {
                std::ptr::copy_nonoverlapping(src, dst, head);
                self.flush_range(dst, head);
                let mut i = head;
                while i < head + body {
                    let v = std::arch::x86_64::_mm_loadu_si128(src.add(i).cast());
                    std::arch::x86_64::_mm_stream_si128(dst.add(i).cast(), v);
                    i += 16;
                }
                std::ptr::copy_nonoverlapping(src.add(i), dst.add(i), len - i);
                self.flush_range(dst.add(i), len - i);
            }
            self.counters.nt_bytes += body as u64;
        } else {
            // SAFETY: as the caller vouches.
            unsafe {
                std::ptr::copy_nonoverlapping(src, dst, len);
                self.flush_range(dst, len);
            }
        }
        if drain {
            self.drain();
        }
    }

    /// libpmem's pmem_drain: every flush and non-temporal store before it is done.
    pub fn drain(&mut self) {
        // SAFETY: SFENCE only orders stores; SSE2 is part of x86-64.
        unsafe { std::arch::x86_64::_mm_sfence() };
        self.counters.drains += 1;
    }

    /// Write back every cache line of [p, p+len).
    ///
    /// # Safety
    /// [p, p+len) must be mapped memory of this process.
    unsafe fn flush_range(&mut self, p: *mut u8, len: usize) {
        if len == 0 || self.flush == Flush::None {
            return;
        }
        let start = p as usize & !(LINE - 1);
        let end = p as usize + len;
        let mut line = start;
        while line < end {
            let a = line as *const u8;
            match self.flush {
                // SAFETY: `a` is a line of the caller's mapping; CPUID said the CPU
                // has the instruction; it writes nothing visible to the program.
                Flush::Clwb => unsafe {
                    std::arch::asm!("clwb [{0}]", in(reg) a, options(nostack, preserves_flags))
                },
                // SAFETY: as above.
                Flush::Clflushopt => unsafe {
                    std::arch::asm!("clflushopt [{0}]", in(reg) a, options(nostack, preserves_flags))
                },
                // SAFETY: as above; CLFLUSH is part of SSE2, so of every x86-64 CPU.
                Flush::Clflush => unsafe { std::arch::x86_64::_mm_clflush(a) },
                Flush::None => {}
            }
            line += LINE;
        }
        self.counters.lines += ((end - start).div_ceil(LINE)) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &'static [&'static str]) -> impl Fn(&str) -> Option<String> {
        move |name| vars.contains(&name).then(|| "1".to_string())
    }

    #[test]
    fn libpmem_variables_step_down_the_flush_instruction() {
        // Whatever this CPU has, turning both newer instructions off leaves CLFLUSH,
        // and PMEM_NO_FLUSH leaves none.
        let p = Persist::detect(&env_of(&["PMEM_NO_CLWB", "PMEM_NO_CLFLUSHOPT"]));
        assert_eq!(p.flush, Flush::Clflush);
        assert!(p.movnt);
        let p = Persist::detect(&env_of(&["PMEM_NO_FLUSH", "PMEM_NO_MOVNT"]));
        assert_eq!(p.flush, Flush::None);
        assert!(!p.movnt);
        let p = Persist::detect(&env_of(&["PMEM_NO_CLWB"]));
        assert_ne!(p.flush, Flush::Clwb);
    }

    fn copy_with(p: &mut Persist, nontemporal: bool, at: usize, len: usize) -> Vec<u8> {
        let src: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
        let mut dst = vec![0u8; len + 256];
        // SAFETY: dst holds at + len bytes (at < 256), src len bytes; distinct vectors.
        unsafe {
            p.memcpy(
                dst.as_mut_ptr().add(at),
                src.as_ptr(),
                len,
                nontemporal,
                true,
            )
        };
        assert_eq!(&dst[at..at + len], &src[..], "at {at} len {len}");
        assert!(dst[..at].iter().chain(&dst[at + len..]).all(|&b| b == 0));
        dst
    }

    #[test]
    fn every_flavour_copies_exactly_and_counts_what_it_did() {
        for vars in [
            &[][..],
            &["PMEM_NO_CLWB"][..],
            &["PMEM_NO_CLWB", "PMEM_NO_CLFLUSHOPT"][..],
            &["PMEM_NO_FLUSH"][..],
        ] {
            let mut p = Persist::detect(&move |n: &str| vars.contains(&n).then(|| "1".into()));
            for (at, len) in [(0, 4096), (3, 100), (17, 1), (64, 0), (5, 4099)] {
                copy_with(&mut p, false, at, len);
                copy_with(&mut p, true, at, len);
            }
            assert_eq!(p.counters.drains, 10);
            if p.flush == Flush::None {
                assert_eq!(p.counters.lines, 0);
            } else {
                assert!(p.counters.lines >= 4096 / 64, "{:?}", p.counters);
            }
            // 4096 + 96 (100 at 3: 13 head bytes, 80 body, 7 tail) + 4080 (4099 at 5).
            let body = 4096 + 80 + 4096 - 16;
            assert_eq!(p.counters.nt_bytes, body as u64, "{vars:?}");
        }
    }

    #[test]
    fn a_temporal_copy_flushes_every_line_it_touches() {
        let mut p = Persist::detect(&|_| None);
        let mut dst = vec![0u8; 512];
        let src = [9u8; 130];
        let at = 64 - (dst.as_ptr() as usize % 64) + 60; // 4 bytes before a line boundary
                                                         // SAFETY: at + 130 < 512; distinct buffers.
        unsafe { p.memcpy(dst.as_mut_ptr().add(at), src.as_ptr(), 130, false, false) };
        // 4 bytes in one line, 126 in the next two: three lines, no drain.
        assert_eq!((p.counters.lines, p.counters.drains), (3, 0));
    }
}
