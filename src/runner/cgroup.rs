//! `cgroup`, `cgroup_weight`, `cgroup_nodelete`: jobs in blkio control groups, as
//! fio's cgroup.c places them (docs/dropin.md, "Control groups").
//!
//! The controller is fio's: the first `/proc/mounts` entry that is a cgroup v1
//! mount with `blkio` in its options, or a cgroup2 mount. A job's cgroup is
//! `MOUNT/NAME` (`cgroup=NAME`, or the job's name with `cgroup_weight` alone),
//! made (mode 0755) when missing and then removed after the run unless the job
//! says `cgroup_nodelete=1`; one that existed stays.
//!
//! ferrio's jobs are threads of one process. On cgroup v1 a thread can sit in its
//! own cgroup: each job thread writes its thread id to the cgroup's `tasks` (and
//! the weight to `blkio.weight`, or `blkio.bfq.weight` where BFQ provides it), and
//! back to the mount's own `tasks` when it ends. cgroup v2 places whole processes
//! (its io controller is not threaded), so there every job of the run must name
//! the same cgroup and weight: the process moves in before the first job starts
//! (the weight written to `io.weight`) and back to where it was after the last.
//! Anything else is refused before any job starts, saying why.
//!
//! Every cgroup made is removed when the run ends, however it ends (an error, a
//! signal: the run's [`Cgroups`] is dropped once its threads are joined).

use super::plan::ThreadPlan;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The blkio controller's mount.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    pub path: PathBuf,
    pub v2: bool,
}

/// fio's choice among `/proc/mounts` lines: the first v1 mount with blkio, or
/// the first cgroup2 mount, whichever comes first.
pub fn find_mount(mounts: &str) -> Option<Mount> {
    mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (dir, kind, opts) = (f.get(1)?, f.get(2)?, f.get(3)?);
        let dir = PathBuf::from(dir.replace("\\040", " "));
        match *kind {
            "cgroup" if opts.split(',').any(|o| o == "blkio") => Some(Mount {
                path: dir,
                v2: false,
            }),
            "cgroup2" => Some(Mount {
                path: dir,
                v2: true,
            }),
            _ => None,
        }
    })
}

/// The run's control groups: the cgroups it made (to remove) and, on v2, where
/// the process was before it moved.
pub struct Cgroups {
    mount: Mount,
    /// Made by this run: (path, keep it).
    made: Mutex<Vec<(PathBuf, bool)>>,
    /// v2: the process's cgroup before the run.
    origin: Option<PathBuf>,
}

fn err(what: &str, path: &Path, e: std::io::Error) -> String {
    format!("cgroup: {what} {}: {e}", path.display())
}

impl Cgroups {
    /// The run's cgroups, or None when no job names one. On cgroup v2 the process
    /// moves into the jobs' cgroup here.
    pub fn prepare(threads: &[ThreadPlan]) -> Result<Option<Cgroups>, String> {
        let wanted: Vec<(&str, &ThreadPlan)> = threads
            .iter()
            .filter_map(|p| p.spec.cgroup.target(&p.spec.name).map(|t| (t, p)))
            .collect();
        if wanted.is_empty() {
            return Ok(None);
        }
        let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
        let mount = find_mount(&mounts).ok_or_else(|| {
            "cgroup: no blkio cgroup (v1) or cgroup2 file system is mounted (fio: cgroup blkio does not appear to be mounted)".to_string()
        })?;
        let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        Cgroups::prepare_at(mount, &own, threads)
    }

    /// [`Cgroups::prepare`] with the mount and `/proc/self/cgroup` given (tests).
    pub fn prepare_at(
        mount: Mount,
        own: &str,
        threads: &[ThreadPlan],
    ) -> Result<Option<Cgroups>, String> {
        let mut cg = Cgroups {
            mount,
            made: Mutex::new(Vec::new()),
            origin: None,
        };
        if !cg.mount.v2 {
            return Ok(Some(cg));
        }
        // v2: one cgroup (and weight) for the whole process.
        let targets: Vec<(Option<&str>, u32)> = threads
            .iter()
            .map(|p| (p.spec.cgroup.target(&p.spec.name), p.spec.cgroup.weight))
            .collect();
        let first = targets[0];
        if let Some((i, t)) = targets.iter().enumerate().find(|(_, t)| **t != first) {
            let show = |t: &(Option<&str>, u32)| match t {
                (None, _) => "no cgroup".to_string(),
                (Some(n), 0) => format!("cgroup '{n}'"),
                (Some(n), w) => format!("cgroup '{n}' with weight {w}"),
            };
            return Err(format!(
                "cgroup: job '{}' asks for {} and job '{}' for {}, but this system's blkio controller is cgroup v2 ({}), which places whole processes and ferrio's jobs are threads of one process; on cgroup v2 every job of a run must name the same cgroup and cgroup_weight (run the other jobs in another ferrio), or use a cgroup v1 blkio mount, where each job has its own",
                threads[0].spec.name,
                show(&first),
                threads[i].spec.name,
                show(t),
                cg.mount.path.display()
            ));
        }
        let (Some(name), weight) = first else {
            return Ok(None);
        };
        let nodelete = threads[0].spec.cgroup.nodelete;
        let dir = cg.make(name, nodelete)?;
        if weight > 0 {
            let f = dir.join("io.weight");
            if !f.exists() {
                return Err(format!(
                    "cgroup_weight: {} has no io.weight: the io controller is not enabled for it (add +io to its parent's cgroup.subtree_control)",
                    dir.display()
                ));
            }
            std::fs::write(&f, weight.to_string()).map_err(|e| err("cannot write", &f, e))?;
        }
        // Where the process is now ("0::/path"), to go back there.
        let here = own
            .lines()
            .find_map(|l| l.strip_prefix("0::"))
            .unwrap_or("/")
            .trim_start_matches('/');
        cg.origin = Some(cg.mount.path.join(here));
        write_id(&dir.join("cgroup.procs"), std::process::id())?;
        Ok(Some(cg))
    }

    /// Make `MOUNT/name` if missing (noting it for removal unless `keep`).
    fn make(&self, name: &str, keep: bool) -> Result<PathBuf, String> {
        let dir = self.mount.path.join(name);
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755));
                self.made
                    .lock()
                    .expect("cgroup list")
                    .push((dir.clone(), keep));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(err("cannot make", &dir, e)),
        }
        Ok(dir)
    }

    /// A job thread's start: on v1, into its cgroup (made if missing) with its
    /// weight; the blkio cgroup it was in comes back, for [`Cgroups::leave`].
    /// Nothing on v2 (the process is already there).
    pub fn enter(&self, plan: &ThreadPlan) -> Result<Option<PathBuf>, String> {
        let Some(name) = plan.spec.cgroup.target(&plan.spec.name) else {
            return Ok(None);
        };
        if self.mount.v2 {
            return Ok(None);
        }
        let own = std::fs::read_to_string("/proc/thread-self/cgroup").unwrap_or_default();
        let origin = own.lines().find_map(|l| {
            let (_, rest) = l.split_once(':')?;
            let (ctrl, path) = rest.split_once(':')?;
            ctrl.split(',')
                .any(|c| c == "blkio")
                .then(|| self.mount.path.join(path.trim_start_matches('/')))
        });
        let dir = self.make(name, plan.spec.cgroup.nodelete)?;
        let weight = plan.spec.cgroup.weight;
        if weight > 0 {
            let f = ["blkio.weight", "blkio.bfq.weight"]
                .iter()
                .map(|n| dir.join(n))
                .find(|f| f.exists())
                .ok_or_else(|| {
                    format!(
                        "cgroup_weight: {} has neither blkio.weight nor blkio.bfq.weight: this kernel's blkio controller gives no weights here (they come with the BFQ I/O scheduler)",
                        dir.display()
                    )
                })?;
            std::fs::write(&f, weight.to_string()).map_err(|e| err("cannot write", &f, e))?;
        }
        write_id(&dir.join("tasks"), crate::sys::affinity::thread_id())?;
        Ok(Some(origin.unwrap_or_else(|| self.mount.path.clone())))
    }

    /// A job thread's end (v1): back to the blkio cgroup it came from (fio moves it
    /// to the mount's root).
    pub fn leave(&self, origin: Option<PathBuf>) {
        if let Some(dir) = origin {
            let _ = write_id(&dir.join("tasks"), crate::sys::affinity::thread_id());
        }
    }

    /// The run's results when its cgroups cannot be set up: every thread has the
    /// error, none ran.
    pub fn refused(threads: Vec<ThreadPlan>, why: String) -> super::RunResults {
        let threads = threads
            .into_iter()
            .map(|p| {
                let r = super::recorder::ThreadResult {
                    error: Some((libc::EINVAL, why.clone())),
                    ..Default::default()
                };
                (p, r)
            })
            .collect();
        super::RunResults {
            threads,
            wall_ms: 0,
        }
    }

    /// The cgroups this run made, deepest last (for tests).
    pub fn made(&self) -> Vec<PathBuf> {
        self.made
            .lock()
            .expect("cgroup list")
            .iter()
            .map(|m| m.0.clone())
            .collect()
    }
}

impl Drop for Cgroups {
    /// Back where the process was (v2), then every cgroup made and not kept removed.
    fn drop(&mut self) {
        if let Some(origin) = &self.origin {
            let _ = write_id(&origin.join("cgroup.procs"), std::process::id());
        }
        let made = std::mem::take(&mut *self.made.lock().unwrap_or_else(|e| e.into_inner()));
        for (dir, keep) in made.iter().rev() {
            if !keep {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
}

/// Write a process or thread id to a cgroup's `tasks` or `cgroup.procs`.
fn write_id(file: &Path, id: u32) -> Result<(), String> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .map_err(|e| err("cannot open", file, e))?;
    f.write_all(id.to_string().as_bytes())
        .map_err(|e| err("cannot move into", file, e))
}

#[cfg(test)]
#[path = "cgroup_tests.rs"]
mod tests;
