//! Options: data verification (verify=, verify_* and do_verify; docs/verify.md).
//! The values live in [`crate::ext::verify`].

use super::{deprecated, opt, Category as C, Kind as K, OptSpec};
use crate::ext::verify::{parse_pattern, VERIFY_KINDS};

pub const VERIFY: &[OptSpec] = &[
    opt("verify", K::Choice, C::Verify, "Give every written block a header with a checksum of its data, laid out as fio's, and read it back to check it after the writes (do_verify)", |j, c, v| {
        c.choice(v)?;
        j.verify.kind = VERIFY_KINDS.iter().find(|k| k.0 == v).map(|k| k.1).unwrap_or_default();
        // verify=0 (the default) leaves verify_pattern free to turn the check on.
        j.verify.kind_set = v != "0";
        Ok(())
    })
    .def("0")
    .vals(&[
        ("0", "Don't do IO verification"),
        ("md5", "Use md5 checksums for verification"),
        ("crc64", "Use crc64 checksums for verification"),
        ("crc32", "Use crc32 checksums for verification"),
        ("crc32c-intel", "Use crc32c checksums for verification (hw assisted, if available)"),
        ("crc32c", "Use crc32c checksums for verification (hw assisted, if available)"),
        ("crc16", "Use crc16 checksums for verification"),
        ("crc7", "Use crc7 checksums for verification"),
        ("sha1", "Use sha1 checksums for verification"),
        ("sha256", "Use sha256 checksums for verification (fio's variant of it)"),
        ("sha512", "Use sha512 checksums for verification (fio's variant of it)"),
        ("sha3-224", "Use sha3-224 checksums for verification"),
        ("sha3-256", "Use sha3-256 checksums for verification"),
        ("sha3-384", "Use sha3-384 checksums for verification"),
        ("sha3-512", "Use sha3-512 checksums for verification"),
        ("xxhash", "Use xxhash checksums for verification"),
        ("meta", "Use io information for verification (the header alone)"),
        ("pattern", "Verify strict pattern (verify_pattern, no header)"),
        ("pattern_hdr", "Verify pattern with header (verify_pattern after each block's header)"),
        ("null", "Pretend to verify"),
    ]),
    opt("do_verify", K::Bool, C::Verify, "Run the verify phase after the writes", |j, c, v| {
        j.verify.do_verify = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    opt("verify_interval", K::Int, C::Verify, "Write a verify header every this many bytes of a block (default: the block size; at least 80)", |j, c, v| {
        j.verify.interval = c.uint(v)?;
        Ok(())
    })
    .min(80),
    opt("verify_offset", K::Int, C::Verify, "Swap the verify header to this offset in each interval", |j, c, v| {
        j.verify.offset = c.uint(v)?;
        Ok(())
    })
    .min(40),
    opt("verify_pattern", K::Special, C::Verify, "Fill pattern for written blocks: 0x hex, decimal numbers, \"strings\" and %o (the block's offset), written one after another; alone it turns on verify with a header and the pattern", |j, _, v| {
        let (p, f) = parse_pattern(v)?;
        j.verify.pattern = p;
        j.verify.pattern_offsets = f;
        Ok(())
    }),
    opt("verify_pattern_interval", K::Int, C::Verify, "Start verify_pattern again every this many bytes of a block, %o the offset of each piece (0: once per block)", |j, c, v| {
        j.verify.pattern_interval = c.uint(v)?;
        Ok(())
    })
    .def("0"),
    opt("verify_policy", K::Choice, C::Verify, "Which writes a later verify_state_load pass checks: all completed ones, or only those an fsync covered", |j, c, v| {
        c.choice(v)?;
        j.verify.policy_fsynced = v == "fsynced";
        Ok(())
    })
    .def("completed")
    .vals(&[
        ("completed", "Verify all completed writes"),
        ("fsynced", "Verify only the writes submitted before the last fsync that completed"),
    ]),
    opt("verifysort", K::Bool, C::Verify, "Deprecated in fio (which ignores it with a warning: writes are verified in the order written); accepted and ignored the same way", |j, c, v| {
        c.bool(v)?;
        deprecated(j, "verifysort")
    }),
    opt("verifysort_nr", K::Int, C::Verify, "Deprecated in fio (which ignores it with a warning); accepted and ignored the same way", |j, c, v| {
        c.uint(v)?;
        deprecated(j, "verifysort_nr")
    }),
    opt("verify_fatal", K::Bool, C::Verify, "Stop the job at the first verify failure (else every block is checked)", |j, c, v| {
        j.verify.fatal = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("verify_dump", K::Bool, C::Verify, "On a failure, write the received and the expected block to files <file>.<offset>.received/.expected in the working directory", |j, c, v| {
        j.verify.dump = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("verify_async", K::Int, C::Verify, "fio's verify offload threads: accepted, ferrio verifies on the job's own thread", |j, c, v| {
        j.verify.async_threads = c.uint(v)?;
        Ok(())
    })
    .def("0"),
    opt("verify_async_cpus", K::Str, C::Verify, "CPUs of fio's verify offload threads: accepted, ferrio has none", |_, _, _| Ok(())),
    opt("verify_backlog", K::Int, C::Verify, "Verify the written blocks after every this many writes (0: once, after the writes)", |j, c, v| {
        j.verify.backlog = c.uint(v)?;
        Ok(())
    }),
    opt("verify_backlog_batch", K::Int, C::Verify, "Verify this many blocks per backlog round (default: verify_backlog)", |j, c, v| {
        j.verify.backlog_batch = c.uint(v)?;
        Ok(())
    }),
    opt("verify_only", K::Flag, C::Verify, "Issue no writes: only verify the blocks this workload writes (left by an earlier run, of ferrio or fio)", |j, c, v| {
        j.verify.only = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("experimental_verify", K::Bool, C::Verify, "fio's verify by replaying the offsets: accepted, ferrio verifies from its write log either way", |j, c, v| {
        j.verify.experimental = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("verify_header_seed", K::Bool, C::Verify, "Check the header's seed against the one written (fio 3.36+; 0 skips that check)", |j, c, v| {
        j.verify.header_seed = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    // No table default: fio tells a given value from its default, which depends on
    // other options (src/verify/mod.rs, write_sequence_checked).
    opt("verify_write_sequence", K::Bool, C::Verify, "Check the header's write sequence number (fio 3.4x; default on, off for verify_only=1 and for norandommap=1 with an asynchronous engine at iodepth > 1 unless given; 0 for several jobs writing the same blocks, as with atomic=1)", |j, c, v| {
        j.verify.write_sequence = Some(c.bool(v)?);
        Ok(())
    }),
    opt("verify_state_save", K::Bool, C::Verify, "When a verifying write job ends (done, stopped or interrupted), save how far its writes got in fio's state file local-<job>-<index>-verify.state in the working directory", |j, c, v| {
        j.verify.state_save = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    opt("verify_state_load", K::Bool, C::Verify, "Load the job's state file (verify_state_save, of ferrio or fio) and verify only the blocks written before that job ended", |j, c, v| {
        j.verify.state_load = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("trim_percentage", K::Int, C::Verify, "Trim (discard) this percentage of the written blocks again, every trim_backlog writes; the verify pass then expects zeros there (trim_verify_zero)", |j, c, v| {
        j.verify.trim_percentage = c.u32(v)?;
        Ok(())
    })
    .def("0")
    .range(0, 100),
    opt("trim_verify_zero", K::Bool, C::Verify, "Verify that trimmed blocks read back as zeros (0: trimmed blocks are not verified)", |j, c, v| {
        j.verify.trim_zero = c.bool(v)?;
        Ok(())
    })
    .def("1"),
    opt("trim_backlog", K::Int, C::Verify, "Trim after this many blocks are written (trim_percentage does nothing without it, as in fio)", |j, c, v| {
        j.verify.trim_backlog = c.uint(v)?;
        Ok(())
    }),
    opt("trim_backlog_batch", K::Int, C::Verify, "Trim this many blocks per round (default: trim_backlog)", |j, c, v| {
        j.verify.trim_batch = c.uint(v)?;
        Ok(())
    }),
];
