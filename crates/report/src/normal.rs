//! fio's `normal` (human) output. CONTRACT (implemented by the report owner).

use crate::model::{JobHeader, RunReport};

/// The line printed for a job before the run starts (no trailing newline).
pub fn job_header(_h: &JobHeader) -> String {
    todo!()
}

/// "Starting 1 process" / "Starting 2 threads" (no trailing newline).
pub fn starting_line(_nr: usize, _threads: bool) -> String {
    todo!()
}

/// Everything printed after the run: job blocks, "Run status group" lines, "Disk stats".
pub fn render(_report: &RunReport) -> String {
    todo!()
}
