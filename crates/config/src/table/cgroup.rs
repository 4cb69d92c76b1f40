//! Options: control groups (see `ext/cgroup.rs`, docs/dropin.md).

use super::{opt, Category as C, Kind as K, OptSpec};

/// A cgroup path below the mount: relative, no `..` (it must stay below the
/// controller's mount) and no empty part.
fn cgroup_name(v: &str) -> Result<String, String> {
    let v = v.trim().trim_start_matches('/');
    if v.is_empty() {
        return Err("needs a cgroup name (a path below the cgroup mount)".into());
    }
    if v.split('/').any(|p| p == ".." || p == "." || p.is_empty()) {
        return Err("must be a path below the cgroup mount: no '.', '..' or empty parts".into());
    }
    Ok(v.to_string())
}

pub const CGROUP: &[OptSpec] = &[
    opt("cgroup", K::Str, C::Process, "Add job to cgroup of this name (a path below the blkio v1 or cgroup2 mount; made if missing, removed after the run unless cgroup_nodelete)", |j, _, v| {
        j.cgroup.name = Some(cgroup_name(v)?);
        Ok(())
    }),
    opt("cgroup_weight", K::Int, C::Process, "Use given weight for cgroup (blkio.weight on cgroup v1, io.weight on v2); without cgroup=, the job's own cgroup is named after the job", |j, c, v| {
        let n = c.uint(v)?;
        if !(100..=1000).contains(&n) {
            return Err("allowed: 100..1000".into());
        }
        j.cgroup.weight = n as u32;
        Ok(())
    }),
    opt("cgroup_nodelete", K::Bool, C::Process, "Do not delete cgroups after job completion", |j, c, v| {
        j.cgroup.nodelete = c.bool(v)?;
        Ok(())
    })
    .def("0"),
];
