//! Options added since the first version: a bad value names the option, the value
//! and what is allowed (a file of its own so that tests.rs stays under 800 lines).

use super::*;

/// This round's new options refuse a bad value by naming the option and the value.
#[test]
fn new_options_name_themselves_and_the_value_on_bad_input() {
    for (line, why) in [
        ("pacer_period=abc", "malformed time"),
        ("pacer_tune=1x", "unknown time unit"),
        ("pacer_step=-1", "malformed time"),
        ("sim_delay=zz", "malformed time"),
        ("sim_buffers=-3", "malformed integer"),
        ("sim_buf_cache=x", "malformed integer"),
        ("serialize_overlap=maybe", "malformed boolean"),
        ("verify_state_load=2x", "malformed boolean"),
        (
            "sync_file_range=bogus:4",
            "allowed: wait_before, write, wait_after",
        ),
        ("significant_figures=11", "allowed: 1..10"),
        ("exit_what=some", "allowed: group, stonewall, all"),
        ("numa_mem_policy=bogus", "allowed: default, local"),
        ("lockfile=bogus", "allowed: none, exclusive, readwrite"),
        ("log_compression=1x", "malformed size"),
        ("log_compression_cpus=zz", "malformed CPU list"),
        ("log_store_compressed=maybe", "malformed boolean"),
        ("thp=maybe", "malformed integer"),
        ("gtod_cpu=x", "malformed integer"),
        ("atomic=maybe", "malformed boolean"),
        ("block_error_percentiles=maybe", "malformed boolean"),
        ("create_serialize=maybe", "malformed boolean"),
        ("unique_filename=maybe", "malformed boolean"),
        ("merge_blktrace_file=", "needs a file name"),
        ("merge_blktrace_scalars=50:x", "malformed number 'x'"),
        (
            "merge_blktrace_iters=1:0.5",
            "each value must be at least 1",
        ),
        ("cmdprio_percentage=101", "allowed: 0..100"),
        ("cmdprio_percentage=10,x", "malformed integer"),
        ("cmdprio_class=4", "allowed: 1..3"),
        ("cmdprio_class=0", "allowed: 1..3"),
        ("cmdprio=8", "allowed: 0..7"),
        ("cmdprio=1,9", "allowed: 0..7"),
        (
            "cmdprio_bssplit=4k/10/1",
            "bs/percentage[/class/level[/hint]]",
        ),
        ("cmdprio_bssplit=4x/10", "malformed size"),
        ("uncached=maybe", "malformed boolean"),
        ("cgroup_weight=50", "allowed: 100..1000"),
        ("cgroup_nodelete=maybe", "malformed boolean"),
        ("cgroup=../x", "no '.', '..' or empty parts"),
        ("profile=nope", "tiobench"),
        (
            "random_distribution=sequence:2,x",
            "sequence block index 'x'",
        ),
        (
            "random_distribution=sequence",
            "sequence needs block indices",
        ),
        ("random_sequence_stride=maybe", "malformed boolean"),
        ("priohint=1024", "allowed: 0..1023"),
        ("verify_write_sequence=maybe", "malformed boolean"),
        ("priohint=x", "malformed integer"),
        ("cmdprio_hint=1024", "allowed: 0..1023"),
        ("cmdprio_hint=1,x", "malformed integer"),
        ("cmdprio_bssplit=4k/10/1/1/1/1", "[/class/level[/hint]]"),
    ] {
        let (name, value) = line.split_once('=').unwrap();
        // Engine options are checked under an engine that has them.
        let engine = match name.starts_with("cmdprio") || name == "uncached" {
            true => "ioengine=io_uring",
            false => "ioengine=sim",
        };
        let e = bad(&[engine, line]);
        assert!(
            e.contains(&format!("bad value '{value}' for option '{name}'")) && e.contains(why),
            "{line}: {e}"
        );
    }
}
