//! Lays out job files before the run, as fio's extend_file does: a missing or
//! too-small file is created; if a job will read it (or overwrite=1, or an engine
//! that cannot grow a file writes it), the new part is written with the job's buffer
//! contents (as fio: docs/buffers.md) so reads hit real blocks; any other writer's
//! file is only fallocated (extended unless fallocate=none or keep). An existing file that is large enough, and any block or character device,
//! is left untouched. With create_serialize=0 each job's files are laid out on a
//! thread of their own, all jobs at once; otherwise one file after another.
//! A file the system will not make (a read-only filesystem, no space left) fails the
//! threads that use it, as fio's setup does, and the others go on; so does a missing
//! file that allow_file_create=0 or a read-only run may not create (a read-only run
//! leaves a short file short, as fio: its reads end at EIO).

use super::buffers::BufferPolicy;
use super::debug_line;
use super::plan::{NotLaidOut, ThreadPlan};
use crate::sys::affinity::thread_id;
use crate::sys::file::{self, OpenFlags};
use ferrio_config::Fallocate;
use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Default)]
struct Need {
    size: u64,
    fill: bool,
    fallocate: Option<Fallocate>,
    create_allowed: bool,
    job: String,
    readonly: bool,
    /// The first thread wanting this file that reads it: its buffer options fill it.
    filler: Option<usize>,
    /// A fill_device job without a size writes until the device is full: the file
    /// grows with its writes, as in fio, and is not laid out to the (unbounded) size.
    unbounded: bool,
    /// The first thread wanting this file (whose job's name the lines carry).
    owner: usize,
    /// An engine that prepopulates (libpmem): the file is written whole from its
    /// start with the job's buffers, even if it exists (its current length, else
    /// `size`), and the engine sets its length.
    prepopulate: bool,
    /// Every thread that uses the file (they fail together when it cannot be made).
    users: Vec<usize>,
}

/// Files the system would not lay out, and the threads that use them: as fio, those
/// threads fail with the error and do no I/O; the others run.
#[derive(Debug)]
pub struct Failed {
    pub threads: Vec<usize>,
    pub errno: i32,
    /// What failed, without the job's name (each thread's report names its own).
    pub message: String,
}

/// Why one file was not laid out.
enum Why {
    /// The run cannot go on (a setting no file can meet, a stop signal).
    Fatal(String),
    /// The system refused (errno): the file's threads fail.
    System(i32, String),
}

impl Why {
    /// An I/O error while making `path`: a stop ends the run, anything else fails the
    /// file's threads.
    fn io(job: &str, what: &str, path: &std::path::Path, e: std::io::Error) -> Why {
        let message = format!("cannot {what} '{}': {e}", path.display());
        match e.raw_os_error() {
            Some(errno) => Why::System(errno, message),
            None => Why::Fatal(format!("job '{job}': {message}")),
        }
    }
}

/// Lay out every file the threads use. `log` receives fio's "Laying out IO file" lines.
/// Setting `stop` (SIGINT/SIGTERM) ends the layout early with an error. Returns the
/// files the system would not make, with the threads that use them.
pub fn lay_out(
    threads: &[ThreadPlan],
    log: &mut dyn Write,
    stop: &AtomicBool,
) -> Result<Vec<Failed>, String> {
    // fio makes the directories a file name needs before it sets the files up.
    super::work_dirs::make(threads)?;
    let mut needs: BTreeMap<PathBuf, Need> = BTreeMap::new();
    for (i, t) in threads.iter().enumerate() {
        // A job sized at its start is laid out then (late_sizes.rs).
        if t.caps.diskless || t.spec.create_on_open || t.sized_at_start || t.replay_at_start {
            continue;
        }
        for f in &t.files {
            if f.device {
                continue;
            }
            let n = needs.entry(f.path.clone()).or_default();
            if n.job.is_empty() {
                n.job = t.spec.name.clone();
                n.owner = i;
            }
            if n.users.last() != Some(&i) {
                n.users.push(i);
            }
            if t.spec.fill_device && t.spec.size.is_none() && t.spec.filesize.is_none() {
                n.unbounded = true;
                n.create_allowed |= t.spec.allow_file_create;
                continue;
            }
            if t.caps.prepopulates {
                n.prepopulate = true;
                n.size = n.size.max(f.region.start + f.region.len);
                n.filler.get_or_insert(i);
                n.fill = true;
                n.create_allowed |= t.spec.allow_file_create;
                n.readonly |= t.spec.readonly;
                continue;
            }
            // Any other writer only gets the file fallocated (`extend`). (A job that
            // neither reads nor writes, trim, gets it written too.)
            let fills = super::laid_out::writes_whole(&t.spec, t.caps) || !t.spec.writes();
            n.size = n.size.max(f.region.start + f.region.len + f.tail);
            if fills && !n.fill {
                n.filler = Some(i);
            }
            n.fill |= fills;
            n.fallocate.get_or_insert(t.spec.fallocate);
            n.create_allowed |= t.spec.allow_file_create;
            n.readonly |= t.spec.readonly;
        }
    }
    // A server's run: every open and unlink below stays beneath its allowed directories.
    let confine = threads.iter().find_map(|t| t.confine.clone());
    let confine = confine.as_deref();
    // create_serialize=0: each job's files are laid out on a thread of their own, all
    // at once (fio lays them out in each job's thread); the others one after another
    // first, as fio does before it starts the threads.
    let mut serial = Vec::new();
    let mut groups: BTreeMap<usize, Vec<(PathBuf, Need)>> = BTreeMap::new();
    for (path, need) in needs {
        let owner = need.filler.unwrap_or(need.owner);
        if threads[owner].spec.local.create_serialize {
            serial.push((path, need));
        } else {
            groups.entry(owner).or_default().push((path, need));
        }
    }
    // Each filling thread's buffer policy, carried from one of its files to the next.
    let mut policies: BTreeMap<usize, BufferPolicy> = BTreeMap::new();
    let mut out = Laying {
        threads,
        confine,
        stop,
        log,
        policies: &mut policies,
    };
    let mut failed = Vec::new();
    for (path, need) in serial {
        // As fio, a job stops setting its files up at its first failure.
        let users = need.users.clone();
        if users.iter().all(|u| failed_thread(&failed, *u)) {
            continue;
        }
        settle(out.one(&path, need), users, &mut failed)?;
    }
    let done: Vec<_> = std::thread::scope(|s| {
        let runs: Vec<_> = groups
            .into_values()
            .map(|paths| {
                s.spawn(move || {
                    let (mut log, mut policies) = (Vec::new(), BTreeMap::new());
                    let mut job = Laying {
                        threads,
                        confine,
                        stop,
                        log: &mut log,
                        policies: &mut policies,
                    };
                    let r = paths.into_iter().try_for_each(|(p, n)| {
                        let users = n.users.clone();
                        job.one(&p, n).map_err(|why| (why, users))
                    });
                    (r, log, policies)
                })
            })
            .collect();
        runs.into_iter()
            .map(|h| h.join().expect("layout thread"))
            .collect()
    });
    // Their lines in job order, whatever order they ran in.
    let mut first_err = Ok(());
    for (r, lines, laid) in done {
        let _ = log.write_all(&lines);
        policies.extend(laid);
        if let Err((why, users)) = r {
            if first_err.is_ok() {
                first_err = settle(Err(why), users, &mut failed);
            }
        }
    }
    first_err?;
    // The threads' writes go on from where their layout left the streams.
    for (i, policy) in policies {
        if let Ok(mut slot) = threads[i].buffers.laid_out.lock() {
            *slot = Some(policy);
        }
    }
    Ok(failed)
}

/// Record each failed file's error on the threads that use it (the first one for a
/// thread with several), named after the thread's job.
pub fn mark_failed(threads: &mut [ThreadPlan], failed: Vec<Failed>) {
    for f in failed {
        for &i in &f.threads {
            let t = &mut threads[i];
            if t.not_laid_out.is_none() {
                let message = format!("job '{}': {}", t.spec.name, f.message);
                t.not_laid_out = Some(NotLaidOut::Failed(f.errno, message));
            }
        }
    }
}

/// A stop signal ended the layout: no thread starts, and each reports no I/O and no
/// error, as fio reports its jobs after a signal during their setup (a script reading
/// the report still gets one; the exit code says it was interrupted).
pub fn mark_interrupted(threads: &mut [ThreadPlan]) {
    for t in threads {
        t.not_laid_out.get_or_insert(NotLaidOut::Interrupted);
    }
}

fn failed_thread(failed: &[Failed], thread: usize) -> bool {
    failed.iter().any(|f| f.threads.contains(&thread))
}

/// One file's outcome: a system error is recorded against its threads, a fatal one
/// ends the layout.
fn settle(r: Result<(), Why>, users: Vec<usize>, failed: &mut Vec<Failed>) -> Result<(), String> {
    match r {
        Ok(()) => Ok(()),
        Err(Why::Fatal(e)) => Err(e),
        Err(Why::System(errno, message)) => {
            failed.push(Failed {
                threads: users,
                errno,
                message,
            });
            Ok(())
        }
    }
}

/// Where one run of layouts writes (the caller's thread, or a job's own).
struct Laying<'a, 'b> {
    threads: &'a [ThreadPlan],
    confine: Option<&'a crate::sys::confine::Confine>,
    stop: &'a AtomicBool,
    log: &'b mut dyn Write,
    policies: &'b mut BTreeMap<usize, BufferPolicy>,
}

impl Laying<'_, '_> {
    /// Create, extend and fill one file as `need` says.
    fn one(&mut self, path: &std::path::Path, need: Need) -> Result<(), Why> {
        let (confine, log, threads) = (self.confine, &mut *self.log, self.threads);
        let create = OpenFlags {
            write: true,
            create: true,
            ..Default::default()
        };
        let current = std::fs::metadata(path).ok().map(|m| m.len());
        if need.unbounded && need.size == 0 {
            if current.is_none() && need.create_allowed && !need.readonly {
                file::open_in(confine, path, create)
                    .map_err(|e| Why::io(&need.job, "create", path, e))?;
            }
            return Ok(());
        }
        if need.prepopulate {
            return self.prepopulate(path, need, current);
        }
        if current.is_some_and(|c| c >= need.size) {
            return Ok(());
        }
        if need.readonly {
            return read_only_short(path, &need, current);
        }
        if current.is_none() && !need.create_allowed {
            return Err(creation_disallowed(path));
        }
        let _ = writeln!(
            log,
            "{}: Laying out IO file (1 file / {}MiB)",
            need.job,
            need.size >> 20
        );
        if threads[need.owner]
            .spec
            .compat
            .debug
            .has(ferrio_config::DebugCategory::File)
        {
            // --debug=file: which thread lays the file out (create_serialize=0: the
            // job's own).
            debug_line::line(
                "file",
                thread_id(),
                format_args!("extend file {}, size={}", path.display(), need.size),
            );
        }
        // fio writes a laid-out file with the job's buffer contents (compressible,
        // dedupable, zeroes or a pattern as asked), one largest-write block at a time.
        let filler = match need.filler {
            Some(i) => {
                let t = &threads[i];
                let policy = match self.policies.remove(&i) {
                    Some(p) => p,
                    None => BufferPolicy::for_layout(t)
                        .map_err(|e| Why::Fatal(format!("job '{}': {e}", t.spec.name)))?,
                };
                Some((i, policy, t.spec.bs[1].max.max(1) as usize))
            }
            None => None,
        };
        let rw = OpenFlags {
            read: true,
            ..create
        };
        let laid = file::open_in(confine, path, rw).and_then(|f| {
            extend(
                &f,
                current.unwrap_or(0),
                need.size,
                filler,
                self.policies,
                need.fallocate,
                self.stop,
            )
        });
        if let Err(e) = laid {
            // Leave the file as it was: a half-filled file would pass for laid out next time.
            match current {
                None => {
                    let _ = file::remove_in(confine, path, false);
                }
                Some(len) => {
                    let write = OpenFlags {
                        write: true,
                        ..Default::default()
                    };
                    let _ = file::open_in(confine, path, write).and_then(|f| f.set_len(len));
                }
            }
            return Err(Why::io(&need.job, "lay out", path, e));
        }
        Ok(())
    }
}

impl Laying<'_, '_> {
    /// fio's prepopulate_file: write the file from its start with the filling job's
    /// buffers (its current length, or the job's size when it is new), one largest
    /// write at a time; the job's writes go on from where this left the buffer streams.
    fn prepopulate(
        &mut self,
        path: &std::path::Path,
        need: Need,
        current: Option<u64>,
    ) -> Result<(), Why> {
        if need.readonly {
            // As fio: a read-only job does not write its files.
            return Ok(());
        }
        if current.is_none() && !need.create_allowed {
            return Err(creation_disallowed(path));
        }
        let _ = writeln!(
            self.log,
            "{}: Prepopulating IO file ({})",
            need.job,
            path.display()
        );
        let filler = need.filler.map(|i| {
            let t = &self.threads[i];
            let policy = match self.policies.remove(&i) {
                Some(p) => Ok(p),
                None => BufferPolicy::for_layout(t),
            };
            (i, policy, t.spec.bs[1].max.max(1) as usize)
        });
        let (i, policy, bs) = match filler {
            Some((i, Ok(p), bs)) => (i, p, bs),
            Some((_, Err(e), _)) => return Err(Why::Fatal(format!("job '{}': {e}", need.job))),
            None => {
                return Err(Why::Fatal(format!(
                    "job '{}': no buffers to prepopulate with",
                    need.job
                )))
            }
        };
        let rw = OpenFlags {
            read: true,
            write: true,
            create: true,
            ..Default::default()
        };
        let size = current.unwrap_or(need.size);
        let laid = file::open_in(self.confine, path, rw).and_then(|f| {
            extend(
                &f,
                0,
                size,
                Some((i, policy, bs)),
                self.policies,
                Some(Fallocate::None),
                self.stop,
            )
        });
        laid.map_err(|e| {
            if current.is_none() {
                let _ = file::remove_in(self.confine, path, false);
            }
            Why::io(&need.job, "prepopulate", path, e)
        })
    }
}

/// A read-only run's file that is missing or shorter than its jobs' region: fio
/// refuses to extend it ("refusing extend of file due to read-only") and runs the
/// jobs on it as it is. A missing file fails its threads as their open does (ENOENT,
/// no I/O); a short one is read up to its end, where the next read fails (EIO, fio's
/// "full resid"). The other jobs run.
fn read_only_short(path: &std::path::Path, need: &Need, current: Option<u64>) -> Result<(), Why> {
    match current {
        None => Err(Why::System(
            libc::ENOENT,
            format!(
                "cannot open '{}': it does not exist, and a read-only run creates no file",
                path.display()
            ),
        )),
        Some(len) => {
            eprintln!(
                "ferrio: job '{}': '{}' is {len} bytes, shorter than the {} bytes its jobs use, and a read-only run does not extend it: reads past its end fail (EIO), as in fio",
                need.job,
                path.display(),
                need.size
            );
            Ok(())
        }
    }
}

/// allow_file_create=0 and a missing file: the file's threads fail without I/O and
/// the other jobs run, as in fio ("file creation disallowed by allow_file_create=0").
/// fio reports such a job with error 0; ferrio reports ENOENT, the truth, so a script
/// that checks a job's error sees the failure the exit code counts.
fn creation_disallowed(path: &std::path::Path) -> Why {
    Why::System(
        libc::ENOENT,
        format!(
            "'{}' does not exist and allow_file_create=0 forbids creating it",
            path.display()
        ),
    )
}

fn extend(
    f: &std::fs::File,
    from: u64,
    to: u64,
    fill: Option<(usize, BufferPolicy, usize)>,
    policies: &mut BTreeMap<usize, BufferPolicy>,
    mode: Option<Fallocate>,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    match mode.unwrap_or(Fallocate::Native) {
        // Preallocation is advisory in fio too: a filesystem without it (tmpfs before
        // some kernels, NFS) still gets a usable file.
        Fallocate::Native | Fallocate::Keep => {
            let _ = file::preallocate(f, to, mode == Some(Fallocate::Keep));
        }
        Fallocate::Posix => {
            let _ = file::posix_preallocate(f, to);
        }
        Fallocate::None | Fallocate::Truncate => {}
    }
    // A file that is written whole is first made that long; one only fallocated keeps
    // its size with fallocate=none or keep (fio's fallocate_file), and its writes
    // grow it.
    let grows = fill.is_some() || !matches!(mode, Some(Fallocate::None | Fallocate::Keep));
    if grows && f.metadata()?.len() < to {
        f.set_len(to)?;
    }
    if let Some((thread, mut policy, bs)) = fill {
        let chunk = ((1usize << 20) / bs).max(1) * bs;
        let mut buf = vec![0u8; chunk];
        let mut pos = from;
        while pos < to {
            if stop.load(Ordering::Relaxed) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::Interrupted,
                    "interrupted",
                ));
            }
            let n = ((to - pos) as usize).min(chunk);
            policy.fill_layout(&mut buf[..n], bs);
            f.write_all_at(&buf[..n], pos)?;
            pos += n as u64;
        }
        policies.insert(thread, policy);
        f.sync_data()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::worker::tests::plan_of;

    fn on_disk(opts: &str, path: &std::path::Path) -> ThreadPlan {
        let mut p = plan_of(opts, true);
        p.caps.diskless = false;
        p.files[0].path = path.to_path_buf();
        p
    }

    #[test]
    fn a_reading_job_gets_its_file_created_and_filled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // No size= (a job on an existing file or device sized by its region): the
        // region still gets laid out; only fill_device without a size is unbounded.
        let plan = on_disk("rw=read\nbs=4k", &path);
        let mut log = Vec::new();
        lay_out(&[plan], &mut log, &AtomicBool::new(false)).unwrap();
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data.len(), 64 * 4096);
        // Random buffer contents, as fio's layout writes them.
        assert!(data.iter().filter(|&&b| b == 0).count() < data.len() / 64);
        let log = String::from_utf8(log).unwrap();
        assert!(
            log.contains("t: Laying out IO file (1 file / 0MiB)"),
            "{log}"
        );
    }
}
