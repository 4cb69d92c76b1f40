//! `--sweep` / `--repeat` with `--client`: every point (each repeat of it) is one
//! multi-host run — the job files sent with the point's options appended to each job
//! section, the hosts started together — and the sweep table gets that run's "All
//! clients" report. The sweep itself (order, --settle, signals, the table) is
//! src/sweep's.

use super::client;
use super::merge;
use super::outcome::Outcome;
use ferrio_config::ext::reports::points;
use ferrio_config::{GlobalFlags, Invocation, SweepPoint};
use ferrio_report::RunReport;

/// Run the sweep on the hosts; the exit code, as a local sweep's.
pub fn run(flags: &GlobalFlags) -> i32 {
    let labels = match points(&flags.reports.sweeps) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ferrio: --sweep: {e}");
            return 1;
        }
    };
    // A job file that cannot be read fails the sweep before its first point.
    for f in flags.net.clients.iter().flat_map(|g| &g.files) {
        if let Err(e) = std::fs::File::open(f) {
            eprintln!("ferrio: cannot read job file '{}': {e}", f.display());
            return 1;
        }
    }
    let points = labels
        .into_iter()
        .map(|labels| SweepPoint {
            labels,
            inv: Invocation {
                flags: flags.clone(),
                jobs: Vec::new(),
                global_options: Vec::new(),
            },
        })
        .collect();
    crate::sweep::run_with(points, |labels, inv, _| run_point(&inv.flags, labels))
}

/// One run of one point: the All clients report of the hosts that finished, and the
/// exit code (1 when a host failed; None when no host started).
fn run_point(flags: &GlobalFlags, labels: &[(String, String)]) -> (Option<RunReport>, i32) {
    // (A signal that stopped the hosts is the sweep's too: it stops the sweep.)
    let results = match client::run_hosts(flags, labels) {
        Ok(Some(r)) => r.results,
        Ok(None) => return (None, 1),
        Err(e) => {
            eprintln!("ferrio: {e}");
            return (None, 1);
        }
    };
    let mut done = Vec::new();
    for r in &results {
        match &r.outcome {
            Outcome::Done { report, .. } => done.push(report.as_ref()),
            Outcome::Failed { stage, reason } => {
                eprintln!("ferrio: host {}: {stage}: {reason}", r.label)
            }
        }
    }
    (merge::all_clients(&done), client::exit_code(&results))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_end_every_job_section_and_no_global_one() {
        let text = "; a\n[global]\nbs=4k\n[a]\nrw=read\n\n[global]\nsize=1m\n[b]\nbs=8k";
        let opts = [("bs".to_string(), "64k".to_string())];
        assert_eq!(
            client::with_overrides(text, &opts),
            "; a\n[global]\nbs=4k\n[a]\nrw=read\n\nbs=64k\n[global]\nsize=1m\n[b]\nbs=8k\nbs=64k\n"
        );
        assert_eq!(client::with_overrides(text, &[]), text);
    }
}
