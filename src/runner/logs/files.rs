//! Log files: fio's names, a buffered writer each (or fio's compressed `.log.fz`
//! format with log_store_compressed=1), shared between threads when per_job_logs=0.

use super::fz::Packer;
use ferrio_config::ext::{CompatSpec, LogSpec};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Buffer size of one log file: a few hundred lines.
const BUF: usize = 64 * 1024;

/// Where a log file's lines go.
enum Sink {
    Text(BufWriter<File>),
    /// log_store_compressed=1: fio's binary samples in zlib streams.
    Packed(Packer),
}

/// One open log file (possibly shared by several threads).
#[derive(Clone)]
pub struct LogFile(Arc<Mutex<Sink>>);

impl LogFile {
    /// Append whole lines (`text` ends with a newline).
    pub fn write(&self, text: &str) {
        if let Ok(mut w) = self.0.lock() {
            match &mut *w {
                Sink::Text(w) => {
                    let _ = w.write_all(text.as_bytes());
                }
                Sink::Packed(p) => p.write(text),
            }
        }
    }

    /// Text goes to disk; compressed samples wait for a whole chunk (or the end).
    pub fn flush(&self) {
        if let Ok(mut w) = self.0.lock() {
            if let Sink::Text(w) = &mut *w {
                let _ = w.flush();
            }
        }
    }
}

/// How a thread's log files are stored: text, or fio's `.log.fz` with these columns.
#[derive(Clone, Copy)]
pub struct Store {
    /// Some(chunk bytes) with log_store_compressed=1.
    pub packed: Option<usize>,
    pub offset: bool,
    pub prio: bool,
    /// --debug=compress.
    pub debug: bool,
}

impl Store {
    pub fn of(logs: &LogSpec, compat: &CompatSpec) -> Store {
        Store {
            packed: compat.log_store_compressed.then(|| compat.chunk_bytes()),
            offset: logs.offset,
            prio: logs.prio,
            debug: compat.debug.has(ferrio_config::DebugCategory::Compress),
        }
    }
}

/// Files already opened by some thread, by path (per_job_logs=0).
#[derive(Default)]
pub struct Shared(HashMap<PathBuf, LogFile>);

/// fio's log file name: `PREFIX_KIND.N.log`, or `PREFIX_KIND.log` when shared.
pub fn log_name(prefix: &str, kind: &str, number: usize, per_job: bool) -> PathBuf {
    if per_job {
        PathBuf::from(format!("{prefix}_{kind}.{number}.log"))
    } else {
        PathBuf::from(format!("{prefix}_{kind}.log"))
    }
}

fn open(
    mut path: PathBuf,
    shared: &mut Shared,
    per_job: bool,
    store: Store,
) -> Result<LogFile, String> {
    if store.packed.is_some() {
        path.as_mut_os_string().push(".fz");
    }
    if !per_job {
        if let Some(f) = shared.0.get(&path) {
            return Ok(f.clone());
        }
    }
    let f = File::create(&path)
        .map_err(|e| format!("cannot create log file '{}': {e}", path.display()))?;
    let sink = match store.packed {
        Some(chunk) => {
            Sink::Packed(Packer::new(f, store.offset, store.prio, chunk).traced(store.debug, &path))
        }
        None => Sink::Text(BufWriter::with_capacity(BUF, f)),
    };
    let f = LogFile(Arc::new(Mutex::new(sink)));
    if !per_job {
        shared.0.insert(path, f.clone());
    }
    Ok(f)
}

/// The files of one thread.
pub struct LogFiles {
    pub bw: Option<LogFile>,
    pub iops: Option<LogFile>,
    /// slat, clat, lat.
    pub lat: Option<[LogFile; 3]>,
    /// ferrio (due_lat=1 with write_lat_log): latency from the due time,
    /// PREFIX_duelat.N.log (a name fio's tools' `*_lat.*` patterns do not take).
    pub due_lat: Option<LogFile>,
    pub hist: Option<LogFile>,
}

impl LogFiles {
    pub fn open(
        spec: &LogSpec,
        number: usize,
        shared: &mut Shared,
        due_lat: bool,
        store: Store,
    ) -> Result<LogFiles, String> {
        let pj = spec.per_job_logs;
        let mut one = |prefix: &Option<String>, kind: &str| -> Result<Option<LogFile>, String> {
            match prefix {
                Some(p) => open(log_name(p, kind, number, pj), shared, pj, store).map(Some),
                None => Ok(None),
            }
        };
        let bw = one(&spec.bw_log, "bw")?;
        let iops = one(&spec.iops_log, "iops")?;
        let lat = match (
            one(&spec.lat_log, "slat")?,
            one(&spec.lat_log, "clat")?,
            one(&spec.lat_log, "lat")?,
        ) {
            (Some(s), Some(c), Some(l)) => Some([s, c, l]),
            _ => None,
        };
        let due_lat = match due_lat {
            true => one(&spec.lat_log, "duelat")?,
            false => None,
        };
        let hist = one(&spec.hist_log, "clat_hist")?;
        Ok(LogFiles {
            bw,
            iops,
            lat,
            due_lat,
            hist,
        })
    }

    pub fn flush(&self) {
        let all = self
            .bw
            .iter()
            .chain(self.iops.iter())
            .chain(self.lat.iter().flatten())
            .chain(self.due_lat.iter())
            .chain(self.hist.iter());
        for f in all {
            f.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_names() {
        assert_eq!(log_name("x", "bw", 1, true), PathBuf::from("x_bw.1.log"));
        assert_eq!(
            log_name("d/x", "clat_hist", 12, true),
            PathBuf::from("d/x_clat_hist.12.log")
        );
        assert_eq!(log_name("w", "clat", 3, false), PathBuf::from("w_clat.log"));
    }
}
