//! fio's terse (minimal) output, version 3. CONTRACT (implemented by the report owner).

use crate::model::RunReport;

/// One semicolon-separated line per job (each ending in '\n'), terse version 3.
pub fn render(_report: &RunReport) -> String {
    todo!()
}
