//! Per-thread CPU usage (getrusage(RUSAGE_THREAD)): fio's usr/sys/ctx/majf/minf.

/// A snapshot of the calling thread's resource usage.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    pub user_us: u64,
    pub sys_us: u64,
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
}

impl Usage {
    /// Usage of the calling thread so far.
    pub fn thread() -> Usage {
        // SAFETY: getrusage writes a plain struct we own; zeroed is a valid rusage.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a valid, writable rusage.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) } != 0 {
            return Usage::default();
        }
        let us = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000 + tv.tv_usec as u64;
        Usage {
            user_us: us(ru.ru_utime),
            sys_us: us(ru.ru_stime),
            ctx: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
            majf: ru.ru_majflt as u64,
            minf: ru.ru_minflt as u64,
        }
    }

    /// What changed between `earlier` and `self`.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            user_us: self.user_us.saturating_sub(earlier.user_us),
            sys_us: self.sys_us.saturating_sub(earlier.sys_us),
            ctx: self.ctx.saturating_sub(earlier.ctx),
            majf: self.majf.saturating_sub(earlier.majf),
            minf: self.minf.saturating_sub(earlier.minf),
        }
    }

    pub fn add(&mut self, o: &Usage) {
        self.user_us += o.user_us;
        self.sys_us += o.sys_us;
        self.ctx += o.ctx;
        self.majf += o.majf;
        self.minf += o.minf;
    }
}
