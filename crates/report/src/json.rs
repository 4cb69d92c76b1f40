//! fio's `json` and `json+` output. CONTRACT (implemented by the report owner).

use crate::model::RunReport;

/// Render the whole run as fio 3.x JSON; `plus` adds "bins" (json+).
pub fn render(_report: &RunReport, _plus: bool) -> String {
    todo!()
}
