//! The one error type of this crate and the location every message carries.
//!
//! Every user-facing error is a single line that names the job, the option, the bad
//! value, where it came from ("jobs.fio:7" or "command line") and, where it applies,
//! the allowed values or range.

use std::fmt;

/// One-line, user-facing error: names the option, the job, the file and line, and the
/// allowed values where that applies. main prints it as "ferrio: <message>" and exits 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    pub fn new(msg: impl Into<String>) -> Self {
        ConfigError(msg.into())
    }
}

/// Where a line or option came from: a job file line, or the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Loc {
    File { path: String, line: usize },
    CommandLine,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loc::File { path, line } => write!(f, "{path}:{line}"),
            Loc::CommandLine => f.write_str("command line"),
        }
    }
}
