//! Options of fio's engines that ferrio cannot run (sg, rdma, rados, rbd, gfapi, mtd,
//! http, nfs, libblkio, xnvme, io_uring_cmd, dfs, libcufile, libhipfile, libhdfs,
//! libiscsi, librpma_*) and fio's options for GPU buffers, each recorded with the engines it
//! belongs to. `--parse-only` checks their values as fio does (a bad one is refused
//! naming the option) so that job files written for that hardware parse; a run of
//! such a job is refused with the engine's reason before any file is touched
//! (ext/foreign.rs). Options the engines share with ferrio's own engines (`hipri`,
//! `port`, `fixedbufs`, ...) stay in their tables; [`SHARED`] lists the foreign
//! engines that also take them.

use super::{opt, Category as C, Ctx, Kind as K, OptSpec};
use crate::spec::JobSpec;

/// Options of ferrio's own tables that fio's foreign engines take too.
pub const SHARED: &[(&str, &[&str])] = &[
    ("hipri", &["sg", "io_uring_cmd", "libblkio", "xnvme"]),
    ("hostname", &["rdma", "libhdfs"]),
    (
        "port",
        &[
            "rdma",
            "libhdfs",
            "librpma_apm_client",
            "librpma_apm_server",
            "librpma_gpspm_client",
            "librpma_gpspm_server",
        ],
    ),
    ("sqthread_poll", &["io_uring_cmd", "xnvme"]),
    ("fixedbufs", &["io_uring_cmd"]),
    ("registerfiles", &["io_uring_cmd"]),
    ("sqthread_poll_cpu", &["io_uring_cmd"]),
    ("nonvectored", &["io_uring_cmd"]),
    ("force_async", &["io_uring_cmd"]),
    ("nowait", &["io_uring_cmd"]),
    ("uncached", &["io_uring_cmd"]),
];

/// Whether `engine` is a foreign engine that also takes ferrio's option `name`.
pub fn shared_with(name: &str, engine: &str) -> bool {
    SHARED
        .iter()
        .any(|(n, engines)| *n == name && engines.contains(&engine))
}

/// `ioengine=external:PATH`, or a PATH (a value with a '/': fio tries to load any
/// engine it does not know as a shared object, and such objects are built against
/// fio's own internals, so ferrio runs none): as in fio, PATH must be a regular file.
pub fn external_engine(v: &str) -> Option<Result<String, String>> {
    let (path, named) = match v.strip_prefix("external:") {
        Some(p) => (p.trim(), format!("external:{}", p.trim())),
        None if v.contains('/') => (v.trim(), v.trim().to_string()),
        None => return None,
    };
    Some(match std::fs::metadata(path) {
        _ if path.is_empty() => Err("external: needs the engine's file (external:/path/engine.so)".into()),
        Ok(m) if m.is_file() => Ok(format!(
            "I/O engine '{named}' is not supported by ferrio: it is a shared object built against fio's own internals"
        )),
        _ => Err(format!("invalid external ioengine path '{path}' (not a regular file; fio loads an engine given as a path as a shared object)")),
    })
}

fn any(_: &mut JobSpec, _: &Ctx, _: &str) -> Result<(), String> {
    Ok(())
}

fn boolean(_: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    c.bool(v).map(|_| ())
}

fn int(_: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    c.uint(v).map(|_| ())
}

fn size(_: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    c.size(v).map(|_| ())
}

fn choice(_: &mut JobSpec, c: &Ctx, v: &str) -> Result<(), String> {
    c.choice(v).map(|_| ())
}

/// Free text of one engine (fio's FIO_OPT_STR_STORE).
const fn text(name: &'static str, engines: &'static [&'static str], help: &'static str) -> OptSpec {
    opt(name, K::Str, C::Foreign, help, any).private_to(engines)
}

const fn flag(name: &'static str, engines: &'static [&'static str], help: &'static str) -> OptSpec {
    opt(name, K::Flag, C::Foreign, help, boolean).private_to(engines)
}

const fn yes_no(
    name: &'static str,
    engines: &'static [&'static str],
    default: &'static str,
    help: &'static str,
) -> OptSpec {
    opt(name, K::Bool, C::Foreign, help, boolean)
        .def(default)
        .private_to(engines)
}

const fn number(
    name: &'static str,
    engines: &'static [&'static str],
    help: &'static str,
) -> OptSpec {
    opt(name, K::Int, C::Foreign, help, int).private_to(engines)
}

const fn one_of(
    name: &'static str,
    engines: &'static [&'static str],
    default: &'static str,
    values: &'static [(&'static str, &'static str)],
    help: &'static str,
) -> OptSpec {
    opt(name, K::Choice, C::Foreign, help, choice)
        .def(default)
        .vals(values)
        .private_to(engines)
}

const SG: &[&str] = &["sg"];
const RDMA: &[&str] = &["rdma"];
const CEPH: &[&str] = &["rados", "rbd"];
const GFAPI: &[&str] = &["gfapi", "gfapi_async"];
const HTTP: &[&str] = &["http"];
const BLKIO: &[&str] = &["libblkio"];
const XNVME: &[&str] = &["xnvme"];
const NVME: &[&str] = &["io_uring_cmd", "xnvme"];
const URING_CMD: &[&str] = &["io_uring_cmd"];
const FUA: &[&str] = &["sg", "io_uring_cmd"];
const DFS: &[&str] = &["dfs"];
const HDFS: &[&str] = &["libhdfs"];
const RPMA: &[&str] = &[
    "librpma_apm_client",
    "librpma_apm_server",
    "librpma_gpspm_client",
    "librpma_gpspm_server",
];

/// pi_chk: a comma-separated list of GUARD, REFTAG and APPTAG.
fn pi_chk(_: &mut JobSpec, _: &Ctx, v: &str) -> Result<(), String> {
    for f in v.split(',').map(str::trim).filter(|f| !f.is_empty()) {
        if !["GUARD", "REFTAG", "APPTAG"].contains(&f) {
            return Err(format!(
                "unknown check '{f}' (GUARD, REFTAG, APPTAG, comma-separated)"
            ));
        }
    }
    Ok(())
}

const WRITE_MODES: &[&str] = &["write", "uncor", "zeroes", "verify", "zone_append"];

/// write_mode: one command, or `mode/pct:mode/pct:...` where a blank percentage
/// shares what the others leave (fio's str_write_mode_cb).
fn write_mode(_: &mut JobSpec, _: &Ctx, v: &str) -> Result<(), String> {
    let known = |m: &str| {
        WRITE_MODES
            .contains(&m)
            .then_some(())
            .ok_or_else(|| format!("unknown write command '{m}' ({})", WRITE_MODES.join(", ")))
    };
    if !v.contains(':') {
        return known(v.trim());
    }
    let mut total = 0u64;
    for e in v.split(':') {
        let (mode, pct) = e
            .split_once('/')
            .ok_or_else(|| format!("entry '{e}' needs a '/' (mode/percentage)"))?;
        known(mode.trim())?;
        if !pct.trim().is_empty() {
            total += pct
                .trim()
                .parse::<u64>()
                .map_err(|_| format!("bad percentage '{pct}' in '{e}'"))?;
        }
    }
    if total > 100 {
        return Err(format!("the percentages add up to {total}, more than 100"));
    }
    Ok(())
}

/// plids / fdp_pli: comma-separated placement IDs and ID ranges (`0,3-5`).
fn plids(_: &mut JobSpec, _: &Ctx, v: &str) -> Result<(), String> {
    let id = |t: &str| crate::values::parse_int(t.trim(), 1024);
    for e in v.split(',').filter(|e| !e.trim().is_empty()) {
        let (a, b) = match e.split_once('-') {
            Some((a, b)) => (id(a)?, id(b)?),
            None => (id(e)?, id(e)?),
        };
        if a > b {
            return Err(format!("range '{e}' runs backwards"));
        }
    }
    Ok(())
}

/// gpu_dev_ids: GPU numbers separated by ':' (one per job clone, round robin).
fn gpu_ids(_: &mut JobSpec, _: &Ctx, v: &str) -> Result<(), String> {
    for g in v.split(':').filter(|g| !g.is_empty()) {
        g.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{g}' is not a GPU number (e.g. 0:1)"))?;
    }
    Ok(())
}

pub const FOREIGN: &[OptSpec] = &[
    // sg (SCSI generic).
    yes_no("readfua", FUA, "0", "sg, io_uring_cmd: set the Force Unit Access bit on reads"),
    yes_no("writefua", FUA, "0", "sg, io_uring_cmd: set the Force Unit Access bit on writes"),
    one_of("sg_write_mode", SG, "write", &[
        ("write", "WRITE commands"),
        ("write_and_verify", "WRITE AND VERIFY commands"),
        ("verify", "WRITE AND VERIFY commands (old name)"),
        ("write_same", "WRITE SAME commands"),
        ("same", "WRITE SAME commands (old name)"),
        ("write_same_ndob", "WRITE SAME commands with NDOB (no data out buffer)"),
        ("verify_bytchk_00", "VERIFY commands, BYTCHK 00 (medium only)"),
        ("verify_bytchk_01", "VERIFY commands, BYTCHK 01 (compare with the data sent)"),
        ("verify_bytchk_11", "VERIFY commands, BYTCHK 11 (one block compared throughout)"),
        ("write_stream", "WRITE STREAM(16) commands"),
    ], "sg: the SCSI command writes issue"),
    number("stream_id", SG, "sg: stream ID of WRITE STREAM commands").def("0").range(0, 65535),
    // rdma.
    text("bindname", RDMA, "rdma: local address to bind to"),
    one_of("verb", RDMA, "write", &[
        ("write", "RDMA WRITE"),
        ("read", "RDMA READ"),
        ("send", "RDMA SEND"),
        ("recv", "RDMA RECV"),
    ], "rdma: the RDMA operation"),
    // librpma (fio 3.33 to 3.37).
    text("serverip", RPMA, "librpma_apm_client, librpma_apm_server, librpma_gpspm_client, librpma_gpspm_server: IP address the server listens on"),
    yes_no("direct_write_to_pmem", RPMA, "0", "librpma_apm_client, librpma_apm_server, librpma_gpspm_client, librpma_gpspm_server: the remote host can write straight to persistent memory"),
    yes_no("busy_wait_polling", RPMA, "1", "librpma_apm_client, librpma_apm_server, librpma_gpspm_client, librpma_gpspm_server: busy-poll for completions (0: wait)"),
    // rados, rbd (Ceph).
    text("clustername", CEPH, "rados, rbd: the Ceph cluster name"),
    text("pool", &["rados", "rbd", "dfs"], "rados, rbd, dfs: the Ceph pool, or the DAOS pool (UUID or label)"),
    text("clientname", CEPH, "rados, rbd: the Ceph client name (without 'client.')"),
    text("conf", &["rados"], "rados: the Ceph configuration file").def("/etc/ceph/ceph.conf"),
    yes_no("busy_poll", CEPH, "0", "rados, rbd: busy-poll for completions"),
    yes_no("touch_objects", &["rados"], "1", "rados: touch (create) the objects at setup"),
    text("rbdname", &["rbd"], "rbd: the RBD image name"),
    text("rbd_encryption_format", &["rbd"], "rbd: the image's encryption format (luks1, luks2)"),
    text("rbd_encryption_passphrase", &["rbd"], "rbd: the image's encryption passphrase"),
    // gfapi, gfapi_async (GlusterFS).
    text("volume", GFAPI, "gfapi, gfapi_async: the GlusterFS volume"),
    text("brick", GFAPI, "gfapi, gfapi_async: the GlusterFS server (brick)"),
    opt("single-instance", K::Bool, C::Foreign, "gfapi, gfapi_async: one GlusterFS connection for all jobs", boolean).private_to(GFAPI),
    // mtd.
    yes_no("skip_bad", &["mtd"], "0", "mtd: skip the flash's bad blocks"),
    // http (WebDAV, S3, Swift through libcurl).
    one_of("https", HTTP, "off", &[
        ("off", "plain HTTP"),
        ("on", "HTTPS"),
        ("insecure", "HTTPS without checking the certificate"),
    ], "http: use HTTPS"),
    text("http_host", HTTP, "http: the host name").def("localhost"),
    text("http_user", HTTP, "http: the user name (WebDAV)"),
    text("http_pass", HTTP, "http: the password (WebDAV)"),
    text("http_s3_key", HTTP, "http: the S3 secret key"),
    text("http_s3_keyid", HTTP, "http: the S3 key ID"),
    text("http_s3_security_token", HTTP, "http: the S3 security token"),
    text("http_swift_auth_token", HTTP, "http: the Swift authentication token"),
    text("http_s3_region", HTTP, "http: the S3 region").def("us-east-1"),
    text("http_s3_sse_customer_key", HTTP, "http: the S3 server-side encryption customer key"),
    text("http_s3_sse_customer_algorithm", HTTP, "http: the S3 server-side encryption algorithm").def("AES256"),
    text("http_s3_storage_class", HTTP, "http: the S3 storage class").def("STANDARD"),
    one_of("http_mode", HTTP, "webdav", &[
        ("webdav", "WebDAV"),
        ("s3", "Amazon S3"),
        ("swift", "OpenStack Swift"),
    ], "http: the protocol"),
    number("http_verbose", HTTP, "http: libcurl's verbosity (0 off, 1 on, 2 with the engine's own lines)").def("0").range(0, 2),
    one_of("http_object_mode", HTTP, "block", &[
        ("block", "one object per block"),
        ("range", "ranges of one object per file"),
    ], "http: how blocks map to objects"),
    // nfs.
    text("nfs_url", &["nfs"], "nfs: the export, nfs://server/path"),
    // libblkio.
    text("libblkio_driver", BLKIO, "libblkio: the libblkio driver (io_uring, nvme-io_uring, virtio-blk-vfio-pci, ...)"),
    text("libblkio_path", BLKIO, "libblkio: the driver's 'path' property"),
    text("libblkio_pre_connect_props", BLKIO, "libblkio: properties set before connecting (name=value:...)"),
    number("libblkio_num_entries", BLKIO, "libblkio: the driver's 'num-entries' property").min(1),
    number("libblkio_queue_size", BLKIO, "libblkio: the driver's 'queue-size' property").min(1),
    text("libblkio_pre_start_props", BLKIO, "libblkio: properties set before starting (name=value:...)"),
    flag("libblkio_vectored", BLKIO, "libblkio: vectored reads and writes"),
    flag("libblkio_write_zeroes_on_trim", BLKIO, "libblkio: trims as write-zeroes requests"),
    one_of("libblkio_wait_mode", BLKIO, "block", &[
        ("block", "wait in blkioq_do_io()"),
        ("eventfd", "wait on the completion eventfd"),
        ("loop", "poll in a loop"),
    ], "libblkio: how completions are waited for"),
    flag("libblkio_force_enable_completion_eventfd", BLKIO, "libblkio: enable the completion eventfd even when not waiting on it"),
    // xnvme.
    text("xnvme_be", XNVME, "xnvme: the xNVMe backend (linux, spdk, fbsd, macos, posix, windows)"),
    text("xnvme_mem", XNVME, "xnvme: the backend's memory allocator"),
    text("xnvme_async", XNVME, "xnvme: the asynchronous interface (io_uring, io_uring_cmd, libaio, nvme, ...)"),
    text("xnvme_sync", XNVME, "xnvme: the synchronous interface (nvme, psync, block)"),
    text("xnvme_admin", XNVME, "xnvme: the admin interface (nvme, block)"),
    number("xnvme_dev_nsid", XNVME, "xnvme: the namespace ID (user-space NVMe drivers)"),
    text("xnvme_dev_subnqn", XNVME, "xnvme: the subsystem NQN (NVMe over fabrics)"),
    flag("xnvme_iovec", XNVME, "xnvme: vectored I/O"),
    // io_uring_cmd and xnvme: NVMe metadata and protection information.
    number("md_per_io_size", NVME, "io_uring_cmd, xnvme: metadata buffer bytes per I/O").def("0"),
    yes_no("pi_act", NVME, "1", "io_uring_cmd, xnvme: protection information action bit (PRACT)"),
    opt("pi_chk", K::Special, C::Foreign, "io_uring_cmd, xnvme: protection information checks: GUARD, REFTAG, APPTAG (comma-separated)", pi_chk).private_to(NVME),
    number("apptag", NVME, "io_uring_cmd, xnvme: the application tag").def("0x1234").range(0, 0xffff),
    number("apptag_mask", NVME, "io_uring_cmd, xnvme: the application tag mask").def("0xffff").range(0, 0xffff),
    // io_uring_cmd.
    one_of("cmd_type", URING_CMD, "nvme", &[
        ("nvme", "NVMe commands to an NVMe generic character device (/dev/ngXnY)"),
        ("bsg", "SCSI commands to a block SCSI generic device (/dev/bsg/...)"),
    ], "io_uring_cmd: the command set"),
    opt("write_mode", K::Special, C::Foreign, "io_uring_cmd: the write command: write, uncor, zeroes, verify or zone_append, or a mix mode/pct:mode/pct (a blank pct shares the rest)", write_mode)
        .def("write")
        .private_to(URING_CMD),
    one_of("verify_mode", URING_CMD, "read", &[
        ("read", "Read commands in the verify phase"),
        ("compare", "Compare commands in the verify phase"),
    ], "io_uring_cmd: how the verify phase checks"),
    one_of("cdb_len", URING_CMD, "0", &[
        ("0", "the smallest CDB that fits"),
        ("10", "10-byte CDBs"),
        ("16", "16-byte CDBs"),
        ("32", "32-byte CDBs"),
    ], "io_uring_cmd: SCSI CDB length (cmd_type=bsg)"),
    one_of("verify_bytchk", URING_CMD, "0", &[
        ("0", "VERIFY checks the medium only"),
        ("1", "VERIFY compares with the data sent"),
        ("3", "VERIFY compares one block with every block"),
    ], "io_uring_cmd: BYTCHK of SCSI VERIFY (cmd_type=bsg)"),
    one_of("read_mode", URING_CMD, "read", &[
        ("read", "READ commands"),
        ("prefetch", "PRE-FETCH commands"),
    ], "io_uring_cmd: the read command (cmd_type=bsg)"),
    yes_no("deac", URING_CMD, "0", "io_uring_cmd: deallocate bit of write-zeroes commands"),
    // fio's data placement options: global in fio (any engine parses them), acted
    // on by io_uring_cmd and xnvme only; a run with data placement is refused.
    opt("fdp", K::Bool, C::Foreign, "NVMe flexible data placement, as dataplacement=fdp (fio's engines io_uring_cmd and xnvme)", |j, c, v| {
        j.foreign.placement |= c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("dataplacement", K::Choice, C::Foreign, "Data placement interface (fio's engines io_uring_cmd and xnvme)", |j, c, v| {
        j.foreign.placement |= c.choice(v)? != "none";
        Ok(())
    })
    .alias(&["data_placement"])
    .def("none")
    .vals(&[
        ("none", "no data placement"),
        ("fdp", "NVMe flexible data placement"),
        ("streams", "NVMe streams"),
    ]),
    opt("plid_select", K::Choice, C::Foreign, "How the next data placement ID is chosen", choice)
        .alias(&["fdp_pli_select"])
        .def("roundrobin")
        .vals(&[
            ("random", "a placement ID at random"),
            ("roundrobin", "the placement IDs in turn"),
            ("scheme", "by offset, from dp_scheme's file"),
        ]),
    opt("plids", K::Special, C::Foreign, "Data placement IDs to use: comma-separated IDs and ranges (0,3-5)", plids)
        .alias(&["fdp_pli"]),
    opt("dp_scheme", K::Str, C::Foreign, "File mapping offset ranges to data placement IDs (plid_select=scheme)", any),
    number("num_range", URING_CMD, "io_uring_cmd: ranges per trim command").def("1").range(1, 256),
    // dfs (DAOS).
    text("cont", DFS, "dfs: the DAOS container (UUID or label)"),
    opt("chunk_size", K::Size, C::Foreign, "dfs, libhdfs: the DAOS chunk size (0: the container's), or the HDFS chunk size", size).private_to(&["dfs", "libhdfs"]),
    text("object_class", DFS, "dfs: the DAOS object class"),
    text("svcl", DFS, "dfs: the DAOS service ranks (old DAOS versions)"),
    // libcufile, libhipfile (GPU direct storage).
    opt("gpu_dev_ids", K::Special, C::Foreign, "libcufile, libhipfile: GPUs the job clones use in turn, ':'-separated (0:1)", gpu_ids).private_to(&["libcufile", "libhipfile"]),
    one_of("cuda_io", &["libcufile"], "cufile", &[
        ("cufile", "cuFile (GPUDirect Storage)"),
        ("posix", "POSIX I/O and cudaMemcpy"),
    ], "libcufile: how data reaches the GPU"),
    one_of("rocm_io", &["libhipfile"], "hipfile", &[
        ("hipfile", "hipFile"),
        ("posix", "POSIX I/O and hipMemcpy"),
    ], "libhipfile: how data reaches the GPU"),
    // libhdfs.
    text("namenode", HDFS, "libhdfs: the HDFS name node").def("localhost"),
    text("hdfsdirectory", HDFS, "libhdfs: the HDFS directory").def("/"),
    yes_no("single_instance", HDFS, "1", "libhdfs: one HDFS connection for all jobs"),
    yes_no("hdfs_use_direct", HDFS, "0", "libhdfs: HDFS direct reads"),
    // libiscsi.
    text("initiator", &["libiscsi"], "libiscsi: the initiator's IQN").def("iqn.2019-04.org.fio:fio"),
    // GPU buffers for GPUDirect RDMA (mem=cudamalloc): any engine.
    opt("gpu_dev_id", K::Int, C::Foreign, "The GPU whose memory mem=cudamalloc uses", int).def("0"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_options_exist_in_ferrios_tables_and_name_foreign_engines() {
        let foreign: Vec<&str> = super::super::ENGINES_NOT_YET.iter().map(|e| e.0).collect();
        for (name, engines) in SHARED {
            let o = super::super::find(name).unwrap_or_else(|| panic!("{name}"));
            assert!(!FOREIGN.iter().any(|f| f.name == *name), "{name} twice");
            assert!(
                !o.engines.is_empty(),
                "{name} is not an engine's own option"
            );
            for e in *engines {
                assert!(foreign.contains(e), "{name}: {e} is not a foreign engine");
            }
        }
    }

    #[test]
    fn every_foreign_option_belongs_to_foreign_engines() {
        let foreign: Vec<&str> = super::super::ENGINES_NOT_YET.iter().map(|e| e.0).collect();
        for o in FOREIGN {
            for e in o.engines {
                assert!(foreign.contains(e), "{}: {e}", o.name);
            }
        }
        assert!(shared_with("port", "rdma") && !shared_with("port", "sg"));
    }

    #[test]
    fn external_engines_need_a_regular_file() {
        assert_eq!(external_engine("sg"), None);
        assert!(external_engine("external:/proc/self/exe").unwrap().is_ok());
        let e = external_engine("external:/nonexistent/x.so")
            .unwrap()
            .unwrap_err();
        assert!(e.contains("/nonexistent/x.so"), "{e}");
        assert!(external_engine("external:/tmp").unwrap().is_err());
        assert!(external_engine("external:").unwrap().is_err());
    }
}
