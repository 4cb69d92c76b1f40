//! cmdprio_* and uncached: per-direction values, fio's rules, engine refusals (a
//! file of its own so that tests.rs stays under 800 lines).

use super::*;

#[test]
fn cmdprio_options_fill_the_prio_spec_per_direction() {
    let j = job(&[
        "ioengine=libaio",
        "cmdprio_percentage=10,20",
        "cmdprio=3",
        "cmdprio_class=2,3",
    ]);
    assert_eq!(j.prio.percentage, [10, 20]);
    assert_eq!(j.prio.level, [3, 3]);
    assert_eq!(j.prio.class, [2, 3]);
    let j = job(&[
        "ioengine=io_uring",
        "cmdprio_bssplit=4k/10:64k/50/1/2,8k/100",
    ]);
    let s = j.prio.bssplit.unwrap();
    assert_eq!(s[0].len(), 2);
    assert_eq!(
        (s[0][1].bs, s[0][1].perc, s[0][1].prio),
        (65536, 50, Some((1 << 13) | 2))
    );
    assert_eq!((s[1][0].bs, s[1][0].perc, s[1][0].prio), (8192, 100, None));
}

#[test]
fn cmdprio_and_uncached_are_refused_with_engines_that_lack_them() {
    let e = bad(&["ioengine=psync", "cmdprio_percentage=10"]);
    assert!(
        e.contains("'cmdprio_percentage'") && e.contains("io_uring, libaio"),
        "{e}"
    );
    let e = bad(&["ioengine=libaio", "uncached=1"]);
    assert!(
        e.contains("'uncached'") && e.contains("io_uring, pvsync2"),
        "{e}"
    );
    let e = bad(&[
        "ioengine=io_uring",
        "cmdprio_percentage=10",
        "cmdprio_bssplit=4k/10",
    ]);
    assert!(e.contains("mutually exclusive"), "{e}");
    let e = bad(&["ioengine=io_uring", "cmdprio_bssplit=4k/60:4k/50/1/1"]);
    assert!(e.contains("exceeds 100"), "{e}");
}
