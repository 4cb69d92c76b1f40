//! Control groups: `cgroup`, `cgroup_weight`, `cgroup_nodelete` (fio's blkio
//! cgroup options; docs/dropin.md, "Control groups"). The runner places each
//! job's threads in the named cgroup (cgroup v1 blkio), or, on cgroup v2, the
//! whole process when every job names the same one.

/// A job's cgroup options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CgroupSpec {
    /// cgroup=NAME: a path below the blkio (v1) or cgroup2 mount.
    pub name: Option<String>,
    /// cgroup_weight=N (100..1000): the cgroup's I/O weight; 0: not set.
    pub weight: u32,
    /// cgroup_nodelete=1: leave a cgroup ferrio created in place after the run.
    pub nodelete: bool,
}

impl CgroupSpec {
    /// The cgroup a job goes in, if any: `cgroup=`, or (weight alone) the job's
    /// name, as fio.
    pub fn target<'a>(&'a self, job: &'a str) -> Option<&'a str> {
        match (&self.name, self.weight) {
            (Some(n), _) => Some(n),
            (None, w) if w > 0 => Some(job),
            _ => None,
        }
    }
}
