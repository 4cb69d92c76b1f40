//! Per-host log files (write_bw_log, write_lat_log, write_iops_log, write_hist_log,
//! write_iolog) in a multi-host run, as fio's client/server model has them: the server
//! never writes where the client says. It points every log prefix of the admitted jobs
//! into a private directory of its own (mode 0700, under its temporary directory),
//! runs, then sends each file back over the session and removes the directory. The
//! client writes each one as `<the job's log name>.<host>` (fio's client names them
//! so), in its own working directory or where the job's prefix says.
//!
//! Times: fio's log times are milliseconds since the job's start, so they need no
//! shift (the hosts started together, within the printed skew). With
//! `log_unix_epoch=1` (or `log_alternate_epoch=1` on CLOCK_REALTIME) they are the
//! host's wall clock: the client subtracts the host's clock offset, so the files of
//! several hosts are all on the client's clock and merge by time.

use super::wire::JobText;
pub use super::wire::{LogBack, LOG_LIMIT};
use ferrio_config::Invocation;
use std::path::{Path, PathBuf};

/// One redirected prefix: the private name it got and the job's own.
struct Prefix {
    private: String,
    orig: String,
    epoch: bool,
    /// write_iolog: the whole file name (no suffix follows).
    whole: bool,
}

/// The server's private log directory for one run, removed when dropped.
pub struct Redirect {
    dir: PathBuf,
    prefixes: Vec<Prefix>,
}

impl Drop for Redirect {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Point every log of `inv` into a new private directory; None when no job logs.
pub fn redirect(inv: &mut Invocation) -> Result<Option<Redirect>, String> {
    let wants = |j: &ferrio_config::JobSpec| j.logs.any() || j.logs.write_iolog.is_some();
    if !inv.jobs.iter().any(wants) {
        return Ok(None);
    }
    let dir = private_dir()?;
    let mut r = Redirect {
        dir,
        prefixes: Vec::new(),
    };
    for j in inv.jobs.iter_mut() {
        let epoch = j.logs.unix_epoch || (j.dropin.alt_epoch && j.dropin.alt_epoch_clock_id == 0);
        let l = &mut j.logs;
        for p in [
            &mut l.bw_log,
            &mut l.iops_log,
            &mut l.lat_log,
            &mut l.hist_log,
        ]
        .into_iter()
        .flatten()
        {
            *p = r.private(p, epoch, false);
        }
        if let Some(p) = &mut l.write_iolog {
            *p = r.private(p, false, true);
        }
    }
    Ok(Some(r))
}

impl Redirect {
    /// The private path for a job's prefix (the same for the same prefix, so
    /// per_job_logs=0 still shares one file).
    fn private(&mut self, orig: &str, epoch: bool, whole: bool) -> String {
        let found = self
            .prefixes
            .iter()
            .find(|p| p.orig == orig && p.epoch == epoch && p.whole == whole);
        let name = match found {
            Some(p) => p.private.clone(),
            None => {
                let n = self.prefixes.len();
                // write_iolog=*.gz is gzip: the private name keeps the ending.
                let private = match whole {
                    true if orig.ends_with(".gz") => format!("I{n}.gz"),
                    true => format!("I{n}"),
                    false => format!("L{n}"),
                };
                self.prefixes.push(Prefix {
                    private: private.clone(),
                    orig: orig.to_string(),
                    epoch,
                    whole,
                });
                private
            }
        };
        self.dir.join(name).display().to_string()
    }

    /// Every file the run wrote, named as the job named it, in name order, handed to
    /// `send` one at a time (only one file is in memory at once).
    pub fn send_each(
        &self,
        send: &mut dyn FnMut(LogBack) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            let Some((p, suffix)) = self.prefixes.iter().find_map(|p| {
                let rest = name.strip_prefix(&p.private)?;
                let ok = if p.whole {
                    rest.is_empty()
                } else {
                    rest.starts_with('_')
                };
                ok.then_some((p, rest))
            }) else {
                continue;
            };
            let path = self.dir.join(&name);
            let (data, note) = match std::fs::metadata(&path) {
                Ok(m) if m.len() > LOG_LIMIT => (
                    Vec::new(),
                    Some(format!(
                        "{} bytes, over the {LOG_LIMIT}-byte limit of a log sent back",
                        m.len()
                    )),
                ),
                _ => match std::fs::read(&path) {
                    Ok(d) => (d, None),
                    Err(e) => (Vec::new(), Some(e.to_string())),
                },
            };
            send(LogBack {
                prefix: p.orig.clone(),
                suffix: suffix.to_string(),
                epoch: p.epoch,
                data,
                note,
            })?;
        }
        Ok(())
    }
}

/// A new directory only this process's user may enter, under the temporary directory.
fn private_dir() -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    let base = std::env::temp_dir();
    let mut last = String::new();
    for attempt in 0..16u64 {
        let salt = super::wire::unix_ns() ^ (attempt << 48);
        let dir = base.join(format!("ferrio-logs-{}-{salt:x}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!(
        "cannot make a private log directory in '{}': {last}",
        base.display()
    ))
}

/// The suffixes a run adds to a log prefix: `_KIND[.N].log[.fz]`.
fn suffix_ok(s: &str) -> bool {
    let kinds = ["bw", "iops", "slat", "clat", "lat", "duelat", "clat_hist"];
    let s = s.strip_suffix(".fz").unwrap_or(s);
    let Some(s) = s.strip_prefix('_').and_then(|s| s.strip_suffix(".log")) else {
        return false;
    };
    let (kind, number) = match s.split_once('.') {
        Some((k, n)) => (k, Some(n)),
        None => (s, None),
    };
    kinds.contains(&kind)
        && number.is_none_or(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a log a server sent back is one this client's jobs asked for: a log
/// suffix (or none, write_iolog), and a prefix its job files name (with
/// `--remote-config`, whose text the client never sees, a relative path without
/// `..`). A server cannot make the client write anywhere else.
pub fn accept(log: &LogBack, sent: &[JobText], remote: bool) -> Result<(), String> {
    if !(log.suffix.is_empty() || suffix_ok(&log.suffix)) {
        return Err(format!("unexpected log name suffix '{}'", log.suffix));
    }
    let p = Path::new(&log.prefix);
    let plain = !log.prefix.is_empty()
        && !p.is_absolute()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    let named = !log.prefix.is_empty()
        && sent
            .iter()
            .any(|f| names_in(&f.text).any(|n| n == log.prefix));
    if named || (remote && plain) {
        return Ok(());
    }
    Err(format!(
        "log prefix '{}' is not one this client's job files name",
        log.prefix
    ))
}

/// What a job file names whole: its sections (a log's default prefix is its job's
/// name) and its options' values (`write_bw_log=PREFIX`). A prefix must be one of
/// these, never a piece of one (a server sending "/" must not write to the root).
fn names_in(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        let l = l.trim();
        match l.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            Some(section) => Some(section.trim()),
            None => l.split_once('=').map(|(_, v)| v.trim()),
        }
    })
}

/// The host part of each `--client` host, as fio names its log files
/// (`<log>.<host>`); where two hosts of the run share it, the port follows
/// (`<host>:<port>`), so their files do not overwrite each other.
pub fn host_tags(labels: &[String]) -> Vec<String> {
    let strip = |l: &str| -> (String, String) {
        let l = l.strip_prefix("ssh://").unwrap_or(l);
        let l = l.rsplit_once('@').map_or(l, |(_, h)| h);
        let host = if let Some(rest) = l.strip_prefix('[') {
            rest.split_once(']').map_or(rest, |(h, _)| h)
        } else if l.matches(':').count() == 1 {
            l.split_once(':').map_or(l, |(h, _)| h)
        } else {
            l
        };
        (host.to_string(), l.to_string())
    };
    let parts: Vec<(String, String)> = labels.iter().map(|l| strip(l)).collect();
    parts
        .iter()
        .map(|(host, full)| {
            let shared = parts.iter().filter(|(h, _)| h == host).count() > 1;
            let tag = if shared { full } else { host };
            tag.replace('/', "_")
        })
        .collect()
}

/// Wall-clock log times on the client's clock: the first column of every line (ms)
/// minus the host's offset (ms, its clock minus the client's).
pub fn shift_times(data: &[u8], offset_ms: i64) -> Vec<u8> {
    let text = String::from_utf8_lossy(data);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (first, rest) = line.split_once(',').unwrap_or((line, ""));
        match first.trim().parse::<i64>() {
            Ok(t) if !rest.is_empty() => {
                out.push_str(&(t - offset_ms).max(0).to_string());
                out.push(',');
                out.push_str(rest);
            }
            _ => out.push_str(line),
        }
    }
    out.into_bytes()
}

/// Write one log back on the client: `<prefix><suffix>.<tag>`, times shifted for
/// wall-clock logs (compressed `.fz` files are written as they came). The path.
pub fn write(log: &LogBack, tag: &str, offset_ns: Option<i128>) -> Result<PathBuf, String> {
    let path = PathBuf::from(format!("{}{}.{tag}", log.prefix, log.suffix));
    let packed = log.suffix.ends_with(".fz") || log.prefix.ends_with(".gz");
    let data = match offset_ns {
        Some(o) if log.epoch && !packed => {
            let ms = (o as f64 / 1e6).round() as i64;
            std::borrow::Cow::Owned(shift_times(&log.data, ms))
        }
        _ => std::borrow::Cow::Borrowed(&log.data),
    };
    std::fs::write(&path, &*data)
        .map_err(|e| format!("cannot write log file '{}': {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn back(prefix: &str, suffix: &str) -> LogBack {
        LogBack {
            prefix: prefix.into(),
            suffix: suffix.into(),
            epoch: false,
            data: Vec::new(),
            note: None,
        }
    }

    #[test]
    fn only_logs_the_jobs_named_are_written() {
        let sent = [JobText {
            name: "j.fio".into(),
            text: "[j]\nwrite_bw_log=out/x\nwrite_iolog=/tmp/io.gz\n".into(),
        }];
        assert!(accept(&back("out/x", "_bw.1.log"), &sent, false).is_ok());
        assert!(accept(&back("out/x", "_clat_hist.log.fz"), &sent, false).is_ok());
        assert!(accept(&back("/tmp/io.gz", ""), &sent, false).is_ok());
        assert!(accept(&back("j", "_lat.1.log"), &sent, false).is_ok());
        for (p, s) in [
            ("out/x", "_bw.1.log/../../y"),
            ("out/x", "_bw.x.log"),
            ("out/x", "_evil.1.log"),
            ("/home/u/.bashrc", ""),
            ("", "_bw.1.log"),
            // Pieces of what the job file names are not names.
            ("/", "_bw.1.log"),
            ("out", "_bw.1.log"),
            ("/tmp/io", ""),
        ] {
            assert!(accept(&back(p, s), &sent, false).is_err(), "{p}{s}");
        }
        // --remote-config: relative paths without '..' only.
        assert!(accept(&back("r/y", "_lat.2.log"), &sent, true).is_ok());
        assert!(accept(&back("../y", "_lat.2.log"), &sent, true).is_err());
        assert!(accept(&back("/y", "_lat.2.log"), &sent, true).is_err());
    }

    #[test]
    fn host_tags_are_fios_host_names_unless_two_hosts_share_one() {
        let l = |v: &[&str]| host_tags(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            l(&["h1", "h2:9000", "ssh://u@h3:22", "[::1]:7"]),
            ["h1", "h2", "h3", "::1"]
        );
        assert_eq!(
            l(&["127.0.0.1:9000", "127.0.0.1:9001", "h"]),
            ["127.0.0.1:9000", "127.0.0.1:9001", "h"]
        );
    }

    #[test]
    fn wall_clock_times_move_by_the_offset() {
        let data = b"1700000005000, 100, 0, 4096, 0\nnot a line\n1700000006000, 7, 1, 4096, 0";
        let out = shift_times(data, 5000);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "1700000000000, 100, 0, 4096, 0\nnot a line\n1700000001000, 7, 1, 4096, 0"
        );
        assert_eq!(shift_times(b"3, 1\n", 10), b"0, 1\n");
    }
}
