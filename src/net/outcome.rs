//! What became of each host of a `--client` run: what the client collects, and the
//! printers and the sweep read (a leaf, so that none of them imports another).

use ferrio_report::RunReport;

/// What became of one host.
#[derive(Debug)]
pub enum Outcome {
    Done {
        report: Box<RunReport>,
        code: i32,
    },
    /// `stage`: connect, refused, timeout, lost, run, aborted.
    Failed {
        stage: &'static str,
        reason: String,
    },
}

/// One host's result, with what it said along the way.
#[derive(Debug)]
pub struct HostResult {
    /// The host as given on the command line.
    pub label: String,
    /// Its own host name (from its welcome).
    pub server_host: Option<String>,
    /// Threads it admitted.
    pub threads: u32,
    /// When it started, on this machine's clock (its clock offset removed), ns.
    pub start_ns: Option<i128>,
    /// Its clock's offset from this machine's, estimated at connect.
    pub clock: Option<super::clock::Offset>,
    /// Heartbeats received during the run.
    pub heartbeats: u64,
    /// The latest cumulative results it sent during the run (what is left of a host
    /// that fails mid-run).
    pub partial: Option<Box<RunReport>>,
    /// Log files it sent back that could not be written here (each printed).
    pub log_errors: u32,
    pub outcome: Outcome,
}

impl HostResult {
    /// A host that got no further than `stage`, nothing known of it yet.
    pub fn failed(label: String, stage: &'static str, reason: String) -> HostResult {
        HostResult {
            label,
            server_host: None,
            threads: 0,
            start_ns: None,
            clock: None,
            heartbeats: 0,
            partial: None,
            log_errors: 0,
            outcome: Outcome::Failed { stage, reason },
        }
    }
}
