//! Which file the next I/O goes to (`file_service_type`), as fio's get_next_file.

use super::{BlockPicker, FileService, Pattern, RandomDistribution};

impl Pattern {
    /// fio's get_next_file: keep the current file for `N` I/Os (sequential: until it
    /// is done), then choose by round robin, uniformly or from the non-uniform model.
    pub(super) fn pick_file(&mut self) -> usize {
        let n = self.files.len();
        if let Some(f) = self.fs_file {
            if self.file_service == FileService::Sequential {
                return f;
            }
            if self.fs_left > 0 {
                self.fs_left -= 1;
                return f;
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
            // are closed ones while openfiles are open (fio: EBUSY, chosen again).
            let free = !self.done[f] && self.open.may_use(f);
            if free || tries > 64 * n {
                break (f, k);
            }
        };
        self.open.open(f);
        self.fs_file = Some(f);
        self.fs_left = per_pick.saturating_sub(1);
        f
    }

    /// fio closes a file (when it is done, and at the end of a pass): logged, and a
    /// place for another file under openfiles.
    pub(super) fn close_file(&mut self, f: usize) {
        self.open.close(f);
        if let Some(log) = &mut self.iolog {
            log.close(f);
        }
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

/// The files a job has open, and how many it may (`openfiles`).
#[derive(Clone, Debug)]
pub(super) struct OpenFiles {
    open: Vec<bool>,
    count: usize,
    limit: usize,
}

impl OpenFiles {
    pub(super) fn new(files: usize, openfiles: Option<u32>) -> OpenFiles {
        OpenFiles {
            open: vec![false; files],
            count: 0,
            limit: openfiles.map_or(usize::MAX, |n| (n as usize).max(1)),
        }
    }

    /// Whether `f` may take the next I/O: it is open, or there is room to open it.
    pub(super) fn may_use(&self, f: usize) -> bool {
        self.open[f] || self.count < self.limit
    }

    pub(super) fn open(&mut self, f: usize) {
        if !self.open[f] {
            self.open[f] = true;
            self.count += 1;
        }
    }

    pub(super) fn close(&mut self, f: usize) {
        if self.open[f] {
            self.open[f] = false;
            self.count -= 1;
        }
    }
}
