//! openfiles < nrfiles: the loop's side of fio's file opens and closes. A file is
//! opened when the pattern first chooses it and closed when it is done (or when a
//! pass ends); a file closed with I/Os in flight stays open, "closing", until its
//! last one completes, and no more than openfiles are ever open (fio's
//! td_io_open_file, td_io_close_file, put_file). Nothing here runs when every file
//! is held open. Also the job's sync of every file.

use super::Worker;

impl Worker<'_> {
    /// Whether fio's do_io ends each loop of this job with syncs (end_fsync,
    /// end_syncfs or fsync_on_close, in a job that writes): see [`Self::end_syncs`].
    pub(super) fn syncs_at_loop_end(&self) -> bool {
        let spec = &self.plan.spec;
        (spec.end_fsync || spec.end_syncfs || spec.fsync_on_close) && spec.writes()
    }

    /// The syncs that end a loop: with end_syncfs one syncfs(2) per file system
    /// holding the job's files, else an fsync of every file (fio's do_io).
    pub(super) fn end_syncs(&mut self) {
        if self.plan.spec.end_syncfs {
            self.sync_file_systems();
        } else {
            self.sync_all_files();
        }
    }

    /// end_syncfs: one syncfs(2) per file system holding the job's regular files
    /// (that of each file's directory, told apart by st_dev, as fio's add_file_fs;
    /// devices are skipped), through the directory opened for it. A failure is
    /// said and the job goes on, as fio's fio_syncfs.
    fn sync_file_systems(&self) {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        let mut seen = Vec::new();
        for f in self.plan.files.iter().filter(|f| !f.device) {
            let dir = match f.path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => std::path::Path::new("."),
            };
            let synced = std::fs::metadata(dir).and_then(|m| {
                if seen.contains(&m.dev()) {
                    return Ok(());
                }
                seen.push(m.dev());
                let d = std::fs::File::open(dir)?;
                match crate::sys::io::syncfs(d.as_raw_fd()) {
                    0 => Ok(()),
                    e => Err(std::io::Error::from_raw_os_error(-e as i32)),
                }
            });
            if let Err(e) = synced {
                eprintln!(
                    "ferrio: end_syncfs: syncfs of '{}' failed: {e}",
                    dir.display()
                );
            }
        }
    }

    /// fsync every file of the job (end_fsync, fsync_on_close at the end), opening
    /// for it one that openfiles closed during the run, as fio.
    pub(super) fn sync_all_files(&mut self) {
        for f in 0..self.io.fds.len() {
            self.io.sync_file(self.plan, f);
        }
    }
    /// write_iolog: fio ends each loop of a writing job's I/O with a sync of each
    /// file when end_fsync or fsync_on_close is set (opening a closed file for it;
    /// the close's own fsync is not logged), each through an io_u taken from the
    /// free list, whose offset it logs. (The syncs themselves: `pass_ended` between
    /// loops, `finish` after the last.)
    pub(super) fn log_end_syncs(&mut self) {
        // (end_syncfs's syncs are of file systems, not of the job's files: fio's log
        // line for one names no file of the job and cannot be replayed.)
        if !self.syncs_at_loop_end() || self.plan.spec.end_syncfs {
            return;
        }
        let stale = self
            .io
            .units
            .free
            .last()
            .map_or(0, |&i| self.io.units.io[i].offset);
        for f in 0..self.plan.files.len() {
            self.pattern.log_end_sync(f, stale);
        }
    }

    /// The generated I/O goes to `file`: apply the pattern's opens and closes (in
    /// order, so the descriptors never exceed openfiles) and count the I/O in flight.
    /// False when a file could not be opened (the job's error is set).
    pub(super) fn file_for_io(&mut self, file: usize) -> bool {
        let mut events = std::mem::take(&mut self.file_events);
        self.pattern.take_file_events(&mut events);
        let mut ok = true;
        for &(f, open) in &events {
            if !ok {
                break;
            }
            if open {
                let opened = self.io.open_file(self.plan, f).and_then(|()| {
                    let fd = self.io.fds[f];
                    self.io.engine.file_changed(f, fd).map_err(|e| {
                        let errno = e.raw_os_error().unwrap_or(libc::EIO);
                        let path = self.plan.files[f].path.display();
                        (
                            errno,
                            format!("ioengine={}: '{path}': {e}", self.plan.spec.ioengine),
                        )
                    })
                });
                if let Err(e) = opened {
                    self.acct.error.get_or_insert(e);
                    ok = false;
                }
            } else {
                // (An engine's hold on a file ends before its descriptor does.)
                let _ = self.io.engine.file_changed(f, -1);
                self.io.close_file(self.plan, f);
            }
            crate::runner::debug_line::file_event(self.plan, f, open);
        }
        events.clear();
        self.file_events = events;
        if ok {
            self.pattern.io_started(file);
        }
        ok
    }

    /// A unit's I/O is over (completed or dropped): its file may close now.
    #[inline]
    pub(super) fn file_released(&mut self, idx: usize) {
        if self.lazy_files {
            let u = &self.io.units.io[idx];
            if matches!(
                u.op,
                crate::engine::IoOp::Read | crate::engine::IoOp::Write | crate::engine::IoOp::Trim
            ) {
                self.pattern.io_finished(u.file);
            }
        }
    }

    /// fio's EBUSY from get_next_file with I/Os in flight: reap as when the queue is
    /// full, then choose again. False when the generation ended for another reason.
    pub(super) fn wait_for_file(&mut self) -> bool {
        if !self.pattern.take_file_busy() {
            return false;
        }
        // The pattern counts the units queued and not yet released, so one is in
        // flight; were none, a wait would never end: end the job instead.
        debug_assert!(
            self.st.inflight > 0,
            "waiting for a file with nothing in flight"
        );
        if self.st.inflight == 0 {
            return false;
        }
        self.file_busy = true;
        self.wait_for_completions();
        self.file_busy = false;
        true
    }
}
