//! Reference loops for `bench/compare-fio` (issue 21): the smallest loops that do the
//! I/O and nothing else — no statistics, no per-I/O timestamps, no buffer work — so the
//! bench can say how close ferrio's engines, with every statistic on, come to what the
//! machine allows. ferrio's runs never use them; `examples/raw_loop.rs` runs them.
//!
//! Each reads 4 KiB-aligned random blocks of one file, keeping `depth` reads in flight,
//! batched as a fio job batches them ([`Batch`]: iodepth_batch_submit,
//! iodepth_batch_complete_min/max), so that a loop and the job it is compared with make
//! the same system calls per I/O. fio's `t/io_uring` (fixed buffers, registered files,
//! submit and complete batches of 32, every completion there reaped) is the model for
//! the ring; `Batch::T_IO_URING` is its batching.

use crate::sys::rusage::Usage;
use ferrio_clock::Clock;
use io_uring::{opcode, types, IoUring};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

/// How a loop batches, as fio's options for a job: prepare and submit at most `submit`
/// reads at a time; once `depth` are in flight, wait for at least `complete_min` and
/// take at most `complete_max` completions (0: every one there, as `t/io_uring`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    pub submit: u32,
    pub complete_min: u32,
    pub complete_max: u32,
}

impl Batch {
    /// fio's `t/io_uring` defaults at depth 32: submit and wait in batches of 32, reap
    /// every completion there is.
    pub const T_IO_URING: Batch = Batch {
        submit: 32,
        complete_min: 32,
        complete_max: 0,
    };

    /// A job's batching: iodepth_batch_submit=`submit`, iodepth_batch_complete_min=`min`
    /// and iodepth_batch_complete_max left at its default (the minimum, as in fio).
    pub fn of_job(submit: u32, min: u32) -> Batch {
        Batch {
            submit,
            complete_min: min,
            complete_max: min,
        }
    }

    /// Within 1..=depth (0 for complete_max stays: all there are).
    fn clamped(self, depth: u32) -> Batch {
        Batch {
            submit: self.submit.clamp(1, depth),
            complete_min: self.complete_min.clamp(1, depth),
            complete_max: if self.complete_max == 0 {
                0
            } else {
                self.complete_max
                    .clamp(self.complete_min.clamp(1, depth), depth)
            },
        }
    }

    /// The most completions one reap takes.
    fn max_reap(self, depth: u32) -> usize {
        if self.complete_max == 0 {
            depth as usize
        } else {
            self.complete_max as usize
        }
    }
}

/// What a reference loop did: completed I/Os over `secs` seconds, in which its thread
/// used `cpu_secs` of CPU (user + system, getrusage(RUSAGE_THREAD)).
#[derive(Clone, Copy, Debug)]
pub struct RawResult {
    pub ios: u64,
    pub secs: f64,
    pub cpu_secs: f64,
}

impl RawResult {
    pub fn per_sec(&self) -> f64 {
        self.ios as f64 / self.secs.max(1e-9)
    }

    /// I/Os per CPU-second of the loop's thread: what the bench sets beside a job's
    /// I/Os per CPU-second (its usr_cpu + sys_cpu), which moves less than the rate
    /// when other work shares the CPU.
    pub fn per_cpu_sec(&self) -> f64 {
        self.ios as f64 / self.cpu_secs.max(1e-9)
    }
}

/// The start of a loop's timed part: its wall clock and its thread's CPU time.
struct Timing {
    wall: Instant,
    cpu: Usage,
}

impl Timing {
    fn start() -> Timing {
        Timing {
            wall: Instant::now(),
            cpu: Usage::thread(),
        }
    }

    fn elapsed(&self) -> Duration {
        self.wall.elapsed()
    }

    fn result(&self, ios: u64) -> RawResult {
        let secs = self.wall.elapsed().as_secs_f64();
        let cpu = Usage::thread().since(&self.cpu);
        RawResult {
            ios,
            secs,
            cpu_secs: (cpu.user_us + cpu.sys_us) as f64 / 1e6,
        }
    }
}

/// The random offsets: xorshift64*, block-aligned (no random map, as the bench's
/// ferrio and fio jobs read with `norandommap` semantics anyway at this size).
struct Offsets {
    state: u64,
    blocks: u64,
    bs: u64,
}

impl Offsets {
    fn new(file_len: u64, bs: usize) -> io::Result<Offsets> {
        let blocks = file_len / bs as u64;
        if blocks == 0 {
            return Err(io::Error::other("the file is smaller than one block"));
        }
        Ok(Offsets {
            state: 0x9e37_79b9_7f4a_7c15,
            blocks,
            bs: bs as u64,
        })
    }

    #[inline]
    fn next(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        (self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) % self.blocks) * self.bs
    }
}

/// Page-aligned buffers for `depth` blocks of `bs` bytes, one allocation.
struct Buffers {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

impl Buffers {
    fn new(depth: usize, bs: usize) -> io::Result<Buffers> {
        let layout = std::alloc::Layout::from_size_align(depth * bs, 4096)
            .map_err(|e| io::Error::other(e.to_string()))?;
        // SAFETY: the layout has a non-zero size (depth and bs are at least 1).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(io::Error::from_raw_os_error(libc::ENOMEM));
        }
        Ok(Buffers { ptr, layout })
    }

    fn at(&self, i: usize, bs: usize) -> *mut u8 {
        // SAFETY: callers pass i < depth, so the pointer stays inside the allocation.
        unsafe { self.ptr.add(i * bs) }
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout and freed once.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

fn open_for_reads(path: &Path, bs: usize) -> io::Result<(File, Offsets)> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    Ok((file, Offsets::new(len, bs)?))
}

/// io_uring: fixed buffers, a registered file, cooperative/deferred task running where
/// the kernel has it; prepares up to `batch.submit` reads, and when `depth` are in
/// flight submits and waits for `batch.complete_min` in one enter (as `t/io_uring`),
/// then reaps at most `batch.complete_max`.
pub fn uring_randread(
    path: &Path,
    bs: usize,
    depth: u32,
    batch: Batch,
    run_for: Duration,
) -> io::Result<RawResult> {
    let depth = depth.max(1);
    let batch = batch.clamped(depth);
    let (file, mut offsets) = open_for_reads(path, bs)?;
    // Declared before the ring, so that on every path the ring (and any read still in
    // flight in it) goes first.
    let bufs = Buffers::new(depth as usize, bs)?;
    let mut ring = build_ring(depth)?;
    ring.submitter().register_files(&[file.as_raw_fd()])?;
    let iovecs: Vec<libc::iovec> = (0..depth as usize)
        .map(|i| libc::iovec {
            iov_base: bufs.at(i, bs).cast(),
            iov_len: bs,
        })
        .collect();
    // SAFETY: the buffers outlive the ring: declared before it, so dropped after it.
    unsafe { ring.submitter().register_buffers(&iovecs)? };
    let read = |i: u32, offset: u64| {
        opcode::ReadFixed::new(
            types::Fixed(0),
            bufs.at(i as usize, bs),
            bs as u32,
            i as u16,
        )
        .offset(offset)
        .build()
        .user_data(i as u64)
    };
    let mut free: Vec<u32> = (0..depth).rev().collect();
    let mut in_flight = 0usize;
    let max_reap = batch.max_reap(depth);
    let outcome = (|| {
        let start = Timing::start();
        let mut ios = 0u64;
        loop {
            let mut prepped = 0;
            while prepped < batch.submit {
                let Some(i) = free.pop() else { break };
                let sqe = read(i, offsets.next());
                // SAFETY: the SQE's buffer is registered buffer i, free (not in flight)
                // and valid until the ring is dropped.
                unsafe { ring.submission().push(&sqe) }
                    .map_err(|_| io::Error::other("ring full"))?;
                prepped += 1;
            }
            in_flight += prepped as usize;
            let wait = if free.is_empty() {
                (batch.complete_min as usize).min(in_flight)
            } else {
                0
            };
            ring.submit_and_wait(wait)?;
            let before = free.len();
            for c in ring.completion().take(max_reap) {
                if c.result() != bs as i32 {
                    return Err(io::Error::other(format!("a read returned {}", c.result())));
                }
                free.push(c.user_data() as u32);
            }
            let n = free.len() - before;
            in_flight -= n;
            ios += n as u64;
            if ios & 0xfff < n as u64 && start.elapsed() >= run_for {
                return Ok(start.result(ios));
            }
        }
    })();
    // Reap what is still in flight before the buffers go: the kernel may still be
    // writing into them. If the ring fails, keep the buffers (leaked) rather than
    // free memory a read may yet land in.
    while in_flight > 0 {
        if ring.submit_and_wait(1).is_err() {
            std::mem::forget(bufs);
            return outcome;
        }
        in_flight -= ring.completion().count();
    }
    outcome
}

fn build_ring(depth: u32) -> io::Result<IoUring> {
    let mut last = None;
    for level in [2u8, 1, 0] {
        let mut b = IoUring::builder();
        if level >= 1 {
            b.setup_coop_taskrun();
        }
        if level >= 2 {
            b.setup_single_issuer();
            b.setup_defer_taskrun();
        }
        match b.build(depth.next_power_of_two()) {
            Ok(r) => return Ok(r),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::from_raw_os_error(libc::EINVAL)))
}

/// Linux AIO: io_submit of up to `batch.submit` reads at a time; when `depth` are in
/// flight, io_getevents for at least `batch.complete_min`, at most
/// `batch.complete_max` (as a fio job, and `t/io_uring -E libaio`).
pub fn aio_randread(
    path: &Path,
    bs: usize,
    depth: u32,
    batch: Batch,
    run_for: Duration,
) -> io::Result<RawResult> {
    use crate::sys::aio;
    let depth = depth.max(1);
    let batch = batch.clamped(depth);
    let max_reap = batch.max_reap(depth);
    let depth = depth as usize;
    let (file, mut offsets) = open_for_reads(path, bs)?;
    let bufs = Buffers::new(depth, bs)?;
    let ctx = aio::setup(depth as u32)?;
    let mut iocbs: Vec<aio::Iocb> = (0..depth)
        .map(|i| aio::Iocb {
            aio_data: i as u64,
            aio_lio_opcode: aio::IOCB_CMD_PREAD,
            aio_fildes: file.as_raw_fd() as u32,
            aio_buf: bufs.at(i, bs) as u64,
            aio_nbytes: bs as u64,
            ..Default::default()
        })
        .collect();
    let mut events = vec![aio::IoEvent::default(); depth];
    let mut ptrs: Vec<*mut aio::Iocb> = Vec::with_capacity(depth);
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut in_flight = 0usize;
    let result = (|| {
        let start = Timing::start();
        let mut ios = 0u64;
        loop {
            ptrs.clear();
            while ptrs.len() < batch.submit as usize {
                let Some(i) = free.pop() else { break };
                let cb = &mut iocbs[i];
                cb.aio_offset = offsets.next() as i64;
                ptrs.push(cb);
            }
            submit_all(ctx, &mut ptrs)?;
            in_flight += ptrs.len();
            if !free.is_empty() {
                continue;
            }
            let min = (batch.complete_min as usize).min(in_flight);
            let mut n = 0;
            while n < min {
                n += aio::getevents(ctx, min - n, &mut events[n..max_reap])?;
            }
            for e in &events[..n] {
                if e.res != bs as i64 {
                    return Err(io::Error::other(format!("a read returned {}", e.res)));
                }
                free.push(e.data as usize);
            }
            in_flight -= n;
            ios += n as u64;
            if ios & 0xfff < n as u64 && start.elapsed() >= run_for {
                return Ok(start.result(ios));
            }
        }
    })();
    // Waits for what is still in flight before the buffers go.
    aio::destroy(ctx);
    drop(bufs);
    result
}

fn submit_all(
    ctx: crate::sys::aio::AioContext,
    ptrs: &mut [*mut crate::sys::aio::Iocb],
) -> io::Result<()> {
    let mut done = 0;
    while done < ptrs.len() {
        // SAFETY: every iocb points into `iocbs` and at a buffer of `bufs`, both kept
        // alive until the context is destroyed (which waits for in-flight requests).
        done += unsafe { crate::sys::aio::submit(ctx, &mut ptrs[done..])? };
    }
    Ok(())
}

/// The null engine's limit: an empty loop that reads the clock twice per iteration, as
/// every ferrio I/O does at least (start and completion).
pub fn two_timestamps(clock: &Clock, run_for: Duration) -> RawResult {
    let start = Timing::start();
    let mut ios = 0u64;
    let mut sum = 0u64;
    loop {
        let a = clock.now_ns();
        let b = clock.now_ns();
        sum = sum.wrapping_add(b.wrapping_sub(a));
        ios += 1;
        if ios & 0xffff == 0 && start.elapsed() >= run_for {
            break;
        }
    }
    std::hint::black_box(sum);
    start.result(ios)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(blocks: usize) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&vec![3u8; blocks * 4096]).unwrap();
        f
    }

    #[test]
    fn offsets_stay_inside_the_file_and_on_block_boundaries() {
        let mut o = Offsets::new(10 * 4096 + 100, 4096).unwrap();
        let seen: std::collections::BTreeSet<u64> = (0..2000).map(|_| o.next()).collect();
        assert!(seen.iter().all(|x| x % 4096 == 0 && *x < 10 * 4096));
        assert_eq!(seen.len(), 10, "every block is reached");
        assert!(Offsets::new(100, 4096).is_err());
    }

    #[test]
    fn batches_stay_within_the_depth() {
        let b = Batch::of_job(64, 40).clamped(32);
        assert_eq!((b.submit, b.complete_min, b.complete_max), (32, 32, 32));
        let b = Batch {
            submit: 0,
            complete_min: 0,
            complete_max: 1,
        }
        .clamped(32);
        assert_eq!((b.submit, b.complete_min, b.complete_max), (1, 1, 1));
        assert_eq!(b.max_reap(32), 1);
        let t = Batch::T_IO_URING.clamped(8);
        assert_eq!((t.submit, t.complete_min, t.complete_max), (8, 8, 0));
        assert_eq!(
            t.max_reap(8),
            8,
            "0: every completion there (at most depth)"
        );
        let j = Batch::of_job(8, 8);
        assert_eq!(
            j.complete_max, 8,
            "fio's complete_max defaults to the minimum"
        );
    }

    #[test]
    fn the_loops_do_io_and_count_it() {
        let f = file_of(64);
        let short = Duration::from_millis(30);
        for batch in [Batch::of_job(4, 4), Batch::of_job(1, 1), Batch::T_IO_URING] {
            let r = aio_randread(f.path(), 4096, 8, batch, short).unwrap();
            assert!(r.ios >= 4 && r.secs > 0.0);
            assert!(
                r.cpu_secs <= r.secs + 0.05,
                "one thread's CPU within its wall time"
            );
            // io_uring may be forbidden in a container: only then is its absence accepted.
            match uring_randread(f.path(), 4096, 8, batch, short) {
                Ok(r) => assert!(r.ios >= 4),
                Err(e) => assert!(
                    matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)),
                    "{e}"
                ),
            }
        }
        let (clock, _) = Clock::for_source(Some("clock_gettime")).unwrap();
        assert!(two_timestamps(&clock, short).ios > 0);
    }
}
