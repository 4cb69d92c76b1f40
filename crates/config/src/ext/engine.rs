//! Engine-specific tuning (io_uring, libaio, mmap, batching, memory).

use std::path::PathBuf;

/// Where I/O buffers come from (fio's `mem=` / `iomem=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemType {
    /// Heap memory (fio's default).
    #[default]
    Malloc,
    /// System V shared memory (shmget).
    Shm,
    /// System V shared memory backed by huge pages.
    ShmHuge,
    /// Anonymous (or file-backed, with a path) private mmap.
    Mmap,
    /// mmap of a file on hugetlbfs (a path is required), or anonymous MAP_HUGETLB.
    MmapHuge,
    /// Like `Mmap` but MAP_SHARED.
    MmapShared,
}

/// How `cpus_allowed` is shared by a job's clones (fio's `cpus_allowed_policy=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CpusAllowedPolicy {
    /// Every clone may run on every CPU of the set.
    #[default]
    Shared,
    /// Clone N runs on the Nth CPU of the set only (round robin when there are more clones).
    Split,
}

/// Engine-specific tuning (io_uring, libaio, mmap, batching, memory). `Default` is
/// fio's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineTuning {
    /// iodepth_batch_submit / iodepth_batch: I/Os queued before they are submitted
    /// together (0 = iodepth). Default 1.
    pub iodepth_batch_submit: u32,
    /// iodepth_batch_complete_min: completions to wait for at least (0 = poll). Default 1.
    pub iodepth_batch_complete_min: u32,
    /// iodepth_batch_complete_max: completions to take at most per reap
    /// (None = iodepth_batch_complete_min, fio's default).
    pub iodepth_batch_complete_max: Option<u32>,
    /// iodepth_low: once the queue is full, reap down to this depth before refilling
    /// (None = iodepth).
    pub iodepth_low: Option<u32>,
    /// io_uring: register the I/O buffers (IORING_OP_READ_FIXED / WRITE_FIXED).
    pub fixedbufs: bool,
    /// io_uring: register the job's files (IOSQE_FIXED_FILE).
    pub registerfiles: bool,
    /// io_uring: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL).
    pub sqthread_poll: bool,
    /// io_uring: CPU of the submission polling thread.
    pub sqthread_poll_cpu: Option<u32>,
    /// io_uring: 1 = IORING_OP_READ/WRITE, 0 = READV/WRITEV, -1 = READ/WRITE when the
    /// kernel has them (fio's default -1).
    pub nonvectored: i32,
    /// io_uring: every Nth I/O is marked IOSQE_ASYNC (0 = never).
    pub force_async: u32,
    /// libaio: read completions from the AIO ring in user space when polling.
    pub userspace_reap: bool,
    /// libaio_vectored: reads and writes as PREADV/PWRITEV with one iovec.
    pub libaio_vectored: bool,
    /// pvsync2: percentage of I/Os issued with RWF_HIPRI when hipri is set. Default 100.
    pub hipri_percentage: u32,
    /// pvsync2 / libaio / io_uring: RWF_NOWAIT on every I/O.
    pub nowait: bool,
    /// mem= / iomem=: where the I/O buffers come from.
    pub mem: MemType,
    /// The file after `mem=mmap:`, `mem=mmaphuge:` or `mem=mmapshared:`.
    pub mem_path: Option<PathBuf>,
    /// iomem_align / mem_align: alignment of the first buffer (0 = the page size).
    pub iomem_align: u64,
    /// hugepage-size: what mem=shmhuge and mem=mmaphuge round the buffers up to
    /// (0 = the system's, /proc/meminfo's Hugepagesize).
    pub hugepage_size: u64,
    /// cpus_allowed_policy.
    pub cpus_allowed_policy: CpusAllowedPolicy,
    /// mmap: thp=1, a private mapping advised for transparent huge pages (fio's).
    pub thp: bool,
}

impl Default for EngineTuning {
    fn default() -> Self {
        EngineTuning {
            iodepth_batch_submit: 1,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: None,
            iodepth_low: None,
            fixedbufs: false,
            registerfiles: false,
            sqthread_poll: false,
            sqthread_poll_cpu: None,
            nonvectored: -1,
            force_async: 0,
            userspace_reap: false,
            libaio_vectored: false,
            hipri_percentage: 100,
            nowait: false,
            mem: MemType::Malloc,
            mem_path: None,
            iomem_align: 0,
            hugepage_size: 0,
            cpus_allowed_policy: CpusAllowedPolicy::Shared,
            thp: false,
        }
    }
}

/// The batching rules the I/O loop applies, resolved against `iodepth` as fio does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batching {
    /// Commit once this many I/Os are queued (1..=depth).
    pub submit: usize,
    /// Wait for at least this many completions (0 = poll).
    pub complete_min: usize,
    /// Take at most this many completions per reap (>= 1).
    pub complete_max: usize,
    /// After a full queue, reap until the depth is at most this.
    pub low: usize,
    /// iodepth_batch_complete_min = iodepth_batch_complete_max = 0: check for
    /// completions after every queued I/O.
    pub polling: bool,
}

impl EngineTuning {
    /// Batching for a queue of `depth` units (fio's fix-ups: a submit batch of 0 or
    /// above the depth means the depth; a low mark of 0 or above the depth means the
    /// depth; the complete max is at least the complete min and at most the depth).
    pub fn batching(&self, depth: usize) -> Batching {
        let depth = depth.max(1);
        let submit = match self.iodepth_batch_submit as usize {
            0 => depth,
            n => n.min(depth),
        };
        let complete_min = (self.iodepth_batch_complete_min as usize).min(depth);
        let given_max = self.iodepth_batch_complete_max;
        let complete_max = given_max
            .map(|m| m as usize)
            .unwrap_or(complete_min)
            .max(complete_min)
            .clamp(1, depth);
        let low = match self.iodepth_low.map(|l| l as usize) {
            None | Some(0) => depth,
            Some(l) => l.min(depth),
        };
        Batching {
            submit,
            complete_min,
            complete_max,
            low,
            // fio's default max is 0 (then raised to the min), so min=0 alone polls.
            polling: self.iodepth_batch_complete_min == 0 && given_max.unwrap_or(0) == 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batching_follows_fio_fixups() {
        let t = EngineTuning::default();
        let b = t.batching(32);
        assert_eq!(
            (b.submit, b.complete_min, b.complete_max, b.low),
            (1, 1, 1, 32)
        );
        assert!(!b.polling);
        let t = EngineTuning {
            iodepth_batch_submit: 0,
            iodepth_batch_complete_min: 4,
            iodepth_batch_complete_max: Some(64),
            iodepth_low: Some(8),
            ..Default::default()
        };
        let b = t.batching(16);
        assert_eq!(
            (b.submit, b.complete_min, b.complete_max, b.low),
            (16, 4, 16, 8)
        );
        let t = EngineTuning {
            iodepth_batch_complete_min: 0,
            iodepth_batch_complete_max: Some(0),
            ..Default::default()
        };
        let b = t.batching(8);
        assert!(b.polling);
        assert_eq!((b.complete_min, b.complete_max), (0, 1));
        let t = EngineTuning {
            iodepth_batch_complete_min: 0,
            ..Default::default()
        };
        assert!(t.batching(8).polling);
        let t = EngineTuning {
            iodepth_batch_complete_min: 0,
            iodepth_batch_complete_max: Some(8),
            ..Default::default()
        };
        assert!(!t.batching(8).polling);
    }
}
