//! `mpirun --oversubscribe -n 8 ferrio --mpi job.fio` on this machine: every rank runs
//! the job, rank 0 prints each rank and an "All clients" aggregate that is the exact sum
//! (bytes, I/Os, json+ histogram bins), and a rank that fails is reported with a
//! non-zero exit. These need a build with `--features mpi` (CI runs them in a step of
//! their own) and OpenMPI's mpirun; without the feature, `--mpi` says how to get it.

mod common;

#[cfg(not(feature = "mpi"))]
#[test]
fn without_the_feature_mpi_says_how_to_build_it() {
    let dir = common::scratch();
    let job = common::file_in(dir.path(), "j.fio");
    std::fs::write(&job, "[j]\nioengine=null\nsize=1m\n").unwrap();
    let out = common::ferrio().args(["--mpi", &job]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("built without MPI") && err.contains("--features mpi"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::common;
    use std::process::Output;

    const RANKS: u64 = 8;

    fn u(v: &serde_json::Value) -> u64 {
        v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
    }

    /// `mpirun -n 8 ferrio --mpi ARGS` in `dir`; None (after a visible skip) without mpirun.
    fn mpirun(dir: &std::path::Path, args: &[&str]) -> Option<Output> {
        let mpirun = common::skip::tool_or_skip("mpirun")?;
        let out = std::process::Command::new(mpirun)
            .args(["--allow-run-as-root", "--oversubscribe", "-n"])
            .arg(RANKS.to_string())
            .arg(env!("CARGO_BIN_EXE_ferrio"))
            .arg("--mpi")
            .args(args)
            .current_dir(dir)
            // Open MPI keeps a session directory per user under TMPDIR and removes it
            // when its mpirun ends: two tests' mpiruns sharing /tmp race on it
            // ("mkdir /tmp/ompi.vm.0/pid.N: No such file or directory"). Each gets
            // its own.
            .env("TMPDIR", dir)
            .output()
            .unwrap();
        Some(out)
    }

    #[test]
    fn eight_ranks_sum_exactly_with_percentiles_from_merged_histograms() {
        let dir = common::scratch();
        std::fs::write(
            dir.path().join("j.fio"),
            "[a]\nioengine=null\nrw=randread\nbs=4k\nsize=1m\n\
             [b]\nioengine=null\nrw=write\nbs=8k\nsize=2m\n",
        )
        .unwrap();
        let Some(out) = mpirun(dir.path(), &["j.fio", "--output-format=json+"]) else {
            return;
        };
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        let v = common::parse_json(&out.stdout);
        let stats = v["client_stats"].as_array().unwrap();
        // Two jobs per rank, in rank order, then All clients.
        assert_eq!(stats.len() as u64, 2 * RANKS + 1, "{v}");
        let (ranks, all) = stats.split_at(stats.len() - 1);
        let all = &all[0];
        assert_eq!(all["jobname"], "All clients");
        for (i, s) in ranks.iter().enumerate() {
            let host = s["hostname"].as_str().unwrap();
            assert!(host.starts_with(&format!("rank{}@", i / 2)), "{host}");
        }
        for dir in ["read", "write"] {
            let ios: u64 = ranks.iter().map(|s| u(&s[dir]["total_ios"])).sum();
            let bytes: u64 = ranks.iter().map(|s| u(&s[dir]["io_bytes"])).sum();
            assert_eq!(u(&all[dir]["total_ios"]), ios, "{dir}");
            assert_eq!(u(&all[dir]["io_bytes"]), bytes, "{dir}");
            let mut summed = std::collections::BTreeMap::<String, u64>::new();
            for s in ranks {
                if let Some(bins) = s[dir]["clat_ns"]["bins"].as_object() {
                    for (k, n) in bins {
                        *summed.entry(k.clone()).or_default() += u(n);
                    }
                }
            }
            let got: std::collections::BTreeMap<String, u64> = all[dir]["clat_ns"]["bins"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, n)| (k.clone(), u(n)))
                .collect();
            assert_eq!(got, summed, "{dir} bins");
        }
        // Every rank ran all of it: 256 reads of 4k, 2 MiB written, each.
        assert_eq!(u(&all["read"]["total_ios"]), RANKS * 256);
        assert_eq!(u(&all["write"]["io_bytes"]), RANKS * 2 * 1024 * 1024);
        assert!(v["start_skew_ms"].as_f64().is_some(), "{v}");
        assert!(v.get("client_errors").is_none(), "{v}");
    }

    #[test]
    fn a_rank_that_fails_is_reported_and_the_exit_is_non_zero() {
        let dir = common::scratch();
        // Each rank writes into its own directory; rank 3's is a file in the way, so
        // the directory its file name needs cannot be made (as fio, ferrio makes a
        // file name's missing directories) and its run is refused. (A file the
        // system would not lay out fails only its job: tests/file_safety.rs.)
        for r in (0..RANKS).filter(|&r| r != 3) {
            std::fs::create_dir(dir.path().join(format!("r{r}"))).unwrap();
        }
        std::fs::write(dir.path().join("r3"), b"not a directory").unwrap();
        std::fs::write(
            dir.path().join("j.fio"),
            "[w]\nioengine=sync\nrw=write\nbs=4k\nsize=64k\n\
             filename=r${OMPI_COMM_WORLD_RANK}/sub/data\n",
        )
        .unwrap();
        let Some(out) = mpirun(dir.path(), &["j.fio", "--output-format=hosts-json"]) else {
            return;
        };
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{err}");
        assert!(
            err.contains("host rank3@") && err.contains(": run: "),
            "{err}"
        );
        let v = common::parse_json(&out.stdout);
        let hosts = v["hosts"].as_array().unwrap_or_else(|| panic!("{v}"));
        assert_eq!(hosts.len() as u64, RANKS, "{v}");
        let failed: Vec<&str> = hosts
            .iter()
            .filter(|h| h.get("error").is_some())
            .map(|h| h["host"].as_str().unwrap())
            .collect();
        assert_eq!(failed.len(), 1, "{v}");
        assert!(failed[0].starts_with("rank3@"), "{v}");
        // The Total is over the seven ranks that ran, exactly.
        assert_eq!(u(&v["total"]["io_bytes"]), (RANKS - 1) * 65536, "{v}");
        for r in (0..RANKS).filter(|&r| r != 3) {
            let len = std::fs::metadata(dir.path().join(format!("r{r}/sub/data")))
                .unwrap()
                .len();
            assert_eq!(len, 65536, "rank {r}");
        }
    }
}
