//! bs, bsrange, bssplit, blockalign and bs_unaligned: per-direction values and which
//! one wins (a file of its own so that tests.rs stays under 800 lines).

use super::*;

#[test]
fn block_sizes() {
    let j = job(&["bs=8k,32k"]);
    assert_eq!(
        [j.bs[0].min, j.bs[1].min, j.bs[2].min],
        [8192, 32768, 32768]
    );
    let j = job(&["bs=8k,32k,"]);
    assert_eq!([j.bs[0].min, j.bs[1].min, j.bs[2].min], [8192, 32768, 4096]);
    let j = job(&["bs=,8k"]);
    assert_eq!([j.bs[0].min, j.bs[1].min, j.bs[2].min], [4096, 8192, 8192]);
    let j = job(&["blocksize=64k"]);
    assert_eq!(
        j.bs[2],
        BlockSize {
            min: 65536,
            max: 65536,
            split: vec![]
        }
    );
    let j = job(&["bsrange=1k-4k,2k-8k"]);
    assert_eq!(
        (j.bs[0].min, j.bs[0].max, j.bs[1].min, j.bs[1].max),
        (1024, 4096, 2048, 8192)
    );
    let j = job(&["blocksize_range=64k:4k"]);
    assert_eq!((j.bs[0].min, j.bs[0].max), (4096, 65536));
    let j = job(&["bssplit=4k/10:64k/50:32k/40"]);
    assert_eq!(
        j.bs[1],
        BlockSize {
            min: 4096,
            max: 65536,
            split: vec![(4096, 10), (32768, 40), (65536, 50)]
        }
    );
    let j = job(&["bssplit=2k/50:4k/50,4k/90:8k/10"]);
    assert_eq!(j.bs[0].split, vec![(2048, 50), (4096, 50)]);
    assert_eq!(j.bs[2].split, vec![(4096, 90), (8192, 10)]);
    // bssplit wins over bs in either order, and over an earlier bsrange.
    let j = job(&["bssplit=4k/50:16k/50", "bs=8k"]);
    assert_eq!((j.bs[0].min, j.bs[0].max), (4096, 16384));
    let j = job(&["bsrange=1k-2k", "bssplit=,4k/50:16k/50"]);
    assert_eq!(
        (j.bs[0].min, j.bs[0].max, j.bs[1].min, j.bs[1].max),
        (1024, 2048, 4096, 16384)
    );
    // A bsrange after a bssplit sets min and max (fio's header shows them, its
    // sizes are the split's cut to them); the split stays.
    let j = job(&["bssplit=4k/50:8k/50", "bsrange=4k-64k"]);
    assert_eq!((j.bs[0].min, j.bs[0].max), (4096, 65536));
    assert_eq!(j.bs[0].split, vec![(4096, 50), (8192, 50)]);
    // bsrange wins over bs in either order (fio's bs fills only an unset range),
    // per direction.
    for lines in [["bsrange=4k-16k", "bs=8k"], ["bs=8k", "bsrange=4k-16k"]] {
        let j = job(&lines);
        assert_eq!(
            (j.bs[0].min, j.bs[0].max, j.bs[2].max),
            (4096, 16384, 16384)
        );
    }
    let j = job(&["bsrange=4k-16k,", "bs=8k,32k"]);
    assert_eq!(
        (j.bs[0].min, j.bs[0].max, j.bs[1].min, j.bs[1].max),
        (4096, 16384, 32768, 32768)
    );
    let j = job(&["ba=512,4k"]);
    assert_eq!(j.blockalign, [512, 4096, 4096]);
    assert!(job(&["bs_unaligned"]).bs_unaligned);
    assert!(job(&["blocksize_unaligned=1"]).bs_unaligned);
    assert!(bad(&["bs=0"]).contains("block size must be > 0"));
    assert!(bad(&["bs=4k,8k,16k,32k"]).contains("too many"));
    assert!(bad(&["bsrange=0-4k"]).contains("block size must be > 0"));
    assert!(bad(&["bssplit=4k/50:8k/60"]).contains("more than 100"));
}

#[test]
fn bsrange_parts_are_ranges_as_fio_parses_them() {
    // fio 3.33: `bsrange=4k` is "failed parsing bsrange=4k" (one size is not a
    // range); ferrio says so and points at bs=.
    let e = bad(&["bsrange=4k"]);
    assert!(
        e.contains("'4k' is one size, not a range") && e.contains("bs="),
        "{e}"
    );
    assert!(bad(&["bsrange=,8k"]).contains("not a range"));
    // A part that fails beside one that parses is skipped, as fio skips it: fio
    // 3.33 prints `bs=(R) 4096B-8192B, (W) 4096B-4096B` for `bsrange=4k-8k,8k`.
    let j = job(&["bsrange=4k-8k,8k"]);
    assert_eq!((j.bs[0].min, j.bs[0].max), (4096, 8192));
    assert_eq!((j.bs[1].min, j.bs[1].max), (4096, 4096));
    assert_eq!((j.bs[2].min, j.bs[2].max), (4096, 4096));
    assert!(
        j.warnings
            .iter()
            .any(|w| w.contains("bsrange=4k-8k,8k") && w.contains("'8k' is one size")),
        "{:?}",
        j.warnings
    );
    let j = job(&["bsrange=8k,4k-8k"]);
    assert_eq!((j.bs[0].min, j.bs[0].max), (4096, 4096));
    assert_eq!((j.bs[1].min, j.bs[1].max), (4096, 8192));
    assert_eq!((j.bs[2].min, j.bs[2].max), (4096, 8192));
}
