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
            // Done files are passed over (fio: each pass-over costs a draw).
            if !self.done[f] || tries > 64 * n {
                break (f, k);
            }
        };
        self.fs_file = Some(f);
        self.fs_left = per_pick.saturating_sub(1);
        f
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
