//! The self-contained HTML report (docs/reports.md): one offline page per run or
//! sweep, charts drawn here as inline SVG (no script, no fetch, no font download).

use crate::model::RunReport;
use crate::sweep::Table;

/// One run shown in the page.
pub struct Run<'a> {
    pub title: String,
    pub report: &'a RunReport,
}

/// The page of a sweep or repeated run.
pub fn sweep_page(_table: &Table, _runs: &[Run]) -> String {
    String::new()
}
