//! Options added since the first version: a bad value names the option, the value
//! and what is allowed (a file of its own so that tests.rs stays under 800 lines).

use super::*;

/// This round's new options refuse a bad value by naming the option and the value.
#[test]
fn new_options_name_themselves_and_the_value_on_bad_input() {
    for (line, why) in [
        ("pacer_period=abc", "malformed time"),
        ("pacer_tune=1x", "unknown time unit"),
        ("pacer_step=-1", "malformed time"),
        ("sim_delay=zz", "malformed time"),
        ("sim_buffers=-3", "malformed integer"),
        ("sim_buf_cache=x", "malformed integer"),
        ("serialize_overlap=maybe", "malformed boolean"),
        ("verify_state_load=2x", "malformed boolean"),
        (
            "sync_file_range=bogus:4",
            "allowed: wait_before, write, wait_after",
        ),
        ("significant_figures=11", "allowed: 1..10"),
        ("exit_what=some", "allowed: group, stonewall, all"),
        ("numa_mem_policy=bogus", "allowed: default, local"),
        ("lockfile=bogus", "allowed: none, exclusive, readwrite"),
        ("log_compression=1x", "malformed size"),
        ("log_compression_cpus=zz", "malformed CPU list"),
        ("log_store_compressed=maybe", "malformed boolean"),
        ("thp=maybe", "malformed integer"),
        ("gtod_cpu=x", "malformed integer"),
        ("atomic=maybe", "malformed boolean"),
        ("block_error_percentiles=maybe", "malformed boolean"),
        ("create_serialize=maybe", "malformed boolean"),
        ("unique_filename=maybe", "malformed boolean"),
        ("merge_blktrace_file=", "needs a file name"),
        ("merge_blktrace_scalars=50:x", "malformed number 'x'"),
        (
            "merge_blktrace_iters=1:0.5",
            "each value must be at least 1",
        ),
        ("cmdprio_percentage=101", "allowed: 0..100"),
        ("cmdprio_percentage=10,x", "malformed integer"),
        ("cmdprio_class=4", "allowed: 1..3"),
        ("cmdprio_class=0", "allowed: 1..3"),
        ("cmdprio=8", "allowed: 0..7"),
        ("cmdprio=1,9", "allowed: 0..7"),
        (
            "cmdprio_bssplit=4k/10/1",
            "bs/percentage[/class/level[/hint]]",
        ),
        ("cmdprio_bssplit=4x/10", "malformed size"),
        ("uncached=maybe", "malformed boolean"),
        ("cgroup_weight=50", "allowed: 100..1000"),
        ("cgroup_nodelete=maybe", "malformed boolean"),
        ("cgroup=../x", "no '.', '..' or empty parts"),
        ("profile=nope", "tiobench"),
        (
            "random_distribution=sequence:2,x",
            "sequence block index 'x'",
        ),
        (
            "random_distribution=sequence",
            "sequence needs block indices",
        ),
        ("random_sequence_stride=maybe", "malformed boolean"),
        ("priohint=1024", "allowed: 0..1023"),
        ("verify_write_sequence=maybe", "malformed boolean"),
        ("priohint=x", "malformed integer"),
        ("cmdprio_hint=1024", "allowed: 0..1023"),
        ("cmdprio_hint=1,x", "malformed integer"),
        ("cmdprio_bssplit=4k/10/1/1/1/1", "[/class/level[/hint]]"),
        ("sprandom=maybe", "malformed boolean"),
        ("spr_op=-0.1", "allowed: 0 <= spr_op < 1.667"),
        ("spr_op=1.7", "allowed: 0 <= spr_op < 1.667"),
        ("spr_op=lots", "malformed number"),
        ("spr_op=0.1:0.2", "a single ratio"),
        ("spr_num_regions=0", "allowed: 1.."),
        ("spr_num_regions=x", "malformed integer"),
        ("spr_cs=1q", "malformed size"),
    ] {
        let (name, value) = line.split_once('=').unwrap();
        // Engine options are checked under an engine that has them.
        let engine = match name.starts_with("cmdprio") || name == "uncached" {
            true => "ioengine=io_uring",
            false => "ioengine=sim",
        };
        let e = bad(&[engine, line]);
        assert!(
            e.contains(&format!("bad value '{value}' for option '{name}'")) && e.contains(why),
            "{line}: {e}"
        );
    }
}

/// Options of fio's engines that ferrio cannot run: each parses under its engine
/// (what --parse-only checks), a bad value is refused naming the option, the value
/// and what is allowed, and under another engine the option is refused as fio does.
#[test]
fn foreign_engine_options_check_their_values() {
    for (engine, good, line, why) in [
        (
            "sg",
            "sg_write_mode=write_same_ndob",
            "sg_write_mode=same_old",
            "allowed: write, write_and_verify",
        ),
        ("sg", "readfua=1", "readfua=2", "use 0 or 1"),
        ("sg", "stream_id=3", "stream_id=70000", "allowed: 0..65535"),
        ("sg", "hipri", "hipri=maybe", "malformed boolean"),
        (
            "rdma",
            "verb=send",
            "verb=jump",
            "allowed: write, read, send, recv",
        ),
        ("rdma", "port=4444", "port=0", "allowed: 1..65535"),
        ("rados", "busy_poll=1", "busy_poll=yes", "malformed boolean"),
        (
            "rbd",
            "rbdname=img",
            "touch_objects=0",
            "option of the rados engine",
        ),
        (
            "gfapi_async",
            "single-instance=1",
            "single-instance=2",
            "use 0 or 1",
        ),
        ("mtd", "skip_bad=1", "skip_bad=x", "malformed boolean"),
        (
            "http",
            "http_mode=s3",
            "http_mode=ftp",
            "allowed: webdav, s3, swift",
        ),
        (
            "http",
            "https=insecure",
            "https=yes",
            "allowed: off, on, insecure",
        ),
        ("http", "http_verbose=2", "http_verbose=3", "allowed: 0..2"),
        (
            "http",
            "http_object_mode=range",
            "http_object_mode=chunk",
            "allowed: block, range",
        ),
        (
            "nfs",
            "nfs_url=nfs://h/e",
            "http_host=x",
            "option of the http engine",
        ),
        (
            "libblkio",
            "libblkio_wait_mode=loop",
            "libblkio_wait_mode=spin",
            "allowed: block, eventfd, loop",
        ),
        (
            "libblkio",
            "libblkio_queue_size=64",
            "libblkio_queue_size=0",
            "allowed: 1 or more",
        ),
        (
            "xnvme",
            "xnvme_dev_nsid=1",
            "xnvme_dev_nsid=x",
            "malformed integer",
        ),
        (
            "xnvme",
            "pi_chk=GUARD,REFTAG",
            "pi_chk=GUARD,CRC",
            "unknown check 'CRC'",
        ),
        (
            "xnvme",
            "apptag=0xffff",
            "apptag=0x10000",
            "allowed: 0..65535",
        ),
        (
            "io_uring_cmd",
            "cmd_type=bsg",
            "cmd_type=scsi",
            "allowed: nvme, bsg",
        ),
        (
            "io_uring_cmd",
            "write_mode=write/50:zeroes/:uncor/",
            "write_mode=write/60:zeroes/50",
            "more than 100",
        ),
        (
            "io_uring_cmd",
            "write_mode=zone_append",
            "write_mode=append",
            "unknown write command 'append'",
        ),
        (
            "io_uring_cmd",
            "cdb_len=16",
            "cdb_len=12",
            "allowed: 0, 10, 16, 32",
        ),
        (
            "io_uring_cmd",
            "verify_bytchk=3",
            "verify_bytchk=2",
            "allowed: 0, 1, 3",
        ),
        (
            "io_uring_cmd",
            "num_range=8",
            "num_range=257",
            "allowed: 1..256",
        ),
        (
            "io_uring_cmd",
            "fixedbufs",
            "fixedbufs=x",
            "malformed boolean",
        ),
        (
            "io_uring_cmd",
            "fdp_pli=4,5-7",
            "fdp_pli=7-5",
            "runs backwards",
        ),
        (
            "io_uring_cmd",
            "plid_select=scheme",
            "fdp_pli_select=first",
            "allowed: random, roundrobin, scheme",
        ),
        (
            "xnvme",
            "dataplacement=streams",
            "data_placement=zns",
            "allowed: none, fdp, streams",
        ),
        ("dfs", "chunk_size=1m", "chunk_size=1q", "malformed size"),
        (
            "libcufile",
            "gpu_dev_ids=0:1",
            "gpu_dev_ids=0:x",
            "'x' is not a GPU number",
        ),
        (
            "libcufile",
            "cuda_io=posix",
            "cuda_io=dma",
            "allowed: cufile, posix",
        ),
        (
            "libhipfile",
            "rocm_io=posix",
            "rocm_io=cufile",
            "allowed: hipfile, posix",
        ),
        (
            "libhdfs",
            "hdfs_use_direct=1",
            "single_instance=x",
            "malformed boolean",
        ),
        (
            "libiscsi",
            "initiator=iqn.x",
            "gpu_dev_id=x",
            "malformed integer",
        ),
        (
            "rdma",
            "mem=cudamalloc",
            "mem=cudamalloc:/x",
            "allowed: malloc",
        ),
        (
            "librpma_gpspm_server",
            "serverip=10.0.0.1",
            "busy_wait_polling=maybe",
            "malformed boolean",
        ),
    ] {
        let e = format!("ioengine={engine}");
        let j = job(&[&e, good]);
        assert!(j.foreign.refusal().is_some(), "{engine} {good}");
        let err = bad(&[&e, line]);
        let (name, value) = line.split_once('=').unwrap();
        let named = err.contains(&format!("bad value '{value}' for option '{name}'"))
            || err.contains(&format!("option '{name}'"));
        assert!(named && err.contains(why), "{engine} {line}: {err}");
    }
    // An engine's own option under ferrio's engines is refused, as fio refuses it.
    let e = bad(&["ioengine=libaio", "verb=read"]);
    assert!(e.contains("option of the rdma engine"), "{e}");
    // fio's global data placement options parse under any engine; a run refuses them.
    let j = job(&["ioengine=psync", "fdp=1"]);
    assert!(j.foreign.refusal().unwrap().contains("data placement"));
    assert_eq!(job(&["dataplacement=none"]).foreign.refusal(), None);
    // Zone units on a zoned device of a foreign engine: the device's zone size, which
    // only a run could read (and a run refuses the engine).
    let z = job(&["ioengine=io_uring_cmd", "zonemode=zbd", "size=2z"]);
    assert!(z.foreign.refusal().is_some());
    assert!(bad(&["ioengine=psync", "zonemode=zbd", "size=2z"]).contains("needs a zone size"));
    // GPU buffers parse with any engine; a run refuses them.
    let j = job(&["mem=cudamalloc", "gpu_dev_id=1"]);
    assert!(j.foreign.refusal().unwrap().contains("cudamalloc"));
    // A verify_offset inside the header and checksum: fio's swap of the overlapping
    // ranges cannot be undone (fio 3.33 fails every block it wrote).
    let e = bad(&["rw=randwrite", "verify=sha256", "verify_offset=64"]);
    assert!(e.contains("verify_offset=104 or more"), "{e}");
    job(&["rw=randwrite", "verify=sha256", "verify_offset=104"]);
    job(&["rw=randwrite", "verify=md5", "verify_offset=64"]);
    // fio's external engines need their shared object to exist, as in fio.
    let e = bad(&["ioengine=external:/nonexistent/engine.so"]);
    assert!(
        e.contains("for option 'ioengine'") && e.contains("/nonexistent/engine.so"),
        "{e}"
    );
}

/// sprandom=1 follows fio's init.c: random writes only; lfsr and norandommap are
/// set for the job unless given otherwise, and then refused by name.
#[test]
fn sprandom_needs_random_writes_lfsr_and_norandommap() {
    let j = job(&["ioengine=sim", "rw=randwrite", "sprandom=1"]);
    assert!(j.sprandom.enabled && j.norandommap);
    assert_eq!(j.random_generator, crate::spec::RandomGenerator::Lfsr);
    assert_eq!((j.sprandom.op, j.sprandom.num_regions), (0.15, 100));
    let j = job(&[
        "ioengine=sim",
        "rw=randwrite",
        "sprandom=1",
        "spr_op=0.21",
        "spr_num_regions=400",
        "spr_cs=1m",
    ]);
    assert_eq!(
        (j.sprandom.op, j.sprandom.num_regions, j.sprandom.cache_size),
        (0.21, 400, 1 << 20)
    );
    for (lines, why) in [
        (&["rw=randread", "sprandom=1"][..], "needs random writes"),
        (&["rw=write", "sprandom=1"][..], "needs random writes"),
        (
            &["rw=randwrite", "sprandom=1", "random_generator=tausworthe"][..],
            "needs random_generator=lfsr",
        ),
        (
            &["rw=randwrite", "sprandom=1", "norandommap=0"][..],
            "needs norandommap=1",
        ),
    ] {
        let mut all = vec!["ioengine=sim"];
        all.extend_from_slice(lines);
        let e = bad(&all);
        assert!(e.contains(why), "{lines:?}: {e}");
    }
    // Off, the rules do not apply.
    let j = job(&["ioengine=sim", "rw=randread", "sprandom=0"]);
    assert!(!j.norandommap);
}
