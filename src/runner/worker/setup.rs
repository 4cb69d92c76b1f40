//! Everything a thread needs before its first I/O: its files opened (with O_DIRECT
//! checked), the units' buffer memory, and the engine set up with both.

use super::units::Units;
use crate::engine::IoEngine;
use crate::runner::direct_io;
use crate::runner::iolog::IoLogWriter;
use crate::runner::plan::ThreadPlan;
use crate::sys::file::{self, OpenFlags};
use ferrio_config::ext::lifecycle::FadviseHint;
use std::fs::File;
use std::os::fd::AsRawFd;

/// A thread's I/O resources. Field order is drop order: the engine (which may have
/// the buffers registered with the kernel) goes before the units' memory.
pub struct Io {
    pub engine: Box<dyn IoEngine>,
    /// Open files, in plan order (None for diskless engines).
    pub files: Vec<Option<File>>,
    /// Their descriptors (-1 for diskless engines).
    pub fds: Vec<i32>,
    pub units: Units,
    /// write_iolog's writer, opened with the files (taken by the pattern).
    pub iolog: Option<IoLogWriter>,
    /// openfiles < nrfiles: no file is open at the start; the loop opens and closes
    /// them as the pattern says ([`Io::open_file`], [`Io::close_file`]).
    pub lazy: bool,
}

/// Whether the thread's files are opened and closed during the run (openfiles below
/// nrfiles, with an engine that opens files) instead of all held open.
pub fn lazy_files(plan: &ThreadPlan) -> bool {
    let caps = plan.caps;
    let by_name = caps.accounting == crate::engine::Accounting::FileOps;
    !caps.diskless
        && !by_name
        && plan
            .spec
            .local
            .openfiles
            .is_some_and(|n| (n as usize) < plan.files.len())
}

impl Io {
    /// Open the plan's files, allocate the buffers and set `engine` up with both.
    pub fn open(plan: &ThreadPlan, mut engine: Box<dyn IoEngine>) -> Result<Io, (i32, String)> {
        let spec = &plan.spec;
        let caps = plan.caps;
        // Engines that work on the names (the metadata engines) open nothing: fio's
        // filestat and filedelete never open their files, so nrfiles may exceed
        // the descriptor limit.
        let by_name = caps.accounting == crate::engine::Accounting::FileOps;
        let lazy = lazy_files(plan);
        let (files, fds) = if caps.diskless || by_name {
            (
                plan.files.iter().map(|_| None).collect(),
                vec![-1; plan.files.len()],
            )
        } else if lazy {
            check_files(plan)?
        } else {
            open_files(plan)?
        };
        let depth = if caps.synchronous {
            1
        } else {
            spec.iodepth.max(1) as usize
        };
        if spec.direct && !caps.diskless && !caps.maps_files && !by_name && !lazy {
            direct_io::check_direct_alignment(plan, &files)?;
        }
        let units = Units::new(plan, depth, !caps.diskless || caps.fills_buffers)?;
        engine.setup(&fds, &units.buffers()).map_err(|e| {
            // An engine's own "not supported here" (libpmem off persistent memory) is
            // EOPNOTSUPP, as fio reports it.
            // A wait for a peer that a stop ended (net's listen) is EINTR.
            let fallback = match e.kind() {
                std::io::ErrorKind::Unsupported => libc::EOPNOTSUPP,
                std::io::ErrorKind::Interrupted => libc::EINTR,
                _ => libc::EINVAL,
            };
            (
                e.raw_os_error().unwrap_or(fallback),
                format!("ioengine={}: {e}", spec.ioengine),
            )
        })?;
        Ok(Io {
            engine,
            files,
            fds,
            units,
            iolog: IoLogWriter::for_plan(plan).map_err(|e| (libc::EIO, e))?,
            lazy,
        })
    }

    /// Open file `f` now (openfiles < nrfiles), as at the start of a run.
    /// Files not opened lazily are all held open already, or never opened by the
    /// runner at all (diskless engines, engines that work on names): nothing to do.
    pub fn open_file(&mut self, plan: &ThreadPlan, f: usize) -> Result<(), (i32, String)> {
        if self.lazy && self.files[f].is_none() {
            let handle = open_one(plan, f)?;
            // Opened inside the job's window, as fio's lazy opens: drop its cache now.
            if invalidates(plan) {
                invalidate_region(plan, f, &handle);
            }
            self.fds[f] = handle.as_raw_fd();
            self.files[f] = Some(handle);
        }
        Ok(())
    }

    /// fsync file `f`: through its descriptor, or, when openfiles < nrfiles closed it
    /// during the run, through one opened for the sync and closed again, as fio's
    /// fio_file_fsync (so end_fsync covers every file the job wrote).
    pub fn sync_file(&self, plan: &ThreadPlan, f: usize) {
        if self.fds[f] >= 0 {
            let _ = crate::sys::io::sync(self.fds[f], false);
        } else if self.lazy {
            if let Ok(handle) = open_one(plan, f) {
                let _ = crate::sys::io::sync(handle.as_raw_fd(), false);
            }
        }
    }

    /// Close file `f` (openfiles < nrfiles): its I/Os have completed; with
    /// fsync_on_close a job that writes syncs it first, as fio's put_file.
    pub fn close_file(&mut self, plan: &ThreadPlan, f: usize) {
        if let Some(handle) = self.files[f].take() {
            if plan.spec.fsync_on_close && plan.spec.writes() {
                let _ = crate::sys::io::sync(handle.as_raw_fd(), false);
            }
        }
        self.fds[f] = -1;
    }
}

type Opened = (Vec<Option<File>>, Vec<i32>);

fn open_files(plan: &ThreadPlan) -> Result<Opened, (i32, String)> {
    let mut files = Vec::with_capacity(plan.files.len());
    let mut fds = Vec::with_capacity(plan.files.len());
    for i in 0..plan.files.len() {
        let handle = open_one(plan, i)?;
        pre_read_file(plan, i)?;
        fds.push(handle.as_raw_fd());
        files.push(Some(handle));
    }
    Ok((files, fds))
}

/// openfiles < nrfiles: nothing stays open, but each file is opened once, alone,
/// so a missing file or a direct=1 mismatch stops the job before any I/O, and
/// pre_read reads it.
fn check_files(plan: &ThreadPlan) -> Result<Opened, (i32, String)> {
    for i in 0..plan.files.len() {
        let handle = open_one(plan, i)?;
        if plan.spec.direct && !plan.caps.maps_files {
            let mut only: Vec<Option<File>> = plan.files.iter().map(|_| None).collect();
            only[i] = Some(handle);
            direct_io::check_direct_alignment(plan, &only)?;
        }
        pre_read_file(plan, i)?;
    }
    Ok((
        plan.files.iter().map(|_| None).collect(),
        vec![-1; plan.files.len()],
    ))
}

fn pre_read_file(plan: &ThreadPlan, i: usize) -> Result<(), (i32, String)> {
    let f = &plan.files[i];
    if !plan.spec.lifecycle.pre_read {
        return Ok(());
    }
    pre_read(plan, &f.path, f.region.start, f.region.len).map_err(|e| {
        (
            e.raw_os_error().unwrap_or(libc::EIO),
            format!("pre_read of '{}': {e}", f.path.display()),
        )
    })
}

/// Open the plan's file `i` with the job's flags, hints and cache rules (fio's
/// td_io_open_file, at every open).
fn open_one(plan: &ThreadPlan, i: usize) -> Result<File, (i32, String)> {
    let spec = &plan.spec;
    let f = &plan.files[i];
    let flags = OpenFlags {
        // fio opens O_RDWR for any job that writes (mmap needs it to map shared
        // and writable).
        read: true,
        write: spec.writes(),
        // fio: O_CREAT for a job that writes, and with create_on_open for any job
        // (a read job then reads an empty file, and its first read fails with EIO).
        create: spec.allow_file_create && (spec.writes() || spec.create_on_open),
        // An engine that maps its files takes direct= and sync= as its own flags.
        direct: spec.direct && !plan.caps.maps_files,
        sync: spec.sync && !plan.caps.maps_files,
        dsync: spec.dsync,
        private: true,
        nonblock: false,
    };
    let handle = file::open_in(plan.confine.as_deref(), &f.path, flags).map_err(|e| {
        // EINVAL from an O_DIRECT open: the file system or device takes no direct I/O
        // (fio: "destination does not support O_DIRECT").
        let direct = flags.direct && e.raw_os_error() == Some(libc::EINVAL);
        let why = if direct {
            " with direct=1 (O_DIRECT), which it does not support"
        } else {
            ""
        };
        // Out of descriptors: fio's "try reducing/setting openfiles (failed at N of M)".
        let hint = match e.raw_os_error() {
            Some(libc::EMFILE | libc::ENFILE) => format!(
                " (failed at {} of {} files held open: set openfiles= to hold fewer at once, or raise the open-file limit, ulimit -n)",
                i,
                plan.files.len()
            ),
            _ => String::new(),
        };
        (
            e.raw_os_error().unwrap_or(libc::EIO),
            format!("cannot open '{}'{why}: {e}{hint}", f.path.display()),
        )
    })?;
    let life = &spec.lifecycle;
    // invalidate= is not done here: fio drops a file's cache when the job opens it,
    // inside the job's runtime and CPU window, so the worker does it when its run
    // starts (and at each later open and pass): `invalidates`.
    match life.fadvise_hint {
        FadviseHint::None => {}
        FadviseHint::ByPattern => file::advise_pattern(&handle, spec.rw.random),
        FadviseHint::Random => file::advise_pattern(&handle, true),
        FadviseHint::Sequential => file::advise_pattern(&handle, false),
    }
    if let Some(hint) = life.write_hint {
        file::set_write_hint(&handle, hint.kernel_value()).map_err(|e| {
            (
                e.raw_os_error().unwrap_or(libc::EINVAL),
                format!("write_hint on '{}': {e}", f.path.display()),
            )
        })?;
    }
    Ok(handle)
}

/// Whether the job drops its files' cached pages (invalidate=1) at each open and pass:
/// not with direct I/O, nor for an engine that maps its files, nor with pre_read, which
/// fills the cache (fio turns invalidate off with it too).
pub fn invalidates(plan: &ThreadPlan) -> bool {
    let spec = &plan.spec;
    spec.invalidate && !spec.direct && !spec.lifecycle.pre_read && !plan.caps.maps_files
}

/// Drop the job's region of the plan's file `f` (open as `handle`) from the page
/// cache, with fio's `--debug=io` line.
pub fn invalidate_region(plan: &ThreadPlan, f: usize, handle: &File) {
    let r = plan.files[f].region;
    file::invalidate_cache(handle, r.start, r.len);
    crate::runner::debug_line::invalidate_event(plan, f);
}

/// pre_read: read `len` bytes from `start` through the page cache (a buffered handle of
/// its own, so it works for direct=1 jobs too), stopping early at the end of the file.
fn pre_read(
    plan: &ThreadPlan,
    path: &std::path::Path,
    start: u64,
    len: u64,
) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let f = file::open_in(plan.confine.as_deref(), path, OpenFlags::default())?;
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    while done < len {
        let want = (len - done).min(buf.len() as u64) as usize;
        let n = f.read_at(&mut buf[..want], start + done)?;
        if n == 0 {
            break;
        }
        done += n as u64;
    }
    Ok(())
}
