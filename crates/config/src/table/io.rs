//! Options: I/O pattern, block sizes and the I/O engine.

use super::{opt, Category as C, Ctx, Kind as K, OptSpec};
use crate::spec::{BlockSize, JobSpec, RwKind, RwMode, RwSequencer};
use crate::values::list::{per_direction_numbers, per_direction_ranges};
use crate::values::{parse_bssplit, parse_size};

/// fio engines ferrio knows of but does not implement, each with what it drives (a
/// clear error saying so, not "unknown"). To add an engine: a row in the binary's
/// `src/engine/registry.rs`, and the same name and help in `ioengine`'s value list
/// below (a test there proves the two agree).
pub const ENGINES_NOT_YET: &[(&str, &str)] = &[
    (
        "sg",
        "it sends SCSI commands to a SCSI generic device (/dev/sgN)",
    ),
    (
        "rdma",
        "it needs an RDMA network adapter (InfiniBand, RoCE, iWARP) and librdmacm",
    ),
    ("dfs", "it needs a DAOS storage system (libdfs)"),
    ("xnvme", "it needs the xNVMe library and an NVMe device"),
    ("windowsaio", "it is Windows' asynchronous I/O"),
    ("solarisaio", "it is Solaris' asynchronous I/O"),
    ("gfapi", "it needs a GlusterFS volume (libgfapi)"),
    ("gfapi_async", "it needs a GlusterFS volume (libgfapi)"),
    ("mtd", "it needs an MTD flash device (/dev/mtdN)"),
    (
        "io_uring_cmd",
        "it sends NVMe commands to an NVMe generic character device (/dev/ngXnY)",
    ),
    ("rados", "it needs a Ceph cluster (librados)"),
    ("rbd", "it needs a Ceph cluster (librbd)"),
    ("pmemblk", "it needs persistent memory (PMDK's libpmemblk)"),
    (
        "dev-dax",
        "it needs a persistent-memory DAX device (/dev/daxN.M)",
    ),
    ("libiscsi", "it needs an iSCSI target (libiscsi)"),
    // fio 3.33 to 3.37's librpma engines (fio 3.38 removed them).
    (
        "librpma_apm_client",
        "it needs RDMA hardware and remote persistent memory (librpma)",
    ),
    (
        "librpma_apm_server",
        "it needs RDMA hardware and persistent memory (librpma)",
    ),
    (
        "librpma_gpspm_client",
        "it needs RDMA hardware and remote persistent memory (librpma)",
    ),
    (
        "librpma_gpspm_server",
        "it needs RDMA hardware and persistent memory (librpma)",
    ),
    ("libhdfs", "it needs a Hadoop HDFS cluster (libhdfs)"),
    ("ime_psync", "it needs a DDN IME system"),
    ("ime_psyncv", "it needs a DDN IME system"),
    ("ime_aio", "it needs a DDN IME system"),
    (
        "http",
        "it talks to an HTTP, S3 or Swift object store through libcurl",
    ),
    ("nfs", "it talks to an NFS server through libnfs"),
    (
        "libcufile",
        "it needs NVIDIA GPUDirect Storage (cuFile) and a GPU",
    ),
    (
        "cpp_null",
        "it is fio's C++ build test of the null engine (use ioengine=null)",
    ),
    // fio master's engines that fio 3.33 lacks, and its tests' page_fault.
    (
        "libzbc",
        "it drives zoned SCSI and ATA disks through libzbc (use zonemode=zbd with psync, libaio or io_uring)",
    ),
    (
        "libblkio",
        "it needs libblkio (virtio-blk, vhost-user, vDPA or NVMe through libblkio's drivers)",
    ),
    (
        "libhipfile",
        "it needs AMD ROCm's hipFile and a GPU",
    ),
    (
        "page_fault",
        "it is fio's test engine of page faults on a mapped file (use ioengine=mmap)",
    ),
];

/// Why engine `name` is refused, when it is one of fio's that ferrio lacks.
pub fn engine_not_yet(name: &str) -> Option<String> {
    ENGINES_NOT_YET
        .iter()
        .find(|e| e.0 == name)
        .map(|(e, why)| format!("I/O engine '{e}' is not supported by ferrio yet: {why}"))
}

const RW_VALUES: &[(&str, &str)] = &[
    ("read", "sequential reads"),
    ("write", "sequential writes"),
    ("trim", "sequential trims"),
    ("randread", "random reads"),
    ("randwrite", "random writes"),
    ("randtrim", "random trims"),
    ("rw", "sequential mixed reads and writes"),
    ("readwrite", "sequential mixed reads and writes"),
    ("randrw", "random mixed reads and writes"),
    ("trimwrite", "trim and write the same blocks, sequentially"),
    (
        "randtrimwrite",
        "trim and write the same blocks, at random offsets",
    ),
];

fn rw(j: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    let (mode, nr) = match v.split_once(':') {
        Some((m, n)) => (m.trim(), Some(n.trim())),
        None => (v, None),
    };
    let (kind, random) = match mode {
        "read" => (RwKind::Read, false),
        "write" => (RwKind::Write, false),
        "trim" => (RwKind::Trim, false),
        "randread" => (RwKind::Read, true),
        "randwrite" => (RwKind::Write, true),
        "randtrim" => (RwKind::Trim, true),
        "rw" | "readwrite" => (RwKind::ReadWrite, false),
        "randrw" => (RwKind::ReadWrite, true),
        "trimwrite" => (RwKind::TrimWrite, false),
        "randtrimwrite" => (RwKind::TrimWrite, true),
        _ => return Err("not an allowed value".into()),
    };
    let nr = match nr {
        None => 1,
        Some(n) => {
            // A negative modifier is a backwards step, meaningful for sequential I/O only.
            let (negative, digits) = match n.strip_prefix('-') {
                Some(rest) if !random => (true, rest),
                Some(_) => return Err("a negative ':N' suffix needs a sequential rw mode".into()),
                None => (false, n),
            };
            let n = parse_size(digits, c.kb_base).map_err(|e| format!("bad ':N' suffix: {e}"))?;
            let n = i64::try_from(n).map_err(|_| format!("':N' suffix {n} is too large"))?;
            // fio treats :0 like :1.
            if negative {
                -n
            } else {
                n.max(1)
            }
        }
    };
    j.rw = RwMode {
        kind,
        random,
        nr,
        text: v.to_string(),
    };
    Ok(())
}

fn bs(j: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    for (d, p) in per_direction_numbers(v)?.into_iter().enumerate() {
        if let Some(p) = p {
            let n = parse_size(p, c.kb_base)?;
            if n == 0 {
                return Err("block size must be > 0".into());
            }
            // fio: bs fills min_bs/max_bs only where bsrange or bssplit left them unset
            if !j.bs_ranged[d] {
                j.bs[d].min = n;
                j.bs[d].max = n;
            }
        }
    }
    Ok(())
}

fn bsrange(j: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    let (ranges, skipped) = per_direction_ranges(v, c.kb_base)?;
    for why in skipped {
        j.warnings.push(format!(
            "bsrange={v}: {why}; fio skips that part, so ferrio does too (its directions keep their block size)"
        ));
    }
    for (d, r) in ranges.into_iter().enumerate() {
        if let Some((lo, hi)) = r {
            if lo == 0 {
                return Err("block size must be > 0".into());
            }
            j.bs[d].min = lo;
            j.bs[d].max = hi;
            j.bs_ranged[d] = true;
        }
    }
    Ok(())
}

fn bssplit(j: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    for (d, s) in parse_bssplit(v, c.kb_base)?.into_iter().enumerate() {
        if let Some(s) = s {
            j.bs[d] = BlockSize {
                min: s[0].0,
                max: s[s.len() - 1].0,
                split: s,
            };
            j.bs_ranged[d] = true;
        }
    }
    Ok(())
}

fn blockalign(j: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    for (d, p) in per_direction_numbers(v)?.into_iter().enumerate() {
        if let Some(p) = p {
            let a = parse_size(p, c.kb_base)?;
            if a == 0 {
                // fio refuses 0 too; unset means "the minimum block size".
                return Err(
                    "must be at least 1 (leave blockalign unset to align to the block size)".into(),
                );
            }
            j.blockalign[d] = a;
        }
    }
    Ok(())
}

pub const IO: &[OptSpec] = &[
    opt("rw", K::Choice, C::Io, "I/O pattern; ':N' suffix: I/Os per new offset (random) or bytes skipped after each I/O (sequential)", rw)
        .alias(&["readwrite"])
        .def("read")
        .vals(RW_VALUES),
    opt("rw_sequencer", K::Choice, C::Io, "How the rw=...:N offset modifier generates offsets", |j, c, v| {
        j.rw_sequencer = match c.choice(v)? {
            "sequential" => RwSequencer::Sequential,
            _ => RwSequencer::Identical,
        };
        Ok(())
    })
    .def("sequential")
    .vals(&[("sequential", "generate sequential offsets"), ("identical", "repeat the same offset N times")]),
    opt("serialize_overlap", K::Bool, C::Io, "Hold back an I/O while an I/O overlapping it is in flight (jobs that write or trim, or replay a read_iolog, at iodepth > 1; fio's condition)", |j, c, v| {
        j.serialize_overlap = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("rwmixread", K::Int, C::Io, "Percentage of a mixed workload that is reads", |j, c, v| {
        j.rwmixread = c.u32(v)?;
        Ok(())
    })
    .def("50")
    .range(0, 100),
    opt("rwmixwrite", K::Int, C::Io, "Percentage of a mixed workload that is writes (sets rwmixread to 100 minus this)", |j, c, v| {
        j.rwmixread = 100 - c.u32(v)?;
        Ok(())
    })
    .def("50")
    .range(0, 100),
    opt("rwmixcycle", K::Int, C::Io, "Removed from fio (which rejects it): a mixed workload picks each I/O's direction from rwmixread/rwmixwrite", |_, _, _| {
        Err(super::removed("rwmixcycle", "a mixed workload picks each I/O's direction from rwmixread/rwmixwrite"))
    }),
];

pub const BLOCK_SIZE: &[OptSpec] = &[
    opt("bs", K::PerDirSize, C::BlockSize, "Block size for I/O units, or read,write,trim block sizes", bs)
        .alias(&["blocksize"])
        .def("4k")
        .min(1),
    opt("bsrange", K::PerDirRange, C::BlockSize, "Range of block sizes LOW-HIGH to pick from, or read,write,trim ranges (wins over bs, in either order, as in fio); one size is not a range: fio refuses bsrange=4k, and skips such a part beside a range", bsrange)
        .alias(&["blocksize_range"]),
    opt("bssplit", K::Special, C::BlockSize, "Weighted block sizes: bs/percent:bs/percent (empty percent shares the rest; a fraction is cut to its integer part, as fio reads it), per direction with ','", bssplit),
    opt("blockalign", K::PerDirSize, C::BlockSize, "Align random offsets to this boundary (default: the minimum block size)", blockalign)
        .alias(&["ba"]),
    opt("bs_unaligned", K::Flag, C::BlockSize, "Allow any block size within the range, not only multiples of the minimum", |j, c, v| {
        j.bs_unaligned = c.bool(v)?;
        Ok(())
    })
    .alias(&["blocksize_unaligned"])
    .def("0"),
    opt("bs_is_seq_rand", K::Bool, C::BlockSize, "Read the per-direction block sizes (bs, bsrange, bssplit) as sequential,random instead of read,write: sequential I/Os of any direction take the first, random ones the second", |j, c, v| {
        j.bs_is_seq_rand = c.bool(v)?;
        Ok(())
    })
    .def("0"),
];

pub const ENGINE: &[OptSpec] = &[
    opt(
        "ioengine",
        K::Choice,
        C::Engine,
        "How the job issues I/O",
        |j, c, v| {
            // fio's engines that ferrio cannot run parse (--parse-only accepts the
            // job, as fio does); a run refuses them with the reason (ext/foreign.rs).
            let foreign = match super::external_engine(v) {
                Some(why) => Some(why?),
                None => engine_not_yet(v),
            };
            j.ioengine = match &foreign {
                Some(_) => v.to_string(),
                None => c.choice(v)?.to_string(),
            };
            j.foreign.engine = foreign;
            Ok(())
        },
    )
    .def("psync")
    .vals(&[
        ("psync", "pread(2)/pwrite(2)"),
        ("sync", "read(2)/write(2) with lseek(2)"),
        ("vsync", "readv(2)/writev(2) with lseek(2)"),
        ("pvsync", "preadv(2)/pwritev(2)"),
        ("pvsync2", "preadv2(2)/pwritev2(2), supports hipri"),
        ("null", "no I/O at all: measures ferrio's own overhead"),
        (
            "sim",
            "simulated device with modelled service times (sim_* options; docs/sim.md)",
        ),
        (
            "io_uring",
            "Linux io_uring: asynchronous, batched submission and completion",
        ),
        (
            "libaio",
            "Linux native AIO (io_submit(2)/io_getevents(2)); asynchronous with direct=1",
        ),
        ("mmap", "memcpy to and from the file mapped with mmap(2)"),
        (
            "posixaio",
            "POSIX AIO (aio_read(3)/aio_write(3)); glibc runs it on helper threads",
        ),
        (
            "net",
            "TCP, UDP or unix socket I/O (hostname, port, listen; docs/engines.md)",
        ),
        (
            "netsplice",
            "like net, moving data with splice(2) and vmsplice(2)",
        ),
        (
            "filecreate",
            "creates each file (open(2) with O_CREAT); one timed operation per file and pass",
        ),
        (
            "filestat",
            "stat(2)s each file (stat_type=stat|lstat|statx); one timed operation per file and pass",
        ),
        (
            "filedelete",
            "unlink(2)s each file; one timed operation per file and pass",
        ),
        (
            "dircreate",
            "creates each name as a directory (mkdir(2)); one timed operation per directory and pass",
        ),
        (
            "dirstat",
            "stat(2)s each directory (stat_type=stat|lstat|statx); one timed operation per directory and pass",
        ),
        (
            "dirdelete",
            "removes each directory (rmdir(2)); one timed operation per directory and pass",
        ),
        (
            "cpuio",
            "burns CPU: cpuload percent of one CPU in cpuchunks cycles (cpumode=noop|qsort); no I/O",
        ),
        (
            "exec",
            "runs program= in the background for the job's runtime; no I/O",
        ),
        (
            "falloc",
            "fallocate(2): reads allocate (KEEP_SIZE), writes allocate, trims punch holes",
        ),
        (
            "ftruncate",
            "ftruncate(2) to each write's offset; writes only",
        ),
        (
            "e4defrag",
            "ext4 online defragmentation (EXT4_IOC_MOVE_EXT) against a donor file (donorname=)",
        ),
        (
            "splice",
            "splice(2) and vmsplice(2) through a pipe",
        ),
        (
            "nbd",
            "an NBD server's export (uri=) through libnbd, asynchronous; sized by the export",
        ),
        ("libpmem", "persistent memory (DAX files) the way PMDK's libpmem writes it: mmap, cache-line flushes or non-temporal stores (direct=1), a drain per write with sync=1"),
    ]),
    opt(
        "iodepth",
        K::Int,
        C::Engine,
        "Number of I/O units to keep in flight",
        |j, c, v| {
            j.iodepth = c.u32(v)?;
            j.iodepth_set = true;
            Ok(())
        },
    )
    .def("1")
    .min(1),
    opt(
        "hipri",
        K::Flag,
        C::Engine,
        "pvsync2: use RWF_HIPRI; io_uring: polled completions (IORING_SETUP_IOPOLL)",
        |j, c, v| {
            j.hipri = c.bool(v)?;
            Ok(())
        },
    )
    .def("0")
    .private_to(&["pvsync2", "io_uring"]),
];
