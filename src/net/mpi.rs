//! `mpirun -n N ferrio --mpi job.fio` (or `srun`): every rank runs the job files with
//! the ordinary runner, the start is an MPI barrier, and each rank's report is gathered
//! to rank 0 with MPI collectives, which prints them as a multi-host client does (each
//! rank's jobs, the exact "All clients" aggregate, the hosts table) and exits non-zero
//! when a rank failed. MPI comes from the `mpi` crate (rsmpi, over the system's MPI
//! library), behind the cargo feature `mpi`: the default binary needs no MPI.

use super::outcome::{HostResult, Outcome};
use ferrio_config::Invocation;
use ferrio_report::RunReport;
use serde::{Deserialize, Serialize};

/// What one rank sends to rank 0 (postcard-encoded, one MPI gather).
#[derive(Serialize, Deserialize, Debug)]
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
struct RankResult {
    host: String,
    /// Wall-clock time right after the start barrier, ns since the epoch.
    start_ns: u64,
    /// The report and exit code, or why the run failed.
    outcome: Result<(RunReport, i32), String>,
}

/// Run as one rank; the exit code (rank 0: 0 when every rank finished cleanly).
pub fn run(inv: Invocation) -> i32 {
    #[cfg(feature = "mpi")]
    {
        imp::run(inv)
    }
    #[cfg(not(feature = "mpi"))]
    {
        let _ = inv;
        eprintln!(
            "ferrio: --mpi: this ferrio was built without MPI; build it with \
             `cargo build --release --features mpi` (needs an MPI library and libclang, \
             e.g. Debian's libopenmpi-dev and libclang-dev)"
        );
        1
    }
}

/// The rank's own run, on its own (the part that needs no MPI).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
fn run_rank(inv: Invocation, start_ns: u64) -> RankResult {
    RankResult {
        host: host_name(),
        start_ns,
        outcome: crate::app::run_captured(inv, Default::default(), None, None),
    }
}

#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

/// Rank 0's view of every rank's result, in rank order; a rank whose bytes do not
/// decode is reported as failed.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
fn results(encoded: &[&[u8]]) -> Vec<HostResult> {
    encoded
        .iter()
        .enumerate()
        .map(|(rank, bytes)| {
            let mut r = HostResult::failed(format!("rank{rank}"), "lost", String::new());
            match postcard::from_bytes::<RankResult>(bytes) {
                Ok(got) => {
                    r.label = format!("rank{rank}@{}", got.host);
                    r.server_host = Some(got.host);
                    r.start_ns = Some(i128::from(got.start_ns));
                    r.outcome = match got.outcome {
                        Ok((report, code)) => {
                            r.threads = report.jobs.len() as u32;
                            Outcome::Done {
                                report: Box::new(report),
                                code,
                            }
                        }
                        Err(reason) => Outcome::Failed {
                            stage: "run",
                            reason,
                        },
                    };
                }
                Err(e) => {
                    r.outcome = Outcome::Failed {
                        stage: "lost",
                        reason: format!("its result did not decode: {e}"),
                    }
                }
            }
            r
        })
        .collect()
}

#[cfg(feature = "mpi")]
mod imp {
    use super::*;
    use mpi::datatype::PartitionMut;
    use mpi::traits::*;
    use mpi::Count;

    pub fn run(inv: Invocation) -> i32 {
        let Some(universe) = mpi::initialize() else {
            eprintln!("ferrio: --mpi: MPI was already initialised");
            return 1;
        };
        let world = universe.world();
        let (rank, size) = (world.rank(), world.size() as usize);
        let flags = inv.flags.clone();
        // The start: every rank leaves the barrier together.
        world.barrier();
        let mine = run_rank(inv, super::super::wire::unix_ns());
        let bytes = postcard::to_stdvec(&mine).unwrap_or_default();
        let root = world.process_at_rank(0);
        let len = bytes.len() as Count;
        if rank != 0 {
            root.gather_into(&len);
            root.gather_varcount_into(&bytes[..]);
            // Rank 0 reports this rank's result and carries the exit code.
            return 0;
        }
        let mut counts: Vec<Count> = vec![0; size];
        root.gather_into_root(&len, &mut counts[..]);
        let displs: Vec<Count> = counts
            .iter()
            .scan(0, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect();
        let mut all = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
        {
            let mut part = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(&bytes[..], &mut part);
        }
        let slices: Vec<&[u8]> = counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| &all[d as usize..(d + c) as usize])
            .collect();
        let results = results(&slices);
        if let Err(e) = super::super::print::write_all(&flags, &results) {
            eprintln!("ferrio: {e}");
            return 1;
        }
        super::super::client::exit_code(&results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rank_is_reported_failed_ones_included() {
        let mut report = RunReport::default();
        report.jobs.push(Default::default());
        let ok = postcard::to_stdvec(&RankResult {
            host: "n1".into(),
            start_ns: 5,
            outcome: Ok((report, 0)),
        })
        .unwrap();
        let failed = postcard::to_stdvec(&RankResult {
            host: "n2".into(),
            start_ns: 7,
            outcome: Err("cannot lay out 'f'".into()),
        })
        .unwrap();
        let r = results(&[&ok, &failed, &[0xff, 0xff]]);
        assert_eq!(r[0].label, "rank0@n1");
        assert_eq!(r[0].threads, 1);
        assert!(matches!(r[0].outcome, Outcome::Done { code: 0, .. }));
        assert_eq!(r[1].label, "rank1@n2");
        assert!(
            matches!(&r[1].outcome, Outcome::Failed { stage: "run", reason } if reason.contains("lay out"))
        );
        assert!(matches!(
            r[2].outcome,
            Outcome::Failed { stage: "lost", .. }
        ));
        assert_eq!(super::super::client::exit_code(&r), 1);
    }
}
