//! Which file the next I/O goes to (`file_service_type`), as fio's get_next_file.

use super::{BlockPicker, FileService, Pattern, RandomDistribution};

impl Pattern {
    /// fio's get_next_file: keep the current file for `N` I/Os (sequential: until it
    /// is done), then choose by round robin, uniformly or from the non-uniform model.
    pub(super) fn pick_file(&mut self) -> Option<usize> {
        let n = self.files.len();
        if let Some(f) = self.fs_file {
            if self.file_service == FileService::Sequential {
                return Some(f);
            }
            if self.fs_left > 0 {
                self.fs_left -= 1;
                return Some(f);
            }
        }
        let mut tries = 0;
        let (f, per_pick) = loop {
            let (f, k) = match self.file_service {
                FileService::RoundRobin(k) => (self.round_robin(), k),
                FileService::Sequential => (self.round_robin(), 1),
                FileService::Random(k) => (self.rng.file.scaled(n as u64) as usize, k),
                _ => {
                    let v = self.rng.file_model.as_mut().map_or(0, |m| m.pick_file());
                    (v as usize, 1)
                }
            };
            let f = f.min(n - 1);
            tries += 1;
            // Done files are passed over (fio: each pass-over costs a draw), and so
            // are files still closing (their I/Os in flight). A closed file while
            // openfiles are open is fio's EBUSY: with I/Os in flight the I/O loop
            // reaps before choosing again, else the choice is drawn again at once.
            if !self.done[f] && self.open.may_use(f) {
                break (f, k);
            }
            let waits = self.busy_ok && self.open.in_flight > 0;
            if waits && !self.done[f] && self.open.blocked(f) {
                return None;
            }
            // fio draws until it finds a file; a file that is closing frees itself
            // once its I/Os complete, so a long search waits for one instead.
            if tries > 64 * n {
                if !waits {
                    break (f, k);
                }
                if tries > 4096 * n {
                    return None;
                }
            }
        };
        self.open.open(f);
        self.fs_file = Some(f);
        self.fs_left = per_pick.saturating_sub(1);
        Some(f)
    }

    /// fio closes a file (when it is done, and at the end of a pass): logged, and a
    /// place for another file under openfiles.
    pub(super) fn close_file(&mut self, f: usize) {
        if self.fs_file == Some(f) {
            self.fs_file = None;
        }
        self.open.close(f);
        if let Some(log) = &mut self.iolog {
            log.close(f);
        }
    }

    /// openfiles < nrfiles: the worker opens and closes the files' descriptors as
    /// this says ([`Pattern::take_file_events`]) and reports every I/O's queueing
    /// and completion, so a closed file waits for its I/Os in flight.
    pub fn track_files(&mut self) {
        self.open.track();
    }

    /// A generated I/O to `file` was queued (openfiles < nrfiles).
    pub fn io_started(&mut self, file: usize) {
        self.open.started(file);
    }

    /// An I/O to `file` completed (openfiles < nrfiles): a closing file whose last
    /// I/O it was is closed (an event for the worker).
    pub fn io_finished(&mut self, file: usize) {
        self.open.finished(file);
    }

    /// The files opened (true) and closed (false) since the last call, in order.
    pub fn take_file_events(&mut self, into: &mut Vec<(usize, bool)>) {
        self.open.take_events(into);
    }

    /// Whether the last [`Pattern::next_io_or_end`] found no file to use until an
    /// I/O in flight completes (fio's EBUSY from get_next_file), once.
    pub fn take_file_busy(&mut self) -> bool {
        std::mem::take(&mut self.file_busy)
    }

    fn round_robin(&mut self) -> usize {
        let f = self.next_file;
        self.next_file = (self.next_file + 1) % self.files.len();
        f
    }
}

/// fio's non-uniform file choice (seeded from the file stream's seed).
pub(super) fn file_model(fs: FileService, files: usize, seed: u32) -> Option<BlockPicker> {
    let dist = match fs {
        FileService::Zipf(theta) => RandomDistribution::Zipf {
            theta,
            center: None,
        },
        FileService::Pareto(h) => RandomDistribution::Pareto { h, center: None },
        FileService::Gauss(dev) => RandomDistribution::Normal {
            dev_pct: dev,
            center: None,
        },
        _ => return None,
    };
    BlockPicker::for_files(&dist, files as u64, seed)
}

/// The files a job has open, and how many it may (`openfiles`). With I/Os in flight
/// (counted only when openfiles < nrfiles), a closed file stays open, "closing",
/// until its last I/O completes, as fio's td_io_close_file and put_file.
#[derive(Clone, Debug)]
pub(super) struct OpenFiles {
    open: Vec<bool>,
    closing: Vec<bool>,
    /// I/Os in flight per file, and over all files.
    refs: Vec<u32>,
    pub(super) in_flight: u32,
    count: usize,
    limit: usize,
    /// Record `events` (a worker holds real descriptors).
    track: bool,
    /// Files opened (true) or really closed (false) since the last take, for the
    /// worker that holds their descriptors.
    events: Vec<(usize, bool)>,
}

impl OpenFiles {
    pub(super) fn new(files: usize, openfiles: Option<u32>) -> OpenFiles {
        OpenFiles {
            open: vec![false; files],
            closing: vec![false; files],
            refs: vec![0; files],
            in_flight: 0,
            count: 0,
            limit: openfiles.map_or(usize::MAX, |n| (n as usize).max(1)),
            track: false,
            events: Vec::new(),
        }
    }

    /// Whether `f` may take the next I/O: it is open and not closing, or it is
    /// closed and there is room to open it.
    pub(super) fn may_use(&self, f: usize) -> bool {
        if self.open[f] {
            !self.closing[f]
        } else {
            self.count < self.limit
        }
    }

    /// Whether `f` waits for a place under openfiles while I/Os are in flight
    /// (fio's EBUSY: the loop reaps before choosing again).
    pub(super) fn blocked(&self, f: usize) -> bool {
        !self.open[f] && self.count >= self.limit
    }

    pub(super) fn open(&mut self, f: usize) {
        if !self.open[f] {
            self.open[f] = true;
            self.count += 1;
            if self.track {
                self.events.push((f, true));
            }
        }
    }

    /// fio's td_io_close_file: closed now, or once its I/Os in flight complete.
    pub(super) fn close(&mut self, f: usize) {
        if !self.open[f] || self.closing[f] {
            return;
        }
        if self.refs[f] > 0 {
            self.closing[f] = true;
        } else {
            self.release(f);
        }
    }

    fn release(&mut self, f: usize) {
        self.open[f] = false;
        self.closing[f] = false;
        self.count -= 1;
        if self.track {
            self.events.push((f, false));
        }
    }

    /// Record opens and closes for [`OpenFiles::take_events`].
    pub(super) fn track(&mut self) {
        self.track = true;
    }

    /// An I/O to `f` was queued.
    pub(super) fn started(&mut self, f: usize) {
        self.refs[f] += 1;
        self.in_flight += 1;
    }

    /// An I/O to `f` completed; a closing file whose last I/O it was is closed.
    pub(super) fn finished(&mut self, f: usize) {
        if self.refs[f] == 0 {
            return;
        }
        self.refs[f] -= 1;
        self.in_flight -= 1;
        if self.refs[f] == 0 && self.closing[f] {
            self.release(f);
        }
    }

    /// The opens (true) and real closes (false) since the last call, in order.
    pub(super) fn take_events(&mut self, into: &mut Vec<(usize, bool)>) {
        into.append(&mut self.events);
    }

    /// Files open now, closing ones included (never above openfiles).
    #[cfg(test)]
    fn count(&self) -> usize {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::OpenFiles;

    #[test]
    fn a_file_closed_with_ios_in_flight_closes_after_the_last_one() {
        let mut o = OpenFiles::new(3, Some(1));
        o.track();
        o.open(0);
        o.started(0);
        o.started(0);
        o.close(0);
        // Closing: still counted, passed over, and no room for another file.
        assert_eq!(o.count(), 1);
        assert!(!o.may_use(0));
        assert!(!o.may_use(1) && o.blocked(1));
        o.finished(0);
        assert_eq!(o.count(), 1);
        o.finished(0);
        assert_eq!(o.count(), 0);
        assert!(o.may_use(1) && !o.blocked(1));
        let mut ev = Vec::new();
        o.take_events(&mut ev);
        assert_eq!(ev, [(0, true), (0, false)]);
    }

    #[test]
    fn a_file_closed_with_nothing_in_flight_closes_at_once() {
        let mut o = OpenFiles::new(2, Some(1));
        o.open(1);
        o.close(1);
        assert_eq!(o.count(), 0);
        assert!(o.may_use(0));
        // Untracked (no descriptors held): no events.
        let mut ev = Vec::new();
        o.take_events(&mut ev);
        assert!(ev.is_empty());
    }
}
