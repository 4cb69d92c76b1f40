//! ioengine=posixaio on temporary files: every rw mode with exact counts (buffered
//! and O_DIRECT), writes land, and batching options.

mod common;
mod engines_support;
use common::*;
use engines_support::*;

#[test]
fn every_mode_exact_counts() {
    every_mode("posixaio", &["--iodepth=8"]);
}

#[test]
fn writes_land_at_the_right_offsets() {
    writes_land("posixaio", &["--iodepth=8"]);
}

#[test]
fn batching() {
    let d = scratch();
    for extra in [
        vec![
            "--iodepth=16",
            "--iodepth_batch=4",
            "--iodepth_batch_complete_min=2",
            "--iodepth_batch_complete_max=16",
        ],
        vec!["--iodepth=4", "--iodepth_batch_complete_min=0"],
        vec!["--iodepth=1"],
    ] {
        let file = file_in(d.path(), "b");
        let v = try_run(&job(&file, "posixaio", "randrw", 1 << 20, 4096, &extra))
            .unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        let (ios, _) = counts(&v);
        assert_eq!(ios[0] + ios[1], 256, "{extra:?}");
    }
}
