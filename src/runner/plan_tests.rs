//! Planning rules pinned by mutation testing (docs/testing.md): thread numbers, per-file
//! sizes, the refusals of jobs with nothing to do, and the clones' subjob numbers.

use super::plan::ThreadPlan;
use super::planner::{check_work, plan};
use ferrio_config::builder::Overrides;
use ferrio_config::jobfile::{parse_text, Env};
use ferrio_config::JobSpec;
use std::path::Path;

fn jobs(text: &str) -> Vec<JobSpec> {
    let sections = parse_text(text, Path::new("t.fio"), &Env::system()).unwrap();
    ferrio_config::session::assemble(&[], &[sections], &[], &Overrides::default())
        .unwrap()
        .jobs
}

fn planned(text: &str) -> Result<Vec<ThreadPlan>, String> {
    plan(&jobs(text))
}

#[test]
fn threads_are_numbered_from_1_in_creation_order() {
    // fio numbers threads from 1, clones right after their job: the seeds depend on it.
    let t =
        planned("[a]\nioengine=null\nsize=1m\nnumjobs=2\n[b]\nioengine=null\nsize=1m\n").unwrap();
    let numbers: Vec<u64> = t.iter().map(|p| p.seeds.thread_number).collect();
    assert_eq!(numbers, [1, 2, 3]);
}

#[test]
fn size_is_shared_between_a_jobs_files() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[a]\nioengine=psync\nrw=read\ndirectory={}\nsize=1m\nnrfiles=2\n",
        dir.path().display()
    );
    let t = planned(&text).unwrap();
    let lens: Vec<u64> = t[0].files.iter().map(|f| f.region.len).collect();
    assert_eq!(lens, [512 << 10, 512 << 10]);
    assert!(t[0].files.iter().all(|f| f.path.starts_with(dir.path())));
    assert_eq!(t[0].pass_bytes, 1 << 20);
}

#[test]
fn an_offset_at_the_end_of_an_existing_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![0u8; 64 << 10]).unwrap();
    let text = format!(
        "[a]\nioengine=psync\nrw=read\nfilename={}\noffset=64k\n",
        path.display()
    );
    let e = planned(&text).unwrap_err();
    assert!(e.contains("at or past the end"), "{e}");
}

#[test]
fn a_job_with_nothing_to_do_is_refused_unless_something_else_ends_it() {
    let one = |t: &str| jobs(&format!("[a]\nioengine=null\n{t}\n")).remove(0);
    assert!(check_work(&one("size=1m"), 0)
        .unwrap_err()
        .contains("nothing to do"));
    assert!(check_work(&one("size=1m"), 4096).is_ok());
    assert!(check_work(&one("size=1m\ntime_based\nruntime=1"), 0).is_ok());
    assert!(check_work(&one("size=1m\nnumber_ios=3"), 0).is_ok());
}

#[test]
fn a_region_may_end_at_the_largest_file_offset_but_not_past_it() {
    // The largest offset a file may have is 2^63 - 1 (off_t).
    let last = u64::MAX / 2;
    let job = |offset: u64| format!("[a]\nioengine=null\nsize=4k\noffset={offset}\n");
    let t = planned(&job(last - 4096)).unwrap();
    assert_eq!(t[0].files[0].region.start + t[0].files[0].region.len, last);
    let e = planned(&job(last - 4095)).unwrap_err();
    assert!(e.contains("beyond the largest file offset"), "{e}");
}

#[test]
fn a_size_not_a_multiple_of_the_block_size_leaves_a_tail() {
    // No I/O starts in the last partial block; the file is still laid out whole.
    let t = planned("[a]\nioengine=null\nsize=10k\nbs=4k\n").unwrap();
    let f = &t[0].files[0];
    assert_eq!((f.region.len, f.tail), (8192, 2048));
    let e = planned("[a]\nioengine=null\nsize=2k\nbs=4k\n").unwrap_err();
    assert!(e.contains("smaller than the minimum block size"), "{e}");
}

#[test]
fn clones_take_fios_subjob_numbers_for_names_and_offsets() {
    // fio makes a job's clones counting down: the thread after the job is subjob
    // numjobs-1, the last one 1. Its file names ($jobnum) and offset_increment follow.
    let t = planned(
        "[j]\nioengine=null\nsize=64k\nnumjobs=4\noffset=4k\noffset_increment=1m\n\
         filename_format=$jobname.$jobnum\n",
    )
    .unwrap();
    let names: Vec<String> = t
        .iter()
        .map(|p| p.files[0].path.display().to_string())
        .collect();
    assert_eq!(names, ["j.0", "j.3", "j.2", "j.1"]);
    let starts: Vec<u64> = t.iter().map(|p| p.files[0].region.start).collect();
    assert_eq!(
        starts,
        [
            4 << 10,
            (3 << 20) + 4096,
            (2 << 20) + 4096,
            (1 << 20) + 4096
        ]
    );
    let subjobs: Vec<u32> = t.iter().map(|p| p.subjob()).collect();
    assert_eq!(subjobs, [0, 3, 2, 1]);
}
