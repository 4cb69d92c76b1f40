//! The engines ferrio knows, in one table: name, one-line help, [`Capabilities`] and
//! constructor. Adding an engine is one row here and one new file beside this one.
//!
//! The `ioengine` option in ferrio-config lists the same names and help (config sits
//! below this crate and cannot read this table); a test below proves the two agree.

use super::fileops::{FileOp, FileOpsEngine};
use super::sync::{Flavor, SyncEngine};
use super::{cpuio, e4defrag, exec, falloc, ftruncate, splice};
use super::{io_uring, libaio, libpmem, mmap, nbd, net, null, posixaio, sim};
use super::{Accounting, Capabilities, DepthLimit, EngineOptions, IoEngine};

/// One registered engine.
pub struct Entry {
    /// The `ioengine=` value.
    pub name: &'static str,
    /// One line for the option table (`--cmdhelp=ioengine`, docs/options.md).
    pub help: &'static str,
    pub caps: Capabilities,
    /// Build one thread's engine.
    pub create: fn(&EngineOptions) -> Result<Box<dyn IoEngine>, String>,
}

/// Every `queue` completes the I/O; files are real.
const SYNC: Capabilities = Capabilities {
    synchronous: true,
    diskless: false,
    fills_buffers: false,
    virtual_time: false,
    depth_limit: DepthLimit::None,
    accounting: Accounting::Data,
    queues_when_deep: false,
    prepopulates: false,
    maps_files: false,
    aligned_buffers: false,
    no_extend: false,
};

/// I/Os complete later, through `reap`; files are real.
const ASYNC: Capabilities = Capabilities {
    synchronous: false,
    diskless: false,
    fills_buffers: false,
    virtual_time: false,
    depth_limit: DepthLimit::None,
    accounting: Accounting::Data,
    queues_when_deep: false,
    prepopulates: false,
    maps_files: false,
    aligned_buffers: false,
    no_extend: false,
};

/// The metadata engines: one timed file operation per file and pass; files are
/// laid out by the runner only for those that operate on existing files.
const FILE_OPS: Capabilities = Capabilities {
    synchronous: true,
    diskless: false,
    fills_buffers: false,
    virtual_time: false,
    depth_limit: DepthLimit::None,
    accounting: Accounting::FileOps,
    queues_when_deep: false,
    prepopulates: false,
    maps_files: false,
    aligned_buffers: false,
    no_extend: false,
};

/// No files, no data: cpuio and exec.
const NO_IO: Capabilities = Capabilities {
    synchronous: true,
    diskless: true,
    fills_buffers: false,
    virtual_time: false,
    depth_limit: DepthLimit::None,
    accounting: Accounting::NoData,
    queues_when_deep: false,
    prepopulates: false,
    maps_files: false,
    aligned_buffers: false,
    no_extend: false,
};

/// Every engine, in the order `ioengine`'s help lists them (psync, the default, first).
pub const ENGINES: &[Entry] = &[
    Entry {
        name: "psync",
        help: "pread(2)/pwrite(2)",
        caps: SYNC,
        create: |o| Ok(Box::new(SyncEngine::new(Flavor::Psync, o))),
    },
    Entry {
        name: "sync",
        help: "read(2)/write(2) with lseek(2)",
        caps: SYNC,
        create: |o| Ok(Box::new(SyncEngine::new(Flavor::Sync, o))),
    },
    Entry {
        name: "vsync",
        help: "readv(2)/writev(2) with lseek(2)",
        caps: SYNC,
        create: |o| Ok(Box::new(SyncEngine::new(Flavor::Vsync, o))),
    },
    Entry {
        name: "pvsync",
        help: "preadv(2)/pwritev(2)",
        caps: SYNC,
        create: |o| Ok(Box::new(SyncEngine::new(Flavor::Pvsync, o))),
    },
    Entry {
        name: "pvsync2",
        help: "preadv2(2)/pwritev2(2), supports hipri",
        caps: SYNC,
        create: |o| Ok(Box::new(SyncEngine::new(Flavor::Pvsync2, o))),
    },
    Entry {
        name: "null",
        help: "no I/O at all: measures ferrio's own overhead",
        caps: Capabilities {
            synchronous: true,
            diskless: true,
            fills_buffers: false,
            virtual_time: false,
            depth_limit: DepthLimit::None,
            accounting: Accounting::Data,
            queues_when_deep: true,
            prepopulates: false,
            maps_files: false,
            aligned_buffers: false,
            no_extend: false,
        },
        create: |o| Ok(Box::new(null::NullEngine::new(o.iodepth))),
    },
    Entry {
        name: "sim",
        help: "simulated device with modelled service times (sim_* options; docs/sim.md)",
        caps: Capabilities {
            synchronous: false,
            diskless: true,
            fills_buffers: false,
            virtual_time: true,
            depth_limit: DepthLimit::None,
            accounting: Accounting::Data,
            queues_when_deep: false,
            prepopulates: false,
            maps_files: false,
            aligned_buffers: false,
            no_extend: false,
        },
        create: |o| Ok(Box::new(sim::SimEngine::new(o)?)),
    },
    Entry {
        name: "io_uring",
        help: "Linux io_uring: asynchronous, batched submission and completion",
        caps: Capabilities {
            depth_limit: DepthLimit::Max(crate::sys::limits::IO_URING_MAX_ENTRIES),
            queues_when_deep: false,
            prepopulates: false,
            maps_files: false,
            aligned_buffers: false,
            no_extend: false,
            ..ASYNC
        },
        create: |o| Ok(Box::new(io_uring::IoUringEngine::new(o))),
    },
    Entry {
        name: "libaio",
        help: "Linux native AIO (io_submit(2)/io_getevents(2)); asynchronous with direct=1",
        caps: Capabilities {
            depth_limit: DepthLimit::AioMaxNr,
            queues_when_deep: false,
            prepopulates: false,
            maps_files: false,
            aligned_buffers: false,
            no_extend: false,
            ..ASYNC
        },
        create: |o| Ok(Box::new(libaio::LibaioEngine::new(o))),
    },
    Entry {
        name: "mmap",
        help: "memcpy to and from the file mapped with mmap(2)",
        caps: Capabilities {
            no_extend: true,
            ..SYNC
        },
        create: |o| Ok(Box::new(mmap::MmapEngine::new(o))),
    },
    Entry {
        name: "posixaio",
        help: "POSIX AIO (aio_read(3)/aio_write(3)); glibc runs it on helper threads",
        caps: ASYNC,
        create: |o| Ok(Box::new(posixaio::PosixAioEngine::new(o))),
    },
    net::NET,
    net::NETSPLICE,
    Entry {
        name: "filecreate",
        help: "creates each file (open(2) with O_CREAT); one timed operation per file and pass",
        caps: Capabilities { diskless: true, ..FILE_OPS },
        create: |o| Ok(Box::new(FileOpsEngine::new(FileOp::CreateFile, o))),
    },
    Entry {
        name: "filestat",
        help: "stat(2)s each file (stat_type=stat|lstat|statx); one timed operation per file and pass",
        caps: FILE_OPS,
        create: |o| Ok(Box::new(FileOpsEngine::new(FileOp::StatFile, o))),
    },
    Entry {
        name: "filedelete",
        help: "unlink(2)s each file; one timed operation per file and pass",
        caps: FILE_OPS,
        create: |o| Ok(Box::new(FileOpsEngine::new(FileOp::DeleteFile, o))),
    },
    Entry {
        name: "dircreate",
        help: "creates each name as a directory (mkdir(2)); one timed operation per directory and pass",
        caps: Capabilities { diskless: true, ..FILE_OPS },
        create: |o| Ok(Box::new(FileOpsEngine::new(FileOp::CreateDir, o))),
    },
    Entry {
        name: "dirstat",
        help: "stat(2)s each directory (stat_type=stat|lstat|statx); one timed operation per directory and pass",
        caps: Capabilities { diskless: true, ..FILE_OPS },
        create: |o| Ok(Box::new(FileOpsEngine::new(FileOp::StatDir, o))),
    },
    Entry {
        name: "dirdelete",
        help: "removes each directory (rmdir(2)); one timed operation per directory and pass",
        caps: Capabilities { diskless: true, ..FILE_OPS },
        create: |o| Ok(Box::new(FileOpsEngine::new(FileOp::DeleteDir, o))),
    },
    Entry {
        name: "cpuio",
        help: "burns CPU: cpuload percent of one CPU in cpuchunks cycles (cpumode=noop|qsort); no I/O",
        caps: NO_IO,
        create: |o| Ok(Box::new(cpuio::CpuEngine::new(o))),
    },
    Entry {
        name: "exec",
        help: "runs program= in the background for the job's runtime; no I/O",
        caps: NO_IO,
        create: |o| Ok(Box::new(exec::ExecEngine::new(o))),
    },
    Entry {
        name: "falloc",
        help: "fallocate(2): reads allocate (KEEP_SIZE), writes allocate, trims punch holes",
        caps: SYNC,
        create: |o| Ok(Box::new(falloc::FallocEngine::new(o))),
    },
    Entry {
        name: "ftruncate",
        help: "ftruncate(2) to each write's offset; writes only",
        caps: SYNC,
        create: |o| Ok(Box::new(ftruncate::FtruncateEngine::new(o))),
    },
    Entry {
        name: "e4defrag",
        help: "ext4 online defragmentation (EXT4_IOC_MOVE_EXT) against a donor file (donorname=)",
        caps: SYNC,
        create: |o| Ok(Box::new(e4defrag::E4defragEngine::new(o)?)),
    },
    Entry {
        name: "splice",
        help: "splice(2) and vmsplice(2) through a pipe",
        caps: SYNC,
        create: |o| Ok(Box::new(splice::SpliceEngine::new(o))),
    },
    Entry {
        name: "nbd",
        help: "an NBD server's export (uri=) through libnbd, asynchronous; sized by the export",
        // No local file (fio's FIO_DISKLESSIO), but writes carry data to the export.
        caps: Capabilities {
            diskless: true,
            fills_buffers: true,
            no_extend: true,
            ..ASYNC
        },
        create: |o| Ok(Box::new(nbd::NbdEngine::new(o))),
    },
    Entry {
        name: "libpmem",
        help: "persistent memory (DAX files) the way PMDK's libpmem writes it: mmap, cache-line flushes or non-temporal stores (direct=1), a drain per write with sync=1",
        caps: Capabilities {
            prepopulates: true,
            maps_files: true,
            aligned_buffers: true,
            no_extend: true,
            ..SYNC
        },
        create: libpmem::create,
    },
];

/// How an engine whose target sizes itself reports that size for a job.
pub type TargetSize = fn(&ferrio_config::JobSpec) -> Result<u64, String>;

/// Diskless engines whose target is remote storage (fio: the engine sets its first
/// file's size in its setup, and FIO_NOEXTEND): the planner asks the target's size,
/// which a job's region never passes, and the data stays there, so verify reads it
/// back for real instead of pretending as for the other diskless engines.
pub const SIZED_BY_TARGET: &[(&str, TargetSize)] = &[("nbd", nbd::export_size)];

/// The size of `spec`'s target, for an engine listed in [`SIZED_BY_TARGET`].
pub fn target_size(spec: &ferrio_config::JobSpec) -> Option<Result<u64, String>> {
    SIZED_BY_TARGET
        .iter()
        .find(|(name, _)| *name == spec.ioengine)
        .map(|(_, size)| size(spec))
}

/// Whether engine `name` keeps the data it writes (see [`SIZED_BY_TARGET`]).
pub fn keeps_data(name: &str) -> bool {
    SIZED_BY_TARGET.iter().any(|(n, _)| *n == name)
}

/// The metadata engines' operations, as mdtest names them (in its order), for the
/// table after the normal output.
pub const OPERATIONS: &[(&str, &str)] = &[
    ("dircreate", "Directory creation"),
    ("dirstat", "Directory stat"),
    ("dirdelete", "Directory removal"),
    ("filecreate", "File creation"),
    ("filestat", "File stat"),
    ("filedelete", "File removal"),
];

/// The row for `name`.
pub fn find(name: &str) -> Option<&'static Entry> {
    ENGINES.iter().find(|e| e.name == name)
}

/// Every engine's name, in table order.
pub fn names() -> Vec<&'static str> {
    ENGINES.iter().map(|e| e.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engines_that_cannot_grow_a_file_are_those_the_options_refuse_file_append_with() {
        let no_extend: Vec<&str> = ENGINES
            .iter()
            .filter(|e| e.caps.no_extend)
            .map(|e| e.name)
            .collect();
        assert_eq!(no_extend, ferrio_config::table::NO_EXTEND_ENGINES);
    }

    #[test]
    fn the_registry_and_the_ioengine_option_list_the_same_engines_with_the_same_help() {
        let opt = ferrio_config::table::find("ioengine").expect("ioengine option");
        let registry: Vec<(&str, &str)> = ENGINES.iter().map(|e| (e.name, e.help)).collect();
        assert_eq!(
            registry, opt.values,
            "src/engine/registry.rs and crates/config/src/table/io.rs (ioengine) must list the same engines, help and order"
        );
        assert_eq!(
            opt.default, ENGINES[0].name,
            "the default engine comes first"
        );
    }

    #[test]
    fn names_are_unique_and_not_also_listed_as_not_yet_supported() {
        for (i, e) in ENGINES.iter().enumerate() {
            assert!(
                ENGINES[..i].iter().all(|o| o.name != e.name),
                "{} twice",
                e.name
            );
            assert!(
                ferrio_config::table::engine_not_yet(e.name).is_none(),
                "{} is registered and also listed as not yet supported",
                e.name
            );
        }
    }

    #[test]
    fn engines_sized_by_their_target_are_registered_diskless_and_keep_data() {
        for (name, _) in SIZED_BY_TARGET {
            let e = find(name).unwrap_or_else(|| panic!("{name}"));
            assert!(e.caps.diskless && e.caps.fills_buffers, "{name}");
            assert!(keeps_data(name));
        }
        assert!(!keeps_data("null") && !keeps_data("net"));
    }

    #[test]
    fn every_operation_is_a_registered_metadata_engine() {
        for (name, _) in OPERATIONS {
            let e = find(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(e.caps.accounting, Accounting::FileOps, "{name}");
        }
        let file_ops = ENGINES
            .iter()
            .filter(|e| e.caps.accounting == Accounting::FileOps)
            .count();
        assert_eq!(file_ops, OPERATIONS.len());
    }

    #[test]
    fn capabilities_are_read_without_creating_an_engine() {
        assert!(super::super::capabilities_of("sim").unwrap().virtual_time);
        assert!(super::super::capabilities_of("psync").unwrap().synchronous);
        assert!(super::super::capabilities_of("sg").is_none());
        assert!(super::super::capabilities_of("rdma").is_none());
    }

    #[test]
    fn every_engine_can_be_created_with_default_options() {
        for e in ENGINES {
            assert!((e.create)(&EngineOptions::default()).is_ok(), "{}", e.name);
        }
    }

    #[test]
    fn an_unknown_engine_is_refused_with_the_list() {
        let err = super::super::create("sg", EngineOptions::default())
            .err()
            .unwrap();
        assert!(
            err.contains("not available") && err.contains("psync, sync"),
            "{err}"
        );
    }
}
