//! The thread's fixed pool of I/O units: the units the engine sees, their buffers
//! (one region, fio's layout: unit i's buffer starts at i × stride), when each was
//! due, started and issued, and the free / pending / just-completed lists.

use crate::engine::{IoOp, IoUnit};
use crate::runner::buffers::BufferPolicy;
use crate::runner::plan::ThreadPlan;
use crate::runner::region::NextIo;
use crate::runner::resources::buffer_stride;
use crate::sys::iomem::IoMemory;

/// The times of one I/O on the thread's clock, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitTimes {
    /// When the I/O was due: its rate schedule (rate, rate_iops) when paced, else its
    /// start — so latency can also be measured from the due time (coordinated
    /// omission).
    pub due_ns: u64,
    /// fio's start_time: where `lat` (and `slat`) begin.
    pub start_ns: u64,
    /// fio's issue_time: where `clat` begins (handed to the engine, or submitted).
    pub issue_ns: u64,
}

/// Which buffer work a write needs, and where fio times it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferWork {
    None,
    /// refill_buffers: done before the I/O's start time (fio fills in get_io_u, before
    /// it stamps start_time), so in no latency.
    BeforeStart,
    /// scramble_buffers: done after the start time (fio scrambles after stamping
    /// start_time), so in `lat`, not in `clat`.
    AfterStart,
}

pub struct Units {
    pub io: Vec<IoUnit>,
    pub times: Vec<UnitTimes>,
    /// Units not in flight (a stack).
    pub free: Vec<usize>,
    /// Units queued since the last commit.
    pub pending: Vec<usize>,
    /// Units the last reap completed.
    pub done: Vec<usize>,
    /// Per unit: bytes a short transfer already moved (its rest is being issued);
    /// 0 normally.
    moved: Vec<usize>,
    policy: BufferPolicy,
    /// Bytes from one unit's buffer to the next in `memory`.
    stride: usize,
    /// Whether buffers hold data (false for diskless engines: never touched).
    real_buffers: bool,
    /// Declared last: the units point into it.
    memory: IoMemory,
}

impl Units {
    /// `depth` units with buffers of the job's largest block size, aligned as
    /// iomem_align says, filled as the buffer options say (unless `real_buffers` is
    /// false).
    pub fn new(
        plan: &ThreadPlan,
        depth: usize,
        real_buffers: bool,
    ) -> Result<Units, (i32, String)> {
        let spec = &plan.spec;
        let (mut policy, after_layout) =
            BufferPolicy::for_units(plan).map_err(|e| (libc::EINVAL, e))?;
        let (stride, align) = buffer_stride(spec, plan.caps);
        let mut memory = IoMemory::new(
            spec.engine.mem,
            spec.engine.mem_path.as_deref(),
            stride * depth,
            align,
            spec.engine.hugepage_size as usize,
        )
        .map_err(|e| {
            (
                e.raw_os_error().unwrap_or(libc::ENOMEM),
                format!("I/O buffers: {e}"),
            )
        })?;
        // fio allocates and fills iodepth units (0 first) even where the engine uses
        // fewer (a synchronous one uses one), and takes units from a stack, the last
        // one first: its first write goes out of unit iodepth-1's buffer. So the fills
        // of the units fio never reaches come first, unit i here is fio's unit
        // iodepth-depth+i, and the free stack hands out the last unit first: the
        // contents that follow, and which buffer each write carries, are fio's.
        if real_buffers {
            policy.skip_units((spec.iodepth.max(1) as usize).saturating_sub(depth));
        }
        let mut io = Vec::with_capacity(depth);
        for i in 0..depth {
            let buf = memory.buffer(i, stride);
            if real_buffers {
                policy.init(memory.bytes_mut(i * stride, stride));
            }
            io.push(IoUnit {
                op: IoOp::Read,
                file: 0,
                fd: -1,
                offset: 0,
                len: 0,
                buf,
                result: 0,
                done_ns: None,
            });
        }
        let policy = after_layout.unwrap_or(policy);
        Ok(Units {
            io,
            times: vec![UnitTimes::default(); depth],
            free: (0..depth).collect(),
            pending: Vec::with_capacity(depth),
            done: Vec::with_capacity(depth),
            moved: vec![0; depth],
            policy,
            stride,
            real_buffers,
            memory,
        })
    }

    /// Every unit's buffer as (start, length), in unit order (for engine setup).
    pub fn buffers(&self) -> Vec<(*mut u8, usize)> {
        self.io.iter().map(|u| (u.buf, self.stride)).collect()
    }

    /// Point unit `idx` at the next I/O; says what buffer work the write needs.
    #[inline]
    pub fn point(&mut self, idx: usize, io: NextIo, fd: i32) -> BufferWork {
        let u = &mut self.io[idx];
        u.op = io.op;
        u.file = io.file;
        u.fd = fd;
        u.offset = io.offset;
        u.len = io.len as usize;
        u.result = 0;
        u.done_ns = None;
        if io.op != IoOp::Write || !self.real_buffers {
            BufferWork::None
        } else if self.policy.refill {
            BufferWork::BeforeStart
        } else if self.policy.scramble {
            BufferWork::AfterStart
        } else {
            BufferWork::None
        }
    }

    /// Fill unit `idx`'s buffer for its write as the buffer options say (refill or
    /// scramble): the one call before a write. `start_ns` is the I/O's start time
    /// (scrambling stamps it; pass 0 before it is known, as a refill is).
    #[inline]
    pub fn prepare_buffer(&mut self, idx: usize, start_ns: u64) {
        let (offset, len) = (self.io[idx].offset, self.io[idx].len.min(self.stride));
        // The unit was just taken from the free list: its buffer is not in flight.
        let buf = self.memory.bytes_mut(idx * self.stride, len);
        self.policy.prepare(buf, offset, start_ns);
    }

    /// A new pass (loop) begins: the buffer streams start over as fio's do.
    pub fn new_pass(&mut self) {
        self.policy.new_pass();
    }

    /// Unit `idx`'s buffer for its I/O's length (None without real buffers).
    pub fn buffer_mut(&mut self, idx: usize) -> Option<&mut [u8]> {
        if !self.real_buffers {
            return None;
        }
        let len = self.io[idx].len.min(self.stride);
        Some(self.memory.bytes_mut(idx * self.stride, len))
    }

    /// A short transfer moved `bytes` of unit `idx`: point it at the rest.
    pub fn advance(&mut self, idx: usize, bytes: usize) {
        let u = &mut self.io[idx];
        u.offset += bytes as u64;
        u.len -= bytes;
        // Pointer arithmetic only: the rest of the unit's own buffer.
        u.buf = u.buf.wrapping_add(bytes);
        u.result = 0;
        u.done_ns = None;
        self.moved[idx] += bytes;
    }

    /// Undo `advance`: the unit's buffer starts where it did again, and a unit that
    /// did not fail covers its whole I/O and counts every byte moved. A failed rest
    /// keeps its offset and length, as fio's io_u does: its error line names the
    /// part that failed (a 64 KiB write that found room for 60 KiB fails at +60 KiB
    /// for 4 KiB).
    #[inline]
    pub fn make_whole(&mut self, idx: usize) {
        let moved = self.moved[idx];
        if moved == 0 {
            return;
        }
        self.moved[idx] = 0;
        let u = &mut self.io[idx];
        u.buf = u.buf.wrapping_sub(moved);
        if u.result >= 0 {
            u.offset -= moved as u64;
            u.len += moved;
            u.result += moved as i64;
        }
    }

    /// Point unit `idx` at a sync_file_range of `len` bytes at `offset` of `file`.
    pub fn point_range_sync(
        &mut self,
        idx: usize,
        file: usize,
        fd: i32,
        flags: u32,
        range: (u64, u64),
    ) {
        self.point_sync(idx, file, fd, false);
        let u = &mut self.io[idx];
        u.op = IoOp::SyncFileRange { flags };
        u.offset = range.0;
        u.len = (range.1 - range.0) as usize;
    }

    /// Point unit `idx` at an fsync (or fdatasync) of `file` (fsync=N / fdatasync=N).
    pub fn point_sync(&mut self, idx: usize, file: usize, fd: i32, data_only: bool) {
        let u = &mut self.io[idx];
        u.op = if data_only {
            IoOp::Fdatasync
        } else {
            IoOp::Fsync
        };
        u.file = file;
        u.fd = fd;
        u.offset = 0;
        u.len = 0;
        u.result = 0;
        u.done_ns = None;
    }
}
