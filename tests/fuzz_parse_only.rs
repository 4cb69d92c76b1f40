//! Fuzzing the whole pre-I/O path of the binary: random jobs built from the options the
//! planner checks (sizes, offsets, block sizes, depths, engines, CPU sets, devices) run
//! with --parse-only. Whatever the input, ferrio must exit 0 or 1 (never panic, never
//! die on a signal) and --parse-only must create nothing.
//!
//! FERRIO_FUZZ_CASES sets the number of cases (small by default so the normal test run
//! stays short; scripts/fuzz runs many), FERRIO_FUZZ_SEED replays a failing run.

mod common;
use common::*;

const OPTIONS: &[(&str, &[&str])] = &[
    (
        "size",
        &[
            "0", "1", "4k", "8k", "1m", "1g", "16e", "50%", "101%", "-1", "1t",
        ],
    ),
    (
        "bs",
        &["512", "4k", "8k", "1m", "0", "4k,8k", "4k,,1m", "3"],
    ),
    ("bsrange", &["4k-8k", "8k-4k", "1-1g"]),
    ("bssplit", &["4k/50:8k/50", "4k/10:1m/", "512/100,4k/100"]),
    ("blockalign", &["0", "1", "4k", "3"]),
    ("offset", &["0", "4k", "1g", "50%", "100%", "16e"]),
    ("offset_increment", &["0", "4k", "1t"]),
    ("filesize", &["1m", "4k-1m", "0", "1g-1k"]),
    ("nrfiles", &["1", "2", "1000"]),
    ("numjobs", &["1", "2", "4096", "64"]),
    ("iodepth", &["1", "16", "65536", "1m", "4096k", "32769"]),
    (
        "ioengine",
        &[
            "psync", "sync", "libaio", "io_uring", "null", "mmap", "sim", "posixaio",
        ],
    ),
    (
        "rw",
        &[
            "read",
            "write",
            "randrw",
            "trim",
            "trimwrite",
            "read:-8k",
            "randread:3",
        ],
    ),
    ("io_size", &["0", "1m", "1p"]),
    ("number_ios", &["0", "1", "1000"]),
    ("time_based", &["0", "1"]),
    ("runtime", &["0", "1", "1h"]),
    ("cpus_allowed", &["0", "0-1", "999", "1-0", "0,65535"]),
    ("cpus_allowed_policy", &["shared", "split"]),
    (
        "filename",
        &[
            "/dev/null",
            "/dev/zero",
            "/dev/loop-none",
            "f1",
            "f1:f2",
            "/proc/self/status",
        ],
    ),
    ("stonewall", &["1"]),
    ("allow_mounted_write", &["0", "1"]),
    ("mem", &["malloc", "mmap", "shm", "mmaphuge"]),
    ("iomem_align", &["0", "4k", "3"]),
    ("fill_device", &["0", "1"]),
    ("direct", &["0", "1"]),
    ("filename_format", &["$jobname.$jobnum", "f.$filenum", "x"]),
    ("steadystate", &["iops:10%", "bw_slope:1%"]),
    ("ss_dur", &["10s", "0"]),
    ("clocksource", &["virtual", "cpu", "gettimeofday"]),
    (
        "continue_on_error",
        &["all", "io", "none", "1", "sometimes"],
    ),
    (
        "ignore_error",
        &["EIO", ",ENOSPC", "5:EWHAT", ",,EILSEQ", "0"],
    ),
    ("error_dump", &["0", "1"]),
    ("exitall_on_error", &["1"]),
];

/// xorshift64*: a tiny deterministic generator, so a seed replays a run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn parse_only_never_panics_and_never_creates_files() {
    let cases = env_u64("FERRIO_FUZZ_CASES").unwrap_or(60);
    let seed = env_u64("FERRIO_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    }) | 1;
    let mut rng = Rng(seed);
    let d = scratch();
    let dir = path_str(d.path());
    for case in 0..cases {
        let mut args = vec!["--parse-only".to_string()];
        for j in 0..1 + rng.below(3) {
            args.push(format!("--name=j{j}"));
            args.push(format!("--directory={dir}"));
            for _ in 0..rng.below(8) {
                let (k, vals) = OPTIONS[rng.below(OPTIONS.len())];
                args.push(format!("--{k}={}", vals[rng.below(vals.len())]));
            }
        }
        let out = ferrio().args(&args).current_dir(d.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let replay = format!("case {case}, replay with FERRIO_FUZZ_SEED={seed}: ferrio {args:?}");
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)),
            "{replay}\nexit {:?}\n{stderr}",
            out.status
        );
        assert!(!stderr.contains("panicked"), "{replay}\n{stderr}");
        if out.status.code() == Some(1) {
            assert!(stderr.starts_with("ferrio: "), "{replay}\n{stderr}");
        }
        let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().flatten().collect();
        assert!(left.is_empty(), "{replay}\n--parse-only created {left:?}");
    }
}
