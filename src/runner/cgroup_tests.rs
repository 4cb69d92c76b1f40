//! The controller's choice, and cgroup v2's one-cgroup rule on a directory tree
//! standing in for a cgroup2 mount (its files are plain files here).

use super::*;
use crate::runner::planner::plan;
use ferrio_config::builder::Overrides;
use ferrio_config::jobfile::{parse_text, Env};

fn threads(text: &str) -> Vec<ThreadPlan> {
    let sections = parse_text(text, Path::new("t.fio"), &Env::system()).unwrap();
    let jobs = ferrio_config::session::assemble(&[], &[sections], &[], &Overrides::default())
        .unwrap()
        .jobs;
    plan(&jobs).unwrap()
}

#[test]
fn the_controller_is_fios_first_blkio_or_cgroup2_mount() {
    let both = "tmpfs /sys/fs/cgroup tmpfs rw 0 0\ncgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\ncgroup /sys/fs/cgroup/blkio cgroup rw,relatime,blkio 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n";
    assert_eq!(
        find_mount(both),
        Some(Mount {
            path: "/sys/fs/cgroup/blkio".into(),
            v2: false
        })
    );
    let v2 = "cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\ncgroup /x cgroup rw,blkio 0 0\n";
    assert_eq!(
        find_mount(v2),
        Some(Mount {
            path: "/sys/fs/cgroup".into(),
            v2: true
        })
    );
    // blkiox is not blkio; no mount at all.
    assert_eq!(
        find_mount("cgroup /y cgroup rw,blkiox 0 0\nproc /proc proc rw 0 0\n"),
        None
    );
}

const JOBS: &str = "[global]\nioengine=null\nsize=4k\n";

#[test]
fn on_cgroup_v2_all_jobs_share_one_cgroup_or_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let mount = Mount {
        path: d.path().to_path_buf(),
        v2: true,
    };
    let t = threads(&format!("{JOBS}[a]\ncgroup=fa\n[b]\ncgroup=fb\n"));
    let e = Cgroups::prepare_at(mount.clone(), "0::/\n", &t)
        .err()
        .unwrap();
    assert!(
        e.contains("job 'a' asks for cgroup 'fa' and job 'b' for cgroup 'fb'")
            && e.contains("cgroup v2")
            && e.contains("cgroup v1"),
        "{e}"
    );
    assert!(!d.path().join("fa").exists(), "nothing made when refused");
    let t = threads(&format!("{JOBS}[a]\ncgroup=fa\n[b]\n"));
    let e = Cgroups::prepare_at(mount.clone(), "0::/\n", &t)
        .err()
        .unwrap();
    assert!(e.contains("job 'b' for no cgroup"), "{e}");
    let t = threads(&format!(
        "{JOBS}[a]\ncgroup=fa\ncgroup_weight=200\n[b]\ncgroup=fa\n"
    ));
    let e = Cgroups::prepare_at(mount.clone(), "0::/\n", &t)
        .err()
        .unwrap();
    assert!(e.contains("with weight 200"), "{e}");

    // The same cgroup (and weight) everywhere: the process moves in; io.weight is
    // written; at the end it goes back to where it was and the cgroup is removed.
    std::fs::create_dir(d.path().join("home")).unwrap();
    std::fs::write(d.path().join("home/cgroup.procs"), "").unwrap();
    let t = threads(&format!(
        "{JOBS}cgroup=fa\ncgroup_weight=300\n[a]\n[b]\nnumjobs=2\n"
    ));
    // A cgroup2 mount gives every new cgroup its files; here the test makes them,
    // so the cgroup exists (and is kept) already.
    std::fs::create_dir(d.path().join("fa")).unwrap();
    std::fs::write(d.path().join("fa/io.weight"), "").unwrap();
    std::fs::write(d.path().join("fa/cgroup.procs"), "").unwrap();
    let cg = Cgroups::prepare_at(mount.clone(), "0::/home\n", &t)
        .unwrap()
        .unwrap();
    let pid = std::process::id().to_string();
    assert_eq!(
        std::fs::read_to_string(d.path().join("fa/cgroup.procs")).unwrap(),
        pid
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("fa/io.weight")).unwrap(),
        "300"
    );
    assert!(
        cg.enter(&t[0]).unwrap().is_none(),
        "threads stay with the process"
    );
    drop(cg);
    assert_eq!(
        std::fs::read_to_string(d.path().join("home/cgroup.procs")).unwrap(),
        pid
    );
    assert!(d.path().join("fa").exists(), "it existed before: kept");

    // A weight where the io controller is off: refused by name.
    let t = threads(&format!("{JOBS}[a]\ncgroup=fw\ncgroup_weight=100\n"));
    let e = Cgroups::prepare_at(mount, "0::/\n", &t).err().unwrap();
    assert!(
        e.contains("has no io.weight") && e.contains("subtree_control"),
        "{e}"
    );
    assert!(
        !d.path().join("fw").exists(),
        "the cgroup made is removed on the error"
    );
}
