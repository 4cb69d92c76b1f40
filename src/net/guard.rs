//! What a server lets a client do: job text within size limits, no includes or
//! environment of the server's, no exec-style engines or options (unless enabled), no
//! iolog to read (the logs it writes go back to the client), every data file inside the `--server-allow` list (after resolving `..`
//! and symlinks; no file with other hard links), and at most `--server-max-jobs`
//! threads.

use super::wire::JobText;
use crate::runner::planner;
use crate::sys::confine::{resolve, Confine};
use ferrio_config::jobfile::{self, subst::Keywords, Env};
use ferrio_config::{Command, GlobalFlags, Invocation};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Threads one run may start unless `--server-max-jobs` says otherwise.
pub const DEFAULT_MAX_JOBS: u64 = 64;
/// Job text one session may send unless `--server-max-job-size` says otherwise.
pub const DEFAULT_MAX_JOB_BYTES: u64 = 1 << 20;

/// Engines that run programs rather than I/O (fio's exec, external plugins).
fn exec_engine(name: &str) -> bool {
    name == "exec" || name.starts_with("external") || name.contains('/')
}

/// Engines that open network connections or listen (net, netsplice; nbd, which
/// connects to any server its uri= names): a job could reach any host the server
/// can, or accept connections on its behalf.
fn net_engine(name: &str) -> bool {
    matches!(name, "net" | "netsplice" | "nbd")
}

/// Options that run commands (allowed with `exec`, `--server-enable=exec`) or write
/// files outside the data files.
fn refused_option(key: &str, exec: bool) -> Option<&'static str> {
    let k = key.to_ascii_lowercase();
    if k.starts_with("exec_") && !exec {
        return Some("it runs a command on the server (allowed with --server-enable=exec)");
    }
    if k.starts_with("trigger") {
        return Some("it runs a command on the server");
    }
    // The write_*_log and write_iolog files go to a private directory of the
    // server's and back to the client (super::logs); reading one would read the
    // server's files.
    if k == "read_iolog" || k == "merge_blktrace_file" {
        return Some("it reads a log file or writes a merged trace on the server");
    }
    if k == "verify_state_load" {
        return Some("it reads a verify state file from the server's working directory");
    }
    if k == "ioscheduler" || k == "cgroup" || k == "cgroup_weight" {
        return Some("it changes the server's system settings");
    }
    None
}

/// The server's limits, from its flags.
pub struct Limits {
    pub allow: Vec<PathBuf>,
    pub enable_exec: bool,
    pub enable_net: bool,
    pub enable_remote_config: bool,
    pub max_jobs: u64,
    pub max_job_bytes: u64,
    /// The allowed directories held open: the run opens its files beneath them only
    /// (openat2), so a symlink swapped in after admission leads nowhere. None where
    /// everything is allowed (ssh without --server-allow).
    pub confine: Option<Arc<Confine>>,
    /// unique_filename: the address this server listens on, which prefixes the names
    /// of files a job puts in its `directory=` (None: no socket, as under ssh).
    pub name_prefix: Option<String>,
}

impl Limits {
    pub fn from_flags(f: &GlobalFlags) -> Result<Limits, String> {
        let mut allow = Vec::new();
        for a in &f.net.allow {
            let real = a
                .canonicalize()
                .map_err(|e| format!("--server-allow '{}': {e}", a.display()))?;
            allow.push(real);
        }
        // ssh's --server-stdio without --server-allow allows everything: nothing to
        // confine, so it needs no openat2 either.
        let confine = match f.net.stdio && allow.is_empty() {
            true => None,
            false => Some(Arc::new(Confine::new(&allow)?)),
        };
        Ok(Limits {
            confine,
            allow,
            enable_exec: f.net.enable_exec,
            enable_net: f.net.enable_net,
            enable_remote_config: f.net.enable_remote_config,
            max_jobs: f.net.max_jobs.unwrap_or(DEFAULT_MAX_JOBS),
            max_job_bytes: f.net.max_job_bytes.unwrap_or(DEFAULT_MAX_JOB_BYTES),
            name_prefix: None,
        })
    }
}

/// Check what a client sent and turn it into a runnable invocation and its thread
/// count; every refusal names the reason. Nothing is touched on the way.
pub fn admit(
    files: &[JobText],
    remote: &[String],
    lim: &Limits,
) -> Result<(Invocation, usize), String> {
    let size: u64 = files.iter().map(|f| f.text.len() as u64).sum();
    if size > lim.max_job_bytes {
        return Err(format!(
            "the job files are {size} bytes, over this server's limit of {} (--server-max-job-size)",
            lim.max_job_bytes
        ));
    }
    let mut texts: Vec<(PathBuf, String)> = Vec::new();
    for (i, f) in files.iter().enumerate() {
        // The name only labels messages; a fixed prefix keeps it a plain relative path.
        let base = Path::new(&f.name)
            .file_name()
            .map_or("job".into(), |n| n.to_string_lossy().into_owned());
        texts.push((PathBuf::from(format!("sent-{i}-{base}")), f.text.clone()));
    }
    for r in remote {
        if !lim.enable_remote_config {
            return Err(format!(
                "--remote-config '{r}' refused: this server was not started with --server-enable=remote-config"
            ));
        }
        let p = PathBuf::from(r);
        within(&p, &lim.allow)?;
        let text =
            std::fs::read_to_string(&p).map_err(|e| format!("--remote-config '{r}': {e}"))?;
        texts.push((p, text));
    }
    let read = |p: &Path| -> std::io::Result<String> {
        texts
            .iter()
            .find(|(n, _)| n == p)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    "a server reads only the job files it was sent (no include)",
                )
            })
    };
    // The server's environment stays private: ${VAR} is an error naming VAR.
    let env = Env {
        read: &read,
        var: &|_| None,
        keywords: Keywords::system(),
    };
    for (name, text) in &texts {
        for section in jobfile::parse_text(text, name, &env).map_err(|e| e.0)? {
            for o in &section.options {
                if let Some(why) = refused_option(&o.key, lim.enable_exec) {
                    return Err(format!("option '{}' refused by this server: {why}", o.key));
                }
                let engine = o.key == "ioengine";
                if engine && !lim.enable_exec && exec_engine(o.value.as_deref().unwrap_or("")) {
                    return Err(format!(
                        "ioengine={} refused: exec-style engines need --server-enable=exec on the server",
                        o.value.as_deref().unwrap_or("")
                    ));
                }
                if engine && !lim.enable_net && net_engine(o.value.as_deref().unwrap_or("")) {
                    return Err(format!(
                        "ioengine={} refused: network engines need --server-enable=net on the server",
                        o.value.as_deref().unwrap_or("")
                    ));
                }
            }
        }
    }
    let mut args = vec!["--".to_string()];
    args.extend(texts.iter().map(|(n, _)| n.to_string_lossy().into_owned()));
    let mut inv = match ferrio_config::parse_full(&args, &env, false).map_err(|e| e.0)? {
        ferrio_config::Parsed {
            command: Command::Run(inv),
            ..
        } => inv,
        _ => return Err("the job files hold no job to run".into()),
    };
    if let Some(prefix) = &lim.name_prefix {
        inv.jobs.iter_mut().for_each(|j| unique_names(j, prefix));
    }
    // Even sizing the files (an open) happens beneath the allowed directories.
    let threads = planner::plan_confined(&inv.jobs, lim.confine.clone())?;
    if threads.len() as u64 > lim.max_jobs {
        return Err(format!(
            "{} threads requested, over this server's limit of {} (--server-max-jobs)",
            threads.len(),
            lim.max_jobs
        ));
    }
    // The metadata engines count as diskless (no data moves) but act on their names.
    let names = |t: &&crate::runner::plan::ThreadPlan| {
        !t.caps.diskless || matches!(t.caps.accounting, crate::engine::Accounting::FileOps)
    };
    for t in threads.iter().filter(names) {
        for f in &t.files {
            within(&f.path, &lim.allow)?;
        }
    }
    // e4defrag creates its donor file by name (in the job's directory).
    for t in &threads {
        if let Some(n) = &t.spec.local.donorname {
            let dir = t.spec.directory.as_deref().unwrap_or(Path::new(""));
            within(&dir.join(n), &lim.allow)?;
        }
    }
    Ok((inv, threads.len()))
}

/// fio's unique_filename (on by default): on a server, the relative names of a job's
/// files in its `directory=` start with the server's address and a dot
/// (`dir/127.0.0.1.job.0.0`), so clients sharing a directory do not collide.
pub fn unique_names(job: &mut ferrio_config::JobSpec, prefix: &str) {
    if !job.local.unique_filename || job.directory.is_none() {
        return;
    }
    if job.filenames.is_empty() {
        job.filename_format = format!("{prefix}.{}", job.filename_format);
    }
    for n in job.filenames.iter_mut().filter(|n| !n.starts_with('/')) {
        *n = format!("{prefix}.{n}");
    }
}

/// Whether `path` lies inside one of the allowed roots (already canonical): no `..`
/// component, and its real location (symlinks resolved, as far as it exists) is under
/// a root.
pub fn within(path: &Path, allow: &[PathBuf]) -> Result<(), String> {
    let shown = path.display();
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(format!(
            "path '{shown}' refused: '..' is not allowed on a server"
        ));
    }
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| e.to_string())?
            .join(path)
    };
    let real = resolve(&abs);
    if allow.iter().any(|root| real.starts_with(root)) {
        // A hard link is another name for a file that may live anywhere.
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::metadata(&real) {
            if m.is_file() && m.nlink() > 1 {
                return Err(format!(
                    "path '{shown}' refused: the file has {} hard links, so it may also be a file outside the --server-allow list",
                    m.nlink()
                ));
            }
        }
        return Ok(());
    }
    let roots: Vec<String> = allow.iter().map(|r| r.display().to_string()).collect();
    Err(format!(
        "path '{shown}' refused: it resolves to '{}', outside this server's --server-allow list ({})",
        real.display(),
        if roots.is_empty() {
            "empty".to_string()
        } else {
            roots.join(", ")
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_stay_inside_the_allowed_roots() {
        let base = std::env::temp_dir().join(format!("ferrio-guard-{}", std::process::id()));
        let root = base.join("root");
        std::fs::create_dir_all(&root).unwrap();
        let allow = vec![root.canonicalize().unwrap()];
        assert!(within(&root.join("data/new.bin"), &allow).is_ok());
        let e = within(&root.join("../x"), &allow).unwrap_err();
        assert!(e.contains("'..' is not allowed"), "{e}");
        std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
        let e = within(&root.join("out/passwd"), &allow).unwrap_err();
        assert!(e.contains("resolves to '/etc/passwd'"), "{e}");
        assert!(within(Path::new("/tmp/x"), &[])
            .unwrap_err()
            .contains("(empty)"));
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn options_that_run_commands_or_read_logs_are_refused() {
        for k in [
            "exec_prerun",
            "read_iolog",
            "merge_blktrace_file",
            "trigger",
        ] {
            assert!(refused_option(k, false).is_some(), "{k}");
        }
        assert!(refused_option("exec_postrun", true).is_none());
        // Written to the server's private directory and sent back (super::logs).
        for k in [
            "bs",
            "filename",
            "rw",
            "write_barrier",
            "write_bw_log",
            "write_iolog",
        ] {
            assert!(refused_option(k, false).is_none(), "{k}");
        }
        assert!(exec_engine("exec") && exec_engine("external:/x.so") && !exec_engine("sync"));
        assert!(
            net_engine("net")
                && net_engine("netsplice")
                && net_engine("nbd")
                && !net_engine("null")
        );
        assert!(refused_option("verify_state_load", true).is_some());
        assert!(refused_option("verify_state_save", false).is_none());
    }
}
