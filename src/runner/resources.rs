//! Resources checked before they are taken: the I/O buffer memory of the threads that
//! run together, against the memory available, and the kernel's queue limits (libaio's
//! aio-max-nr, io_uring's ring size). A request the system cannot satisfy is refused
//! up front, naming the options to lower, instead of failing (or swapping) after files
//! were laid out and gigabytes of buffers were touched.

use super::plan::ThreadPlan;
use crate::engine::{Capabilities, DepthLimit};
use crate::sys::{limits, memory};
use ferrio_config::ext::engine::MemType;
use ferrio_config::JobSpec;

/// Bytes of I/O buffer memory one thread allocates: one buffer of the largest block
/// size (see [`buffer_stride`]) per unit of queue depth (synchronous engines use one
/// unit).
pub fn buffer_bytes(spec: &JobSpec, caps: Capabilities) -> u128 {
    let depth = if caps.synchronous {
        1
    } else {
        spec.iodepth.max(1) as u128
    };
    let (stride, _) = buffer_stride(spec, caps);
    stride as u128 * depth
}

/// The alignment of buffers fio leaves where its allocator put them: malloc's own
/// (glibc: 16 bytes; a large block starts 16 bytes into a page).
pub const MALLOC_ALIGN: usize = 16;

/// One unit's buffer: (stride, alignment). The largest read or write block size the
/// job can issue. The estimate above and the worker's allocation both use this, so
/// the check is of what is really taken. A trim moves no data, so its size counts
/// only where trimmed blocks are read back and checked for zeros (trim_percentage
/// with trim_verify_zero), as fio master sizes its buffers (an iolog's 2 GiB trims
/// need no 2 GiB buffers).
///
/// Aligned as fio aligns them (backend.c, init_io_u_buffers): to iomem_align (by
/// default the page size), each buffer rounded up to it, only for direct=1,
/// iomem_align=, atomic=1 or an engine that wants it ([`Capabilities::aligned_buffers`]).
/// Otherwise fio takes malloc's pointer as it comes and lays the buffers back to back,
/// and so does ferrio. The kernel's copy of buffered I/O costs more or less with the
/// placement, differently per CPU and block size (on one Xeon, page alignment made
/// 1 MiB page-cache reads about 8 % slower and 4 KiB ones about 5 % faster, in both
/// tools: docs/engines.md), so placing them as fio does makes the two pay the same.
pub fn buffer_stride(spec: &JobSpec, caps: Capabilities) -> (usize, usize) {
    let trims_read_back = spec.verify.trim_percentage > 0 && spec.verify.trim_zero;
    let dirs = if trims_read_back { 3 } else { 2 };
    let max_bs = spec.bs[..dirs]
        .iter()
        .flat_map(|b| std::iter::once(b.max).chain(b.split.iter().map(|s| s.0)))
        .max()
        .unwrap_or(4096)
        .max(1) as usize;
    let aligned =
        spec.direct || spec.engine.iomem_align != 0 || spec.compat.atomic || caps.aligned_buffers;
    if !aligned {
        return (max_bs, MALLOC_ALIGN);
    }
    let align = match spec.engine.iomem_align {
        0 => memory::page_size(),
        a => a as usize,
    };
    (max_bs.div_ceil(align) * align, align)
}

/// What the system offers; None where it could not be read (that check is skipped).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub mem_available: Option<u64>,
    /// (free huge pages, huge page size in bytes).
    pub huge_pages: Option<(u64, u64)>,
    /// (aio-max-nr, aio-nr).
    pub aio: Option<(u64, u64)>,
}

impl Limits {
    pub fn of_system() -> Limits {
        Limits {
            mem_available: limits::mem_available(),
            huge_pages: limits::huge_pages(),
            aio: limits::aio_limits(),
        }
    }
}

/// Check every set of threads that run at the same time (a stonewall starts a new set).
pub fn check(threads: &[ThreadPlan], lim: &Limits) -> Result<(), String> {
    for t in threads {
        check_thread_alone(t, lim)?;
    }
    for set in concurrent_sets(threads) {
        check_memory(set, lim)?;
        check_huge_pages(set, lim)?;
        check_aio_total(set, lim)?;
    }
    Ok(())
}

/// Threads split where a job with stonewall starts: those before it have finished.
fn concurrent_sets(threads: &[ThreadPlan]) -> Vec<&[ThreadPlan]> {
    let mut sets = Vec::new();
    let mut start = 0;
    for (i, t) in threads.iter().enumerate() {
        if i > start && t.clone == 0 && t.spec.stonewall {
            sets.push(&threads[start..i]);
            start = i;
        }
    }
    if start < threads.len() {
        sets.push(&threads[start..]);
    }
    sets
}

/// Limits one thread alone can exceed: a ring's size, aio-max-nr.
fn check_thread_alone(t: &ThreadPlan, lim: &Limits) -> Result<(), String> {
    let s = &t.spec;
    let depth = s.iodepth as u64;
    match t.caps.depth_limit {
        DepthLimit::Max(max) if depth > max => Err(format!(
            "job '{}': iodepth={depth} is more than the {max} entries ioengine={} can queue; lower iodepth",
            s.name, s.ioengine
        )),
        DepthLimit::AioMaxNr => match lim.aio {
            Some((max, _)) if depth > max => Err(format!(
                "job '{}': iodepth={depth} is more than the kernel allows one {} context (/proc/sys/fs/aio-max-nr = {max}); lower iodepth or raise fs.aio-max-nr",
                s.name, s.ioengine
            )),
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

/// The AIO contexts of threads running together share aio-max-nr with the whole system.
fn check_aio_total(set: &[ThreadPlan], lim: &Limits) -> Result<(), String> {
    let Some((max, used)) = lim.aio else {
        return Ok(());
    };
    let aio: Vec<&ThreadPlan> = set
        .iter()
        .filter(|t| t.caps.depth_limit == DepthLimit::AioMaxNr)
        .collect();
    let total: u64 = aio.iter().map(|t| t.spec.iodepth as u64).sum();
    let free = max.saturating_sub(used);
    if total <= free {
        return Ok(());
    }
    let first = &aio[0].spec;
    Err(format!(
        "job '{}': {} {} thread(s) running together need {total} AIO events (iodepth={} × numjobs={}{}), but only {free} of /proc/sys/fs/aio-max-nr = {max} are free; lower iodepth or numjobs, or raise fs.aio-max-nr",
        first.name,
        aio.len(),
        first.ioengine,
        first.iodepth,
        first.numjobs,
        others(aio.iter().map(|t| &t.spec.name), &first.name),
    ))
}

/// The buffer memory of threads running together must fit in the memory available.
fn check_memory(set: &[ThreadPlan], lim: &Limits) -> Result<(), String> {
    let Some(avail) = lim.mem_available else {
        return Ok(());
    };
    // Huge-page buffers come from their own pool (checked below), not from MemAvailable.
    let per: Vec<u128> = set
        .iter()
        .map(|t| match t.spec.engine.mem {
            MemType::ShmHuge | MemType::MmapHuge => 0,
            _ => buffer_bytes(&t.spec, t.caps),
        })
        .collect();
    let total: u128 = per.iter().sum();
    if total <= avail as u128 {
        return Ok(());
    }
    // Name the job that asks for the most.
    let (i, _) = per
        .iter()
        .enumerate()
        .max_by_key(|(_, b)| **b)
        .unwrap_or((0, &0));
    let s = &set[i].spec;
    let max_bs = buffer_stride(s, set[i].caps).0;
    let depth = if set[i].caps.synchronous {
        "1 (synchronous engine)".to_string()
    } else {
        s.iodepth.to_string()
    };
    Err(format!(
        "job '{}': I/O buffers would need {} (iodepth={depth} × bs={} × numjobs={}{}), more than the {} of memory available; lower iodepth, bs or numjobs",
        s.name,
        human(total),
        human(max_bs as u128),
        s.numjobs,
        others(set.iter().map(|t| &t.spec.name), &s.name),
        human(avail as u128),
    ))
}

/// mem=shmhuge and mem=mmaphuge take their buffers from the huge page pool, which
/// holds only the pages reserved in /proc/sys/vm/nr_hugepages.
fn check_huge_pages(set: &[ThreadPlan], lim: &Limits) -> Result<(), String> {
    let huge: Vec<&ThreadPlan> = set
        .iter()
        .filter(|t| matches!(t.spec.engine.mem, MemType::ShmHuge | MemType::MmapHuge))
        .collect();
    let (Some(first), Some((free, size))) = (huge.first(), lim.huge_pages) else {
        return Ok(());
    };
    let size = size.max(1) as u128;
    let need: u128 = huge
        .iter()
        .map(|t| (buffer_bytes(&t.spec, t.caps) + memory::page_size() as u128).div_ceil(size))
        .sum();
    if need <= free as u128 {
        return Ok(());
    }
    let s = &first.spec;
    Err(format!(
        "job '{}': mem={} needs {need} huge pages of {} for the I/O buffers of {} thread(s), but {free} are free (reserve more in /proc/sys/vm/nr_hugepages, or use another mem=)",
        s.name,
        if s.engine.mem == MemType::ShmHuge { "shmhuge" } else { "mmaphuge" },
        human(size),
        huge.len()
    ))
}

/// ", with jobs 'b', 'c' running at the same time" when other jobs share the set.
fn others<'a>(names: impl Iterator<Item = &'a String>, except: &str) -> String {
    let mut v: Vec<&String> = names.filter(|n| *n != except).collect();
    v.dedup();
    if v.is_empty() {
        return String::new();
    }
    let list: Vec<String> = v.iter().map(|n| format!("'{n}'")).collect();
    format!(", with job(s) {} at the same time", list.join(", "))
}

/// Bytes in binary units (4KiB, 1.5GiB), as fio writes sizes.
pub fn human(b: impl Into<u128>) -> String {
    let b: u128 = b.into();
    human_u128(b)
}

fn human_u128(b: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 {
        format!("{v}{}", UNITS[u])
    } else {
        format!("{v:.1}{}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Capabilities;
    use std::sync::Arc;

    fn thread(name: &str, engine: &str, iodepth: u32, bs: u64, clone: u32) -> ThreadPlan {
        let mut s = JobSpec::with_defaults(name, "test");
        s.ioengine = engine.into();
        s.iodepth = iodepth;
        for b in &mut s.bs {
            b.min = bs;
            b.max = bs;
        }
        ThreadPlan {
            spec: Arc::new(s),
            job_index: 0,
            clone,
            groupid: 0,
            caps: Capabilities {
                synchronous: engine == "psync",
                diskless: false,
                fills_buffers: false,
                virtual_time: false,
                depth_limit: match engine {
                    "io_uring" => DepthLimit::Max(32768),
                    "libaio" => DepthLimit::AioMaxNr,
                    _ => DepthLimit::None,
                },
                accounting: Default::default(),
                queues_when_deep: false,
                prepopulates: false,
                maps_files: false,
                aligned_buffers: false,
                no_extend: false,
            },
            files: Vec::new(),
            pass_bytes: 1,
            seed: 0,
            seeds: crate::random::SeedSet::from_seed(0, 1),
            replay: None,
            flow: None,
            buffers: Default::default(),
            sized_at_start: false,
            replay_at_start: false,
            file_locks: Default::default(),
            confine: None,
            targets: Default::default(),
            ramp_bytes: None,
            not_laid_out: None,
        }
    }

    const PLENTY: Limits = Limits {
        mem_available: Some(1 << 40),
        huge_pages: Some((1 << 20, 2 << 20)),
        aio: Some((65536, 0)),
    };

    #[test]
    fn buffers_are_rounded_and_aligned_only_where_fio_aligns_them() {
        let mut t = thread("a", "libaio", 16, 6000, 0);
        let page = memory::page_size() as u128;
        let sync = Capabilities {
            synchronous: true,
            ..t.caps
        };
        // As fio: malloc's pointer, buffers back to back.
        assert_eq!(buffer_bytes(&t.spec, t.caps), 16 * 6000);
        assert_eq!(buffer_bytes(&t.spec, sync), 6000);
        assert_eq!(buffer_stride(&t.spec, t.caps), (6000, MALLOC_ALIGN));
        // direct=1, iomem_align=, atomic=1 or an engine that wants it: aligned.
        let rounded = 6000u128.div_ceil(page) * page;
        let pmem = Capabilities {
            aligned_buffers: true,
            ..t.caps
        };
        assert_eq!(buffer_bytes(&t.spec, pmem), 16 * rounded);
        let spec = Arc::make_mut(&mut t.spec);
        spec.direct = true;
        assert_eq!(buffer_bytes(spec, t.caps), 16 * rounded);
        assert_eq!(buffer_bytes(spec, sync), rounded);
        spec.direct = false;
        spec.compat.atomic = true;
        assert_eq!(buffer_bytes(spec, t.caps), 16 * rounded);
        spec.compat.atomic = false;
        spec.engine.iomem_align = 512;
        assert_eq!(buffer_stride(spec, t.caps), (6144, 512));
    }

    #[test]
    fn trims_size_no_buffer_unless_read_back() {
        let mut s = JobSpec::with_defaults("t", "test");
        s.iodepth = 128;
        s.bs[2].max = 2 << 30; // an iolog's 2 GiB trims, 4 KiB reads and writes
        let caps = Capabilities::default();
        assert_eq!(buffer_bytes(&s, caps), 128 * 4096);
        // trim_percentage with trim_verify_zero reads trimmed blocks back: counted.
        s.verify.trim_percentage = 10;
        assert_eq!(buffer_bytes(&s, caps), 128 * (2u128 << 30));
        s.verify.trim_zero = false;
        assert_eq!(buffer_bytes(&s, caps), 128 * 4096);
    }

    #[test]
    fn memory_is_summed_over_threads_running_together() {
        let lim = Limits {
            mem_available: Some(3 << 20),
            huge_pages: None,
            aio: None,
        };
        let two: Vec<ThreadPlan> = (0..2)
            .map(|c| thread("j", "libaio", 256, 4096, c))
            .collect();
        assert!(check(&two, &lim).is_ok(), "2 MiB fits in 3 MiB");
        let four: Vec<ThreadPlan> = (0..4)
            .map(|c| thread("j", "libaio", 256, 4096, c))
            .collect();
        let e = check(&four, &lim).unwrap_err();
        assert!(
            e.contains("job 'j'") && e.contains("4MiB") && e.contains("iodepth=256"),
            "{e}"
        );
    }

    #[test]
    fn stonewall_separates_sets() {
        let lim = Limits {
            mem_available: Some(3 << 20),
            huge_pages: None,
            aio: None,
        };
        let a = thread("a", "libaio", 600, 4096, 0);
        let mut b = thread("b", "libaio", 512, 4096, 0);
        Arc::get_mut(&mut b.spec).unwrap().stonewall = true;
        assert!(check(&[a.clone(), b.clone()], &lim).is_ok());
        Arc::get_mut(&mut b.spec).unwrap().stonewall = false;
        let e = check(&[a, b], &lim).unwrap_err();
        assert!(e.contains("with job(s) 'b'"), "{e}");
    }

    #[test]
    fn synchronous_engines_use_one_buffer() {
        let lim = Limits {
            mem_available: Some(1 << 20),
            huge_pages: None,
            aio: None,
        };
        assert!(check(&[thread("s", "psync", 1 << 20, 4096, 0)], &lim).is_ok());
    }

    #[test]
    fn io_uring_ring_limit() {
        assert!(check(&[thread("u", "io_uring", 32768, 4096, 0)], &PLENTY).is_ok());
        let e = check(&[thread("u", "io_uring", 32769, 4096, 0)], &PLENTY).unwrap_err();
        assert!(e.contains("iodepth=32769") && e.contains("32768"), "{e}");
    }

    #[test]
    fn aio_max_nr_per_thread_and_in_total() {
        let e = check(&[thread("a", "libaio", 65537, 512, 0)], &PLENTY).unwrap_err();
        assert!(e.contains("aio-max-nr = 65536"), "{e}");
        let lim = Limits {
            mem_available: None,
            huge_pages: None,
            aio: Some((65536, 60000)),
        };
        let e = check(&[thread("a", "libaio", 8192, 512, 0)], &lim).unwrap_err();
        assert!(e.contains("only 5536"), "{e}");
        assert!(check(&[thread("a", "libaio", 4096, 512, 0)], &lim).is_ok());
    }

    #[test]
    fn huge_page_pool() {
        let lim = Limits {
            huge_pages: Some((4, 2 << 20)),
            ..PLENTY
        };
        let mut t = thread("h", "libaio", 1, 4096, 0);
        Arc::get_mut(&mut t.spec).unwrap().engine.mem = MemType::MmapHuge;
        assert!(check(&[t.clone()], &lim).is_ok(), "one page for 4 KiB");
        Arc::get_mut(&mut t.spec).unwrap().iodepth = 4096; // 16 MiB: 9 pages with alignment
        let e = check(&[t.clone()], &lim).unwrap_err();
        assert!(
            e.contains("mem=mmaphuge") && e.contains("9 huge pages") && e.contains("4 are free"),
            "{e}"
        );
        Arc::get_mut(&mut t.spec).unwrap().engine.mem = MemType::Mmap;
        assert!(
            check(&[t], &lim).is_ok(),
            "ordinary pages are not from the pool"
        );
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(4096u64), "4KiB");
        assert_eq!(human(64u64 << 30), "64GiB");
        assert_eq!(human(1536u64 << 20), "1.5GiB");
        assert_eq!(human(100u64), "100B");
        // Past the last unit the number grows instead (fio's largest is EiB).
        assert_eq!(human(1u128 << 70), "1024EiB");
    }
}
