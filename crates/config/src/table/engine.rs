//! Options: engine tuning — batching, io_uring / libaio / pvsync2 knobs, buffer
//! memory and CPU placement of clones. They fill [`crate::ext::EngineTuning`].

use super::{opt, Category as C, Ctx, Kind as K, OptSpec};
use crate::ext::engine::{CpusAllowedPolicy, MemType};
use crate::spec::JobSpec;
use std::path::PathBuf;

fn mem(j: &mut JobSpec, _c: &Ctx, v: &str) -> Result<(), String> {
    let (kind, path) = match v.split_once(':') {
        Some((k, p)) => (k.trim(), Some(p.trim())),
        None => (v.trim(), None),
    };
    let t = &mut j.engine;
    t.mem = match kind {
        "malloc" => MemType::Malloc,
        "shm" => MemType::Shm,
        "shmhuge" => MemType::ShmHuge,
        "mmap" => MemType::Mmap,
        "mmaphuge" => MemType::MmapHuge,
        "mmapshared" => MemType::MmapShared,
        // GPU memory: parses (fio's GPUDirect RDMA jobs), a run refuses it.
        "cudamalloc" if path.is_none() => MemType::Malloc,
        _ => return Err("not an allowed value".into()),
    };
    j.foreign.cuda_mem = kind == "cudamalloc";
    let t = &mut j.engine;
    t.mem_path = match path {
        Some(p) if !p.is_empty() => {
            if !matches!(
                t.mem,
                MemType::Mmap | MemType::MmapHuge | MemType::MmapShared
            ) {
                return Err(format!("mem={kind} takes no file name"));
            }
            Some(PathBuf::from(p))
        }
        _ => None,
    };
    Ok(())
}

pub const ENGINE_TUNING: &[OptSpec] = &[
    opt("iodepth_batch", K::Int, C::Engine, "Number of I/Os to queue before submitting them together (0 = iodepth)", |j, c, v| {
        j.engine.iodepth_batch_submit = c.u32(v)?;
        Ok(())
    })
    .alias(&["iodepth_batch_submit"])
    .def("1"),
    opt("iodepth_batch_complete_min", K::Int, C::Engine, "Minimum number of completions to wait for (0 = check without waiting)", |j, c, v| {
        j.engine.iodepth_batch_complete_min = c.u32(v)?;
        Ok(())
    })
    .alias(&["iodepth_batch_complete"])
    .def("1"),
    opt("iodepth_batch_complete_max", K::Int, C::Engine, "Maximum number of completions to take at once (default: iodepth_batch_complete_min)", |j, c, v| {
        j.engine.iodepth_batch_complete_max = Some(c.u32(v)?);
        Ok(())
    }),
    opt("iodepth_low", K::Int, C::Engine, "Once the queue is full, let it drain to this depth before refilling (default: iodepth)", |j, c, v| {
        j.engine.iodepth_low = Some(c.u32(v)?);
        Ok(())
    }),
    opt("fixedbufs", K::Flag, C::Engine, "io_uring: register the I/O buffers with the kernel (READ_FIXED/WRITE_FIXED)", |j, c, v| {
        j.engine.fixedbufs = c.bool(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["io_uring"]),
    opt("registerfiles", K::Flag, C::Engine, "io_uring: register the job's files with the kernel", |j, c, v| {
        j.engine.registerfiles = c.bool(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["io_uring"]),
    opt("sqthread_poll", K::Flag, C::Engine, "io_uring: a kernel thread polls the submission queue (no submit system calls)", |j, c, v| {
        j.engine.sqthread_poll = c.bool(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["io_uring"]),
    opt("sqthread_poll_cpu", K::Int, C::Engine, "io_uring: CPU the submission polling thread runs on", |j, c, v| {
        j.engine.sqthread_poll_cpu = Some(c.u32(v)?);
        Ok(())
    })
    .private_to(&["io_uring"]),
    opt("nonvectored", K::SignedInt, C::Engine, "io_uring: 1 = READ/WRITE, 0 = READV/WRITEV, -1 = READ/WRITE where the kernel has them", |j, _c, v| {
        let n: i32 = v.trim().parse().map_err(|_| format!("malformed integer '{v}'"))?;
        if !(-1..=1).contains(&n) {
            return Err(format!("{n} is out of range"));
        }
        j.engine.nonvectored = n;
        Ok(())
    })
    .def("-1")
    .vals(&[("-1", "automatic"), ("0", "vectored"), ("1", "non-vectored")])
    .private_to(&["io_uring"]),
    opt("force_async", K::Int, C::Engine, "io_uring: issue every Nth I/O with IOSQE_ASYNC (0 = never)", |j, c, v| {
        j.engine.force_async = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["io_uring"]),
    opt("userspace_reap", K::Flag, C::Engine, "libaio: read completions from the AIO ring in user space when polling (iodepth_batch_complete=0)", |j, c, v| {
        j.engine.userspace_reap = c.bool(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["libaio"]),
    opt("libaio_vectored", K::Bool, C::Engine, "libaio: submit reads and writes as IOCB_CMD_PREADV/PWRITEV (one iovec) instead of PREAD/PWRITE (fio 3.39)", |j, c, v| {
        j.engine.libaio_vectored = c.bool(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["libaio"]),
    opt("hipri_percentage", K::Int, C::Engine, "pvsync2: percentage of I/Os issued with RWF_HIPRI when hipri is set", |j, c, v| {
        j.engine.hipri_percentage = c.u32(v)?;
        Ok(())
    })
    .def("100")
    .range(0, 100)
    .private_to(&["pvsync2"]),
    opt("nowait", K::Bool, C::Engine, "pvsync2, libaio, io_uring: RWF_NOWAIT (fail with EAGAIN instead of blocking)", |j, c, v| {
        j.engine.nowait = c.bool(v)?;
        Ok(())
    })
    .def("0")
    .private_to(&["pvsync2", "libaio", "io_uring"]),
    opt("mem", K::Choice, C::Buffers, "Memory the I/O buffers come from; mmap, mmaphuge and mmapshared take ':file'", mem)
        .alias(&["iomem"])
        .def("malloc")
        .vals(&[
            ("malloc", "heap memory"),
            ("shm", "System V shared memory (shmget)"),
            ("shmhuge", "System V shared memory on huge pages"),
            ("mmap", "anonymous mmap, or mmap of a file with mmap:/path"),
            ("mmaphuge", "huge-page mmap (anonymous, or a hugetlbfs file with mmaphuge:/path)"),
            ("mmapshared", "like mmap, MAP_SHARED"),
            ("cudamalloc", "GPU memory (CUDA, fio's GPUDirect RDMA): checked by --parse-only, refused by a run"),
        ]),
    opt("iomem_align", K::Size, C::Buffers, "Alignment of the I/O buffers; must be a power of two. 0: as fio, the page size with direct=1, atomic=1 or an engine that needs it (libpmem), else none (the allocator's pointer, buffers back to back)", |j, c, v| {
        let n = c.size(v)?;
        if n != 0 && !n.is_power_of_two() {
            return Err(format!("{n} is not a power of two"));
        }
        j.engine.iomem_align = n;
        Ok(())
    })
    .alias(&["mem_align"])
    .def("0"),
    opt("hugepage-size", K::Size, C::Buffers, "The huge page size mem=shmhuge and mem=mmaphuge round the buffers up to (0 = the system's, Hugepagesize in /proc/meminfo); use a multiple of megabytes, e.g. 2m", |j, c, v| {
        j.engine.hugepage_size = c.size(v)?;
        Ok(())
    })
    .def("0"),
    opt("cpus_allowed_policy", K::Choice, C::Process, "How clones share cpus_allowed: shared (all CPUs each) or split (one CPU each, round robin)", |j, c, v| {
        j.engine.cpus_allowed_policy = match c.choice(v)? {
            "split" => CpusAllowedPolicy::Split,
            _ => CpusAllowedPolicy::Shared,
        };
        Ok(())
    })
    .def("shared")
    .vals(&[("shared", "every clone may use every CPU of the set"), ("split", "each clone gets one CPU of the set")]),
];

#[cfg(test)]
mod tests {
    use crate::builder::Overrides;
    use crate::jobfile::{parse_text, Env};
    use crate::session::assemble;
    use std::path::{Path, PathBuf};

    fn job(opts: &str) -> Result<crate::JobSpec, String> {
        let text = format!("[t]\n{opts}\n");
        let sections = parse_text(&text, Path::new("t.fio"), &Env::system()).unwrap();
        assemble(&[], &[sections], &[], &Overrides::default())
            .map(|mut s| s.jobs.remove(0))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn mem_takes_a_file_name_only_for_the_mmap_kinds() {
        let j = job("mem=mmap:/mnt/huge/buf").unwrap();
        assert_eq!(j.engine.mem_path, Some(PathBuf::from("/mnt/huge/buf")));
        assert_eq!(job("mem=mmap").unwrap().engine.mem_path, None);
        let e = job("mem=malloc:/x").unwrap_err();
        assert!(e.contains("mem=malloc takes no file name"), "{e}");
    }
}
