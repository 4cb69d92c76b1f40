//! Options: write-buffer contents (docs/buffers.md). The order options are given in
//! matters where it does in fio: `buffer_pattern` turns scrambling and zeroing off and
//! sets refill_buffers from the job's mode so far, as fio's option callback does.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::DedupeMode;
use crate::values::parse_pattern;

pub const BUFFERS: &[OptSpec] = &[
    opt("zero_buffers", K::Flag, C::Buffers, "Fill write buffers with zeros instead of random data (also turns default scrambling off)", |j, c, v| {
        j.zero_buffers = c.bool(v)?;
        j.buffers.zero_set = true;
        Ok(())
    })
    .def("0"),
    opt("refill_buffers", K::Flag, C::Buffers, "Refill write buffers with new data on every submit", |j, c, v| {
        j.refill_buffers = c.bool(v)?;
        j.buffers.refill_set = true;
        Ok(())
    })
    .def("0"),
    opt("scramble_buffers", K::Bool, C::Buffers, "Stamp the offset and time into every 512-byte block of a write buffer, to defeat dedupe (not with refill_buffers, compression or dedupe options)", |j, c, v| {
        j.scramble_buffers = c.bool(v)?;
        j.buffers.scramble_set = true;
        Ok(())
    })
    .def("1"),
    opt("buffer_pattern", K::Special, C::Buffers, "Fill buffers with this pattern: 0x hex, \"string\", 32-bit decimal, 'file' (its bytes), or a combination (\"abcd\"-120xdeadface); turns scramble_buffers and zero_buffers off and refill_buffers on when the job reads or compresses", |j, _, v| {
        j.buffer_pattern = Some(parse_pattern(v)?);
        // fio: reads into a buffer would spoil the pattern, so a job that reads (as
        // far as the options so far say) refills before every write.
        j.refill_buffers = j.buffers.compress_percentage != 0 || j.rw.kind.directions()[0];
        j.scramble_buffers = false;
        j.zero_buffers = false;
        Ok(())
    }),
    opt("buffer_compress_percentage", K::Int, C::Buffers, "How compressible write buffers are, in percent: that share of every buffer_compress_chunk is zeroes (or buffer_pattern), the rest random; turns refill_buffers on unless it was given; 100 means all zeroes", |j, c, v| {
        j.buffers.compress_percentage = c.u32(v)?;
        j.buffers.compress_given = true;
        Ok(())
    })
    .range(0, 100),
    opt("buffer_compress_chunk", K::Int, C::Buffers, "Size of the compressible region that repeats through a buffer (bytes; 0: the smallest write block size)", |j, c, v| {
        j.buffers.compress_chunk = c.size(v)?;
        Ok(())
    })
    .def("512"),
    opt("dedupe_percentage", K::Int, C::Buffers, "Percentage of write buffers that repeat earlier data (whole buffers; see dedupe_mode); turns refill_buffers on", |j, c, v| {
        j.buffers.dedupe_percentage = c.u32(v)?;
        j.buffers.compress_given = true;
        j.refill_buffers = true;
        Ok(())
    })
    .range(0, 100),
    opt("dedupe_global", K::Bool, C::Buffers, "Share the dedupe working set between all jobs that set this (dedupe_mode=working_set)", |j, c, v| {
        j.buffers.dedupe_global = c.bool(v)?;
        Ok(())
    })
    .def("0"),
    opt("dedupe_mode", K::Choice, C::Buffers, "How dedupable buffers are generated", |j, c, v| {
        j.buffers.dedupe_mode = match c.choice(v)? {
            "working_set" => DedupeMode::WorkingSet,
            _ => DedupeMode::Repeat,
        };
        Ok(())
    })
    .def("repeat")
    .vals(&[
        ("repeat", "repeat the previous buffer's data"),
        ("working_set", "repeat a random buffer of a working set of dedupe_working_set_percentage of size"),
    ]),
    opt("dedupe_working_set_percentage", K::Int, C::Buffers, "Size of the dedupe working set, in percent of size (dedupe_mode=working_set); with dedupe_percentage at most 100", |j, c, v| {
        j.buffers.dedupe_working_set_percentage = c.u32(v)?;
        Ok(())
    })
    .def("5")
    .range(0, 100),
];
