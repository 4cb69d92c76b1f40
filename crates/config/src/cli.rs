//! fio-style command line → [`Command`]. CONTRACT (implemented by the config owner).

use crate::spec::JobSpec;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Normal,
    Terse,
    Json,
    JsonPlus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EtaMode {
    Auto,
    Always,
    Never,
}

/// Flags that apply to the whole run, not to a job.
#[derive(Clone, Debug)]
pub struct GlobalFlags {
    /// --output-format (comma list; default [Normal]). --minimal means [Terse].
    pub output_formats: Vec<OutputFormat>,
    /// --output=FILE
    pub output: Option<PathBuf>,
    /// --terse-version (default 3)
    pub terse_version: u32,
    pub eta: EtaMode,
    /// --debug=... categories (free-form, for diagnostics).
    pub debug: Vec<String>,
}

/// A validated run: what to run and how to report it.
#[derive(Clone, Debug)]
pub struct Invocation {
    pub flags: GlobalFlags,
    /// Jobs in order (after --section filtering); numjobs not yet expanded.
    pub jobs: Vec<JobSpec>,
    /// Options set in [global] sections / before the first --name, as given (JSON "global options").
    pub global_options: Vec<(String, String)>,
}

/// What main should do.
#[derive(Clone, Debug)]
pub enum Command {
    Run(Invocation),
    /// --help, --version, --cmdhelp, --showcmd, --parse-only: print this text to stdout, exit 0.
    Print(String),
    /// --cpuclock-test
    CpuClockTest,
}

/// One-line, user-facing error: names the option, the job, the file and line, and the
/// allowed values where that applies. main prints it as "ferrio: <message>" and exits 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Parse the process arguments (without argv[0]).
pub fn parse_command_line(_args: &[String]) -> Result<Command, ConfigError> {
    todo!()
}
