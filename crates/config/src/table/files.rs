//! Options: target files, sizes and file handling.

use super::{opt, Category as C, Kind as K, OptSpec};
use crate::ext::zones::parse_zone_units;
use crate::spec::Fallocate;
use crate::values::size::SizeOrPercent;
use crate::values::{parse_list, parse_size_or_percent, parse_size_or_range};

pub const FILES: &[OptSpec] = &[
    opt(
        "filename",
        K::List,
        C::Files,
        "File or device to use; several separated by ':' ('\\:' for a colon in a name)",
        |j, _, v| {
            j.filenames = parse_list(v);
            if j.filenames.is_empty() {
                return Err("empty filename".into());
            }
            Ok(())
        },
    ),
    opt(
        "directory",
        K::Str,
        C::Files,
        "Directory for the job's files; a:b:... spreads the clones' generated file names over them, round robin (an explicit filename= goes in the first)",
        |j, _, v| {
            let dirs = parse_list(v);
            if dirs.is_empty() || dirs.iter().any(String::is_empty) {
                return Err("empty directory".into());
            }
            j.directory = Some(dirs[0].clone().into());
            j.directories = if dirs.len() > 1 {
                dirs.into_iter().map(Into::into).collect()
            } else {
                Vec::new()
            };
            Ok(())
        },
    ),
    opt(
        "filetype",
        K::Choice,
        C::Files,
        "Assume every file of the job is of this type, so fio skips a stat(2) per file (fio 3.41); accepted and checked: ferrio's planning stats each file once and keeps what it finds",
        |_, c, v| c.choice(v).map(|_| ()),
    )
    .def("none")
    .vals(&[
        ("none", "look at each file (the default)"),
        ("file", "regular files"),
        ("block", "block devices"),
        ("char", "character devices"),
    ]),
    opt(
        "filename_format",
        K::Str,
        C::Files,
        "Pattern for generated file names ($jobname, $jobnum, $filenum)",
        |j, _, v| {
            if v.is_empty() {
                return Err("empty filename_format".into());
            }
            j.filename_format = v.to_string();
            Ok(())
        },
    )
    .def("$jobname.$jobnum.$filenum"),
    opt(
        "nrfiles",
        K::Int,
        C::Files,
        "Number of files to generate for this job",
        |j, c, v| {
            j.nrfiles = c.u32(v)?;
            Ok(())
        },
    )
    .alias(&["nr_files"])
    .def("1")
    .min(1),
    opt(
        "size",
        K::SizeOrPercent,
        C::Files,
        "Total size of I/O region across the job's files (or % of the existing file/device; 0 = unset)",
        |j, c, v| {
            if let Some(n) = parse_zone_units(v)? {
                j.zones.units.size = Some(n); // size=2z (resolved with the zone size)
                return Ok(());
            }
            j.zones.units.size = None;
            // fio: size=0 is the same as not setting it.
            j.size = match parse_size_or_percent(v, c.kb_base)? {
                SizeOrPercent::Bytes(0) => None,
                SizeOrPercent::Percent(0.0) => {
                    return Err("size=0% selects nothing (fio fails the job too)".into())
                }
                s => Some(s),
            };
            Ok(())
        },
    ),
    opt(
        "filesize",
        K::Range,
        C::Files,
        "Size of each file, or a range to pick sizes from (overrides size/nrfiles split)",
        |j, c, v| {
            let r = parse_size_or_range(v, c.kb_base)?;
            if r.0 == 0 {
                return Err("file size must be > 0".into());
            }
            j.filesize = Some(r);
            Ok(())
        },
    ),
    opt(
        "io_size",
        K::Size,
        C::Files,
        "Total amount of I/O to do (default: size; 0 = unset)",
        |j, c, v| {
            if let Some(n) = parse_zone_units(v)? {
                j.zones.units.io_size = Some(n);
                return Ok(());
            }
            j.zones.units.io_size = None;
            let n = c.size(v)?;
            j.io_size = (n > 0).then_some(n);
            Ok(())
        },
    )
    .alias(&["io_limit"]),
    opt(
        "offset",
        K::SizeOrPercent,
        C::Files,
        "Start I/O at this offset in each file (or % of it)",
        |j, c, v| {
            if let Some(n) = parse_zone_units(v)? {
                j.zones.units.offset = Some(n);
                return Ok(());
            }
            j.zones.units.offset = None;
            j.offset = match parse_size_or_percent(v, c.kb_base)? {
                SizeOrPercent::Percent(0.0) => SizeOrPercent::Bytes(0),
                o => o,
            };
            Ok(())
        },
    )
    .alias(&["fileoffset"])
    .def("0"),
    opt(
        "offset_increment",
        K::Size,
        C::Files,
        "Offset added per clone (job number * this)",
        |j, c, v| {
            if let Some(n) = parse_zone_units(v)? {
                j.zones.units.offset_increment = Some(n);
                return Ok(());
            }
            j.zones.units.offset_increment = None;
            j.offset_increment = c.size(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "offset_align",
        K::Size,
        C::Files,
        "Round a percentage offset (offset=N%) up to a multiple of this (0: the smallest block size)",
        |j, c, v| {
            j.offset_align = c.size(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "number_ios",
        K::Int,
        C::Files,
        "Stop after this many I/Os per loop (0 = no limit): number_ios × loops in all, as fio; a time_based job ignores it, as fio",
        |j, c, v| {
            let n = c.uint(v)?;
            j.number_ios = (n > 0).then_some(n);
            Ok(())
        },
    )
    .def("0"),
    opt(
        "fill_device",
        K::Bool,
        C::Files,
        "Write until the device or file system is full (ENOSPC)",
        |j, c, v| {
            j.fill_device = c.bool(v)?;
            Ok(())
        },
    )
    .alias(&["fill_fs"])
    .def("0"),
    opt(
        "direct",
        K::Bool,
        C::Files,
        "Use O_DIRECT (non-buffered) I/O",
        |j, c, v| {
            j.direct = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "buffered",
        K::Bool,
        C::Files,
        "Use buffered I/O (the opposite of direct)",
        |j, c, v| {
            j.direct = !c.bool(v)?;
            Ok(())
        },
    )
    .def("1"),
    opt(
        "sync",
        K::Choice,
        C::Files,
        "Open files with O_SYNC (or O_DSYNC)",
        |j, _, v| {
            (j.sync, j.dsync) = match v {
                "0" | "none" => (false, false),
                "1" | "sync" => (true, false),
                "dsync" => (true, true),
                _ => return Err("not an allowed value".into()),
            };
            Ok(())
        },
    )
    .def("none")
    .vals(&[
        ("none", "no O_SYNC (also 0)"),
        ("sync", "O_SYNC (also 1)"),
        ("dsync", "O_DSYNC: the data and what reading it back needs, not every attribute"),
        ("0", "same as none"),
        ("1", "same as sync"),
    ]),
    opt(
        "fsync",
        K::Int,
        C::Files,
        "fsync the file after every N writes (0 = never)",
        |j, c, v| {
            j.fsync = c.u32(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "fdatasync",
        K::Int,
        C::Files,
        "fdatasync the file after every N writes (0 = never)",
        |j, c, v| {
            j.fdatasync = c.u32(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "sync_file_range",
        K::Str,
        C::Files,
        "sync_file_range(2) over the range written since the last sync, every N writes (FLAGS:N, N default 1); FLAGS is a comma list of wait_before, write, wait_after",
        |j, _, v| {
            j.sync_file_range = Some(parse_sync_file_range(v)?);
            Ok(())
        },
    ),
    opt(
        "end_fsync",
        K::Bool,
        C::Files,
        "fsync files when the job's writes are done",
        |j, c, v| {
            j.end_fsync = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "end_syncfs",
        K::Bool,
        C::Files,
        "Like end_fsync, but one syncfs(2) of each file system holding the job's files instead of an fsync of each file (fio 3.42)",
        |j, c, v| {
            j.end_syncfs = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "fsync_on_close",
        K::Bool,
        C::Files,
        "fsync a file when closing it",
        |j, c, v| {
            j.fsync_on_close = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "create_on_open",
        K::Bool,
        C::Files,
        "Create files when the job opens them, not before it starts",
        |j, c, v| {
            j.create_on_open = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "create_only",
        K::Bool,
        C::Files,
        "Only lay out the files; do no I/O (the job reports nothing done)",
        |j, c, v| {
            j.create_only = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "allow_file_create",
        K::Bool,
        C::Files,
        "Allow creating files that do not exist",
        |j, c, v| {
            j.allow_file_create = c.bool(v)?;
            Ok(())
        },
    )
    .def("1"),
    opt(
        "allow_mounted_write",
        K::Bool,
        C::Files,
        "Allow writes and trims to a block device that is mounted, has a mounted partition, or is held by another device (dm, md, swap)",
        |j, c, v| {
            j.allow_mounted_write = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "overwrite",
        K::Bool,
        C::Files,
        "When writing, lay the file out fully first so writes overwrite existing blocks",
        |j, c, v| {
            j.overwrite = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "unlink",
        K::Bool,
        C::Files,
        "Remove the job's files when it is done",
        |j, c, v| {
            j.unlink = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
    opt(
        "fallocate",
        K::Choice,
        C::Files,
        "How to preallocate files when laying them out",
        |j, _, v| {
            j.fallocate = match v {
                "none" | "0" => Fallocate::None,
                "posix" | "1" => Fallocate::Posix,
                "keep" => Fallocate::Keep,
                "native" => Fallocate::Native,
                "truncate" => Fallocate::Truncate,
                _ => return Err("not an allowed value".into()),
            };
            Ok(())
        },
    )
    .def("native")
    .vals(&[
        (
            "native",
            "platform's native preallocation, fall back to none",
        ),
        ("none", "do not preallocate"),
        ("posix", "posix_fallocate(3)"),
        ("keep", "fallocate(2) with FALLOC_FL_KEEP_SIZE"),
        ("truncate", "extend the file with ftruncate(2)"),
        ("0", "same as none"),
        ("1", "same as posix"),
    ]),
    opt(
        "invalidate",
        K::Bool,
        C::Files,
        "Drop the job's region of each file from the page cache when the job starts, at each pass and before verify reads back",
        |j, c, v| {
            j.invalidate = c.bool(v)?;
            Ok(())
        },
    )
    .def("1"),
    opt(
        "readonly",
        K::Flag,
        C::Files,
        "Refuse to run this job if it would write or trim (ferrio extension: fio has only the --readonly flag)",
        |j, c, v| {
            j.readonly = c.bool(v)?;
            Ok(())
        },
    )
    .def("0"),
];

/// `wait_before,write,wait_after:N` → (SYNC_FILE_RANGE_* flags, N); N is 1 when absent.
fn parse_sync_file_range(v: &str) -> Result<(u32, u32), String> {
    let (list, nr) = match v.split_once(':') {
        Some((l, n)) => (
            l,
            n.trim()
                .parse::<u32>()
                .map_err(|_| format!("'{n}' is not a number of writes"))?,
        ),
        None => (v, 1),
    };
    let mut flags = 0;
    for f in list.split(',') {
        flags |= match f.trim() {
            "wait_before" => 1,
            "write" => 2,
            "wait_after" => 4,
            other => {
                return Err(format!(
                    "unknown flag '{other}'; allowed: wait_before, write, wait_after"
                ))
            }
        };
    }
    Ok((flags, nr))
}
